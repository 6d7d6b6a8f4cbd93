"""Scenario 14's Redis Cluster: 3 masters and 3 replicas made by
scripts/redis-cluster inside a namespace of their own, bound to its
address, and what the test does to it (kill a master and wait for its
replica's promotion, move a busy shard's slot, read a stream's pending
entries) -- always by a client running inside that namespace.

    rc = RedisClusterPart(topo.add_host("rcluster", 30), workdir / "rcluster", base_port=17001)
    rc.start()                      # the seeds are rc.seeds ("10.77.0.30:17001", ...)
    rc.call("failover", port=17003, pause=True, keys=[...], group="arclamp-log")

The test process never talks to a node (network rule, README): every
operation is `python3 -m harness.rcluster SPEC.json` run with `ip netns
exec` in the cluster's namespace, which drives common/tests/clusterkit.py's
Cluster (kill, wait_failover, begin_migration, move_keys,
finish_migration) and answers JSON on stdout. The ports are fixed
(base_port ..): the namespace is the cluster's own, so they are free, and
the web hosts' targets can name them before the cluster exists.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .procs import tail

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "redis-cluster"
HARNESS_PARENT = str(Path(__file__).resolve().parents[1])   # integration-tests/
# clusterkit bounds a failover by 60 s and a start by the script's 60 s; a
# client run is allowed that and some more.
CLIENT_WAIT = 240


def client_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LISTEN_", "NOTIFY_"))}
    env["PYTHONPATH"] = HARNESS_PARENT
    return env


class _Liveness:
    """What Fleet.unexpected_exits asks of a part's `proc`: a node that
    stopped running without the test killing it."""

    name = "redis cluster"

    def __init__(self, part):
        self.part = part

    def unexpected_exit(self):
        if not self.part.wanted:
            return None
        gone = [p for p in self.part.ports if p not in self.part.killed and not self.part.node_runs(p)]
        return "nodes %s not running" % gone if gone else None


class RedisClusterPart:
    """The cluster in `dir` (a Fleet.parts member: close() and
    diagnostics() are called at teardown)."""

    def __init__(self, ns, dir, base_port=17001, masters=3, replicas=1, node_timeout=2000):
        self.ns = ns
        self.dir = Path(dir)
        self.base_port = base_port
        self.n_masters, self.n_replicas, self.node_timeout = masters, replicas, node_timeout
        self.ports = list(range(base_port, base_port + masters * (1 + replicas)))
        self.seeds = ["%s:%d" % (ns.address, p) for p in self.ports]
        self.killed = set()         # ports the test killed on purpose
        self.wanted = False
        self.proc = _Liveness(self)

    def call(self, op, **spec):
        """One operation run inside the cluster's namespace; its JSON answer."""
        spec = dict(spec, op=op, dir=str(self.dir), bind=self.ns.address,
                    base_port=self.base_port, masters=self.n_masters,
                    replicas=self.n_replicas, node_timeout=self.node_timeout)
        path = self.dir.parent / ("rcluster-%s-%d.json" % (op, time.monotonic_ns()))
        path.write_text(json.dumps(spec))
        try:
            cp = self.ns.run([sys.executable, "-m", "harness.rcluster", str(path)],
                             timeout=CLIENT_WAIT, check=False, env=client_env())
        finally:
            path.unlink()
        if cp.returncode != 0:
            raise AssertionError("rcluster %s in %s: exit %d\n%s\n%s" % (
                op, self.ns.host, cp.returncode, cp.stderr.decode("utf-8", "replace")[-3000:],
                "".join("--- %s\n%s\n" % d for d in self.diagnostics(1500))))
        return json.loads(cp.stdout.decode())

    def start(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        out = self.call("start")
        assert out["seeds"] == self.seeds, (out["seeds"], self.seeds)
        self.wanted = True
        return out

    def node_runs(self, port):
        try:
            pid = int((self.dir / str(port) / "redis.pid").read_text().strip())
            return b"redis-server" in Path("/proc/%d/cmdline" % pid).read_bytes()
        except (OSError, ValueError):
            return False

    def close(self):
        self.wanted = False
        if (self.dir / "ports").exists():
            self.ns.run([str(SCRIPT), "stop", str(self.dir)], timeout=60, check=False,
                        env=client_env())

    def diagnostics(self, limit=3000):
        return [("redis cluster node %s" % p.parent.name, tail(p, limit))
                for p in sorted(self.dir.glob("*/redis.log")) if p.stat().st_size]


# ---------------------------------------------------------------- inside the namespace
# (python3 -m harness.rcluster SPEC.json)

def _cluster(spec):
    from clusterkit import Cluster        # common/tests, on sys.path by harness/__init__
    c = Cluster(spec["dir"], spec["masters"], spec["replicas"], spec["node_timeout"],
                spec["bind"])
    n = spec["masters"] * (1 + spec["replicas"])
    c.ports = list(range(spec["base_port"], spec["base_port"] + n))
    c.seeds = c.nodes = [c.addr(p) for p in c.ports]
    return c


def _op_start(c, spec):
    # The script with fixed ports creates the cluster; clusterkit's start
    # then finds every node running (the script only checks them again)
    # and waits until they agree, replicas listed.
    subprocess.run([str(SCRIPT), "start", spec["dir"], "--masters", str(spec["masters"]),
                    "--replicas", str(spec["replicas"]), "--node-timeout",
                    str(spec["node_timeout"]), "--bind", spec["bind"], "--port",
                    str(spec["base_port"])], check=True, stdout=subprocess.DEVNULL, timeout=180)
    c.start()
    return {"seeds": c.seeds, "masters": c.masters, "slots": c.slots()}


def _xinfo(c, port, key, asking=False):
    """XINFO STREAM as a dict (None when the key is not there)."""
    from clusterkit import Connection, RedisError
    conn = Connection(c.host, port)
    try:
        if asking:
            conn.call("ASKING")
        try:
            raw = conn.call("XINFO", "STREAM", key)
        except RedisError:
            return None
    finally:
        conn.close()
    return {raw[i].decode(): raw[i + 1] for i in range(0, len(raw), 2)}


def _added(c, port, key, asking=False):
    info = _xinfo(c, port, key, asking)
    return int(info["entries-added"]) if info else 0


def _stream_state(c, key, group, port=None):
    """One key on its master: length, entries added ever, and the group's
    pending entries by consumer ({name: {"entries", "lines"}}: the lines
    are those of the entries' messages, lines joined by newlines)."""
    from clusterkit import RedisError, key_slot
    port = port or c.port_of(c.master_of(key_slot(key)))
    out = {"master": c.addr(port), "length": 0, "added": 0, "pending": 0, "consumers": {}}
    info = _xinfo(c, port, key)
    if info is None:
        return out
    out["length"], out["added"] = int(info["length"]), int(info["entries-added"])
    try:
        pend = c.command(port, "XPENDING", key, group, "-", "+", 100000)
    except RedisError:
        return out          # no such group yet
    for entry_id, consumer, _idle, _deliveries in pend:
        got = c.command(port, "XRANGE", key, entry_id, entry_id)
        fields = got[0][1] if got else []
        message = fields[1] if len(fields) >= 2 else b""
        lines = len([ln for ln in message.split(b"\n") if ln])
        per = out["consumers"].setdefault(consumer.decode(), {"entries": 0, "lines": 0})
        per["entries"] += 1
        per["lines"] += lines
        out["pending"] += 1
    return out


def _op_streams(c, spec):
    return {k: _stream_state(c, k, spec["group"]) for k in spec["keys"]}


def _op_slots(c, spec):
    return {"slots": c.slots()}


def _replicas_caught_up(c, port):
    """None when every replica of the master on `port` has its
    replication offset, else why not."""
    info = c.info(port, "replication")
    want = int(info["master_repl_offset"])
    replicas = [v for k, v in info.items() if k.startswith("slave") and k[5:].isdigit()]
    if not replicas:
        return "no replica connected"
    for r in replicas:
        fields = dict(f.split("=", 1) for f in r.split(","))
        if int(fields["offset"]) < want:
            return "replica %s at %s of %d" % (fields["port"], fields["offset"], want)
    return None


def _op_failover(c, spec):
    """Kills the master on `port` (SIGKILL) and waits for its replica's
    promotion. pause: first CLIENT PAUSE WRITE on it and wait until its
    replicas have everything it acknowledged -- replication is
    asynchronous, so a master killed at a random moment may take entries
    it acknowledged and had not yet passed on; that is Redis's, not Arc
    Lamp's, loss, and the pause keeps it out of the measurement. The
    streams' pending entries are read while paused (nothing can change
    them then): what a collector may read again after the promotion."""
    port = spec["port"]
    out = {"paused_for": 0.0}
    if spec.get("pause"):
        t0 = time.monotonic()
        c.command(port, "CLIENT", "PAUSE", 30000, "WRITE")
        deadline = t0 + 30
        while True:
            why = _replicas_caught_up(c, port)
            if why is None:
                break
            if time.monotonic() > deadline:
                raise AssertionError("replicas of %d not caught up: %s" % (port, why))
            time.sleep(0.005)
        out["streams"] = {k: _stream_state(c, k, spec["group"], port) for k in spec.get("keys", [])}
        out["paused_for"] = time.monotonic() - t0
    out["killed_at"] = time.monotonic()
    c.kill(port)
    out["new_master"] = c.wait_failover(port)
    out["promoted_at"] = time.monotonic()
    out["slots"] = c.slots()
    return out


def _wait_added(c, port, key, base, more, asking, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        now = _added(c, port, key, asking)
        if now >= base + more:
            return now
        if time.monotonic() > deadline:
            raise AssertionError("%s: %d entries added to %s, wanted %d more than %d"
                                 % (what, now, key, more, base))
        time.sleep(0.05)


def _op_migrate(c, spec):
    """Moves `key`'s slot to the master on `to_port` while it is written
    to: IMPORTING/MIGRATING, then `more` new entries on the source; the
    key moved (MIGRATE), then `more` new entries on the target (senders
    and readers sent there by ASK); the slot given to the target, then
    `more` new entries there. Returns the phases' times (monotonic)."""
    from clusterkit import key_slot
    key, more, timeout = spec["key"], spec.get("more", 2), spec.get("timeout", 60)
    slot = key_slot(key)
    m = c.begin_migration(slot, spec["to_port"])
    out = {"from": c.addr(m.from_port), "to": c.addr(m.to_port), "slot": slot,
           "begun_at": time.monotonic()}
    base = _added(c, m.from_port, key)
    _wait_added(c, m.from_port, key, base, more, False, timeout, "migrating")
    out["keys_moved"] = c.move_keys(m)
    out["moved_at"] = time.monotonic()
    base = _added(c, m.to_port, key, asking=True)
    _wait_added(c, m.to_port, key, base, more, True, timeout, "moved, importing")
    c.finish_migration(m)
    out["finished_at"] = time.monotonic()
    base = _added(c, m.to_port, key)
    out["added"] = _wait_added(c, m.to_port, key, base, more, False, timeout, "migrated")
    out["slots"] = c.slots()
    return out


OPS = {"start": _op_start, "streams": _op_streams, "slots": _op_slots,
       "failover": _op_failover, "migrate": _op_migrate}


def main(argv):
    with open(argv[1]) as f:
        spec = json.load(f)
    c = _cluster(spec)
    result = OPS[spec["op"]](c, spec)
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
