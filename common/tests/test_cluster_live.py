"""rediscluster's blocking client against a real Redis Cluster: three
masters (redis-server processes on free 127.0.0.1 ports, joined by
`redis-cli --cluster create`), driven through build/tests/cluster-tool.

What is checked: a map fetched through a seed that owns nothing of the
key's slot; a MOVED followed (and counted) after the slot moved away under
a client whose map was already fetched; an ASK during a slot migration
(ASKING first, on the importing node; the command sent to the migrating
one); a dead seed skipped; all seeds dead refused promptly.

The cluster is started here, minimally, with its cleanup in a finally: the
shared cluster kit (common/tests/clusterkit.py) can replace `cluster()`.
Waits poll for the event (a PING answered, cluster_state:ok on every node),
each bounded in time."""

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = os.environ.get("ARCLAMP_CLUSTER_TOOL", str(ROOT / "build" / "tests" / "cluster-tool"))
REDIS_SERVER = "/usr/bin/redis-server"
REDIS_CLI = "/usr/bin/redis-cli"
HOST = "127.0.0.1"
# Generous: a loaded 2-core machine; the client's own deadline is what is tested.
WAIT = 120

pytestmark = pytest.mark.skipif(not (os.access(REDIS_SERVER, os.X_OK) and
                                     os.access(REDIS_CLI, os.X_OK)),
                                reason="redis-server and redis-cli are needed")


def port_free(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def free_port():
    """A port free on 127.0.0.1 whose cluster bus port (+10000) is free too."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind((HOST, 0))
            port = s.getsockname()[1]
        if port < 55000 and port_free(port + 10000):
            return port
    raise RuntimeError("no free port pair found")


def cli(port, *args, timeout=30):
    r = subprocess.run([REDIS_CLI, "-h", HOST, "-p", str(port)] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return r.stdout.decode().strip()


def wait_until(what, check, timeout=WAIT):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


class Cluster:
    def __init__(self, masters=3, replicas=0):
        self.dir = tempfile.mkdtemp(prefix="arclamp-cluster-")
        self.ports = []
        self.procs = []
        self.nodes = masters * (1 + replicas)
        self.replicas = replicas

    def start(self):
        for _ in range(self.nodes):
            port = free_port()
            conf = os.path.join(self.dir, "nodes-%d.conf" % port)
            self.procs.append(subprocess.Popen(
                [REDIS_SERVER, "--port", str(port), "--bind", HOST, "--cluster-enabled", "yes",
                 "--cluster-config-file", conf, "--dir", self.dir, "--save", "",
                 "--appendonly", "no", "--cluster-node-timeout", "5000",
                 "--logfile", os.path.join(self.dir, "redis-%d.log" % port)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            self.ports.append(port)
        for port, proc in zip(self.ports, self.procs):
            wait_until("redis-server on %d" % port,
                       lambda: proc.poll() is None and cli(port, "PING") == "PONG"
                       or self._died(proc, port))
        subprocess.run([REDIS_CLI, "--cluster", "create"] +
                       ["%s:%d" % (HOST, p) for p in self.ports] +
                       ["--cluster-replicas", str(self.replicas), "--cluster-yes"],
                       check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=WAIT)
        for port in self.ports:
            wait_until("cluster_state:ok on %d" % port,
                       lambda: "cluster_state:ok" in cli(port, "CLUSTER", "INFO"))
        if self.replicas:
            self._settle()
        return self

    def _settle(self):
        """Every node agrees on the slots and every replica has synced: a
        replica whose view of the slots still lags when its first sync
        loads drops the keys of slots it thinks its master does not serve
        (seen here: a key written just after `--cluster create` missing on
        the replica that WAIT had counted)."""
        def agreed():
            r = subprocess.run([REDIS_CLI, "--cluster", "check", "%s:%d" % (HOST, self.ports[0])],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
            return r.returncode == 0 and b"All nodes agree" in r.stdout

        def synced(port):
            info = cli(port, "INFO", "replication")
            return "role:master" in info or ("master_link_status:up" in info and
                                             "master_sync_in_progress:0" in info)
        wait_until("the cluster to agree on its slots", agreed)
        for port in self.ports:
            wait_until("node %d synced" % port, lambda: synced(port))

    def _died(self, proc, port):
        if proc.poll() is not None:
            raise AssertionError("redis-server on %d exited %s" % (port, proc.returncode))
        return False

    def stop(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)

    def node_id(self, port):
        return cli(port, "CLUSTER", "MYID")

    def owner(self, key, asked=None):
        """The port of the master serving key's slot, as `asked` (the first
        node) sees it."""
        asked = asked or self.ports[0]
        reply = cli(asked, "GET", key)
        if reply.startswith("MOVED"):
            return int(reply.rsplit(":", 1)[1])
        return asked

    def masters(self):
        return [p for p in self.ports if "role:master" in cli(p, "INFO", "replication")]

    def other(self, *ports):
        return [p for p in self.masters() if p not in ports][0]

    def replica_of(self, port):
        """The port of port's replica once it is online and has every write
        port took (the failover test's precondition), asked of the master."""
        found = []

        def synced():
            info = dict(l.split(":", 1) for l in cli(port, "INFO", "replication").split()
                        if ":" in l)
            rep = dict(f.split("=") for f in info.get("slave0", "x=y").split(","))
            if rep.get("state") != "online" or rep.get("offset") != info["master_repl_offset"]:
                return False
            found.append(int(rep["port"]))
            return True
        wait_until("a replica of %d in sync" % port, synced)
        return found[0]

    def replica_get(self, port, key):
        r = subprocess.run([REDIS_CLI, "-h", HOST, "-p", str(port)], input=b"READONLY\nGET " +
                           key.encode() + b"\n", stdout=subprocess.PIPE, timeout=30)
        return r.stdout.decode().split()[-1]

    def kill(self, port):
        proc = self.procs[self.ports.index(port)]
        proc.kill()
        proc.wait(timeout=30)

    def begin_migration(self, slot, src, dst):
        assert cli(dst, "CLUSTER", "SETSLOT", slot, "IMPORTING", self.node_id(src)) == "OK"
        assert cli(src, "CLUSTER", "SETSLOT", slot, "MIGRATING", self.node_id(dst)) == "OK"

    def migrate_key(self, key, src, dst):
        assert cli(src, "MIGRATE", HOST, dst, "", 0, 10000, "KEYS", key) == "OK"

    def end_migration(self, slot, dst):
        for port in [dst] + [p for p in self.ports if p != dst]:
            assert cli(port, "CLUSTER", "SETSLOT", slot, "NODE", self.node_id(dst)) == "OK"

    def slot(self, key):
        return int(cli(self.ports[0], "CLUSTER", "KEYSLOT", key))


@pytest.fixture(scope="module")
def cluster():
    c = Cluster()
    try:
        yield c.start()
    finally:
        c.stop()


def parse(out):
    """Replies in command order (a redirected command's reply arrives after
    the others': the tool prints them as they come, with their index),
    and the stats line of each run. An index answered twice fails here."""
    replies, stats = {}, []
    for line in out.splitlines():
        if line.startswith("reply "):
            _, index, value = line.split(" ", 2)
            assert int(index) not in replies, "command %s answered twice" % index
            replies[int(index)] = value
        elif line.startswith("stats: "):
            stats.append(dict(f.split("=") for f in line.split()[1:]))
    return [replies[i] for i in sorted(replies)], stats


def tool(seeds, key, *cmds, deadline=60):
    args = [TOOL, "--deadline", str(deadline), ",".join(seeds), key]
    for i, cmd in enumerate(cmds):
        args += ([";"] if i else []) + list(cmd)
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=WAIT)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def addr(port):
    return "%s:%d" % (HOST, port)


def test_slot_agrees_with_the_server(cluster):
    rc, out, err = tool([addr(cluster.ports[0])], "excimer{7}", ["PING"])
    assert rc == 0, err
    assert int(parse(out)[1][0]["slot"]) == cluster.slot("excimer{7}") == cluster.slot("7")


def test_set_get_through_a_seed_not_owning_the_slot(cluster):
    key = "arclamp{seedtest}"
    owner = cluster.owner(key)
    seed = cluster.other(owner)
    rc, out, err = tool([addr(seed)], key, ["SET", key, "v1"], ["GET", key], ["INCR", key])
    assert rc == 0, err
    replies, stats = parse(out)
    assert replies == ["status OK", "string v1",
                       "error ERR value is not an integer or out of range"]
    assert stats[0]["map_fetches"] == "1"
    assert stats[0]["redirects"] == "0"  # the map sent it to the owner directly
    assert cli(owner, "GET", key) == "v1"


def test_moved_after_the_slot_moved_is_followed_and_counted(cluster):
    key = "arclamp{movedtest}"
    slot = cluster.slot(key)
    src = cluster.owner(key)
    dst = cluster.other(src)
    args = [TOOL, "--deadline", "60", "--repeat", "2", "--wait-stdin", "1",
            addr(cluster.other(src, dst)), key, "SET", key, "before", ";", "GET", key]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        first = proc.stdout.readline().decode()
        first += proc.stdout.readline().decode()
        first += proc.stdout.readline().decode()
        assert "stats: answered=2 redirects=0 map_fetches=1" in first, first
        # The whole slot moves to dst while the client holds its map.
        cluster.begin_migration(slot, src, dst)
        cluster.migrate_key(key, src, dst)
        cluster.end_migration(slot, dst)
        out, err = proc.communicate(b"go\n", timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()
    replies, stats = parse(out.decode())
    assert replies == ["status OK", "string before"]
    # Each of the two commands was answered MOVED by src and followed.
    assert stats[0]["redirects"] == "2"
    assert stats[0]["map_fetches"] == "1"  # MOVED updates the map; no new fetch
    assert cli(dst, "GET", key) == "before"


def test_ask_during_a_migration_goes_to_the_importing_node(cluster):
    moved, stayed = "{asktest}moved", "{asktest}stayed"
    slot = cluster.slot(moved)
    src = cluster.owner(moved)
    dst = cluster.other(src)
    assert cli(src, "SET", moved, "m") == "OK"
    assert cli(src, "SET", stayed, "s") == "OK"
    cluster.begin_migration(slot, src, dst)
    try:
        cluster.migrate_key(moved, src, dst)
        assert cli(src, "GET", moved).startswith("ASK %d " % slot)
        rc, out, err = tool([addr(src)], moved, ["GET", moved], ["GET", stayed],
                            ["APPEND", moved, "+"])
        assert rc == 0, err
        replies, stats = parse(out)
        # ASKING's own reply is not passed on; each command answered once.
        assert replies == ["string m", "string s", "integer 2"]
        assert stats[0]["redirects"] == "2"
        assert stats[0]["map_fetches"] == "1"
        # The append went to the importing node; the slot is still src's.
        assert cli(dst, "ASKING") == "OK"
        assert cli(src, "GET", moved).startswith("ASK")
    finally:
        cluster.migrate_key(stayed, src, dst)
        cluster.end_migration(slot, dst)
    assert cli(dst, "GET", moved) == "m+"


def test_a_dead_seed_is_skipped(cluster):
    dead = free_port()
    key = "arclamp{deadseed}"
    rc, out, err = tool([addr(dead), addr(cluster.ports[1])], key, ["SET", key, "x"],
                        ["GET", key])
    assert rc == 0, err
    replies, stats = parse(out)
    assert replies == ["status OK", "string x"]
    assert stats[0]["map_fetches"] == "1"


def test_only_dead_seeds_fail_promptly_with_the_cause(cluster):
    dead = [free_port(), free_port()]
    start = time.monotonic()
    rc, out, err = tool([addr(p) for p in dead], "k", ["GET", "k"], deadline=60)
    assert time.monotonic() - start < 30  # refused connections, not the deadline
    assert rc == 1
    replies, stats = parse(out)
    assert replies == []
    assert stats[0]["answered"] == "0" and stats[0]["err"] == "connect"
    assert "none of 2 nodes gave a slot map" in err and str(dead[1]) in err


@pytest.fixture
def replicated_cluster():
    c = Cluster(masters=3, replicas=1)
    try:
        yield c.start()
    finally:
        c.stop()


def test_a_dead_master_sends_the_client_back_for_a_new_map(replicated_cluster):
    c = replicated_cluster
    key = "arclamp{failover}"
    dead = c.owner(key)
    seed = c.other(dead)
    assert cli(dead, "SET", key, "kept") == "OK"
    assert cli(dead, "WAIT", 1, 10000) == "1"
    # What the failover keeps. Polled: right after `--cluster create` a
    # replica may still be resynchronising (flushed, loading) though
    # WAIT already counted it.
    replica = c.replica_of(dead)
    wait_until("the replica %d to hold the key" % replica,
               lambda: c.replica_get(replica, key) == "kept" and
               "master_sync_in_progress:0" in cli(replica, "INFO", "replication"))
    args = [TOOL, "--deadline", "60", "--repeat", "2", "--wait-stdin", "1", addr(seed), key,
            "GET", key]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        first = proc.stdout.readline().decode() + proc.stdout.readline().decode()
        assert "reply 0 string kept" in first and "map_fetches=1" in first, first
        c.kill(dead)
        # Before the failover: a new client finds the slot's master dead in
        # every map it is given, and gives up after its bounded rounds, long
        # before its deadline, with the cause.
        start = time.monotonic()
        rc, out, err = tool([addr(seed)], key, ["GET", key], deadline=40)
        assert time.monotonic() - start < 30
        assert rc == 1
        assert "err=connect" in out and str(dead) in err, (out, err)
        assert int(parse(out)[1][0]["map_fetches"]) > 1
        # After it: the promoted replica serves the slot; the first client's
        # kept connection and map are stale.
        wait_until("a new master for the slot",
                   lambda: c.owner(key, asked=seed) != dead and
                   "cluster_state:ok" in cli(seed, "CLUSTER", "INFO"))
        out, err = proc.communicate(b"go\n", timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()
    replies, stats = parse(out.decode())  # the second run's
    assert replies == ["string kept"]
    assert stats[0]["map_fetches"] == "2"
