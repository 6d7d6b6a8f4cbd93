"""clusterkit: a real Redis Cluster for the tests (and benchmarks), started
by scripts/redis-cluster in a directory of the test's own on free ports of
127.0.0.1, always stopped; plus what tests need to make the cluster change
under a client: kill a master and wait for its replica to take over, bring
a node back, move a slot (all at once, or stopping half-way).

    from clusterkit import redis_cluster, redis_cluster_missing, key_slot

    with redis_cluster(tmp_path / "cluster") as c:
        c.seeds                          # ["127.0.0.1:PORT", ...] every node
        c.command(port, "SET", "k", "v") # one command to one node (RESP2)
        c.master_of(key_slot("k"))       # "127.0.0.1:PORT"
        c.kill(port); c.wait_failover(port); c.restart(port)
        c.migrate_slot(slot, to_port)
        m = c.begin_migration(slot, to_port); c.move_keys(m, 10)
        c.finish_migration(m)

Each node's log is DIR/PORT/redis.log; when the body of redis_cluster()
raises, their tails are written to stderr, which pytest shows with the
failure. Standard library only (a small RESP client, no redis-py).
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "redis-cluster"
# redis-cluster's own bound is 60 s; this one only catches a hung script.
SCRIPT_WAIT = 180
# Failure detection takes node-timeout, the election up to ~2 s more; a
# loaded 2-core machine may need several times that.
FAILOVER_WAIT = 60.0
WAIT = 60.0
SOCKET_TIMEOUT = 30.0
MIGRATE_BATCH = 100
SLOTS = 16384


def redis_cluster_missing():
    """Why a cluster cannot run here (the first missing program), or ''."""
    if not os.access("/usr/bin/redis-server", os.X_OK):
        return "/usr/bin/redis-server is not installed (redis-server; scripts/install-deps)"
    if shutil.which("redis-cli") is None:
        return "redis-cli is not installed (redis-tools; scripts/install-deps)"
    return ""


# --- key slots -----------------------------------------------------------------

def crc16_xmodem(data):
    """CRC16-CCITT (XMODEM: polynomial 0x1021, initial 0), Redis Cluster's."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def key_slot(key):
    """The slot of `key` (str or bytes): only the part between the first
    '{' and the next '}' counts when that part is not empty."""
    if isinstance(key, str):
        key = key.encode()
    start = key.find(b"{")
    if start >= 0:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            key = key[start + 1:end]
    return crc16_xmodem(key) % SLOTS


# --- RESP2 ---------------------------------------------------------------------

class RedisError(Exception):
    """An error reply (-ERR ..., -MOVED ...); str() is its text."""


def encode(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if not isinstance(a, bytes):
            a = str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Connection:
    """One blocking connection to one node; replies as Python values
    (bytes, int, list, None); error replies raise RedisError."""

    def __init__(self, host, port, timeout=SOCKET_TIMEOUT):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = self.sock.makefile("rb")

    def close(self):
        self.buf.close()
        self.sock.close()

    def call(self, *args):
        self.sock.sendall(encode(args))
        return self.read()

    def read(self):
        line = self.buf.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("connection closed mid-reply")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest
        if kind == b"-":
            raise RedisError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.buf.read(n + 2)
            if len(data) != n + 2:
                raise ConnectionError("connection closed mid-reply")
            return data[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise ConnectionError("not a RESP reply: %r" % line[:80])


def _text(v):
    return v.decode() if isinstance(v, bytes) else v


# --- the cluster ---------------------------------------------------------------

class Migration:
    """A slot on its way from one master to another (begin_migration)."""

    def __init__(self, slot, from_port, to_port, from_id, to_id):
        self.slot, self.from_port, self.to_port = slot, from_port, to_port
        self.from_id, self.to_id = from_id, to_id


class Cluster:
    """The cluster in `dir`; attributes valid after start():
    host, ports (every node's, in creation order), seeds (["host:port"]),
    nodes (the same as seeds), masters (the first masters' "host:port")."""

    def __init__(self, dir, masters=3, replicas=1, node_timeout=2000, bind="127.0.0.1"):
        self.dir = Path(dir)
        self.n_masters, self.n_replicas = masters, replicas
        self.node_timeout, self.host = node_timeout, bind
        self.ports, self.seeds, self.nodes, self.masters = [], [], [], []
        # port of a killed master -> (its slot ranges, its replicas), for
        # wait_failover()
        self._lost = {}

    # -- the script

    def _run(self, action, *extra):
        r = subprocess.run([str(SCRIPT), action, str(self.dir)] + list(extra),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=SCRIPT_WAIT)
        if r.returncode != 0:
            raise RuntimeError("redis-cluster %s failed (%d): %s%s" % (
                action, r.returncode, r.stderr, self.logs()))
        return r.stdout

    def logs(self):
        """The tails of every node's log, for failure messages."""
        out = []
        for f in sorted(self.dir.glob("*/redis.log")):
            out.append("\n--- %s (tail)\n%s" % (f.relative_to(self.dir),
                                                f.read_text(errors="replace")[-2000:]))
        return "".join(out)

    def start(self):
        env = dict(line.split("=", 1) for line in self._run(
            "start", "--masters", str(self.n_masters), "--replicas", str(self.n_replicas),
            "--node-timeout", str(self.node_timeout), "--bind", self.host).splitlines()
            if "=" in line)
        self.seeds = env["REDIS_CLUSTER_SEEDS"].split(",")
        self.nodes = list(self.seeds)
        self.masters = env["REDIS_CLUSTER_MASTERS"].split(",")
        self.ports = [int(s.rsplit(":", 1)[1]) for s in self.seeds]
        self.wait_stable()
        return self

    def stop(self):
        self._run("stop")

    # -- talking to nodes

    def addr(self, port):
        return "%s:%d" % (self.host, port)

    def command(self, port, *args):
        """One command to the node on `port`; its reply (see Connection)."""
        c = Connection(self.host, port)
        try:
            return c.call(*args)
        finally:
            c.close()

    def pid(self, port):
        """The node's pid while it runs, else None."""
        try:
            pid = int((self.dir / str(port) / "redis.pid").read_text().strip())
            cmd = Path("/proc/%d/cmdline" % pid).read_bytes()
        except (OSError, ValueError):
            return None
        return pid if b"redis-server" in cmd and (b":%d" % port) in cmd else None

    def running(self):
        """The ports of the nodes that run."""
        return [p for p in self.ports if self.pid(p)]

    def node_id(self, port):
        return _text(self.command(port, "CLUSTER", "MYID"))

    def info(self, port, section="cluster"):
        """CLUSTER INFO (section "cluster") or INFO SECTION as a dict."""
        raw = (self.command(port, "CLUSTER", "INFO") if section == "cluster"
               else self.command(port, "INFO", section))
        return dict(line.split(":", 1) for line in _text(raw).splitlines() if ":" in line)

    def slots(self, port=None):
        """CLUSTER SLOTS as seen by `port` (default: the first node that
        runs): [(start, end, master "host:port", [replica "host:port"])],
        sorted by start."""
        port = port or self.running()[0]
        out = []
        for entry in self.command(port, "CLUSTER", "SLOTS"):
            start, end, master = entry[0], entry[1], entry[2]
            hp = lambda n: "%s:%d" % (_text(n[0]), n[1])  # noqa: E731
            out.append((start, end, hp(master), [hp(r) for r in entry[3:]]))
        return sorted(out)

    def master_of(self, slot, port=None):
        """The "host:port" of the master serving `slot`, or None."""
        for start, end, master, _ in self.slots(port):
            if start <= slot <= end:
                return master
        return None

    def key_slot(self, key):
        return key_slot(key)

    def port_of(self, addr):
        return int(addr.rsplit(":", 1)[1])

    # -- waiting

    def _problem(self):
        """Why the running nodes are not (yet) one healthy cluster, or None:
        each says ok, replicas are in sync, all show the same slot map (with
        the replicas: CLUSTER SLOTS lists one only once its master's pings
        reached it and the nodes heard of its offset) and that map lists
        every replica that runs."""
        maps, replicas = {}, set()
        for p in self.running():
            try:
                if self.info(p).get("cluster_state") != "ok":
                    return "%d: cluster_state is not ok" % p
                repl = self.info(p, "replication")
                if repl.get("role") == "slave":
                    if repl.get("master_link_status") != "up":
                        return "replica %d is not in sync with its master" % p
                    replicas.add(self.addr(p))
                maps[p] = [(s, e, m, sorted(r)) for s, e, m, r in self.slots(p)]
            except (OSError, RedisError) as exc:
                return "%d: %s" % (p, exc)
        if len({repr(m) for m in maps.values()}) > 1:
            return "the nodes disagree on the slot map: %r" % maps
        listed = set(a for m in maps.values() for _, _, _, r in m for a in r)
        if replicas - listed:
            return "CLUSTER SLOTS does not list the replicas %r yet" % sorted(replicas - listed)
        return None

    def wait_stable(self, timeout=WAIT, extra=None):
        """Waits until _problem() (and extra(), another check returning a
        reason or None) find nothing; raises AssertionError with the reason
        after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            why = self._problem() or (extra() if extra else None)
            if why is None:
                return
            if time.monotonic() >= deadline:
                raise AssertionError("cluster not stable after %.0f s: %s" % (timeout, why))
            time.sleep(0.1)

    # -- failures

    def kill(self, port):
        """SIGKILLs the node on `port` and waits until it is gone; the slots
        it served are remembered for wait_failover()."""
        pid = self.pid(port)
        if pid is None:
            raise AssertionError("node %d does not run" % port)
        live = [p for p in self.running() if p != port]
        mine = [(s, e, r) for s, e, m, r in self.slots(live[0]) if m == self.addr(port)]
        self._lost[port] = ([(s, e) for s, e, _ in mine],
                            set(a for _, _, r in mine for a in r))
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + WAIT
        while self.pid(port) is not None:
            if time.monotonic() >= deadline:
                raise AssertionError("node %d survived SIGKILL" % port)
            time.sleep(0.02)

    def wait_failover(self, dead_port, timeout=FAILOVER_WAIT):
        """After kill(dead_port) of a master: waits until another node
        serves each of its slots and the live nodes are one healthy cluster;
        returns the port of the new master, one of its replicas."""
        ranges, replicas = self._lost.get(dead_port, ([], set()))
        if not ranges:
            raise AssertionError("%d was not a killed master" % dead_port)
        found = {}

        def moved():
            owners = set()
            for s, e in ranges:
                m = self.master_of(s)
                if m is None or m == self.addr(dead_port) or self.master_of(e) != m:
                    return "slots %d-%d still served by %s" % (s, e, m)
                owners.add(m)
            if len(owners) != 1 or not owners <= replicas:
                return "the slots went to %r, not one of the replicas %r" % (owners, replicas)
            found["port"] = self.port_of(owners.pop())
            return None
        self.wait_stable(timeout, moved)
        return found["port"]

    def restart(self, port, timeout=WAIT):
        """Starts the node on `port` again with its own config and
        nodes.conf; waits until it is back in a healthy cluster."""
        if self.pid(port) is None:
            conf = self.dir / str(port) / "redis.conf"
            subprocess.run(["/usr/bin/redis-server", str(conf)], check=True,
                           stdout=subprocess.DEVNULL, timeout=SCRIPT_WAIT)

        def back():
            try:
                return None if self.command(port, "PING") == b"PONG" else "no PONG"
            except OSError as exc:
                return "%d: %s" % (port, exc)
        self.wait_stable(timeout, back)

    # -- slot migration

    def begin_migration(self, slot, to_port):
        """Marks `slot` IMPORTING on to_port, then MIGRATING on its master
        (that order, so no client is sent to a node that does not expect
        it); no key moves yet. Returns the Migration."""
        from_port = self.port_of(self.master_of(slot))
        if from_port == to_port:
            raise ValueError("slot %d is already on %d" % (slot, to_port))
        m = Migration(slot, from_port, to_port, self.node_id(from_port), self.node_id(to_port))
        self.command(to_port, "CLUSTER", "SETSLOT", slot, "IMPORTING", m.from_id)
        self.command(from_port, "CLUSTER", "SETSLOT", slot, "MIGRATING", m.to_id)
        return m

    def move_keys(self, m, limit=None):
        """MIGRATEs up to `limit` (all when None) keys of the slot, in
        batches of MIGRATE_BATCH; returns how many moved."""
        moved = 0
        while limit is None or moved < limit:
            n = MIGRATE_BATCH if limit is None else min(MIGRATE_BATCH, limit - moved)
            keys = self.command(m.from_port, "CLUSTER", "GETKEYSINSLOT", m.slot, n)
            if not keys:
                break
            self.command(m.from_port, "MIGRATE", self.host, m.to_port, "", 0,
                         int(SOCKET_TIMEOUT * 1000), "KEYS", *keys)
            moved += len(keys)
        return moved

    def finish_migration(self, m, timeout=WAIT):
        """Moves the keys left, then gives the slot to to_port: SETSLOT NODE
        on the target, the source, then every other master; waits until
        every node agrees."""
        self.move_keys(m)
        self.command(m.to_port, "CLUSTER", "SETSLOT", m.slot, "NODE", m.to_id)
        self.command(m.from_port, "CLUSTER", "SETSLOT", m.slot, "NODE", m.to_id)
        for p in self.running():
            if p in (m.from_port, m.to_port):
                continue
            if self.info(p, "replication").get("role") == "master":
                self.command(p, "CLUSTER", "SETSLOT", m.slot, "NODE", m.to_id)
        want = self.addr(m.to_port)

        def everywhere():
            for p in self.running():
                if self.master_of(m.slot, p) != want:
                    return "%d still sees slot %d on %s" % (p, m.slot, self.master_of(m.slot, p))
            return None
        self.wait_stable(timeout, everywhere)

    def migrate_slot(self, slot, to_port, timeout=WAIT):
        """The whole migration of `slot` (and its keys) to to_port."""
        self.finish_migration(self.begin_migration(slot, to_port), timeout)


@contextlib.contextmanager
def redis_cluster(tmpdir, masters=3, replicas=1, node_timeout=2000, bind="127.0.0.1"):
    """Starts a cluster in `tmpdir` (created if needed), yields its Cluster,
    stops it whatever happens; node log tails go to stderr on failure."""
    c = Cluster(tmpdir, masters, replicas, node_timeout, bind)
    try:
        yield c.start()
    except BaseException:
        sys.stderr.write(c.logs())
        raise
    finally:
        subprocess.run([str(SCRIPT), "stop", str(c.dir)], timeout=SCRIPT_WAIT)
