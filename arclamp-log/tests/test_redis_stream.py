"""Redis Streams input: nothing sent while the daemon is down, or killed, is lost."""

import collections
import os
import threading
import time
import warnings

import pytest

from conftest import SAMPLE_RE, base_config, count_lines, lines_of, make_batch
from testkit import metric, read_metrics, wait_until

GROUP = "arclamp-log"


def stream_config(workdir, redis, **redis_over):
    cfg = base_config(workdir, redis=redis)
    cfg["redis"]["mode"] = "stream"
    cfg["redis"]["stream_consumer"] = "test-consumer"
    cfg["redis"].update(redis_over)
    return cfg


def xadd(redis, lines, key="excimer"):
    with redis.client() as c:
        replies = c.pipeline([("XADD", key, "*", "sample", l) for l in lines])
    assert all(isinstance(r, bytes) for r in replies), replies[:3]


def pending(redis, key="excimer"):
    with redis.client() as c:
        try:
            return int(c.command("XPENDING", key, GROUP)[0])
        except Exception:
            return -1


def xlen(redis, key="excimer"):
    with redis.client() as c:
        return int(c.command("XLEN", key))


def test_stream_entries_added_while_daemon_stopped_are_written_exactly_once(
        redis_server, daemon_factory, workdir):
    base = workdir / "logs"
    a, _ = make_batch(30, "A")   # before the daemon ever ran (group created at 0)
    b, _ = make_batch(40, "B")   # while it runs
    c_, _ = make_batch(50, "C")  # while it is stopped
    e, _ = make_batch(20, "E")   # after the restart
    xadd(redis_server, a)
    d = daemon_factory(stream_config(workdir, redis_server)).start()
    xadd(redis_server, b)
    wait_until(lambda: count_lines(base, "hourly") >= 70, what="A+B lines",
               describe=lambda: count_lines(base, "hourly"))
    wait_until(lambda: pending(redis_server) == 0, what="no pending entries")
    assert d.stop() == 0

    xadd(redis_server, c_)
    d.start()
    xadd(redis_server, e)
    total = a + b + c_ + e
    for period in ("hourly", "daily"):
        wait_until(lambda: count_lines(base, period) >= len(total), what="%s lines" % period,
                   describe=lambda: count_lines(base, period))
    # acknowledged (and, by default, deleted) once written
    wait_until(lambda: pending(redis_server) == 0, what="XPENDING 0")
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        got = lines_of(base, period)
        assert collections.Counter(got) == collections.Counter(total)
    # acknowledged entries are deleted (stream_delete_acked defaults to true)
    assert xlen(redis_server) == 0


def test_stream_daemon_sigkilled_mid_ingest_then_restarted_loses_nothing(
        redis_server, daemon_factory, workdir):
    base = workdir / "logs"
    d = daemon_factory(stream_config(workdir, redis_server, stream_batch=50)).start()
    sent = []
    first, _ = make_batch(1500, "K1")
    for i in range(0, 1500, 100):
        xadd(redis_server, first[i:i + 100])
        sent += first[i:i + 100]
    wait_until(lambda: count_lines(base, "hourly") >= 1500, what="the first lines")
    # a large backlog read 50 entries at a time: the kill lands in the middle of it
    backlog, _ = make_batch(10000, "K2")
    xadd(redis_server, backlog)
    sent += backlog
    d.kill()
    unread_at_kill = xlen(redis_server)
    print("entries left in the stream at the kill: %d" % unread_at_kill)
    second, _ = make_batch(500, "K3")
    xadd(redis_server, second)
    sent += second
    d.start()
    for period in ("hourly", "daily"):
        wait_until(lambda: set(lines_of(base, period)) >= set(sent),
                   what="every line in %s after the restart" % period,
                   describe=lambda: "%d of %d" % (len(set(lines_of(base, period)) & set(sent)),
                                                  len(sent)))
    wait_until(lambda: pending(redis_server) == 0, what="XPENDING 0")
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        got = lines_of(base, period)
        assert all(SAMPLE_RE.match(l) for l in got), "torn or invalid line after SIGKILL"
        assert set(got) == set(sent), "unknown lines written"
        dups = sum(n - 1 for n in collections.Counter(got).values() if n > 1)
        if dups:
            # allowed (written but not yet acknowledged when killed); reported, not failed
            warnings.warn("%s: %d duplicate lines after SIGKILL+restart in stream mode "
                          "(%d entries not yet deleted at the kill)" % (period, dups, unread_at_kill))


def test_stream_redis_restart_daemon_reconnects_and_reads_new_entries(
        redis_server_aof, daemon_factory, workdir):
    redis = redis_server_aof
    base = workdir / "logs"
    d = daemon_factory(stream_config(workdir, redis, health_check_interval=1)).start()
    before, _ = make_batch(40, "R1")
    xadd(redis, before)
    wait_until(lambda: count_lines(base, "hourly") >= 40, what="lines before the redis restart")
    wait_until(lambda: pending(redis) == 0, what="acknowledged before the restart")
    redis.kill()
    wait_until(lambda: metric(read_metrics(workdir / "metrics.prom"),
                              "arclamp_log_redis_connected") == 0,
               what="arclamp_log_redis_connected to drop to 0")
    assert d.alive(), "daemon exited when redis went away"
    redis.start()
    after, _ = make_batch(60, "R2")
    xadd(redis, after)
    wait_until(lambda: count_lines(base, "hourly") >= 100, what="lines after the redis restart",
               describe=lambda: count_lines(base, "hourly"))
    assert d.alive()
    assert d.stop() == 0
    assert collections.Counter(lines_of(base, "hourly")) == collections.Counter(before + after)


def test_stream_pending_entries_of_own_consumer_are_reread_on_start(
        redis_server, daemon_factory, workdir):
    """Entries delivered to this consumer but never acknowledged (a crash between
    XREADGROUP and XACK) are not delivered again by `>`: the daemon must re-read them."""
    base = workdir / "logs"
    lost, _ = make_batch(25, "P")
    xadd(redis_server, lost)
    with redis_server.client() as c:
        c.command("XGROUP", "CREATE", "excimer", GROUP, "0", "MKSTREAM")
        got = c.command("XREADGROUP", "GROUP", GROUP, "test-consumer", "COUNT", "1000",
                        "STREAMS", "excimer", ">")
    assert len(got[0][1]) == 25
    assert pending(redis_server) == 25
    fresh, _ = make_batch(5, "F")
    xadd(redis_server, fresh)
    d = daemon_factory(stream_config(workdir, redis_server)).start()
    wait_until(lambda: count_lines(base, "hourly") >= 30, what="pending and new entries",
               describe=lambda: count_lines(base, "hourly"))
    wait_until(lambda: pending(redis_server) == 0, what="XPENDING 0")
    assert d.stop() == 0
    assert collections.Counter(lines_of(base, "hourly")) == collections.Counter(lost + fresh)


def test_stream_delete_acked_false_keeps_acknowledged_entries(
        redis_server, daemon_factory, workdir):
    base = workdir / "logs"
    d = daemon_factory(stream_config(workdir, redis_server, stream_delete_acked=False)).start()
    lines, _ = make_batch(12, "keep")
    xadd(redis_server, lines)
    wait_until(lambda: count_lines(base, "hourly") >= 12, what="lines")
    wait_until(lambda: pending(redis_server) == 0, what="XPENDING 0")
    assert d.stop() == 0
    assert xlen(redis_server) == 12
    assert sorted(lines_of(base, "hourly")) == sorted(lines)


def test_stream_lines_that_cannot_be_written_stay_pending_and_arrive_later(
        redis_server, daemon_factory, workdir):
    """Under load the log directories become unwritable (the daemon runs as
    nobody, as the packaged one runs as arclamp), then writable again:
    nothing is acknowledged before it is written, and every line arrives,
    at least once."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run the daemon as nobody")
    import pwd
    nobody = pwd.getpwnam("nobody")
    workdir.chmod(0o755)
    base = workdir / "logs"
    state = workdir / "state"
    for d in (base, base / "hourly", base / "daily", state):
        d.mkdir(parents=True, exist_ok=True)
        os.chown(str(d), nobody.pw_uid, nobody.pw_gid)
    cfg = stream_config(workdir, redis_server, stream_batch=20)
    cfg["metrics_file"] = str(state / "metrics.prom")
    d = daemon_factory(cfg, argv_prefix=["setpriv", "--reuid=nobody", "--regid=nogroup",
                                         "--clear-groups"])
    os.chmod(d.notify.path, 0o777)
    d.start()
    assert os.stat("/proc/%d" % d.pid).st_uid == nobody.pw_uid

    sent = []
    stop = threading.Event()

    def publisher():
        # New entry points all the time: each needs a file of its own.
        for i in range(3000):
            if stop.is_set():
                return
            entry = "/srv/w/ep%d.php" % (i // 10)
            line = ("%s;main;work_%d 1" % (entry, i)).encode()
            xadd(redis_server, [line])
            sent.append(line)
            time.sleep(0.002)

    t = threading.Thread(target=publisher)
    t.start()
    try:
        wait_until(lambda: count_lines(base, "hourly") >= 50, what="lines while writable")
        for sub in ("hourly", "daily"):
            (base / sub).chmod(0o555)
        wait_until(lambda: metric(read_metrics(state / "metrics.prom"),
                                  "arclamp_log_lines_deferred_total") > 0,
                   what="lines deferred while the directories are read-only")
        time.sleep(1.5)
        assert pending(redis_server) > 0, "entries acknowledged that were not written"
        for sub in ("hourly", "daily"):
            (base / sub).chmod(0o755)
    finally:
        stop.set()
        t.join(timeout=30)
        for sub in ("hourly", "daily"):
            (base / sub).chmod(0o755)
    for period in ("hourly", "daily"):
        wait_until(lambda: set(lines_of(base, period)) >= set(sent),
                   what="every line in %s" % period, timeout=60,
                   describe=lambda: "%d of %d" % (len(set(lines_of(base, period)) & set(sent)),
                                                  len(sent)))
    wait_until(lambda: pending(redis_server) == 0, what="XPENDING 0", timeout=30)
    m = read_metrics(state / "metrics.prom")
    assert metric(m, "arclamp_log_lines_dropped_total", reason="write_error") == 0
    assert d.stop() == 0
    # Each tag file has its lines too, at least once.
    by_tag = collections.defaultdict(set)
    for line in sent:
        by_tag[line.split(b";")[0].rsplit(b"/", 1)[1][:-4].decode()].add(line)
    for tag, lines in by_tag.items():
        assert set(lines_of(base, "hourly", tag)) >= lines, tag
    text = d.stderr_text()
    assert text.count("redis_stream_deferred") == 1, text[-3000:]
    assert "redis_stream_resumed" in text
    assert xlen(redis_server) == 0


def test_lines_refused_by_a_limit_are_final_their_entries_acknowledged(
        redis_server, daemon_factory, workdir):
    """A tag file beyond max_tags_per_bucket is refused for good (the limit
    holds until the bucket ends): unlike a line the disk refused, its entry
    is acknowledged and counted, not left pending to be read again."""
    base = workdir / "logs"
    cfg = stream_config(workdir, redis_server)
    cfg["max_tags_per_bucket"] = 2
    d = daemon_factory(cfg).start()
    lines = [("/srv/w/ep%d.php;main 1" % i).encode() for i in range(5)]
    xadd(redis_server, lines)
    wait_until(lambda: count_lines(base, "hourly") == 5, what="every line in all")
    wait_until(lambda: pending(redis_server) == 0 and xlen(redis_server) == 0,
               what="every entry acknowledged and deleted")
    wait_until(lambda: metric(read_metrics(workdir / "metrics.prom"),
                              "arclamp_log_lines_refused_total", reason="tag_limit") == 6,
               what="3 refusals in each of the 2 groups")
    m = read_metrics(workdir / "metrics.prom")
    assert metric(m, "arclamp_log_lines_deferred_total") == 0
    assert "redis_stream_deferred" not in d.stderr_text()
    assert d.stop() == 0


def test_stream_server_without_xautoclaim_is_read_and_said_once(daemon_factory, workdir):
    """A server that refuses XAUTOCLAIM (Redis before 6.2, or an ACL):
    entries are still read and written; the refusal is logged once, and
    XAUTOCLAIM is not sent again at later claim rounds."""
    from conftest import redis_instance

    def stat(server, section, name):
        with server.client() as c:
            info = c.command("INFO", section).decode()
        for line in info.splitlines():
            if line.startswith(name + ":"):
                return int(line.split("calls=" if "calls=" in line else "count=")[1]
                           .split(",")[0])
        return 0

    with redis_instance(extra_args=["--rename-command", "XAUTOCLAIM", ""]) as server:
        server.start()
        # a claim round is due every second; a read blocks half a second
        d = daemon_factory(stream_config(workdir, server, stream_claim_idle=1,
                                         health_check_interval=1)).start()
        lines, _ = make_batch(20, "X")
        xadd(server, lines)
        base = workdir / "logs"
        wait_until(lambda: count_lines(base, "hourly") >= 20, what="the entries written")
        wait_until(lambda: d.stderr_text().count("XAUTOCLAIM refused") >= 1, what="the refusal")
        reads = stat(server, "commandstats", "cmdstat_xreadgroup")
        # Eight more blocking reads: four seconds in which four claim
        # rounds were due.
        wait_until(lambda: stat(server, "commandstats", "cmdstat_xreadgroup") >= reads + 8,
                   what="eight more reads")
        assert d.stderr_text().count("XAUTOCLAIM refused") == 1
        assert stat(server, "errorstats", "errorstat_ERR") == 1  # one unknown command
        assert pending(server) == 0
