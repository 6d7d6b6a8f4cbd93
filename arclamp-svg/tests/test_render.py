"""`arclamp-svg render` from outside: the hostile corpus through xmllint and
an XML parser (nothing injected), determinism, gzip input and output, the
flamegraph.pl command line.

The binary is ARCLAMP_SVG_BIN (default build/bin/arclamp-svg)."""

import gzip
import os
import random
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# absolute: some tests run it in a directory of their own (--cp)
BIN = os.path.abspath(os.environ.get("ARCLAMP_SVG_BIN", str(REPO / "build/bin/arclamp-svg")))
SVG = "{http://www.w3.org/2000/svg}"

# Every element and attribute a graph may contain: anything else was injected.
ALLOWED = {
    # no event handler attribute: the web front's policy would refuse it
    "svg": {"version", "width", "height", "viewBox"},
    "desc": set(),
    "defs": set(),
    "linearGradient": {"id", "y1", "y2", "x1", "x2"},
    "stop": {"stop-color", "offset"},
    "style": {"type"},
    "script": {"type", "id"},   # id: the settings' data element
    "rect": {"x", "y", "width", "height", "fill", "rx", "ry"},
    "text": {"id", "x", "y", "class"},
    "g": {"id"},
    "title": set(),
}

HOSTILE_FRAMES = [
    "<script>alert(1)</script>",
    "</script><script>alert(2)</script>",
    "]]><evil/><![CDATA[",
    "a & b &amp; &#x3c; &lt;",
    "\"quoted\" 'single' `back`",
    "onload=\"alert(3)\"",
    "nul\x00byte",
    "ctl\x01\x02\x1b[31m\x7f",
    "bad\xff\xfeutf8\xc0\xaf\xed\xa0\x80",
    "trunc\xe2\x82",
    "\ufeffbom \u202eright-to-left",
    "{closure:/srv/app/x.php(1)}",
    "class@anonymous\x00/srv/app/y.php:3$0",
    "../../../etc/passwd",
    "<!-- comment -->",
    "<?xml-stylesheet href='x'?>",
    "x" * 5000,
]


def run(args, stdin=None, check=True, cwd=None):
    proc = subprocess.run([BIN, "render", *args], input=stdin, capture_output=True, timeout=120,
                          cwd=cwd)
    if check:
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc


def build_corpus():
    rnd = random.Random(11)
    lines = []
    for i in range(600):
        frames = [rnd.choice(HOSTILE_FRAMES) for _ in range(rnd.randint(1, 10))]
        line = ";".join(frames).encode("utf-8", "surrogatepass")
        lines.append(line + b" %d" % rnd.randint(1, 30))
    lines.append(b"raw\xff\xfe;nul\x00\x00;\xc0\xaf;end 5")
    lines.append(b"deep;" * 3000 + b"leaf 40")
    lines.append(b"no count here")
    lines.append(b"")
    return b"\n".join(lines) + b"\n"


def check_document(doc: bytes):
    """Well-formed (xmllint and ElementTree) and nothing but our elements."""
    lint = subprocess.run(["xmllint", "--noout", "--nonet", "-"], input=doc,
                          capture_output=True, timeout=60)
    assert lint.returncode == 0, lint.stderr.decode(errors="replace")[:2000]
    root = ET.fromstring(doc)
    scripts = 0
    for el in root.iter():
        assert el.tag.startswith(SVG), el.tag
        tag = el.tag[len(SVG):]
        assert tag in ALLOWED, f"injected element {tag}"
        extra = set(el.attrib) - ALLOWED[tag]
        assert not extra, f"injected attribute(s) {extra} on {tag}"
        if tag == "script":
            scripts += 1
    assert scripts == 2, "only our two scripts"
    return root


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "hostile.log"
    path.write_bytes(build_corpus())
    return path


@pytest.mark.parametrize("extra", [
    [],
    ["--reverse", "--colors", "blue"],
    ["--inverted", "--minwidth", "0"],
    ["--title", "</text><script>alert(9)</script>", "--subtitle", "]]>&\x01",
     "--countname", "\"><g onload='x'>", "--nametype", "\"};alert(1);//",
     "--notes", "--><evil/>", "--fonttype", "x;}</style><script>y()</script>"],
])
def test_hostile_corpus_gives_well_formed_svg_with_nothing_injected(corpus, extra):
    doc = run([*extra, str(corpus)]).stdout
    root = check_document(doc)
    titles = [t.text or "" for t in root.iter(SVG + "title")]
    assert any("<script>alert(1)</script>" in t for t in titles), "names shown as text"
    assert any("\ufffd" in t for t in titles), "bad bytes replaced, not dropped"
    # The option texts are present, escaped, as text.
    if extra:
        texts = "".join(t.text or "" for t in root.iter(SVG + "text"))
        if "--title" in extra:
            assert "</text><script>alert(9)</script>" in texts


def test_hostile_corpus_differential_is_well_formed(tmp_path):
    lines = [(";".join(random.Random(i).sample(HOSTILE_FRAMES, 3))).encode("utf-8", "surrogatepass")
             + b" %d %d" % (i % 7, (i * 3) % 11) for i in range(200)]
    path = tmp_path / "diff.log"
    path.write_bytes(b"\n".join(lines) + b"\n")
    root = check_document(run([str(path)]).stdout)
    fills = {r.get("fill") for r in root.iter(SVG + "rect")}
    assert any(f.startswith("rgb(255,") for f in fills), "some frames grew (red)"
    assert any(f.endswith(",255)") for f in fills), "some frames shrank (blue)"


def test_same_input_same_bytes_in_any_line_order(tmp_path):
    lines = build_corpus().split(b"\n")
    a = tmp_path / "a.log"
    b = tmp_path / "b.log"
    a.write_bytes(b"\n".join(lines))
    shuffled = lines[:]
    random.Random(3).shuffle(shuffled)
    b.write_bytes(b"\n".join(shuffled))
    first = run([str(a)]).stdout
    assert run([str(a)]).stdout == first
    assert run([str(b)]).stdout == first


def test_gzip_input_and_standard_input_match_plain(tmp_path):
    data = b"".join(b"main;f%d;leaf %d\n" % (i % 13, i % 5 + 1) for i in range(5000))
    plain = tmp_path / "x.log"
    plain.write_bytes(data)
    gz = tmp_path / "x.log.gz"
    gz.write_bytes(gzip.compress(data))
    want = run([str(plain)]).stdout
    assert run([str(gz)]).stdout == want
    assert run([], stdin=data).stdout == want
    assert run(["-"], stdin=gzip.compress(data)).stdout == want


def test_output_files_forward_and_reversed_from_one_read(tmp_path):
    data = b"main;parse;strlen 3\nmain;render;strlen 2\n"
    src = tmp_path / "in.log"
    src.write_bytes(data)
    out = tmp_path / "g.svgz"
    rev = tmp_path / "g.reversed.svg"
    run(["-q", "-o", str(out), "--reversed-output", str(rev), str(src)])
    forward = gzip.decompress(out.read_bytes())
    assert forward == run([str(src)]).stdout
    assert rev.read_bytes() == run(["--reverse", str(src)]).stdout
    # Reversed: strlen is a root child spanning all 5 samples.
    assert b"<title>strlen (5 samples, 100.00%)</title>" in rev.read_bytes()
    assert not list(tmp_path.glob(".arclamp-tmp-*")), "no temporary files left"


def test_invalid_lines_are_counted_on_stderr(tmp_path):
    proc = run([], stdin=b"a;b 1\nnot a sample\na;b x\n\n")
    assert b"Ignored 3 lines with invalid format" in proc.stderr
    assert b"<title>b (1 samples, 100.00%)</title>" in proc.stdout


def test_unknown_palette_and_bad_numbers_are_refused():
    for args in (["--colors", "rainbow"], ["--width", "-5"], ["--minwidth", "x%"],
                 ["--no-such-option"], ["--bgcolors", "#12345g"], ["--bgcolors", "url(x)"]):
        proc = run(args, stdin=b"a 1\n", check=False)
        assert proc.returncode == 2, args
        assert proc.stdout == b""


TRY = b"Try 'arclamp-svg render --help'.\n"
BAD_OPTIONS = [
    (["--width", "10"], b'--width: invalid value "10"'),
    (["--height", "0"], b'--height: invalid value "0"'),
    (["--minwidth", "x%"], b'--minwidth: invalid value "x"'),
    (["--fontsize", "0"], b'--fontsize: invalid value "0"'),
    (["--fontwidth", "0"], b'--fontwidth: invalid value "0"'),
    (["--total", "-1"], b'--total: invalid value "-1"'),
    (["--factor", "0"], b'--factor: invalid value "0"'),
    (["--colors", "rainbow"], b'--colors: unknown palette "rainbow"'),
    (["--bgcolors", "url(x)"], b'--bgcolors: unknown background "url(x)"'),
    (["--encoding", "a b"], b'--encoding: "a b": not an encoding name ([A-Za-z0-9._-])'),
    (["--encoding", "no-such-encoding"], b'--encoding: "no-such-encoding": unknown encoding'),
    (["--encoding", "UTF-16"], b'--encoding: "UTF-16": does not keep ASCII as it is'),
    (["--max-stacks", "0"], b'--max-stacks: invalid value "0"'),
    (["--max-frames", "1.5"],
     b'--max-frames: invalid value "1.5" (a whole number up to 4000000000)'),
    (["--max-memory", "x"], b'--max-memory: invalid value "x"'),
    (["--max-svg", "2000000"],
     b'--max-svg: invalid value "2000000" (a whole number up to 1048576)'),
    (["--max-input", "-1"], b'--max-input: invalid value "-1"'),
]


@pytest.mark.parametrize("args,message", BAD_OPTIONS, ids=[a[0] for a, _ in BAD_OPTIONS])
def test_every_bad_option_value_has_its_message_and_exit_2(args, message):
    """The command prints it, once, then where to look; no SVG."""
    proc = run(args, stdin=b"a 1\n", check=False)
    assert (proc.returncode, proc.stdout) == (2, b""), args
    assert proc.stderr == b"arclamp-svg render: " + message + b"\n" + TRY


def test_unknown_option_is_getopts_message_then_the_hint():
    proc = run(["--no-such-option"], stdin=b"a 1\n", check=False)
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert proc.stderr.endswith(b"'--no-such-option'\n" + TRY)
    assert proc.stderr.count(b"\n") == 2


def test_warnings_come_before_the_svg_on_one_stream(tmp_path):
    """flamegraph.pl prints its warnings before the document: with stdout
    and stderr on one pipe (2>&1), they come first, in its order."""
    with open(tmp_path / "both", "wb") as both:
        proc = subprocess.run([BIN, "render", "--total", "2"], input=b"a 3\nbad\n",
                              stdout=both, stderr=both, timeout=120)
    assert proc.returncode == 0
    text = (tmp_path / "both").read_bytes()
    assert b"Sanitizer" not in text and b"runtime error:" not in text, text
    assert text.startswith(b"Ignored 1 lines with invalid format\n"
                           b"Specified --total 2 is less than actual total 3, so ignored\n"
                           b"<?xml ")
    with open(tmp_path / "both", "wb") as both:
        proc = subprocess.run([BIN, "render"], input=b"bad\n", stdout=both, stderr=both,
                              timeout=120)
    assert proc.returncode == 2
    assert (tmp_path / "both").read_bytes().startswith(
        b"Ignored 1 lines with invalid format\nERROR: No stack counts found\n<?xml ")


def test_graphs_that_cannot_be_written_are_each_reported(tmp_path):
    out, rev = tmp_path / "no" / "g.svg", tmp_path / "no" / "r.svg"
    proc = run(["-q", "-o", str(out), "--reversed-output", str(rev)], stdin=b"a 1\n",
               check=False)
    assert proc.returncode == 1
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("arclamp-svg render: " + str(out.parent))
    assert lines[1].startswith("arclamp-svg render: " + str(rev.parent))


def test_missing_file_is_reported_and_fails_without_an_svg(tmp_path):
    good = tmp_path / "good.log"
    good.write_bytes(b"a;b 1\n")
    for args in ([str(tmp_path / "missing.log")], [str(good), str(tmp_path / "missing.log")]):
        proc = run(args, check=False)
        assert proc.returncode == 1, args
        assert b"missing.log" in proc.stderr
        assert proc.stdout == b"", args


@pytest.mark.parametrize("stdin", [b"", b"\n\n", b"not a sample\na;b x\n", b"a;b 0\n"])
def test_no_stack_counts_is_exit_2_with_the_error_svg(stdin):
    """As flamegraph.pl: the message on stderr, an error document on stdout
    (tools that always expect one get one), exit status 2."""
    proc = run([], stdin=stdin, check=False)
    assert proc.returncode == 2
    assert b"ERROR: No stack counts found\n" in proc.stderr
    root = check_document(proc.stdout)
    assert any(t.text == "ERROR: No valid input provided to flamegraph.pl."
               for t in root.iter(SVG + "text"))


def test_one_blank_separates_the_count_and_trailing_empty_frames_are_dropped():
    """flamegraph.pl's /^(.*)\\s+?(\\d+)$/ takes one blank before the count
    (the frame keeps the others), and Perl's split drops trailing empty
    fields: "a;" is "a", ";;;" only the root; an empty frame inside stays."""
    titles = lambda doc: sorted(b[0] for b in boxes(doc))
    assert titles(run([], stdin=b"a;b  3\n").stdout) == \
        ["a (3 samples, 100.00%)", "all (3 samples, 100%)", "b  (3 samples, 100.00%)"]
    assert titles(run([], stdin=b"a; 3\n").stdout) == ["a (3 samples, 100.00%)", "all (3 samples, 100%)"]
    assert titles(run([], stdin=b";;; 5\n").stdout) == ["all (5 samples, 100%)"]
    assert titles(run([], stdin=b"a;;b 2\n").stdout) == \
        [" (2 samples, 100.00%)", "a (2 samples, 100.00%)", "all (2 samples, 100%)", "b (2 samples, 100.00%)"]
    # an empty stack next to others (ASan once aborted here: memcmp(NULL, ..., 0))
    assert titles(run([], stdin=b";;; 5\n; 3\n").stdout) == ["all (8 samples, 100%)"]


def test_minwidth_percent_and_title_like_arc_lamp(tmp_path):
    lines = b"big 9990\ntiny;child 10\n"
    doc = run(["--minwidth=1%", "--title", "MediaWiki - daily - 2026-11-22",
               "--fonttype=monospace", "--fontsize=11"], stdin=lines).stdout
    root = check_document(doc)
    titles = [t.text for t in root.iter(SVG + "title")]
    assert not any(t.startswith("tiny") for t in titles)
    assert root.find(f".//{SVG}text[@id='title']").text == "MediaWiki - daily - 2026-11-22"
    assert b"font-family:monospace; font-size:11px" in doc


# --- flamegraph.pl options, each checked by its effect ---------------------


def boxes(doc):
    """[(tooltip, x, width, height, fill)] of every box, in document order."""
    out = []
    for g in check_document(doc).find(f".//{SVG}g[@id='frames']"):
        r = g.find(SVG + "rect")
        out.append((g.find(SVG + "title").text, float(r.get("x")), float(r.get("width")),
                    float(r.get("height")), r.get("fill")))
    return out


def box(doc, name):
    found = [b for b in boxes(doc) if b[0].startswith(name + " (")]
    assert len(found) == 1, (name, found)
    return found[0]


CHART = b"main;a;x 1\nmain;b 2\nmain;a;y 1\nmain;a;y 3\n"


def test_flamechart_keeps_input_order_and_merges_only_adjacent_lines():
    chart = run(["--flamechart"], stdin=CHART).stdout
    root = check_document(chart)
    assert root.find(f".//{SVG}text[@id='title']").text == "Flame Chart"
    by_x = sorted((b for b in boxes(chart) if b[0].startswith(("a ", "b "))), key=lambda b: b[1])
    # a (x), then b, then a again: the two a's are apart in the input, and
    # the two adjacent y lines are one box of 4.
    assert [b[0] for b in by_x] == ["a (1 samples, 14.29%)", "b (2 samples, 28.57%)",
                                    "a (4 samples, 57.14%)"]
    assert box(chart, "y")[0] == "y (4 samples, 57.14%)"
    # Without it, stacks are merged and sorted: one a of 5 samples.
    graph = run([], stdin=CHART).stdout
    assert box(graph, "a")[0] == "a (5 samples, 71.43%)"
    # Reversed, each stack's leaf is at the bottom, still in input order.
    rev = run(["--flamechart", "--reverse"], stdin=CHART).stdout
    bottom = sorted((b for b in boxes(rev) if b[0].startswith(("x ", "b ", "y "))), key=lambda b: b[1])
    assert [b[0].split()[0] for b in bottom] == ["x", "b", "y"]


def test_height_and_fontsize_set_the_geometry():
    # Image height = (depth + 1) * frame height + 3 * fontsize + 2 * fontsize + 10.
    doc = run(["--height", "20", "--fontsize", "10"], stdin=b"a;b;c 1\n").stdout
    root = check_document(doc)
    assert (root.get("height"), root.get("viewBox")) == ("140", "0 0 1200 140")
    assert {b[3] for b in boxes(doc)} == {19.0}   # one pixel between frames
    assert b"font-size:10px" in doc
    default = check_document(run([], stdin=b"a;b;c 1\n").stdout)
    assert default.get("height") == str((3 + 1) * 16 + 3 * 12 + 2 * 12 + 10)


def test_fontwidth_changes_how_much_of_a_label_fits():
    name = "N" * 120
    def label(args):
        root = check_document(run(args, stdin=(name + " 1\n").encode()).stdout)
        return [t.text for t in root.iter(SVG + "text") if t.text and t.text.startswith("N")][0]
    assert label([]) == name                      # 1180 px / (12 * 0.59) = 166 characters fit
    cut = label(["--fontwidth", "2"])            # 1180 / 24 = 49
    assert cut.endswith("..") and len(cut) == 49, cut


def test_total_scales_the_graph_and_a_smaller_one_is_ignored():
    data = b"main;f 10\n"
    doc = run(["--total", "40"], stdin=data).stdout
    f = box(doc, "f")
    assert f[0] == "f (10 samples, 25.00%)" and f[2] == 295.0   # 1180 * 10 / 40
    # the root spans the full width and says the total, as flamegraph.pl's
    assert box(doc, "all")[0] == "all (40 samples, 100%)" and box(doc, "all")[2] == 1180.0
    small = run(["--total", "5"], stdin=data)
    assert b"Specified --total 5 is less than actual total 10, so ignored" in small.stderr
    assert small.stdout == run([], stdin=data).stdout


def test_total_is_in_input_units_before_factor():
    """--total N counts as the input counts (flamegraph.pl's timemax), and
    --factor scales the texts only: 10 samples, --total 1000 --factor 2."""
    data = b"main;f 10\n"
    doc = run(["--total", "1000", "--factor", "2"], stdin=data).stdout
    assert box(doc, "all")[0] == "all (2,000 samples, 100%)"
    assert box(doc, "f")[0] == "f (20 samples, 1.00%)" and box(doc, "f")[2] == 11.8
    # 15 is above the 10 of the input, though below its 20 after --factor
    above = run(["--total", "15", "--factor", "2"], stdin=data)
    assert b"Specified --total" not in above.stderr
    assert box(above.stdout, "all")[0] == "all (30 samples, 100%)"
    below = run(["--total", "5", "--factor", "2"], stdin=data)
    assert b"Specified --total 5 is less than actual total 10, so ignored" in below.stderr
    assert box(below.stdout, "all")[0] == "all (20 samples, 100%)"
    # at most 2% of the real total: ignored without a word, as flamegraph.pl
    assert b"Specified" not in run(["--total", "0.2"], stdin=data).stderr


def test_bgcolors_names_and_flat_colours():
    def stops(args):
        root = check_document(run(args, stdin=b"a 1\n").stdout)
        return [s.get("stop-color") for s in root.iter(SVG + "stop")]
    assert stops([]) == ["#eeeeee", "#eeeeb0"]
    assert stops(["--bgcolors", "blue"]) == ["#eeeeee", "#e0e0ff"]
    assert stops(["--colors", "blue"]) == ["#f8f8f8", "#e8e8e8"]
    assert stops(["--bgcolors", "#123abc"]) == ["#123abc", "#123abc"]


def test_hash_is_accepted_and_changes_nothing():
    data = b"main;parse;strlen 3\nmain;render 2\n"
    assert run(["--hash"], stdin=data).stdout == run([], stdin=data).stdout


def test_differential_tooltips_colours_and_negate():
    data = b"main;same 5 5\nmain;grew 1 3\n"
    doc = run([], stdin=data).stdout
    assert box(doc, "grew")[0] == "grew (3 samples, 37.50%; +25.00%)"
    assert box(doc, "grew")[4] == "rgb(255,0,0)"
    assert box(doc, "same")[0] == "same (5 samples, 62.50%; 0.00%)"
    assert box(doc, "same")[4] == "rgb(255,255,255)"
    assert box(doc, "all")[0] == "all (8 samples, 100%)"   # the root has no delta
    neg = run(["--negate"], stdin=data).stdout
    assert box(neg, "grew")[0] == "grew (3 samples, 37.50%; -25.00%)"
    assert box(neg, "grew")[4] == "rgb(0,0,255)"


def test_differential_change_is_the_leafs_own_as_flamegraph_pl():
    """A line's change (COUNT2 - COUNT1) belongs to the frame ending it
    only: a parent whose own lines did not change reads 0.00% and is white
    however much its children changed."""
    doc = run([], stdin=b"main;same 5 5\nmain;grew 1 3\nmain 2 1\n").stdout
    assert box(doc, "main")[0] == "main (9 samples, 100.00%; -11.11%)"
    assert box(doc, "grew")[0] == "grew (3 samples, 33.33%; +22.22%)"
    doc = run([], stdin=b"main;same 5 5\nmain;grew 1 3\n").stdout
    assert box(doc, "main")[0] == "main (8 samples, 100.00%; 0.00%)"
    assert box(doc, "main")[4] == "rgb(255,255,255)"


def test_differential_colour_scale_is_of_the_largest_line_change():
    """maxdelta is the largest |COUNT2 - COUNT1| of one line (at least 1),
    not of a box: y gained 6 over two lines of 3, x 4 in one line."""
    doc = run([], stdin=b"x 0 4\ny;z 0 3\ny;w 0 3\n").stdout
    assert box(doc, "z")[4] == "rgb(255,52,52)"      # int(210 * (4 - 3) / 4)
    assert box(doc, "x")[4] == "rgb(255,0,0)"
    assert box(doc, "y")[4] == "rgb(255,255,255)"
    shrank = run([], stdin=b"x 5 1\ny;z 4 1\ny;w 3 1\n").stdout
    assert box(shrank, "z")[4] == "rgb(52,52,255)"
    assert box(shrank, "w")[4] == "rgb(105,105,255)"  # int(210 * (4 - 2) / 4)
    # maxdelta starts at 1: a change of 0.25 is pale, not full red
    assert box(run([], stdin=b"a 0.5 0.75\n").stdout, "a")[4] == "rgb(255,157,157)"
    # --factor scales the width, not the change: +2 of 4 * 2
    assert box(run(["--factor", "2"], stdin=b"a 2 4\n").stdout, "a")[0] == \
        "a (8 samples, 100.00%; +25.00%)"


def test_separator_frames_are_grey_in_every_mode():
    for args, data in (([], b"a;--;b 2\na;-;c 1\n"), (["--colors", "java"], b"a;--;b 2\na;-;c 1\n"),
                       ([], b"a;--;b 1 2\na;-;c 1 1\n")):
        doc = run(args, stdin=data).stdout
        assert box(doc, "--")[4] == "rgb(160,160,160)", args
        assert box(doc, "-")[4] == "rgb(200,200,200)", args


def test_zero_count_lines_of_difffolded_keep_their_own_boxes():
    """difffolded.pl writes a vanished stack as 'STACK N 0'. flamegraph.pl
    names a box by function, depth and end, so the empty a under q takes
    the place of the a under p (both end at 3); here each stays a box."""
    doc = run(["--minwidth", "0"], stdin=b"p;a 0 3\nq;a 2 0\n").stdout
    titles = sorted(b[0] for b in boxes(doc) if b[0].startswith("a ("))
    assert titles == ["a (0 samples, 0.00%; -66.67%)", "a (3 samples, 100.00%; +100.00%)"]
    wide = [b for b in boxes(doc) if b[0].startswith("a (3")][0]
    assert (wide[1], wide[2]) == (10.0, 1180.0)


def test_quiet_drops_the_summary_not_the_warnings(tmp_path):
    out = tmp_path / "g.svg"
    loud = run(["-o", str(out)], stdin=b"a 1\nbad\n")
    assert b"1 lines, 1 distinct stacks" in loud.stderr
    quiet = run(["-q", "-o", str(out)], stdin=b"a 1\nbad\n")
    assert b"distinct stacks" not in quiet.stderr
    assert b"Ignored 1 lines with invalid format" in quiet.stderr


# --- flamegraph.pl's command line: Getopt::Long's spellings ----------------


EVERY_OPTION = [("title", "T"), ("subtitle", "S"), ("width", "900"), ("height", "20"),
                ("minwidth", "0"), ("fonttype", "monospace"), ("fontsize", "11"),
                ("fontwidth", "0.6"), ("countname", "ms"), ("nametype", "Fn:"),
                ("colors", "java"), ("bgcolors", "blue"), ("hash", None), ("random", None),
                ("reverse", None), ("inverted", None), ("flamechart", None), ("negate", None),
                ("notes", "N"), ("total", "20"), ("factor", "2"), ("encoding", "UTF-8")]


@pytest.mark.parametrize("name,value", EVERY_OPTION, ids=[o[0] for o in EVERY_OPTION])
def test_every_option_also_with_a_single_dash(name, value):
    # a box too narrow for the default --minwidth; differential for --negate
    data = b"main;a 3 1\nmain;b 1 2\n" if name == "negate" else b"main;a 3\nmain;b 2\nc 0.0001\n"
    double = ["--" + name] + ([value] if value else [])
    want = run(double, stdin=data).stdout
    assert want != run([], stdin=data).stdout or name in ("hash", "random", "encoding")
    single = ["-" + name] + ([value] if value else [])
    assert run(single, stdin=data).stdout == want
    if value:
        assert run(["-%s=%s" % (name, value)], stdin=data).stdout == want
        assert run(["--%s=%s" % (name, value)], stdin=data).stdout == want


def test_unambiguous_prefixes_and_unknown_options():
    data = b"main;a 3\n"
    assert run(["-tit", "X", "--wid=900"], stdin=data).stdout == \
        run(["--title", "X", "--width", "900"], stdin=data).stdout
    for args in (["-no-such-option"], ["--no-such-option"], ["-font", "9"], ["--f", "1"]):
        proc = run(args, stdin=data, check=False)
        assert proc.returncode == 2 and proc.stdout == b"", args


def test_random_is_accepted_and_colours_stay_the_names():
    data = b"main;parse;strlen 3\nmain;render 2\n"
    assert run(["--random"], stdin=data).stdout == run([], stdin=data).stdout


# --- --cp: palette.map -----------------------------------------------------


def fills(doc):
    return {b[0].split(" (")[0]: b[4] for b in boxes(doc)}


def test_cp_uses_and_writes_back_palette_map(tmp_path):
    data = b"main;foo 3\nmain;bar 2\n"
    plain = fills(run([], stdin=data).stdout)
    pal = tmp_path / "palette.map"
    pal.write_bytes(b"foo->rgb(1,2,3)\nzzz->rgb(9,9,9)\n"
                    b"evil->rgb(1,2,3)\" onload=\"x\nbad->red\nno arrow\n"
                    b"a->b->rgb(4,5,6)\n")
    doc = run(["--cp"], stdin=data, cwd=tmp_path).stdout
    got = fills(doc)
    assert got["foo"] == "rgb(1,2,3)"                          # from the map
    assert got["bar"] == plain["bar"] and got["main"] == plain["main"]
    # written back sorted by name, with every drawn function (the root's
    # name is empty, as flamegraph.pl's); lines that are not colours dropped
    assert pal.read_bytes() == (
        b"->" + plain["all"].encode() + b"\n"
        b"a->b->rgb(4,5,6)\n"
        b"bar->" + plain["bar"].encode() + b"\n"
        b"foo->rgb(1,2,3)\n"
        b"main->" + plain["main"].encode() + b"\n"
        b"zzz->rgb(9,9,9)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["palette.map"], "written atomically"
    # the names the map holds keep their colours in the next graph
    pal.write_bytes(pal.read_bytes().replace(plain["bar"].encode(), b"rgb(7,7,7)"))
    assert fills(run(["--cp"], stdin=b"x;bar 1\n", cwd=tmp_path).stdout)["bar"] == "rgb(7,7,7)"
    assert b"x->" in pal.read_bytes()


def test_cp_starts_a_map_and_only_when_asked_and_drawn(tmp_path):
    data = b"main;foo 3\n"
    run([], stdin=data, cwd=tmp_path)
    assert not (tmp_path / "palette.map").exists()
    proc = run(["--cp"], stdin=b"no counts\n", cwd=tmp_path, check=False)
    assert proc.returncode == 2 and not (tmp_path / "palette.map").exists()
    doc = run(["--cp"], stdin=data, cwd=tmp_path).stdout
    assert doc == run([], stdin=data).stdout     # a new map: the usual colours
    want = fills(doc)
    assert (tmp_path / "palette.map").read_text() == \
        "->%s\nfoo->%s\nmain->%s\n" % (want["all"], want["foo"], want["main"])


def test_cp_keeps_differential_and_grey_boxes_out_of_the_map(tmp_path):
    run(["--cp"], stdin=b"a;--;b 1 2\n", cwd=tmp_path)
    assert (tmp_path / "palette.map").read_bytes() == b""


# --- --nameattr --------------------------------------------------------------


def frames_of(doc):
    """The children of <g id="frames"> as (tag, attributes, tooltip)."""
    lint = subprocess.run(["xmllint", "--noout", "--nonet", "-"], input=doc, capture_output=True)
    assert lint.returncode == 0, lint.stderr.decode(errors="replace")
    root = ET.fromstring(doc)
    out = []
    for el in root.find(f".//{SVG}g[@id='frames']"):
        out.append((el.tag[len(SVG):], dict(el.attrib), el.find(SVG + "title").text))
    return out


def test_nameattr_adds_attributes_links_and_tooltips(tmp_path):
    attrs = tmp_path / "attrs"
    attrs.write_bytes(b"foo\ttitle=<b>hi</b> & more\tid=f1\tclass=hot\t"
                      b"g_extra=style=\"opacity:0.5\" data-x='y\"<'\n"
                      b"bar\thref=https://example.org/?a=1&b=2\ttarget=_blank\tfoo=ignored\n"
                      b"baz\thref=/src/baz.php\ta_extra=rel=\"noopener\"\tid=z\n"
                      b"\tclass=root\n"
                      b"main\ttitle=\n")
    doc = run(["--nameattr", str(attrs)], stdin=b"main;foo 3\nmain;bar 2\nmain;baz 1\n").stdout
    got = {t[2].split(" (")[0] if t[0] != "g" or "id" not in t[1] else t[1]["id"]: t
           for t in frames_of(doc)}
    xlink = "{http://www.w3.org/1999/xlink}href"
    assert got["f1"] == ("g", {"id": "f1", "class": "hot", "style": "opacity:0.5",
                               "data-x": 'y"<'}, "<b>hi</b> & more")
    assert got["bar"] == ("a", {xlink: "https://example.org/?a=1&b=2", "target": "_blank"},
                          "bar (2 samples, 33.33%)")
    assert got["baz"][1] == {xlink: "/src/baz.php", "target": "_top", "rel": "noopener", "id": "z"}
    assert got["all"] == ("g", {"class": "root"}, "all (6 samples, 100%)")   # the root is ""
    assert got["main"][2] == "main (6 samples, 100.00%)"    # an empty title keeps the tooltip
    assert b'<a xlink:href="https://example.org/?a=1&amp;b=2" target="_blank"><title>' in doc


@pytest.mark.parametrize("line,message", [
    (b"foo", b"Invalid format in "),
    (b"", b"Invalid format in "),
    (b"foo\tg_extra=onclick=\"alert(1)\"", b"onclick: an event handler"),
    (b"foo\tg_extra=ONLOAD='x'", b"ONLOAD: an event handler"),
    (b"foo\tg_extra=xmlns:evil=\"x\"", b"a namespace declaration"),
    (b"foo\tg_extra=xlink:href=\"javascript:x\"", b"a link"),
    (b"foo\tid=a\tg_extra=id=\"b\"", b"id: already on the element"),
    (b"foo\tg_extra=a=\"1\" a=\"2\"", b"a: already on the element"),
    (b"foo\thref=x\ta_extra=target=\"y\"", b"target: already on the element"),
    (b"foo\tg_extra=\"><script>alert(1)</script>", b"not name=\"value\" attributes"),
    (b"foo\tg_extra=a=\"1\"/><script>", b"not name=\"value\" attributes"),
    (b"foo\tg_extra=a=unquoted", b"not name=\"value\" attributes"),
    (b"foo\thref= JavaScript:alert(1)", b"href: a script URL"),
    (b"foo\thref=java\x01script:alert(1)", b"href: a script URL"),
    (b"foo\thref=data:text/html,x", b"href: a script URL"),
    (b"foo\tnovalue", b"is not key=value"),
])
def test_nameattr_refuses_what_could_become_markup_or_script(tmp_path, line, message):
    attrs = tmp_path / "attrs"
    attrs.write_bytes(b"ok\tid=fine\n" + line + b"\n")
    proc = run(["--nameattr", str(attrs)], stdin=b"foo 1\n", check=False)
    assert proc.returncode == 2 and proc.stdout == b""
    assert message in proc.stderr, proc.stderr


def test_nameattr_missing_file_fails_without_an_svg(tmp_path):
    proc = run(["--nameattr", str(tmp_path / "none")], stdin=b"foo 1\n", check=False)
    assert proc.returncode == 2 and proc.stdout == b"" and b"none" in proc.stderr


# --- --encoding --------------------------------------------------------------


def test_encoding_is_declared_and_the_document_reads_the_same():
    data = "main;café;\u65e5\u672c 3\n".encode()
    utf8 = run(["--encoding", "UTF-8"], stdin=data).stdout
    assert utf8.startswith(b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n')
    assert utf8.replace(b' encoding="UTF-8"', b"") == run([], stdin=data).stdout
    latin = run(["--encoding", "ISO-8859-1"], stdin=data).stdout
    assert latin.startswith(b'<?xml version="1.0" encoding="ISO-8859-1" standalone="no"?>\n')
    assert max(latin) < 0x80, "pure ASCII: the same bytes in any ASCII-compatible encoding"
    assert b"caf&#xE9;" in latin
    assert [b[0] for b in boxes(latin)] == [b[0] for b in boxes(utf8)]


@pytest.mark.parametrize("enc", ["UTF-16", "UTF-32BE", "no-such-encoding", 'x"y', "a b", "", "IBM037"])
def test_encoding_refuses_names_and_encodings_that_would_break_the_document(enc):
    proc = run(["--encoding", enc], stdin=b"a 1\n", check=False)
    assert proc.returncode == 2 and proc.stdout == b"", enc
    assert b"--encoding" in proc.stderr


# --- --colors chain ------------------------------------------------------------


def test_chain_marks_frames_after_the_first_separator_as_wakers():
    """flamegraph.pl rewrites each stack before merging: split at ';--;',
    frames after the first separator get _[w] (aqua; hidden in the labels),
    separators stay '--' (grey)."""
    doc = run(["--colors", "chain"], stdin=b"target;sched;--;waker1;waker2 5\nt2;x 3\n").stdout
    hue = lambda fill: "aqua" if fill.split(",")[1] == fill.split(",")[2][:-1] and \
        int(fill.split(",")[1]) >= 165 else fill
    got = {b[0].split(" (")[0]: b[4] for b in boxes(doc)}
    assert got["--"] == "rgb(160,160,160)"
    assert hue(got["waker1"]) == "aqua" and hue(got["waker2"]) == "aqua"
    for blue in ("target", "sched", "t2", "x"):
        r, g, b = (int(v) for v in got[blue][4:-1].split(","))
        assert r == g and b >= 205, (blue, got[blue])
    labels = [t.text for t in check_document(doc).iter(SVG + "text")]
    assert "waker1" in labels and not any("_[w]" in (t or "") for t in labels)
    # Perl's split: of "a;--;--;b" only the first is a separator, the
    # second "--" is a waker frame (aqua, not grey)
    two = [b for b in boxes(run(["--colors", "chain"], stdin=b"a;--;--;b 3\n").stdout)
           if b[0].startswith("-- (")]
    assert sorted(b[4] == "rgb(160,160,160)" for b in two) == [False, True]


def test_chain_reversed_marks_from_the_leaf_as_flamegraph_pl():
    """--reverse reverses each stack before the rewrite: in t1;t2;--;w the
    wakers are then t2 and t1."""
    data = b"t1;t2;--;w 3\n"
    doc = run(["--colors", "chain", "--reverse"], stdin=data).stdout
    got = {b[0].split(" (")[0]: b[4] for b in boxes(doc)}
    for waker in ("t1", "t2"):
        r, g, b = (int(v) for v in got[waker][4:-1].split(","))
        assert g == b and g >= 165 and r < 120, (waker, got[waker])
    r, g, b = (int(v) for v in got["w"][4:-1].split(","))
    assert r == g and b >= 205
    # --reversed-output draws the same reversed graph from the same read
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.svg")
        forward = run(["--colors", "chain", "--reversed-output", out], stdin=data).stdout
        assert open(out, "rb").read() == doc
        assert forward == run(["--colors", "chain"], stdin=data).stdout
