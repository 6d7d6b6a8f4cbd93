"""sd_notify protocol: READY, STATUS, WATCHDOG, RELOADING, STOPPING."""

import signal
import time

from conftest import base_config, count_lines, lines_of, sample_line, send_unix
from testkit import metric, read_metrics, wait_until


def test_notify_ready_status_watchdog_reload_and_stop(daemon_factory, workdir):
    sock_path = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock_path])
    # 1 s: the daemon pings every 0.5 s; a shorter interval made the test fail
    # on a loaded 2-core machine (the ASan build once paused 0.35 s).
    d = daemon_factory(cfg, extra_env={"WATCHDOG_USEC": "1000000"})  # no WATCHDOG_PID
    n = d.notify
    d.start(wait_ready=False)

    ready = n.wait_for("READY=1", timeout=15, alive=d.alive)
    # READY=1 means every input is open: the ingest socket takes a line right away
    send_unix(sock_path, [sample_line(1, "notify")])
    wait_until(lambda: count_lines(workdir / "logs", "hourly") == 1, what="line after READY")

    # STATUS= at least once (it comes with READY, then every 5 s)
    i = n.wait_for("STATUS=", timeout=6)
    assert len(n.values()[i]) > len("STATUS="), "empty STATUS"

    # WATCHDOG=1 repeatedly, each within WATCHDOG_USEC (1 s) of the previous
    n.wait_for("WATCHDOG=1", start=ready, timeout=5)
    mark = len(n)
    t0 = time.monotonic()
    time.sleep(3.0)  # observation window (the reader thread timestamps each datagram)
    window = [t for t, s in n.snapshot()[mark:] if s == "WATCHDOG=1" and t >= t0]
    assert len(window) >= 4, "only %d WATCHDOG=1 in 3 s" % len(window)
    gaps = [b - a for a, b in zip([t0] + window, window + [t0 + 3.0])]
    assert max(gaps) < 1.0, "watchdog gap of %.3fs exceeds WATCHDOG_USEC" % max(gaps)

    # SIGHUP: RELOADING=1, then READY=1 again
    mark = len(n)
    d.signal(signal.SIGHUP)
    reloading = n.wait_for("RELOADING=1", start=mark, timeout=10, alive=d.alive)
    n.wait_for("READY=1", start=reloading + 1, timeout=10, alive=d.alive)
    # and it still works after the reload
    send_unix(sock_path, [sample_line(2, "notify")])
    wait_until(lambda: count_lines(workdir / "logs", "hourly") == 2, what="line after reload")

    # SIGTERM: STOPPING=1 and exit status 0
    mark = len(n)
    d.signal(signal.SIGTERM)
    assert d.wait_exit(timeout=15) == 0
    n.wait_for("STOPPING=1", start=mark, timeout=2)


def test_sigint_stops_cleanly_and_flushes_buffered_lines(daemon_factory, workdir):
    sock_path = workdir / "ingest.sock"
    # a long flush interval: only the shutdown flush can write the line in time
    cfg = base_config(workdir, listen=["unix://%s" % sock_path], flush_interval=30)
    d = daemon_factory(cfg).start()
    line = sample_line(7, "sigint")
    send_unix(sock_path, [line])
    wait_until(lambda: metric(read_metrics(workdir / "metrics.prom"),
                              "arclamp_log_lines_received_total") >= 1,
               what="line received (metrics)")
    d.signal(signal.SIGINT)
    assert d.wait_exit(timeout=15) == 0
    assert lines_of(workdir / "logs", "hourly") == [line]
    assert lines_of(workdir / "logs", "daily") == [line]
