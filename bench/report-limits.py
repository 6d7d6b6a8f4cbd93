#!/usr/bin/env python3
"""bench/report-limits.py: what a hostile run log costs `arclamp-report
generate` (issue 24, items 5 and 6), the figures of the README's trust model.

    bench/report-limits.py [--bin build/bin/arclamp-report] [--keep DIR]
    bench/report-limits.py --write-long DIR [--name-bytes 204800]
    bench/report-limits.py --write-chain DIR [--arcs 50000]

Four cases, each one generate run in a fresh data directory, measured with
/usr/bin/time -v (wall time, peak RSS):

- long names: one run log of 20 runs of 19 arcs whose function names are
  200 KB each (every run within arclamp-log's limits: a 200 KB fn line is
  under max_line_bytes, 19 of them under max_run_bytes), sorted before two
  benign logs of the same bucket; the benign logs' pages must be written;
- names at the cap: 12 runs of 400-arc chains whose distinct names are
  RUNLINE_MAX_NAME_BYTES of '<' and NUL (6 bytes each in a page), past
  generate's budget of names (--max-names-mb): the most a page can cost;
  and with the next hour's log of other names, whose diff page holds both;
- a chain: one run of 50,000 arcs main() -> f1 -> f2 -> ... (the callgraph's
  critical path walks all of it).

--write-long and --write-chain only write the logs (the tests use them).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BUCKET = "2026-11-26_03.excimer"


def long_name_runs(name_bytes=200 * 1024, runs=20, arcs=19):
    """xhprof/2 runs whose every function name is name_bytes long, distinct
    from run to run (so none of the names is shared)."""
    out = []
    for r in range(runs):
        rid = f"long{r}"
        out.append(f"xhprof/2 {rid} begin 1764126000 web1 wt,cpu /srv/w/api.php")
        out.append(f"xhprof/2 {rid} fn 0 main()")
        for i in range(1, arcs):
            stem = f"Run{r}\\Fn{i}::"
            out.append(f"xhprof/2 {rid} fn {i} {stem}{'x' * (name_bytes - len(stem))}")
        out.append(f"xhprof/2 {rid} arc 1 1000 900 - - - 0")
        for i in range(1, arcs):
            out.append(f"xhprof/2 {rid} arc 1 {1000 - i} {900 - i} - - {i - 1} {i}")
        out.append(f"xhprof/2 {rid} end {arcs} 0")
    return "\n".join(out) + "\n"


def benign_run(rid):
    return "\n".join([
        f"xhprof/1 {rid} begin 1764126000 web1 wt,cpu /srv/w/index.php",
        f"xhprof/1 {rid} arc 1 100 80 - - main()",
        f"xhprof/1 {rid} arc 2 60 50 - - main()==>a",
        f"xhprof/1 {rid} arc 4 30 20 - - a==>b",
        f"xhprof/1 {rid} end 3 0"]) + "\n"


def chain_run(arcs=50000):
    out = ["xhprof/2 chain begin 1764126000 web1 wt,cpu /srv/w/index.php",
           "xhprof/2 chain fn 0 main()"]
    for i in range(1, arcs):
        out.append(f"xhprof/2 chain fn {i} f{i}")
    out.append(f"xhprof/2 chain arc 1 {arcs} {arcs} - - - 0")
    for i in range(1, arcs):
        out.append(f"xhprof/2 chain arc 1 {arcs - i} {arcs - i} - - {i - 1} {i}")
    out.append(f"xhprof/2 chain end {arcs} 0")
    return "\n".join(out) + "\n"


def cap_runs(name_bytes, runs=12, arcs=400, stem="R"):
    """Runs of chains whose names are name_bytes of '<' and NUL (each 6 bytes
    in a page's data: \\u003c, \\u0000), distinct from run to run: the
    most a page can cost per byte of names."""
    out = []
    half = name_bytes // 2
    for r in range(runs):
        rid = f"cap{r}"
        out.append(f"xhprof/2 {rid} begin 1764126000 web1 wt,cpu /srv/w/index.php")
        out.append(f"xhprof/2 {rid} fn 0 main()")
        for i in range(1, arcs):
            head = f"{stem}{r}F{i}"
            body = "<" * (half - len(head)) + "%00" * (name_bytes - half)
            out.append(f"xhprof/2 {rid} fn {i} {head}{body}")
        out.append(f"xhprof/2 {rid} arc 1 {arcs} {arcs} - - - 0")
        for i in range(1, arcs):
            out.append(f"xhprof/2 {rid} arc 1 {arcs - i} {arcs - i} - - {i - 1} {i}")
        out.append(f"xhprof/2 {rid} end {arcs} 0")
    return "\n".join(out) + "\n"


def write_cap(data, name_bytes=4096):
    """Logs of names at the cap, up to and past generate's byte budget."""
    d = Path(data) / "logs" / "hourly"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{BUCKET}.index.runs").write_text(cap_runs(name_bytes))
    return d


def write_cap_diff(data, name_bytes=4096):
    """The same, and the next hour's log with other names: its diff page
    holds both buckets' names."""
    d = write_cap(data, name_bytes)
    (d / f"{BUCKET[:11]}04{BUCKET[13:]}.index.runs").write_text(cap_runs(name_bytes, stem="S"))
    return d


def write_long(data, name_bytes=200 * 1024):
    """The hostile log (tag "api") and two benign logs sorted after it."""
    d = Path(data) / "logs" / "hourly"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{BUCKET}.api.runs").write_text(long_name_runs(name_bytes))
    (d / f"{BUCKET}.index.runs").write_text(benign_run("b1"))
    (d / f"{BUCKET}.load.runs").write_text(benign_run("b2"))
    return d


def write_chain(data, arcs=50000):
    d = Path(data) / "logs" / "hourly"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{BUCKET}.index.runs").write_text(chain_run(arcs))
    return d


def measure(binary, data, limit_s):
    """One generate under /usr/bin/time -v: (seconds, peak RSS MB, status)."""
    cmd = ["/usr/bin/time", "-v", binary, "generate", "--data-dir", str(data), "--quiet"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit_s)
    except subprocess.TimeoutExpired:
        return None, None, f"still running after {limit_s} s"
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    secs = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return secs, int(rss.group(1)) / 1024, p.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/bin/arclamp-report")
    ap.add_argument("--write-long")
    ap.add_argument("--write-chain")
    ap.add_argument("--name-bytes", type=int, default=200 * 1024)
    ap.add_argument("--arcs", type=int, default=50000)
    ap.add_argument("--limit", type=int, default=900, help="seconds before giving up a case")
    a = ap.parse_args()
    if a.write_long:
        write_long(a.write_long, a.name_bytes)
        return
    if a.write_chain:
        write_chain(a.write_chain, a.arcs)
        return
    print("-- arclamp-report generate on hostile run logs (wall time, peak RSS)")
    for label, writer in (("20 runs x 19 arcs, 200 KB names, + 2 benign logs", write_long),
                          ("12 runs x 400 arcs, 4 KB names of '<' and NUL", write_cap),
                          ("the same, and the next hour's with other names (diff)",
                           write_cap_diff),
                          (f"one run, a chain of {a.arcs} arcs", write_chain)):
        tmp = Path(tempfile.mkdtemp())
        try:
            if writer is write_chain:
                writer(tmp, a.arcs)
            else:
                writer(tmp)
            secs, rss, status = measure(a.bin, tmp, a.limit)
            rep = tmp / "reports" / "hourly" / "report"
            written = sorted(p.name for p in rep.glob("*.html")) if rep.is_dir() else []
            if secs is None:
                print(f"{label}: {status}")
            else:
                print(f"{label}: {secs:.2f} s, peak RSS {rss:.1f} MB, exit {status}, "
                      f"pages: {', '.join(written) or 'none'}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
