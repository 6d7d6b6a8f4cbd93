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
BIN = os.environ.get("ARCLAMP_SVG_BIN", str(REPO / "build/bin/arclamp-svg"))
SVG = "{http://www.w3.org/2000/svg}"

# Every element and attribute a graph may contain: anything else was injected.
ALLOWED = {
    "svg": {"version", "width", "height", "onload", "viewBox"},
    "desc": set(),
    "defs": set(),
    "linearGradient": {"id", "y1", "y2", "x1", "x2"},
    "stop": {"stop-color", "offset"},
    "style": {"type"},
    "script": {"type"},
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


def run(args, stdin=None, check=True):
    proc = subprocess.run([BIN, "render", *args], input=stdin, capture_output=True, timeout=120)
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
                 ["--no-such-option"], ["--flamechart"]):
        proc = run(args, stdin=b"a 1\n", check=False)
        assert proc.returncode == 2, args
        assert proc.stdout == b""


def test_missing_file_is_reported_and_fails(tmp_path):
    proc = run([str(tmp_path / "missing.log")], check=False)
    assert proc.returncode == 1
    assert b"missing.log" in proc.stderr


def test_minwidth_percent_and_title_like_arc_lamp(tmp_path):
    lines = b"big 9990\ntiny;child 10\n"
    doc = run(["--minwidth=1%", "--title", "MediaWiki - daily - 2026-11-22",
               "--fonttype=monospace", "--fontsize=11"], stdin=lines).stdout
    root = check_document(doc)
    titles = [t.text for t in root.iter(SVG + "title")]
    assert not any(t.startswith("tiny") for t in titles)
    assert root.find(f".//{SVG}text[@id='title']").text == "MediaWiki - daily - 2026-11-22"
    assert b"font-family:monospace; font-size:11px" in doc
