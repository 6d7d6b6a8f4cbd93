"""One php-fpm pool cannot take another pool's request tiers away.

The pools of one php-fpm master share its opcache, and with it the tables
that request tiers keep in shared memory (src/tiers_hook.c: the patched
oplines of user functions, the swapped internal functions), mapped once
when the master starts and never freed. Before, a tenant pool with no tiers
configured called ini_set('excimer.tiers', ...) with 64 internal functions
in each of a few requests, and its own tier function (configured for it by
the administrator) with thousands of RETURNs in a new file per request:
the tables were full, and the other pool's configured tiers recorded
nothing until php-fpm restarted.

Here a real php-fpm master (its own configuration, opcache on, unix sockets
in a temporary directory) runs two pools, the tenant's and the victim's, as
two users when the test runs as root (as the same user otherwise: the
tables are shared all the same, and only the ini_set() attack is made, as a
user's quota is shared by its pools). The tenant attacks first; then the
victim's configured tiers, a user method and an internal function compiled
or swapped only now, must record every call: their tier lines arrive at the
datagram socket the test listens on.
"""

import json
import os
import pwd
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "common" / "tests"))
sys.path.insert(0, str(REPO / "integration-tests"))
from harness import pools  # noqa: E402
from harness.fcgi import cgi_params, request  # noqa: E402
from testkit import Timeout, repo_bin, wait_until  # noqa: E402

sys.path.insert(0, str(HERE))
from test_combinations import Receiver, tier_totals  # noqa: E402

PHP_FPM = "/usr/sbin/php-fpm8.2"
EXCIMER = Path(repo_bin("EXCIMER_BUILD_PHP", "build/php")) / "excimer.so"
ATTACKS = 5            # tenant requests: 5 x 64 internal functions > 256 records
RETURNS = 2000         # RETURNs of the tenant's tier method, a new copy per request
VICTIM_REQUESTS = 3
AS_ROOT = os.geteuid() == 0

def users():
    """(tenant, victim): two users as root, else the test's own (unset)."""
    if not AS_ROOT:
        return None, None
    return "nobody", pwd.getpwnam("www-data").pw_name


def write_config(tmp, recv):
    tenant_user, victim_user = users()
    (tmp / "php.ini").write_text("\n".join([
        "zend_extension=opcache.so",
        "opcache.enable=1",
        "opcache.validate_timestamps=0",
        "opcache.file_update_protection=0",  # the files were just written: cache them
        "extension=%s" % EXCIMER,
        'excimer.tiers_target="unix://%s"' % recv,
        "excimer.tiers_flush_interval=0",   # lines at every request's end
    ]) + "\n")
    pools = []
    for name, user, extra in (
            # the tenant's workers end after each request: each new one may
            # fill a share of its own (before: 3/4 of the table each)
            ("tenant", tenant_user, ["pm.max_requests = 1"] + (
                ['php_value[excimer.tiers] = "own=Tenant::f"'] if AS_ROOT else [])),
            ("victim", victim_user,
             ['php_admin_value[excimer.tiers] = "work=Victim::work, pad=str_pad"'])):
        pools += ["[%s]" % name, "listen = %s" % (tmp / (name + ".sock")),
                  "pm = static", "pm.max_children = 1", "catch_workers_output = yes"]
        if user:
            pools += ["user = %s" % user]
        pools += extra
    (tmp / "php-fpm.conf").write_text("\n".join([
        "[global]", "pid = %s" % (tmp / "fpm.pid"), "error_log = %s" % (tmp / "fpm.log"),
        "daemonize = no"] + pools) + "\n")


def write_sites(tmp):
    pools.write_sites(tmp, ATTACKS, RETURNS)


def get(tmp, pool, query=""):
    root = str(tmp / pool)
    r = request(str(tmp / (pool + ".sock")), cgi_params(root, "/index.php?" + query))
    assert r.body.lstrip().startswith(b"{"), (pool, r.body, r.stderr)
    return json.loads(r.body[r.body.index(b"{"):])


def test_a_tenant_pool_cannot_starve_another_pools_tiers():
    with tempfile.TemporaryDirectory(prefix="fpm-pools-") as d:
        tmp = Path(d)
        recv = tmp / "in.sock"
        receiver = Receiver(str(recv))
        recv.chmod(0o777)
        write_config(tmp, recv)
        write_sites(tmp)
        fpm = subprocess.Popen([PHP_FPM, "-n", "-c", str(tmp / "php.ini"), "-y",
                                str(tmp / "php-fpm.conf"), "-F"] + (["-R"] if AS_ROOT else []),
                               stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: (tmp / "tenant.sock").exists() and (tmp / "victim.sock").exists(),
                       what="php-fpm's sockets")
            attacks = [get(tmp, "tenant", "n=%d&own=%d" % (n, AS_ROOT)) for n in range(ATTACKS)]
            victim = [get(tmp, "victim") for _ in range(VICTIM_REQUESTS)]
            try:  # (they never come when the victim was starved: the asserts say why)
                wait_until(lambda: tier_totals(receiver.lines)[2].get("work", 0) >= VICTIM_REQUESTS,
                           what="the victim's tier lines")
            except Timeout:
                pass
        finally:
            fpm.terminate()
            fpm.wait(timeout=60)
            receiver.close()
        log = (tmp / "fpm.log").read_text()
        _requests, _traced, calls = tier_totals(receiver.lines)
        report = (calls, [a["ini_set"] for a in attacks], attacks[-1]["status"], victim, log)
        # every call of the victim's tiers was timed
        assert calls.get("work") == VICTIM_REQUESTS, report
        assert calls.get("pad") == 2 * VICTIM_REQUESTS, report
        assert victim[-1]["skipped"] == 0, report
        # the tenant could not name tiers of its own at run time
        assert not any(a["ini_set"] for a in attacks), report
        assert "evil" not in calls, report
        if AS_ROOT:  # and took its user's share of the shared tables, no more
            quota = attacks[-1]["status"]["shared_quota"]
            assert quota["ops"] == quota["ops_max"], report
