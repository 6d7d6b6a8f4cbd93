#!/usr/bin/env bash
# Benchmark of arclamp-report's aggregation: RUNS runs of ARCS arcs
# (serialize()d by PHP itself) aggregated in one process, one core:
# arcs per second and peak resident memory, which must follow the distinct
# arcs (ARCS), not the number of runs (so RUNS/4 and RUNS are both measured,
# and BIG_RUNS when asked). Each figure is the median of REPEAT runs: wall
# time, and CPU time (user + system; what a shared machine disturbs less).
# Usage: bench/report.sh. Env:
#   BUILD=build      the build whose bin/arclamp-report is measured
#   RUNS=1000 ARCS=5000 REPEAT=3
#   BIG_RUNS=10000   also aggregate that many runs (about 105 bytes an arc:
#                    10,000 runs of 5,000 arcs are 5 GB in TMPDIR; skipped,
#                    with a message, when TMPDIR has not twice that free)
#   TIER_HOURS=24 TIER_IDS=50 TIER_TIERS=6   the tier pages' tables
#   BASELINE=FILE    another arclamp-report binary (say, of an older
#                    commit), measured in turn with the same files, on the
#                    same lines: figures of one machine at one time, which
#                    a shared VM's noise makes the only fair comparison; the
#                    outputs must be the same bytes
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-1000}
ARCS=${ARCS:-5000}
REPEAT=${REPEAT:-3}
BIG_RUNS=${BIG_RUNS:-}
BASELINE=${BASELINE:-}
BIN=$PWD/$BUILD/bin/arclamp-report
[ -x "$BIN" ] || { echo "bench: $BIN is missing (make all)" >&2; exit 1; }
[ -z "$BASELINE" ] || [ -x "$BASELINE" ] || { echo "bench: BASELINE $BASELINE is not a program" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ -n "$BIG_RUNS" ]; then
    need_mb=$((BIG_RUNS * ARCS * 105 * 2 / 1000000))
    free_mb=$(df -Pm "$TMP" | awk 'NR == 2 { print $4 }')
    if [ "$free_mb" -lt "$need_mb" ]; then
        echo "-- BIG_RUNS=$BIG_RUNS skipped: $TMP has $free_mb MB free, $need_mb MB wanted"
        BIG_RUNS=
    fi
fi
total=$RUNS
[ -z "$BIG_RUNS" ] || [ "$BIG_RUNS" -le "$total" ] || total=$BIG_RUNS

echo "-- arclamp-report aggregate: runs of $ARCS arcs, median of $REPEAT, one core"
php -n bench/php/report_runs.php "$TMP" "$total" "$ARCS"
all=("$TMP"/*.xhprof)
# The files in the page cache, and written out: writeback of gigabytes
# would otherwise run during the first measures.
sync
cat "${all[@]}" > /dev/null

# the median wall time, CPU time and peak RSS of the lines
# "milliseconds rss_kb user_s sys_s" on stdin (each median of its own)
median() {
    awk '{ print $1, $2, $3 + $4 }' > "$TMP/m"
    local col
    for col in 1 3 2; do
        awk -v c="$col" '{ print $c }' "$TMP/m" | sort -g | awk '{ v[NR] = $1 } END { printf "%s ", v[int((NR + 1) / 2)] }'
    done
    echo
}

names=("$BUILD")
bins=("$BIN")
[ -z "$BASELINE" ] || { names+=(baseline); bins+=("$BASELINE"); }

# measure N: one line per binary, the binaries taking turns REPEAT times
measure() {
    local n=$1 i k
    local files=("${all[@]:0:$n}")
    rm -f "$TMP"/times.*
    for ((i = 0; i < REPEAT; i++)); do
        for k in "${!bins[@]}"; do
            local t0 t1
            t0=$(date +%s%N)
            /usr/bin/time -f "%M %U %S" -o "$TMP/rss" "${bins[$k]}" aggregate --json "${files[@]}" \
                > "$TMP/out.$k.json"
            t1=$(date +%s%N)
            echo "$(( (t1 - t0) / 1000000 )) $(cat "$TMP/rss")" >> "$TMP/times.$k"
        done
    done
    local mb
    mb=$(du -cm "${files[@]}" | tail -1 | cut -f1)
    for k in "${!bins[@]}"; do
        read -r ms cpu rss_kb < <(median < "$TMP/times.$k")
        awk -v name="${names[$k]}" -v n="$n" -v a="$ARCS" -v ms="$ms" -v cpu="$cpu" -v r="$rss_kb" \
            -v mb="$mb" 'BEGIN {
                printf "%-9s %6d runs (%5d MB): %7.3f s, %5.1f M arcs/s (CPU %6.2f s, %5.1f M arcs/s), peak RSS %5.1f MB\n",
                    name, n, mb, ms / 1000, n * a / (ms > 0 ? ms : 1) / 1000, cpu,
                    n * a / (cpu > 0 ? cpu : 0.01) / 1e6, r / 1024 }'
        cmp -s "$TMP/out.0.json" "$TMP/out.$k.json" \
            || { echo "bench: ${names[$k]} and ${names[0]} disagree on $n runs" >&2; exit 1; }
    done
}

for n in $((RUNS / 4)) "$RUNS" $BIG_RUNS; do
    measure "$n"
done

# The tier pages: `tiers` on TIER_HOURS hourly tier tables of TIER_IDS
# identities x TIER_TIERS tiers (bench/src/tiertable-gen.c: the .tiers file
# and its .tiers.json view, written by common/src/tiertable.c as
# arclamp-log writes them), every page written (each with its trend over
# the 8 hours before it), the median of REPEAT runs; the bytes of both
# files, since the report reads one of them. BENCH_TIERS=0 skips it.
if [ "${BENCH_TIERS:-1}" != 0 ]; then
    TIER_HOURS=${TIER_HOURS:-24} TIER_IDS=${TIER_IDS:-50} TIER_TIERS=${TIER_TIERS:-6}
    echo "-- arclamp-report tiers: $TIER_HOURS hourly tables of $TIER_IDS identities x $TIER_TIERS tiers"
    [ -x "$BUILD/bench/tiertable-gen" ] \
        || { echo "bench: $BUILD/bench/tiertable-gen is missing (make $BUILD/bench/tiertable-gen)" >&2; exit 1; }
    mkdir -p "$TMP/tiers/logs"
    "$BUILD/bench/tiertable-gen" "$TMP/tiers/logs" "$TIER_HOURS" "$TIER_IDS" "$TIER_TIERS"
    echo "tables: .tiers $(du -cb "$TMP"/tiers/logs/hourly/*.tiers | tail -1 | cut -f1) bytes, .tiers.json $(du -cb "$TMP"/tiers/logs/hourly/*.tiers.json | tail -1 | cut -f1) bytes"
    rm -f "$TMP"/times.*
    for ((i = 0; i < REPEAT; i++)); do
        for k in "${!bins[@]}"; do
            rm -rf "$TMP/tiers/reports.$k"
            mkdir -p "$TMP/tiers/reports.$k"
            t0=$(date +%s%N)
            /usr/bin/time -f "%M %U %S" -o "$TMP/rss" "${bins[$k]}" tiers --quiet \
                --logs-dir "$TMP/tiers/logs" --reports-dir "$TMP/tiers/reports.$k"
            t1=$(date +%s%N)
            echo "$(( (t1 - t0) / 1000000 )) $(cat "$TMP/rss")" >> "$TMP/times.$k"
        done
    done
    for k in "${!bins[@]}"; do
        read -r ms cpu rss_kb < <(median < "$TMP/times.$k")
        awk -v name="${names[$k]}" -v n="$TIER_HOURS" -v ms="$ms" -v cpu="$cpu" -v r="$rss_kb" 'BEGIN {
            printf "%-9s %3d pages: %7.3f s (CPU %6.2f s, %6.1f ms a page), peak RSS %5.1f MB\n",
                name, n, ms / 1000, cpu, cpu * 1000 / n, r / 1024 }'
        diff -r "$TMP/tiers/reports.0" "$TMP/tiers/reports.$k" > /dev/null \
            || { echo "bench: ${names[$k]} and ${names[0]} disagree on the tier pages" >&2; exit 1; }
    done
fi

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

# What hostile run logs cost generate (issue 24): long names, names at the
# cap past the budget of names, a 50,000-arc chain (bench/report-limits.py).
if [ "${BENCH_LIMITS:-1}" != 0 ]; then
    python3 bench/report-limits.py --bin "$BIN"
fi
