#!/usr/bin/env bash
# Benchmark of the hierarchical profiler (xhprof.so / tideways_xhprof.so on
# excimer.so) side by side with Debian's php8.2-tideways 5.0.4 (fetched into
# build/compare/, never installed) and with no extension, in one run:
#   1. loaded but not enabled: instructions of a loop of small calls and of
#      the framework-like workload (callgrind), against no extension; and
#      with excimer.hprof=0
#   2. instructions per profiled call, wall only and with CPU time
#   3. ns per profiled call: interleaved runs, medians, minus no extension
#   4. resident memory per distinct arc
#   5. functions with an inclusive time above main()'s on the framework-like
#      workload (bench/php/hprof_inclusive.php): none in a sound run
# Usage: bench/hprof.sh   (env: BUILD, ROUNDS)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-7}
P=$PWD/$BUILD/php
TW=$PWD/$BUILD/compare/php-tideways/tideways_xhprof.so
for m in excimer xhprof tideways_xhprof; do
    [ -f "$P/$m.so" ] || { echo "bench: $P/$m.so is missing (make all)" >&2; exit 1; }
done
scripts/fetch-deb-module php8.2-tideways tideways_xhprof.so "$(dirname "$TW")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ext_args() { # ext_args none|ours|ours-off|tideways
    case $1 in
        none) ;;
        ours) echo "-d extension=$P/excimer.so -d extension=$P/xhprof.so -d extension=$P/tideways_xhprof.so" ;;
        ours-off) echo "-d extension=$P/excimer.so -d extension=$P/xhprof.so -d extension=$P/tideways_xhprof.so -d excimer.hprof=0" ;;
        tideways) echo "-d extension=$TW" ;;
    esac
}

instructions() { # instructions WHICH SCRIPT ARGS...
    local which=$1; shift
    # shellcheck disable=SC2046
    valgrind --tool=callgrind --callgrind-out-file=/dev/null php -n $(ext_args "$which") "$@" \
        2>&1 >/dev/null | grep -o 'Collected : [0-9]*' | grep -o '[0-9]*$'
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

CALLS=200000
# Per call: the difference between runs of 2N and N calls, so what a process
# does once (loading the modules, startup) cancels out.
per_call() { # per_call WHICH API FLAGS -> instructions a call
    local one two
    one=$(instructions "$1" bench/php/hprof_calls.php "$2" "$3" $CALLS)
    two=$(instructions "$1" bench/php/hprof_calls.php "$2" "$3" $((2 * CALLS)))
    awk -v a="$one" -v b="$two" -v n=$CALLS 'BEGIN { printf "%.1f", (b-a)/n }'
}
echo "-- 1. loaded but not enabled (instructions, callgrind)"
base_call=$(per_call none none wt)
base_work=$(instructions none bench/php/workload.php 10)
echo "no extension: $base_call instructions an iteration of the loop"
for which in ours ours-off tideways; do
    call=$(per_call "$which" none wt)
    work=$(instructions "$which" bench/php/workload.php 10)
    awk -v w="$which" -v c="$call" -v b="$base_call" -v k="$work" -v bk="$base_work" \
        'BEGIN { printf "%-9s small calls x%.3f (%+.1f instructions a call)   workload x%.3f\n", w, c/b, c-b, k/bk }'
done

echo "-- 2. instructions per profiled call (callgrind)"
for api in xhprof tideways; do
    which=ours; [ $api = tideways ] && which=tideways
    label=ours; [ $api = tideways ] && label="tideways 5.0.4"
    for flags in wt cpu; do
        on=$(per_call "$which" $api $flags)
        awk -v w="$label" -v f=$flags -v on="$on" -v b="$base_call" \
            'BEGIN { printf "%-15s %-3s %6.0f instructions a call\n", w, f, on-b }'
    done
done

echo "-- 3. ns per profiled call (medians of $ROUNDS interleaved runs of 2,000,000 calls)"
cases="none:none:wt ours:none:wt tideways:none:wt ours:xhprof:wt ours:xhprof:cpu tideways:tideways:wt tideways:tideways:cpu"
for r in $(seq "$ROUNDS"); do
    for c in $cases; do
        IFS=: read -r which api flags <<< "$c"
        # shellcheck disable=SC2046
        php -n $(ext_args "$which") bench/php/hprof_calls.php "$api" "$flags" 2000000 \
            | sed -n 's/.*ns_per_call=\([0-9.]*\) counted=\([0-9]*\).*/\1 \2/p' >> "$TMP/$c"
    done
done
none=$(cut -d' ' -f1 "$TMP/none:none:wt" | median)
for c in $cases; do
    IFS=: read -r which api flags <<< "$c"
    med=$(cut -d' ' -f1 "$TMP/$c" | median)
    counted=$(cut -d' ' -f2 "$TMP/$c" | sort -n | tail -1)
    awk -v c="$which $api $flags" -v m="$med" -v n="$none" -v k="$counted" \
        'BEGIN { printf "%-24s %6.1f ns an iteration   %+6.1f ns   (calls counted: %d)\n", c, m, m-n, k }'
done

echo "-- 4. memory per distinct arc (ours)"
# shellcheck disable=SC2046
php -n $(ext_args ours) bench/php/hprof_arcs.php 20000

echo "-- 5. functions with an inclusive time above main()'s (the framework-like workload; none in a sound run)"
for which in ours tideways; do
    for api in xhprof tideways; do
        [ "$which:$api" = "tideways:xhprof" ] && continue
        # shellcheck disable=SC2046
        printf '%-24s %s\n' "$which $api" \
            "$(php -n $(ext_args "$which") bench/php/hprof_inclusive.php "$api" 2>/dev/null)"
    done
done
