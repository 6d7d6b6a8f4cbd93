"""pytest fixtures of the app tests: the installed wiki, a test's directory,
the PHP ini it chooses, arclamp-log and php-fpm (always stopped)."""

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from appkit import collector, fpmpool, mediawiki  # noqa: E402
from testkit import repo_bin  # noqa: E402


def excimer_so():
    return repo_bin("ARCLAMP_EXCIMER_SO", "build/php/excimer.so")


def api_module(name):
    """xhprof.so, tideways_xhprof.so or uprofiler.so, built next to excimer.so."""
    return os.path.join(os.path.dirname(excimer_so()), name + ".so")


@pytest.fixture(scope="session")
def wiki():
    missing = [p for p in (str(mediawiki.MW_SRC), mediawiki.PHP_CGI, mediawiki.PHP_FPM,
                           mediawiki.PHP_CLI, excimer_so(), collector.arclamp_report_bin(),
                           repo_bin("ARCLAMP_LOG_BIN", "build/bin/arclamp-log"))
               if not os.path.exists(p)]
    if missing:
        pytest.fail("the app tests need %s (scripts/install-deps, make)" % ", ".join(missing))
    w, took = mediawiki.ensure()
    if took:
        sys.stderr.write("\nMediaWiki installed into %s in %.1f s\n" % (w.root, took))
    return w


@pytest.fixture
def workdir():
    """A short directory under /tmp (unix socket paths must fit sun_path)."""
    d = tempfile.mkdtemp(prefix="al-app-", dir="/tmp")
    try:
        yield Path(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def php_ini(workdir):
    """php_ini(name, opcache=False, excimer=None, modules=()) -> path of an ini
    for `-n -c`: MediaWiki's modules, opcache when asked, and with excimer (a
    dict of excimer.* and other settings) the built excimer.so, then
    `modules` (API modules: "xhprof", ...). PHP's error log is
    <workdir>/php-errors.log."""
    def make(name="php", opcache=False, excimer=None, modules=()):
        exts = []
        if excimer is not None:
            exts = [excimer_so()] + [api_module(m) for m in modules]
        return mediawiki.write_ini(workdir / (name + ".ini"), str(workdir / "php-errors.log"),
                                   opcache=opcache, extensions=exts, settings=excimer or {})
    return make


@pytest.fixture
def arclamp(workdir):
    """A started arclamp-log on <workdir>/arclamp/ingest.sock; stopped after the test."""
    c = collector.Collector(workdir).start()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def fpm_pool(wiki, workdir):
    """fpm_pool(ini, children=2) -> a started php-fpm pool; every pool is
    stopped after the test (SIGQUIT) if the test did not stop it."""
    made = []

    def make(ini, children=2):
        p = fpmpool.Pool(wiki, workdir, ini, children=children)
        made.append(p)
        return p.start()

    yield make
    for p in made:
        p.close()
