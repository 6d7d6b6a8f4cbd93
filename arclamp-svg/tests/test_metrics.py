"""`arclamp-svg metrics`: the Prometheus text exposition format (HELP and
TYPE before each family's samples, escaped label values) and the figures
per period and entry point."""

import calendar
import os
import re
import subprocess

from conftest import stack

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE_RE = re.compile(r"^(%s)(?:\{(%s(?:,%s)*)\})? (-?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)$"
                       % (NAME, LABEL, LABEL))
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def unescape(v):
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), v)


def parse(text):
    """Strict parse: {(name, frozenset(labels)): value}; checks HELP/TYPE order."""
    out, helped, typed, done = {}, set(), set(), set()
    current = None
    for line in text.split("\n")[:-1]:
        if line.startswith("# HELP "):
            name = line.split(" ")[2]
            assert name not in helped, "HELP twice for " + name
            helped.add(name)
            if current:
                done.add(current)
            current = name
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            # counters are the *_total families (what generate runs left out)
            assert name == current and kind == ("counter" if name.endswith("_total")
                                                else "gauge"), line
            typed.add(name)
            continue
        m = SAMPLE_RE.match(line)
        assert m, "not a sample line: %r" % line
        name = m.group(1)
        assert name == current and name in typed and name not in done, line
        labels = frozenset((k, unescape(v)) for k, v in LABEL_RE.findall(m.group(2) or ""))
        assert (name, labels) not in out, "duplicate series " + line
        out[(name, labels)] = float(m.group(3))
    assert text.endswith("\n")
    return out


def value(metrics, name, **labels):
    return metrics[(name, frozenset(labels.items()))]


def test_figures_per_period_and_entry_point(tree):
    lines = [stack("f", count=1)]
    a = tree.log("hourly", "2026-11-22_05.excimer.index", lines)
    b = tree.log("hourly", "2026-11-21_23.excimer.index", lines * 3, gz=True)
    tree.log("hourly", "2026-11-22_05.excimer.all", lines)
    tree.log("daily", "2026-11-20.api", lines)
    tree.log("daily", "odd", lines, mtime=1700000000)
    tree.ok("generate")
    m = parse(tree.ok("metrics").stdout.decode())
    assert value(m, "arclamp_trace_log_files", period="hourly", entrypoint="index") == 2
    assert value(m, "arclamp_trace_log_files", period="hourly", entrypoint="all") == 1
    assert value(m, "arclamp_trace_log_bytes", period="hourly", entrypoint="index") == \
        os.path.getsize(a) + os.path.getsize(b)
    assert value(m, "arclamp_trace_log_oldest_timestamp_seconds", period="hourly",
                 entrypoint="index") == calendar.timegm((2026, 11, 21, 23, 0, 0))
    assert value(m, "arclamp_trace_log_newest_timestamp_seconds", period="hourly",
                 entrypoint="index") == calendar.timegm((2026, 11, 22, 5, 0, 0))
    assert value(m, "arclamp_trace_log_newest_timestamp_seconds", period="daily",
                 entrypoint="api") == calendar.timegm((2026, 11, 20, 0, 0, 0))
    # no date in the name: the mtime stands in
    assert value(m, "arclamp_trace_log_oldest_timestamp_seconds", period="daily",
                 entrypoint="odd") == 1700000000
    assert value(m, "arclamp_flame_graph_files", period="hourly") == 6  # no fn graph: no samples
    svgs = [os.path.join(tree.svgs, "hourly", n) for n in os.listdir(tree.svgs / "hourly")]
    assert value(m, "arclamp_flame_graph_bytes", period="hourly") == \
        sum(os.path.getsize(p) for p in svgs)
    assert value(m, "arclamp_svg_index_timestamp_seconds") == \
        int(os.stat(tree.root / "index.html").st_mtime)


def test_label_values_are_escaped(tree):
    tree.log('per"iod\\x', b"2026-11-22.bad\xff\"e\\p", [stack("f")])
    tree.log("p\nq", "2026-11-22.index", [stack("f")])
    tree.write_config("log_formats: ['%Y%m%d']\n")  # old reading: the tag is not refused
    text = tree.ok("metrics").stdout.decode("utf-8")  # valid UTF-8 throughout
    m = parse(text)
    assert value(m, "arclamp_trace_log_files", period='per"iod\\x',
                 entrypoint='bad\ufffd"e\\p') == 1
    assert value(m, "arclamp_trace_log_files", period="p\nq", entrypoint="index") == 1


def test_output_file_is_written_atomically(tree):
    tree.log("hourly", "2026-11-22_05.index", [stack("f")])
    out = tree.root / "prom" / "arclamp.prom"
    out.parent.mkdir()
    out.write_text("old\n")
    proc = tree.ok("metrics", "--output", str(out))
    assert proc.stdout == b""
    text = out.read_text()
    assert text == tree.ok("metrics").stdout.decode()
    parse(text)
    assert os.listdir(out.parent) == ["arclamp.prom"]
    bad = tree.run("metrics", "--output", str(tree.root / "missing" / "x.prom"))
    assert bad.returncode == 1 and b"missing" in bad.stderr


COUNTERS = ("arclamp_svg_truncated_graphs_total", "arclamp_svg_truncated_lines_total",
            "arclamp_svg_log_read_limit_total")


def test_counters_live_in_one_private_file_only_its_owner_reads(tree):
    """Before: the skip counts and the limit counters were two files, the
    latter written by path into the data directory itself (0644, readable
    by every local user)."""
    os.chmod(tree.root, 0o755)
    tree.write_config("max_stacks: 5\n")
    tree.log("daily", "2026-11-22.excimer.index", [stack("f%d" % i, count=3) for i in range(40)])
    tree.ok("generate")
    assert not (tree.root / ".arclamp-svg.counters").exists()
    state = tree.root / ".arclamp-svg" / "state"
    assert os.stat(state).st_mode & 0o777 == 0o600
    assert os.stat(state.parent).st_mode & 0o777 == 0o700
    lines = state.read_text().splitlines()
    assert "truncated_graphs 1" in lines and "truncated_lines 35" in lines
    assert "skipped_generate 0" in lines    # the skip counts: the same file
    assert [n for n in os.listdir(state.parent) if n != "run.lock"] == ["state"]
    m = parse(tree.ok("metrics").stdout.decode())
    assert value(m, "arclamp_svg_truncated_graphs_total") == 1
    assert value(m, "arclamp_svg_truncated_lines_total") == 35
    # another local user sees the logs' families, none of the counters, and why
    argv = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", tree.binary,
            "metrics", "--config", str(tree.config), "--data-dir", str(tree.root)]
    proc = subprocess.run(argv, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    m = parse(proc.stdout.decode())
    assert value(m, "arclamp_trace_log_files", period="daily", entrypoint="index") == 1
    assert not [k for k in m if k[0].startswith("arclamp_svg_") and k[0].endswith("_total")]
    assert b"run as the data directory's owner" in proc.stderr
    assert b"Permission denied" in proc.stderr


def test_a_counters_file_of_the_old_layout_is_ignored(tree):
    """The files before one state file: <data_dir>/.arclamp-svg.counters and
    <lock_file>.skips are neither read nor written (the counters restart at
    0, which Prometheus takes as a counter reset)."""
    (tree.root / ".arclamp-svg.counters").write_text("truncated_graphs 7\n")
    (tree.root / ".arclamp-svg").mkdir(mode=0o700)
    (tree.root / ".arclamp-svg" / "run.lock.skips").write_text("generate 5 1700000000\n")
    tree.write_config("max_stacks: 5\n")
    tree.log("daily", "2026-11-22.excimer.index", [stack("f%d" % i, count=3) for i in range(40)])
    m = parse(tree.ok("metrics").stdout.decode())
    assert value(m, "arclamp_svg_truncated_graphs_total") == 0
    assert value(m, "arclamp_svg_runs_skipped_total", command="generate") == 0
    tree.ok("generate")
    m = parse(tree.ok("metrics").stdout.decode())
    assert value(m, "arclamp_svg_truncated_graphs_total") == 1
    assert (tree.root / ".arclamp-svg.counters").read_text() == "truncated_graphs 7\n"


def test_empty_tree_is_valid_too(tree):
    m = parse(tree.ok("metrics").stdout.decode())
    # the counters kept across runs, at 0 before anything was counted
    want = {("arclamp_svg_runs_skipped_total", frozenset({("command", c)})): 0
            for c in ("generate", "compress")}
    want.update({(name, frozenset()): 0 for name in COUNTERS})
    assert m == want
