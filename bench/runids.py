#!/usr/bin/env python3
"""Benchmark: what run ids crafted to collide cost arclamp-log.

Until its run table's hash was keyed (common/src/keyedhash.c), arclamp-log
hashed run ids with 64-bit FNV-1a, which anyone can compute: 999 ids that
all fall into one bucket of the table (2,048 buckets at the default
max_pending_runs of 1000) make every line of those runs walk a chain of 999.
This script opens 999 runs, sends about 200,000 arc lines round-robin over
them through the daemon's unix socket (64 KB datagrams, as the extension
sends), then their end lines, waits until every run is written, and prints
the daemon's CPU time (user + system, /proc/PID/stat) over all of it: with
ids crafted against FNV-1a and with random ids, for each daemon given.

Usage: bench/runids.py [--binary LABEL=PATH ...] [--arcs N]
(default: now=build/bin/arclamp-log). A daemon of before the change shows
the crafted ids costing many times the random ones; a keyed one, the same.
"""
import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runs import cpu_seconds, metrics, wait_for  # noqa: E402  (one copy, bench/runs.py)

RUNS = 999
BUCKETS = 2048  # the run table of max_pending_runs 1000: a power of two >= 2000
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-"
FNV_PRIME = 1099511628211
FNV_OFFSET = 14695981039346656037
MESSAGE_MAX = 64000


def fnv_low(s, state, mask):
    """FNV-1a's state modulo mask+1 (a power of two) after the bytes of s:
    the low bits of a product depend only on the low bits of its factors."""
    for c in s.encode():
        state = ((state ^ c) * FNV_PRIME) & mask
    return state


def crafted_ids(n, mask):
    """n run ids of 16 characters whose FNV-1a hash is 0 modulo mask+1: a
    prefix, then two last characters chosen to bring the state to 0 (the
    last one must equal the state before it)."""
    ids, i = [], 0
    while len(ids) < n:
        prefix = f"{0xc0111de0000 + i:014x}"
        i += 1
        s = fnv_low(prefix, FNV_OFFSET & mask, mask)
        for c1 in ALPHABET:
            s1 = ((s ^ ord(c1)) * FNV_PRIME) & mask
            if s1 < 128 and chr(s1) in ALPHABET:
                ids.append(prefix + c1 + chr(s1))
                break
    return ids


def random_ids(n):
    rng = random.Random(24)
    return [f"{rng.getrandbits(64):016x}" for _ in range(n)]


def messages(ids, arcs):
    """Begin lines, `arcs` arc lines round-robin over the runs, end lines,
    packed into datagrams of whole lines."""
    now = int(time.time())
    per_run = [0] * len(ids)
    lines = [f"xhprof/1 {r} begin {now} web1 wt,cpu,mu,pmu /srv/mediawiki/index.php" for r in ids]
    for k in range(arcs):
        j = k % len(ids)
        per_run[j] += 1
        lines.append(f"xhprof/1 {ids[j]} arc 1 {100 + k % 50} 90 -10 20 main()==>f{per_run[j]}")
    lines += [f"xhprof/1 {r} end {per_run[j]} 0" for j, r in enumerate(ids)]
    out, cur = [], b""
    for line in lines:
        b = line.encode() + b"\n"
        if cur and len(cur) + len(b) > MESSAGE_MAX:
            out.append(cur)
            cur = b""
        cur += b
    return out + [cur]


def through_daemon(binary, msgs, tmp):
    """CPU seconds the daemon spent on the messages, until all runs were written."""
    work = tempfile.mkdtemp(dir=tmp)
    sock = os.path.join(work, "ingest.sock")
    prom = os.path.join(work, "metrics.prom")
    with open(os.path.join(work, "arclamp-log.yaml"), "w") as f:
        f.write(f"base_path: {work}/logs\nlog_target: stderr\nflush_interval: 0.2\n"
                f"metrics_file: {prom}\nmetrics_interval: 0.2\nlisten: ['unix://{sock}']\n"
                "logs:\n  - {period: daily, format: '%Y-%m-%d', retain: 7}\n")
    err = open(os.path.join(work, "stderr"), "w")
    d = subprocess.Popen([binary, os.path.join(work, "arclamp-log.yaml")], stderr=err)
    try:
        wait_for("the daemon's socket", lambda: os.path.exists(sock) or d.poll() is not None)
        if d.poll() is not None:
            sys.exit(f"bench: {binary} exited: {open(os.path.join(work, 'stderr')).read()}")
        cpu0 = cpu_seconds(d.pid)
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:  # blocking: waits for room
            for msg in msgs:
                s.sendto(msg, sock)
        key = 'arclamp_log_runs_written_total{group="daily"}'
        wait_for(f"{RUNS} runs written", lambda: metrics(prom).get(key, 0) >= RUNS, timeout=600)
        cpu = cpu_seconds(d.pid) - cpu0
        m = metrics(prom)
    finally:
        d.send_signal(signal.SIGTERM)
        d.wait(timeout=60)
        err.close()
    dropped = sum(v for k, v in m.items() if k.startswith("arclamp_log_runs_dropped_total"))
    if dropped:
        sys.exit(f"bench: {binary} dropped {dropped:.0f} runs")
    shutil.rmtree(work)
    return cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", action="append", default=[], metavar="LABEL=PATH")
    ap.add_argument("--arcs", type=int, default=200000)
    a = ap.parse_args()
    binaries = [b.split("=", 1) for b in a.binary] or [["now", "build/bin/arclamp-log"]]
    crafted = crafted_ids(RUNS, BUCKETS - 1)
    assert all(fnv_low(r, FNV_OFFSET & (BUCKETS - 1), BUCKETS - 1) == 0 for r in crafted)
    cases = [("crafted (FNV-1a bucket 0)", messages(crafted, a.arcs)),
             ("random", messages(random_ids(RUNS), a.arcs))]
    print(f"-- arclamp-log: {RUNS} runs, {a.arcs:,} arc lines round-robin, daemon CPU until all written")
    print(f"{'daemon':<12} {'run ids':<26} {'cpu_s':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, path in binaries:
            for name, msgs in cases:
                print(f"{label:<12} {name:<26} {through_daemon(path, msgs, tmp):>7.2f}", flush=True)


if __name__ == "__main__":
    main()
