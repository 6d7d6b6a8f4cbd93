"""arclamp-report generate, the timer job, on run logs as arclamp-log writes
them (<logs>/<period>/<bucket>.<tag>.runs, xhprof/1 or xhprof/2 lines):
the mean run per bucket and entry point with xhprof_lib's numbers, the
`all` view of a bucket made from all of its run logs (each run id once:
logs from before runs were stored once per period hold every run twice),
the diff against the previous bucket, pages rewritten only when their
inputs change and removed when their run logs go, the index, and hostile
logs (markup in names, broken lines, undefined function ids, symlinks)
handled without writing outside the reports directory. arclamp-svg's
index links the report of a trace log's bucket."""

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common" / "tests"))
from testkit import repo_bin  # noqa: E402

BIN = repo_bin("ARCLAMP_REPORT_BIN", "build/bin/arclamp-report")
SVG_BIN = repo_bin("ARCLAMP_SVG_BIN", "build/bin/arclamp-svg")
SANITIZER_MARKS = (b"ERROR: AddressSanitizer", b"ERROR: LeakSanitizer", b"runtime error:")


def esc(text):
    return text.replace("%", "%25").replace("\n", "%0A").replace("\r", "%0D").replace("\0", "%00")


def run_lines(runid, arcs, entry="/srv/w/index.php", when=1764126000, host="web1",
              flags="wt,cpu", sent=None, left_out=0):
    """A run in the xhprof/1 format: arcs is {key: (ct, wt, cpu)}."""
    lines = [f"xhprof/1 {runid} begin {when} {host} {flags} {esc(entry)}"]
    for key, (ct, wt, cpu) in arcs.items():
        lines.append(f"xhprof/1 {runid} arc {ct} {wt} {cpu} - - {esc(key)}")
    lines.append(f"xhprof/1 {runid} end {len(arcs) if sent is None else sent} {left_out}")
    return "\n".join(lines) + "\n"


def v2_lines(runid, names, arcs, entry="/srv/w/index.php", when=1764126000, flags="wt,cpu",
             sent=None):
    """A run in the xhprof/2 format: names by id, arcs as (caller id or
    None, caller level, callee id, callee level, (ct, wt, cpu)); each fn line
    just before the first arc that uses it."""
    lines = [f"xhprof/2 {runid} begin {when} web1 {flags} {esc(entry)}"]
    done = set()
    for caller, cl, callee, ll, (ct, wt, cpu) in arcs:
        for i in ([] if caller is None else [caller]) + [callee]:
            if i not in done:
                done.add(i)
                lines.append(f"xhprof/2 {runid} fn {i} {esc(names[i])}")
        ref = lambda i, level: f"{i}@{level}" if level else f"{i}"  # noqa: E731
        lines.append(f"xhprof/2 {runid} arc {ct} {wt} {cpu} - - "
                     f"{'-' if caller is None else ref(caller, cl)} {ref(callee, ll)}")
    lines.append(f"xhprof/2 {runid} end {len(arcs) if sent is None else sent} 0")
    return "\n".join(lines) + "\n"


def v1_keys(names, arcs):
    """The xhprof/1 keys (and metrics) the xhprof/2 arcs stand for."""
    out = {}
    for caller, cl, callee, ll, m in arcs:
        key = names[callee] + (f"@{ll}" if ll else "")
        if caller is not None:
            key = names[caller] + (f"@{cl}" if cl else "") + "==>" + key
        out[key] = m
    return out


RUN_A = {"main()": (1, 100, 80), "main()==>a": (2, 60, 50), "a==>b": (4, 30, 20)}
RUN_B = {"main()": (1, 300, 100), "main()==>a": (4, 100, 60), "a==>b": (8, 50, 40)}


def report(cmd, data, *extra, ok=True):
    """arclamp-report CMD (a job: generate, tiers) on the data directory."""
    proc = subprocess.run([BIN, cmd, "--data-dir", str(data), *extra],
                          capture_output=True, timeout=120)
    for mark in SANITIZER_MARKS:
        assert mark not in proc.stderr, proc.stderr.decode(errors="replace")
    if ok:
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc


def generate(data, *extra, ok=True):
    return report("generate", data, *extra, ok=ok)


def page_data(path):
    """The JSON a report page embeds."""
    text = Path(path).read_text()
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)
    assert m, path
    return json.loads(m.group(1))


def write_log(data, period, name, text):
    d = data / "logs" / period
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{name}.runs").write_text(text)
    return d / f"{name}.runs"


def pages(data):
    root = data / "reports"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
                  and not p.name.startswith("."))


def test_mean_run_per_bucket_with_diff_against_the_previous(tmp_path):
    write_log(tmp_path, "hourly", "2026-11-26_02.excimer.index", run_lines("r1", RUN_A))
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.index",
              run_lines("r2", RUN_A) + run_lines("r3", RUN_B, host="web2"))
    generate(tmp_path)
    # each entry point's pages, and each bucket's all view (here: index alone)
    assert pages(tmp_path) == sorted(
        [f"hourly/{kind}/2026-11-26_{h}.excimer.{tag}.{ext}"
         for h in ("02", "03") for tag in ("all", "index")
         for kind, ext in (("callgraph", "svg"), ("report", "html"), ("summary", "json"))]
        + ["hourly/diff/2026-11-26_03.excimer.all.html",
           "hourly/diff/2026-11-26_03.excimer.index.html"]) + ["index.html"]
    rep = tmp_path / "reports" / "hourly"
    summary = json.loads((rep / "summary/2026-11-26_03.excimer.index.json").read_text())
    assert summary["runs"] == 2 and summary["incomplete"] == 0
    assert summary["entrypoint"] == "index" and summary["arcs"] == 3
    # the mean of A and B: main() wt (100+300)/2, a: inclusive (60+100)/2,
    # exclusive a = 80 - b's 40
    d = page_data(rep / "report/2026-11-26_03.excimer.index.html")
    assert d["totals"]["wt"] == 200
    assert d["functions"]["a"]["wt"] == 80 and d["functions"]["a"]["excl_wt"] == 40
    assert d["functions"]["a"]["ct"] == 3 and d["functions"]["b"]["ct"] == 6
    assert "mean of 2 runs" in d["title"]
    # the diff: this hour's mean minus the previous hour's (A alone)
    dd = page_data(rep / "diff/2026-11-26_03.excimer.index.html")
    assert dd["totals"]["wt"] == 100
    assert dd["functions"]["a"]["wt"] == 20 and dd["functions"]["b"]["wt"] == 10
    assert "diff" in dd
    ET.parse(rep / "callgraph/2026-11-26_03.excimer.index.svg")
    index = (tmp_path / "reports" / "index.html").read_text()
    assert 'href="hourly/diff/2026-11-26_03.excimer.index.html"' in index
    assert 'href="hourly/report/2026-11-26_02.excimer.index.html"' in index
    assert index.index("2026-11-26_03") < index.index("2026-11-26_02")  # newest first


def test_pages_follow_their_inputs(tmp_path):
    old = write_log(tmp_path, "daily", "2026-11-25.excimer.all", run_lines("r1", RUN_A))
    new = write_log(tmp_path, "daily", "2026-11-26.excimer.all", run_lines("r2", RUN_B))
    generate(tmp_path)
    rep = tmp_path / "reports" / "daily"
    report = rep / "report/2026-11-26.excimer.all.html"
    first = report.stat()
    assert report.stat().st_mtime_ns == new.stat().st_mtime_ns
    proc = generate(tmp_path)
    assert b"0 brought up to date" in proc.stderr
    assert report.stat().st_ino == first.st_ino  # not rewritten
    with open(new, "a") as f:
        f.write(run_lines("r3", RUN_B))
    generate(tmp_path)
    assert report.stat().st_ino != first.st_ino
    assert json.loads((rep / "summary/2026-11-26.excimer.all.json").read_text())["runs"] == 2
    # the previous day changing rewrites the diff only
    diff = rep / "diff/2026-11-26.excimer.all.html"
    diff_ino = diff.stat().st_ino
    report_ino = report.stat().st_ino
    with open(old, "a") as f:
        f.write(run_lines("r4", RUN_A))
    generate(tmp_path)
    assert diff.stat().st_ino != diff_ino and report.stat().st_ino == report_ino
    # a run log gone: its pages go, and the diff that compared with it
    old.unlink()
    generate(tmp_path)
    assert pages(tmp_path) == [
        "daily/callgraph/2026-11-26.excimer.all.svg",
        "daily/report/2026-11-26.excimer.all.html",
        "daily/summary/2026-11-26.excimer.all.json",
        "index.html",
    ]
    new.unlink()
    generate(tmp_path)
    assert pages(tmp_path) == ["index.html"]
    assert not (tmp_path / "reports" / "daily").exists()


def summary(data, period, name):
    return json.loads((data / "reports" / period / "summary" / f"{name}.json").read_text())


def test_all_view_is_every_run_log_of_the_bucket_each_run_once(tmp_path):
    """Runs are stored once per period (arclamp-log): the all view of a
    bucket is its entry points' logs and its all log (runs without an entry
    point) together. A bucket written before that holds each run in all and
    in its entry point's log too: counted once."""
    # 03: the new layout
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.index",
              run_lines("r1", RUN_A) + run_lines("r2", RUN_B))
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.api", run_lines("r3", RUN_A, entry="/w/api.php"))
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.all", run_lines("r4", RUN_B, entry="/bin/job"))
    # 02: the old layout, every tagged run in all too, and one run delivered twice
    write_log(tmp_path, "hourly", "2026-11-26_02.excimer.index", run_lines("o1", RUN_A) + run_lines("o2", RUN_A))
    write_log(tmp_path, "hourly", "2026-11-26_02.excimer.api", run_lines("o3", RUN_B, entry="/w/api.php"))
    write_log(tmp_path, "hourly", "2026-11-26_02.excimer.all",
              run_lines("o1", RUN_A) + run_lines("o2", RUN_A) + run_lines("o3", RUN_B, entry="/w/api.php")
              + run_lines("o4", RUN_A, entry="/bin/job") + run_lines("o4", RUN_A, entry="/bin/job"))
    generate(tmp_path)
    now, old = (summary(tmp_path, "hourly", f"2026-11-26_{h}.excimer.all") for h in ("03", "02"))
    assert (now["runs"], now["duplicates"], now["logs"], now["entrypoint"]) == (4, 0, 3, "all")
    assert (old["runs"], old["duplicates"], old["logs"]) == (4, 4, 3)
    assert summary(tmp_path, "hourly", "2026-11-26_03.excimer.index")["runs"] == 2
    assert summary(tmp_path, "hourly", "2026-11-26_02.excimer.api")["runs"] == 1
    rep = tmp_path / "reports" / "hourly"
    # the mean of A, B, A, B (03) and of A, A, B, A (02, each run once)
    d = page_data(rep / "report/2026-11-26_03.excimer.all.html")
    assert d["totals"]["wt"] == 200 and "mean of 4 runs" in d["title"]
    assert page_data(rep / "report/2026-11-26_02.excimer.all.html")["totals"]["wt"] == 150
    dd = page_data(rep / "diff/2026-11-26_03.excimer.all.html")
    assert dd["totals"]["wt"] == 50
    index = (tmp_path / "reports/index.html").read_text()
    assert 'href="hourly/report/2026-11-26_03.excimer.all.html"' in index


def test_all_view_follows_the_set_of_its_logs(tmp_path):
    """The all page is rewritten when any log of its bucket changes, is
    added or goes (retention prunes each entry point's logs apart), and
    not otherwise; it goes when the last one goes."""
    index = write_log(tmp_path, "daily", "2026-11-26.excimer.index", run_lines("r1", RUN_A))
    generate(tmp_path)
    page = tmp_path / "reports/daily/report/2026-11-26.excimer.all.html"
    ino = page.stat().st_ino
    assert page.stat().st_mtime_ns == index.stat().st_mtime_ns  # one log: its time
    generate(tmp_path)
    assert page.stat().st_ino == ino
    api = write_log(tmp_path, "daily", "2026-11-26.excimer.api", run_lines("r2", RUN_B))
    os.utime(api, ns=(index.stat().st_mtime_ns - 10**9,) * 2)  # older than index: added all the same
    generate(tmp_path)
    assert page.stat().st_ino != ino
    assert summary(tmp_path, "daily", "2026-11-26.excimer.all")["runs"] == 2
    ino = page.stat().st_ino
    generate(tmp_path)
    assert page.stat().st_ino == ino
    api.unlink()
    generate(tmp_path)
    assert page.stat().st_ino != ino
    assert summary(tmp_path, "daily", "2026-11-26.excimer.all")["runs"] == 1
    index.unlink()
    generate(tmp_path)
    assert pages(tmp_path) == ["index.html"]


NAMES = ["main()", "App\\Http\\Kernel::handle", "{closure}", "a\0b%\n", "x==>y", "caf\u00e9"]
ARCS_V2 = [(None, 0, 0, 0, (1, 1000, 900)), (0, 0, 1, 0, (1, 800, 700)), (1, 0, 2, 0, (3, 500, 400)),
           (2, 0, 2, 1, (2, 300, 250)), (2, 1, 2, 2, (1, 100, 90)), (2, 2, 3, 0, (1, 40, 30)),
           (1, 0, 4, 0, (5, 60, 50)), (4, 0, 5, 0, (2, 20, 10))]


def test_v2_runs_read_as_their_v1_keys(tmp_path):
    """A run sent as xhprof/2 gives the same pages as the same run sent as
    xhprof/1 (the key of each arc rebuilt from the run's names, with
    recursion levels), and a bucket may hold both."""
    keys = v1_keys(NAMES, ARCS_V2)
    assert len(keys) == len(ARCS_V2)
    write_log(tmp_path, "hourly", "2026-11-26_02.excimer.index", run_lines("a1", keys))
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.index", v2_lines("b1", NAMES, ARCS_V2))
    write_log(tmp_path, "hourly", "2026-11-26_04.excimer.index",
              v2_lines("c1", NAMES, ARCS_V2) + run_lines("c2", keys))
    generate(tmp_path)
    rep = tmp_path / "reports" / "hourly"
    one, two, both = (page_data(rep / f"report/2026-11-26_{h}.excimer.index.html") for h in ("02", "03", "04"))
    assert one["functions"] == two["functions"] == both["functions"]
    assert one["totals"] == two["totals"] == both["totals"]
    assert {"{closure}", "{closure}@1", "{closure}@2"} <= set(two["functions"])
    # a name holding "==>" reads as it did in version 1's keys: split at the first
    assert {"x==>y", "y==>caf\u00e9"} <= set(two["functions"])
    assert "a\0b%\n" in two["functions"]  # whole, NUL and all, as v1's key has it
    for h, n in (("03", 1), ("04", 2)):
        s = summary(tmp_path, "hourly", f"2026-11-26_{h}.excimer.index")
        assert (s["runs"], s["incomplete"], s["bad_lines"]) == (n, 0, 0), s
    diff = page_data(rep / "diff/2026-11-26_03.excimer.index.html")
    assert diff["totals"]["wt"] == 0


def test_v2_runs_whose_names_do_not_resolve_do_not_count(tmp_path):
    ok = v2_lines("ok", NAMES, ARCS_V2)
    undefined = "".join(l + "\n" for l in v2_lines("u1", NAMES, ARCS_V2).splitlines()
                        if " fn 3 " not in l)
    lines = v2_lines("u2", NAMES, ARCS_V2).splitlines()
    assert " fn 1 " in lines[3] and " arc " in lines[4]
    used_first = "\n".join(lines[:3] + lines[4:5] + lines[3:4] + lines[5:]) + "\n"  # arc before its fn
    redefined = v2_lines("u3", NAMES, ARCS_V2).replace("\nxhprof/2 u3 end", "\nxhprof/2 u3 fn 1 again\nxhprof/2 u3 end")
    mixed = v2_lines("u4", NAMES, ARCS_V2).replace("xhprof/2 u4 end", "xhprof/1 u4 end")
    v1_fn = run_lines("u5", RUN_A).replace("xhprof/1 u5 end", "xhprof/1 u5 fn 9 f\nxhprof/1 u5 end")
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.index",
              undefined + used_first + ok + redefined + mixed + v1_fn)
    generate(tmp_path)
    s = summary(tmp_path, "hourly", "2026-11-26_03.excimer.index")
    assert (s["runs"], s["incomplete"]) == (2, 4), s
    assert s["bad_lines"] == 2, s  # the version 1 end of u4, the fn line in version 1
    d = page_data(tmp_path / "reports/hourly/report/2026-11-26_03.excimer.index.html")
    assert d["totals"]["wt"] == (1000 + 100) / 2

def test_mean_run_labels_say_call_and_calls(tmp_path):
    """The callgraph of a bucket's mean run: calls need not be whole (1 and
    2 calls make 1.5), and one is "1 call", never "1 calls"; the page's title
    says "1 run" for one."""
    one = {"main()": (1, 100, 80), "main()==>a": (1, 60, 50), "a==>b": (1, 30, 20)}
    two = {"main()": (1, 100, 80), "main()==>a": (2, 60, 50), "a==>b": (1, 30, 20)}
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.index",
              run_lines("r1", one) + run_lines("r2", two))
    write_log(tmp_path, "hourly", "2026-11-26_04.excimer.index", run_lines("r3", one))
    generate(tmp_path)
    rep = tmp_path / "reports" / "hourly"
    svg = ET.parse(rep / "callgraph/2026-11-26_03.excimer.index.svg").getroot()
    ns = "{http://www.w3.org/2000/svg}"
    texts = lambda kind: sorted(" | ".join(t.text for t in g.findall(ns + "text"))
                                for g in svg.iter(ns + "g") if g.get("class") == kind)
    assert [t.split(" | ")[0] for t in texts("edge")] == ["1 call", "1.5 calls"]
    assert sorted(t.split(" | ")[-1] for t in texts("node")) == \
        ["1 total call", "1 total call", "1.5 total calls"]
    assert "mean of 2 runs" in page_data(rep / "report/2026-11-26_03.excimer.index.html")["title"]
    assert page_data(rep / "report/2026-11-26_04.excimer.index.html")["title"].endswith(
        "mean of 1 run")


def test_only_complete_runs_count(tmp_path):
    text = (run_lines("ok1", RUN_A)
            + run_lines("short", RUN_A, sent=5)          # an arc line missing
            + "xhprof/1 cut begin 1764126000 web1 wt,cpu /w/index.php\n"
            + "xhprof/1 cut arc 1 5 5 - - main()\n"      # no end: a new begin follows
            + run_lines("ok2", RUN_B)
            + "main;foo 12\n"                            # not a run line
            + "xhprof/1 stray arc 1 1 1 - - main()\n"    # an arc of no run
            + "xhprof/1 torn begin 17641")               # a torn last line
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.index", text)
    generate(tmp_path)
    s = json.loads((tmp_path / "reports/hourly/summary/2026-11-26_03.excimer.index.json")
                   .read_text())
    assert (s["runs"], s["incomplete"], s["bad_lines"]) == (2, 2, 2)
    d = page_data(tmp_path / "reports/hourly/report/2026-11-26_03.excimer.index.html")
    assert d["totals"]["wt"] == 200


def test_hostile_names_stay_data(tmp_path):
    evil = '</script><script>alert(1)</script>&"\'\n\0'
    arcs = {"main()": (1, 100, 80), f"main()==>{evil}": (1, 50, 40)}
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.index", run_lines("r1", arcs))
    generate(tmp_path)
    rep = tmp_path / "reports" / "hourly"
    page = (rep / "report/2026-11-26_03.excimer.index.html").read_text()
    assert "alert(1)</script>" not in page and "<script>alert" not in page
    # whole, NUL and all (PHP's anonymous class names hold one)
    shown = page_data(rep / "report/2026-11-26_03.excimer.index.html")["functions"]
    assert evil in shown
    svg = (rep / "callgraph/2026-11-26_03.excimer.index.svg").read_text()
    assert "<script" not in svg
    ET.fromstring(svg)  # well-formed whatever the names


def test_odd_files_are_skipped_and_nothing_escapes(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.runs"
    secret.write_text(run_lines("s1", RUN_A))
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.index", run_lines("r1", RUN_A))
    logs = tmp_path / "logs"
    (logs / "hourly" / "2026-11-26_03.excimer.api.runs").symlink_to(secret)
    (logs / "hourly" / "2026-11-26_03.excimer.evil.all.runs").write_text(run_lines("r2", RUN_A))
    (logs / "hourly" / "notabucket.runs").write_text(run_lines("r3", RUN_A))
    (logs / "linked").symlink_to(outside, target_is_directory=True)
    (logs / ".hidden").mkdir()
    before = sorted(os.listdir(outside))
    proc = generate(tmp_path)
    assert b"notabucket.runs: no configured format names it" in proc.stderr
    assert pages(tmp_path) == [
        "hourly/callgraph/2026-11-26_03.excimer.all.svg",
        "hourly/callgraph/2026-11-26_03.excimer.index.svg",
        "hourly/report/2026-11-26_03.excimer.all.html",
        "hourly/report/2026-11-26_03.excimer.index.html",
        "hourly/summary/2026-11-26_03.excimer.all.json",
        "hourly/summary/2026-11-26_03.excimer.index.json",
        "index.html",
    ]
    s = json.loads((tmp_path / "reports/hourly/summary/2026-11-26_03.excimer.all.json").read_text())
    assert (s["runs"], s["logs"]) == (1, 1)  # neither the symlink nor the refused name
    assert sorted(os.listdir(outside)) == before


def test_an_unreadable_log_costs_only_its_own_pages(tmp_path):
    """As root (CI) the job runs as nobody in a tree nobody owns, so the
    mode-0 file is really unreadable to it."""
    as_nobody = os.geteuid() == 0
    data = Path(tempfile.mkdtemp(prefix="arclamp-report-")) if as_nobody else tmp_path
    try:
        write_log(data, "hourly", "2026-11-26_02.excimer.index", run_lines("r1", RUN_A))
        bad = write_log(data, "hourly", "2026-11-26_03.excimer.api", run_lines("r2", RUN_A))
        if as_nobody:
            data.chmod(0o755)
            for p in [data, *data.rglob("*")]:
                os.chown(p, 65534, 65534)
        bad.chmod(0)
        wrap = (["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
                if as_nobody else [])
        proc = subprocess.run([*wrap, BIN, "generate", "--data-dir", str(data)],
                              capture_output=True, timeout=120)
        for mark in SANITIZER_MARKS:
            assert mark not in proc.stderr, proc.stderr.decode(errors="replace")
        assert proc.returncode == 1, proc.stderr
        assert b"2026-11-26_03.excimer.api.runs: Permission denied" in proc.stderr
        assert "hourly/report/2026-11-26_02.excimer.index.html" in pages(data)
        assert "hourly/report/2026-11-26_03.excimer.api.html" not in pages(data)
        # marked: later runs skip it with a warning, and do not fail for it
        again = subprocess.run([*wrap, BIN, "generate", "--data-dir", str(data)],
                               capture_output=True, timeout=120)
        assert again.returncode == 0, again.stderr
        assert (b"2026-11-26_03.excimer.api.runs: skipped, it could not be reported ("
                + str(bad).encode() + b": Permission denied)") in again.stderr
        # readable again and changed: read
        bad.chmod(0o644)
        os.utime(bad, ns=(0, bad.stat().st_mtime_ns + 10**9))
        fixed = subprocess.run([*wrap, BIN, "generate", "--data-dir", str(data)],
                               capture_output=True, timeout=120)
        assert fixed.returncode == 0 and b"skipped" not in fixed.stderr, fixed.stderr
        assert "hourly/report/2026-11-26_03.excimer.api.html" in pages(data)
    finally:
        if as_nobody:
            shutil.rmtree(data)


def test_a_second_generate_waits_for_nobody(tmp_path):
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.index", run_lines("r1", RUN_A))
    (tmp_path / "reports").mkdir()
    with open(tmp_path / "reports" / ".arclamp-report.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = generate(tmp_path, ok=False)
    assert proc.returncode == 75 and b"another generate is running" in proc.stderr
    assert pages(tmp_path) == []


def test_flame_graph_index_links_the_report(tmp_path):
    """arclamp-svg's index links the report of a trace log's bucket and
    entry point, and says how many runs (profiled requests) it is the mean
    of, from the summary written here."""
    write_log(tmp_path, "hourly", "2026-11-26_03.excimer.index",
              "".join(run_lines("r%d" % i, RUN_A) for i in range(3)))
    write_log(tmp_path, "hourly", "2026-11-26_04.excimer.index", run_lines("r9", RUN_B))
    for name, entry in (("2026-11-26_03.excimer.index", "index"),
                        ("2026-11-26_04.excimer.index", "index"),
                        ("2026-11-26_03.excimer.api", "api")):
        (tmp_path / "logs/hourly" / (name + ".log")).write_text(entry + ".php;main 3\n")
    generate(tmp_path)
    subprocess.run([SVG_BIN, "generate", "--data-dir", str(tmp_path)], check=True,
                   capture_output=True, timeout=120)
    index = (tmp_path / "index.html").read_text()
    assert 'href="reports/index.html"' in index
    link = '<a href="reports/hourly/report/2026-11-26_%s.excimer.index.html">XHProf report</a>'
    assert link % "03" + ' <span class="count">(3 runs)</span>' in index
    assert link % "04" + ' <span class="count">(1 run)</span>' in index
    assert "2026-11-26_03.excimer.api.html" not in index
    logs = {e["name"]: (e["report"], e["report_runs"])
            for e in json.loads((tmp_path / "index.json").read_text())["logs"]}
    assert logs == {"2026-11-26_03.excimer.index":
                    ("reports/hourly/report/2026-11-26_03.excimer.index.html", 3),
                    "2026-11-26_04.excimer.index":
                    ("reports/hourly/report/2026-11-26_04.excimer.index.html", 1),
                    "2026-11-26_03.excimer.api": (None, None)}


def test_root_becomes_the_owner_of_the_reports(tmp_path):
    """Run by hand as root on a data directory the service's user owns:
    every page and directory made belongs to that user, not to root (as
    arclamp-svg does)."""
    import pytest
    if os.geteuid() != 0:
        pytest.skip("needs root")
    data = Path(tempfile.mkdtemp(prefix="arclamp-report-own-"))
    try:
        write_log(data, "hourly", "2026-11-26_02.excimer.index", run_lines("r1", RUN_A))
        write_log(data, "hourly", "2026-11-26_03.excimer.index", run_lines("r2", RUN_B))
        data.chmod(0o755)
        for p in [data, *data.rglob("*")]:
            os.chown(p, 65534, 65534)
        generate(data)
        made = [data / "reports", *(data / "reports").rglob("*")]
        assert len(made) > 8
        owners = {(p.stat().st_uid, p.stat().st_gid) for p in made}
        assert owners == {(65534, 65534)}, owners
    finally:
        shutil.rmtree(data)
