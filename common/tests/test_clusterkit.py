"""Pins down clusterkit / scripts/redis-cluster: a real 3-master cluster (and
1- and 2-master ones, which the script makes by hand)
forms with every slot served and replicas attached, key_slot() agrees with
the server, a migration (whole, or stopped half-way) moves keys and the
slot's owner, a killed master's replica takes over and the old master comes
back as a node of the cluster, and stop is idempotent.

One cluster for the module (forming one takes seconds); the tests that
change it leave it healthy, and the failover one runs last."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from clusterkit import (SCRIPT, RedisError, key_slot, redis_cluster,  # noqa: E402
                        redis_cluster_missing)

pytestmark = pytest.mark.skipif(bool(redis_cluster_missing()),
                                reason=redis_cluster_missing() or "-")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    t0 = time.monotonic()
    with redis_cluster(tmp_path_factory.mktemp("cluster")) as c:
        print("cluster formed in %.1f s" % (time.monotonic() - t0))
        yield c


def test_cluster_forms_with_three_masters_covering_every_slot(cluster):
    assert len(cluster.seeds) == 6 and len(cluster.masters) == 3
    assert all(s.startswith("127.0.0.1:") for s in cluster.seeds)
    slots = cluster.slots()
    # contiguous ranges from 0 to 16383, each with one replica
    assert slots[0][0] == 0 and slots[-1][1] == 16383
    assert all(a[1] + 1 == b[0] for a, b in zip(slots, slots[1:]))
    assert {m for _, _, m, _ in slots} == set(cluster.masters)
    assert all(len(r) == 1 and r[0] not in cluster.masters for _, _, _, r in slots)
    env = (cluster.dir / "env").read_text()
    assert "REDIS_CLUSTER_SEEDS=" + ",".join(cluster.seeds) + "\n" in env
    assert subprocess.run([str(SCRIPT), "status", str(cluster.dir)],
                          stdout=subprocess.PIPE).returncode == 0


KEYS = ["", "a", "foo", "user:1000", "arclamp:samples", "{user1000}.following",
        "{user1000}.followers", "foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}",
        "{}", "}{", "{a", "x{y}", "\u00e9t\u00e9", "123456789"] + ["k%d" % i for i in range(200)]


def test_key_slot_agrees_with_the_server(cluster):
    port = cluster.ports[0]
    for k in KEYS:
        assert key_slot(k) == cluster.command(port, "CLUSTER", "KEYSLOT", k), k
    # the XMODEM check value, and hash tags making keys share a slot
    assert key_slot("123456789") == 0x31C3
    assert key_slot("{user1000}.following") == key_slot("{user1000}.followers")
    assert key_slot("foo{}{bar}") != key_slot("bar")


def tag_for(slot):
    for i in range(200000):
        if key_slot(str(i)) == slot:
            return str(i)
    raise AssertionError("no tag for slot %d" % slot)


def fill(cluster, slot, n):
    tag = tag_for(slot)
    keys = ["{%s}:%d" % (tag, i) for i in range(n)]
    owner = cluster.port_of(cluster.master_of(slot))
    for k in keys:
        assert cluster.command(owner, "SET", k, "v:" + k) == b"OK"
    return keys


def other_master(cluster, slot):
    owner = cluster.master_of(slot)
    return cluster.port_of(next(m for m in cluster.masters if m != owner))


def test_migrate_slot_moves_keys_and_owner(cluster):
    slot = 4242
    keys = fill(cluster, slot, 250)        # more than one MIGRATE batch
    source = cluster.port_of(cluster.master_of(slot))
    target = other_master(cluster, slot)
    cluster.migrate_slot(slot, target)
    for p in cluster.running():
        assert cluster.master_of(slot, p) == cluster.addr(target)
    assert cluster.command(target, "CLUSTER", "COUNTKEYSINSLOT", slot) == 250
    assert cluster.command(source, "CLUSTER", "COUNTKEYSINSLOT", slot) == 0
    assert cluster.command(target, "GET", keys[-1]) == ("v:" + keys[-1]).encode()
    with pytest.raises(RedisError, match="^MOVED %d 127.0.0.1:%d$" % (slot, target)):
        cluster.command(source, "GET", keys[0])


def test_a_migration_can_stop_half_way(cluster):
    slot = 777
    keys = fill(cluster, slot, 20)
    source = cluster.port_of(cluster.master_of(slot))
    target = other_master(cluster, slot)
    m = cluster.begin_migration(slot, target)
    assert cluster.move_keys(m, 5) == 5
    left = {k.decode() for k in cluster.command(source, "CLUSTER", "GETKEYSINSLOT", slot, 100)}
    assert len(left) == 15
    gone = next(k for k in keys if k not in left)
    # the source still owns the slot: a key it no longer has gets ASK
    with pytest.raises(RedisError, match="^ASK %d 127.0.0.1:%d$" % (slot, target)):
        cluster.command(source, "GET", gone)
    assert cluster.command(source, "GET", next(iter(left))) is not None
    assert cluster.master_of(slot) == cluster.addr(source)
    cluster.finish_migration(m)
    assert cluster.master_of(slot) == cluster.addr(target)
    assert cluster.command(target, "CLUSTER", "COUNTKEYSINSLOT", slot) == 20


def test_killed_master_is_replaced_by_its_replica_and_comes_back(cluster):
    slot = 9000
    keys = fill(cluster, slot, 10)
    dead = cluster.port_of(cluster.master_of(slot))
    replica = next(r[0] for s, e, _, r in cluster.slots() if s <= slot <= e)
    # the replica has the keys before the master dies (WAIT: replicated)
    assert cluster.command(dead, "WAIT", 1, 10000) == 1
    t0 = time.monotonic()
    cluster.kill(dead)
    assert cluster.pid(dead) is None
    new = cluster.wait_failover(dead)
    print("failover took %.1f s (node-timeout %d ms)" % (time.monotonic() - t0,
                                                         cluster.node_timeout))
    assert cluster.addr(new) == replica
    assert cluster.master_of(slot) == replica
    assert cluster.command(new, "GET", keys[3]) == ("v:" + keys[3]).encode()
    t0 = time.monotonic()
    cluster.restart(dead)
    print("restart took %.1f s" % (time.monotonic() - t0))
    assert cluster.info(dead, "replication")["role"] == "slave"
    assert cluster.master_of(slot, dead) == replica


def test_stop_is_idempotent(tmp_path):
    d = tmp_path / "never-started"
    for _ in range(2):
        assert subprocess.run([str(SCRIPT), "stop", str(d)]).returncode == 0
    assert subprocess.run([str(SCRIPT), "status", str(d)],
                          stdout=subprocess.DEVNULL).returncode == 3


@pytest.mark.parametrize("masters,replicas", [(1, 0), (2, 1)])
def test_fewer_than_three_masters_are_made_by_hand(tmp_path, masters, replicas):
    # redis-cli --cluster create refuses fewer than 3 masters; the script
    # assigns the slots itself: every slot served, each master's replicas
    # attached, a key writable on the master of its slot.
    with redis_cluster(tmp_path / "small", masters=masters, replicas=replicas) as c:
        assert len(c.masters) == masters and len(c.seeds) == masters * (1 + replicas)
        slots = c.slots()
        assert slots[0][0] == 0 and slots[-1][1] == 16383
        assert all(a[1] + 1 == b[0] for a, b in zip(slots, slots[1:]))
        assert {m for _, _, m, _ in slots} == set(c.masters)
        assert all(len(r) == replicas for _, _, _, r in slots)
        for key in ("a", "foo", "k1"):
            port = c.port_of(c.master_of(key_slot(key)))
            assert c.command(port, "SET", key, "v") == b"OK"
