#!/usr/bin/env python3
"""bench/runs.py: what a hierarchical run costs on the wire and on disk.

    bench/runs.py --build build [--baseline OLD_ARCLAMP_LOG] [--arcs 9000]
                  [--runs 50] [--seed 1]

1. The run: one MediaWiki-like page view of ARCS arcs (bench/runlogs.py
   --one-run: synthetic, namespaced PHP names such as
   `MediaWiki\\Language\\Database19::selectById`, a layered call graph), in
   the xhprof/1 format as the extension sent it; build/bench/runline-size
   writes it as xhprof/2 with the project's writer (common/src/runline.c),
   checks that it reads back as the same keys and metrics, and gives the
   bytes per arc of each format, the arcs each leaves out at the extension's
   default cap (excimer.hprof_max_bytes, 1 MiB) and the writer's time.
2. The disk: RUNS such runs (each its own run id) sent to arclamp-log's unix
   socket with an hourly and a daily log group; the bytes it wrote
   (arclamp_log_bytes_written_total) per run, the files made, the daemon's
   CPU time per run. With --baseline, first the same xhprof/1 runs through
   an older arclamp-log (the one that wrote each run four times: `all` and
   its entry point, hourly and daily), then through this one in both
   formats.

Prints two tables and a last line for scripts:
SUMMARY v1_per_arc= v2_per_arc= ratio= v1_left_out_pct= v2_left_out_pct=
before_bytes_per_run= after_bytes_per_run= after_v2_bytes_per_run=
"""

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MESSAGE_MAX = 64000  # what the extension puts in one message at most
METRIC = re.compile(r'^(\w+)(\{[^}]*\})? (\S+)$')


def sizes(build, v1_path, v2_path):
    out = subprocess.run([os.path.join(build, "bench", "runline-size"), "--write-v2", v2_path, v1_path],
                         check=True, capture_output=True, text=True).stdout
    return dict(kv.split("=", 1) for kv in out.split())


def messages(text, runid, new_id):
    """The run's lines under another run id, in messages of whole lines."""
    lines = text.rstrip("\n").replace(f" {runid} ", f" {new_id} ").encode().split(b"\n")
    out, cur = [], b""
    for line in lines:
        if cur and len(cur) + len(line) + 1 > MESSAGE_MAX:
            out.append(cur)
            cur = b""
        cur += line + b"\n"
    return out + [cur]


def metrics(path):
    m = {}
    try:
        with open(path) as f:
            for line in f:
                g = METRIC.match(line.strip())
                if g:
                    m[g.group(1) + (g.group(2) or "")] = float(g.group(3))
    except FileNotFoundError:
        pass
    return m


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(what, cond, timeout=300):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            sys.exit(f"bench: timed out waiting for {what}")
        time.sleep(0.05)


def through_daemon(binary, text, runid, runs, tmp):
    """Sends `runs` copies of the run to a fresh daemon; returns bytes
    written per run, the files made and CPU seconds per run."""
    work = tempfile.mkdtemp(dir=tmp)
    sock = os.path.join(work, "ingest.sock")
    prom = os.path.join(work, "metrics.prom")
    with open(os.path.join(work, "arclamp-log.yaml"), "w") as f:
        f.write(f"base_path: {work}/logs\nlog_target: stderr\nflush_interval: 0.2\n"
                f"metrics_file: {prom}\nmetrics_interval: 0.2\nlisten: ['unix://{sock}']\n"
                "logs:\n  - {period: hourly, format: '%Y-%m-%d_%H', retain: 24}\n"
                "  - {period: daily, format: '%Y-%m-%d', retain: 7}\n")
    err = open(os.path.join(work, "stderr"), "w")
    d = subprocess.Popen([binary, os.path.join(work, "arclamp-log.yaml")], stderr=err)
    try:
        wait_for("the daemon's socket", lambda: os.path.exists(sock) or d.poll() is not None)
        if d.poll() is not None:
            sys.exit(f"bench: {binary} exited: {open(os.path.join(work, 'stderr')).read()}")
        cpu0 = cpu_seconds(d.pid)
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:  # blocking: waits for room
            for r in range(runs):
                for msg in messages(text, runid, f"{0xbe7c4000 + r:016x}"):  # ids as long as the real ones
                    s.sendto(msg, sock)
        key = 'arclamp_log_runs_written_total{group="daily"}'
        wait_for(f"{runs} runs written", lambda: metrics(prom).get(key, 0) >= runs)
        time.sleep(0.5)  # one more metrics write after the last flush
        m = metrics(prom)
        cpu = cpu_seconds(d.pid) - cpu0
    finally:
        d.send_signal(signal.SIGTERM)
        d.wait(timeout=60)
        err.close()
    dropped = sum(v for k, v in m.items() if k.startswith("arclamp_log_runs_dropped_total"))
    if dropped:
        sys.exit(f"bench: {binary} dropped {dropped:.0f} runs")
    files = sorted(os.path.relpath(os.path.join(r, n), os.path.join(work, "logs"))
                   for r, _, ns in os.walk(os.path.join(work, "logs")) for n in ns)
    written = m["arclamp_log_bytes_written_total"]
    shutil.rmtree(work)
    return written / runs, files, cpu / runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--baseline")
    ap.add_argument("--arcs", type=int, default=9000)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="arclamp-bench-runs-")
    try:
        v1_path, v2_path = os.path.join(tmp, "run.v1"), os.path.join(tmp, "run.v2")
        with open(v1_path, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "runlogs.py"), "--one-run", str(a.arcs),
                            "--seed", str(a.seed)], stdout=f, check=True)
        s = sizes(a.build, v1_path, v2_path)
        arcs = int(s["arcs"])
        print(f"-- one MediaWiki-like page view (bench/runlogs.py --one-run {a.arcs}: synthetic, "
              f"{arcs} arcs over {s['names']} functions)")
        print(f"{'format':<10} {'bytes':>10} {'bytes/arc':>10} {'left out at the 1 MiB cap':>26}")
        for v in ("v1", "v2"):
            left = int(s[f"{v}_left_out"])
            print(f"xhprof/{v[1]:<3}  {int(s[v + '_bytes']):>10} {float(s[v + '_per_arc']):>10.1f} "
                  f"{left:>14} ({100 * left / arcs:4.1f}%)")
        print(f"xhprof/2 is {float(s['ratio']):.2f}x smaller; runline_write_run of the whole run: "
              f"{s['write_us']} us (median)")

        with open(v1_path) as f:
            v1 = f.read()
        with open(v2_path) as f:
            v2 = f.read()
        runid = v1.split(" ", 2)[1]
        rows = []
        if a.baseline:
            rows.append(("before (4 copies)", a.baseline, "xhprof/1", v1))
        rows += [("now (once per period)", os.path.join(a.build, "bin", "arclamp-log"), "xhprof/1", v1),
                 ("now (once per period)", os.path.join(a.build, "bin", "arclamp-log"), "xhprof/2", v2)]
        print(f"\n-- arclamp-log, {a.runs} such runs through its unix socket, hourly and daily groups")
        print(f"{'daemon':<22} {'format':<9} {'bytes written/run':>18} {'CPU ms/run':>11}  files per bucket pair")
        got = {}
        for label, binary, fmt, text in rows:
            per_run, files, cpu = through_daemon(binary, text, runid, a.runs, tmp)
            got[(label[:3], fmt)] = per_run
            shown = " ".join(re.sub(r"[0-9_-]+\.", "*.", p, count=1) for p in files)
            print(f"{label:<22} {fmt:<9} {per_run:>18,.0f} {cpu * 1000:>11.2f}  {shown}")
        before = got.get(("bef", "xhprof/1"))
        print("SUMMARY v1_per_arc=%s v2_per_arc=%s ratio=%s v1_left_out_pct=%.1f v2_left_out_pct=%.1f "
              "before_bytes_per_run=%s after_bytes_per_run=%.0f after_v2_bytes_per_run=%.0f" % (
                  s["v1_per_arc"], s["v2_per_arc"], s["ratio"], 100 * int(s["v1_left_out"]) / arcs,
                  100 * int(s["v2_left_out"]) / arcs, "%.0f" % before if before else "-",
                  got[("now", "xhprof/1")], got[("now", "xhprof/2")]))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
