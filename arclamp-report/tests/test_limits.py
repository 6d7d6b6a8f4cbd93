"""arclamp-report generate against hostile run logs (issue 24): names past
RUNLINE_MAX_NAME_BYTES do not count and cost no memory, a log that cannot
be reported (it cannot be read, or the job died on it) is marked and
skipped until it changes without holding back the logs after it, names
holding NULs stay whole and distinct in a page's data, and a 50,000-arc
chain's critical path is linear."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_generate import (BIN, SANITIZER_MARKS, esc, generate, page_data, run_lines,  # noqa: E402
                           summary, write_log)

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("report_limits", REPO / "bench" / "report-limits.py")
limits = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(limits)

BUCKET = limits.BUCKET
NAME_MAX = int(re.search(r"#define RUNLINE_MAX_NAME_BYTES (\d+)",
                         (REPO / "common/src/runline.h").read_text()).group(1))
MARKS = ".arclamp-report.marks"


def run_job(data, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    proc = subprocess.run(["/usr/bin/time", "-v", BIN, "generate", "--data-dir", str(data)],
                          capture_output=True, timeout=300, env=env)
    for mark in SANITIZER_MARKS:
        assert mark not in proc.stderr, proc.stderr.decode(errors="replace")
    m = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    status = re.search(rb"(?:Exit status|Command terminated by signal):? (\d+)", proc.stderr)
    return proc, int(m.group(1)) / 1024 if m else None, status.group(0).decode()


def reports(data):
    d = data / "reports" / "hourly" / "report"
    return sorted(p.name for p in d.glob("*.html")) if d.is_dir() else []


def test_names_past_the_cap_cost_nothing_and_block_nothing(tmp_path):
    """20 runs of 19 arcs with 200 KB names, each within arclamp-log's
    limits, sorted before two benign logs: 685 MB-1 GB peak before (the
    unit's 512 MiB killed it, no page written); now the runs do not count,
    the others' pages are written, and the peak stays small."""
    limits.write_long(tmp_path)
    proc, rss_mb, status = run_job(tmp_path)
    assert status == "Exit status: 0", proc.stderr.decode(errors="replace")
    assert reports(tmp_path) == [f"{BUCKET}.{t}.html" for t in ("all", "api", "index", "load")]
    api = summary(tmp_path, "hourly", f"{BUCKET}.api")
    assert (api["runs"], api["incomplete"], api["arcs"]) == (0, 20, 0)
    assert summary(tmp_path, "hourly", f"{BUCKET}.all")["runs"] == 2
    assert summary(tmp_path, "hourly", f"{BUCKET}.index")["runs"] == 1
    assert f"longer than {NAME_MAX} bytes".encode() in proc.stderr
    # a bound far from both: the figure itself is in bench/report-limits.py
    assert rss_mb < 300, rss_mb


def test_a_name_counts_up_to_the_cap(tmp_path):
    """RUNLINE_MAX_NAME_BYTES itself counts, one byte more does not (in
    either format, escapes counted as the bytes they stand for, a
    recursion level not counted)."""
    at_cap = "A" * (NAME_MAX - 1) + "\n"  # written %0A: 3 bytes on the line, 1 decoded
    over = "B" * (NAME_MAX + 1)
    ok = {"main()": (1, 100, 80), f"main()==>{at_cap}": (1, 50, 40),
          f"{at_cap}==>{at_cap}@1": (1, 10, 5)}
    bad = {"main()": (1, 100, 80), f"main()==>{over}": (1, 50, 40)}
    v2_bad = "\n".join([
        "xhprof/2 v2 begin 1764126000 web1 wt,cpu /srv/w/index.php",
        "xhprof/2 v2 fn 0 main()", f"xhprof/2 v2 fn 1 {over}",
        "xhprof/2 v2 arc 1 100 80 - - - 0", "xhprof/2 v2 arc 1 50 40 - - 0 1",
        "xhprof/2 v2 end 2 0"]) + "\n"
    write_log(tmp_path, "hourly", f"{BUCKET}.index",
              run_lines("ok", ok) + run_lines("bad", bad) + v2_bad)
    generate(tmp_path)
    s = summary(tmp_path, "hourly", f"{BUCKET}.index")
    assert (s["runs"], s["incomplete"]) == (1, 2), s
    fns = page_data(tmp_path / "reports/hourly/report" / f"{BUCKET}.index.html")["functions"]
    assert at_cap in fns and f"{at_cap}@1" in fns and over not in fns


def test_a_log_the_job_died_on_is_marked_skipped_and_retried_when_it_changes(tmp_path):
    """The job killed while reading a log (ARCLAMP_REPORT_TEST_DIE_ON: it
    kills itself once the log's mark is written, as the OOM killer would)
    leaves the mark; the next runs skip that log without reading it (the
    hook would kill them too) and write the benign logs' pages sorted after
    it; a changed log is read again."""
    limits.write_long(tmp_path)
    hook = {"ARCLAMP_REPORT_TEST_DIE_ON": f"{BUCKET}.api.runs"}
    mark = tmp_path / "reports" / MARKS / f"hourly+{BUCKET}.api.runs"
    api_log = tmp_path / "logs" / "hourly" / f"{BUCKET}.api.runs"
    st = api_log.stat()
    # one death may be a stop that fell on a sound log: it is read once more
    for deaths in (1, 2):
        proc, _, status = run_job(tmp_path, hook)
        assert status == "Command terminated by signal 9", proc.stderr.decode(errors="replace")
        text = mark.read_text()
        assert text.startswith(f"arclamp-report-mark/2 {st.st_size} {st.st_mtime_ns // 10**9} ")
        assert text.split("\n")[0].endswith(f" {deaths}")
        assert str(api_log) in text and "died while reading" in text
        assert f"{BUCKET}.index.html" not in reports(tmp_path)  # nothing after it was reached
    for _ in range(2):  # and on every later run
        proc, _, status = run_job(tmp_path, hook)
        assert status == "Exit status: 0", proc.stderr.decode(errors="replace")
        assert b"skipped, it could not be reported (the job died while reading it)" in proc.stderr
        assert b"1 run log reads skipped" in proc.stderr or b"2 run log reads skipped" in proc.stderr
        assert reports(tmp_path) == [f"{BUCKET}.{t}.html" for t in ("all", "index", "load")]
        assert summary(tmp_path, "hourly", f"{BUCKET}.all")["logs"] == 2
    # touched: read again (and the hook kills the job again: its first death)
    os.utime(api_log, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    proc, _, status = run_job(tmp_path, hook)
    assert status == "Command terminated by signal 9"
    assert mark.read_text().split("\n")[0].endswith(" 1")
    # changed, without the hook: read, reported, the mark gone, the all view whole again
    api_log.write_text(run_lines("fixed", {"main()": (1, 100, 80)}, entry="/srv/w/api.php"))
    proc, _, status = run_job(tmp_path)
    assert status == "Exit status: 0", proc.stderr.decode(errors="replace")
    assert not mark.exists() and b"skipped" not in proc.stderr
    assert f"{BUCKET}.api.html" in reports(tmp_path)
    assert summary(tmp_path, "hourly", f"{BUCKET}.all")["logs"] == 3
    # the mark of a log that is gone goes with it
    os.utime(api_log, ns=(st.st_atime_ns, st.st_mtime_ns + 5 * 10**9))
    run_job(tmp_path, hook)
    assert mark.exists()
    api_log.unlink()
    proc, _, status = run_job(tmp_path)
    assert status == "Exit status: 0" and not mark.exists()


def test_names_with_nul_stay_whole_and_distinct(tmp_path):
    """Two names that differ only after a NUL (PHP's anonymous classes):
    before, `functions` cut both at the NUL into one key, which `arcs`
    (whole) no longer matched."""
    a, b = "class@anonymous\0/srv/a.php:1$0", "class@anonymous\0/srv/b.php:9$0"
    arcs = {"main()": (1, 100, 80), f"main()==>{a}": (2, 50, 40), f"main()==>{b}": (3, 30, 20)}
    write_log(tmp_path, "hourly", f"{BUCKET}.index", run_lines("r1", arcs))
    generate(tmp_path)
    d = page_data(tmp_path / "reports/hourly/report" / f"{BUCKET}.index.html")
    assert d["functions"][a]["ct"] == 2 and d["functions"][b]["ct"] == 3
    assert len(d["functions"]) == 3
    children = {child: m["ct"] for parent, child, m in d["arcs"]}
    assert children == {a: 2, b: 3}
    assert all(child in d["functions"] for child in children)
    assert "\\u0000" in (tmp_path / "reports/hourly/report" / f"{BUCKET}.index.html").read_text()
    assert esc(a) != a  # (the log carried it as %00)


def test_a_50000_arc_chain_is_reported(tmp_path):
    """main() -> f1 -> ... -> f49999: the critical path searched every arc
    at each of its 50,000 steps (260 s a log); now each function's arcs are
    indexed (tests/test-callgraph.c counts the work)."""
    limits.write_chain(tmp_path, 50000)
    proc, _, status = run_job(tmp_path)
    assert status == "Exit status: 0", proc.stderr.decode(errors="replace")
    s = summary(tmp_path, "hourly", f"{BUCKET}.index")
    assert (s["runs"], s["arcs"]) == (1, 50000)
    assert (tmp_path / "reports/hourly/callgraph" / f"{BUCKET}.index.svg").stat().st_size > 0
