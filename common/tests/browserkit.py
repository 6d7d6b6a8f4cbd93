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
