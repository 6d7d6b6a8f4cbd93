"""Differential graphs: `arclamp-svg diff BEFORE AFTER` (difffolded.pl -n piped
into the renderer, in one process) and the timer job's diff of each entry
point's latest complete bucket against the one before.

The merged numbers are checked against difffolded -n's documented rule,
computed here independently: per stack, BEFORE's count scaled by
total(AFTER) / total(BEFORE) and truncated (Perl's int()), AFTER as it is, 0
where a stack is absent. The graphs are parsed with xml.etree: a box's
title gives its count and change, its fill red (grew) or blue (shrank)."""

import gzip
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET

from conftest import check_sanitizers, read_svgz, stack, xml_well_formed

SVG = "{http://www.w3.org/2000/svg}"

# BEFORE: X 10, Y 20, Z 6, W 4 (+ main's own 0); AFTER: X doubled, Y halved,
# Z removed, V new. Totals 40 and 34: BEFORE is scaled by 34/40.
BEFORE = [
    "main;X 10",
    "main;Y 15",
    "main;Y 5",           # the same stack twice: summed
    "main;Z 6",
    "main;W 4",
]
AFTER = [
    "main;X 20",
    "main;Y 10",
    "main;W 3",
    "main;V 1",
    "not a sample line",  # refused by the shared line rules, counted
]


def folded(lines):
    """Sums a log's counts per stack, as difffolded reads a file."""
    out = {}
    for line in lines:
        stack_, _, count = line.rpartition(" ")
        if not count.isdigit() or not stack_:
            continue
        out[stack_] = out.get(stack_, 0) + int(count)
    return out


def difffolded_n(before_lines, after_lines):
    """difffolded.pl -n's output as {stack: (before, after)}."""
    b, a = folded(before_lines), folded(after_lines)
    t1, t2 = sum(b.values()), sum(a.values())
    merged = {}
    for s in set(b) | set(a):
        x, y = b.get(s, 0), a.get(s, 0)
        if t1 != t2 and t1:
            x = int(x * t2 / t1)
        merged[s] = (x, y)
    return merged


def write(path, lines, gz=False):
    data = "".join(line + "\n" for line in lines).encode()
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    return str(path)


def run(binary, *args, timeout=120):
    proc = subprocess.run([binary, "diff"] + [str(a) for a in args], capture_output=True,
                          timeout=timeout)
    check_sanitizers(proc)
    return proc


def boxes(svg_text):
    """{function: (title, fill)} of a graph's boxes."""
    root = ET.fromstring(svg_text.encode("utf-8") if isinstance(svg_text, str) else svg_text)
    out = {}
    for g in root.iter(SVG + "g"):
        title, rect = g.find(SVG + "title"), g.find(SVG + "rect")
        if title is None or rect is None:
            continue
        name = title.text.split(" (")[0]
        out[name] = (title.text, rect.get("fill"))
    return out


def rgb(fill):
    m = re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", fill)
    assert m, fill
    return tuple(int(v) for v in m.groups())


def is_red(fill):
    r, g, b = rgb(fill)
    return r == 255 and g == b and g < 255


def is_blue(fill):
    r, g, b = rgb(fill)
    return b == 255 and r == g and r < 255


# --- the command --------------------------------------------------------------


def test_diff_out_numbers_are_difffolded_n(arclamp_svg, tmp_path):
    before = write(tmp_path / "before.log", BEFORE)
    after = write(tmp_path / "after.log.gz", AFTER, gz=True)   # gzip read by content
    proc = run(arclamp_svg, "--diff-out", tmp_path / "merged.txt", "-o", tmp_path / "d.svg",
               before, after)
    assert proc.returncode == 0, proc.stderr
    assert b"Ignored 1 lines with invalid format" in proc.stderr
    got = {}
    lines = (tmp_path / "merged.txt").read_text().splitlines()
    for line in lines:
        s, b, a = line.rsplit(" ", 2)
        got[s] = (int(b), int(a))
    expected = difffolded_n(BEFORE, AFTER)
    assert got == expected
    # spelled out, so that a wrong rule in both places would still show
    assert got["main;Y"] == (int(20 * 34 / 40), 10) == (17, 10)
    assert got["main;Z"] == (5, 0) and got["main;V"] == (0, 1)
    assert lines == sorted(lines)   # sorted by stack: comparable text
    # without normalisation needed (equal totals) the counts are as read
    same = write(tmp_path / "same.log", ["a;b 3", "a;c 1"])
    other = write(tmp_path / "other.log", ["a;b 1", "a;c 3"])
    assert run(arclamp_svg, "--diff-out=" + str(tmp_path / "m2.txt"), "-o",
               tmp_path / "d2.svg", same, other).returncode == 0
    assert (tmp_path / "m2.txt").read_text() == "a;b 3 1\na;c 1 3\n"


def test_grown_boxes_are_red_shrunk_blue_and_removed_absent(arclamp_svg, tmp_path):
    before = write(tmp_path / "before.log", BEFORE)
    after = write(tmp_path / "after.log", AFTER)
    proc = run(arclamp_svg, before, after)
    assert proc.returncode == 0, proc.stderr
    svg = proc.stdout.decode()
    ok, why = xml_well_formed(svg)
    assert ok, why
    b = boxes(svg)
    # widths from AFTER (34 samples), change against BEFORE scaled to 34
    assert b["X"][0] == "X (20 samples, 58.82%; +35.29%)"   # 20 - int(10*34/40) = +12 of 34
    assert is_red(b["X"][1])
    assert b["Y"][0].startswith("Y (10 samples, 29.41%; -")
    assert is_blue(b["Y"][1])
    assert is_red(b["V"][1])                    # new: grew from 0
    assert "Z" not in b                         # removed: no width in AFTER
    assert b["all"][0] == "all (34 samples, 100%)"
    # X grew the most of any line: full red; Y's shrink of 7 is smaller
    assert rgb(b["X"][1]) == (255, 0, 0)
    # --negate swaps the hues
    neg = boxes(run(arclamp_svg, "--negate", before, after).stdout)
    assert is_blue(neg["X"][1]) and is_red(neg["Y"][1])


def test_reverse_and_inverted_orientations(arclamp_svg, tmp_path):
    before = write(tmp_path / "before.log", ["main;f;X 10", "main;g;X 10"])
    after = write(tmp_path / "after.log", ["main;f;X 30", "main;g;X 10"])
    fwd = run(arclamp_svg, before, after)
    rev = run(arclamp_svg, "--reverse", before, after)
    inv = run(arclamp_svg, "--inverted", before, after)
    for p in (fwd, rev, inv):
        assert p.returncode == 0, p.stderr
    # reversed: X (the leaf) is the first frame, one box of all 40 samples
    rb = boxes(rev.stdout)
    assert rb["X"][0].startswith("X (40 samples, 100.00%")
    assert boxes(fwd.stdout)["f"][0].startswith("f (30 samples")
    assert b'"inverted":true' in inv.stdout and b'"inverted":false' in fwd.stdout


def test_errors(arclamp_svg, tmp_path):
    before = write(tmp_path / "before.log", BEFORE)
    one = run(arclamp_svg, before)
    assert one.returncode == 2 and b"expected two trace logs" in one.stderr
    three = run(arclamp_svg, before, before, before)
    assert three.returncode == 2
    missing = run(arclamp_svg, "-o", tmp_path / "x.svg", before, tmp_path / "nope.log")
    assert missing.returncode == 1 and b"nope.log" in missing.stderr
    assert not (tmp_path / "x.svg").exists()           # no graph from half the input
    assert run(arclamp_svg, "--diff-out").returncode == 2
    assert run(arclamp_svg, "--no-such-option", before, before).returncode == 2
    # nothing in AFTER: flamegraph.pl's "No stack counts found", exit status 2
    empty = write(tmp_path / "empty.log", [])
    proc = run(arclamp_svg, before, empty)
    assert proc.returncode == 2 and b"No stack counts found" in proc.stderr
    help_ = run(arclamp_svg, "--help")
    assert help_.returncode == 0 and b"BEFORE.log AFTER.log" in help_.stdout


# --- the timer job ----------------------------------------------------------


H1, H2 = "2026-11-22_04", "2026-11-22_05"


def test_generate_draws_the_diff_of_the_latest_bucket_and_links_it(tree):
    grow = lambda n: [stack("Foo::grow", count=n), stack("Bar::same", count=10)]  # noqa: E731
    tree.log("hourly", H1 + ".index", grow(5), mtime=1700000000)
    tree.log("hourly", H2 + ".index", grow(20), mtime=1700000100)
    tree.log("hourly", H2 + ".api", [stack("Api::only", count=3)])   # one bucket only
    proc = tree.ok("generate")
    assert "1 diffs drawn (0 failed)" in proc.stdout.decode()
    names = sorted(os.listdir(tree.svgs / "hourly"))
    assert H2 + ".index.diff.svgz" in names and H2 + ".index.diff.reversed.svgz" in names
    assert not [n for n in names if n.startswith(H1) and ".diff" in n]   # the older one: none
    assert not [n for n in names if ".api.diff" in n]                   # nothing before it
    svg = read_svgz(tree.svgs / "hourly" / (H2 + ".index.diff.svgz"))
    ok, why = xml_well_formed(svg)
    assert ok, why
    b = boxes(svg)
    assert is_red(b["Foo::grow"][1])    # 5 of 15 -> 20 of 30: grew
    assert is_blue(b["Bar::same"][1])   # 10 of 15 -> 10 of 30: shrank once scaled
    assert "diff vs previous hour (2026-11-22 04)" in svg
    rev = read_svgz(tree.svgs / "hourly" / (H2 + ".index.diff.reversed.svgz"))
    assert "reversed" in re.search(r'<text id="title"[^>]*>([^<]*)<', rev).group(1)

    index = (tree.root / "index.html").read_text()
    assert 'href="svgs/hourly/%s.index.diff.svgz">diff vs previous hour</a>' % H2 in index
    assert 'href="svgs/hourly/%s.index.diff.reversed.svgz">reversed</a>' % H2 in index
    assert ".api.diff" not in index      # no broken link for the lone bucket
    ok, why = xml_well_formed(index, html=True)
    assert ok, why
    entries = {e["name"]: e for e in json.loads((tree.root / "index.json").read_text())["logs"]}
    assert entries[H2 + ".index"]["diff_svg"] == "svgs/hourly/%s.index.diff.svgz" % H2
    assert entries[H2 + ".api"]["diff_svg"] is None
    assert entries[H1 + ".index"]["diff_svg"] is None

    # up to date: not drawn again; a changed input: drawn again
    again = tree.ok("generate")
    assert "diffs drawn" not in again.stdout.decode()
    tree.log("hourly", H1 + ".index", grow(1), mtime=1700000200)
    third = tree.ok("generate")
    assert "1 diffs drawn" in third.stdout.decode()

    # a newer complete bucket moves the diff: the old one is pruned
    tree.log("hourly", "2026-11-22_06.index", grow(40))
    tree.ok("generate")
    names = sorted(os.listdir(tree.svgs / "hourly"))
    assert "2026-11-22_06.index.diff.svgz" in names
    assert H2 + ".index.diff.svgz" not in names


def test_generate_draws_day_over_day_and_not_the_open_bucket(tree):
    tree.log("daily", "2026-11-20.index", [stack("A::a", count=4)])
    tree.log("daily", "2026-11-21.index", [stack("A::a", count=2), stack("B::b", count=2)])
    tree.log("daily", "2099-01-01.index", [stack("A::a", count=1)])   # not over yet
    tree.ok("generate")
    names = sorted(os.listdir(tree.svgs / "daily"))
    assert [n for n in names if ".diff." in n] == [
        "2026-11-21.index.diff.reversed.svgz", "2026-11-21.index.diff.svgz"]
    index = (tree.root / "index.html").read_text()
    assert "diff vs previous day" in index


def test_diff_is_not_a_tag(tree):
    # a log written by an older daemon whose tag would name index's diff graph
    tree.log("hourly", H2 + ".index", [stack("A::a", count=1)])
    tree.log("hourly", H2 + ".index.diff", [stack("A::a", count=1)])
    proc = tree.ok("generate")
    assert "1 logs refused" in proc.stdout.decode()
