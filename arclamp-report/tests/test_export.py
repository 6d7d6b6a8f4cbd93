"""arclamp-report export: the mean run of run logs as pprof and as the
serialize()d XHProf array, each read back by a real client and compared
with the mean run computed here, independently, from the run lines:

- pprof by Go's own `go tool pprof -top` (common/tests/pprofkit.py): per
  function, flat is the mean run's exclusive value (calls: its calls),
  rounded half to even as the report prints them, for every sample type;
  cum is flat plus the parts of the function's direct callees on their
  arcs from it (export.h's mapping, recomputed here);
- the XHProf array by PHP's own unserialize(): every arc of the mean run,
  with its metrics, the same doubles (integers where whole)."""

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common" / "tests"))
from pprofkit import go_env, pprof, pprof_top  # noqa: E402
from testkit import repo_bin  # noqa: E402

BIN = repo_bin("ARCLAMP_REPORT_BIN", "build/bin/arclamp-report")
SANITIZER_MARKS = (b"ERROR: AddressSanitizer", b"ERROR: LeakSanitizer", b"runtime error:")
METRICS = ("ct", "wt", "cpu", "mu", "pmu")
CLOSURE = "{closure:/srv/w/includes/Hooks.php:12}"

# Three runs (r2 in both logs: counted once); arcs as (ct, wt, cpu, mu, pmu).
# c has two callers, a recursion name (a@1), a self arc (b==>b, which
# xhprof_lib refuses and the report leaves out), an arc of one run only,
# negative exclusive memory, and means that are thirds.
RUNS = {
    "r1": {"main()": (1, 123457, 100001, 50000, 60000),
           "main()==>a": (2, 60001, 50000, 30000, 31000),
           "main()==>b": (1, 30000, 20000, 10000, 11000),
           "a==>c": (3, 25000, 10000, -2000, 100),
           "b==>c": (1, 10001, 5000, 1000, 100),
           "a==>a@1": (1, 5000, 4000, 100, 100),
           "b==>b": (1, 999, 999, 9, 9),
           f"c==>{CLOSURE}": (4, 4000, 3000, 0, 0)},
    "r2": {"main()": (1, 123458, 100002, 50001, 60001),
           "main()==>a": (2, 60002, 50001, 30001, 31001),
           "main()==>b": (1, 30001, 20001, 10001, 11001),
           "a==>c": (3, 25001, 10001, -2001, 101),
           "b==>c": (2, 10002, 5001, 1001, 101),
           f"c==>{CLOSURE}": (5, 4001, 3001, 1, 1)},
    "r3": {"main()": (1, 123459, 100004, 50003, 60003),
           "main()==>a": (1, 60004, 50004, 30004, 31004),
           "main()==>b": (1, 30004, 20004, 10004, 11004),
           "a==>c": (1, 25004, 10004, -2004, 104),
           "b==>c": (1, 10004, 5004, 1004, 104),
           "a==>a@1": (2, 5004, 4004, 104, 104),
           f"c==>{CLOSURE}": (1, 4004, 3004, 4, 4)},
}
LOGS = {"a": ("r1", "r2"), "b": ("r2", "r3")}


def run_lines(runid, arcs):
    lines = [f"xhprof/1 {runid} begin 1764126000 web1 wt,cpu,mu,pmu /srv/w/index.php"]
    lines += [f"xhprof/1 {runid} arc {' '.join(map(str, v))} {key}" for key, v in arcs.items()]
    lines.append(f"xhprof/1 {runid} end {len(arcs)} 0")
    return "\n".join(lines) + "\n"


@pytest.fixture
def logs(tmp_path):
    paths = []
    for name, runids in LOGS.items():
        path = tmp_path / f"1764126000.{name}.runs"
        path.write_text("".join(run_lines(r, RUNS[r]) for r in runids))
        paths.append(path)
    return paths


def mean_run():
    """{key: {metric: mean}}: each run once, summed in the order read, times
    1/runs (as the report's mean: the same doubles)."""
    total = {}
    for runid in ("r1", "r2", "r3"):
        for key, values in RUNS[runid].items():
            acc = total.setdefault(key, [0.0] * len(METRICS))
            for i, v in enumerate(values):
                acc[i] += v
    k = 1.0 / 3
    return {key: {m: v * k for m, v in zip(METRICS, acc)} for key, acc in total.items()}


def split_key(key):
    return key.split("==>", 1) if "==>" in key else (None, key)


def expected_top(mean, metric):
    """{function: (flat, cum)} that -top must show for one metric, from the
    README's definitions and export.h's split, computed here."""
    arcs = [(key, *split_key(key)) for key in mean if split_key(key)[0] != split_key(key)[1]]
    incl = {}
    for key, _, child in arcs:
        into = incl.setdefault(child, {m: 0.0 for m in METRICS})
        for m in METRICS:
            into[m] += mean[key][m]
    excl = {f: dict(v) for f, v in incl.items()}
    for key, parent, _ in arcs:
        if parent in excl:
            for m in METRICS[1:]:
                excl[parent][m] -= mean[key][m]
    part = {}
    for fn in incl:
        whole = incl[fn]["ct"] if metric == "ct" else excl[fn][metric]
        into = [key for key, _, child in arcs if child == fn]
        basis = metric if incl[fn][metric] != 0 else ("ct" if incl[fn]["ct"] != 0 else None)
        total = incl[fn][basis] if basis else 1.0
        acc, before = 0.0, 0
        for i, key in enumerate(into):
            acc += mean[key][basis] if basis else (1.0 if i == 0 else 0.0)
            upto = whole if i + 1 == len(into) else whole * (acc / total)
            rounded = round(upto)            # half to even, as C's llrint
            part[key] = rounded - before
            before = rounded
    flat = {fn: round(incl[fn]["ct"] if metric == "ct" else excl[fn][metric]) for fn in incl}
    cum = dict(flat)
    for key, parent, _ in arcs:
        if parent is not None:
            cum[parent] = cum.get(parent, 0) + part[key]
    return {fn: (flat.get(fn, 0), cum[fn]) for fn in cum if flat.get(fn, 0) or cum[fn]}


def export(*args, ok=True):
    proc = subprocess.run([BIN, "export", *map(str, args)], capture_output=True, timeout=120)
    for mark in SANITIZER_MARKS:
        assert mark not in proc.stderr, proc.stderr.decode(errors="replace")
    if ok:
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc


@pytest.fixture(scope="module")
def go(tmp_path_factory):
    try:
        return go_env(tmp_path_factory.mktemp("gohome"))
    except RuntimeError as e:
        pytest.fail(str(e))


@pytest.mark.parametrize("index,metric,unit", [("calls", "ct", None), ("wall", "wt", "us"),
                                               ("cpu", "cpu", "us"), ("memory", "mu", "B")])
def test_pprof_top_flat_is_the_mean_runs_exclusive(go, logs, tmp_path, index, metric, unit):
    out = tmp_path / "mean.pb.gz"
    export("--format", "pprof", "-o", out, *logs)
    gzip.decompress(out.read_bytes())                   # a gzipped profile, as pprof files are
    table, rows = pprof_top(go, out, sample_index=index, unit=unit)
    expected = expected_top(mean_run(), metric)
    assert {fn: (int(f), int(c)) for fn, (f, c) in rows.items()} == expected, table


def test_pprof_sample_types_and_default(go, logs, tmp_path):
    out = tmp_path / "mean.pb.gz"
    export("--format", "pprof", "-o", out, *logs)
    raw = pprof(go, "-raw", out)
    assert "calls/count cpu/microseconds memory/bytes wall/microseconds" in raw
    table, rows = pprof_top(go, out, unit="us")     # no -sample_index: wall, the last type
    assert "Type: wall" in table
    assert rows["a"][0] == round(expected_top(mean_run(), "wt")["a"][0])


def test_pprof_rounds_half_to_even_as_the_report_prints(go, tmp_path):
    """Two runs: the mean's exclusive wall times are 94.5 (main()), 2.5 (x)
    and 3.5 (y): -top says 94, 2 and 4, as the report's table does (%.0f)."""
    log = tmp_path / "1764126000.half.runs"
    log.write_text(run_lines("h1", {"main()": (1, 100, 1, 0, 0), "main()==>x": (1, 2, 0, 0, 0),
                                    "main()==>y": (1, 3, 0, 0, 0)})
                   + run_lines("h2", {"main()": (1, 101, 1, 0, 0), "main()==>x": (1, 3, 0, 0, 0),
                                      "main()==>y": (1, 4, 0, 0, 0)}))
    out = tmp_path / "half.pb.gz"
    export("--format", "pprof", "-o", out, log)
    table, rows = pprof_top(go, out, sample_index="wall", unit="us")
    assert {fn: int(f) for fn, (f, _) in rows.items()} == {"main()": 94, "x": 2, "y": 4}, table
    mean = tmp_path / "half.xhprof"
    export("--format", "xhprof", "-o", mean, log)
    proc = subprocess.run([BIN, "flat", mean], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    header, *lines = proc.stdout.decode().strip().split("\n")
    column = header.split().index("wt") + 1          # the excl after wt
    assert {l.split()[0]: int(l.split()[column]) for l in lines} == \
        {"main()": 94, "x": 2, "y": 4}, proc.stdout


def php_unserialize(path):
    php = shutil.which("php")
    if not php:
        pytest.fail("php not found")
    code = ('echo json_encode(unserialize(file_get_contents($argv[1])), '
            'JSON_PRESERVE_ZERO_FRACTION | JSON_THROW_ON_ERROR);')
    proc = subprocess.run([php, "-d", "serialize_precision=-1", "-r", code, str(path)],
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc.stdout.decode()


def test_xhprof_array_read_by_php_is_the_mean_run(logs, tmp_path):
    out = tmp_path / "mean.xhprof"
    export("--format", "xhprof", "-o", out, *logs)
    got = json.loads(php_unserialize(out))
    mean = mean_run()
    assert got == mean                                  # every arc, every metric, same doubles
    for key, metrics in json.loads(php_unserialize(out), parse_int=lambda s: ("int", s)).items():
        for m, v in metrics.items():
            assert isinstance(v, tuple) == (mean[key][m] == int(mean[key][m])), (key, m, v)
    # to stdout: the same bytes
    assert export("--format", "xhprof", *logs).stdout == out.read_bytes()


def test_xhprof_export_gives_the_report_the_same_mean_run(logs, tmp_path):
    """`flat` on the exported array: the exclusive values -top shows."""
    out = tmp_path / "mean.xhprof"
    export("--format", "xhprof", "-o", out, *logs)
    proc = subprocess.run([BIN, "flat", "--json", out], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    functions = json.loads(proc.stdout)["functions"]
    expected = expected_top(mean_run(), "wt")
    assert {fn: round(v["excl_wt"]) for fn, v in functions.items()
            if round(v["excl_wt"]) or expected.get(fn)} == {fn: f for fn, (f, _) in expected.items()}


def test_bad_command_lines_and_no_runs(logs, tmp_path):
    assert export("--format", "json", *logs, ok=False).returncode == 2
    assert export(*logs, ok=False).returncode == 2
    empty = tmp_path / "empty.runs"
    empty.write_text("xhprof/1 cut begin 1764126000 web1 wt /w/index.php\n")
    proc = export("--format", "pprof", empty, ok=False)
    assert proc.returncode == 1 and b"no complete run" in proc.stderr
    proc = export("--format", "pprof", tmp_path / "missing.runs", ok=False)
    assert proc.returncode == 1
