"""A headless Chromium for the browser tests of every program (arclamp-svg's
flame graphs, arclamp-report's pages), through Debian's chromium-driver.

Chromium is started directly (not through Debian's wrapper script, which
enables remote extensions) with background networking off and every host
name resolving to nothing, so nothing but 127.0.0.1 is ever contacted.
Every WebDriver command is bounded."""

import contextlib
import os

import pytest

CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium")


def chromium_binary():
    for c in CHROMIUM_CANDIDATES:
        if os.access(c, os.X_OK):
            return c
    pytest.fail("chromium not installed (scripts/install-deps)")


@contextlib.contextmanager
def chromium(profile_dir):
    """A WebDriver session of a fresh headless Chromium, quit afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.remote.remote_connection import RemoteConnection

    if not os.access(CHROMEDRIVER, os.X_OK):
        # Checked here so Selenium never falls back to downloading a driver.
        pytest.fail("%s missing (Debian package chromium-driver)" % CHROMEDRIVER)
    RemoteConnection.set_timeout(60)    # no WebDriver command may hang forever
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium_binary()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--user-data-dir=%s" % profile_dir,
                "--window-size=1400,900", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-default-apps",
                "--disable-domain-reliability", "--metrics-recording-only",
                # Nothing but loopback: no name resolves, other traffic goes
                # to a closed local port.
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                "--proxy-server=127.0.0.1:9"):
        opts.add_argument(arg)
    # Prompts are handled explicitly; an unexpected one must not be
    # silently dismissed.
    opts.unhandled_prompt_behavior = "ignore"
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=CHROMEDRIVER, log_path=os.devnull)
    driver = webdriver.Chrome(service=service, options=opts)
    try:
        driver.set_page_load_timeout(30)
        driver.set_script_timeout(10)
        yield driver
    finally:
        driver.quit()


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@contextlib.contextmanager
def nginx(data_dir, state_dir):
    """Debian's nginx serving data_dir on 127.0.0.1 with the packaged snippet
    (scripts/serve-nginx, as `make demo` does); yields the base URL and
    stops nginx afterwards."""
    import subprocess
    if not os.access("/usr/sbin/nginx", os.X_OK):
        pytest.fail("nginx not installed (scripts/install-deps)")
    script = os.path.join(REPO, "scripts", "serve-nginx")
    url = subprocess.run([script, "start", str(data_dir), str(state_dir)], check=True,
                         capture_output=True, text=True, timeout=30).stdout.strip()
    try:
        yield url
    finally:
        subprocess.run([script, "stop", str(state_dir)], timeout=30)


# --------------------------------------------------------------------------
# The web front's Content-Security-Policy, as a browser receives it


def fetch(url):
    """(status, headers, body) of a GET, error statuses included."""
    import urllib.error
    import urllib.request
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def csp_of(url):
    """The Content-Security-Policy url is served with, as {directive: set of
    sources}; asserts there is exactly one header."""
    status, headers, _ = fetch(url)
    assert status == 200, (url, status)
    values = headers.get_all("Content-Security-Policy") or []
    assert len(values) == 1, (url, values)
    policy = {}
    for part in values[0].split(";"):
        words = part.split()
        if words:
            assert words[0] not in policy, (url, values[0])
            policy[words[0]] = set(words[1:])
    return policy


def script_hash(text):
    """The CSP source that allows an inline script whose text is `text`."""
    import base64
    import hashlib
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def assert_csp_fences(policy, url=""):
    """What every page of the web front says, whatever it runs."""
    assert policy.get("default-src") == {"'none'"}, (url, policy)
    assert policy.get("base-uri") == {"'none'"}, (url, policy)
    assert policy.get("form-action") == {"'none'"}, (url, policy)
    assert policy.get("object-src") == {"'none'"}, (url, policy)
    assert policy.get("frame-ancestors") == {"'self'"}, (url, policy)
    assert "'unsafe-eval'" not in policy.get("script-src", set()), (url, policy)


# Recorded before any script of the page runs (DevTools' scripts are not
# subject to the page's policy), on every document the browser opens next.
_RECORD_VIOLATIONS = """
window.arclampCspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
    window.arclampCspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sample);
});
"""


def record_csp_violations(driver):
    """From now on, each document keeps its securitypolicyviolation events in
    window.arclampCspViolations (read them with csp_violations)."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _RECORD_VIOLATIONS})


def csp_violations(driver):
    """The violations the current document saw, and the browser log's
    security messages since the last read (which drains the log)."""
    events = driver.execute_script("return window.arclampCspViolations")
    assert events is not None, "record_csp_violations was not called before loading"
    logged = [e["message"] for e in driver.get_log("browser") if e.get("source") == "security"]
    return events, logged
