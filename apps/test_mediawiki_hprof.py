"""Issue #12 on MediaWiki: the hierarchical profiler (excimer.hprof_sample_rate)
and request tiers (excimer.tiers) on real page views.

Each test is one of the issue's findings on MediaWiki 1.39 (apps/README.md
says what the extension did before it was fixed).

The runs of the naming tests are read with arclamp-report (flat and
aggregate --json), from the files the extension writes to xhprof.output_dir,
so that they test the names and numbers of a run whether or not its delivery
over the socket works (which the delivery tests test).
"""

import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

from appkit import REPO_ROOT, collector, mediawiki, phpcgi
from appkit.fpmpool import Pool
from appkit.mediawiki import URLS

from conftest import api_module, excimer_so
from testkit import metric, metric_sum
from test_mediawiki_sampler import check_cgi_views, check_fpm_views

TIERS = r"db=Wikimedia\Rdbms\Database::query"
FPM_URLS = [URLS["index"], URLS["api"], URLS["load"], URLS["index_short"]]


def hprof(arclamp=None, **more):
    """Every request profiled hierarchically (zero-code); runs sent to
    arclamp-log when given, at the default excimer.hprof_max_bytes."""
    s = {"excimer.hprof_sample_rate": "1"}
    if arclamp is not None:
        s.update({"excimer.arclamp_target": arclamp.target, "excimer.arclamp_period": "0.01"})
    s.update(more)
    return s


# --- (i) hierarchical profiling together with request tiers -----------------

@pytest.mark.parametrize("opcache", [False, True], ids=["no-opcache", "opcache"])
def test_cgi_hprof_with_tiers_does_not_crash(wiki, php_ini, opcache):
    ini = php_ini(opcache=opcache, excimer=hprof(**{"excimer.tiers": TIERS}))
    check_cgi_views(phpcgi.run(wiki, ini, URLS["index"], 3), "index", 3)


def test_fpm_hprof_with_tiers_does_not_crash(wiki, php_ini, arclamp, fpm_pool):
    pool = fpm_pool(php_ini(opcache=True, excimer=hprof(arclamp, **{"excimer.tiers": TIERS})))
    results = pool.load(FPM_URLS, 8, concurrency=2)
    assert pool.stop(sig=signal.SIGQUIT) == 0, pool.describe()
    assert pool.crashes() == [], "\n".join(pool.crashes())
    check_fpm_views(results)


# --- (ii) whole runs over the unix datagram socket -------------------------

FPM_RUN_VIEWS = 8


@pytest.fixture(scope="module")
def fpm_runs(wiki):
    """8 page views (index, api, load) through php-fpm, every one profiled
    and sent to arclamp-log's unix datagram socket at the default
    excimer.hprof_max_bytes; php-fpm stopped gracefully, then arclamp-log.
    Returns (requests answered 200, arclamp-log's metrics, arclamp-report's
    run summaries per tag)."""
    d = Path(tempfile.mkdtemp(prefix="al-app-", dir="/tmp"))
    arclamp = collector.Collector(d).start()
    pool = None
    try:
        ini = mediawiki.write_ini(d / "php.ini", str(d / "php-errors.log"), opcache=True,
                                  extensions=[excimer_so()], settings=hprof(arclamp))
        pool = Pool(wiki, d, ini, children=2).start()
        results = pool.load(FPM_URLS, FPM_RUN_VIEWS, concurrency=1)
        check_fpm_views(results)
        assert pool.stop(sig=signal.SIGQUIT) == 0, pool.describe()
        assert pool.crashes() == [], pool.describe()
        arclamp.wait_quiet()
        arclamp.stop()
        metrics = arclamp.log.metrics()
        yield len(results), metrics, arclamp.run_summaries()
    finally:
        if pool is not None:
            pool.close()
        arclamp.close()
        shutil.rmtree(str(d), ignore_errors=True)


def test_fpm_runs_arrive_whole(fpm_runs):
    served, metrics, summaries = fpm_runs
    written = metric(metrics, "arclamp_log_runs_written_total", group="hourly")
    dropped = metric_sum(metrics, "arclamp_log_runs_dropped_total")
    assert (written, dropped) == (served, 0), "runs written %d, dropped %d, of %d views" % (
        written, dropped, served)
    runs = {t: s["runs"] for t, s in summaries.items() if t != "all"}
    assert sum(runs.values()) == served and set(runs) == {"index", "api", "load"}, summaries
    assert summaries["all"]["incomplete"] == 0 and summaries["all"]["bad_lines"] == 0, summaries


def test_fpm_runs_fit_the_default_max_bytes(fpm_runs):
    """Article views' runs (~10,000 arcs) among those that arrived, and not
    an arc left out of any (a load.php run, ~4,800 arcs, fits even today:
    it alone proves nothing)."""
    served, metrics, summaries = fpm_runs
    assert summaries.get("index", {}).get("runs", 0) > 0, "no index.php run: %r" % summaries
    assert summaries["all"]["arcs_left_out"] == 0, summaries


# --- (iii) tier lines of a worker stopped by SIGTERM -------------------------

@pytest.mark.parametrize("stop", [
    "SIGQUIT",
    "SIGTERM"])
def test_fpm_tier_lines_reach_the_table_when_php_fpm_stops(wiki, php_ini, arclamp, fpm_pool,
                                                           stop):
    """Tiers on every request; aggregates flushed only at a worker's exit
    (tiers_flush_interval 60 s, far longer than the test): after php-fpm
    stops, the tier tables count every request served (`_total` calls)."""
    pool = fpm_pool(php_ini(opcache=True, excimer={
        "excimer.arclamp_target": arclamp.target, "excimer.tiers": TIERS,
        "excimer.tiers_flush_interval": "60"}))
    check_fpm_views(pool.load(FPM_URLS, 8, concurrency=2))
    assert pool.stop(sig=getattr(signal, stop)) == 0, pool.describe()
    assert pool.crashes() == [], pool.describe()
    arclamp.wait_quiet()
    arclamp.stop()              # writes the pending minutes
    assert arclamp.tier_calls("_total") == pool.served, arclamp.tier_tables()
    assert arclamp.tier_calls("db") > 0, arclamp.tier_tables()


# --- (iv), (v) names and numbers of the runs, read with arclamp-report -------

VIEWS = ("index", "index_short", "api", "load")


def profile_views(wiki, d, ini, env=None):
    """Two views of each of VIEWS (index: the long article and a short one,
    api, load) in one php-cgi process per URL, each leaving one run file in
    <d>/runs: [(name, raw array as `arclamp-report aggregate --json` gives
    it, flat profile as `arclamp-report flat --json` gives it)]."""
    runs = []
    for name in VIEWS:
        before = set(os.listdir(str(d / "runs")))
        check_cgi_views(phpcgi.run(wiki, ini, URLS[name], 2, env=env), name, 2)
        new = sorted(set(os.listdir(str(d / "runs"))) - before)
        assert len(new) == 2, "runs written for %s: %r" % (name, new)
        for f in new:
            path = d / "runs" / f
            runs.append((name, collector.report_json("aggregate", path, "--sum"),
                         collector.report_json("flat", path)))
    return runs


@pytest.fixture(scope="module")
def view_runs(wiki):
    """VIEWS with opcache, each profiled by our zero-code collection
    (excimer.hprof_sample_rate=1), the run written by xhprof.so's
    xhprof.output_dir."""
    d = Path(tempfile.mkdtemp(prefix="al-app-", dir="/tmp"))
    try:
        (d / "runs").mkdir()
        ini = mediawiki.write_ini(d / "php.ini", str(d / "php-errors.log"), opcache=True,
                                  extensions=[excimer_so(), api_module("xhprof")],
                                  settings=hprof(**{"xhprof.output_dir": str(d / "runs")}))
        yield profile_views(wiki, d, ini)
    finally:
        shutil.rmtree(str(d), ignore_errors=True)


@pytest.fixture(scope="module")
def reference_runs(wiki):
    """The same views profiled by the reference, tideways_xhprof 5.0.4
    (Debian's php8.2-tideways, which `make app-tests` fetches into
    build/compare/php-tideways), enabled by apps/mediawiki/tideways-prepend.php:
    its main() is only that file, the rest of each run is the request."""
    so = Path(REPO_ROOT / "build" / "compare" / "php-tideways" / "tideways_xhprof.so")
    if not so.exists():
        pytest.fail("%s missing: scripts/fetch-deb-module php8.2-tideways tideways_xhprof.so "
                    "build/compare/php-tideways (make app-tests runs it)" % so)
    d = Path(tempfile.mkdtemp(prefix="al-app-", dir="/tmp"))
    try:
        (d / "runs").mkdir()
        prepend = REPO_ROOT / "apps" / "mediawiki" / "tideways-prepend.php"
        ini = mediawiki.write_ini(d / "php.ini", str(d / "php-errors.log"), opcache=True,
                                  extensions=[str(so)],
                                  settings={"auto_prepend_file": str(prepend)})
        yield profile_views(wiki, d, ini, env={"ARCLAMP_REFERENCE_RUNS": str(d / "runs")})
    finally:
        shutil.rmtree(str(d), ignore_errors=True)


def split_arc(key):
    """'parent==>child' -> (parent, child); 'main()' -> (None, 'main()')."""
    if "==>" not in key:
        return None, key
    p, c = key.split("==>", 1)
    return p, c


def base_name(symbol):
    """A symbol without its recursion level: 'f@2' -> 'f'."""
    head, at, level = symbol.rpartition("@")
    return head if at and level.isdigit() else symbol


def test_no_function_inclusive_above_main(view_runs):
    """In every run, each symbol's inclusive wall time (the sum of wt over the
    arcs into it, as xhprof_lib computes it; f@1 a symbol of its own) is at
    most main()'s; and arclamp-report's flat profile says the same."""
    assert sorted(n for n, _, _ in view_runs) == sorted(["index", "index_short", "api",
                                                          "load"] * 2)
    for name, raw, flat in view_runs:
        main = raw["main()"]["wt"]
        incl = {}
        for key, v in raw.items():
            incl[split_arc(key)[1]] = incl.get(split_arc(key)[1], 0) + v["wt"]
        over = sorted(((w, s) for s, w in incl.items() if w > main), reverse=True)
        assert over == [], "%s: inclusive wt above main()'s %d us: %r" % (name, main, over[:10])
        assert flat["totals"]["wt"] == main
        assert max(f["wt"] for f in flat["functions"].values()) == main, name


# The checks of names and counts: each holds for the reference's runs of the
# same views (test_the_reference_passes_the_naming_checks), so a profiler that
# names and counts as the references do passes them.

def check_recursion_by_printed_name(runs):
    """No arc from a symbol to itself: a function called while one of the
    same printed name is on the stack is `name@1` (PECL xhprof, tideways)."""
    for name, raw, _ in runs:
        self_arcs = [k for k in raw if split_arc(k)[0] == split_arc(k)[1]]
        assert self_arcs == [], "%s: %r" % (name, self_arcs[:5])


REVISIONSTORE_CLOSURE = r"MediaWiki\Revision\RevisionStore::MediaWiki\Revision\{closure}"


def check_nested_revisionstore_closures(runs):
    """An article view runs a RevisionStore closure inside another (the
    revision lookup's cache callback): the inner one is `...{closure}@1`."""
    for name, raw, _ in runs:
        if name.startswith("index"):
            levels = {split_arc(k)[1] for k in raw
                      if base_name(split_arc(k)[1]) == REVISIONSTORE_CLOSURE}
            assert REVISIONSTORE_CLOSURE + "@1" in levels, "%s: %r" % (name, sorted(levels))


CREATE_SERVICE = r"Wikimedia\Services\ServiceContainer::createService"


def check_instantiator_calls_add_up(runs):
    """ServiceContainer::createService calls its service's instantiator, a
    closure, once per call: its calls to closures (at any level) add up to
    its own calls (tideways on this wiki: 106 and 106 in index.php, 60 and
    60 in load.php)."""
    for name, raw, _ in runs:
        into = sum(v["ct"] for k, v in raw.items() if base_name(split_arc(k)[1]) == CREATE_SERVICE)
        to_closures = sum(v["ct"] for k, v in raw.items()
                          if split_arc(k)[0] and base_name(split_arc(k)[0]) == CREATE_SERVICE
                          and base_name(split_arc(k)[1]).endswith("{closure}"))
        assert into > 0 and to_closures == into, \
            "%s: createService called %d times, its closures %d" % (name, into, to_closures)


def check_no_negative_exclusive(runs):
    """A function's callees cannot take longer than the function: exclusive
    wt (inclusive minus the arcs out, arclamp-report's flat profile) is never
    below zero, allowing 1 us of rounding per arc of the function."""
    for name, raw, flat in runs:
        arcs = {}
        for k in raw:
            p, c = split_arc(k)
            arcs[c] = arcs.get(c, 0) + 1
            if p is not None:
                arcs[p] = arcs.get(p, 0) + 1
        neg = sorted((f["excl_wt"], s) for s, f in flat["functions"].items()
                     if f["excl_wt"] < -arcs.get(s, 1))
        assert neg == [], "%s: %d functions with negative exclusive wt: %r" % (
            name, len(neg), neg[:8])


NAMING_CHECKS = (check_recursion_by_printed_name, check_nested_revisionstore_closures,
                 check_instantiator_calls_add_up, check_no_negative_exclusive)


def test_the_reference_passes_the_naming_checks(reference_runs):
    """tideways_xhprof 5.0.4 on the same views passes every check below: what
    they ask is what a reference reports, not a guess."""
    for check in NAMING_CHECKS:
        check(reference_runs)


def test_recursion_is_by_printed_name(view_runs):
    check_recursion_by_printed_name(view_runs)


def test_nested_revisionstore_closures_get_a_level(view_runs):
    check_nested_revisionstore_closures(view_runs)


def test_same_named_arcs_add_up(view_runs):
    check_instantiator_calls_add_up(view_runs)


def test_no_negative_exclusive_wall_time(view_runs):
    check_no_negative_exclusive(view_runs)
