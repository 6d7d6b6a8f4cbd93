"""arclamp-report's command line on real runs: PHP's own serialize() and
json_encode() of XHProf raw arrays (written by the php binary), checked
against numbers computed by hand with xhprof_lib's definitions, and hostile
run files refused with a clear message, no crash (the ASan build runs the
same tests), nothing written.

The run of most tests (wt in µs):
    main()        ct 1  wt 100  cpu 80
    main()==>a    ct 2  wt 60   cpu 50
    a==>b         ct 4  wt 30   cpu 20
    main()==>b    ct 1  wt 10   cpu 10
    b==>b@1       ct 1  wt 5    cpu 5
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common" / "tests"))
from testkit import repo_bin  # noqa: E402

BIN = repo_bin("ARCLAMP_REPORT_BIN", "build/bin/arclamp-report")
SANITIZER_MARKS = (b"ERROR: AddressSanitizer", b"ERROR: LeakSanitizer", b"runtime error:")

RUN = {"main()": {"ct": 1, "wt": 100, "cpu": 80},
       "main()==>a": {"ct": 2, "wt": 60, "cpu": 50},
       "a==>b": {"ct": 4, "wt": 30, "cpu": 20},
       "main()==>b": {"ct": 1, "wt": 10, "cpu": 10},
       "b==>b@1": {"ct": 1, "wt": 5, "cpu": 5}}


def php_write(path, run, how="serialize"):
    """The run as PHP writes it (serialize() or json_encode())."""
    code = "file_put_contents($argv[1], %s(json_decode($argv[2], true)));" % how
    subprocess.run(["php", "-n", "-r", code, str(path), json.dumps(run)], check=True)
    return path


def report(*args, ok=True):
    proc = subprocess.run([BIN, *map(str, args)], capture_output=True, timeout=60)
    for mark in SANITIZER_MARKS:
        assert mark not in proc.stderr, proc.stderr.decode(errors="replace")
    if ok:
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc


def flat(*runs, cmd="flat"):
    return json.loads(report(cmd, "--json", *runs).stdout)


def test_flat_profile_has_xhprof_lib_numbers(tmp_path):
    f = flat(php_write(tmp_path / "r.xhprof", RUN))
    assert f["totals"] == {"ct": 9, "wt": 100, "cpu": 80}
    fn = f["functions"]
    assert fn["main()"] == {"ct": 1, "wt": 100, "excl_wt": 30, "cpu": 80, "excl_cpu": 20}
    assert fn["a"] == {"ct": 2, "wt": 60, "excl_wt": 30, "cpu": 50, "excl_cpu": 30}
    assert fn["b"] == {"ct": 5, "wt": 40, "excl_wt": 35, "cpu": 30, "excl_cpu": 25}
    assert fn["b@1"]["excl_wt"] == 5


def test_json_and_serialize_read_the_same(tmp_path):
    a = flat(php_write(tmp_path / "r.xhprof", RUN))
    b = flat(php_write(tmp_path / "r.json", RUN, "json_encode"))
    assert a == b


def test_several_runs_are_summed_before_the_flat_profile(tmp_path):
    r = php_write(tmp_path / "r.xhprof", RUN)
    f = flat(r, r)
    assert f["functions"]["b"]["wt"] == 80 and f["totals"]["ct"] == 18


def test_diff_is_b_minus_a(tmp_path):
    b = dict(RUN)
    b["main()"] = {"ct": 1, "wt": 150, "cpu": 80}
    b["main()==>a"] = {"ct": 2, "wt": 100, "cpu": 50}
    del b["main()==>b"]
    d = flat(php_write(tmp_path / "a.xhprof", RUN), php_write(tmp_path / "b.xhprof", b),
             cmd="diff")
    assert d["totals"]["wt"] == 50
    assert d["functions"]["a"]["wt"] == 40
    assert d["functions"]["b"] == {"ct": -1, "wt": -10, "excl_wt": -10, "cpu": -10, "excl_cpu": -10}
    assert d["functions"]["main()"]["excl_wt"] == 20  # 50 - (40 - 10)


def test_aggregate_weighted_mean_and_sum(tmp_path):
    b = json.loads(json.dumps(RUN))
    b["main()"]["wt"] = 300
    ra, rb = php_write(tmp_path / "a.xhprof", RUN), php_write(tmp_path / "b.xhprof", b)
    mean = json.loads(report("aggregate", "--json", ra, rb).stdout)
    assert mean["main()"]["wt"] == 200 and mean["a==>b"]["ct"] == 4
    weighted = json.loads(report("aggregate", "--json", "--weights", "1,3", ra, rb).stdout)
    assert weighted["main()"]["wt"] == (100 + 3 * 300) / 4
    total = json.loads(report("aggregate", "--json", "--sum", ra, rb).stdout)
    assert total["main()"]["wt"] == 400 and total["a==>b"]["ct"] == 8
    bad = report("aggregate", "--weights", "1,x", ra, rb, ok=False)
    assert bad.returncode == 2 and b"--weights" in bad.stderr


def test_prune_reparents_under_pruned(tmp_path):
    run = dict(RUN)
    run["b@1==>big"] = {"ct": 1, "wt": 30, "cpu": 1}
    p = json.loads(report("prune", "--json", "--percent", "20",
                          php_write(tmp_path / "r.xhprof", run)).stdout)
    assert "b==>b@1" not in p and "b@1==>big" not in p
    assert p["__pruned__()==>big"]["wt"] == 30
    assert p["main()==>a"] == RUN["main()==>a"]


def test_text_table_puts_the_heaviest_exclusive_first(tmp_path):
    out = report("flat", php_write(tmp_path / "r.xhprof", RUN)).stdout.decode()
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["function", "calls", "wt"]
    assert lines[1].split()[0] == "b"


def test_names_with_markup_stay_data(tmp_path):
    run = {"main()": {"ct": 1, "wt": 10},
           'main()==></script><svg onload="x">': {"ct": 1, "wt": 5}}
    f = flat(php_write(tmp_path / "r.xhprof", run))
    assert f["functions"]['</script><svg onload="x">']["wt"] == 5


HOSTILE = {
    "truncated": b'a:1:{s:6:"main()";a:1:{s:2:"ct";i:1;}',
    "length_past_end": b'a:1:{s:600:"main()";a:0:{}}',
    "wrong_count": b'a:3:{s:6:"main()";a:0:{}}',
    "deep_nesting": b'a:1:{s:6:"main()";a:1:{s:2:"ct";' + b"a:1:{i:0;" * 5000 + b"}",
    "huge_number": b'a:1:{s:6:"main()";a:1:{s:2:"ct";i:999999999999999999999999;}}',
    "object": b'O:8:"stdClass":0:{}',
    "no_main": b'a:1:{s:3:"a==>b";a:1:{s:2:"ct";i:1;}}',
    "json_garbage": b'{"main()": {"ct": "x"}}',
    "json_deep": b'{"main()": {"ct": {"a": {"b": 1}}}}',
    "empty": b"",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_runs_are_refused_clearly(tmp_path, name):
    path = tmp_path / (name + ".xhprof")
    path.write_bytes(HOSTILE[name])
    before = sorted(os.listdir(tmp_path))
    proc = report("flat", "--json", path, ok=False)
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert proc.stderr.startswith(b"arclamp-report: " + str(path).encode() + b": ")
    assert sorted(os.listdir(tmp_path)) == before


def test_too_many_arcs_are_refused(tmp_path):
    run = {"main()": {"ct": 1, "wt": 1}}
    run.update({"main()==>f%d" % i: {"ct": 1, "wt": 1} for i in range(2000)})
    path = php_write(tmp_path / "big.xhprof", run)
    proc = report("flat", "--max-arcs", "1000", path, ok=False)
    assert proc.returncode == 1 and b"at most 1000" in proc.stderr
    assert len(flat(path)["functions"]) == 2001


def test_missing_file_and_bad_usage(tmp_path):
    proc = report("flat", tmp_path / "nope.xhprof", ok=False)
    assert proc.returncode == 1 and b"No such file" in proc.stderr
    assert report("diff", tmp_path / "one", ok=False).returncode == 2
    assert report("bogus", ok=False).returncode == 2
    assert report("--help").stdout.startswith(b"Usage: arclamp-report")
    # help2man (the Debian package's manual page) reads it
    version = (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
    assert report("--version").stdout == f"arclamp-report {version}\n".encode()


def svg_of(*args):
    import xml.etree.ElementTree as ET
    out = report("callgraph", *args).stdout
    return ET.fromstring(out), out   # well-formed, or this raises


SVG = "{http://www.w3.org/2000/svg}"


def nodes(root):
    """Graphviz's node groups: {its DOT name ("N3", "C3"): its text lines}."""
    return {g.find(SVG + "title").text: [t.text for t in g.findall(SVG + "text")]
            for g in root.iter(SVG + "g") if g.get("class") == "node"}


def edges(root):
    """Graphviz's edge groups: {("C3", "N3"): its label lines}."""
    return {tuple(g.find(SVG + "title").text.split("->")):
            [t.text for t in g.findall(SVG + "text")]
            for g in root.iter(SVG + "g") if g.get("class") == "edge"}


def node_titles(root):
    """The functions drawn (the first line of each box; placeholders "C<n>" left out)."""
    return sorted(lines[0] for name, lines in nodes(root).items() if name.startswith("N"))


def placeholders(root):
    return {name: lines for name, lines in nodes(root).items() if name.startswith("C")}


def test_callgraph_threshold_critical_path_and_focus(tmp_path):
    r = php_write(tmp_path / "r.xhprof", RUN)
    root, _ = svg_of(r)
    assert node_titles(root) == ["a", "b", "b@1", "main()"]
    assert placeholders(root) == {}                   # nothing was cut
    assert not [l for l in edges(root).values() if "callers" in " ".join(l)]
    root, _ = svg_of("--threshold", "0.1", r)         # b@1 is 5% of main()
    assert node_titles(root) == ["a", "b", "main()"]
    assert placeholders(root) == {}                   # a cut callee is no cut caller
    dot = report("callgraph", "--dot", r).stdout.decode()
    # the critical path main() -> a -> b -> b@1 is red, main() -> b is not
    red = [l for l in dot.splitlines() if "->" in l and "color=red" in l]
    assert len(red) == 3
    assert '  N0 -> N2 [label="1 call"];' in dot.splitlines()   # main() -> b: plain
    assert '"4 calls"' in dot
    root, _ = svg_of("--focus", "b", r)
    assert node_titles(root) == ["a", "b", "b@1", "main()"]   # b's parents and child
    root, _ = svg_of("--focus", "b@1", r)
    assert node_titles(root) == ["b", "b@1"]


def test_callgraph_of_a_dense_run_is_bounded(tmp_path):
    """150 functions calling each other at random (thousands of arcs): the
    heaviest 120 boxes and 300 arrows are drawn (dot's layout time explodes
    past that), the critical path among them, and the SVG is well-formed."""
    import random
    rnd = random.Random(7)
    run = {"main()": {"ct": 1, "wt": 10**7}}
    for i in range(150):
        run["main()==>f%d" % i] = {"ct": 1, "wt": 10**7 // 151}
    for _ in range(5000):
        a, b = rnd.randrange(150), rnd.randrange(150)
        if a != b:
            run["f%d==>f%d" % (a, b)] = {"ct": 2, "wt": rnd.randint(10**5, 10**6)}
    r = tmp_path / "dense.json"
    r.write_text(json.dumps(run))
    dot = report("callgraph", "--dot", "--threshold", "0", r).stdout.decode().splitlines()
    boxes = [l for l in dot if l.startswith("  N") and "->" not in l]
    arrows = [l for l in dot if l.startswith("  N") and "->" in l]
    assert len(boxes) == 120 and len(arrows) == 300, (len(boxes), len(arrows))
    assert any("color=red" in l for l in arrows)
    # what the caps left out is said, at most one placeholder per box
    cut = [l for l in dot if l.startswith("  C") and "->" not in l]
    assert 0 < len(cut) <= 120
    assert any("beyond the 120-box limit" in l for l in cut)
    assert any("beyond the 300-arrow limit" in l for l in cut)
    root, _ = svg_of("--threshold", "0", r)
    assert len(node_titles(root)) == 120


def test_callgraph_names_are_escaped(tmp_path):
    run = {"main()": {"ct": 1, "wt": 10},
           'main()==></text><script>alert(1)</script>"\\\x01': {"ct": 1, "wt": 9}}
    root, raw = svg_of(php_write(tmp_path / "r.xhprof", run))
    assert b"<script" not in raw
    assert any("</text><script>alert(1)</script>" in t for t in node_titles(root))


def test_html_links_to_its_callgraph(tmp_path):
    out = tmp_path / "p.html"
    report("html", "--callgraph-link", 'cg.svg?x="1"', "-o", out,
           php_write(tmp_path / "r.xhprof", RUN))
    page = out.read_text()
    assert '<a id="callgraph" href="cg.svg?x=&quot;1&quot;">Callgraph</a>' in page


def cut_callers_run():
    """call_user_func@1 (4.5% of main()) is called by ten functions of 0.5%
    each: at the 1% threshold they are left out, it is not. c is called by a
    (kept) and by y (0.5%, left out)."""
    run = {"main()": {"ct": 1, "wt": 100000}, "main()==>a": {"ct": 1, "wt": 80000},
           "a==>c": {"ct": 2, "wt": 20000}, "main()==>y": {"ct": 1, "wt": 500},
           "y==>c": {"ct": 1, "wt": 400}}
    for i in range(10):
        run["main()==>x%d" % i] = {"ct": 1, "wt": 500}
        run["x%d==>call_user_func@1" % i] = {"ct": 1, "wt": 450}
    return run


def test_callgraph_says_which_callers_were_cut(tmp_path):
    r = tmp_path / "cut.json"
    r.write_text(json.dumps(cut_callers_run()))
    root, _ = svg_of(r)
    assert node_titles(root) == ["a", "c", "call_user_func@1", "main()"]
    boxes = {lines[0]: name for name, lines in nodes(root).items() if name.startswith("N")}
    ph = placeholders(root)
    arrows = edges(root)
    cuf, c = boxes["call_user_func@1"], boxes["c"]
    # one placeholder per box with callers left out, its dashed arrow into the box
    assert ph == {"C" + cuf[1:]: ["10 callers below the 1% threshold", "Inc: 4.500 ms (4.5%)"],
                  "C" + c[1:]: ["1 caller below the 1% threshold", "Inc: 0.400 ms (0.4%)"]}
    assert arrows[("C" + cuf[1:], cuf)] == ["10 calls"]
    assert arrows[("C" + c[1:], c)] == ["1 call"]
    assert arrows[(boxes["a"], c)] == ["2 calls"]
    # no box floats: each but main() has an arrow in
    into = {dst for _src, dst in arrows}
    assert set(boxes.values()) - into == {boxes["main()"]}
    dot = report("callgraph", "--dot", r).stdout.decode()
    cut_arrows = [l for l in dot.splitlines() if l.startswith("  C") and "->" in l]
    assert len(cut_arrows) == 2 and all("style=dashed" in l for l in cut_arrows)
    # at 0.1% nothing is cut: no placeholder
    root, _ = svg_of("--threshold", "0.001", r)
    assert len(node_titles(root)) == 15 and placeholders(root) == {}
    # around a focus, the callers of its parents are outside it
    root, _ = svg_of("--focus", "c", r)
    assert node_titles(root) == ["a", "c", "y"]
    assert sorted(placeholders(root).values()) == [["1 caller outside the focus",
                                                    "Inc: 0.500 ms (0.5%)"],
                                                   ["1 caller outside the focus",
                                                    "Inc: 80.000 ms (80.0%)"]]


def test_callgraph_labels_say_call_and_calls(tmp_path):
    """Singular for one, plural otherwise, also for the fractions of a mean
    run (arclamp-report generate draws the mean of a bucket's runs)."""
    run = {"main()": {"ct": 1, "wt": 1000}, "main()==>a": {"ct": 1.5, "wt": 600},
           "a==>b": {"ct": 1, "wt": 300}, "main()==>d": {"ct": 0.25, "wt": 100}}
    r = tmp_path / "mean.json"
    r.write_text(json.dumps(run))
    root, _ = svg_of(r)
    labels = sorted(l[0] for l in edges(root).values())
    assert labels == ["0.25 calls", "1 call", "1.5 calls"]
    totals = {lines[0]: lines[-1] for name, lines in nodes(root).items()}
    assert totals == {"main()": "1 total call", "a": "1.5 total calls", "b": "1 total call",
                      "d": "0.25 total calls"}
