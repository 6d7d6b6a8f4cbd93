"""What a reader of the graphs is told: each graph `generate` draws says in
its title its entry point, its period and bucket, and the number of samples
it is drawn from (forward, reversed and per-function graphs alike), while
`render` keeps a title given with --title exactly as given (flamegraph.pl's
drop-in)."""

import subprocess
import xml.etree.ElementTree as ET

from conftest import EDIT, RUN, read_svgz, stack

SVG = "{http://www.w3.org/2000/svg}"
HOUR = "2026-11-28_14"
DAY = "2026-11-28"


def title(svg_text):
    """The title text of a graph, from a real XML parse."""
    root = ET.fromstring(svg_text.encode("utf-8"))
    return [t for t in root.iter(SVG + "text") if t.get("id") == "title"][0].text


def root_total(svg_text):
    """The root box's count ("all (N samples, 100%)"): what the graph shows."""
    root = ET.fromstring(svg_text.encode("utf-8"))
    for t in root.iter(SVG + "title"):
        if t.text and t.text.startswith("all (") and t.text.endswith(", 100%)"):
            return int(t.text[5:].split(" ")[0].replace(",", ""))
    raise AssertionError("no root box")


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

