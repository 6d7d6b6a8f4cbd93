"""The interactive flame graph, driven in a real headless Chromium.

arclamp-svg embeds flamegraph.js in every SVG; these tests render known
collapsed stacks with the real binary (ARCLAMP_SVG_BIN, default
build/bin/arclamp-svg), open the result as a file:// URL and use it the way a
person does: hover, click to zoom, search through the JS prompt, Ctrl-F,
reload with the state in the URL, follow the links of the generated index
served by Debian's nginx with the packaged snippet (build/nginx/arclamp.conf),
whose Content-Security-Policy lets a graph run flamegraph.js and nothing else.

Expected values are computed here from the input, independently of the
renderer's arithmetic. Chromium is started directly (not through Debian's
wrapper script, which enables remote extensions) with background networking
off and every host name resolving to nothing, so nothing but 127.0.0.1 is
ever contacted. Every wait is bounded.

Set ARCLAMP_SKIP_BROWSER=1 to skip this file (the ASan run does).
"""

import contextlib
import gzip
import os
import re
import subprocess
import urllib.parse
import xml.etree.ElementTree as ET

import pytest

from browserkit import (assert_csp_fences, chromium, csp_of, csp_violations, fetch,  # common/tests
                        nginx, record_csp_violations, script_hash)
from testkit import wait_until

pytestmark = pytest.mark.skipif(os.environ.get("ARCLAMP_SKIP_BROWSER") == "1",
                                reason="ARCLAMP_SKIP_BROWSER=1")

WAIT = 15.0             # upper bound of any single wait
SEARCH_RGB = "rgb(230, 0, 230)"

# Names chosen so that: `b` and `c` occur twice at different places (nested
# matches), `B` differs from `b` only in case (ignore-case), and one name is
# too long for its box until zoomed. Total 14 samples: no percentage below
# lands on a rounding tie.
LONG = "Database::queryWithLongName"
STACKS = [
    ("a;b;c", 3),
    ("a;b;" + LONG, 1),
    ("a;e", 4),
    ("a;e;B", 2),
    ("f;b;c", 1),
    ("g", 3),
]


# --------------------------------------------------------------------------
# Expected values from the input


def matched_text(pattern, stacks=STACKS, prefix=(), flags=0):
    """`Matched: X%` for a search, relative to the box at stack `prefix`.

    The union of matching boxes (nested ones once) covers exactly the samples
    of the stacks that have a matching frame at or below the zoomed box."""
    rx = re.compile(pattern, flags)
    total = hit = 0
    for stack, n in stacks:
        frames = stack.split(";")
        if tuple(frames[:len(prefix)]) != tuple(prefix):
            continue
        total += n
        if any(rx.search(f) for f in frames[max(len(prefix) - 1, 0):]):
            hit += n
    pct = 100.0 * hit / total
    return "Matched: %s%%" % ("100" if hit == total else "%.1f" % pct)


def samples(stacks, prefix):
    """Samples in the box at stack `prefix` (a tuple of frame names)."""
    return sum(n for s, n in stacks if tuple(s.split(";")[:len(prefix)]) == tuple(prefix))


# --------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def renderer(arclamp_svg):
    return arclamp_svg


@pytest.fixture
def render(renderer, tmp_path):
    """render(stacks, *options) -> Path of the SVG `arclamp-svg render` wrote."""
    def run(stacks=STACKS, *options, name="graph.svg"):
        src = tmp_path / (name + ".txt")
        src.write_text("".join("%s %s\n" % (s, n) for s, n in stacks))
        out = tmp_path / name
        with open(out, "wb") as f:
            proc = subprocess.run([renderer, "render", *options, str(src)], stdout=f,
                                  stderr=subprocess.PIPE, timeout=60)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        ET.parse(out)  # well-formed, or the browser would show an error page
        return out
    return run


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


@pytest.fixture
def page(browser):
    """The browser, with any prompt left open by a failed test closed after
    each test, and no script error allowed in the console."""
    from selenium.common.exceptions import NoAlertPresentException
    browser.get_log("browser")   # drop what earlier tests left
    yield browser
    with contextlib.suppress(NoAlertPresentException):
        browser.switch_to.alert.dismiss()
    errors = [e for e in browser.get_log("browser")
              if e.get("level") == "SEVERE" and e.get("source") != "network"]
    assert not errors, "script errors in the page: %r" % errors


# --------------------------------------------------------------------------
# Page helpers

READ_FRAMES = """
return Array.prototype.map.call(document.querySelectorAll('#frames > g'), function (g, i) {
    var r = g.querySelector('rect'), t = g.querySelector('text');
    return {i: i, title: g.querySelector('title').textContent,
            x: parseFloat(r.getAttribute('x')), y: parseFloat(r.getAttribute('y')),
            w: parseFloat(r.getAttribute('width')),
            ax: r.getAttribute('x'), ay: r.getAttribute('y'), aw: r.getAttribute('width'),
            fill: getComputedStyle(r).fill, afill: r.getAttribute('fill'),
            cls: g.getAttribute('class') || '', shown: getComputedStyle(g).display !== 'none',
            label: t ? t.textContent : '', tx: t ? t.getAttribute('x') : null};
});
"""


def frames(driver):
    """Every box, keyed by (function name, samples): unique in STACKS."""
    out = {}
    for f in driver.execute_script(READ_FRAMES):
        m = re.match(r"^(.*) \(([0-9,.]+) ", f["title"])
        assert m, "title %r is not 'NAME (N samples, P%%)'" % f["title"]
        key = (m.group(1), int(m.group(2).replace(",", "")))
        assert key not in out, "two boxes %r" % (key,)
        out[key] = f
    return out


def box(name, prefix):
    """The key of the box for the stack prefix ending in `name`."""
    return (name, samples(STACKS, prefix))


B = box("b", ("a", "b"))        # a;b  (4 samples)
A = box("a", ("a",))
ALL = ("all", sum(n for _, n in STACKS))
E = box("e", ("a", "e"))
UPPER_B = box("B", ("a", "e", "B"))
C = box("c", ("a", "b", "c"))
LONGBOX = box(LONG, ("a", "b", LONG))
F = box("f", ("f",))
FB = box("b", ("f", "b"))
G = box("g", ("g",))


def wait_for(pred, what, timeout=WAIT):
    return wait_until(pred, timeout=timeout, what=what)


def rect_element(driver, key):
    i = frames(driver)[key]["i"]
    return driver.execute_script(
        "return document.querySelectorAll('#frames > g')[arguments[0]].querySelector('rect')", i)


def click_box(driver, key):
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).move_to_element(rect_element(driver, key)).click().perform()


def click_id(driver, ident):
    from selenium.webdriver.common.by import By
    driver.find_element(By.ID, ident).click()


def text_of(driver, ident):
    return driver.execute_script("return document.getElementById(arguments[0]).textContent", ident)


def classes(driver, ident):
    return (driver.execute_script(
        "return document.getElementById(arguments[0]).getAttribute('class')", ident)
        or "").split()


def answer_prompt(driver, text):
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    alert = WebDriverWait(driver, WAIT).until(EC.alert_is_present())
    if text is None:
        alert.dismiss()
    else:
        alert.send_keys(text)
        alert.accept()


def query(driver):
    return urllib.parse.parse_qs(driver.execute_script("return location.search")[1:])


def full_width(driver):
    return float(driver.execute_script(
        "return document.documentElement.getAttribute('width')"))


def open_svg(driver, path, query_string=""):
    driver.get(path.as_uri() + query_string)
    wait_for(lambda: driver.execute_script(
        "return document.readyState === 'complete' && !!document.getElementById('frames')"),
        "the graph to load")


def assert_zoomed_to_b(driver, before):
    """The view after zooming into a;b (see test_click_zooms_and_reset_restores)."""
    now = frames(driver)
    width = full_width(driver)
    span = width - 20       # xpad 10 on each side
    b = now[B]
    assert b["x"] == pytest.approx(10, abs=0.5) and b["w"] == pytest.approx(span, abs=0.5)
    assert b["cls"] == "" and b["shown"]
    # Descendants scaled by the same ratio, in the same order.
    ratio = span / before[B]["w"]
    for key in (C, LONGBOX):
        assert now[key]["shown"] and "hide" not in now[key]["cls"]
        assert now[key]["w"] == pytest.approx(before[key]["w"] * ratio, rel=0.01)
        assert now[key]["x"] == pytest.approx(10 + (before[key]["x"] - before[B]["x"]) * ratio,
                                              abs=1.0)
    # Ancestors: full width, faded.
    for key in (A, ALL):
        assert now[key]["cls"].split() == ["parent"], key
        assert now[key]["shown"]
        assert now[key]["x"] == pytest.approx(10, abs=0.5)
        assert now[key]["w"] == pytest.approx(span, abs=0.5)
    # Everything else hidden.
    for key in (E, UPPER_B, F, FB, G):
        assert "hide" in now[key]["cls"].split(), key
        assert not now[key]["shown"], key
    assert "hide" not in classes(driver, "unzoom")
    # Labels refitted: the long name, cut (or empty) at first, now fits.
    assert before[LONGBOX]["label"] != LONG
    assert now[LONGBOX]["label"] == LONG


# --------------------------------------------------------------------------
# Tests


def test_click_zooms_and_reset_restores(page, render):
    open_svg(page, render())
    before = frames(page)
    assert "hide" in classes(page, "unzoom")
    assert before[ALL]["w"] == pytest.approx(full_width(page) - 20, abs=0.5)

    click_box(page, B)
    assert_zoomed_to_b(page, before)

    # Clicking a faded ancestor zooms out to it.
    click_box(page, A)
    now = frames(page)
    assert now[A]["cls"] == "" and now[A]["w"] == pytest.approx(full_width(page) - 20, abs=0.5)
    assert now[ALL]["cls"] == "parent"
    assert now[E]["shown"] and now[B]["shown"] and not now[F]["shown"]
    assert now[B]["w"] == pytest.approx(before[B]["w"] * before[ALL]["w"] / before[A]["w"],
                                        rel=0.01)

    # Reset Zoom restores the renderer's exact attributes and labels.
    click_id(page, "unzoom")
    assert frames(page) == before
    assert "hide" in classes(page, "unzoom")


def test_click_on_root_resets_zoom(page, render):
    open_svg(page, render())
    before = frames(page)
    click_box(page, E)
    assert not frames(page)[B]["shown"]
    click_box(page, ALL)
    assert frames(page) == before
    assert "hide" in classes(page, "unzoom")
    assert "x" not in query(page)


def test_icicle_graph_zooms_downwards(page, render):
    open_svg(page, render(STACKS, "--inverted"))
    before = frames(page)
    # The root is at the top now, children below it.
    assert before[ALL]["y"] < before[A]["y"] < before[B]["y"] < before[C]["y"]
    click_box(page, B)
    assert_zoomed_to_b(page, before)
    click_id(page, "unzoom")
    assert frames(page) == before


def test_hover_shows_details(page, render):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    open_svg(page, render())
    title = frames(page)[E]["title"]
    assert title.startswith("e (6 samples, 42.86%")
    ActionChains(page).move_to_element(rect_element(page, E)).perform()
    assert text_of(page, "details") == "Function: " + title
    # Leaving the box clears it.
    ActionChains(page).move_to_element(page.find_element(By.ID, "title")).perform()
    assert text_of(page, "details").strip() == ""


def test_search_button_highlights_and_counts_nested_once(page, render):
    open_svg(page, render())
    before = frames(page)
    click_id(page, "search")
    answer_prompt(page, "^(a|b)$")
    now = frames(page)
    for key in (A, B, FB):
        assert now[key]["fill"] == SEARCH_RGB, key
    for key in (ALL, E, UPPER_B, C, F, G):
        assert now[key]["fill"] == before[key]["fill"] != SEARCH_RGB, key
    # a (10 samples) contains b (4): counted once, 11 of 14 samples.
    assert text_of(page, "matched") == matched_text("^(a|b)$") == "Matched: 78.6%"
    assert text_of(page, "search") == "Reset Search"
    assert "show" in classes(page, "search")

    # The button now resets: original fills back, Matched cleared.
    click_id(page, "search")
    assert frames(page) == before
    assert text_of(page, "search") == "Search"
    assert "show" not in classes(page, "search")
    assert text_of(page, "matched").strip() == ""
    assert "s" not in query(page)


def test_ignore_case_toggle_rematches(page, render):
    open_svg(page, render())
    click_id(page, "search")
    answer_prompt(page, "^b$")
    assert text_of(page, "matched") == matched_text("^b$") == "Matched: 35.7%"
    assert frames(page)[UPPER_B]["fill"] != SEARCH_RGB

    click_id(page, "ignorecase")
    assert "show" in classes(page, "ignorecase")
    assert frames(page)[UPPER_B]["fill"] == SEARCH_RGB
    assert text_of(page, "matched") == matched_text("^b$", flags=re.I) == "Matched: 50.0%"
    assert query(page).get("i") == ["1"]

    click_id(page, "ignorecase")
    assert "show" not in classes(page, "ignorecase")
    assert frames(page)[UPPER_B]["fill"] != SEARCH_RGB
    assert text_of(page, "matched") == "Matched: 35.7%"


def test_function_name_is_title_up_to_last_parenthesis(page, render):
    # PHP closures and some method names hold " (" themselves.
    stacks = [("main;Foo::bar (baz)", 2), ("main;qux", 2)]
    open_svg(page, render(stacks))
    click_id(page, "search")
    answer_prompt(page, r"\(baz\)$")
    key = ("Foo::bar (baz)", 2)
    assert frames(page)[key]["fill"] == SEARCH_RGB
    assert text_of(page, "matched") == matched_text(r"\(baz\)$", stacks) == "Matched: 50.0%"


def test_keyboard_shortcuts(page, render):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    open_svg(page, render())

    def chord(*keys):
        chain = ActionChains(page)
        for k in keys[:-1]:
            chain.key_down(k)
        chain.send_keys(keys[-1])
        for k in reversed(keys[:-1]):
            chain.key_up(k)
        chain.perform()

    # Ctrl-F opens our prompt instead of the browser's find bar (the default
    # action is cancelled; this listener runs after the graph's own).
    page.execute_script("window.addEventListener('keydown', function (e) {"
                        " window.lastKeyPrevented = e.defaultPrevented; });")
    chord(Keys.CONTROL, "f")
    answer_prompt(page, "c")
    wait_for(lambda: page.execute_script("return window.lastKeyPrevented === true"),
             "Ctrl-F's default action to be prevented")
    assert frames(page)[C]["fill"] == SEARCH_RGB
    assert text_of(page, "matched") == matched_text("c")
    # Ctrl-F again resets the search, like the button.
    chord(Keys.CONTROL, "f")
    assert frames(page)[C]["fill"] != SEARCH_RGB
    assert text_of(page, "search") == "Search"

    # F3 opens it too; cancelling changes nothing.
    chord(Keys.F3)
    answer_prompt(page, None)
    assert text_of(page, "search") == "Search"

    # Ctrl-I toggles ignore-case.
    chord(Keys.CONTROL, "i")
    assert "show" in classes(page, "ignorecase")
    chord(Keys.CONTROL, "i")
    assert "show" not in classes(page, "ignorecase")


def test_invalid_regex_is_reported_not_thrown(page, render):
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    open_svg(page, render())
    before = frames(page)
    click_id(page, "search")
    answer_prompt(page, "(")
    alert = WebDriverWait(page, WAIT).until(EC.alert_is_present())
    assert "(" in alert.text
    alert.accept()
    assert frames(page) == before
    assert text_of(page, "search") == "Search"
    # The `page` fixture asserts that no exception reached the console.


def test_zoom_and_search_survive_reload_via_url(page, render):
    path = render()
    open_svg(page, path)
    before = frames(page)
    click_box(page, B)
    click_id(page, "search")
    answer_prompt(page, "c")
    zoomed = frames(page)
    # Relative to the zoomed box: c is 3 of b's 4 samples.
    assert text_of(page, "matched") == matched_text("c", prefix=("a", "b")) == "Matched: 75.0%"

    q = query(page)
    assert q["x"] == [before[B]["ax"]] and q["y"] == [before[B]["ay"]]
    assert q["s"] == ["c"]
    assert page.current_url.startswith("file://")

    page.refresh()
    wait_for(lambda: page.execute_script("return document.readyState") == "complete", "reload")
    assert frames(page) == zoomed
    assert_zoomed_to_b(page, before)
    assert text_of(page, "matched") == "Matched: 75.0%"
    assert text_of(page, "search") == "Reset Search"

    # A shared link (fresh navigation, ignore-case on) shows the same view.
    link = page.current_url.split("?")[0] + "?" + urllib.parse.urlencode(
        {"x": before[B]["ax"], "y": before[B]["ay"], "s": "^B$", "i": "1"})
    page.get("about:blank")
    page.get(link)
    now = frames(page)
    assert now[B]["fill"] == SEARCH_RGB and now[B]["cls"] == ""
    assert not now[UPPER_B]["shown"]
    assert "show" in classes(page, "ignorecase")
    assert_zoomed_to_b(page, before)

    # Resetting both removes the state from the URL.
    click_id(page, "unzoom")
    click_id(page, "search")
    q = query(page)
    assert "x" not in q and "y" not in q and "s" not in q
    assert frames(page) == before


# --------------------------------------------------------------------------
# Index page of `arclamp-svg generate`


@pytest.fixture
def serve(tmp_path):
    """serve(directory) -> base URL of Debian's nginx with the packaged
    snippet (build/nginx/arclamp.conf) on 127.0.0.1: the graphs go through the
    web front production uses (.svgz as gzip'ed image/svg+xml)."""
    servers = contextlib.ExitStack()

    def start(directory):
        return servers.enter_context(nginx(directory, tmp_path / ("nginx-%d" % id(directory))))
    with servers:
        yield start


def test_index_links_open_interactive_graphs(page, renderer, tmp_path, serve):
    from selenium.webdriver.common.by import By
    data = tmp_path / "data"
    logs = data / "logs" / "daily"
    logs.mkdir(parents=True)
    name = "2026-11-21.excimer.index"
    prefix = "/srv/mediawiki/php-1.44.0/index.php;"
    (logs / (name + ".log")).write_text(
        "".join("%s%s %d\n" % (prefix, s, n) for s, n in STACKS))
    cfg = tmp_path / "arclamp.yaml"
    cfg.write_text("data_dir: %s\n" % data)
    proc = subprocess.run([renderer, "generate", "--config", str(cfg)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")

    svgz = data / "svgs" / "daily" / (name + ".svgz")
    assert (data / "index.html").is_file() and svgz.is_file()
    with gzip.open(svgz) as f:
        doc = ET.parse(f)       # a gzip'ed, well-formed SVG
    assert doc.getroot().tag == "{http://www.w3.org/2000/svg}svg"

    base = serve(data)
    page.get(base + "index.html")
    links = {a.get_attribute("href"): a for a in page.find_elements(By.TAG_NAME, "a")}
    raw = page.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('a[href]'),"
        " function (a) { return a.getAttribute('href'); })")
    # Relative links: the data directory can be served from anywhere.
    assert raw and all(not urllib.parse.urlsplit(h).scheme and not h.startswith("/")
                       for h in raw), raw
    target = base + "svgs/daily/" + name + ".svgz"
    assert target in links, sorted(links)

    links[target].click()
    wait_for(lambda: page.current_url == target and page.execute_script(
        "return document.readyState === 'complete' && "
        "document.documentElement.localName === 'svg'"), "the graph to open")
    title = text_of(page, "title")
    assert "daily" in title and "2026-11-21" in title and "reversed" not in title
    # The script works in the served graph: zoom into b.
    before = frames_by_name(page)
    click_box_by_title(page, before["b (4 "]["title"])
    after = frames_by_name(page)
    assert after["b (4 "]["w"] == pytest.approx(full_width(page) - 20, abs=0.5)
    assert "hide" in after["g (3 "]["cls"].split()
    assert query(page)["y"] == [before["b (4 "]["ay"]]

    # And the reversed graph next to it.
    page.get(base + "index.html")
    reversed_target = base + "svgs/daily/" + name + ".reversed.svgz"
    links = {a.get_attribute("href"): a for a in page.find_elements(By.TAG_NAME, "a")}
    assert reversed_target in links, sorted(links)
    links[reversed_target].click()
    wait_for(lambda: page.current_url == reversed_target and page.execute_script(
        "return document.readyState === 'complete' && "
        "document.documentElement.localName === 'svg'"), "the reversed graph to open")
    assert "reversed" in text_of(page, "title")
    # Leaf frames sit right on the root now: c (3 + 1 samples, two stacks)
    # at the same depth as g, where the forward graph has c two levels up.
    boxes = frames_by_name(page)
    assert boxes["c (4 "]["y"] == boxes["g (3 "]["y"] < boxes["all (14 "]["y"]


# --------------------------------------------------------------------------
# The web front's Content-Security-Policy


INJECTED = ("<script type=\"text/ecmascript\">"
            "document.documentElement.setAttribute('data-injected', '1');</script>\n")
INJECTED_HANDLER = " onload=\"document.documentElement.setAttribute('data-onload', '1')\""


def graph_scripts(svg_text):
    """The texts of the scripts a graph would run (not its settings: data)."""
    root = ET.fromstring(svg_text.encode())
    return [el.text for el in root.iter("{http://www.w3.org/2000/svg}script")
            if el.get("type") != "application/json"]


@pytest.fixture
def served_data(render, renderer, tmp_path, serve):
    """A data directory as `arclamp-svg generate` leaves it, with arclamp-log's
    metrics file and a copy of a graph with an inline script and an event
    handler attribute slipped in; served by nginx: (base URL, data dir)."""
    data = tmp_path / "data"
    logs = data / "logs" / "daily"
    logs.mkdir(parents=True)
    (logs / "2026-11-21.excimer.index.log").write_text(
        "".join("/srv/w/index.php;%s %d\n" % (s, n) for s, n in STACKS))
    cfg = tmp_path / "arclamp.yaml"
    cfg.write_text("data_dir: %s\n" % data)
    subprocess.run([renderer, "generate", "--config", str(cfg)], check=True, timeout=120,
                   stdout=subprocess.DEVNULL)
    (data / "arclamp-log.prom").write_text("arclamp_log_lines_received_total 5\n")
    svg = render().read_text()
    with gzip.open(data / "svgs" / "daily" / "plain.svgz", "wt") as f:
        f.write(svg)
    tampered = svg.replace("</svg>", INJECTED + "</svg>").replace("<svg ", "<svg" + INJECTED_HANDLER + " ", 1)
    assert tampered.count("data-injected") == 1 and tampered.count("data-onload") == 1
    with gzip.open(data / "svgs" / "daily" / "tampered.svgz", "wt") as f:
        f.write(tampered)
    return serve(data), data


def test_web_front_policy_per_page_type(served_data):
    """A graph may run its one script, by hash, and nothing else; the index,
    its JSON and the logs run none; the metrics file is not served."""
    base, data = served_data
    with gzip.open(data / "svgs" / "daily" / "2026-11-21.excimer.index.svgz", "rt") as f:
        scripts = graph_scripts(f.read())
    assert len(scripts) == 1   # flamegraph.js: the settings are data
    graph = csp_of(base + "svgs/daily/2026-11-21.excimer.index.svgz")
    assert_csp_fences(graph, "graph")
    # the hash the Makefile wrote is the graph's script's, as the browser reads it
    assert graph["script-src"] == {script_hash(scripts[0])}
    assert csp_of(base + "svgs/daily/2026-11-21.excimer.index.reversed.svgz") == graph
    for path in ("", "index.html", "index.json", "logs/daily/2026-11-21.excimer.index.log"):
        policy = csp_of(base + path)
        assert_csp_fences(policy, path)
        assert policy["script-src"] == {"'none'"}, path
    for path in ("arclamp-log.prom", "logs/arclamp-log.prom"):
        status, _, body = fetch(base + path)
        assert status in (403, 404) and b"arclamp_log" not in body, path


def test_graph_runs_under_the_policy_and_nothing_slipped_in_does(page, served_data):
    base, _ = served_data
    record_csp_violations(page)

    def open_served(name):
        page.get(base + "svgs/daily/" + name)
        wait_for(lambda: page.execute_script(
            "return document.readyState === 'complete' && !!document.getElementById('frames')"),
            "the graph to load")

    def zoom_and_search():
        before = frames(page)
        click_box(page, B)
        assert_zoomed_to_b(page, before)
        click_id(page, "search")
        answer_prompt(page, "^(a|b)$")
        assert text_of(page, "matched") == matched_text("^(a|b)$", prefix=("a", "b"))

    open_served("plain.svgz")
    zoom_and_search()
    assert csp_violations(page) == ([], [])

    open_served("tampered.svgz")
    zoom_and_search()             # flamegraph.js still runs...
    for attr in ("data-injected", "data-onload"):   # ...and nothing else
        assert page.execute_script(
            "return document.documentElement.getAttribute(arguments[0])", attr) is None
    events, logged = csp_violations(page)
    assert sorted(e.split()[0] for e in events) == ["script-src-attr", "script-src-elem"], events
    assert len(logged) == 2 and all("Content Security Policy" in m for m in logged), logged


def frames_by_name(driver):
    """Boxes keyed by 'NAME (N ' (the generated graph has an extra root frame)."""
    out = {}
    for f in driver.execute_script(READ_FRAMES):
        m = re.match(r"^(.*) \(([0-9,.]+) ", f["title"])
        out["%s (%s " % (m.group(1), m.group(2))] = f
    return out


def click_box_by_title(driver, title):
    from selenium.webdriver.common.action_chains import ActionChains
    el = driver.execute_script(
        "var gs = document.querySelectorAll('#frames > g');"
        "for (var i = 0; i < gs.length; i++)"
        "  if (gs[i].querySelector('title').textContent === arguments[0])"
        "    return gs[i].querySelector('rect');", title)
    ActionChains(driver).move_to_element(el).click().perform()
