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

# The timer job: `generate` on GEN_LOGS hourly run logs of GEN_RUNS runs x
# GEN_ARCS arcs (bench/runlogs.py, MediaWiki-like; 24 x 200 x 2000 is about
# 1.3 GB): the first run (every page), a run with nothing changed, a run
# with one log changed. These are the figures systemd/arclamp-report.service's
# limits are sized from. BENCH_GENERATE=0 skips it.
if [ "${BENCH_GENERATE:-1}" != 0 ]; then
    GEN_LOGS=${GEN_LOGS:-24} GEN_RUNS=${GEN_RUNS:-200} GEN_ARCS=${GEN_ARCS:-2000}
    echo "-- arclamp-report generate: $GEN_LOGS run logs of $GEN_RUNS runs x $GEN_ARCS arcs"
    rm -f "$TMP"/*.xhprof
    python3 bench/runlogs.py "$TMP/data/logs" --logs "$GEN_LOGS" --runs "$GEN_RUNS" --arcs "$GEN_ARCS"
    gen() {
        /usr/bin/time -f "%e %M" -o "$TMP/time" "$BIN" generate --quiet --data-dir "$TMP/data"
        read -r secs rss_kb < "$TMP/time"
        awk -v what="$1" -v s="$secs" -v r="$rss_kb" 'BEGIN { printf "%-22s %6.2f s, peak RSS %.1f MB\n", what, s, r/1024 }'
    }
    gen "first run:"
    gen "nothing changed:"
    touch "$(ls "$TMP"/data/logs/hourly/*.runs | tail -1)"
    gen "one log changed:"
    echo "pages: $(find "$TMP/data/reports" -type f ! -name '.*' | wc -l), $(du -sm "$TMP/data/reports" | cut -f1) MB"
fi
