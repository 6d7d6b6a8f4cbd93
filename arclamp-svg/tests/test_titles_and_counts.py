"""What a reader of the graphs is told: each graph `generate` draws says in
its title its entry point, its period and bucket, and the number of samples
it is drawn from (forward, reversed and per-function graphs alike), while
`render` keeps a title given with --title exactly as given (flamegraph.pl's
drop-in); and the index shows next to each graph the samples it covers and
next to each XHProf report the runs it is the mean of, read from what is on
disk (the graphs' heads, arclamp-report's summaries), also on a run that
draws nothing."""

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from conftest import EDIT, RUN, read_svgz, stack, root_total

SVG = "{http://www.w3.org/2000/svg}"
HOUR = "2026-11-28_14"
DAY = "2026-11-28"


def title(svg_text):
    """The title text of a graph, from a real XML parse."""
    root = ET.fromstring(svg_text.encode("utf-8"))
    return [t for t in root.iter(SVG + "text") if t.get("id") == "title"][0].text


def samples_text(n):
    return "%s sample%s" % ("{:,}".format(n), "" if n == 1 else "s")


def lines_of(counts, *frames):
    return [stack(*frames, "Leaf%d::run" % i, count=c) for i, c in enumerate(counts)]


# Per entry point: the counts of its lines (sums 12,345, 1 and 2,000).
LOGS = {"index": [12000, 300, 45], "api": [1], "load": [1000, 1000]}


def write_logs(tree):
    for tag, counts in LOGS.items():
        tree.log("hourly", "%s.excimer.%s" % (HOUR, tag), lines_of(counts, RUN))
        tree.log("daily", "%s.excimer.%s" % (DAY, tag), lines_of(counts, RUN))
    every = [c for counts in LOGS.values() for c in counts]
    tree.log("hourly", HOUR + ".excimer.all",
             lines_of(every, RUN) + [stack(RUN, EDIT, count=7)])
    return sum(every) + 7


def test_generated_titles_say_entry_point_period_and_samples(tree):
    total_all = write_logs(tree)
    tree.ok("generate")
    expected = dict((tag, sum(c)) for tag, c in LOGS.items())
    expected["all"] = total_all
    for period, bucket in (("hourly", "2026-11-28 14"), ("daily", DAY)):
        for tag, n in expected.items():
            if tag == "all" and period == "daily":
                continue
            name = "%s.excimer.%s" % (HOUR if period == "hourly" else DAY, tag)
            fwd = read_svgz(tree.svgs / period / (name + ".svgz"))
            rev = read_svgz(tree.svgs / period / (name + ".reversed.svgz"))
            # the original's "MediaWiki - <period> - <time>" first, as before
            base = "MediaWiki - %s - %s - %s" % (period, bucket, tag)
            assert title(fwd) == "%s (%s)" % (base, samples_text(n))
            assert title(rev) == "%s - reversed (%s)" % (base, samples_text(n))
            assert root_total(fwd) == root_total(rev) == n
    fn = read_svgz(tree.svgs / "hourly" / (HOUR + ".excimer.all.fn-EditAction.reversed.svgz"))
    assert title(fn) == "MediaWiki - hourly - 2026-11-28 14 - all - EditAction - reversed " \
                        "(7 samples)"
    assert root_total(fn) == 7


def test_title_template_places_entry_point_and_samples(tree):
    tree.write_config("title: '{samples} of {entrypoint}, {period} {time}'\n")
    tree.log("hourly", HOUR + ".excimer.api", lines_of([1]))
    tree.log("hourly", HOUR + ".excimer.index", lines_of([1500, 2]))
    tree.ok("generate")
    api = read_svgz(tree.svgs / "hourly" / (HOUR + ".excimer.api.svgz"))
    assert title(api) == "1 sample of api, hourly 2026-11-28 14"   # nothing appended
    index = read_svgz(tree.svgs / "hourly" / (HOUR + ".excimer.index.reversed.svgz"))
    assert title(index) == "1,502 samples of index, hourly 2026-11-28 14 - reversed"
    # {name} names the entry point already: only the count is added
    tree.write_config("title: 'Wiki {name}'\n")
    tree.ok("generate", "--force")
    api = read_svgz(tree.svgs / "hourly" / (HOUR + ".excimer.api.svgz"))
    assert title(api) == "Wiki %s.excimer.api (1 sample)" % HOUR


def test_empty_log_says_zero_samples(tree):
    tree.log("hourly", HOUR + ".excimer.index", b"")
    tree.ok("generate")
    svg = read_svgz(tree.svgs / "hourly" / (HOUR + ".excimer.index.svgz"))
    assert title(svg) == "MediaWiki - hourly - 2026-11-28 14 - index (0 samples)"


def render(arclamp_svg, tmp_path, *args):
    src = tmp_path / "in.collapsed"
    src.write_text("a;b 1200\na;c 34\n")
    proc = subprocess.run([arclamp_svg, "render", *args, str(src)], capture_output=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode("utf-8")


def test_render_keeps_a_given_title_exactly(arclamp_svg, tmp_path):
    given = "MediaWiki - daily - 2026-11-22"
    for opts in ([], ["--reverse"], ["--inverted"], ["--reverse", "--inverted", "--colors=blue"]):
        assert title(render(arclamp_svg, tmp_path, "--title", given, *opts)) == given, opts
    out = tmp_path / "f.svg"
    rev = tmp_path / "r.svg"
    render(arclamp_svg, tmp_path, "--title", given, "-o", str(out), "--reversed-output", str(rev))
    assert title(out.read_text()) == title(rev.read_text()) == given
    # and flamegraph.pl's defaults without one
    assert title(render(arclamp_svg, tmp_path)) == "Flame Graph"
    assert title(render(arclamp_svg, tmp_path, "--inverted")) == "Icicle Graph"


# --- the index --------------------------------------------------------------


class IndexRows(HTMLParser):
    """The rows of index.html as lists of cell texts, and the count notes
    (span.count) of each row."""

    def __init__(self):
        super().__init__()
        self.rows, self.counts = [], []
        self._cell = self._count = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
            self.counts.append([])
        elif tag == "td":
            self._cell = ""
        elif tag == "span" and ("class", "count") in attrs:
            self._count = ""

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._count is not None:
            self._count += data

    def handle_endtag(self, tag):
        if tag == "td":
            self.rows[-1].append(self._cell)
            self._cell = None
        elif tag == "span" and self._count is not None:
            self.counts[-1].append(self._count)
            self._count = None


def index_rows(tree):
    p = IndexRows()
    p.feed((tree.root / "index.html").read_text())
    head = ["Entry point", "Time", "Samples", "Graphs", "Log", "Size"]
    rows = [(r, c) for r, c in zip(p.rows, p.counts) if len(r) == len(head)]
    # the Log cell: the file name, then its path on the server
    return {(r[4].split(".log", 1)[0], r[1]): (r, c) for r, c in rows}


def check_index_counts(tree, total_all):
    rows = index_rows(tree)
    for tag, counts in list(LOGS.items()) + [("all", None)]:
        for period, bucket, time in (("hourly", HOUR, "2026-11-28 14"), ("daily", DAY, DAY)):
            if tag == "all" and period == "daily":
                continue
            n = sum(counts) if counts else total_all
            name = "%s.excimer.%s" % (bucket, tag)
            cells, notes = rows[(name, time)]
            assert cells[2] == "{:,}".format(n), (name, cells)
            # the count is the graph's own
            assert root_total(read_svgz(tree.svgs / period / (name + ".svgz"))) == n
            assert notes == (["(7 samples)"] if tag == "all" else []), notes
    index = json.loads((tree.root / "index.json").read_text())
    by_name = {e["name"]: e for e in index["logs"]}
    assert by_name[HOUR + ".excimer.index"]["samples"] == 12345
    assert by_name[HOUR + ".excimer.api"]["samples"] == 1
    entry = by_name[HOUR + ".excimer.all"]
    assert entry["samples"] == total_all
    assert [(f["label"], f["samples"]) for f in entry["functions"]] == [("EditAction", 7)]
    assert entry["report"] is None and entry["report_runs"] is None


def test_index_shows_the_samples_of_every_graph(tree):
    total_all = write_logs(tree)
    proc = tree.ok("generate")
    assert "0 up to date" in proc.stdout.decode()
    check_index_counts(tree, total_all)
    # a run that draws nothing reads them back from the graphs
    proc = tree.ok("generate")
    assert " 0 drawn" in proc.stdout.decode()
    check_index_counts(tree, total_all)


def report_tree(tree, name, summary):
    for kind, text in (("report", "<html></html>"), ("summary", summary)):
        d = tree.root / "reports" / "hourly" / kind
        d.mkdir(parents=True, exist_ok=True)
        (d / (name + (".html" if kind == "report" else ".json"))).write_text(text)


def summary(name, runs):
    return ('{"period": "hourly", "name": "%s", "entrypoint": "%s", "runs": %s, '
            '"incomplete": 0, "bad_lines": 0, "arcs": 3, "arcs_left_out": 0, '
            '"first": 1, "last": 2}\n' % (name, name.rsplit(".", 1)[1], runs))


def test_index_shows_the_runs_of_each_report_from_its_summary(tree):
    """arclamp-report's summaries, as it writes them (its own test runs both
    programs: arclamp-report/tests/test_generate.py); one that is not a
    summary, or a symlink, shows no count and breaks nothing."""
    names = {tag: "%s.excimer.%s" % (HOUR, tag) for tag in ("index", "api", "load", "rest")}
    for tag, name in names.items():
        tree.log("hourly", name, lines_of([3]))
    report_tree(tree, names["index"], summary(names["index"], 1234))
    report_tree(tree, names["api"], summary(names["api"], 1))
    report_tree(tree, names["load"], '<script>alert("runs": 5)</script>{"runs": 5}')
    report_tree(tree, names["rest"], summary(names["rest"], 9))
    link = tree.root / "reports/hourly/summary" / (names["rest"] + ".json")
    os.replace(link, tree.root / "elsewhere.json")
    os.symlink(tree.root / "elsewhere.json", link)
    tree.ok("generate")
    rows = index_rows(tree)
    notes = {tag: rows[(name, "2026-11-28 14")][1] for tag, name in names.items()}
    assert notes == {"index": ["(1,234 runs)"], "api": ["(1 run)"], "load": [], "rest": []}
    page = (tree.root / "index.html").read_text()
    assert "<script" not in page and "alert" not in page
    runs = {e["name"]: e["report_runs"] for e in json.loads((tree.root / "index.json")
                                                            .read_text())["logs"]}
    assert runs == {names["index"]: 1234, names["api"]: 1, names["load"]: None,
                    names["rest"]: None}
