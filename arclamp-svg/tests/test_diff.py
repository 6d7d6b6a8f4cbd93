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

from conftest import (check_sanitizers, hours_between, read_svgz, stack,
                      write_like_arclamp_log, xml_well_formed)

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
    assert one.returncode == 2 and b"expected two sides, BEFORE and AFTER" in one.stderr
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


# --- sides chosen from the data directory (--before/--after RANGE) -----------

DAY1, DAY2 = "2026-11-21", "2026-11-22"


def simulate(tree, days=(DAY1, DAY2)):
    """Writes what arclamp-log would for samples in every hour of the days.
    The second day has a known change: Slow::query doubles, Cache::hit
    halves, New::thing appears. Returns {(day, hour): [lines]}."""
    api = "/srv/mediawiki/php-1.44.0-wmf.3/api.php"
    by_hour = {}
    for n, day in enumerate(days):
        for hour in range(24):
            lines = [stack("Slow::query", count=(2 if n else 1) * (1 + hour % 3)),
                     stack("Cache::hit", count=8 // (2 if n else 1)),
                     api + ";ApiMain::execute;Q::q%d %d" % (hour % 2, 1 + hour % 4)]
            if n:
                lines.append(stack("New::thing", count=1))
            by_hour[(day, hour)] = lines
    write_like_arclamp_log(tree, by_hour, lambda l: l.startswith(api))
    return by_hour


def merged_out(path):
    """A --diff-out file as {stack: (before, after)}."""
    out = {}
    for line in path.read_text().splitlines():
        s, b, a = line.rsplit(" ", 2)
        out[s] = (int(b), int(a))
    return out


def concatenated(path, files):
    """One file holding every file's lines: a side as one positional log."""
    path.write_bytes(b"".join(open(f, "rb").read() for f in files))
    return str(path)


def test_two_days_are_their_merged_logs(tree, tmp_path):
    by_hour = simulate(tree)
    out = tmp_path / "ranges.txt"
    proc = tree.ok("diff", "--before", DAY1, "--after", DAY2, "--diff-out", out, "-o",
                   tmp_path / "d.svg")
    err = proc.stderr.decode()
    assert "before: 1 log (1 daily, 0 hourly) of entry point all from %s to %s" % (DAY1, DAY2) \
        in err, err
    assert "after: 1 log (1 daily, 0 hourly) of entry point all from %s to 2026-11-23" % DAY2 \
        in err, err
    got = merged_out(out)
    expected = difffolded_n(hours_between(by_hour, (DAY1, 0), (DAY1, 23)),
                            hours_between(by_hour, (DAY2, 0), (DAY2, 23)))
    assert got == expected
    grown = [s for s in got if s.endswith("Slow::query")][0]
    # BEFORE 48 of 300 scaled to AFTER's total, 276; AFTER doubled: grew
    assert got[grown] == (int(48 * 276 / 300), 96) == (44, 96)
    # the same as the same files given as paths
    paths = tmp_path / "paths.txt"
    tree.ok("diff", "--diff-out", paths, "-o", tmp_path / "p.svg",
            tree.logs / "daily" / (DAY1 + ".all.log"), tree.logs / "daily" / (DAY2 + ".all.log"),
            data_dir=False, config=False)
    assert paths.read_text() == out.read_text()
    svg = (tmp_path / "d.svg").read_text()
    assert "%s (scaled to the same total) \u2192 %s; entry point all" % (DAY1, DAY2) in svg
    b = boxes(svg)
    assert is_red(b["Slow::query"][1]) and is_blue(b["Cache::hit"][1])


def test_ranges_across_hours_add_every_chosen_log(tree, tmp_path):
    by_hour = simulate(tree)
    (tree.logs / "hourly" / (DAY2 + "_03.all.log")).unlink()   # an hour without its log
    before, after = DAY1 + "T20.." + DAY2, DAY1 + "T22.." + DAY2 + "T05"
    out = tmp_path / "ranges.txt"
    proc = tree.ok("diff", "--before", before, "--after", after, "--diff-out", out)
    err = proc.stderr.decode()
    assert "before: 4 logs (0 daily, 4 hourly) of entry point all from %sT20 to %s" \
        % (DAY1, DAY2) in err, err
    assert "after: 6 logs (0 daily, 6 hourly) of entry point all from %sT22 to %sT05; " \
        "1 of 7 hours have no log" % (DAY1, DAY2) in err, err
    before_lines = hours_between(by_hour, (DAY1, 20), (DAY1, 23))
    after_lines = [l for k in [(DAY1, 22), (DAY1, 23)] + [(DAY2, h) for h in (0, 1, 2, 4)]
                   for l in by_hour[k]]
    assert merged_out(out) == difffolded_n(before_lines, after_lines)
    # the same as the chosen files, concatenated, given as paths
    hourly = tree.logs / "hourly"
    b = concatenated(tmp_path / "b.log", [hourly / ("%s_%02d.all.log" % (DAY1, h))
                                          for h in range(20, 24)])
    a = concatenated(tmp_path / "a.log", [hourly / n for n in (
        DAY1 + "_22.all.log", DAY1 + "_23.all.log", DAY2 + "_00.all.log",
        DAY2 + "_01.all.log", DAY2 + "_02.all.log", DAY2 + "_04.all.log")])
    paths = tmp_path / "paths.txt"
    tree.ok("diff", "--diff-out", paths, b, a, data_dir=False, config=False)
    assert paths.read_text() == out.read_text()
    # a whole day of a range comes from its daily log, the other hours hourly
    proc = tree.ok("diff", "--before", DAY1 + "T20.." + "2026-11-23", "--after", DAY2,
                   "--diff-out", out)
    assert "before: 5 logs (1 daily, 4 hourly)" in proc.stderr.decode()
    assert merged_out(out) == difffolded_n(hours_between(by_hour, (DAY1, 20), (DAY2, 23)),
                                           hours_between(by_hour, (DAY2, 0), (DAY2, 23)))


def test_a_range_against_a_log_file_either_way(tree, tmp_path):
    by_hour = simulate(tree)
    after = write(tmp_path / "after.log", AFTER)
    out = tmp_path / "m.txt"
    tree.ok("diff", "--before", DAY1 + "T05", after, "--diff-out", out)
    assert merged_out(out) == difffolded_n(by_hour[(DAY1, 5)], AFTER)
    proc = tree.ok("diff", after, "--after", DAY2 + "T05", "--diff-out", out)
    assert merged_out(out) == difffolded_n(AFTER, by_hour[(DAY2, 5)])
    assert "after: 1 log (0 daily, 1 hourly) of entry point all from %sT05 to %sT06" \
        % (DAY2, DAY2) in proc.stderr.decode()


def test_entry_points_choose_both_sides_logs(tree, tmp_path):
    by_hour = simulate(tree)
    api = "/srv/mediawiki/php-1.44.0-wmf.3/api.php"
    out = tmp_path / "m.txt"
    proc = tree.ok("diff", "--before", DAY1, "--after", DAY2, "--entrypoint", "api",
                   "--diff-out", out, "-o", tmp_path / "d.svg")
    assert "of entry point api from" in proc.stderr.decode()
    day = lambda d: [l for l in hours_between(by_hour, (d, 0), (d, 23)) if l.startswith(api)]  # noqa
    assert merged_out(out) == difffolded_n(day(DAY1), day(DAY2))
    assert "; entry point api" in (tmp_path / "d.svg").read_text()
    tree.ok("diff", "--before", DAY1, "--after", DAY2, "-entrypoint", "index",
            "--entrypoint=api", "--diff-out", out)
    assert merged_out(out) == difffolded_n(hours_between(by_hour, (DAY1, 0), (DAY1, 23)),
                                           hours_between(by_hour, (DAY2, 0), (DAY2, 23)))
    # -e as export spells it (not render's --encoding abbreviated)
    tree.ok("diff", "--before", DAY1, "--after", DAY2, "-e", "api", "--diff-out", out)
    assert merged_out(out) == difffolded_n(day(DAY1), day(DAY2))


def test_a_side_without_logs_is_an_error_and_writes_nothing(tree, tmp_path):
    simulate(tree)
    svg, out = tmp_path / "d.svg", tmp_path / "m.txt"
    proc = tree.run("diff", "--before", "2026-10-01", "--after", DAY2, "-o", svg,
                    "--diff-out", out)
    assert proc.returncode == 1, proc.stderr
    assert b"before: no trace logs of entry point all from 2026-10-01 to 2026-10-02 under " \
        in proc.stderr, proc.stderr
    assert not svg.exists() and not out.exists() and proc.stdout == b""
    proc = tree.run("diff", "--before", DAY1, "--after", DAY2, "--entrypoint", "nope",
                    "--diff-out", out)
    assert proc.returncode == 1 and b"before: no trace logs of entry point nope" in proc.stderr
    assert not out.exists() and proc.stdout == b""


def test_sides_and_ranges_on_the_command_line(tree, tmp_path):
    simulate(tree, days=(DAY1,))
    log = write(tmp_path / "x.log", BEFORE)
    for args, why in [
        (["--before", DAY1, "--after", DAY1, log], b"expected two sides, BEFORE and AFTER"),
        (["--before", DAY1, log, log], b"(got 3)"),
        (["--before", DAY1], b"(got 1)"),
        (["--before", DAY1 + ".." + DAY1, log], b"--before: expected T or T..T"),
        (["--after", DAY1 + "T05.." + DAY1 + "T04", log], b"--after: expected T or T..T"),
        (["--before", "yesterday", log], b"--before: expected T or T..T"),
        (["--before", "2026-11-31", log], b"--before: expected T or T..T"),
        (["--before", DAY1 + "T24", log], b"--before: expected T or T..T"),
        (["--before", DAY1 + "..", log], b"--before: expected T or T..T"),
        ([log, "--before"], b"--before: a value is needed"),
        (["--before=", log], b"--before: a value is needed"),
        (["--no-fetch=1", "--before", DAY1, log], b"--no-fetch takes no value"),
    ]:
        proc = tree.run("diff", *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert why in proc.stderr, (args, proc.stderr)
        assert proc.stdout == b"", args
    # choosing logs without a range: the options would be silently ignored
    proc = tree.run("diff", log, log)
    assert proc.returncode == 2 and b"no RANGE given" in proc.stderr
    assert run(tree.binary, log, log).returncode == 0
    proc = run(tree.binary)
    assert proc.returncode == 2 and b"(got 0)" in proc.stderr
    help_ = run(tree.binary, "--help")
    assert b"--before RANGE" in help_.stdout and b"78 the configuration" in help_.stdout


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
