#!/usr/bin/env bash
# Benchmark of arclamp-report's aggregation: RUNS runs of ARCS arcs
# (serialize()d by PHP itself) aggregated in one process, one core:
# arcs per second and peak resident memory, which must follow the distinct
# arcs (ARCS), not the number of runs. Usage: bench/report.sh (env: BUILD,
# RUNS=1000, ARCS=5000)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-1000}
ARCS=${ARCS:-5000}
BIN=$PWD/$BUILD/bin/arclamp-report
[ -x "$BIN" ] || { echo "bench: $BIN is missing (make all)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "-- arclamp-report aggregate: $RUNS runs of $ARCS arcs"
php -n bench/php/report_runs.php "$TMP" "$RUNS" "$ARCS"
all=("$TMP"/*.xhprof)
for n in $((RUNS / 4)) "$RUNS"; do
    files=("${all[@]:0:$n}")
    /usr/bin/time -f "%e %M" -o "$TMP/time" "$BIN" aggregate --json "${files[@]}" > "$TMP/out.json"
    read -r secs rss_kb < "$TMP/time"
    mb=$(du -cm "${files[@]}" | tail -1 | cut -f1)
    awk -v n="$n" -v a="$ARCS" -v s="$secs" -v r="$rss_kb" -v mb="$mb" \
        'BEGIN { printf "%5d runs (%d MB): %.2f s, %.2f M arcs/s, peak RSS %.1f MB\n", n, mb, s, n*a/s/1e6, r/1024 }'
done
