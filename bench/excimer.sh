#!/usr/bin/env bash
# Benchmark of the excimer extension (php-excimer-sampler) side by side with
# Debian's php-excimer 1.0.4 and with no extension, in one run:
#   1. instructions per sample at stack depth 10 and 100 (callgrind: the
#      instructions of a profiled run minus an unprofiled one, per sample)
#   2. loaded-but-idle instruction ratio on a framework-like workload
#   3. wall-time ratio at 10 ms and 1 ms periods: (a) whole runs against no
#      extension (interleaved runs, medians of the time the workload reports
#      for itself); (b) paired batches inside one process, profiled against
#      unprofiled, which takes process-to-process noise out (medians of the
#      per-pair ratios of wall and of process CPU time)
#   4. profiler create/start/stop/destroy cost
# Usage: bench/excimer.sh   (env: BUILD, ROUNDS, PAIRS, SKIP_CALLGRIND=1)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OURS=$PWD/$BUILD/php/excimer.so
# Debian's module, fetched into the build tree (never installed system-wide:
# it would enable itself for every SAPI).
DEBIAN=$PWD/$BUILD/compare/php-excimer/excimer.so
ROUNDS=${ROUNDS:-15}
PAIRS=${PAIRS:-61}
[ -f "$OURS" ] || { echo "bench: $OURS is missing (make build/php/excimer.so)" >&2; exit 1; }
scripts/fetch-deb-module php-excimer excimer.so "$(dirname "$DEBIAN")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Runs php with one of the extensions. Debian's 1.0.4 sometimes crashes at
# exit (a defect this project fixes); the output is used all the same, and
# the crashes are counted in $TMP/crashes.
php_with() { # php_with none|ours|debian ARGS...
    local which=$1; shift
    local rc=0
    case $which in
        none) php -n "$@" || rc=$? ;;
        ours) php -n -d extension="$OURS" "$@" || rc=$? ;;
        debian) php -n -d extension="$DEBIAN" "$@" || rc=$? ;;
    esac
    [ "$rc" -eq 0 ] || echo "$which" >> "$TMP/crashes"
    return 0
}

instructions() { # instructions EXT SCRIPT ARGS... -> "INSTRUCTIONS SAMPLES"
    local which=$1; shift
    local ext=()
    [ "$which" = ours ] && ext=(-d extension="$OURS")
    [ "$which" = debian ] && ext=(-d extension="$DEBIAN")
    [ "$which" = calendar ] && ext=(-d extension=calendar)
    valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$TMP/cg.out" \
        php -n "${ext[@]}" "$@" 2> "$TMP/cg.err" > /dev/null
    local total samples so=none
    total=$(grep -o 'Collected : [0-9]*' "$TMP/cg.err" | grep -o '[0-9]*$')
    samples=$(grep -o 'samples=[0-9]*' "$TMP/cg.err" | grep -o '[0-9]*$' || echo 0)
    [ "$which" = ours ] && so=$OURS
    [ "$which" = debian ] && so=$DEBIAN
    echo "$total ${samples:-0} $(in_object "$TMP/cg.out" "$so")"
}

# The instructions executed in the code of one shared object (self cost of
# its functions), from a callgrind output file.
in_object() { # in_object CALLGRIND_OUT PATH
    callgrind_annotate --threshold=100 "$1" 2>/dev/null |
        awk -v obj="[$2]" '$NF == obj { gsub(",", "", $1); n += $1 } END { print n + 0 }'
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "== excimer benchmark: ours ($OURS) vs Debian php-excimer $(cat "$(dirname "$DEBIAN")/VERSION") vs none"
echo "   PHP $(php -n -r 'echo PHP_VERSION;'), $(nproc) CPUs"

echo
echo "-- 1a. time per sample, native: (profiled - unprofiled run) / samples, period 0.1 ms,"
echo "       $ROUNDS interleaved pairs, medians (ns)"
printf '   %-7s %6s %10s %14s\n' ext depth samples ns/sample
for depth in 10 100; do
    for which in debian ours; do
        : > "$TMP/ns.$which.$depth"
        for r in $(seq "$ROUNDS"); do
            idle=$(php_with "$which" bench/php/sample_cost.php "$depth" idle 20000000 0.0001 2>&1 | grep -o 'elapsed_ns=[0-9]*' | cut -d= -f2)
            out=$(php_with "$which" bench/php/sample_cost.php "$depth" profile 20000000 0.0001 2>&1)
            prof=$(echo "$out" | grep -o 'elapsed_ns=[0-9]*' | cut -d= -f2)
            samples=$(echo "$out" | grep -o 'samples=[0-9]*' | cut -d= -f2)
            [ "${samples:-0}" -gt 0 ] && echo "$(( (prof - idle) / samples )) $samples" >> "$TMP/ns.$which.$depth"
        done
        printf '   %-7s %6d %10s %14s\n' "$which" "$depth" "$(cut -d' ' -f2 "$TMP/ns.$which.$depth" | median)" "$(cut -d' ' -f1 "$TMP/ns.$which.$depth" | median)"
    done
done

if [ "${SKIP_CALLGRIND:-0}" != 1 ]; then
    echo
    echo "-- 1b. instructions per sample (callgrind, period 1 ms, EXCIMER_REAL, max depth 0)"
    echo "   (Debian's 1.0.4 uses SIGEV_THREAD timers, which valgrind barely delivers:"
    echo "   its row shows how many samples it got; the spec's reference for Excimer is"
    echo "   about 5,000 + 1,100 per frame: 16,000 at depth 10, 115,000 at depth 100)"
    printf '   %-7s %6s %10s %16s\n' ext depth samples instr/sample
    for depth in 10 100; do
        for which in debian ours; do
            read -r idle _ < <(instructions "$which" bench/php/sample_cost.php "$depth" idle 3000000)
            read -r prof samples _ < <(instructions "$which" bench/php/sample_cost.php "$depth" profile 3000000)
            per=$(awk -v a="$prof" -v b="$idle" -v s="$samples" 'BEGIN { if (s > 0) printf "%.0f", (a - b) / s; else print "n/a" }')
            printf '   %-7s %6d %10d %16s\n' "$which" "$depth" "$samples" "$per"
            echo "$which $depth $per" >> "$TMP/per_sample"
        done
    done
    for depth in 10 100; do
        awk -v d="$depth" '$2 == d { v[$1] = $3 } END {
            if (v["debian"] > 0) printf "   depth %d: ours / Debian = %.3f\n", d, v["ours"] / v["debian"] }' "$TMP/per_sample"
    done

    echo
    echo "-- 2. loaded but idle: instructions of the workload (callgrind)"
    echo "   marginal = instructions(40 requests) - instructions(10 requests): what the"
    echo "   module costs while code runs, without the one-off cost of loading any module."
    echo "   The whole program's count also moves with what a module registers (table sizes,"
    echo "   memory layout): calendar, PHP's own module that hooks nothing, is shown for that."
    echo "   The exact idle cost is the last lines: instructions executed inside excimer.so"
    for which in none ours debian calendar; do
        read -r short _ short_in < <(instructions "$which" bench/php/workload.php 10)
        read -r long _ long_in < <(instructions "$which" bench/php/workload.php 40)
        echo "$which $short $long" >> "$TMP/idle"
        case $which in ours|debian)
            echo "$which: instructions executed inside its excimer.so: $short_in (10 requests), $long_in (40 requests)" >> "$TMP/idle.in" ;;
        esac
    done
    awk '{ s[$1] = $2; l[$1] = $3 } END {
        split("ours debian calendar", w, " ")
        for (i = 1; i <= 3; i++)
            printf "   %-8s whole run x%.5f   marginal x%.6f\n", w[i], l[w[i]] / l["none"],
                   (l[w[i]] - s[w[i]]) / (l["none"] - s["none"])
        }' "$TMP/idle"
    sed 's/^/   /' "$TMP/idle.in"
fi

echo
echo "-- 3. wall time of the workload, $ROUNDS interleaved rounds, medians (ms, self-reported)"
for r in $(seq "$ROUNDS"); do
    for cfg in none:0 ours:0.01 ours:0.001 debian:0.01 debian:0.001; do
        which=${cfg%%:*} period=${cfg#*:}
        ms=$(PROFILE_PERIOD=$period php_with "$which" -d display_errors=stderr bench/php/workload.php 40 2>&1 >/dev/null | grep -o 'elapsed_ms=[0-9.]*' | cut -d= -f2)
        echo "$ms" >> "$TMP/wall.$which.$period"
    done
done
base=$(median < "$TMP/wall.none.0")
printf '   %-22s %9s %8s\n' configuration median ratio
printf '   %-22s %9.2f %8s\n' "no profiler" "$base" "1.000"
for cfg in ours:0.01 ours:0.001 debian:0.01 debian:0.001; do
    which=${cfg%%:*} period=${cfg#*:}
    m=$(median < "$TMP/wall.$which.$period")
    printf '   %-22s %9.2f %8.3f\n' "$which, period ${period}s" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN{print a/b}')"
done

echo
echo "-- 3b. the same workload paired inside one process: $PAIRS pairs of 10-request batches,"
echo "   unprofiled and profiled in alternating order; medians of the per-pair ratios."
echo "   wall: what the request waits for; cpu: the whole process (getrusage), helper"
echo "   threads and kernel time included; the A/A row (both batches unprofiled) is the"
echo "   noise floor"
printf '   %-22s %11s %10s\n' configuration wall-ratio cpu-ratio
for cfg in ours:0 ours:0.01 debian:0.01 ours:0.001 debian:0.001; do
    which=${cfg%%:*} period=${cfg#*:}
    label="$which, period ${period}s"
    [ "$period" = 0 ] && label="A/A: neither profiled"
    out=$(PAIRED=$PAIRS PROFILE_PERIOD=$period php_with "$which" bench/php/workload.php 10 2>&1 >/dev/null)
    printf '   %-22s %11s %10s\n' "$label" \
        "$(echo "$out" | grep -o 'wall_ratio=[0-9.]*' | cut -d= -f2)" \
        "$(echo "$out" | grep -o 'cpu_ratio=[0-9.]*' | cut -d= -f2)"
done

echo
echo "-- 4. profiler create + start + stop + destroy (median of 7 rounds of 2000)"
for which in debian ours; do
    printf '   %-7s %8s us\n' "$which" "$(php_with "$which" bench/php/lifecycle.php 2000)"
done

echo
for which in ours debian; do
    printf '   %-7s exited abnormally in %d of the runs above\n' "$which" \
        "$(grep -c "^$which\$" "$TMP/crashes" 2>/dev/null || true)"
done
