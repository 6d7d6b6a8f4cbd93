"""Redis Cluster input, against a real 3-master, 3-replica cluster of
redis-server processes on 127.0.0.1 (common/tests/clusterkit.py): shard keys
CHANNEL{N} read on the masters serving them, several collectors sharing the
shards, a master killed under load, a collector's entries taken over, a slot
migrated under load. Senders here are plain RESP clients that send each
shard's lines to the master of its slot, as the extension's cluster target
does."""

import threading
import time

import pytest

from clusterkit import key_slot, redis_cluster, redis_cluster_missing
from conftest import RedisClient, RedisError, base_config, lines_of, sample_line
from testkit import metric, read_metrics, wait_until

pytestmark = pytest.mark.skipif(bool(redis_cluster_missing()), reason=redis_cluster_missing())

SHARDS = 6
WAIT = 120


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with redis_cluster(tmp_path_factory.mktemp("cluster")) as c:
        yield c


@pytest.fixture
def healthy(cluster):
    """The module's cluster, with every node running again after the test
    (a killed master comes back as a replica)."""
    yield cluster
    for port in cluster.ports:
        if cluster.pid(port) is None:
            cluster.restart(port)
    cluster.wait_stable()


def collector_config(dirpath, cluster, channel, mode, **redis_over):
    cfg = base_config(dirpath)
    cfg["redis_channel"] = channel
    cfg["redis"] = {"cluster": cluster.seeds[:2], "shards": SHARDS, "mode": mode,
                    "reconnect_max_delay": 1, "connect_timeout": 2,
                    "health_check_interval": 2, "cluster_refresh_interval": 2,
                    "stream_group": "g-" + channel}
    cfg["redis"].update(redis_over)
    return cfg


def shard_lines(shard, n, marker):
    return [sample_line(i, "%s%d" % (marker, shard)) for i in range(n)]


def has_replica(client):
    """Whether the master has a replica now (a promoted one has none until
    its old master comes back)."""
    info = client.command("INFO", "replication").decode()
    return any(l.startswith("connected_slaves:") and int(l.split(":")[1]) > 0
               for l in info.splitlines())


def send(cluster, key, lines, stream, timeout=WAIT, resent=None):
    """Sends each line (XADD or SPUBLISH) to the master of the key's slot,
    resending what failed (a master down, a MOVED) until every line was
    accepted; lines sent more than once are added to `resent`. Returns the
    replies (SPUBLISH: receivers)."""
    slot = key_slot(key)
    replies = [None] * len(lines)
    deadline = time.monotonic() + timeout
    tried = set()
    while True:
        todo = [i for i, r in enumerate(replies) if r is None]
        if not todo:
            return replies
        if resent is not None:
            resent.extend(lines[i] for i in todo if i in tried)
        tried.update(todo)
        try:
            port = cluster.port_of(cluster.master_of(slot))
            with RedisClient(port, timeout=10) as c:
                cmds = [("XADD", key, "*", "sample", lines[i]) if stream
                        else ("SPUBLISH", key, lines[i]) for i in todo]
                # Streams: accepted only once a replica has them too (WAIT):
                # an entry a master acknowledged and took with it when it
                # died is Redis's asynchronous replication, not ours to test.
                got = c.pipeline(cmds)
                if stream and has_replica(c) and c.command("WAIT", 1, 2000) < 1:
                    got = []  # not replicated: send them all again
            for i, r in zip(todo, got):
                if not isinstance(r, RedisError):
                    replies[i] = r
        except (OSError, RedisError, TypeError, AttributeError):
            pass  # a master gone, the map in flux: ask again
        if time.monotonic() > deadline:
            raise AssertionError("%s: %d lines not accepted in %ds" % (
                key, sum(r is None for r in replies), timeout))
        time.sleep(0.05)


def metrics_of(d):
    return read_metrics(d.workdir / "metrics.prom")


def wait_metric(d, name, pred, what):
    wait_until(lambda: pred(metric(metrics_of(d), name)), timeout=WAIT, what=what,
               describe=lambda: "%s = %s" % (name, metric(metrics_of(d), name)))


def wait_shards(d, n):
    wait_until(lambda: metric(metrics_of(d), "arclamp_log_cluster_shards_connected") == n,
               timeout=WAIT, what="%d shards connected" % n,
               describe=lambda: d.stderr_text()[-2000:])


def written(d, period="hourly"):
    return lines_of(d.workdir / "logs", period)


def pending(cluster, key, group):
    port = cluster.port_of(cluster.master_of(key_slot(key)))
    try:
        return int(cluster.command(port, "XPENDING", key, group)[0])
    except Exception:
        return -1


# --- streams -------------------------------------------------------------------


def test_two_stream_collectors_share_every_shard_and_write_each_entry_once(
        cluster, daemon_factory, workdir):
    ch = "st2"
    a = daemon_factory(collector_config(workdir / "a", cluster, ch, "stream",
                                        stream_consumer="a"), subdir="a").start()
    b = daemon_factory(collector_config(workdir / "b", cluster, ch, "stream",
                                        stream_consumer="b"), subdir="b").start()
    wait_shards(a, SHARDS)
    wait_shards(b, SHARDS)
    sent = []
    for shard in range(SHARDS):
        lines = shard_lines(shard, 50, "S")
        send(cluster, "%s{%d}" % (ch, shard), lines, stream=True)
        sent += lines
    wait_until(lambda: len(written(a)) + len(written(b)) >= len(sent), timeout=WAIT,
               what="every entry written by one of the collectors",
               describe=lambda: (len(written(a)), len(written(b))))
    for shard in range(SHARDS):
        wait_until(lambda: pending(cluster, "%s{%d}" % (ch, shard), "g-" + ch) == 0,
                   timeout=WAIT, what="shard %d acknowledged" % shard)
    both = written(a) + written(b)
    assert sorted(both) == sorted(sent)  # each entry once, by one of them
    # Each shard key lives on the master of its slot, which the cluster
    # spreads: the daemons did read from more than one master.
    masters = {cluster.master_of(key_slot("%s{%d}" % (ch, s))) for s in range(SHARDS)}
    assert len(masters) >= 2, masters


def test_stream_master_killed_under_load_loses_nothing(healthy, daemon_factory, workdir):
    cluster, ch = healthy, "stk"
    d = daemon_factory(collector_config(workdir, cluster, ch, "stream",
                                        stream_consumer="c")).start()
    wait_shards(d, SHARDS)
    victim_shard = 0
    victim = cluster.port_of(cluster.master_of(key_slot("%s{%d}" % (ch, victim_shard))))
    sent, resent, rounds, killed = [], [], 12, threading.Event()

    errors = []

    def load():
        try:
            load_rounds()
        except BaseException as exc:  # reported by the test, not lost with the thread
            errors.append(exc)
            killed.set()

    def load_rounds():
        for r in range(rounds):
            for shard in range(SHARDS):
                lines = [sample_line(i, "K%d_%d" % (shard, r)) for i in range(20)]
                send(cluster, "%s{%d}" % (ch, shard), lines, stream=True, resent=resent)
                sent.extend(lines)
            if r == rounds // 3:
                killed.wait(WAIT)

    t = threading.Thread(target=load)
    t.start()
    try:
        wait_until(lambda: len(sent) >= (rounds // 3) * SHARDS * 20, timeout=WAIT,
                   what="a third of the load sent")
        cluster.kill(victim)
        killed.set()
        promoted = cluster.wait_failover(victim)
    finally:
        killed.set()
        t.join(WAIT * 3)
    assert not t.is_alive()
    assert not errors, errors
    wait_until(lambda: set(written(d)) >= set(sent), timeout=WAIT,
               what="every line sent written",
               describe=lambda: "%d of %d" % (len(set(written(d)) & set(sent)), len(set(sent))))
    got = written(d)
    assert set(got) == set(sent)
    dup = len(got) - len(set(got))
    # Duplicates are the entries whose acknowledgement died with the master,
    # read again from the promoted replica's pending list (counted), and
    # lines this sender sent twice (a reply lost with the master).
    wait_metric(d, "arclamp_log_redis_reread_total", lambda v: v + len(resent) >= dup,
                "every duplicate (%d) counted as read again or sent twice (%d)"
                % (dup, len(resent)))
    wait_metric(d, "arclamp_log_cluster_shard_moves_total", lambda v: v >= 1,
                "the shard's move counted")
    assert "127.0.0.1:%d" % promoted in d.stderr_text()


def test_entries_a_dead_collector_left_pending_are_taken_over(cluster, daemon_factory,
                                                               workdir):
    ch, group = "stc", "g-stc"
    sent = []
    for shard in range(SHARDS):
        key = "%s{%d}" % (ch, shard)
        port = cluster.port_of(cluster.master_of(key_slot(key)))
        cluster.command(port, "XGROUP", "CREATE", key, group, "0", "MKSTREAM")
        lines = shard_lines(shard, 30, "C")
        send(cluster, key, lines, stream=True)
        # A collector that read them and died before writing: they are
        # pending for "dead", which never comes back. (What the stream holds
        # is what must be written: a line the sender had to send again is
        # in it twice.)
        got = cluster.command(port, "XREADGROUP", "GROUP", group, "dead", "COUNT", "1000",
                              "STREAMS", key, ">")
        entries = [fields[1] for _, fields in got[0][1]]
        assert set(entries) == set(lines)
        sent += entries
    d = daemon_factory(collector_config(workdir, cluster, ch, "stream", stream_consumer="alive",
                                        stream_claim_idle=1)).start()
    wait_until(lambda: sorted(written(d)) == sorted(sent), timeout=WAIT,
               what="the dead collector's entries written",
               describe=lambda: "%d of %d" % (len(written(d)), len(sent)))
    for shard in range(SHARDS):
        wait_until(lambda: pending(cluster, "%s{%d}" % (ch, shard), group) == 0,
                   timeout=WAIT, what="shard %d acknowledged" % shard)
    wait_until(lambda: metric(metrics_of(d), "arclamp_log_redis_claimed_total") == len(sent),
               timeout=WAIT, what="the takeover counted",
               describe=lambda: metric(metrics_of(d), "arclamp_log_redis_claimed_total"))
    assert "redis_stream_claimed" in d.stderr_text() or "took over" in d.stderr_text()


def test_stream_slot_migrated_under_load_loses_nothing(healthy, daemon_factory, workdir):
    cluster, ch = healthy, "stm"
    d = daemon_factory(collector_config(workdir, cluster, ch, "stream",
                                        stream_consumer="m")).start()
    wait_shards(d, SHARDS)
    key = "%s{1}" % ch
    slot = key_slot(key)
    source = cluster.port_of(cluster.master_of(slot))
    target = next(cluster.port_of(m) for m in {s[2] for s in cluster.slots()}
                  if cluster.port_of(m) != source)
    first = shard_lines(1, 200, "M")
    send(cluster, key, first, stream=True)
    mig = cluster.begin_migration(slot, target)
    cluster.move_keys(mig)
    # Mid-migration the key lives on the target already: new entries go
    # there (ASK), the collector is moved there by the map.
    cluster.finish_migration(mig)
    second = shard_lines(1, 200, "N")
    send(cluster, key, second, stream=True)
    wait_until(lambda: sorted(set(written(d))) == sorted(set(first + second)), timeout=WAIT,
               what="every line written after the migration",
               describe=lambda: "%d of %d" % (len(set(written(d))), len(first + second)))
    wait_metric(d, "arclamp_log_cluster_shard_moves_total", lambda v: v >= 1,
                "the shard's move counted")
    assert cluster.master_of(slot) == cluster.addr(target)


# --- pub/sub ---------------------------------------------------------------------


def test_pubsub_collectors_split_the_shards_between_them(cluster, daemon_factory, workdir):
    ch = "ps2"
    a = daemon_factory(collector_config(workdir / "a", cluster, ch, "pubsub",
                                        shards_read="0-2"), subdir="a").start()
    b = daemon_factory(collector_config(workdir / "b", cluster, ch, "pubsub",
                                        shards_read="3,4-5"), subdir="b").start()
    wait_shards(a, 3)
    wait_shards(b, 3)
    want = {a: [], b: []}
    for shard in range(SHARDS):
        lines = shard_lines(shard, 40, "P")
        receivers = send(cluster, "%s{%d}" % (ch, shard), lines, stream=False)
        assert receivers == [1] * len(lines)  # exactly one collector subscribed
        want[a if shard < 3 else b] += lines
    for d in (a, b):
        wait_until(lambda: sorted(written(d)) == sorted(want[d]), timeout=WAIT,
                   what="each collector's shards written",
                   describe=lambda: "%d of %d" % (len(written(d)), len(want[d])))
    wait_metric(a, "arclamp_log_cluster_shards", lambda v: v == 3, "3 shards read")


def test_pubsub_master_killed_resubscribes_on_the_promoted_replica(healthy, daemon_factory,
                                                                   workdir):
    cluster, ch = healthy, "psk"
    d = daemon_factory(collector_config(workdir, cluster, ch, "pubsub")).start()
    wait_shards(d, SHARDS)
    key = "%s{2}" % ch
    victim = cluster.port_of(cluster.master_of(key_slot(key)))
    before = shard_lines(2, 30, "B")
    send(cluster, key, before, stream=False)
    cluster.kill(victim)
    promoted = cluster.wait_failover(victim)
    wait_shards(d, SHARDS)
    after = shard_lines(2, 30, "A")
    receivers = send(cluster, key, after, stream=False)
    assert receivers == [1] * len(after)
    wait_until(lambda: set(written(d)) >= set(before + after), timeout=WAIT,
               what="lines before the kill and after the promotion written")
    wait_metric(d, "arclamp_log_cluster_shard_moves_total", lambda v: v >= 1,
                "the shard's move counted")
    assert "127.0.0.1:%d" % promoted in d.stderr_text()


# --- configuration -----------------------------------------------------------------


@pytest.mark.parametrize("redis, why", [
    ({"cluster": ["127.0.0.1:7000"], "host": "127.0.0.1"}, "redis.host: not with redis.cluster"),
    ({"cluster": ["127.0.0.1:7000"], "db": 2}, "redis.db: not with redis.cluster"),
    ({"cluster": ["127.0.0.1"]}, "redis.cluster: entry 1"),
    ({"cluster": ["127.0.0.1:7000"], "shards": 4, "shards_read": "2-4"}, "redis.shards_read"),
    ({"cluster": ["127.0.0.1:7000"], "shards_read": "1,"}, "redis.shards_read"),
    ({"host": "127.0.0.1", "shards": 4}, "redis.shards: only with redis.cluster"),
    ({"cluster": ["127.0.0.1:7000"], "shards": 0}, "redis.shards"),
])
def test_cluster_settings_are_checked(arclamp_bin, workdir, redis, why):
    import subprocess

    from conftest import to_yaml
    cfg = base_config(workdir)
    cfg["redis"] = redis
    path = workdir / "c.yaml"
    path.write_text(to_yaml(cfg) + "\n")
    r = subprocess.run([arclamp_bin, "--check-config", str(path)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 78, r
    assert why in r.stderr, r.stderr


def test_reload_changes_the_shards_read(cluster, daemon_factory, workdir):
    import signal
    ch = "psr"
    cfg = collector_config(workdir, cluster, ch, "pubsub", shards_read="0-2")
    d = daemon_factory(cfg).start()
    wait_shards(d, 3)
    cfg["redis"]["shards_read"] = "all"
    d.write_config(cfg)
    d.signal(signal.SIGHUP)
    wait_metric(d, "arclamp_log_cluster_shards", lambda v: v == SHARDS, "every shard read")
    wait_shards(d, SHARDS)
    lines = shard_lines(5, 10, "R")
    assert send(cluster, "%s{5}" % ch, lines, stream=False) == [1] * len(lines)
    wait_until(lambda: sorted(written(d)) == sorted(lines), timeout=WAIT,
               what="shard 5, read since the reload, written")
