"""MediaWiki page views with the extension's sampler in zero-code mode: in
one php-cgi process (-T) and in a php-fpm pool, samples arriving in
arclamp-log's trace logs under their entry points, and MediaWiki's own
output unchanged. Also the fixture itself: what PHP loads, opcache."""

import json
import signal
import subprocess

import pytest

from appkit import mediawiki, phpcgi
from appkit.mediawiki import EXPECT, URLS

ENTRIES = ("index", "api", "load")


def sampler(arclamp, **more):
    """Zero-code collection to this arclamp-log, a sample every 2 ms of CPU."""
    s = {"excimer.arclamp_target": arclamp.target, "excimer.arclamp_period": "0.002",
         "excimer.arclamp_event_type": "cpu"}
    s.update(more)
    return s


def check_cgi_views(run, name, n):
    """n whole responses, each 200 with its page's text, and a clean exit."""
    assert run.returncode == 0, run.describe()
    assert run.parse_error is None, run.parse_error
    assert len(run.responses) == n, run.describe()
    for i, r in enumerate(run.responses):
        assert r.status == 200, "%s view %d: HTTP %d: %s" % (name, i, r.status, r.text()[:500])
        assert EXPECT[name] in r.text(), "%s view %d lacks %r" % (name, i, EXPECT[name])


def check_fpm_views(results):
    for url, r in results:
        name = [k for k, u in URLS.items() if u == url][0]
        body = r.body.decode("utf-8", "replace")
        assert r.status == 200, "%s: HTTP %d: %s" % (url, r.status, body[:500])
        assert EXPECT[name] in body, "%s lacks %r" % (url, EXPECT[name])


def check_samples(arclamp, entries):
    """Samples under each entry point, each stack starting at that entry
    point's script, and the `all` logs holding every one of them."""
    counts = arclamp.samples()
    for e in entries:
        assert counts.get(e, 0) > 0, "no samples under %r: %r\n%s" % (e, counts,
                                                                       arclamp.stderr()[-2000:])
        script = "%s/%s.php" % (mediawiki.MW_SRC, e)
        for stack in arclamp.stacks(e):
            assert stack == script or stack.startswith(script + ";"), stack[:300]
    assert counts["all"] == sum(v for k, v in counts.items() if k != "all"), counts


def probe(ini, workdir, code):
    """What php-cgi with this ini says (the last line of `code`'s output, JSON)."""
    script = workdir / "probe.php"
    script.write_text("<?php\n" + code)
    cp = subprocess.run([mediawiki.PHP_CGI, "-n", "-c", str(ini), "-q", str(script)],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert cp.returncode == 0, cp.stderr
    return json.loads(cp.stdout.decode().strip().splitlines()[-1])


@pytest.mark.parametrize("opcache", [False, True], ids=["no-opcache", "opcache"])
def test_php_loads_only_what_the_test_names(wiki, workdir, php_ini, opcache):
    """`-n -c INI`: no php.ini, no conf.d (Debian's packages enable php-intl,
    php-apcu, ... system-wide); MediaWiki's modules, excimer and opcache
    exactly as the ini says."""
    ini = php_ini(opcache=opcache, excimer={})
    got = probe(ini, workdir, "echo json_encode(['ini' => php_ini_loaded_file(), "
                "'scanned' => php_ini_scanned_files(), 'ext' => get_loaded_extensions(), "
                "'opcache' => function_exists('opcache_get_status') "
                "&& (opcache_get_status(false)['opcache_enabled'] ?? false)]);")
    assert got["ini"] == str(ini) and got["scanned"] is False, got
    exts = {e.lower() for e in got["ext"]}
    assert "excimer" in exts and {"intl", "pdo_sqlite", "mbstring"} <= exts, exts
    assert not exts & {"apcu", "yaml", "xhprof", "tideways_xhprof"}, exts
    assert got["opcache"] is opcache, got


def test_views_without_the_extension(wiki, php_ini):
    """The fixture on its own: each URL twice in one php-cgi process."""
    ini = php_ini()
    for name in ("index", "api", "load", "index_short"):
        check_cgi_views(phpcgi.run(wiki, ini, URLS[name], 2), name, 2)


@pytest.mark.parametrize("opcache", [False, True], ids=["no-opcache", "opcache"])
def test_cgi_views_with_the_sampler(wiki, workdir, php_ini, arclamp, opcache):
    """3 views of each entry point in one php-cgi process each: MediaWiki
    answers as without the extension, and the samples of every entry point
    reach arclamp-log's trace logs."""
    ini = php_ini(opcache=opcache, excimer=sampler(arclamp))
    for name in ENTRIES:
        check_cgi_views(phpcgi.run(wiki, ini, URLS[name], 3), name, 3)
    arclamp.wait_quiet()
    arclamp.stop()
    check_samples(arclamp, ENTRIES)
    assert phpcgi.php_errors(workdir / "php-errors.log") == []


@pytest.mark.parametrize("stop", ["SIGQUIT", "SIGTERM"])
def test_fpm_views_with_the_sampler(wiki, workdir, php_ini, arclamp, fpm_pool, stop):
    """12 views (index, api, load) through a php-fpm pool of 2 workers with
    opcache, 2 at a time; the pool stopped gracefully or as systemd does;
    no worker crashed and every entry point's samples arrived."""
    # send_delay 0: a request's samples leave as it ends, so SIGTERM can only
    # cost the last request's (a worker killed loses at most that).
    pool = fpm_pool(php_ini(opcache=True, excimer=sampler(
        arclamp, **{"excimer.arclamp_send_delay": "0"})), children=2)
    urls = [URLS["index"], URLS["api"], URLS["load"], URLS["index_short"]]
    check_fpm_views(pool.load(urls, 12, concurrency=2))
    assert pool.stop(sig=getattr(signal, stop)) == 0, pool.describe()
    assert pool.crashes() == [], pool.describe()
    arclamp.wait_quiet()
    arclamp.stop()
    check_samples(arclamp, ENTRIES)
    assert phpcgi.php_errors(workdir / "php-errors.log") == []
