"""arclamp-report's html page, used in a real headless Chromium as a person
uses it: the flat table (top 100, all), sorting by a column, search, a
function's parent/child view, the invert link of a diff; names from the run
stay text. The request-tier pages through nginx with the packaged snippet
(its Content-Security-Policy): from the reports index to a bucket's page,
no console error. Set ARCLAMP_SKIP_BROWSER=1 to skip (the ASan run does)."""

import json
import os
import subprocess

import pytest

from browserkit import chromium, nginx
from testkit import repo_bin, wait_until

pytestmark = pytest.mark.skipif(os.environ.get("ARCLAMP_SKIP_BROWSER") == "1",
                                reason="ARCLAMP_SKIP_BROWSER=1")
BIN = repo_bin("ARCLAMP_REPORT_BIN", "build/bin/arclamp-report")
HOSTILE = '</script><svg onload="document.title=1">'


def write_run(path, run):
    code = "file_put_contents($argv[1], serialize(json_decode($argv[2], true)));"
    subprocess.run(["php", "-n", "-r", code, str(path), json.dumps(run)], check=True)
    return path


def big_run():
    """main() calls 150 functions f0..f149 (f_i takes i+1 µs, called i+1
    times); f0 calls leaf and the hostile name."""
    run = {"main()": {"ct": 1, "wt": 20000}}
    for i in range(150):
        run["main()==>f%d" % i] = {"ct": i + 1, "wt": i + 1}
    run["f0==>leaf"] = {"ct": 3, "wt": 0}
    run["f0==>" + HOSTILE] = {"ct": 1, "wt": 0}
    return run


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


def page(browser, tmp_path, *args):
    out = tmp_path / "report.html"
    subprocess.run([BIN, "html", "-o", str(out), *map(str, args)], check=True, timeout=60)
    browser.get(out.as_uri())
    wait_until(lambda: browser.execute_script("return document.querySelectorAll('#flat tr').length"))
    return browser


def rows(b):
    return b.execute_script(
        "return Array.from(document.querySelectorAll('#flat tr')).slice(1)"
        ".map(r => r.firstChild.textContent)")


def test_flat_table_top_all_sort_search(browser, tmp_path):
    b = page(browser, tmp_path, write_run(tmp_path / "r.xhprof", big_run()))
    assert len(rows(b)) == 100                         # top 100 of 153
    assert rows(b)[0] == "main()"                      # excl wt 20000 - sum
    b.find_element("id", "toggle").click()
    wait_until(lambda: len(rows(b)) == 153)
    # sort by calls, then the other way
    b.execute_script("document.querySelector('th[data-key=\"ct\"]').click()")
    wait_until(lambda: rows(b)[0] == "f149")
    b.execute_script("document.querySelector('th[data-key=\"ct\"]').click()")
    wait_until(lambda: rows(b)[-1] == "f149")
    box = b.find_element("id", "search")
    box.send_keys("f14")
    wait_until(lambda: sorted(rows(b)) == sorted(["f14"] + ["f14%d" % i for i in range(10)]))
    assert b.find_element("id", "count").text == "Showing 11 of 11 functions"
    box.send_keys("9")
    wait_until(lambda: rows(b) == ["f149"])
    assert b.find_element("id", "count").text == "Showing 1 of 1 function"
    assert b.get_log("browser") == []


def test_calls_of_a_mean_run_keep_their_fraction(browser, tmp_path):
    """A bucket's mean run has calls such as 1.5 or 0.25: the page shows
    them as they are (as the callgraph's labels do), not rounded to 2 or 0."""
    run = tmp_path / "mean.json"
    run.write_text(json.dumps({"main()": {"ct": 1, "wt": 1000},
                               "main()==>a": {"ct": 1.5, "wt": 600},
                               "main()==>b": {"ct": 0.25, "wt": 100}}))
    b = page(browser, tmp_path, run)
    calls = b.execute_script(
        "return Object.fromEntries(Array.from(document.querySelectorAll('#flat tr')).slice(1)"
        ".map(r => [r.cells[0].textContent, r.cells[1].textContent]))")
    assert calls == {"main()": "1", "a": "1.5", "b": "0.25"}
    summary = b.find_element("id", "summary").text
    assert "Function calls\n2.75" in summary
    assert b.get_log("browser") == []


def test_parent_child_view_and_names_stay_text(browser, tmp_path):
    b = page(browser, tmp_path, write_run(tmp_path / "r.xhprof", big_run()))
    b.execute_script("location.hash = '#fn=' + encodeURIComponent('f0')")
    wait_until(lambda: b.execute_script("return !document.getElementById('function').hidden"))
    text = b.find_element("id", "function").text
    assert "Parents (1)" in text and "Children (2)" in text
    assert "main()" in text and "leaf" in text and HOSTILE in text
    # the name is text: no element was made of it, the title is untouched
    assert b.execute_script("return document.querySelectorAll('svg').length") == 0
    assert b.title.startswith("XHProf report")
    b.find_element("link text", "« all functions").click()
    wait_until(lambda: b.execute_script("return !document.getElementById('main').hidden"))


def test_diff_page_inverts(browser, tmp_path):
    a = write_run(tmp_path / "a.xhprof", {"main()": {"ct": 1, "wt": 100},
                                            "main()==>x": {"ct": 1, "wt": 40}})
    c = write_run(tmp_path / "b.xhprof", {"main()": {"ct": 1, "wt": 160},
                                            "main()==>x": {"ct": 2, "wt": 90}})
    b = page(browser, tmp_path, "--diff", a, c)
    summary = lambda: b.find_element("id", "summary").text
    assert "+60" in summary()
    b.find_element("id", "invert").click()
    wait_until(lambda: "-60" in summary())
    assert "a.xhprof - " in b.find_element("id", "diffdir").text


def test_tier_pages_through_nginx(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from test_tiers import EVIL, hour, simple, write_table
    data = tmp_path / "data"
    for h in range(1, 4):
        doc = simple(h, 100000.0 * h)
        doc["identities"][EVIL] = doc["identities"]["view"]
        write_table(data, "hourly", hour(h), doc)
    subprocess.run([BIN, "generate", "--data-dir", str(data), "--quiet"], check=True, timeout=60)
    with nginx(data, tmp_path / "nginx") as base:
        b = browser
        b.get(base + "reports/index.html")
        b.find_element(By.LINK_TEXT, "Request tiers").click()
        wait_until(lambda: b.title == "Arc Lamp: request tiers")
        b.find_element(By.LINK_TEXT, "tiers").click()  # the newest bucket first
        wait_until(lambda: b.title == "Request tiers: hourly " + hour(3))
        # hostile identities are text; the trends are drawn (inline SVG, no script)
        assert EVIL in [h.text for h in b.find_elements(By.TAG_NAME, "h2")]
        assert b.execute_script("return document.scripts.length") == 0
        sparks = b.execute_script("return document.querySelectorAll('svg.spark polyline').length")
        assert sparks >= 8
        width = b.execute_script("return document.querySelector('svg.spark')"
                                 ".getBoundingClientRect().width")
        assert width > 20
        b.find_element(By.PARTIAL_LINK_TEXT, "previous bucket").click()
        wait_until(lambda: b.title == "Request tiers: hourly " + hour(2))
        assert b.get_log("browser") == []
