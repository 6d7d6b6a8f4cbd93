#!/usr/bin/python3
"""bench/cluster.py: zero-loss messages per second of arclamp-log reading a
Redis Cluster of 1, 2 and 3 masters with 1 and 2 collectors, side by side
with one plain redis-server measured the same way in the same run.

    bench/cluster.py          (from the repository root, after `make
                               build/bin/arclamp-log build/bench/redis-loadgen`;
                               `make bench` builds both)

Why: a cluster spreads the senders' shard keys over masters, and several
collectors split the reading; this shows what a message costs a collector
(and Redis) in each shape, so the figures extrapolate to more cores and
machines. On a 2-core VM the masters, the collectors and the load generator
all share the same 2 cores: more masters or collectors cannot add capacity
here, they add contention. The rates are honest for this machine; the CPU
per message is the figure that carries over.

Method (each configuration): the collectors (build/bin/arclamp-log, hourly
and daily log groups, flush_interval 1, as bench/arclamp-log.sh runs it)
are started and must report every shard connected; then
build/bench/redis-loadgen sends realistic samples (about 1.7 KB, 40 frames;
the same pool and seeds everywhere) at the rising rates of BENCH_RATES
(the same ladder for every configuration) for BENCH_STEP_SECONDS each. In a
cluster, message i goes to shard key excimer{i mod BENCH_SHARDS} on the
master serving its slot (SPUBLISH for pub/sub; `XADD key MAXLEN ~ 1000000 *
sample MSG` for streams), as the extension sends them; the single Redis
gets PUBLISH / XADD on one key. After each step the script waits for the
flush and counts the lines in every collector's hourly/*.all.log
(truncated between steps): lost = sent - written. Pub/sub loses what a
collector cannot keep up with (Redis drops it at the output buffer limit);
a stream keeps its backlog, so there "lost" means not written within
BENCH_STREAM_GRACE seconds of the step's end: the collectors did not keep
up. The rates stop at the first loss, or when the generator reaches less
than 80% of the target: every core is busy (on this VM, usually before any
loss). The zero-loss rate is the highest rate achieved by a step without
loss.

Pub/sub collectors split the shards (shards_read "0-7" and "8-15"); stream
collectors all read every shard in one consumer group. The single Redis is
measured with one collector (in pub/sub, a second one would receive every
message again).

cpu is the collectors' user+system time (/proc/PID/stat, 10 ms ticks,
summed over the collectors) from the start of a step to the end of its
flush, per line written; redis is the same for the redis-server masters;
gen_us the load generator's (wait4). A collector's cost per message falls
as the rate rises (more messages per wakeup), so the summary gives it at
the ladder's first rate (every configuration runs it) and at the
configuration's highest zero-loss step.

Environment: BUILD (build), BENCH_MASTERS ("1 2 3"), BENCH_COLLECTORS
("1 2"), BENCH_MODES ("pubsub stream"), BENCH_SHARDS (16), BENCH_REPLICAS
(0: a replica per master would be one more process on the same cores),
BENCH_STEP_SECONDS (3), BENCH_RATES ("40000 55000 75000 100000 130000
170000": about 30% apart, so the run stays under 10 minutes),
BENCH_STREAM_GRACE (3),
BENCH_KEEP=1 (keep the temporary directory), TMPDIR (the trace logs: up to
a few GB per step). Exit status: 0 done, 1 a program is missing or a
collector died.
"""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "common" / "tests"))
from clusterkit import key_slot, redis_cluster, redis_cluster_missing  # noqa: E402
from benchkit import BUILD, CLK_TCK, proc_cpu_ticks as cpu_ticks, reap, stop as stop_process  # noqa: E402  (bench/)

DAEMON = BUILD / "bin" / "arclamp-log"
LOADGEN = BUILD / "bench" / "redis-loadgen"

MASTERS = [int(x) for x in os.environ.get("BENCH_MASTERS", "1 2 3").split()]
COLLECTORS = [int(x) for x in os.environ.get("BENCH_COLLECTORS", "1 2").split()]
MODES = os.environ.get("BENCH_MODES", "pubsub stream").split()
SHARDS = int(os.environ.get("BENCH_SHARDS", "16"))
REPLICAS = int(os.environ.get("BENCH_REPLICAS", "0"))
STEP_SECONDS = float(os.environ.get("BENCH_STEP_SECONDS", "3"))
STREAM_GRACE = float(os.environ.get("BENCH_STREAM_GRACE", "3"))
RATES = [float(x) for x in os.environ.get(
    "BENCH_RATES", "40000 55000 75000 100000 130000 170000").split()]
# CPU per message depends on the rate (a busier collector reads more
# messages per wakeup): configurations are compared at the same rate, the
# ladder's first, which every configuration sustains on the 2-core VM.
REF_RATE = RATES[0]
MAXLEN = 1000000
SEED = 42
CHANNEL = "excimer"
# Waits that a loaded 2-core machine needs: a collector connecting every
# shard, a flush (flush_interval 1) settling.
READY_WAIT = 60.0
FLUSH_STILL = 1.5
FLUSH_MAX = 15.0


def say(text=""):
    print(text, flush=True)


def die(text):
    say("bench: " + text)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_call(port, *args):
    """One command through redis-cli (setup and teardown only)."""
    return subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port)] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          timeout=30).stdout.strip()


# --- the Redis under test ---------------------------------------------------------


class SingleRedis:
    """One plain redis-server on a free port, no persistence."""

    def __init__(self, tmp):
        self.dir = tmp / "redis"
        self.dir.mkdir()
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.dir), "--logfile",
             str(self.dir / "redis.log")])
        deadline = time.monotonic() + READY_WAIT
        while redis_call(self.port, "PING") != "PONG":
            if self.proc.poll() is not None or time.monotonic() > deadline:
                die("redis-server did not start; see %s/redis.log" % self.dir)
            time.sleep(0.1)
        self.pids = [self.proc.pid]
        self.ports = [self.port]

    def stop(self):
        stop_process(self.proc)


class ClusterRedis:
    """A cluster made by scripts/redis-cluster (via clusterkit), its masters."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.ports = [cluster.port_of(m) for m in cluster.masters]
        self.pids = [cluster.pid(p) for p in self.ports]


# --- collectors -------------------------------------------------------------------


def redis_section(redis, mode, index, count):
    if isinstance(redis, SingleRedis):
        return ("redis:\n  host: 127.0.0.1\n  port: %d\n  mode: %s\n"
                "  stream_consumer: c%d\n" % (redis.port, mode, index))
    seeds = "".join("\n    - \"%s\"" % s for s in redis.cluster.seeds)
    out = ("redis:\n  cluster:%s\n  shards: %d\n  mode: %s\n  stream_consumer: c%d\n"
           % (seeds, SHARDS, mode, index))
    if mode == "pubsub" and count > 1:
        # the shards split as evenly as they go, each read by one collector
        first, last = index * SHARDS // count, (index + 1) * SHARDS // count - 1
        out += "  shards_read: \"%d-%d\"\n" % (first, last)
    return out


class Collector:
    """One arclamp-log in a directory of its own."""

    def __init__(self, tmp, name, redis, mode, index, count, channel):
        self.dir = tmp / name
        self.dir.mkdir()
        self.logs = self.dir / "logs"
        self.metrics = self.dir / "metrics.prom"
        cfg = self.dir / "arclamp-log.yaml"
        cfg.write_text(
            "base_path: %s\n%sredis_channel: %s\nlogs:\n"
            "  - period: hourly\n    format: \"%%Y-%%m-%%d_%%H\"\n    retain: 1000\n"
            "  - period: daily\n    format: \"%%Y-%%m-%%d\"\n    retain: 1000\n"
            "log_target: stderr\nmetrics_file: %s\nmetrics_interval: 0.5\n"
            "flush_interval: 1\n" % (self.logs, redis_section(redis, mode, index, count),
                                    channel, self.metrics))
        self.stderr = open(self.dir / "daemon.log", "wb")
        self.proc = subprocess.Popen([str(DAEMON), "--config", str(cfg)],
                                     stdout=subprocess.DEVNULL, stderr=self.stderr)
        self.pid = self.proc.pid

    def metric(self, name):
        try:
            for line in self.metrics.read_text().splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[0] == name:
                    return float(parts[1])
        except OSError:
            pass
        return None

    def ready(self, cluster):
        if self.proc.poll() is not None:
            raise RuntimeError("arclamp-log exited (%s); see %s/daemon.log"
                               % (self.proc.returncode, self.dir))
        if not cluster:
            return self.metric("arclamp_log_redis_connected") == 1
        shards = self.metric("arclamp_log_cluster_shards")
        return bool(shards) and self.metric("arclamp_log_cluster_shards_connected") == shards

    def all_files(self):
        return list((self.logs / "hourly").glob("*.all.log"))

    def bytes(self):
        return sum(f.stat().st_size for f in self.all_files())

    def lines(self):
        n = 0
        for f in self.all_files():
            with open(f, "rb") as fh:
                while True:
                    block = fh.read(1 << 20)
                    if not block:
                        break
                    n += block.count(b"\n")
        return n

    def truncate(self):
        for f in self.logs.rglob("*.log"):
            os.truncate(f, 0)

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        stop_process(self.proc)
        self.stderr.close()


# --- one configuration --------------------------------------------------------------


def loadgen(redis, mode, channel, rate, seed):
    """One step of redis-loadgen; (its key=value result, its CPU seconds)."""
    argv = [str(LOADGEN), "--channel", channel, "--rate", "%.0f" % rate,
            "--seconds", str(STEP_SECONDS), "--seed", str(seed)]
    if isinstance(redis, SingleRedis):
        argv += ["--port", str(redis.port)]
    else:
        argv += ["--cluster", ",".join(redis.cluster.masters), "--shards", str(SHARDS)]
    if mode == "stream":
        argv += ["--stream", "--maxlen", str(MAXLEN)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read().decode()
    proc.stdout.close()
    usage = reap(proc.pid)
    proc.returncode = usage["rc"]
    result = dict(kv.split("=", 1) for kv in out.split() if "=" in kv)
    return result, usage["cpu"]


def wait_flushed(collectors, want_bytes, step_end, mode):
    """Until the hourly all files hold want_bytes, stop growing for
    FLUSH_STILL s, or (streams) STREAM_GRACE s after the step's end."""
    last, still_since = -1, time.monotonic()
    limit = step_end + (STREAM_GRACE if mode == "stream" else FLUSH_MAX)
    while time.monotonic() < limit:
        size = sum(c.bytes() for c in collectors)
        if size >= want_bytes:
            return
        now = time.monotonic()
        if size != last:
            last, still_since = size, now
        elif now - still_since >= FLUSH_STILL and mode != "stream":
            return
        time.sleep(0.1)


def run_step(redis, collectors, mode, channel, rate, seed):
    for c in collectors:
        c.truncate()
    cpu0 = [cpu_ticks(c.pid) for c in collectors]
    rcpu0 = [cpu_ticks(p) for p in redis.pids]
    res, gen_cpu = loadgen(redis, mode, channel, rate, seed)
    step_end = time.monotonic()
    sent, payload = int(res.get("sent", 0)), int(res.get("bytes", 0))
    wait_flushed(collectors, payload + sent, step_end, mode)
    written = sum(c.lines() for c in collectors)
    cpu = sum(cpu_ticks(c.pid) for c in collectors) - sum(cpu0)
    rcpu = sum(cpu_ticks(p) for p in redis.pids) - sum(rcpu0)
    notes = []
    if int(res.get("errors", 0)):
        notes.append("errors=%s" % res["errors"])
    if int(res.get("unheard", 0)):
        notes.append("unheard=%s" % res["unheard"])
    if not all(c.alive() for c in collectors):
        notes.append("COLLECTOR-DIED")
    per = (lambda ticks: ticks * 1e6 / CLK_TCK / written) if written else (lambda _t: None)
    return {"target": rate, "rate": float(res.get("rate", 0)), "sent": sent,
            "written": written, "lost": sent - written, "cpu": per(cpu), "redis": per(rcpu),
            "gen": gen_cpu * 1e6 / sent if sent else None, "notes": notes}


def fmt_us(v):
    return "%.2f" % v if v is not None else "-"


def print_step(s):
    say("%9.0f %10.0f %9d %9d %8d %10s %9s %7s  %s" % (
        s["target"], s["rate"], s["sent"], s["written"], s["lost"], fmt_us(s["cpu"]),
        fmt_us(s["redis"]), fmt_us(s["gen"]), " ".join(s["notes"])))


def run_config(tmp, name, redis, mode, count):
    """The rising rates of one configuration; its summary row."""
    channel = "bench" + (name + mode).replace("-", "")
    cluster = not isinstance(redis, SingleRedis)
    collectors = [Collector(tmp, "%s-%s-%d" % (name, mode, i), redis, mode, i, count, channel)
                  for i in range(count)]
    row = {"name": name, "mode": mode, "best": 0.0, "ref": None, "top": None,
           "stop": "no loss up to %.0f" % RATES[-1], "died": False}
    try:
        deadline = time.monotonic() + READY_WAIT
        while not all(c.ready(cluster) for c in collectors):
            if time.monotonic() > deadline:
                raise RuntimeError("%s: collectors not connected in %.0f s" % (name, READY_WAIT))
            time.sleep(0.1)
        say("")
        say("== %s, %s, %d collector(s)" % (name, mode, count))
        say("%9s %10s %9s %9s %8s %10s %9s %7s  %s" % (
            "target", "sent/s", "sent", "written", "lost", "cpu_us/msg", "redis_us",
            "gen_us", "notes"))
        for i, rate in enumerate(RATES):
            s = run_step(redis, collectors, mode, channel, rate, SEED + i)
            print_step(s)
            if "COLLECTOR-DIED" in s["notes"]:
                row["died"], row["stop"] = True, "a collector died"
                break
            if s["lost"] > 0 or s["sent"] == 0:
                row["stop"] = "loss at %.0f" % rate
                break
            if rate == REF_RATE:
                row["ref"] = s
            if s["rate"] > row["best"]:
                row["best"], row["top"] = s["rate"], s
            if s["rate"] < 0.8 * rate:
                # every core busy: the generator itself is slowed down
                row["stop"] = "saturated: %.0f sent of %.0f" % (s["rate"], rate)
                break
    finally:
        for c in collectors:
            c.stop()
        for c in collectors:
            if os.environ.get("BENCH_KEEP") != "1":
                for f in c.logs.rglob("*.log"):
                    f.unlink()
    # streams keep what was not read: free the memory for the next configuration
    for port in redis.ports:
        redis_call(port, "FLUSHALL")
    return row


# --- the whole run ----------------------------------------------------------------


def shards_per_master(cl):
    """How many of the shard keys each master serves (the load's spread)."""
    owners = [cl.master_of(key_slot("%s{%d}" % (CHANNEL, k))) for k in range(SHARDS)]
    return [owners.count(m) for m in cl.masters]


def print_summary(rows, single):
    say("")
    say("== summary: highest zero-loss rate; CPU per message (us) at %.0f msg/s (every"
        % REF_RATE)
    say("   configuration) and at that highest rate; x single: against one redis-server")
    say("%-7s %6s %11s %8s %9s %9s %9s %9s  %s" % (
        "config", "mode", "zero-loss/s", "x single", "cpu@ref", "redis@ref", "cpu@top",
        "redis@top", "stopped by"))
    for r in rows:
        base = single.get(r["mode"])
        ratio = "%.2f" % (r["best"] / base["best"]) if base and base["best"] else "-"
        ref, top = r["ref"] or {}, r["top"] or {}
        say("%-7s %6s %11.0f %8s %9s %9s %9s %9s  %s" % (
            r["name"], r["mode"], r["best"], ratio, fmt_us(ref.get("cpu")),
            fmt_us(ref.get("redis")), fmt_us(top.get("cpu")), fmt_us(top.get("redis")),
            r["stop"]))
    say("")
    say("%d CPUs: the masters, the collectors and the generator share them; on this"
        % os.cpu_count())
    say("machine more masters or collectors add contention, not capacity. cpu_us/msg")
    say("(collector) and redis_us (masters) per message are what extrapolate.")
    parts = []
    for r in rows:
        key = "%s_%s" % (r["mode"], r["name"].split("-", 1)[0] if r["name"].startswith("single")
                         else r["name"].replace("-", "_"))
        parts.append("%s=%.0f %s_cpu_us=%s" % (key, r["best"], key,
                                               fmt_us((r["ref"] or {}).get("cpu"))))
    say("SUMMARY " + " ".join(parts))


def main():
    for prog in (DAEMON, LOADGEN):
        if not os.access(prog, os.X_OK):
            die("%s is missing (make build/bin/arclamp-log build/bench/redis-loadgen)" % prog)
    why = redis_cluster_missing()
    if why:
        die(why)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    t0 = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="bench-cluster."))
    rows, single, died = [], {}, False
    try:
        say("-- arclamp-log and Redis Cluster: %d shards, %d replica(s) per master, %g s per "
            "rate, %d CPUs (%s)" % (SHARDS, REPLICAS, STEP_SECONDS, os.cpu_count(), tmp))
        redis = SingleRedis(tmp)
        try:
            for mode in MODES:
                row = run_config(tmp, "single", redis, mode, 1)
                rows.append(row)
                single[mode] = row
                died |= row["died"]
        finally:
            redis.stop()
        for masters in MASTERS:
            with redis_cluster(tmp / ("cluster%d" % masters), masters=masters,
                               replicas=REPLICAS) as cl:
                redis = ClusterRedis(cl)
                say("")
                say("-- cluster of %d master(s): shards per master %s" % (
                    masters, " ".join(str(n) for n in shards_per_master(cl))))
                for mode in MODES:
                    for count in COLLECTORS:
                        row = run_config(tmp, "m%d-c%d" % (masters, count), redis, mode,
                                         count)
                        rows.append(row)
                        died |= row["died"]
        print_summary(rows, single)
        say("bench/cluster.py took %.0f s" % (time.monotonic() - t0))
    finally:
        if os.environ.get("BENCH_KEEP") == "1":
            say("bench: kept " + str(tmp))
        else:
            subprocess.run(["rm", "-rf", str(tmp)])
    return 1 if died else 0


if __name__ == "__main__":
    sys.exit(main())
