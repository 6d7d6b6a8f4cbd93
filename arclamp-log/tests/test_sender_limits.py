"""What an unprivileged sender can make the daemon write (issue 14, items 1
and 5): a flood of new entry points from `nobody` creates at most
max_tags_per_bucket tag files per log group, the rest counted and logged
once; below the free-disk floor lines are refused and counted, and taken
again once space returns. Datagrams go to 127.0.0.1 only."""

import datetime
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import base_config, count_lines, free_port, lines_of, tags_in
from testkit import metric, read_metrics, wait_until

AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]

# Sends each argument line (or `count` random entry points) as one datagram,
# paced so the daemon's receive buffer never overflows.
SENDER = r"""
import os, socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(count):
    s.sendto(b"/x/%s.php;f 1" % os.urandom(4).hex().encode(), ("127.0.0.1", port))
    if i % 200 == 199:
        time.sleep(0.02)
for line in sys.argv[3:]:
    s.sendto(line.encode(), ("127.0.0.1", port))
print(os.getuid())
"""


def send_as_nobody(port, count=0, lines=()):
    """Runs SENDER as nobody; returns nothing, asserts it ran unprivileged."""
    out = subprocess.run(AS_NOBODY + [sys.executable, "-c", SENDER, str(port), str(count)]
                         + list(lines), stdout=subprocess.PIPE, timeout=60, check=True)
    assert int(out.stdout) != 0, "the sender ran as root"


def needs_root():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to send as nobody")


def same_hour_for(seconds):
    """Waits (at most `seconds`) so that the next `seconds` stay in one hourly bucket."""
    now = datetime.datetime.utcnow()
    left = 3600 - (now.minute * 60 + now.second)
    if left < seconds:
        time.sleep(left + 1)


def refusals(text, reason):
    """Log lines about refusals of this reason: first ones and bucket summaries."""
    return [l for l in text.splitlines() if "lines_refused" in l and "=%s" % reason in l]


def test_flood_of_new_entry_points_from_nobody_makes_at_most_the_limit_of_tag_files(
        daemon_factory, workdir):
    """The attack of issue 14: 5,000 datagrams of 18 bytes, each a new entry
    point, made 10,002 trace logs. With the default limit (300 new tags per
    bucket) each group gets 300 tag files; every line is in the all log."""
    needs_root()
    port = free_port(socket.SOCK_DGRAM)
    cfg = base_config(workdir, listen=["udp://127.0.0.1:%d" % port])
    d = daemon_factory(cfg).start()
    base = workdir / "logs"
    same_hour_for(60)
    flood = 5000
    send_as_nobody(port, flood, lines=["/x/index.php;after 1"])
    metrics = workdir / "metrics.prom"
    wait_until(lambda: metric(read_metrics(metrics), "arclamp_log_lines_received_total")
               >= flood + 1, timeout=60, what="every datagram",
               describe=lambda: read_metrics(metrics))
    wait_until(lambda: count_lines(base, "hourly") == flood + 1, what="every line in all")
    m = read_metrics(metrics)
    assert metric(m, "arclamp_log_datagrams_dropped_total") == 0
    for period in ("hourly", "daily"):
        tags = tags_in(base, period)
        assert len(tags) == 1 + 300, (period, len(tags))   # all + 300 tags
        assert len(os.listdir(str(base / period))) == 1 + 300
        assert len(lines_of(base, period)) == flood + 1
    # index was the 5,001st new tag: refused as well, its line in all only
    assert "index" not in tags_in(base, "hourly")
    refused = (flood + 1 - 300) * 2
    assert metric(m, "arclamp_log_lines_refused_total", reason="tag_limit") == refused
    assert metric(m, "arclamp_log_lines_dropped_total", reason="write_error") == 0
    assert d.stop() == 0
    # logged once per group at the first refusal, once more with the count
    # when the bucket ends (here: at the stop), never once per line
    logged = refusals(d.stderr_text(), "tag_limit")
    assert len(logged) == 4, logged
    assert sum(1 for l in logged if "ARCLAMP_COUNT=%d" % (flood + 1 - 300 - 1) in l) == 2, logged


def _can_mount_tmpfs():
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs root and mount namespaces")
def test_below_the_disk_floor_lines_are_refused_counted_and_taken_again_when_space_returns(
        daemon_factory, workdir):
    """base_path is a 4 MiB tmpfs in the daemon's own mount namespace with a
    floor of 2 MiB; a filler file takes it below the floor."""
    needs_root()
    logs = workdir / "logs"
    logs.mkdir()
    port = free_port(socket.SOCK_DGRAM)
    cfg = base_config(workdir, listen=["udp://127.0.0.1:%d" % port],
                      min_free_disk_bytes=2 << 20, min_free_disk_percent=0)
    mount = "mount -t tmpfs -o size=4m tmpfs '%s' && exec \"$0\" \"$@\"" % logs
    d = daemon_factory(cfg, argv_prefix=["unshare", "-m", "--propagation", "private",
                                         "sh", "-c", mount]).start()
    inside = lambda p: "/proc/%d/root%s" % (d.pid, p)
    hourly, metrics = inside(str(logs / "hourly")), workdir / "metrics.prom"
    all_lines = lambda: sum(len(open(os.path.join(hourly, n), "rb").read().splitlines())
                            for n in os.listdir(hourly) if n.endswith(".all.log"))
    same_hour_for(30)

    send_as_nobody(port, lines=["/x/index.php;before %d 1" % i for i in range(10)])
    wait_until(lambda: os.path.isdir(hourly) and all_lines() == 10, what="lines above the floor")

    filler = inside(str(logs / "filler"))
    with open(filler, "wb") as f:
        f.write(b"\0" * (3 << 20))            # 1 MiB left: below the floor
    time.sleep(1.2)                           # free space is looked at once a second
    send_as_nobody(port, lines=["/x/index.php;below %d 1" % i for i in range(20)])
    wait_until(lambda: metric(read_metrics(metrics), "arclamp_log_lines_refused_total",
                              reason="disk_floor") == 40, what="40 refusals (20 lines, 2 groups)")
    assert all_lines() == 10
    assert len(refusals(d.stderr_text(), "disk_floor")) == 2   # once per group
    assert "below the floor" in d.stderr_text()

    os.unlink(filler)
    time.sleep(1.2)
    send_as_nobody(port, lines=["/x/index.php;after %d 1" % i for i in range(5)])
    wait_until(lambda: all_lines() == 15, what="lines taken again once space returned")
    m = read_metrics(metrics)
    assert metric(m, "arclamp_log_lines_refused_total", reason="disk_floor") == 40
    assert metric(m, "arclamp_log_lines_dropped_total", reason="write_error") == 0
    assert metric(m, "arclamp_log_write_errors_total") == 0   # the disk never filled
    assert len(refusals(d.stderr_text(), "disk_floor")) == 2   # no new entry per line
    assert d.stop() == 0


UNIX_SENDER = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    s.sendto(sys.argv[2].encode(), sys.argv[1])
    print("sent")
except PermissionError:
    print("refused")
"""


def send_unix_as_nobody(path, line, group="nogroup"):
    argv = ["setpriv", "--reuid=nobody", "--regid=%s" % group, "--clear-groups"]
    out = subprocess.run(argv + [sys.executable, "-c", UNIX_SENDER, str(path), line],
                         stdout=subprocess.PIPE, timeout=30, check=True)
    return out.stdout.decode().strip()


def test_only_the_sender_group_may_send_to_the_daemons_unix_socket(daemon_factory, workdir):
    """The daemon's own unix socket (listen:) was 0666: anyone local could
    feed the logs. It is now listen_socket_mode (0660) with the group
    listen_socket_group; here nogroup stands in for arclamp-senders."""
    needs_root()
    workdir.chmod(0o755)   # nobody may reach the socket; its mode decides
    sock = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock])
    d = daemon_factory(cfg).start()
    st = os.stat(str(sock))
    assert st.st_mode & 0o777 == 0o660, oct(st.st_mode)
    assert send_unix_as_nobody(sock, "/x/outsider.php;f 1") == "refused"

    cfg["listen_socket_group"] = "nogroup"
    d.write_config(cfg)
    start = len(d.notify)
    d.signal(signal.SIGHUP)               # the socket is made again
    d.notify.wait_for("READY=1", start=start)
    import grp
    assert os.stat(str(sock)).st_gid == grp.getgrnam("nogroup").gr_gid
    assert send_unix_as_nobody(sock, "/x/member.php;f 1") == "sent"
    wait_until(lambda: count_lines(workdir / "logs", "hourly") == 1, what="the member's line")
    assert lines_of(workdir / "logs", "hourly") == [b"/x/member.php;f 1"]
    assert d.stop() == 0
