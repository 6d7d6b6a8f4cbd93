#!/usr/bin/env python3
"""bench/delivery.py: hierarchical runs of MediaWiki's size delivered over
the unix datagram socket (the packaged default), before and after.

    bench/delivery.py --build build [--baseline-ext OLD_EXCIMER_SO] [--requests 20]

REQUESTS requests of one `php-cgi -T` (bench/php/bigrun.php: a run of about
9,000 arcs with long namespaced names, as a MediaWiki page view's), every
one profiled (excimer.hprof_sample_rate = 1) with the packaged defaults
otherwise (excimer.arclamp_timeout 0.1 s, excimer.hprof_max_bytes 1 MiB,
excimer.arclamp_send_delay 1 s), sent to a real arclamp-log's unix socket.
For the extension built now and, with --baseline-ext, an older one (the one
that sent back-to-back datagrams with MSG_DONTWAIT and xhprof/1 lines):
runs written whole, arcs left out, the run's bytes on the wire per arc, and
the wall time of the requests.

Prints a table and a last line for scripts:
SUMMARY before_written= before_left_out_pct= after_written= after_left_out_pct= requests=
"""

import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from runs import metrics, wait_for  # noqa: E402


def start_daemon(binary, work):
    sock = os.path.join(work, "ingest.sock")
    prom = os.path.join(work, "metrics.prom")
    with open(os.path.join(work, "arclamp-log.yaml"), "w") as f:
        f.write(f"base_path: {work}/logs\nlog_target: stderr\nflush_interval: 0.2\n"
                f"metrics_file: {prom}\nmetrics_interval: 0.2\nlisten: ['unix://{sock}']\n"
                "logs:\n  - {period: hourly, format: '%Y-%m-%d_%H', retain: 24}\n")
    err = open(os.path.join(work, "stderr"), "w")
    d = subprocess.Popen([binary, os.path.join(work, "arclamp-log.yaml")], stderr=err)
    wait_for("the daemon's socket", lambda: os.path.exists(sock) or d.poll() is not None)
    if d.poll() is not None:
        sys.exit(f"bench: {binary} exited: {open(os.path.join(work, 'stderr')).read()}")
    return d, err, sock, prom


def runs_in_logs(work):
    """(runs whole, arcs sent, arcs left out, bytes of run lines) of the run logs."""
    runs = sent = left = size = 0
    for path in glob.glob(os.path.join(work, "logs", "*", "*.runs")):
        with open(path, "rb") as f:
            data = f.read()
        size += len(data)
        for line in data.split(b"\n"):
            f = line.split(b" ")
            if len(f) == 5 and f[2] == b"end":
                runs += 1
                sent += int(f[3])
                left += int(f[4])
    return runs, sent, left, size


def measure(ext, log_bin, requests, tmp):
    work = tempfile.mkdtemp(dir=tmp)
    d, err, sock, prom = start_daemon(log_bin, work)
    try:
        cmd = ["php-cgi", "-n", "-q", "-T", str(requests), "-d", f"extension={ext}",
               "-d", "excimer.hprof_sample_rate=1", "-d", f"excimer.hprof_target=unix://{sock}",
               os.path.join(HERE, "php", "bigrun.php")]
        t0 = time.monotonic()
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        wall = time.monotonic() - t0
        if out.returncode != 0 or out.stdout.count("served") != requests:
            sys.exit(f"bench: php-cgi failed ({out.returncode}): {out.stdout[-500:]} {out.stderr[-500:]}")
        # the sender delivers within its timeouts; then the daemon settles
        last, since = None, time.monotonic()
        while time.monotonic() - since < 1.0:
            m = metrics(prom)
            now = (m.get("arclamp_log_runs_received_total"), m.get("arclamp_log_messages_received_total"))
            if now != last:
                last, since = now, time.monotonic()
            time.sleep(0.1)
    finally:
        d.send_signal(signal.SIGTERM)
        d.wait(timeout=60)
        err.close()
    whole, sent, left, size = runs_in_logs(work)
    shutil.rmtree(work)
    return {"whole": whole, "left_pct": 100.0 * left / (sent + left) if sent + left else 0.0,
            "per_arc": size / sent if sent else 0.0, "wall": wall / requests}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--baseline-ext")
    ap.add_argument("--requests", type=int, default=20)
    a = ap.parse_args()
    log_bin = os.path.join(a.build, "bin", "arclamp-log")
    tmp = tempfile.mkdtemp(prefix="bench-delivery-")
    try:
        rows = []
        if a.baseline_ext:
            rows.append(("before", measure(a.baseline_ext, log_bin, a.requests, tmp)))
        rows.append(("after", measure(os.path.join(a.build, "php", "excimer.so"), log_bin,
                                      a.requests, tmp)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"-- {a.requests} requests of one php-cgi, each a run of ~9,000 arcs, zero-code, "
          "to arclamp-log's unix socket (packaged defaults)")
    print(f"{'extension':<10} {'runs written whole':>20} {'arcs left out':>14} "
          f"{'bytes/arc stored':>17} {'ms/request':>11}")
    for name, r in rows:
        print(f"{name:<10} {r['whole']:>11} of {a.requests:<6} {r['left_pct']:>13.1f}% "
              f"{r['per_arc']:>17.1f} {r['wall'] * 1000:>11.1f}")
    summary = {name: r for name, r in rows}
    b = summary.get("before", {"whole": "-", "left_pct": float("nan")})
    print(f"SUMMARY before_written={b['whole']} before_left_out_pct={b['left_pct']:.1f} "
          f"after_written={summary['after']['whole']} "
          f"after_left_out_pct={summary['after']['left_pct']:.1f} requests={a.requests}")


if __name__ == "__main__":
    main()
