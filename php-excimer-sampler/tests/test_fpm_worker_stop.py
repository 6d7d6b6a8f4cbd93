"""What a php-fpm worker holds leaves it before it stops (src/fpm_worker.h).

php-fpm's workers take SIGTERM's default action (die at once) and get it
when their pool stops: `systemctl stop` sends it to every process of the
unit, the master's fast shutdown to its workers (and SIGKILL at once after
it under Debian's default process_control_timeout = 0). Before, the request
tiers' aggregates of a worker and the samples its sender was holding back
(excimer.arclamp_send_delay) were lost then: a worker that served 3 requests
sent 0 tier lines. Here a real php-fpm (its own configuration, a unix socket
in a temporary directory) serves requests and is stopped in each of these
ways; the tier lines (`_total` calls = requests served, once) and the
samples arrive on the socket the test listens on.
"""

import os
import signal

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "common" / "tests"))
sys.path.insert(0, str(REPO / "integration-tests"))
from harness.fcgi import cgi_params, request  # noqa: E402
from testkit import repo_bin, wait_until  # noqa: E402

sys.path.insert(0, str(HERE))
from test_combinations import Receiver, tier_totals, sample_lines  # noqa: E402

PHP_FPM = "/usr/sbin/php-fpm8.2"
EXCIMER = Path(repo_bin("EXCIMER_BUILD_PHP", "build/php")) / "excimer.so"
REQUESTS = 3


def fpm_config(tmp, recv, control_timeout):
    ini = tmp / "php.ini"
    ini.write_text("\n".join([
        "extension=%s" % EXCIMER,
        'excimer.tiers="rep=str_repeat"',
        'excimer.tiers_target="unix://%s"' % recv,
        "excimer.tiers_flush_interval=600",     # never flushed at a request's end here
        'excimer.arclamp_target="unix://%s"' % recv,
        "excimer.arclamp_period=0.001",
        "excimer.arclamp_event_type=real",
        "excimer.arclamp_send_delay=60",        # samples held back by the sender
        "excimer.arclamp_timeout=2",
        "excimer.arclamp_timeout_max=5",
    ]) + "\n")
    conf = tmp / "php-fpm.conf"
    conf.write_text("\n".join([
        "[global]",
        "pid = %s" % (tmp / "fpm.pid"),
        "error_log = %s" % (tmp / "fpm.log"),
        "daemonize = no",
        "process_control_timeout = %s" % control_timeout,
        "[web]",
        "listen = %s" % (tmp / "fpm.sock"),
        "pm = static",
        "pm.max_children = 1",
    ]) + "\n")
    (tmp / "index.php").write_text(
        "<?php $t = hrtime(true); $n = 0;\n"
        "while (hrtime(true) - $t < 20e6) { $n += strlen(str_repeat('x', 100)); }\n"
        "echo 'served ', $n > 0 ? 'yes' : 'no', \"\\n\";\n"
        "if (isset($_GET['deferred'])) { fastcgi_finish_request(); usleep(300000); }\n")
    return ini, conf


def children_of(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], stdout=subprocess.PIPE, text=True).stdout
    return [int(p) for p in out.split()]


def gone(pids):
    return not any(os.path.exists("/proc/%d" % p) for p in pids)


# (how the pool is stopped, process_control_timeout, whether the test waits
# for the idle flush first, whether the held samples must arrive)
WAYS = {
    "SIGTERM to the worker right after its requests": ("0", False, True),
    "SIGTERM to the worker during deferred work after its response": ("0", False, True),
    "systemctl stop (SIGTERM to all) after the traffic": ("0", True, False),
    "the master's fast shutdown, process_control_timeout=5s": ("5s", False, True),
}


@pytest.mark.parametrize("way", list(WAYS))
def test_a_stopped_worker_delivers_what_it_holds(way):
    control_timeout, wait_idle, samples_arrive = WAYS[way]
    if os.geteuid() != 0:
        pytest.skip("php-fpm's workers need a user to run as: run as root")
    with tempfile.TemporaryDirectory(prefix="fpm-term-") as d:
        tmp = Path(d)
        recv = tmp / "in.sock"
        receiver = Receiver(str(recv))
        ini, conf = fpm_config(tmp, recv, control_timeout)
        fpm = subprocess.Popen([PHP_FPM, "-n", "-c", str(ini), "-y", str(conf), "-F", "-R"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: (tmp / "fpm.sock").exists(), what="php-fpm's socket")
            url = "/index.php?deferred=1" if "deferred" in way else "/index.php"
            for _ in range(REQUESTS):
                r = request(str(tmp / "fpm.sock"), cgi_params(str(tmp), url))
                assert b"served yes" in r.body, (r.body, r.stderr)
            workers = wait_until(lambda: children_of(fpm.pid), what="php-fpm's worker")
            if wait_idle:  # the idle worker's aggregates, without any stop
                wait_until(lambda: tier_totals(receiver.lines)[0] == REQUESTS,
                           what="the idle worker's tier lines")
            if "deferred" in way:  # (the last request goes on after its response)
                assert not gone(workers)
            if way.startswith("SIGTERM to the worker"):
                os.kill(workers[0], signal.SIGTERM)
                wait_until(lambda: gone(workers), what="the worker's end")
                fpm.send_signal(signal.SIGQUIT)
            else:
                for pid in (workers + [fpm.pid] if way.startswith("systemctl") else [fpm.pid]):
                    os.kill(pid, signal.SIGTERM)
            fpm.wait(timeout=60)
            # the master does not always wait for its workers' end: the test does
            wait_until(lambda: gone(workers), what="the workers' end")
        finally:
            if fpm.poll() is None:
                fpm.kill()
                fpm.wait()
            receiver.close()
        log = (tmp / "fpm.log").read_text()
        assert "SIGSEGV" not in log and "signal 11" not in log, log
        requests, traced, calls = tier_totals(receiver.lines)
        assert (requests, traced) == (REQUESTS, REQUESTS), (receiver.lines[:20], log)
        assert calls.get("_total") == REQUESTS
        assert calls.get("rep", 0) >= REQUESTS
        if samples_arrive:
            assert sample_lines(receiver.lines), "the samples held back were not delivered"
