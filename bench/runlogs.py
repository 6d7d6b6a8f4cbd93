#!/usr/bin/env python3
"""bench/runlogs.py: writes MediaWiki-like run logs, as arclamp-log writes
them (<DIR>/<period>/<bucket>.<tag>.runs, the xhprof/1 lines of
common/src/runline.h), for measuring `arclamp-report generate` (time, peak
RSS: bench/report.sh, and the limits of systemd/arclamp-report.service).

    bench/runlogs.py DIR [--logs 24] [--runs 200] [--arcs 2000] [--seed 1]
    bench/runlogs.py --one-run ARCS [--seed 1]

writes DIR/hourly/<YYYY-MM-DD_HH>.excimer.index.runs, one per hour going
back from 2026-11-26_23: LOGS files of RUNS complete runs of ARCS arcs each;
or, with --one-run, one run of ARCS arcs on stdout, heaviest first, as the
extension sends it in the xhprof/1 format (bench/runs.sh measures what it
takes on the wire in each format). The same arguments give the same bytes
(a seeded PRNG).

The shape is a production one's, not a worst case: one call tree of about
1.3 x ARCS distinct arcs over a pool of namespaced PHP functions in layers
(a function is called from several parents, as in MediaWiki, and the
function graph is a hierarchy: see call_tree), and each run walks
its own random subset of ARCS arcs from main(), so a log holds more distinct
arcs than any one run, and the hours differ (the diff pages have work to
do). Inclusive times are consistent (a parent's covers its children's).
"""

import argparse
import calendar
import os
import random
import sys
import time

NAMESPACES = ["MediaWiki\\Title", "MediaWiki\\Revision", "MediaWiki\\Parser", "MediaWiki\\Storage",
              "MediaWiki\\Rest\\Handler", "MediaWiki\\Page", "MediaWiki\\User", "MediaWiki\\Linker",
              "MediaWiki\\Http", "MediaWiki\\ResourceLoader", "Wikimedia\\Rdbms", "Wikimedia\\ObjectCache",
              "Wikimedia\\Message", "Wikimedia\\Services", "MediaWiki\\Extension\\CirrusSearch",
              "MediaWiki\\Extension\\Translate", "MediaWiki\\Hook", "MediaWiki\\Language"]
CLASSES = ["Factory", "Lookup", "Store", "Handler", "Manager", "Formatter", "Renderer", "Cache",
           "Database", "LoadBalancer", "Service", "Validator", "Serializer", "Builder", "Runner"]
METHODS = ["get", "load", "fetch", "newFromRow", "execute", "query", "select", "render", "format",
           "run", "build", "resolve", "lookup", "parse", "expand", "validate", "getContent", "doWork"]
BUILTINS = ["strlen", "str_replace", "preg_match", "array_map", "call_user_func_array", "sprintf",
            "json_encode", "hash", "mb_substr", "array_merge", "in_array", "implode"]


def functions(rng, n):
    names = set(BUILTINS)
    while len(names) < n:
        names.add(f"{rng.choice(NAMESPACES)}\\{rng.choice(CLASSES)}{rng.randrange(40)}::"
                  f"{rng.choice(METHODS)}{rng.choice(['', 'ById', 'Batch', 'Internal', 'Cached'])}")
    return sorted(names)


def call_tree(rng, funcs, size, depth=14):
    """[(parent node or -1, function)]: a tree of `size` nodes under main(),
    each (caller, callee) pair once (it is the arc's key). Functions belong
    to layers (entry code, services, storage, ..., builtins at the bottom): a
    node at depth d calls functions of the layers below it, mostly the next
    one, so a function is called from several parents and the function graph
    is a hierarchy, as a PHP application's is."""
    layers = [funcs[i::depth] for i in range(depth)]
    layers[-1] = layers[-1] + BUILTINS
    nodes = [(-1, "main()", -1)]
    pairs = set()
    while len(nodes) < size:
        # bushy near the top, thinning out below
        parent = rng.randrange(len(nodes))
        caller, pdepth = nodes[parent][1], nodes[parent][2]
        if pdepth + 1 >= depth or rng.random() < pdepth / (2 * depth):
            continue
        layer = min(depth - 1, pdepth + 1 + int(rng.expovariate(2.0)))
        callee = rng.choice(layers[layer])
        if callee == caller or (caller, callee) in pairs:
            continue
        pairs.add((caller, callee))
        nodes.append((parent, callee, layer))
    return [(p, f) for p, f, _ in nodes]


def one_run(rng, nodes, children, arcs):
    """The node indexes of one run: a random depth-first walk from main()
    that stops at `arcs` nodes (a child only after its parent; the calls
    skipped on the way are walked once the rest is exhausted)."""
    chosen, stack, skipped = [], [0], []
    while len(chosen) < arcs:
        if not stack:
            if not skipped:
                break
            rng.shuffle(skipped)
            stack, skipped = skipped, []
        i = stack.pop()
        chosen.append(i)
        kids = list(children[i])
        rng.shuffle(kids)
        for k in kids:
            # a call this request did not make; it may still come later in the walk
            (stack if rng.random() < 0.8 else skipped).append(k)
    return chosen


def run_text(rng, nodes, children, keys, arcs, when, host, heaviest_first=False):
    """One run's xhprof/1 lines (each ending with a newline)."""
    runid = f"{rng.getrandbits(64):016x}"
    chosen = one_run(rng, nodes, children, arcs)
    inset = set(chosen)
    # exclusive times, then inclusive bottom-up (children after parents in `chosen`)
    wt = {i: rng.randrange(5, 400) for i in chosen}
    for i in reversed(chosen):
        p = nodes[i][0]
        if p >= 0 and p in inset:
            wt[p] += wt[i]
    if heaviest_first:
        chosen = sorted(chosen, key=lambda i: -wt[i])
    out = [f"xhprof/1 {runid} begin {when} {host} wt,cpu,mu,pmu "
           f"/srv/mediawiki/php-1.44.0-wmf.3/index.php\n"]
    for i in chosen:
        w = wt[i]
        out.append(f"xhprof/1 {runid} arc {1 + (i % 7 == 0 and i > 0) * rng.randrange(1, 20)} {w} "
                   f"{w * 9 // 10} {rng.randrange(-4096, 65536)} {rng.randrange(0, 262144)} {keys[i]}\n")
    out.append(f"xhprof/1 {runid} end {len(chosen)} 0\n")
    return "".join(out)


def arc_keys(nodes):
    return [n[1] if n[0] < 0 else f"{nodes[n[0]][1]}==>{n[1]}" for n in nodes]


def write_log(path, rng, nodes, children, runs, arcs, when):
    keys = arc_keys(nodes)
    with open(path + ".tmp", "w") as f:
        for r in range(runs):
            f.write(run_text(rng, nodes, children, keys, arcs, when + r * 17, f"web{r % 12 + 1}"))
    os.rename(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--one-run", type=int, metavar="ARCS")
    ap.add_argument("--logs", type=int, default=24)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--arcs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if (a.dir is None) == (a.one_run is None):
        ap.error("give DIR or --one-run")
    if a.one_run:
        a.arcs = a.one_run
    rng = random.Random(a.seed)
    nodes = call_tree(rng, [f for f in functions(rng, max(200, a.arcs // 2)) if f not in BUILTINS],
                      a.arcs * 13 // 10)
    children = [[] for _ in nodes]
    for i, (p, _) in enumerate(nodes):
        if p >= 0:
            children[p].append(i)
    if a.one_run:
        sys.stdout.write(run_text(rng, nodes, children, arc_keys(nodes), a.arcs,
                                  calendar.timegm((2026, 11, 26, 12, 0, 0)), "web1", True))
        return
    d = os.path.join(a.dir, "hourly")
    os.makedirs(d, exist_ok=True)
    end = calendar.timegm((2026, 11, 26, 23, 0, 0))
    for h in range(a.logs):
        when = end - h * 3600
        name = time.strftime("%Y-%m-%d_%H", time.gmtime(when))
        write_log(os.path.join(d, f"{name}.excimer.index.runs"), rng, nodes, children, a.runs, a.arcs, when)
    print(f"{a.logs} run logs of {a.runs} runs x {a.arcs} arcs in {d}", file=sys.stderr)


if __name__ == "__main__":
    main()
