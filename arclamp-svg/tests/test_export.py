"""`arclamp-svg export`: trace logs (plain and .gz, added together) written
as pprof, speedscope and collapsed stacks, each read back by a real client:

- pprof by `go tool pprof` (Debian's golang-go): -top shows every function
  with the exact self and inclusive samples of the input, -traces every
  distinct stack with its exact count and its entry point label, -raw the
  filenames of .php frames;
- speedscope by speedscope's npm package (build/npm, from
  arclamp-svg/tests/npm's lock file): its importer runs only inside its web
  app, so the app the package ships is served on 127.0.0.1 and opened in
  headless Chromium with our file (#profileURL=...), and its Sandwich view
  must show every function's exact total and self samples; and in node,
  the package's own file-format-schema.json (speedscope_check.mjs) and the
  stacks the file describes;
- collapsed by arclamp-svg itself (render, and export again).

Hostile frame names (quotes, backslashes, C1 control characters, U+2028,
</script>, 20,000-byte names) come back byte for byte; lines the validator
refuses are skipped and counted; errors exit as the other commands do."""

import contextlib
import functools
import gzip
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from collections import Counter
from pathlib import Path

import pytest

from conftest import check_sanitizers, hours_between, write_like_arclamp_log
import pprofkit

REPO = Path(__file__).resolve().parents[2]
NPM_DIR = REPO / "build" / "npm" / "node_modules" / "speedscope"
SCHEMA = NPM_DIR / "dist" / "release" / "file-format-schema.json"
CHECKER = Path(__file__).resolve().parent / "speedscope_check.mjs"

INDEX = "/srv/mediawiki/php-1.44.0-wmf.3/index.php"
API = "/srv/mediawiki/php-1.44.0-wmf.3/api.php"
RUN = "MediaWiki\\MediaWikiEntryPoint::run"
EDIT = "MediaWiki\\Actions\\EditAction::show"

# Two logs of one hour, as arclamp-log writes them: the same stacks appear in
# both (their counts add), one log is gzipped.
LOG_A = [
    INDEX + ";" + RUN + ";" + EDIT + ";Parser::parse 40",
    INDEX + ";" + RUN + ";" + EDIT + " 7",
    INDEX + ";" + RUN + ";R::rec;R::rec;R::rec 5",
    API + ";ApiMain::execute;Parser::parse 11",
]
LOG_B = [
    INDEX + ";" + RUN + ";" + EDIT + ";Parser::parse 2",
    API + ";ApiMain::execute;Parser::parse 3",
    "/usr/bin/php;maintenance 9",   # not a .php entry point: no label
]

HOSTILE = [
    'Quote"d::m(int $x = "a")',
    "Back\\slash\\\\",
    "</script><script>alert(1)</script>",
    "\u0085next line\u2028line separator\u2029",
    "{\"json\":[1,2]} & <tag attr='v'>",
    "Wide \u00e9\u4e2d\U0001F525",
    "L" * 20000,
]


def merged(*logs):
    """{stack (tuple of frames, root first): samples} of collapsed lines."""
    out = Counter()
    for lines in logs:
        for line in lines:
            stack, count = line.rsplit(" ", 1)
            out[tuple(stack.split(";"))] += int(count)
    return out


def write_logs(tmp_path, a=LOG_A, b=LOG_B):
    pa = tmp_path / "2026-11-22_05.all.log"
    pb = tmp_path / "2026-11-22_06.all.log.gz"
    pa.write_bytes("".join(l + "\n" for l in a).encode())
    pb.write_bytes(gzip.compress("".join(l + "\n" for l in b).encode()))
    return pa, pb


def export(binary, *args, ok=True):
    proc = subprocess.run([binary, "export", *map(str, args)], capture_output=True, timeout=120)
    check_sanitizers(proc)
    if ok:
        assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    return proc


# --- go tool pprof ---------------------------------------------------------

@pytest.fixture(scope="module")
def go_env(tmp_path_factory):
    try:
        return pprofkit.go_env(tmp_path_factory.mktemp("gohome"))
    except RuntimeError as exc:
        pytest.fail(str(exc))


pprof = pprofkit.pprof


def pprof_top(go_env, path):
    """(total, {function: (flat, cum)}) from -top."""
    out, rows = pprofkit.pprof_top(go_env, path)
    total = int(re.search(r"Showing nodes accounting for (\d+), 100% of (\d+) total", out)
                .group(2))
    return total, {name: (int(flat), int(cum)) for name, (flat, cum) in rows.items()}


def pprof_traces(go_env, path):
    """{(stack root first, entrypoint label or None): samples} from -traces."""
    out = pprof(go_env, "-traces", path)
    traces = Counter()
    for block in out.split("-----------+-------------------------------------------------------")[1:]:
        lines = [l for l in block.split("\n") if l]
        if not lines:
            continue
        label = None
        if lines[0].startswith("entrypoint:"):
            label = lines.pop(0).split(":", 1)[1].strip()
        m = re.match(r"^ *(\d+)   (.*)$", lines[0])
        assert m, block
        frames = [m.group(2)] + [l[13:] for l in lines[1:]]
        traces[(tuple(reversed(frames)), label)] += int(m.group(1))
    return traces


def expected_top(stacks):
    """{function: (self, inclusive once per stack)} of merged stacks."""
    flat, cum = Counter(), Counter()
    for stack, n in stacks.items():
        flat[stack[-1]] += n
        for fr in set(stack):
            cum[fr] += n
    return {fr: (flat[fr], cum[fr]) for fr in cum}


def label_of(stack):
    first = stack[0]
    return os.path.basename(first)[:-4] if first.endswith(".php") else None


def test_pprof_read_by_go_tool_pprof(arclamp_svg, go_env, tmp_path):
    pa, pb = write_logs(tmp_path)
    out = tmp_path / "profile.pb.gz"
    proc = export(arclamp_svg, "--format", "pprof", "-o", out, pa, pb)
    assert proc.stdout == b""
    assert out.read_bytes()[:2] == b"\x1f\x8b"        # gzipped, as pprof files are
    stacks = merged(LOG_A, LOG_B)
    total, rows = pprof_top(go_env, out)
    assert total == sum(stacks.values()) == 77
    assert rows == expected_top(stacks)
    assert rows["R::rec"] == (5, 5)                   # recursion counted once
    assert rows["Parser::parse"] == (56, 56)
    traces = pprof_traces(go_env, out)
    assert traces == Counter({(s, label_of(s)): n for s, n in stacks.items()})
    raw = pprof(go_env, "-raw", out)
    assert "samples/count" in raw
    # a .php frame is its own file; other frames have none
    assert re.search(r"M=\d+ %s %s:0" % (re.escape(INDEX), re.escape(INDEX)), raw)
    assert re.search(r"M=\d+ Parser::parse :0", raw)


def test_pprof_to_stdout_is_the_same_profile(arclamp_svg, go_env, tmp_path):
    pa, pb = write_logs(tmp_path)
    expected = Counter({(s, label_of(s)): n for s, n in merged(LOG_A, LOG_B).items()})
    for args in (["-o", "-"], []):
        proc = export(arclamp_svg, "-f", "pprof", *args, pa, pb)
        path = tmp_path / "stdout.pb.gz"
        path.write_bytes(proc.stdout)
        assert pprof_traces(go_env, path) == expected


def test_hostile_names_round_trip_through_pprof(arclamp_svg, go_env, tmp_path):
    lines = [INDEX + ";" + name + " %d" % (i + 1) for i, name in enumerate(HOSTILE)]
    lines.append(INDEX + ";" + ";".join(HOSTILE[:5]) + " 100")
    log = tmp_path / "h.all.log"
    log.write_bytes("".join(l + "\n" for l in lines).encode())
    out = tmp_path / "h.pb.gz"
    export(arclamp_svg, "-f", "pprof", "-o", out, log)
    stacks = merged(lines)
    assert pprof_traces(go_env, out) == Counter({(s, "index"): n for s, n in stacks.items()})
    total, rows = pprof_top(go_env, out)
    assert total == sum(stacks.values())
    assert rows == expected_top(stacks)


def test_pprof_with_the_sample_clock_shows_time(arclamp_svg, go_env, tmp_path):
    """With the fleet's period known (--period, or sample_period in the
    configuration), each sample is also that much CPU or wall time: go tool
    pprof shows time by default, exactly count x period; the counts stay."""
    pa, pb = write_logs(tmp_path)
    stacks = merged(LOG_A, LOG_B)
    out = tmp_path / "wall.pb.gz"
    export(arclamp_svg, "-f", "pprof", "--period", "0.01", "--event", "real", "-o", out, pa, pb)
    raw = pprof(go_env, "-raw", out)
    assert "PeriodType: wall nanoseconds" in raw and "Period: 10000000" in raw, raw[:400]
    assert "samples/count wall/nanoseconds" in raw
    _, rows = pprofkit.pprof_top(go_env, out, unit="ms")       # the default: time
    assert rows == {f: (10.0 * s, 10.0 * c) for f, (s, c) in expected_top(stacks).items()}
    _, rows = pprofkit.pprof_top(go_env, out, sample_index="samples")
    assert rows == {f: (float(s), float(c)) for f, (s, c) in expected_top(stacks).items()}
    # from the configuration: Arc Lamp's 60 s of CPU time
    cfg = tmp_path / "c.yaml"
    cfg.write_text("sample_period: 60\n")
    out = tmp_path / "cpu.pb.gz"
    export(arclamp_svg, "-f", "pprof", "--config", cfg, "-o", out, pa, pb)
    raw = pprof(go_env, "-raw", out)
    assert "PeriodType: cpu nanoseconds" in raw and "Period: 60000000000" in raw
    total = pprofkit.pprof_top(go_env, out, unit="s")[1]["Parser::parse"]
    assert total == (56 * 60.0, 56 * 60.0)
    # --period 0 overrides it: counts only, as without a configuration
    out = tmp_path / "counts.pb.gz"
    export(arclamp_svg, "-f", "pprof", "--config", cfg, "--period", "0", "-o", out, pa, pb)
    raw = pprof(go_env, "-raw", out)
    assert "nanoseconds" not in raw and "samples/count" in raw
    for bad, why in [(["--period", "-1"], b"--period"), (["--period", "3601"], b"--period"),
                     (["--event", "wall"], b"--event: expected cpu or real")]:
        proc = export(arclamp_svg, "-f", "pprof", *bad, pa, ok=False)
        assert proc.returncode == 2 and why in proc.stderr, (bad, proc.stderr)
    cfg.write_text("sample_event: wall\n")
    proc = export(arclamp_svg, "-f", "pprof", "--config", cfg, pa, ok=False)
    assert proc.returncode == 78 and b"sample_event" in proc.stderr, proc.stderr


# --- speedscope ------------------------------------------------------------

def speedscope_check(path):
    if not SCHEMA.exists():
        pytest.fail("%s missing: npm ci --prefix build/npm (make svg-tests does it)" % SCHEMA)
    node = shutil.which("node")
    if not node:
        pytest.fail("node not found (Debian package nodejs, scripts/install-deps)")
    proc = subprocess.run([node, str(CHECKER), str(SCHEMA), str(path)], capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    return json.loads(proc.stdout)


def speedscope_stacks(result):
    out = Counter()
    for frames, n in result["stacks"]:
        out[tuple(frames)] += n
    return out


def test_speedscope_matches_the_package_schema_and_the_input(arclamp_svg, tmp_path):
    pa, pb = write_logs(tmp_path)
    out = tmp_path / "profile.speedscope.json"
    export(arclamp_svg, "--format", "speedscope", "--output", out, pa, pb)
    doc = json.loads(out.read_bytes())
    assert doc["$schema"] == "https://www.speedscope.app/file-format-schema.json"
    prof = doc["profiles"][0]
    assert (prof["type"], prof["unit"], prof["startValue"], prof["endValue"]) == \
        ("sampled", "none", 0, 77)
    frames = [f["name"] for f in doc["shared"]["frames"]]
    assert len(frames) == len(set(frames))            # each frame once
    assert {f.get("file") for f in doc["shared"]["frames"]} == {None, INDEX, API}
    result = speedscope_check(out)
    assert result["total"] == 77
    assert speedscope_stacks(result) == merged(LOG_A, LOG_B)


def test_speedscope_with_the_sample_clock_weighs_seconds(arclamp_svg, tmp_path):
    pa, pb = write_logs(tmp_path)
    out = tmp_path / "p.speedscope.json"
    export(arclamp_svg, "-f", "speedscope", "--period", "0.001", "-o", out, pa, pb)
    prof = json.loads(out.read_bytes())["profiles"][0]
    assert (prof["unit"], prof["endValue"]) == ("seconds", 0.077)
    result = speedscope_check(out)
    assert result["total"] == pytest.approx(0.077)
    assert {k: round(v * 1000) for k, v in speedscope_stacks(result).items()} == \
        merged(LOG_A, LOG_B)
    assert "0.0030000" not in out.read_text()              # printed short: 0.003


def test_checker_refuses_a_file_off_the_schema(arclamp_svg, tmp_path):
    """The check above would fail if the file broke the schema."""
    pa, pb = write_logs(tmp_path)
    proc = export(arclamp_svg, "-f", "speedscope", pa, pb)
    doc = json.loads(proc.stdout)
    doc["profiles"][0]["unit"] = "lines"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    node = shutil.which("node") or pytest.fail("node not found")
    if not SCHEMA.exists():
        pytest.fail("%s missing" % SCHEMA)
    proc = subprocess.run([node, str(CHECKER), str(SCHEMA), str(bad)], capture_output=True,
                          timeout=120)
    assert proc.returncode == 1 and b"schema:" in proc.stderr


def test_hostile_names_round_trip_through_speedscope(arclamp_svg, tmp_path):
    lines = [INDEX + ";" + name + " %d" % (i + 1) for i, name in enumerate(HOSTILE)]
    log = tmp_path / "h.all.log"
    log.write_bytes("".join(l + "\n" for l in lines).encode())
    out = tmp_path / "h.json"
    export(arclamp_svg, "-f", "speedscope", "-o", out, log)
    result = speedscope_check(out)
    assert speedscope_stacks(result) == merged(lines)


@contextlib.contextmanager
def speedscope_app(profile):
    """speedscope's web app from the npm package, and `profile` as
    /profile.json, served on 127.0.0.1 (a free port); yields the URL that
    opens the app on the profile."""
    release = NPM_DIR / "dist" / "release"
    if not (release / "index.html").exists():
        pytest.fail("%s missing: npm ci --prefix build/npm (make svg-tests does it)" % release)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, path):
            path = path.split("?", 1)[0].split("#", 1)[0]
            if path == "/profile.json":
                return str(profile)
            return super().translate_path(path)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(release)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = "http://127.0.0.1:%d" % server.server_address[1]
        yield "%s/index.html#profileURL=%s/profile.json&view=sandwich" % (base, base)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


SANDWICH_ROWS = ("return Array.from(document.querySelectorAll('tr'))"
                 ".map(r => Array.from(r.children).map(c => c.textContent))")


@pytest.mark.skipif(os.environ.get("ARCLAMP_SKIP_BROWSER") == "1",
                    reason="ARCLAMP_SKIP_BROWSER=1 (the file, not the C, is what is checked)")
def test_speedscope_app_imports_our_file(arclamp_svg, tmp_path):
    from browserkit import chromium   # common/tests
    from testkit import wait_until
    pa, pb = write_logs(tmp_path)
    hostile = [INDEX + ";" + RUN + ";" + name + " %d" % (i + 1) for i, name in enumerate(HOSTILE)]
    pc = tmp_path / "hostile.all.log"
    pc.write_bytes("".join(l + "\n" for l in hostile).encode())
    out = tmp_path / "profile.json"
    export(arclamp_svg, "-f", "speedscope", "-o", out, pa, pb, pc)
    stacks = merged(LOG_A, LOG_B, hostile)
    with speedscope_app(out) as url, chromium(tmp_path / "chromium") as driver:
        driver.get(url)
        rows = wait_until(lambda: len(driver.execute_script(SANDWICH_ROWS)) > 1 and
                          driver.execute_script(SANDWICH_ROWS), timeout=60,
                          what="speedscope's sandwich table",
                          describe=lambda: (driver.title, driver.get_log("browser")))
        assert driver.title == "2026-11-22_05.all.log and 2 more - speedscope"
        logs = [e["message"] for e in driver.get_log("browser")]
    assert any("Importing as speedscope json file" in m for m in logs), logs
    assert rows[0] == ["Total", "Self", "Symbol Name"]
    shown = {}
    for total, self_, name in rows[1:]:
        assert name not in shown, name
        shown[name] = (int(re.match(r"^(\d+) \(", self_).group(1)),
                       int(re.match(r"^(\d+) \(", total).group(1)))
    assert shown == expected_top(stacks)


# --- collapsed -------------------------------------------------------------

def test_collapsed_merges_sorts_and_reads_back(arclamp_svg, tmp_path):
    pa, pb = write_logs(tmp_path)
    proc = export(arclamp_svg, "-f", "collapsed", pa, pb)
    text = proc.stdout.decode("utf-8")
    lines = text.split("\n")[:-1]
    stacks = merged(LOG_A, LOG_B)
    assert Counter({tuple(l.rsplit(" ", 1)[0].split(";")): int(l.rsplit(" ", 1)[1])
                    for l in lines}) == stacks
    assert len(lines) == len(stacks)                  # one line per distinct stack
    assert [tuple(l.rsplit(" ", 1)[0].split(";")) for l in lines] == sorted(stacks)
    again = tmp_path / "merged.log"
    again.write_text(text)
    assert export(arclamp_svg, "-f", "collapsed", again).stdout == proc.stdout
    svg = subprocess.run([arclamp_svg, "render", str(again)], capture_output=True, timeout=120)
    check_sanitizers(svg)
    assert svg.returncode == 0 and b"<svg" in svg.stdout


def test_hostile_names_round_trip_through_collapsed(arclamp_svg, tmp_path):
    lines = [INDEX + ";" + name + " %d" % (i + 1) for i, name in enumerate(HOSTILE)]
    log = tmp_path / "h.all.log"
    log.write_bytes("".join(l + "\n" for l in lines).encode())
    out = export(arclamp_svg, "-f", "collapsed", log).stdout.decode("utf-8")
    assert sorted(out.split("\n")[:-1]) == sorted(lines)   # not splitlines(): U+2028 is no newline


# --- invalid lines, limits, errors -----------------------------------------

def test_invalid_lines_are_skipped_and_counted(arclamp_svg, go_env, tmp_path):
    good = [INDEX + ";A::a 3", INDEX + ";A::a;B::b 4"]
    bad = [b"no count here", INDEX.encode() + b";A::a 0", INDEX.encode() + b";;A::a 2",
           INDEX.encode() + b";Ctrl\x01char 5", INDEX.encode() + b";\xff\xfe 6", b""]
    log = tmp_path / "mixed.all.log"
    log.write_bytes(b"\n".join([g.encode() for g in good] + bad) + b"\n")
    out = tmp_path / "p.pb.gz"
    proc = export(arclamp_svg, "-f", "pprof", "-o", out, log)
    err = proc.stderr.decode()
    assert "skipped 6 invalid lines" in err, err
    for reason in ("no_count: 1", "bad_count: 1", "empty_frame: 1", "control_char: 1",
                   "invalid_utf8: 1", "empty: 1"):
        assert reason in err, err
    assert pprof_top(go_env, out)[0] == 7
    assert pprof_traces(go_env, out) == Counter({(s, "index"): n
                                                 for s, n in merged(good).items()})


def test_limits_send_the_rest_to_truncated_with_exact_totals(arclamp_svg, go_env, tmp_path):
    lines = [INDEX + ";F%d 1" % i for i in range(50)]
    log = tmp_path / "many.all.log"
    log.write_text("".join(l + "\n" for l in lines))
    out = tmp_path / "p.pb.gz"
    proc = export(arclamp_svg, "-f", "pprof", "--max-stacks", "10", "-o", out, log)
    assert "beyond the limits exported as [truncated] (first limit reached: --max-stacks)" \
        in proc.stderr.decode()
    total, rows = pprof_top(go_env, out)
    assert total == 50
    assert rows["[truncated]"][0] == 40


def test_errors(arclamp_svg, tmp_path):
    pa, _ = write_logs(tmp_path)
    out = tmp_path / "out.pb.gz"
    p = export(arclamp_svg, "-f", "pprof", "-o", out, pa, tmp_path / "missing.log", ok=False)
    assert p.returncode == 1 and b"arclamp-svg export: " in p.stderr and b"missing.log" in p.stderr
    assert not out.exists()                           # nothing half-written
    p = export(arclamp_svg, "-f", "svg", pa, ok=False)
    assert p.returncode == 2
    assert b"--format: expected pprof, speedscope or collapsed" in p.stderr
    p = export(arclamp_svg, pa, ok=False)
    assert p.returncode == 2 and b"--format is required" in p.stderr
    p = export(arclamp_svg, "-f", "pprof", ok=False)
    assert p.returncode == 2 and b"no trace log given" in p.stderr
    empty = tmp_path / "empty.log"
    empty.write_text("garbage\n")
    p = export(arclamp_svg, "-f", "collapsed", empty, ok=False)
    assert p.returncode == 1 and b"no samples" in p.stderr and p.stdout == b""
    p = export(arclamp_svg, "--help")
    assert b"Usage: arclamp-svg export" in p.stdout


# --- choosing the logs of a data directory ----------------------------------

def simulate(tree, days=("2026-11-21", "2026-11-22", "2026-11-23"), hours=range(24)):
    """Writes what arclamp-log would for some samples in every hour of days.
    Returns {(day, hour): [lines]}."""
    by_hour = {(day, hour): [INDEX + ";H::d%sh%02d 2" % (day[-2:], hour),
                             API + ";ApiMain::execute;Q::q%d %d" % (hour % 3, 1 + hour % 5)]
               for day in days for hour in hours}
    write_like_arclamp_log(tree, by_hour, lambda l: l.startswith(API))
    return by_hour


def collapsed(proc):
    out = Counter()
    for line in proc.stdout.decode("utf-8").split("\n")[:-1]:
        s, n = line.rsplit(" ", 1)
        out[tuple(s.split(";"))] += int(n)
    return out


def test_range_takes_whole_days_daily_and_other_hours_hourly(tree):
    by_hour = simulate(tree)
    proc = tree.ok("export", "-f", "collapsed", "--from", "2026-11-21T22", "--to", "2026-11-23T02")
    assert collapsed(proc) == merged(hours_between(by_hour, ("2026-11-21", 22), ("2026-11-23", 1)))
    err = proc.stderr.decode()
    assert "5 logs (1 daily, 4 hourly) of entry point all from 2026-11-21T22 to 2026-11-23T02" \
        in err, err
    assert "have no log" not in err


def test_a_day_without_hourly_logs_comes_from_its_daily_log(tree):
    by_hour = simulate(tree)
    for p in (tree.logs / "hourly").glob("2026-11-22_*"):
        p.unlink()                                   # the hourly retention is shorter
    proc = tree.ok("export", "-f", "collapsed", "--from", "2026-11-22", "--to", "2026-11-23")
    assert collapsed(proc) == merged(hours_between(by_hour, ("2026-11-22", 0), ("2026-11-22", 23)))
    assert "1 log (1 daily, 0 hourly)" in proc.stderr.decode()
    # part of that day: its daily log would count hours outside the range
    proc = tree.run("export", "-f", "collapsed", "--from", "2026-11-22T05", "--to", "2026-11-22T07")
    assert proc.returncode == 1
    assert b"no trace logs of entry point all from 2026-11-22T05 to 2026-11-22T07" in proc.stderr


def test_a_day_without_its_daily_log_comes_from_its_hours(tree):
    by_hour = simulate(tree)
    (tree.logs / "daily" / "2026-11-22.all.log").unlink()
    (tree.logs / "hourly" / "2026-11-22_07.all.log").unlink()
    proc = tree.ok("export", "-f", "collapsed", "--from", "2026-11-22", "--to", "2026-11-23")
    expected = [l for (d, h), lines in by_hour.items() if d == "2026-11-22" and h != 7
                for l in lines]
    assert collapsed(proc) == merged(expected)
    assert "23 logs (0 daily, 23 hourly)" in proc.stderr.decode()
    assert "1 of 24 hours have no log" in proc.stderr.decode()


def test_entry_points_and_grep_and_gzipped_logs(tree, go_env):
    by_hour = simulate(tree, days=("2026-11-22",), hours=range(3))
    hourly = tree.logs / "hourly" / "2026-11-22_01.index.log"
    hourly.with_name(hourly.name + ".gz").write_bytes(gzip.compress(hourly.read_bytes()))
    hourly.unlink()                                  # compressed by `arclamp-svg compress`
    lines = hours_between(by_hour, ("2026-11-22", 0), ("2026-11-22", 2))
    out = tree.root / "p.pb.gz"
    tree.ok("export", "-f", "pprof", "-o", out, "--from", "2026-11-22T00", "--to",
            "2026-11-22T03", "--entrypoint", "index", "-e", "api")
    assert pprof_traces(go_env, out) == Counter({(s, label_of(s)): n
                                                 for s, n in merged(lines).items()})
    proc = tree.ok("export", "-f", "collapsed", "--from", "2026-11-22T00", "--to",
                   "2026-11-22T03", "-e", "index")
    assert collapsed(proc) == merged([l for l in lines if l.startswith(INDEX)])
    proc = tree.ok("export", "-f", "collapsed", "--from", "2026-11-22T00", "--to",
                   "2026-11-22T03", "--grep", "Q::q[12]$")
    assert collapsed(proc) == merged([l for l in lines if re.search(r"Q::q[12] ", l)])
    assert "4 lines did not match --grep" in proc.stderr.decode()


def test_range_takes_the_sample_clock_from_its_configuration(tree, go_env):
    simulate(tree, days=("2026-11-22",), hours=range(2))
    tree.write_config("sample_period: 0.5\nsample_event: real\n")
    out = tree.root / "p.pb.gz"
    tree.ok("export", "-f", "pprof", "-o", out, "--from", "2026-11-22T00", "--to",
            "2026-11-22T02")
    raw = pprof(go_env, "-raw", out)
    assert "PeriodType: wall nanoseconds" in raw and "Period: 500000000" in raw, raw[:300]
    tree.ok("export", "-f", "pprof", "-o", out, "--period", "0", "--from", "2026-11-22T00",
            "--to", "2026-11-22T02")
    assert "nanoseconds" not in pprof(go_env, "-raw", out)


def test_selection_errors(tree):
    simulate(tree, days=("2026-11-22",), hours=range(2))
    for args, why in [
        (["--from", "2026-11-22", "--to", "2026-11-22"], b"--from before --to"),
        (["--from", "2026-11-22"], b"needs --from and --to"),
        (["--from", "2026-11-22", "--to", "2026-11-23", "x.log"], b"not both"),
        (["--from", "2026-11-31", "--to", "2026-12-01"], b"--from: expected YYYY-MM-DD"),
        (["--from", "2026-11-22T24", "--to", "2026-12-01"], b"--from: expected YYYY-MM-DD"),
        (["--from", "2026-11-22T05:30", "--to", "2026-12-01"], b"--from: expected YYYY-MM-DD"),
        (["--grep", "(", "--from", "2026-11-22", "--to", "2026-11-23"], b"--grep: "),
    ]:
        proc = tree.run("export", "-f", "collapsed", *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert why in proc.stderr, (args, proc.stderr)
    proc = tree.run("export", "-f", "collapsed", "--from", "2026-10-01", "--to", "2026-10-02")
    assert proc.returncode == 1 and b"no trace logs" in proc.stderr and proc.stdout == b""
