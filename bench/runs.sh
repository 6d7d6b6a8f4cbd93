#!/usr/bin/env bash
# Benchmark of hierarchical runs on the wire and on disk (bench/runs.py):
# the run size per arc of a MediaWiki-like page view in the xhprof/1 and
# xhprof/2 formats (and what each leaves out at the extension's default
# cap), then the bytes arclamp-log writes per run, before runs were stored
# once per period (an older daemon, built from BASELINE_COMMIT) and now;
# then (bench/delivery.py) runs of that size sent by the extension over the
# unix socket, the extension of BASELINE_COMMIT and the one built now; then
# (bench/runids.py) the CPU of 999 runs whose ids collide under the run
# table's former unkeyed hash, against random ids.
# Usage: bench/runs.sh. Env:
#   BUILD=build            the build measured (bin/arclamp-log, bench/runline-size)
#   ARCS=9000 RUNS=50      arcs of the run, runs sent to each daemon
#   BASELINE_LOG=FILE      the older arclamp-log to compare with; by default
#                          built once from BASELINE_COMMIT (594f22b, the last
#                          that wrote each run four times) into
#                          $BUILD/bench/baseline-<commit>/ (git archive); left
#                          out, with a message, outside a git checkout
#   BASELINE_EXT=FILE      the older excimer.so; by default built in the same
#                          tree
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ARCS=${ARCS:-9000}
RUNS=${RUNS:-50}
BASELINE_COMMIT=${BASELINE_COMMIT:-594f22b}
BASELINE_LOG=${BASELINE_LOG:-}
BASELINE_EXT=${BASELINE_EXT:-}
for f in "$BUILD/bin/arclamp-log" "$BUILD/bench/runline-size"; do
    [ -x "$f" ] || { echo "bench: $f is missing (make all $BUILD/bench/runline-size)" >&2; exit 1; }
done

if [ -z "$BASELINE_LOG" ]; then
    dir=$BUILD/bench/baseline-$BASELINE_COMMIT
    if [ ! -x "$dir/build/bin/arclamp-log" ]; then
        if git rev-parse -q --verify "$BASELINE_COMMIT^{commit}" > /dev/null 2>&1; then
            echo "-- building the baseline arclamp-log of $BASELINE_COMMIT in $dir"
            rm -rf "$dir"
            mkdir -p "$dir"
            git archive "$BASELINE_COMMIT" | tar -x -C "$dir"
            make -C "$dir" -s build/bin/arclamp-log > "$dir.log" 2>&1 \
                || { echo "bench: building $BASELINE_COMMIT failed, see $dir.log" >&2; exit 1; }
        else
            echo "-- no baseline: $BASELINE_COMMIT is not in this checkout (set BASELINE_LOG)"
        fi
    fi
    [ ! -x "$dir/build/bin/arclamp-log" ] || BASELINE_LOG=$dir/build/bin/arclamp-log
    if [ -z "$BASELINE_EXT" ] && [ -d "$dir" ]; then
        [ -f "$dir/build/php/excimer.so" ] || make -C "$dir" -s build/php/excimer.so >> "$dir.log" 2>&1 \
            || { echo "bench: building $BASELINE_COMMIT's excimer.so failed, see $dir.log" >&2; exit 1; }
        BASELINE_EXT=$dir/build/php/excimer.so
    fi
fi

python3 bench/runs.py --build "$BUILD" --arcs "$ARCS" --runs "$RUNS" \
    ${BASELINE_LOG:+--baseline "$BASELINE_LOG"}
echo
python3 bench/delivery.py --build "$BUILD" ${BASELINE_EXT:+--baseline-ext "$BASELINE_EXT"}
echo
python3 bench/runids.py --binary "now=$BUILD/bin/arclamp-log"
