#!/usr/bin/env python3
"""bench/tierlines.py: what a tier line costs arclamp-log, typical vs worst
case (issue 24, item 1).

    bench/tierlines.py [--binary build/bin/arclamp-log] [--lines 500]

Starts the daemon (hourly and daily groups, a unix datagram socket, a
notify socket of its own with WATCHDOG_USEC=2 s) in a temporary directory
for each workload, sends tiers/1 lines and measures, once the daemon has
received them all and a reload (SIGHUP, as a stop) has written every
minute and view they made:
  - the bytes it wrote (the rise of /proc/PID/io `wchar`: every write(2),
    views and appends alike) and its CPU time (/proc/PID/stat, user+system),
    per tier line;
  - the longest gap between two WATCHDOG=1 (the event loop's absence).
Workloads (every line valid, within the daemon's +-300 s window):
  typical  50 identities x 4 tiers from 10 hosts, END a minute ago (one
           pending minute, written on the tick once due), in 1,000-line
           datagrams;
  cycle    the issue's attack: one identity each, END cycling over five
           minutes 60 s apart (now-240 .. now), one line a datagram;
  dgram    the same lines, 1,500 of them in one datagram of ~100 KB.
The last line, `SUMMARY ...`, gives the worst case's cost per line over the
typical one's (bytes and CPU) and the longest watchdog gap.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "common" / "tests"))
from testkit import NotifyListener  # noqa: E402

def config(work, sock):
    return "\n".join([
        "base_path: %s" % (work / "logs"),
        "log_target: stderr",
        "flush_interval: 0.2",
        "metrics_file: %s" % (work / "metrics.prom"),
        "metrics_interval: 0.2",
        "listen: [\"unix://%s\"]" % sock,
        "max_line_bytes: 1048576",
        "logs:",
        "  - {period: hourly, format: \"%Y-%m-%d_%H\", retain: 10}",
        "  - {period: daily, format: \"%Y-%m-%d\", retain: 10}",
        ""])


def metric(work, name):
    try:
        text = (work / "metrics.prom").read_text()
    except OSError:
        return 0
    total = 0
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def proc_cost(pid):
    """Bytes written (wchar) and CPU seconds (schedstat: nanoseconds on a CPU)."""
    io = dict(line.split(": ") for line in Path("/proc/%d/io" % pid).read_text().splitlines())
    return int(io["wchar"]), int(Path("/proc/%d/schedstat" % pid).read_text().split()[0]) / 1e9


def wait(cond, what, timeout):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise SystemExit("bench: timed out waiting for %s" % what)
        time.sleep(0.05)


def agg(end, host, identity, tier, ns):
    return b"tiers/1 agg %d %d %s 7 %s %s 1 %d %d:1" % (
        end - 5, end, host, identity, tier, ns, min(ns, 63))


def typical(now, n):
    end = now - 60  # the minute before: one pending minute, written on the next tick
    lines = [agg(end, b"web%d" % (i % 10), b"type%d" % (i % 50),
                 (b"_total", b"db", b"parse", b"cache")[(i // 50) % 4], 40) for i in range(n)]
    return [b"\n".join(lines[i:i + 1000]) for i in range(0, n, 1000)]


def cycle_lines(now, n):
    base = now - now % 60 + 30
    return [agg(base - 60 * (i % 5) if base - 60 * (i % 5) >= now - 290 else now,
                b"h", b"i%d" % i, b"db", 40) for i in range(n)]


def run(binary, name, make, timeout):
    work = Path(tempfile.mkdtemp(prefix="tierlines-"))
    sock = work / "in.sock"
    (work / "arclamp-log.yaml").write_text(config(work, sock))
    notify = NotifyListener(work / "notify.sock")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NOTIFY_", "WATCHDOG_", "LISTEN_"))}
    env.update(NOTIFY_SOCKET=notify.path, WATCHDOG_USEC="2000000")
    proc = subprocess.Popen([binary, str(work / "arclamp-log.yaml")], env=env,
                            stdout=subprocess.DEVNULL, stderr=open(str(work / "stderr"), "wb"))
    try:
        notify.wait_for("READY=1", timeout=20, alive=lambda: proc.poll() is None)
        wait(lambda: metric(work, "arclamp_log_tier_lines_received_total") == 0 and
             (work / "metrics.prom").exists(), "metrics", 20)
        datagrams = make(int(time.time()))
        nlines = sum(d.count(b"\n") + 1 for d in datagrams)
        w0, c0 = proc_cost(proc.pid)
        mark = len(notify)
        t0 = time.monotonic()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        for d in datagrams:
            s.sendto(d, str(sock))
        s.close()
        wait(lambda: metric(work, "arclamp_log_tier_lines_received_total") >= nlines,
             "%d lines received" % nlines, timeout)
        # a reload writes every pending minute and the views, as a stop
        # does, and the process stays for the measurement
        mark_reload = len(notify)
        proc.send_signal(signal.SIGHUP)
        reloading = notify.wait_for("RELOADING=1", start=mark_reload, timeout=timeout)
        notify.wait_for("READY=1", start=reloading, timeout=timeout)
        w1, c1 = proc_cost(proc.pid)
        t1 = time.monotonic()
        pings = [t for t, item in notify.snapshot()[mark:] if item == "WATCHDOG=1"]
        gap = max(b - a for a, b in zip([t0] + pings, pings + [t1]))
        return {"name": name, "lines": nlines, "bytes": w1 - w0, "cpu": c1 - c0,
                "gap": gap, "bytes_in": sum(len(d) for d in datagrams)}
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=600)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        notify.close()
        shutil.rmtree(str(work), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(os.environ.get("BUILD", "build"),
                                                      "bin", "arclamp-log"))
    ap.add_argument("--lines", type=int, default=500)
    ap.add_argument("--timeout", type=float, default=900)
    a = ap.parse_args()
    if not os.access(a.binary, os.X_OK):
        raise SystemExit("bench: %s is missing (make all)" % a.binary)
    n = a.lines
    results = [
        run(a.binary, "typical", lambda now: typical(now, 10 * n), a.timeout),
        run(a.binary, "cycle", lambda now: cycle_lines(now, n), a.timeout),
        run(a.binary, "dgram", lambda now: [b"\n".join(cycle_lines(now, 1500))], a.timeout),
    ]
    print("%-8s %6s %9s %12s %10s %10s %9s %10s" % ("workload", "lines", "in_bytes", "written",
                                                 "B/line", "cpu_s", "us/line", "wd_gap_s"))
    for r in results:
        print("%-8s %6d %9d %12d %10.0f %10.3f %9.1f %10.2f" % (
            r["name"], r["lines"], r["bytes_in"], r["bytes"], r["bytes"] / r["lines"], r["cpu"],
            r["cpu"] / r["lines"] * 1e6, r["gap"]))
    t = results[0]
    worst = max(results[1:], key=lambda r: r["bytes"] / r["lines"])
    bpl = lambda r: r["bytes"] / r["lines"]  # noqa: E731
    cpl = lambda r: r["cpu"] / r["lines"]  # noqa: E731
    print("SUMMARY worst=%s bytes_per_line_ratio=%.1f cpu_per_line_ratio=%.1f "
          "max_watchdog_gap_s=%.2f" % (worst["name"], bpl(worst) / max(bpl(t), 1e-9),
                                       max(cpl(r) for r in results[1:]) / cpl(t),
                                       max(r["gap"] for r in results)))


if __name__ == "__main__":
    main()
