"""The daemon under failures that no error code announces: a Redis that
stops answering without closing the connection, and a disk that fills up."""

import os
import shutil
import signal
import subprocess

import pytest

from conftest import SAMPLE_RE, base_config, count_lines, make_batch, read_lines
from testkit import metric, read_metrics, wait_until


def test_silent_redis_is_detected_by_the_health_check_and_the_daemon_resubscribes(
        redis_server, daemon_factory, workdir):
    cfg = base_config(workdir, redis=redis_server)
    cfg["redis"]["health_check_interval"] = 0.3
    d = daemon_factory(cfg).start()
    redis_server.wait_subscribed()

    # A stopped redis-server keeps its sockets open: only the health check
    # can tell the connection is dead.
    redis_server.proc.send_signal(signal.SIGSTOP)
    try:
        wait_until(lambda: "no answer to the health check" in d.stderr_text(), timeout=10,
                   what="the health check to give up on the silent connection")
        assert d.alive()
    finally:
        redis_server.proc.send_signal(signal.SIGCONT)

    redis_server.wait_subscribed()
    lines, _ = make_batch(50, "after-silence")
    with redis_server.client() as c:
        assert c.pipeline([("PUBLISH", "excimer", l) for l in lines]) == [1] * len(lines)
    wait_until(lambda: count_lines(workdir / "logs", "hourly") >= len(lines),
               what="lines published after the silence")
    m = read_metrics(workdir / "metrics.prom")
    assert metric(m, "arclamp_log_redis_reconnects_total") >= 1
    assert d.stop() == 0


def _can_mount_tmpfs():
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs root and mount namespaces")
def test_full_disk_is_reported_lines_kept_and_writing_resumes_when_space_returns(
        daemon_factory, workdir):
    """base_path is a 256 KiB tmpfs in the daemon's own mount namespace; the
    test reaches it through /proc/PID/root."""
    logs = workdir / "logs"
    logs.mkdir()
    cfg = base_config(workdir, listen=["unix://%s" % (workdir / "ingest.sock")],
                      logs=[{"period": "hourly", "format": "%Y-%m-%d_%H", "retain": 5}])
    mount = ("mount -t tmpfs -o size=256k tmpfs '%s' && exec \"$0\" \"$@\"" % logs)
    d = daemon_factory(cfg, argv_prefix=["unshare", "-m", "--propagation", "private",
                                         "sh", "-c", mount])
    d.start()
    inside = lambda p: "/proc/%d/root%s" % (d.pid, p)
    filler = inside(str(logs / "filler"))
    wait_until(lambda: os.path.exists(inside(str(workdir / "ingest.sock"))),
               what="the ingest socket")
    sock = inside(str(workdir / "ingest.sock"))

    # Fill the disk but for a few KiB.
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for _ in range(1024):  # 4 MiB at most: the tmpfs holds 256 KiB
            os.write(fd, b"x" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    os.truncate(filler, os.path.getsize(filler) - 8192)

    from conftest import send_unix
    lines, _ = make_batch(300, "diskfull")  # ~30 KiB: does not fit
    send_unix(sock, lines)
    wait_until(lambda: "write_failed" in d.stderr_text(), what="the write failure to be logged")
    assert d.alive()

    # Space returns: every line is written, none torn, none lost.
    os.unlink(filler)
    hourly = inside(str(logs / "hourly"))
    wait_until(lambda: sum(1 for p in os.listdir(hourly) if p.endswith(".all.log")) and
               len(read_lines([os.path.join(hourly, p) for p in os.listdir(hourly)
                               if p.endswith(".all.log")])) == len(lines),
               what="the kept lines to be written once space returned")
    assert "write_resumed" in d.stderr_text()
    for name in os.listdir(hourly):
        data = open(os.path.join(hourly, name), "rb").read()
        assert data.endswith(b"\n")
        assert all(SAMPLE_RE.match(l) for l in data.split(b"\n")[:-1]), name
    m = read_metrics(workdir / "metrics.prom")
    assert metric(m, "arclamp_log_write_errors_total") >= 1
    assert metric(m, "arclamp_log_lines_dropped_total", reason="write_error") == 0
    assert d.stop() == 0
