"""What a hostile log may cost arclamp-svg, and what the graph then says
(issue 14, items 2 and 8): distinct stacks and frames and the tables' memory
are capped per log (the rest shown as one counted [truncated] frame), an SVG
is capped in bytes (deeper boxes left out), and a log is read only up to
max_log_read_mb (a gzip bomb costs that much time at most). Each limit is
said in the graph's subtitle, logged and counted in the metrics.

Peak memory on big hostile logs is measured by `make bench`
(bench/arclamp-svg.sh); here one modest case checks the bound holds."""

import os
import re
import subprocess
import zlib

import pytest

from conftest import read_svgz, stack
from test_metrics import parse, value
from test_render import run as render

DAY = "2026-11-22"


def subtitle_of(svg):
    m = re.search(r'<text id="subtitle"[^>]*>([^<]*)<', svg)
    return m and m.group(1)


def boxes(svg):
    """{title text: count of boxes with it}."""
    out = {}
    for t in re.findall(r"<g><title>([^<]*)</title>", svg):
        out[t] = out.get(t, 0) + 1
    return out


def samples_of(svg, name):
    m = re.search(r"<g><title>%s \(([0-9,]+) samples" % re.escape(name), svg)
    assert m, name
    return int(m.group(1).replace(",", ""))


def bomb(line, copies):
    """A gzip stream of `copies` times `line` (about 1000 to 1)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = line * (65536 // len(line))
    per = 65536 // len(line)
    parts = []
    for _ in range(copies // per):
        parts.append(z.compress(chunk))
    parts.append(z.compress(line * (copies % per)))
    parts.append(z.flush())
    return b"".join(parts)


# --- render ---------------------------------------------------------------


def test_render_max_stacks_folds_the_rest_into_one_truncated_frame():
    lines = "".join("main;f%03d;leaf 2\n" % i for i in range(100)).encode()
    proc = render(["--max-stacks", "10", "--minwidth", "0"], stdin=lines)
    svg = proc.stdout.decode()
    found = boxes(svg)
    # root, main, 10 x (fNNN, leaf), [truncated]: bounded by the cap, not the input
    assert sum(found.values()) == 1 + 1 + 10 * 2 + 1
    assert samples_of(svg, "[truncated]") == 180
    assert samples_of(svg, "all") == 200
    assert subtitle_of(svg) == ("180 samples in 90 lines beyond the limit of 10 distinct stacks "
                                "shown as [truncated]")
    assert b"90 lines (180 samples) beyond the limits" in proc.stderr


def test_render_max_frames_and_max_memory_truncate_too():
    lines = "".join("main;f%d;g%d 1\n" % (i, i) for i in range(20000)).encode()
    svg = render(["--max-frames", "1001"], stdin=lines).stdout.decode()
    assert "beyond the limit of 1,001 distinct frames" in subtitle_of(svg)
    assert samples_of(svg, "[truncated]") == 20000 - 500
    svg = render(["--max-memory", "1"], stdin=lines).stdout.decode()
    assert "beyond the memory limit of 1 MiB shown as [truncated]" in subtitle_of(svg)
    assert samples_of(svg, "all") == 20000


def test_render_within_the_limits_is_unchanged():
    lines = "".join("main;f%d;leaf %d\n" % (i % 50, i) for i in range(500)).encode()
    plain = render(["--minwidth", "0"], stdin=lines).stdout
    limited = render(["--minwidth", "0", "--max-stacks", "50", "--max-frames", "52",
                      "--max-memory", "8", "--max-svg", "1", "--max-input", "1"],
                     stdin=lines).stdout
    assert limited == plain
    assert b'id="subtitle"' not in plain


def test_render_max_svg_leaves_deep_boxes_out():
    lines = "".join(";".join("s%d_%d" % (s, d) for d in range(400)) + " 1\n"
                    for s in range(60)).encode()
    svg = render(["--minwidth", "0", "--max-svg", "1"], stdin=lines).stdout
    assert len(svg) <= 1 << 20
    sub = subtitle_of(svg.decode())
    assert re.fullmatch(r"boxes deeper than [0-9]+ frames left out \(the graph would pass 1 MiB\)",
                        sub), sub


def test_render_max_input_reads_a_gzip_bomb_only_so_far(tmp_path):
    path = tmp_path / "bomb.log.gz"
    path.write_bytes(bomb(b"main;a;b 1\n", 20 << 20))   # 220 MB from about 200 KB
    assert path.stat().st_size < 1 << 20
    proc = render(["--max-input", "1", str(path)])
    svg = proc.stdout.decode()
    assert samples_of(svg, "all") == (1 << 20) // 11
    assert subtitle_of(svg) == "only the first 1,048,576 bytes of the input were read (the limit)"
    assert b"read only the first 1048576 bytes (--max-input)" in proc.stderr


def test_render_limit_options_are_checked():
    for bad in (["--max-stacks", "0"], ["--max-stacks", "1.5"], ["--max-memory", "x"],
                ["--max-svg", "-1"], ["--max-input", "99999999"]):
        proc = render(bad, stdin=b"a 1\n", check=False)
        assert proc.returncode == 2, bad
        assert b"invalid value" in proc.stderr


# --- generate -------------------------------------------------------------


def test_generate_caps_stacks_says_so_logs_and_counts_it(tree):
    tree.write_config("max_stacks: 5\n")
    tree.log("daily", DAY + ".excimer.index", [stack("f%d" % i, count=3) for i in range(40)])
    proc = tree.ok("generate")
    assert ", 1 graphs truncated (35 lines beyond the limits)" in proc.stdout.decode()
    log = proc.stderr.decode()
    assert "graph_truncated: daily/" + DAY + ".excimer.index: 35 lines (105 samples) beyond " \
           "max_stacks shown as [truncated]" in log
    for name in (DAY + ".excimer.index.svgz", DAY + ".excimer.index.reversed.svgz"):
        svg = read_svgz(tree.svg("daily", name))
        assert samples_of(svg, "[truncated]") == 105
        assert samples_of(svg, "all") == 120
        assert "105 samples in 35 lines beyond the limit of 5 distinct stacks" in subtitle_of(svg)
        assert len([t for t in boxes(svg) if t.startswith("f")]) == 5
    tree.ok("generate", "--force")
    m = parse(tree.ok("metrics").stdout.decode())
    assert value(m, "arclamp_svg_truncated_graphs_total") == 2
    assert value(m, "arclamp_svg_truncated_lines_total") == 70
    assert value(m, "arclamp_svg_log_read_limit_total") == 0


def test_generate_reads_a_gzip_bomb_only_up_to_max_log_read_mb(tree):
    tree.write_config("max_log_read_mb: 1\n")
    line = (stack("Foo::bar", count=1) + "\n").encode()
    d = tree.logs / "daily"
    d.mkdir()
    (d / (DAY + ".excimer.api.log.gz")).write_bytes(bomb(line, (256 << 20) // len(line)))
    tree.log("daily", DAY + ".excimer.index", [stack("g", count=7)])
    proc = tree.ok("generate")
    assert ", 1 logs read only up to max_log_read_mb" in proc.stdout.decode()
    assert "log_read_limit: daily/" + DAY + ".excimer.api.log.gz: read only the first " \
           "1048576 bytes" in proc.stderr.decode()
    svg = read_svgz(tree.svg("daily", DAY + ".excimer.api.svgz"))
    assert samples_of(svg, "all") == (1 << 20) // len(line)
    assert subtitle_of(svg) == "only the first 1,048,576 bytes of the input were read (the limit)"
    other = read_svgz(tree.svg("daily", DAY + ".excimer.index.svgz"))
    assert subtitle_of(other) is None and samples_of(other, "all") == 7
    m = parse(tree.ok("metrics").stdout.decode())
    assert value(m, "arclamp_svg_log_read_limit_total") == 1


def test_generate_limit_keys_are_checked(tree):
    for bad in ("max_stacks: 0\n", "max_memory_mb: 4\n", "max_svg_mb: x\n",
                "max_log_read_mb: -1\n"):
        tree.write_config(bad)
        proc = tree.run("generate")
        assert proc.returncode == 78, bad
        assert bad.split(":")[0].encode() in proc.stderr


@pytest.mark.skipif("/asan/" in os.environ.get("ARCLAMP_SVG_BIN", ""),
                    reason="ASan's shadow memory makes RSS meaningless")
def test_generate_memory_stays_bounded_on_unique_stacks(tree):
    """A 40 MB log of unique stacks cost ~450 MB before the limits (11x);
    with max_memory_mb: 8 the whole process stays far below that."""
    tree.write_config("max_memory_mb: 8\n")
    d = tree.logs / "daily"
    d.mkdir()
    with open(d / (DAY + ".excimer.all.log"), "w") as f:
        for i in range(0, 1600000):
            f.write("main;f%d;g%d 1\n" % (i, i % 1000))
    proc = subprocess.Popen([tree.binary, "generate", "--config", str(tree.config),
                             "--data-dir", str(tree.root)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0
    assert usage.ru_maxrss < 80 * 1024, usage.ru_maxrss   # KB
    svg = read_svgz(tree.svg("daily", DAY + ".excimer.all.svgz"))
    assert samples_of(svg, "all") == 1600000
    assert "beyond the memory limit of 8 MiB" in subtitle_of(svg)
