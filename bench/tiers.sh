#!/usr/bin/env bash
# Benchmark of request tiers (excimer.so's excimer.tiers), in one run:
#   1. instructions a call of a function that is not a tier (callgrind): no
#      extension, excimer.so with tiers off (excimer.tiers empty), and with
#      tiers on (another function is the tier)
#   2. instructions a call of a tier function, user and internal
#   3. ns per call of a tier function (interleaved runs, medians), minus the
#      same loop with tiers off
#   4. a request with 1,000 tier calls: wall time added, php-cgi -T
#      (medians of interleaved runs)
#   5. arclamp-log: CPU and bytes written per tier line, typical vs the worst
#      case of issue 24 (bench/tierlines.py)
# Usage: bench/tiers.sh   (env: BUILD, ROUNDS)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-7}
SO=$PWD/$BUILD/php/excimer.so
[ -f "$SO" ] || { echo "bench: $SO is missing (make all)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ext_args() { # ext_args none|off|on|on-internal
    case $1 in
        none) ;;
        off) echo "-d extension=$SO" ;;
        on) echo "-d extension=$SO -d excimer.tiers=\"t=timed\"" ;;
        on-internal) echo "-d extension=$SO -d excimer.tiers=\"t=abs\"" ;;
    esac
}
instructions() { # instructions WHICH ARGS...
    local which=$1; shift
    # shellcheck disable=SC2046
    valgrind --tool=callgrind --callgrind-out-file=/dev/null php -n $(ext_args "$which") "$@" \
        2>&1 >/dev/null | grep -o 'Collected : [0-9]*' | grep -o '[0-9]*$'
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
CALLS=200000
# Per call: runs of 2N and N calls, differenced: startup cancels out.
per_call() { # per_call WHICH MODE
    local one two
    one=$(instructions "$1" bench/php/tiers_calls.php "$2" $CALLS)
    two=$(instructions "$1" bench/php/tiers_calls.php "$2" $((2 * CALLS)))
    awk -v a="$one" -v b="$two" -v n=$CALLS 'BEGIN { printf "%.2f", (b-a)/n }'
}

echo "-- 1. a call of a function that is not a tier (instructions an iteration, callgrind)"
base=$(per_call none plain)
echo "no extension:        $base"
for which in off on; do
    c=$(per_call $which plain)
    awk -v w="$which" -v c="$c" -v b="$base" \
        'BEGIN { printf "tiers %-3s            %s  x%.4f  (%+.2f instructions)\n", w, c, c/b, c-b }'
done

echo "-- 2. a call of a tier function (instructions, callgrind)"
for pair in "on:tier:user" "on-internal:internal:internal"; do
    IFS=: read -r which mode label <<< "$pair"
    offc=$(per_call off "$mode")
    onc=$(per_call "$which" "$mode")
    awk -v l="$label" -v on="$onc" -v off="$offc" \
        'BEGIN { printf "%-9s %7.1f instructions more a call (%.1f -> %.1f)\n", l, on-off, off, on }'
done

echo "-- 3. ns a call of a tier function (medians of $ROUNDS interleaved runs of 2,000,000)"
cases="off:tier on:tier off:internal on-internal:internal"
for r in $(seq "$ROUNDS"); do
    for c in $cases; do
        IFS=: read -r which mode <<< "$c"
        # shellcheck disable=SC2046
        php -n $(ext_args "$which") bench/php/tiers_calls.php "$mode" 2000000 \
            | sed -n 's/.*ns_per_call=\([0-9.]*\) counted=\([0-9]*\).*/\1 \2/p' >> "$TMP/$c"
    done
done
for pair in "tier:on:user" "internal:on-internal:internal"; do
    IFS=: read -r mode which label <<< "$pair"
    off=$(cut -d' ' -f1 "$TMP/off:$mode" | median)
    on=$(cut -d' ' -f1 "$TMP/$which:$mode" | median)
    counted=$(cut -d' ' -f2 "$TMP/$which:$mode" | sort -n | tail -1)
    awk -v l="$label" -v on="$on" -v off="$off" -v k="$counted" \
        'BEGIN { printf "%-9s %+6.1f ns a call (%.1f -> %.1f ns an iteration; calls counted: %d)\n", l, on-off, off, on, k }'
done

echo "-- 4. a request with 1,000 tier calls (php-cgi -T 300, medians of $ROUNDS interleaved runs)"
if [ -x /usr/bin/php-cgi8.2 ]; then
    for r in $(seq "$ROUNDS"); do
        for which in off on; do
            tiers=""; [ $which = on ] && tiers="\"db=Db::query\""
            /usr/bin/php-cgi8.2 -n -q -T 300 -d "extension=$SO" -d "excimer.tiers=$tiers" \
                bench/php/tiers_request.php 2>&1 >/dev/null \
                | sed -n 's/.*Elapsed time: \([0-9.]*\).*/\1/p' >> "$TMP/req-$which"
        done
    done
    off=$(median < "$TMP/req-off")
    on=$(median < "$TMP/req-on")
    awk -v on="$on" -v off="$off" \
        'BEGIN { printf "%.3f ms a request with tiers on, %.3f ms off: %+.3f ms added (target <= 0.2)\n", on/300*1000, off/300*1000, (on-off)/300*1000 }'
else
    echo "php-cgi8.2 not installed: skipped"
fi

echo "-- 5. arclamp-log: CPU and bytes written per tier line, typical vs worst case"
if [ -x "$BUILD/bin/arclamp-log" ]; then
    python3 bench/tierlines.py --binary "$BUILD/bin/arclamp-log"
else
    echo "$BUILD/bin/arclamp-log is missing (make all): skipped"
fi
