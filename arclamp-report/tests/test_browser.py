"""arclamp-report's html page, used in a real headless Chromium as a person
uses it: the flat table (top 100, all), sorting by a column, search, a
function's parent/child view, the invert link of a diff; names from the run
stay text. The pages of `generate` through nginx with the packaged snippet
(build/nginx/arclamp.conf): each kind of page carries its
Content-Security-Policy, the report and diff pages work under theirs
(report.js allowed by its hash) and run nothing slipped into them; the
request-tier pages from the reports index to a bucket's page, no script, no
console error. Set ARCLAMP_SKIP_BROWSER=1 to skip (the ASan run does)."""

import json
import os
import subprocess

import pytest

from browserkit import (assert_csp_fences, chromium, csp_of, csp_violations, nginx,
                        record_csp_violations, script_hash)
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
        for path in ("reports/index.html", "reports/tiers/index.html",
                     "reports/tiers/hourly/%s.html" % hour(2)):
            policy = csp_of(base + path)
            assert_csp_fences(policy, path)
            assert policy["script-src"] == {"'none'"}, path


INJECTED = ("<script>document.body.setAttribute('data-injected', '1')</script>"
            "<svg onload=\"document.body.setAttribute('data-onload', '1')\"></svg>")


def page_scripts(html):
    """The texts of the scripts a page would run (not its JSON: data)."""
    import re
    return [m.group(2) for m in re.finditer(r"<script( [^>]*)?>(.*?)</script>", html, re.S)
            if 'type="application/json"' not in (m.group(1) or "")]


@pytest.fixture
def served_reports(tmp_path):
    """generate's pages of two hours (so a diff), a report page with a script
    and a handler slipped in, served by nginx: (base URL, the two hours'
    page name)."""
    from test_generate import RUN_A, RUN_B, run_lines, write_log
    data = tmp_path / "data"
    write_log(data, "hourly", "2026-11-26_02.excimer.index", run_lines("r1", RUN_A))
    write_log(data, "hourly", "2026-11-26_03.excimer.index", run_lines("r2", RUN_B))
    subprocess.run([BIN, "generate", "--data-dir", str(data), "--quiet"], check=True, timeout=60)
    report = data / "reports" / "hourly" / "report"
    html = (report / "2026-11-26_03.excimer.index.html").read_text()
    (report / "tampered.html").write_text(html.replace("<h1>", INJECTED + "<h1>", 1))
    with nginx(data, tmp_path / "nginx") as base:
        yield base + "reports/hourly/", "2026-11-26_03.excimer.index", data


def test_report_pages_policy_per_page_type(served_reports):
    """The report and diff pages may run report.js, by hash, and nothing
    else; the callgraph, the summary and the index run none."""
    base, name, data = served_reports
    for kind in ("report", "diff"):
        scripts = page_scripts((data / "reports/hourly" / kind / (name + ".html")).read_text())
        assert len(scripts) == 1, kind      # report.js: the run's data is JSON
        policy = csp_of(base + "%s/%s.html" % (kind, name))
        assert_csp_fences(policy, kind)
        # the hash the Makefile wrote is the page's script's, as the browser reads it
        assert policy["script-src"] == {script_hash(scripts[0])}, kind
    for path in ("callgraph/%s.svg" % name, "summary/%s.json" % name, "../index.html"):
        policy = csp_of(base + path)
        assert_csp_fences(policy, path)
        assert policy["script-src"] == {"'none'"}, path


def test_report_pages_work_under_the_policy_and_run_nothing_slipped_in(browser, served_reports):
    base, name, _ = served_reports
    b = browser
    record_csp_violations(b)
    b.get_log("browser")

    def open_page(path):
        b.get(base + path)
        wait_until(lambda: b.execute_script("return document.querySelectorAll('#flat tr').length"))

    def sort_and_search():
        b.execute_script("document.querySelector('th[data-key=\"ct\"]').click()")
        wait_until(lambda: rows(b)[0] == "b")            # 8 calls
        b.find_element("id", "search").send_keys("mai")
        wait_until(lambda: rows(b) == ["main()"])

    open_page("report/%s.html" % name)
    sort_and_search()
    assert csp_violations(b) == ([], [])
    b.find_element("id", "callgraph").click()
    wait_until(lambda: b.current_url.endswith("callgraph/%s.svg" % name) and b.execute_script(
        "return document.readyState === 'complete'"))
    assert csp_violations(b) == ([], [])
    open_page("diff/%s.html" % name)
    summary = lambda: b.find_element("id", "summary").text
    assert "+200" in summary()
    b.find_element("id", "invert").click()
    wait_until(lambda: "-200" in summary())
    assert csp_violations(b) == ([], [])

    open_page("report/tampered.html")
    sort_and_search()              # report.js still runs...
    for attr in ("data-injected", "data-onload"):   # ...and nothing else
        assert b.execute_script("return document.body.getAttribute(arguments[0])", attr) is None
    events, logged = csp_violations(b)
    assert sorted(e.split()[0] for e in events) == ["script-src-attr", "script-src-elem"], events
    assert len(logged) == 2 and all("Content Security Policy" in m for m in logged), logged
