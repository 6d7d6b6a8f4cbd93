#!/usr/bin/env bash
# bench/export.sh: CPU time and peak memory of `arclamp-svg export` to each
# format (pprof, speedscope, collapsed), side by side with the read floor
# and with `arclamp-svg render`, on the MediaWiki-like "day of logs" of
# bench/arclamp-svg.sh (the 1 M-line log, about 2 GB).
#
# Why a bench of its own: export is the other way a day's log leaves Arc
# Lamp (to go tool pprof, speedscope, flamegraph.pl), and it reads the same
# input as render; it should cost about what render costs, and its memory
# should follow the distinct stacks, not the 2 GB of input. This script
# shows both, as ratios to the floor that the render bench uses.
#
# Run by `make bench` after bench/arclamp-svg.sh (which usually has made
# the log already; this script makes it the same way when it is missing).
#   1. The log: build/bench/data/svg-LINES-sSEED-kDISTINCT.log, named,
#      checked (its .meta file) and made by bench/lib.sh, as for
#      bench/arclamp-svg.sh.
#   2. One untimed floor run (page cache; the floor's distinct stacks and
#      samples), then BENCH_ROUNDS interleaved rounds of
#        svg-floor LOG
#        arclamp-svg render (Arc Lamp's flags, forward + reversed graph)
#        arclamp-svg export --format pprof|speedscope|collapsed -o F LOG
#      the order rotated every round; each run measured by a small wrapper
#      (wait4: user + system CPU and ru_maxrss of the measured process).
#   3. The first export of each format is checked: pprof is a whole gzip
#      stream, speedscope parses as JSON with one sample per distinct stack
#      and weights adding up to the floor's samples, collapsed has one line
#      per distinct stack and the same total.
#   4. A table of medians with the ratio to the floor's CPU and to render's,
#      the target line ("export CPU / render CPU target <= X: ... ok" or
#      "MISSED", for the 1 M-line log) and a SUMMARY line for scripts.
# See bench/README.md ("Benchmark: arclamp-svg export") for how to read it.
#
# Environment: BUILD (default ./build), BENCH_ROUNDS (default 3),
# BENCH_EXPORT_SIZES (default "1000000"; "10000" for a quick run),
# BENCH_SEED (42), BENCH_DISTINCT (50000), BENCH_DATA (default
# $BUILD/bench/data), BENCH_KEEP=1 keeps the outputs, TMPDIR for them,
# BENCH_EXPORT_TARGET (the target ratio to render, default 1.35),
# BENCH_STRICT=1 exits 2 when the target is missed (`make bench` does not
# set it: a missed target is printed, it does not fail the run).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"   # BUILD, SVG, LOGGEN, FLOOR, DATA, SEED, DISTINCT, PYTHON, RENDER_FLAGS; say, die, cleanup, measure, ensure_log...
ROUNDS=${BENCH_ROUNDS:-3}
read -r -a SIZES <<<"${BENCH_EXPORT_SIZES:-1000000}"
FORMATS=(pprof speedscope collapsed)
# The target (bench/README.md, "Benchmark: arclamp-svg export"): on the
# 1 M-line log, each format's export CPU at most this many times render's
# (medians of the same interleaved rounds; a ratio, as the machine is shared).
TARGET_LINES=1000000
TARGET_X_RENDER=${BENCH_EXPORT_TARGET:-1.35}

TMP=
FAILED=0
BENCH_NAME="bench export"
trap cleanup EXIT

# ---- the runs ----

# run PROG LOG: one measured run of PROG (floor, render or a format).
run() {
    local prog=$1 log=$2
    case $prog in
        floor) measure "$TMP/floor.out" "$TMP/floor.err" 0 - -- "$FLOOR" "$log" ;;
        render) measure "$TMP/render.out" "$TMP/render.err" 0 - -- "$SVG" render "${RENDER_FLAGS[@]}" \
            --output "$TMP/render.svg" --reversed-output "$TMP/render.reversed.svg" "$log" ;;
        *) measure "$TMP/$prog.out" "$TMP/$prog.err" 0 - -- "$SVG" export --format "$prog" \
            -o "$TMP/export.$prog" "$log" ;;
    esac
}

declare -A LIST RES
record() { # record LINES PROG RESULT
    local key="$1,$2"
    if [ "$(field "$3" rc)" != 0 ]; then
        say "   $2 exited with status $(field "$3" rc): $(head -c 300 "$TMP/$2.err" 2>/dev/null)"
        FAILED=1
        return 0
    fi
    LIST[$key,cpu]+="$(field "$3" cpu) "
    LIST[$key,user]+="$(field "$3" user) "
    LIST[$key,sys]+="$(field "$3" sys) "
    LIST[$key,wall]+="$(field "$3" wall) "
    LIST[$key,rss]+="$(calc "$(field "$3" rss_kb) / 1024") "
}

# check_export LINES FORMAT: the first export of a format, checked against
# the floor's distinct stacks and samples; prints the output's size.
check_export() {
    local lines=$1 fmt=$2 f="$TMP/export.$2" got verdict=ok
    RES[$lines,$fmt,out_mb]=$(calc "$(stat -c %s "$f") / 1e6")
    case $fmt in
        pprof) if gzip -t "$f" 2>/dev/null; then
                got="a whole gzip stream, $(calc "$(gzip -dc "$f" | wc -c) / 1e6") MB unzipped"
            else got="NOT a whole gzip stream"; verdict=WRONG; fi ;;
        speedscope) got=$("$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["profiles"][0]
print(len(p["samples"]), int(sum(p["weights"])), len(d["shared"]["frames"]))' "$f" 2>&1) || got="not JSON: $got"
            # shellcheck disable=SC2086  # the three numbers, split on purpose
            set -- $got
            if [ "${1:-}" = "${RES[$lines,distinct]}" ] && [ "${2:-}" = "${RES[$lines,samples]}" ]; then
                got="$1 samples (stacks), weights $2, $3 frames"
            else got="MISMATCH: $got"; verdict=WRONG; fi ;;
        collapsed) got=$(awk '{ n++; s += $NF } END { printf "%d %d", n, s }' "$f")
            # shellcheck disable=SC2086
            set -- $got
            if [ "$1" = "${RES[$lines,distinct]}" ] && [ "$2" = "${RES[$lines,samples]}" ]; then
                got="$1 lines, $2 samples"
            else got="MISMATCH: $got"; verdict=WRONG; fi ;;
    esac
    [ "$verdict" = ok ] || FAILED=1
    printf '   %-11s %8s MB: %s\n' "$fmt" "${RES[$lines,$fmt,out_mb]}" "$got"
}

header() {
    printf '   %-30s %7s %13s %7s %7s %7s %8s %9s %8s %8s\n' program "CPU s" "(min-max)" user sys \
        "wall s" "RSS MB" "out MB" "x floor" "x render"
}

row() { # row LINES PROG LABEL
    local key="$1,$2" cpu range user sys wall rss xf="-" xr="-"
    [ -n "${LIST[$key,cpu]:-}" ] || { printf '   %-30s %s\n' "$3" "(no successful run)"; return 0; }
    # shellcheck disable=SC2086  # word splitting of the lists is intended
    {
        cpu=$(median ${LIST[$key,cpu]}); range=$(minmax ${LIST[$key,cpu]})
        user=$(median ${LIST[$key,user]}); sys=$(median ${LIST[$key,sys]})
        wall=$(median ${LIST[$key,wall]}); rss=$(median ${LIST[$key,rss]})
    }
    RES[$key,cpu]=$cpu
    RES[$key,rss]=$rss
    [ -n "${RES[$1,floor,cpu]:-}" ] && xf=$(calc "$cpu / ${RES[$1,floor,cpu]}")
    [ -n "${RES[$1,render,cpu]:-}" ] && xr=$(calc "$cpu / ${RES[$1,render,cpu]}")
    printf '   %-30s %7.3f %13s %7.3f %7.3f %7.3f %8.1f %9s %8s %8s\n' "$3" "$cpu" "($range)" \
        "$user" "$sys" "$wall" "$rss" "${RES[$1,$2,out_mb]:--}" "$xf" "$xr"
}

compare() { # compare LINES
    local lines=$1 log r i n out fl progs=(floor render "${FORMATS[@]}") order checked=""
    log=$(log_path "$lines")
    say ""
    say "== $lines lines, $(calc "$(stat -c %s "$log") / 1e6") MB: $ROUNDS interleaved rounds, medians"
    run floor "$log" >/dev/null   # warm-up, untimed: the page cache, the floor's figures
    fl=$(cat "$TMP/floor.out")
    say "   svg-floor: $fl"
    RES[$lines,distinct]=$(field "$fl" distinct)
    RES[$lines,samples]=$(field "$fl" samples)
    n=${#progs[@]}
    for r in $(seq 1 "$ROUNDS"); do
        # rotate the order so that no program always runs first (coolest cache)
        order=()
        for i in $(seq 0 $((n - 1))); do order+=("${progs[$(((i + r - 1) % n))]}"); done
        for prog in "${order[@]}"; do
            out=$(run "$prog" "$log")
            record "$lines" "$prog" "$out"
            case " floor render $checked " in *" $prog "*) continue ;; esac
            [ "$(field "$out" rc)" = 0 ] || continue
            [ -z "$checked" ] && say "   outputs of the first exports (checked against the floor):"
            checked+=" $prog"
            check_export "$lines" "$prog"
        done
    done
    header
    row "$lines" floor "svg-floor"
    row "$lines" render "arclamp-svg render (2 SVGs)"
    for prog in "${FORMATS[@]}"; do row "$lines" "$prog" "arclamp-svg export $prog"; done
}

# target: one line per format and a verdict for the worst, against
# TARGET_X_RENDER; judged on the TARGET_LINES log only (a small log is
# mostly start-up). Sets MISSED=1 when missed.
MISSED=0
target() {
    local lines=${SIZES[-1]} prog cpu ratio worst=- worst_prog=- ok=1
    say ""
    say "== export CPU / render CPU target <= $TARGET_X_RENDER (the $TARGET_LINES-line log, medians)"
    for prog in "${FORMATS[@]}"; do
        cpu=${RES[$lines,$prog,cpu]:-}
        ratio=-
        if [ -n "$cpu" ] && [ -n "${RES[$lines,render,cpu]:-}" ]; then
            ratio=$(calc "$cpu / ${RES[$lines,render,cpu]}")
            if [ "$worst" = - ] || [ "$(is "$ratio > $worst")" = 1 ]; then worst=$ratio; worst_prog=$prog; fi
        else
            ok=0
        fi
        RES[$lines,$prog,x_render]=$ratio
        printf '   %-30s %6s x render\n' "arclamp-svg export $prog" "$ratio"
    done
    if [ "$lines" != "$TARGET_LINES" ]; then
        say "export CPU / render CPU target <= $TARGET_X_RENDER: not judged ($lines lines; the target is for $TARGET_LINES)"
        return 0
    fi
    [ "$worst" != - ] && [ "$(is "$worst <= $TARGET_X_RENDER")" = 1 ] || ok=0
    [ "$ok" = 1 ] || MISSED=1
    say "export CPU / render CPU target <= $TARGET_X_RENDER: worst $worst ($worst_prog): $(verdict "$ok")"
}

summary() {
    local lines=${SIZES[-1]} s prog
    s="SUMMARY export lines=$lines floor_cpu_s=${RES[$lines,floor,cpu]:--} render_cpu_s=${RES[$lines,render,cpu]:--} render_rss_mb=${RES[$lines,render,rss]:--}"
    for prog in "${FORMATS[@]}"; do
        local cpu=${RES[$lines,$prog,cpu]:--} ratio=-
        [ "$cpu" != - ] && [ -n "${RES[$lines,floor,cpu]:-}" ] && ratio=$(calc "$cpu / ${RES[$lines,floor,cpu]}")
        s+=" ${prog}_cpu_s=$cpu ${prog}_ratio=$ratio ${prog}_x_render=${RES[$lines,$prog,x_render]:--} ${prog}_rss_mb=${RES[$lines,$prog,rss]:--}"
    done
    s+=" target_x_render=$TARGET_X_RENDER target_met=$((1 - MISSED))"
    say ""
    say "$s"
}

main() {
    { [ -x "$LOGGEN" ] && [ -x "$FLOOR" ]; } ||
        die "the bench tools are missing in $BUILD/bench (make build/bench/svg-loggen build/bench/svg-floor)"
    [ -x "$SVG" ] || die "$SVG is missing (make build/bin/arclamp-svg)"
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/arclamp-export-bench.XXXXXX")
    write_measure
    say "== arclamp-svg export benchmark: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); logs in $DATA"
    say "   arclamp-svg render $(printf '%q ' "${RENDER_FLAGS[@]}")--output F.svg --reversed-output R.svg LOG"
    say "   arclamp-svg export --format pprof|speedscope|collapsed -o F LOG"
    local lines
    for lines in "${SIZES[@]}"; do ensure_log "$lines"; done
    for lines in "${SIZES[@]}"; do compare "$lines"; done
    target
    summary
    [ "$FAILED" = 0 ] || exit 1
    [ "${BENCH_STRICT:-0}" = 1 ] && [ "$MISSED" = 1 ] && exit 2
    exit 0
}

main "$@"
