"""`make demo` as a newcomer reads it: it ends with a short summary whose
paths exist and one URL, the hottest stacks show where they differ, and
every hostile message it sends is accounted for. Then the URL is used as a
person would, in a headless Chromium through the demo's nginx (the packaged
snippet): the index, a flame graph, the XHProf report of the same hour
(sort, search, a function's parents and children), its callgraph and the
reports index. The demo's history (the two hours and days before this one,
LuaSandbox::callFunction doubled in the later of each pair) gives the index
diffs of the previous hour and day, red where that function grew."""

import gzip
import json
import os
import re
import subprocess
import sys
import urllib.request
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "common" / "tests"))
from browserkit import chromium  # noqa: E402
from testkit import wait_until  # noqa: E402

DEMO = REPO / "build" / "demo"


@pytest.fixture(scope="module")
def demo():
    """scripts/demo's output, its nginx stopped afterwards."""
    r = subprocess.run([str(REPO / "scripts/demo")], capture_output=True, timeout=300)
    try:
        assert r.returncode == 0, r.stderr.decode()[-2000:]
        yield r.stdout.decode()
    finally:
        subprocess.run([str(REPO / "scripts/demo"), "stop"], capture_output=True, timeout=60)


def summary_of(out):
    return out[out.rindex("Arc Lamp demo: done"):]


def test_demo_ends_with_a_summary_a_newcomer_can_follow(demo):
    out = demo
    summary = summary_of(out)
    assert len(summary.splitlines()) <= 17, summary
    urls = re.findall(r"(?:https?|file)://\S+", summary)
    assert len(urls) == 1 and re.fullmatch(r"http://127\.0\.0\.1:\d+/", urls[0]), summary
    with urllib.request.urlopen(urls[0], timeout=10) as resp:
        assert resp.status == 200 and b"Arc Lamp flame graphs" in resp.read()
    assert (DEMO / "all.svg").read_bytes().startswith(b"<?xml")          # plain SVG
    m = re.search(r"Flame graphs: (\d+) \(forward and reversed, (\d+) of them diffs\)", summary)
    assert m, summary
    n, ndiffs = int(m.group(1)), int(m.group(2))
    assert n == len(list((DEMO / "svgs").rglob("*.svgz"))) and n > 0
    # a forward and a reversed diff per entry point (5 and all) per period
    assert ndiffs == len(list((DEMO / "svgs").rglob("*.diff*.svgz"))) == 2 * 6 * 2, summary
    # every request was profiled: 3 of index.php and 3 of api.php, each run
    # counted once in the daily roll-up of its entry point
    runs = int(re.search(r"XHProf runs: +(\d+)", summary).group(1))
    assert runs == 6, summary
    daily = {p.name.split(".")[-2]: json.loads(p.read_text())
             for p in (DEMO / "reports" / "daily" / "summary").glob("*.json")}
    assert daily["index"]["runs"] == 3 and daily["api"]["runs"] == 3, daily
    assert daily["all"]["runs"] == 6, daily
    # no report's function has an inclusive time above main()'s
    assert re.search(r"inclusive time above main\(\)'s: 0\)", summary), summary
    summaries = list((DEMO / "reports").glob("*/summary/*.json"))
    assert summaries and all(json.loads(p.read_text())["inclusive_over_main"] == 0
                             for p in summaries), summaries

    # the three hottest stacks: distinct where they are shown
    hot = out[out.index("Samples from the real PHP requests"):].split("\n\n")[0].splitlines()
    shown = [l.split("  ...;", 1)[1] for l in hot if "  ...;" in l]
    assert len(shown) == 3 and len(set(shown)) == 3, hot

    # each refused hostile message with its counter at 1, the valid one found in the logs
    hostile = out[out.index("The hostile messages"):].split("\n\n")[0]
    for reason in ("empty", "control_char", "bad_count", "empty_frame", "invalid_utf8"):
        assert re.search(r"refused as %s\s+\(counter: 1\)" % reason, hostile), (reason, hostile)
    assert "../../etc/passwd;x 1" in hostile and ".all.log" in hostile, hostile


SVG = "{http://www.w3.org/2000/svg}"


def diff_boxes(svgz):
    """[(function, colour)] of a diff graph's boxes, colour "red", "blue" or
    "other" as the renderer's diff colours: rgb(255,x,x) grew, rgb(x,x,255)
    shrank (arclamp-svg/tests/test_diff.py)."""
    root = ET.fromstring(gzip.decompress(svgz.read_bytes()))
    out = []
    for g in root.iter(SVG + "g"):
        title, rect = g.find(SVG + "title"), g.find(SVG + "rect")
        if title is None or rect is None:
            continue
        r, gr, b = (int(v) for v in re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)",
                                                  rect.get("fill")).groups())
        colour = ("red" if r == 255 and gr == b < 255 else
                  "blue" if b == 255 and r == gr < 255 else "other")
        out.append((title.text.split(" (")[0], colour))
    return out


def test_the_index_links_the_diffs_of_the_previous_hour_and_day(demo):
    summary = summary_of(demo)
    assert "diffs vs the previous hour and day" in summary, summary
    # the buckets before the demo's: the history it wrote (or, when the demo
    # ran across an hour or a day, the daemon's bucket it left complete)
    started = datetime.fromtimestamp((DEMO / "arclamp-log.yaml").stat().st_mtime, timezone.utc)
    ended = datetime.now(timezone.utc)
    history = {"hourly": (started - timedelta(hours=1)).strftime("%Y-%m-%d_%H"),
               "daily": (started - timedelta(days=1)).strftime("%Y-%m-%d")}
    crossed = {"hourly": (ended - timedelta(hours=1)).strftime("%Y-%m-%d_%H"),
               "daily": (ended - timedelta(days=1)).strftime("%Y-%m-%d")}

    index = json.loads((DEMO / "index.json").read_text())
    diffs = {(e["period"], e["entrypoint"]): e for e in index["logs"] if e["diff_svg"]}
    assert {p for p, _ in diffs} == {"hourly", "daily"}, sorted(diffs)
    for entrypoint in ("all", "index", "api", "rest", "load", "RunJobs"):
        for period in ("hourly", "daily"):
            e = diffs[(period, entrypoint)]
            assert e["time"] in (history[period], crossed[period]), (e, history)
            assert e["diff_svg"] == "svgs/%s/%s.diff.svgz" % (period, e["name"])
            assert e["diff_reversed_svg"] == "svgs/%s/%s.diff.reversed.svgz" % (period, e["name"])
    page = (DEMO / "index.html").read_text()
    for period, what in (("hourly", "hour"), ("daily", "day")):
        e = diffs[(period, "all")]
        link = re.search(r'<a href="%s">diff vs previous %s</a>'
                         % (re.escape(e["diff_svg"]), what), page)
        assert link, (e["diff_svg"], page[:3000])
        for graph in (e["diff_svg"], e["diff_reversed_svg"]):
            boxes = diff_boxes(DEMO / graph)
            assert any(c == "red" for _, c in boxes) and any(c == "blue" for _, c in boxes), graph
            if e["time"] == history[period] and graph == e["diff_svg"]:
                # the known change: LuaSandbox::callFunction doubled (red),
                # so the share of the rest shrank (blue); forward, where a
                # change is its leaf's (reversed: the entry point's)
                red = {f for f, c in boxes if c == "red"}
                assert "LuaSandbox::callFunction" in red, (graph, sorted(red)[:10])
                if period == "hourly":
                    # an hour holds its own samples only: nothing else grew
                    assert red == {"LuaSandbox::callFunction"}, (graph, sorted(red)[:10])


@pytest.mark.skipif(os.environ.get("ARCLAMP_SKIP_BROWSER") == "1",
                    reason="ARCLAMP_SKIP_BROWSER=1")
def test_a_newcomer_browses_graphs_and_reports_through_nginx(demo, tmp_path):
    from selenium.webdriver.common.by import By
    base = re.search(r"http://127\.0\.0\.1:\d+/", summary_of(demo)).group(0)
    with chromium(tmp_path / "profile") as b:
        js = b.execute_script
        b.get(base)
        links = {a.text: a.get_attribute("href") for a in b.find_elements(By.TAG_NAME, "a")}
        assert links.get("reports") == base + "reports/index.html", links
        hourly_index = [a.get_attribute("href") for a in b.find_elements(By.TAG_NAME, "a")
                        if "/svgs/hourly/" in (a.get_attribute("href") or "")
                        and a.get_attribute("href").endswith(".index.svgz")]
        report_link = [a.get_attribute("href")
                       for a in b.find_elements(By.LINK_TEXT, "XHProf report")
                       if "/hourly/report/" in a.get_attribute("href")
                       and a.get_attribute("href").endswith(".index.html")]
        assert hourly_index and report_link

        # the flame graph: gzip'ed SVG shown by the browser, its script working
        b.get(hourly_index[0])
        wait_until(lambda: js("return document.readyState === 'complete' && "
                              "document.documentElement.localName === 'svg' && "
                              "document.querySelectorAll('#frames > g').length > 10"),
                   what="the flame graph")
        assert "hourly" in js("return document.getElementById('title').textContent")
        # under the web front's Content-Security-Policy: a click zooms (the
        # script runs), and the browser refused nothing
        assert "'sha256-" in urllib.request.urlopen(hourly_index[0], timeout=10).headers[
            "Content-Security-Policy"]
        from selenium.webdriver.common.action_chains import ActionChains
        deepest = js("var best = null;"   # the highest box wide enough to click: not the root
                     "document.querySelectorAll('#frames > g > rect').forEach(function (r) {"
                     "  if (r.width.baseVal.value > 10 && (!best || r.y.baseVal.value < best.y.baseVal.value))"
                     "    best = r; });"
                     "return best;")
        ActionChains(b).move_to_element(deepest).click().perform()
        wait_until(lambda: "hide" not in (js(
            "return document.getElementById('unzoom').getAttribute('class')") or ""),
            what="the graph to zoom")
        assert [e for e in b.get_log("browser") if e.get("source") == "security"] == []

        # the report of the same hour: sort, search, a function's view
        b.get(base)
        b.find_element(By.LINK_TEXT, "XHProf report")  # the page is back
        report_href = report_link[0]
        [a for a in b.find_elements(By.LINK_TEXT, "XHProf report")
         if a.get_attribute("href") == report_href][0].click()
        wait_until(lambda: js("return document.querySelectorAll('#flat tr').length > 5"),
                   what="the report's table")
        assert "mean of 3 runs" in b.title
        rows = lambda: js("return Array.from(document.querySelectorAll('#flat tr')).slice(1)"
                          ".map(r => r.firstChild.textContent)")
        js("document.querySelector('th[data-key=\"ct\"]').click()")
        calls = lambda: js("return Array.from(document.querySelectorAll('#flat tr')).slice(1)"
                           ".map(r => Number(r.children[1].textContent.replace(/,/g, '')))")
        wait_until(lambda: calls() == sorted(calls(), reverse=True), what="sorted by calls")
        b.find_element(By.ID, "search").send_keys("main")
        wait_until(lambda: rows() and all("main" in r for r in rows()), what="search")
        assert "main()" in rows()
        js("location.hash = '#fn=' + encodeURIComponent('main()')")
        wait_until(lambda: js("return !document.getElementById('function').hidden"),
                   what="main()'s parents and children")
        text = b.find_element(By.ID, "function").text
        assert re.search(r"Children \(\d+\)", text), text
        assert b.get_log("browser") == []

        # its callgraph, a well-formed SVG drawn by Graphviz
        b.get(report_href)
        wait_until(lambda: js("return document.querySelectorAll('#flat tr').length > 5"),
                   what="the report again")
        callgraph = [a.get_attribute("href") for a in b.find_elements(By.TAG_NAME, "a")
                     if "/callgraph/" in (a.get_attribute("href") or "")]
        assert callgraph, "no callgraph link"
        b.get(callgraph[0])
        wait_until(lambda: js("return document.documentElement.localName === 'svg' && "
                              "document.querySelectorAll('g.node').length > 3"),
                   what="the callgraph")
        assert "main()" in js("return Array.from(document.querySelectorAll('g.node text'))"
                              ".map(t => t.textContent).join(' ')")

        # the reports index lists the hours and days with their diffs
        b.get(base + "reports/index.html")
        kinds = {a.text for a in b.find_elements(By.TAG_NAME, "a")}
        assert {"report", "callgraph", "summary"} <= kinds, kinds
