"""The fleet with tier2 as a real system: arclamp-log and arclamp-svg
installed from the .debs and run by their packaged units under systemd in a
systemd-nspawn container joined to the tier2 namespace (see
harness/tier2_nspawn.py). The web hosts, Redis and the load are the same as
in test_fleet.py; what changes is who runs tier2: socket activation, READY,
the watchdog, Restart=on-failure and the graph job are systemd's.

The container root is prepared once per session (debootstrap, shared with
the system test under make; apt-get install of the two packages, the only
step that reaches the Debian mirror). ARCLAMP_SKIP_NSPAWN=1 skips this file.
"""

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from harness import report
from harness.arclamp import metric_sum
from harness.checks import (assert_every_line_parses, check_delivery, check_svgs, record_row,
                            wait_lines_flowing)
from harness.fleet import Fleet
from harness.procs import wait_until
from harness.tier2_nspawn import prepare_root, unmount_below

HOSTS = int(os.environ.get("ARCLAMP_IT_HOSTS", "3"))
REQUESTS = int(os.environ.get("ARCLAMP_IT_REQUESTS", "30"))

pytestmark = pytest.mark.skipif(os.environ.get("ARCLAMP_SKIP_NSPAWN") == "1",
                                reason="ARCLAMP_SKIP_NSPAWN=1")


@pytest.fixture(scope="session")
def tier2_lowers(prerequisites):
    missing = [t for t in ("debootstrap", "systemd-nspawn", "nsenter", "apt-get", "dpkg-buildpackage")
               if not shutil.which(t)]
    if missing:
        pytest.fail("tier2 in nspawn needs %s (scripts/install-deps installs them); "
                    "ARCLAMP_SKIP_NSPAWN=1 skips it" % ", ".join(missing))
    work = Path(tempfile.mkdtemp(prefix="arclamp-it-tier2-", dir="/var/tmp"))
    timings = {}
    try:
        yield prepare_root(work, timings)
    finally:
        unmount_below(str(work))
        if os.environ.get("ARCLAMP_IT_KEEP") != "1":
            shutil.rmtree(str(work), ignore_errors=True)
        report.note("tier2 in nspawn, set-up: " + ", ".join("%s %.0f s" % kv for kv in timings.items()))


def test_tier2_nspawn_happy_path(fleet_factory, tier2_lowers):
    """Scenario 1 against the packaged units: web hosts publish to Redis, the
    container's arclamp-log (configured as an operator would: the YAML and a
    drop-in allowing the Redis host) writes every line to the right logs,
    and the timer's service, started by hand, draws every graph."""
    t0 = time.monotonic()
    fleet = fleet_factory(hosts=HOSTS, transport="pubsub", tier2="nspawn", tier2_lowers=tier2_lowers)
    t2 = fleet.arclamp
    loads = fleet.load_all(count=REQUESTS, duration=90)
    assert not fleet.failed_requests(loads), fleet.failed_requests(loads)[:3]
    fleet.run_jobs_all(jobs=20)
    acct = fleet.account()
    row = record_row("1 happy path (pubsub, tier2 in nspawn)", acct, loads, t0)

    assert acct["sent"] > 0 and all(s["failed"] == 0 and s["unheard"] == 0
                                    for s in acct["sent_by_host"].values()), acct["sent_by_host"]
    assert acct["received"] == acct["sent"] and acct["invalid"] == 0, (acct["received"], acct["sent"])
    check_delivery(acct)
    assert row["lost"] == 0
    # the packaged units ran it: Type=notify reached READY, the watchdog is armed
    st = t2.service()
    assert (st["ActiveState"], st["SubState"], st["NRestarts"]) == ("active", "running", "0"), st
    assert st["WatchdogUSec"] not in ("0", "infinity", ""), st
    user = t2.exec(["ps", "-o", "user=", "-p", st["MainPID"]]).stdout.strip()
    assert user == "arclamp", user
    check_svgs(fleet)
    enforced = t2.ip_filter_enforced(fleet.redis.host, fleet.redis.port)
    row["note"] = ("arclamp-log.service and arclamp-svg.service from the .debs, systemd in nspawn; "
                   + ("IPAddressDeny= enforced (the service reached Redis through its drop-in)"
                      if enforced else "IPAddressDeny= not enforced in this container (no cgroup "
                      "BPF): the IP drop-ins load, their effect is not shown"))


def test_tier2_nspawn_daemon_killed(fleet_factory, tier2_lowers):
    """Scenario 3 against the packaged units: arclamp-log SIGKILLed mid-load
    (UDP from 2 hosts to the socket unit, widened by the documented
    drop-in). systemd restarts it by itself (Restart=on-failure, RestartSec=2s)
    while PID 1 holds the socket, and the datagrams sent meanwhile wait in the
    socket's buffer: the CLI runner's lines sent while it is down are all
    written; every line of every log parses; the loss (what the killed
    daemon had read but not written) is measured."""
    t0 = time.monotonic()
    fleet = fleet_factory(hosts=2, transport="udp", tier2="nspawn", tier2_lowers=tier2_lowers)
    t2 = fleet.arclamp
    # no Redis: the first datagram starts the service (socket activation)
    assert t2.service()["ActiveState"] == "inactive", t2.service()
    # enough requests to outlast RestartSec=2s (150 take about 2 s here)
    load = fleet.start_load(count=600, duration=60)
    wait_until(lambda: t2.service()["SubState"] == "running", timeout=20,
               what="arclamp-log started by the first datagram")
    wait_lines_flowing(fleet, load)
    old_pid = t2.kill_daemon()
    t_kill = time.monotonic()
    old = t2.metrics()           # the killed daemon's last metrics (at most 0.2 s old)
    jobs = fleet.run_jobs_all(jobs=10, hosts=["web1"])["web1"]["stats"]
    st = t2.wait_service_running(other_than=old_pid, timeout=30)
    t_up = time.monotonic()
    loads = load.wait()
    acct = fleet.account(lossy=True)
    m = acct["metrics"]
    row = record_row("3 arclamp-log killed (udp, tier2 in nspawn)", acct, loads, t0)
    row["received"] = int(metric_sum(old, "arclamp_log_lines_received_total")) + acct["received"]

    assert st["NRestarts"] == "1", st
    assert not fleet.failed_requests(loads), fleet.failed_requests(loads)[:3]
    assert Fleet.requests_in(loads, t_kill, t_up), "no request while arclamp-log was down"
    assert Fleet.requests_in(loads, t_up), "no request after the restart"
    assert_every_line_parses(acct["logs"])
    assert acct["invalid"] == 0 and metric_sum(m, "arclamp_log_datagrams_dropped_total") == 0
    assert jobs["sent"] > 0 and jobs["failed"] == 0, jobs
    runjobs = acct["per_group"]["hourly"].get("RunJobs", {}).get("web1", {}).get("lines", 0)
    assert runjobs == jobs["sent"], "RunJobs sent %d lines around the kill, %d written" % (
        jobs["sent"], runjobs)
    assert 0 <= row["lost"] <= acct["sent"] - acct["received"], (row, acct["received"])
    row["note"] = ("systemd restarted it after %.1f s (%d lines sent meanwhile by RunJobs, all "
                   "written); received: both daemons" % (t_up - t_kill, jobs["sent"]))
