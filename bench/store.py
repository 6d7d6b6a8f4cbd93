#!/usr/bin/python3
"""bench/store.py: arclamp-svg and the object store, against a real
one-node Swift on the loopback (scripts/swift-server, in a temporary
directory, always stopped).

    bench/store.py            (from the repository root, after `make all`
                               and `make build/bench/svg-loggen`; `make
                               bench` builds both)

1. Upload. BENCH_UPLOAD_LOGS hourly trace logs of BENCH_UPLOAD_LINES lines
   each (build/bench/svg-loggen's MediaWiki-like collapsed stacks, about
   2 KB and 41 frames a line), once as plain `.log` and once as `.log.gz`
   (gzip -6 beforehand, as a log compressed by age is). Each round,
   `arclamp-svg publish` (a fresh data dir, so a fresh manifest, and fresh
   containers) and the `swift upload` CLI of python3-swiftclient (what the
   original Arc Lamp uploads with; its defaults) send the same files.
   Figures: wall time, user+system CPU of the uploading process alone
   (wait4), the CPU the four Swift servers spent meanwhile (/proc), the
   bytes the store holds afterwards (its listing). `arclamp-svg` gzips a
   plain `.log` on the way; `swift upload` sends it as it is.
2. Draw. For N in BENCH_HOSTS, N hosts each publish their own log of one
   bucket and entry point (`<prefix>-logs-hourly/hN/<name>.log.gz`, slices of
   one generated log: the same call graph and popular stacks, so the hosts'
   stacks overlap as a fleet's do). Then, each round, `arclamp-svg generate
   --force` with `object_store.from_store: true` on a fresh data dir (list,
   fetch, merge, draw), and `arclamp-svg generate --force` on a local data
   dir holding the same content (the hosts' logs concatenated into one log:
   plain `.log`, and `.log.gz`, the form the store's merge leaves on disk).
   The graphs must count the same samples.

Every figure is a median of BENCH_ROUNDS rounds (the tools alternate which
goes first). The machine is a shared 2-core VM: absolute figures move by
20-40% between runs; the ratios measured side by side in the same rounds
are the figures to compare. The last line, `SUMMARY ...`, is for scripts.

Environment: BUILD (build), BENCH_ROUNDS (5), BENCH_UPLOAD_LOGS (8),
BENCH_UPLOAD_LINES (4000, about 8 MB a log), BENCH_HOSTS ("1 4 8"),
BENCH_HOST_LINES (5000, about 10 MB a host), BENCH_SWIFT_CLI (1; 0 skips
the swift CLI), BENCH_KEEP=1 (keep the temporary directory), TMPDIR.
Exit status: 0 done, 1 a program is missing or a run failed.
"""

import gzip
import os
import shutil
import signal
import statistics
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "common" / "tests"))
from swiftkit import SwiftClient, swift_missing, swift_server  # noqa: E402
from benchkit import BUILD, proc_cpu_seconds, run_measured  # noqa: E402  (bench/, the script's directory)

SVG = BUILD / "bin" / "arclamp-svg"
LOGGEN = BUILD / "bench" / "svg-loggen"
SWIFT_CLI = "/usr/bin/swift"
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
UPLOAD_LOGS = int(os.environ.get("BENCH_UPLOAD_LOGS", "8"))
UPLOAD_LINES = int(os.environ.get("BENCH_UPLOAD_LINES", "4000"))
HOSTS = [int(n) for n in os.environ.get("BENCH_HOSTS", "1 4 8").split()]
HOST_LINES = int(os.environ.get("BENCH_HOST_LINES", "5000"))
USE_SWIFT_CLI = os.environ.get("BENCH_SWIFT_CLI", "1") == "1"
SEED = 42
BUCKET = "2026-11-28_10.excimer.all"
MB = 1e6
FAILED = []


def say(*a):
    print(*a, flush=True)


def die(msg):
    print("bench: " + msg, file=sys.stderr)
    sys.exit(1)


def server_cpu(swift_dir):
    """User+system seconds the Swift servers have used so far (their pid
    files; workers = 0, so one process each)."""
    pids = []
    for pidfile in (swift_dir / "run").glob("*.pid"):
        try:
            pids.append(int(pidfile.read_text().strip()))
        except (OSError, ValueError):
            pass
    return proc_cpu_seconds(pids)


def measured(label, cmd, tmp, swift_dir, cwd=None):
    """run_measured() with the servers' CPU over the run; a failure is recorded."""
    s0 = server_cpu(swift_dir)
    r = run_measured(cmd, tmp / "out", tmp / "err", cwd)
    r["server"] = server_cpu(swift_dir) - s0
    r["stdout"] = (tmp / "out").read_text(errors="replace")
    if r["rc"] != 0:
        FAILED.append(label)
        say("   %s exited with status %d: %s" % (
            label, r["rc"], (tmp / "err").read_text(errors="replace")[-600:]))
    return r


def store_config(swift, prefix, data_dir, extra=""):
    return ("log_target: stderr\ndata_dir: %s\n"
            "object_store:\n  type: swift\n  auth_url: %s\n  user: %s\n  key: %s\n"
            "  container_prefix: %s\n%s"
            % (data_dir, swift.auth_url, swift.user, swift.key, prefix, extra))


def write_config(path, text):
    path.write_text(text)
    return path


def listed_bytes(client, container):
    items = client.listing(container)
    return len(items), sum(i["bytes"] for i in items)


def root_total(svgz):
    """The root box's sample count ("all (N samples, 100%)") of a graph."""
    root = ET.fromstring(gzip.decompress(svgz.read_bytes()))
    for t in root.iter("{http://www.w3.org/2000/svg}title"):
        if t.text and t.text.startswith("all (") and t.text.endswith(", 100%)"):
            return int(t.text[5:].split(" ")[0].replace(",", ""))
    return None


# ---- the logs ----

def generate_lines(tmp, lines):
    """svg-loggen's log of `lines` lines, as a list of lines (bytes)."""
    path = tmp / "source.log"
    r = run_measured([str(LOGGEN), "--lines", str(lines), "--seed", str(SEED),
                      "--output", str(path)], tmp / "loggen.out", tmp / "loggen.err")
    if r["rc"] != 0:
        die("svg-loggen failed: " + (tmp / "loggen.err").read_text())
    data = path.read_bytes().splitlines(keepends=True)
    path.unlink()
    return data


def fill_dir(data_dir, files):
    """A data dir whose logs/hourly holds hard links to files."""
    hourly = data_dir / "logs" / "hourly"
    hourly.mkdir(parents=True)
    for f in files:
        os.link(f, hourly / f.name)


# ---- 1. upload ----

def upload(swift, client, tmp, lines):
    work = tmp / "upload"
    sets = {"log": work / "set-log", "log.gz": work / "set-gz"}
    for d in sets.values():
        d.mkdir(parents=True)
    for i in range(UPLOAD_LOGS):
        chunk = b"".join(lines[i * UPLOAD_LINES:(i + 1) * UPLOAD_LINES])
        name = "2026-11-28_%02d.excimer.all.log" % i
        (sets["log"] / name).write_bytes(chunk)
        (sets["log.gz"] / (name + ".gz")).write_bytes(gzip.compress(chunk, 6))
    say("")
    say("== upload: %d hourly logs of %d lines, %d rounds, medians" % (
        UPLOAD_LOGS, UPLOAD_LINES, ROUNDS))
    res = {}
    for r in range(ROUNDS):
        for kind, d in sets.items():
            files = sorted(d.iterdir())
            tools = ["arclamp-svg publish", "swift upload"] if USE_SWIFT_CLI else [
                "arclamp-svg publish"]
            if r % 2:
                tools.reverse()
            for tool in tools:
                tag = "%s%d" % ("p" if kind == "log" else "z", r)
                if tool == "swift upload":
                    container = "cli-" + tag
                    cmd = [SWIFT_CLI, "-A", swift.auth_url, "-U", swift.user, "-K", swift.key,
                           "upload", container] + [f.name for f in files]
                    m = measured(tool, cmd, work, swift.dir, cwd=d)
                else:
                    data_dir = work / ("data-" + tag)
                    fill_dir(data_dir, files)
                    cfg = write_config(work / ("config-%s.yaml" % tag),
                                       store_config(swift, "up" + tag, data_dir,
                                                    "  retries: 1\n"))
                    container = "up%s-logs-hourly" % tag
                    m = measured(tool, [str(SVG), "publish", "--config", str(cfg)], work,
                                 swift.dir)
                    shutil.rmtree(data_dir)
                n, sent = listed_bytes(client, container)
                if n != len(files):
                    FAILED.append(tool)
                    say("   %s: the store holds %d objects of %d" % (tool, n, len(files)))
                m["in"] = sum(f.stat().st_size for f in files)
                m["sent"] = sent
                res.setdefault((kind, tool), []).append(m)
    say("   %-8s %-20s %8s %8s %7s %7s %8s %9s %9s" % (
        "files", "uploader", "MB in", "MB sent", "wall s", "MB/s", "CPU s", "CPU ms/MB",
        "swift ms/MB"))
    summary = {}
    for (kind, tool), ms in res.items():
        mb_in = ms[0]["in"] / MB
        wall = statistics.median(m["wall"] for m in ms)
        cpu = statistics.median(m["cpu"] for m in ms)
        srv = statistics.median(m["server"] for m in ms)
        sent = statistics.median(m["sent"] for m in ms) / MB
        summary[(kind, tool)] = (mb_in / wall, cpu * 1000 / mb_in, wall)
        say("   %-8s %-20s %8.1f %8.1f %7.2f %7.1f %8.2f %9.1f %9.1f" % (
            "." + kind, tool, mb_in, sent, wall, mb_in / wall, cpu, cpu * 1000 / mb_in,
            srv * 1000 / mb_in))
    say("   (MB/s and ms/MB per MB of the files; CPU: the uploader's user+system;"
        " swift ms/MB: the four Swift servers' CPU over the same run)")
    if USE_SWIFT_CLI:
        for kind in sets:
            a, b = summary[(kind, "arclamp-svg publish")], summary[(kind, "swift upload")]
            say("   .%-7s arclamp-svg / swift CLI: %.2fx the throughput, %.2fx the CPU per MB" % (
                kind, a[0] / b[0], a[1] / b[1]))
    return summary


# ---- 2. draw ----

def draw(swift, tmp, lines):
    work = tmp / "draw"
    say("")
    say("== draw one bucket (%s) from N hosts' logs of %d lines each: store vs local disk, "
        "%d rounds, medians" % (BUCKET, HOST_LINES, ROUNDS))
    say("   %-5s %-26s %8s %7s %7s %8s" % ("hosts", "source", "MB", "wall s", "CPU s", "x local"))
    out = {}
    for n in HOSTS:
        prefix = "draw%d" % n
        base = work / str(n)
        host_logs = []
        for h in range(n):
            chunk = b"".join(lines[h * HOST_LINES:(h + 1) * HOST_LINES])
            d = base / ("host%d" % h)
            (d / "logs" / "hourly").mkdir(parents=True)
            (d / "logs" / "hourly" / (BUCKET + ".log")).write_bytes(chunk)
            host_logs.append(chunk)
            cfg = write_config(d / "config.yaml", store_config(
                swift, prefix, d, "  host: h%d\n" % h))
            m = measured("publish host", [str(SVG), "publish", "--config", str(cfg)], base,
                         swift.dir)
            if m["rc"] != 0:
                return out
        merged = b"".join(host_logs)
        local = {"local .log": base / "local-plain", "local .log.gz": base / "local-gz"}
        for label, d in local.items():
            (d / "logs" / "hourly").mkdir(parents=True)
            if label.endswith("gz"):
                (d / "logs" / "hourly" / (BUCKET + ".log.gz")).write_bytes(
                    gzip.compress(merged, 6))
            else:
                (d / "logs" / "hourly" / (BUCKET + ".log")).write_bytes(merged)
            write_config(d / "config.yaml", "log_target: stderr\ndata_dir: %s\n" % d)
            # untimed: the first run's directories, and the log into the page cache
            measured(label, [str(SVG), "generate", "--config", str(d / "config.yaml")], base,
                     swift.dir)
        res = {}
        totals = {}
        for r in range(ROUNDS):
            order = ["store"] + list(local)
            if r % 2:
                order.reverse()
            for src in order:
                if src == "store":
                    d = base / ("gen%d" % r)
                    (d / "logs").mkdir(parents=True)
                    cfg = write_config(d / "config.yaml", store_config(
                        swift, prefix, d, "  from_store: true\n  publish: false\n"))
                    m = measured(src, [str(SVG), "generate", "--force", "--config", str(cfg)],
                                 base, swift.dir)
                    if "from the store: 1 logs" not in m["stdout"] and m["rc"] == 0:
                        FAILED.append("store")
                        say("   store: unexpected output: " + m["stdout"][-300:])
                else:
                    d = local[src]
                    m = measured(src, [str(SVG), "generate", "--force", "--config",
                                       str(d / "config.yaml")], base, swift.dir)
                svgz = d / "svgs" / "hourly" / (BUCKET + ".svgz")
                totals.setdefault(src, set()).add(root_total(svgz) if svgz.exists() else None)
                if src == "store":
                    shutil.rmtree(d)
                res.setdefault(src, []).append(m)
        if len({t for s in totals.values() for t in s}) != 1:
            FAILED.append("draw %d" % n)
            say("   the graphs disagree on the samples: %r" % totals)
        base_wall = statistics.median(m["wall"] for m in res["local .log"])
        mb = {"store": None, "local .log": len(merged) / MB,
              "local .log.gz": os.path.getsize(
                  local["local .log.gz"] / "logs" / "hourly" / (BUCKET + ".log.gz")) / MB}
        for src in ["local .log", "local .log.gz", "store"]:
            wall = statistics.median(m["wall"] for m in res[src])
            cpu = statistics.median(m["cpu"] for m in res[src])
            label = src if src != "store" else "store (fetch+merge+draw)"
            size = "%8.1f" % mb[src] if mb[src] is not None else "%8s" % (
                "%d obj" % n)
            say("   %-5d %-26s %s %7.2f %7.2f %8.2f" % (n, label, size, wall, cpu,
                                                       wall / base_wall))
            out[(n, src)] = (wall, cpu)
        say("   %-5s samples in the graph: %s" % ("", ", ".join(
            str(t) for t in sorted(next(iter(totals.values())), key=str))))
        shutil.rmtree(base)
    say("   (x local: wall time over generate's on the plain merged log, same rounds;"
        " CPU: arclamp-svg's user+system, libcurl included; the Swift servers' not)")
    return out


def main():
    for prog in (SVG, LOGGEN):
        if not os.access(prog, os.X_OK):
            die("%s is missing (make all build/bench/svg-loggen; make bench builds both)" % prog)
    why = swift_missing()
    if why:
        die(why)
    global USE_SWIFT_CLI
    if USE_SWIFT_CLI and not os.access(SWIFT_CLI, os.X_OK):
        say("bench: %s missing (python3-swiftclient): the baseline is skipped" % SWIFT_CLI)
        USE_SWIFT_CLI = False
    # a SIGTERM/SIGINT unwinds through the finally blocks: Swift is stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="bench-store."))
    try:
        say("-- arclamp-svg and the object store, a one-node Swift on 127.0.0.1 (%s)" % tmp)
        need = max(UPLOAD_LOGS * UPLOAD_LINES, max(HOSTS, default=0) * HOST_LINES)
        lines = generate_lines(tmp, need)
        with swift_server(tmp / "swift") as swift:
            client = SwiftClient(swift)
            up = upload(swift, client, tmp, lines)
            dr = draw(swift, tmp, lines)
        parts = []
        for (kind, tool), (mbps, cpu_ms, _w) in sorted(up.items()):
            key = ("svg" if tool.startswith("arclamp") else "cli") + (
                "_gz" if kind.endswith("gz") else "_plain")
            parts.append("%s_mb_s=%.1f %s_cpu_ms_mb=%.1f" % (key, mbps, key, cpu_ms))
        for n in HOSTS:
            if (n, "store") in dr:
                parts.append("draw%d_store_over_local=%.2f" % (
                    n, dr[(n, "store")][0] / dr[(n, "local .log")][0]))
        say("")
        say("Side-by-side ratios on a shared, noisy 2-core VM: compare ratios, not absolutes.")
        say("SUMMARY " + " ".join(parts))
    finally:
        if os.environ.get("BENCH_KEEP") == "1":
            say("bench: kept " + str(tmp))
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if FAILED:
        say("bench: failed: " + ", ".join(sorted(set(FAILED))))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
