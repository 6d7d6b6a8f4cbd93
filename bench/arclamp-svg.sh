#!/usr/bin/env bash
# bench/arclamp-svg.sh: CPU time and peak memory of `arclamp-svg render`
# against the floor, on realistic MediaWiki-like trace logs.
#
# Run by `make bench` once build/bin/arclamp-svg and build/bench/* are built.
#   1. Generates the logs once with svg-loggen (10 k and 1 M lines, about
#      2 KB a line; kept in build/bench/data and reused while the generator
#      version, seed and size are the same).
#   2. Per log, several interleaved rounds of
#        svg-floor LOG     (read, split lines, hash-aggregate identical stacks)
#        arclamp-svg render --output F.svg --reversed-output R.svg LOG
#                          (both graphs from one read, Arc Lamp's flags)
#      each measured by a small wrapper (wait4: user + system CPU seconds and
#      peak RSS of the measured process alone); medians are reported with the
#      ratio to the floor and the throughput per CPU second.
#   3. The memory bound of a 10 GB-class daily log, cheaply: the 1 M-line log
#      fed BENCH_PIPE_COPIES times through a pipe to `arclamp-svg render -`.
#   4. flamegraph.pl on the 10 k log as a reference row, when it is installed.
#   5. Hostile logs (bench/src/svg-hostile.c, issue 14): `arclamp-svg generate`
#      on each as the day's "all" log (so the per-function graphs are fed
#      too), with the default configuration: peak RSS (target <= 200 MB for
#      any input) and what the graph says it left out. Shapes: unique
#      stacks (BENCH_HOSTILE_MB, default 285 MB), huge distinct frames,
#      million-frame stacks, a document of two million boxes, and a gzip
#      bomb (2 GB from 14 MB) for the time max_log_read_mb bounds.
# See bench/README.md for how to read the output.
#
# Environment: BUILD (default ./build), BENCH_ROUNDS (default 5; logs under
# 100 k lines get three times as many), BENCH_SIZES (default "10000 1000000"),
# BENCH_SEED (42), BENCH_DISTINCT (50000), BENCH_PIPE_COPIES (5; 0 skips
# step 3), BENCH_HOSTILE (1; 0 skips step 5), BENCH_HOSTILE_MB (285), BENCH_DATA (default $BUILD/bench/data), BENCH_KEEP=1 keeps the
# temporary directory (the SVGs), BENCH_STRICT=1 exits 2 when a target is
# missed, TMPDIR for the SVGs.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"   # BUILD, SVG, LOGGEN, FLOOR, DATA, SEED, DISTINCT, PYTHON, RENDER_FLAGS; say, die, cleanup, measure, ensure_log...
HOSTILE=$BUILD/bench/svg-hostile
ROUNDS=${BENCH_ROUNDS:-5}
read -r -a SIZES <<<"${BENCH_SIZES:-10000 1000000}"
PIPE_COPIES=${BENCH_PIPE_COPIES:-5}
# Targets (from the issue): the 1 M-line log, both graphs
TARGET_LINES=1000000
TARGET_CPU_S=2
TARGET_RATIO=2
TARGET_PIPE_RSS_MB=200
TARGET_HOSTILE_RSS_MB=200
HOSTILE_MB=${BENCH_HOSTILE_MB:-285}

TMP=
BENCH_NAME=bench
trap cleanup EXIT

# ---- step 1: the logs (log_path, ensure_log: bench/lib.sh) ----

# show_stats LINES: the generator's description of the log.
show_stats() {
    local path
    path=$(log_path "$1")
    [ -f "$path.stats" ] && sed 's/^/   /' "$path.stats"
    return 0
}

# ---- step 2: floor vs renderer ----

RENDER_OK=1
declare -A RES   # RES[lines,prog,cpu|rss|wall] = median; RES[lines,bytes] etc.

run_floor() { # run_floor LOG TAG
    measure "$TMP/$2.out" "$TMP/$2.err" 0 - -- "$FLOOR" "$1"
}

run_render() { # run_render LOG TAG
    measure "$TMP/$2.out" "$TMP/$2.err" 0 - -- "$SVG" render "${RENDER_FLAGS[@]}" \
        --output "$TMP/$2.svg" --reversed-output "$TMP/$2.reversed.svg" "$1"
}

# record PROG LINES RESULT: appends cpu, rss and wall of a run to lists.
declare -A LIST
record() {
    local key="$2,$1" rc
    rc=$(field "$3" rc)
    if [ "$rc" != 0 ]; then
        say "   $1 exited with status $rc: $(head -c 300 "$TMP/$1.err" 2>/dev/null)"
        [ "$1" = render ] && RENDER_OK=0
        return 0
    fi
    LIST[$key,cpu]+="$(field "$3" cpu) "
    LIST[$key,rss]+="$(calc "$(field "$3" rss_kb) / 1024") "
    LIST[$key,wall]+="$(field "$3" wall) "
}

row() { # row LINES PROG LABEL
    local key="$1,$2" cpu rss wall bytes lines ratio="-" lps mbps range
    [ -n "${LIST[$key,cpu]:-}" ] || { printf '   %-22s %s\n' "$3" "(no successful run)"; return 0; }
    # shellcheck disable=SC2086  # word splitting of the lists is intended
    {
        cpu=$(median ${LIST[$key,cpu]})
        range=$(minmax ${LIST[$key,cpu]})
        rss=$(median ${LIST[$key,rss]})
        wall=$(median ${LIST[$key,wall]})
    }
    bytes=${RES[$1,bytes]}
    lines=$1
    RES[$key,cpu]=$cpu
    RES[$key,rss]=$rss
    if [ -n "${RES[$1,floor,cpu]:-}" ] && [ "$(is "${RES[$1,floor,cpu]} > 0")" = 1 ]; then
        ratio=$(calc "$cpu / ${RES[$1,floor,cpu]}")
    fi
    lps=$(calc "$cpu > 0 ? $lines / $cpu / 1e6 : 0")
    mbps=$(calc0 "$cpu > 0 ? $bytes / 1e6 / $cpu : 0")
    printf '   %-22s %7.3f %13s %7.3f %8.1f %9s %8s %8s\n' "$3" "$cpu" "($range)" "$wall" "$rss" \
        "$lps" "$mbps" "$ratio"
}

header() {
    printf '   %-22s %7s %13s %7s %8s %9s %8s %8s\n' program "CPU s" "(min-max)" "wall s" \
        "RSS MB" "Mlines/s" "MB/s" "x floor"
}

# compare LINES: interleaved rounds of the floor and the renderer on one log.
compare() {
    local lines=$1 log rounds r out order prog first=1
    log=$(log_path "$lines")
    rounds=$ROUNDS
    [ "$lines" -lt 100000 ] && rounds=$((ROUNDS * 3))
    RES[$lines,bytes]=$(stat -c %s "$log")
    say ""
    say "== $lines lines, $(calc "${RES[$lines,bytes]} / 1e6") MB: $rounds interleaved rounds, medians (Mlines/s, MB/s per CPU second)"
    show_stats "$lines"
    # warm-up (untimed): the log into the page cache, the floor's figures
    out=$(run_floor "$log" floor)
    local fl
    fl=$(cat "$TMP/floor.out")
    say "   svg-floor: $fl"
    RES[$lines,distinct]=$(field "$fl" distinct)
    for r in $(seq 1 "$rounds"); do
        # alternate the order so neither always runs on a cooler cache
        if [ $((r % 2)) = 1 ]; then order="floor render"; else order="render floor"; fi
        for prog in $order; do
            [ "$prog" = render ] && [ "$HAVE_SVG" = 0 ] && continue
            if [ "$prog" = floor ]; then out=$(run_floor "$log" floor); else out=$(run_render "$log" render); fi
            record "$prog" "$lines" "$out"
            if [ "$prog" = render ] && [ "$first" = 1 ] && [ "$(field "$out" rc)" = 0 ]; then
                first=0
                check_render "$lines"
            fi
        done
    done
    header
    row "$lines" floor "svg-floor"
    [ "$HAVE_SVG" = 1 ] && row "$lines" render "arclamp-svg render"
    return 0
}

# check_render LINES: what the first render run wrote, checked once.
check_render() {
    local f n summary distinct
    summary=$(grep -E 'distinct stacks' "$TMP/render.err" | tail -n1 || true)
    [ -n "$summary" ] && say "   arclamp-svg: ${summary#arclamp-svg render: }"
    distinct=$(sed -n 's/.* \([0-9][0-9]*\) distinct stacks.*/\1/p' <<<"$summary")
    if [ -n "$distinct" ] && [ "$distinct" != "${RES[$1,distinct]}" ]; then
        say "   WARNING: arclamp-svg found $distinct distinct stacks, the floor ${RES[$1,distinct]}"
    fi
    for f in render.svg render.reversed.svg; do
        if [ ! -s "$TMP/$f" ]; then
            say "   WARNING: $f is missing or empty"
            RENDER_OK=0
            continue
        fi
        n=$(grep -o '<rect' "$TMP/$f" | wc -l)
        printf '   %-20s %8.1f KB, %6d <rect> elements' "$f" "$(calc "$(stat -c %s "$TMP/$f") / 1024")" "$n"
        if command -v xmllint >/dev/null; then
            if xmllint --noout --huge "$TMP/$f" 2>/dev/null; then printf ', well-formed XML'; else
                printf ', NOT WELL-FORMED'; RENDER_OK=0; fi
        fi
        printf '\n'
    done
}

# ---- step 3: the memory bound, through a pipe ----

PIPE_RSS=-
pipe_test() {
    local log out copies=$PIPE_COPIES gb
    log=$(log_path "$TARGET_LINES")
    [ -f "$log" ] || { say ""; say "== pipe test skipped: no $TARGET_LINES-line log"; return 0; }
    gb=$(calc "$copies * $(stat -c %s "$log") / 1e9")
    say ""
    say "== memory bound: the $TARGET_LINES-line log $copies times through a pipe ($gb GB), one run"
    header
    out=$(measure "$TMP/pipe-floor.out" "$TMP/pipe-floor.err" "$copies" "$log" -- "$FLOOR" -)
    pipe_row svg-floor "$out" "$copies" "$log"
    out=$(measure "$TMP/pipe.out" "$TMP/pipe.err" "$copies" "$log" -- "$SVG" render \
        "${RENDER_FLAGS[@]}" --output "$TMP/pipe.svg" --reversed-output "$TMP/pipe.reversed.svg" -)
    pipe_row "arclamp-svg render -" "$out" "$copies" "$log"
    if [ "$(field "$out" rc)" = 0 ]; then
        PIPE_RSS=$(calc "$(field "$out" rss_kb) / 1024")
    else
        say "   arclamp-svg exited with status $(field "$out" rc): $(head -c 300 "$TMP/pipe.err")"
        RENDER_OK=0
    fi
}

pipe_row() { # pipe_row LABEL RESULT COPIES LOG
    local cpu rss wall lines bytes
    cpu=$(field "$2" cpu); rss=$(calc "$(field "$2" rss_kb) / 1024"); wall=$(field "$2" wall)
    lines=$(($3 * TARGET_LINES)); bytes=$(($3 * $(stat -c %s "$4")))
    printf '   %-22s %7.3f %13s %7.3f %8.1f %9s %8s %8s\n' "$1" "$cpu" "" "$wall" "$rss" \
        "$(calc "$cpu > 0 ? $lines / $cpu / 1e6 : 0")" "$(calc0 "$cpu > 0 ? $bytes / 1e6 / $cpu : 0")" "-"
}

# ---- step 4: flamegraph.pl, for reference ----

flamegraph_reference() {
    local fg lines=${SIZES[0]} log a b cpu rss
    fg=$(command -v flamegraph.pl || command -v flamegraph || true)
    say ""
    if [ -z "$fg" ]; then
        say "== flamegraph.pl reference: not installed (no flamegraph.pl on PATH); skipped"
        say "   (the spec's figures for this machine class, forward + reversed: 10 k lines"
        say "   1.6 + 2.7 CPU-s, 77 MB; 1 M lines 107 + 177 CPU-s, 4.2 GB; 5 M lines: out of memory)"
        return 0
    fi
    log=$(log_path "$lines")
    say "== flamegraph.pl reference ($fg), $lines lines, one run: forward + reversed (two runs, as Arc Lamp does)"
    a=$(measure "$TMP/fg.svg" "$TMP/fg.err" 0 - -- "$fg" "${RENDER_FLAGS[@]}" "$log")
    b=$(measure "$TMP/fg.reversed.svg" "$TMP/fg.reversed.err" 0 - -- "$fg" "${RENDER_FLAGS[@]}" \
        --reverse --colors blue --title "$TITLE - reversed" "$log")
    cpu=$(calc "$(field "$a" cpu) + $(field "$b" cpu)")
    rss=$(calc "($(field "$a" rss_kb) > $(field "$b" rss_kb) ? $(field "$a" rss_kb) : $(field "$b" rss_kb)) / 1024")
    header
    printf '   %-22s %7.3f %13s %7.3f %8.1f %9s %8s %8s\n' "flamegraph.pl (x2)" "$cpu" "" \
        "$(calc "$(field "$a" wall) + $(field "$b" wall)")" "$rss" \
        "$(calc "$lines / $cpu / 1e6")" "$(calc0 "${RES[$lines,bytes]} / 1e6 / $cpu")" \
        "$(calc "$cpu / ${RES[$lines,floor,cpu]}")"
}

# ---- step 5: hostile logs through generate ----

HOSTILE_RSS=-
# ensure_hostile SHAPE MB: the hostile log (kept in $DATA like the others).
ensure_hostile() {
    local path=$DATA/hostile-$1-$2mb.log
    if [ ! -f "$path" ]; then
        mkdir -p "$DATA"
        "$HOSTILE" --shape "$1" --bytes "$(($2 * 1000000))" --output "$path.tmp" ||
            die "svg-hostile failed"
        mv -f "$path.tmp" "$path"
    fi
    echo "$path"
}

ensure_bomb() {
    local path=$DATA/hostile-bomb-2gb.log.gz
    if [ ! -f "$path" ]; then
        mkdir -p "$DATA"
        yes 'main;MediaWiki\Actions\EditAction::show;Parser::parse;preg_match 1' |
            head -c 2000000000 | gzip -1 >"$path.tmp" || true
        mv -f "$path.tmp" "$path"
    fi
    echo "$path"
}

# hostile_run LABEL LOG: generate on LOG placed as the day's all log.
hostile_run() {
    local dir=$TMP/hostile ext=log out rss note
    rm -rf "$dir"
    mkdir -p "$dir/logs/daily"
    case $2 in *.gz) ext=log.gz ;; esac
    ln "$2" "$dir/logs/daily/2026-11-22.excimer.all.$ext" 2>/dev/null ||
        cp "$2" "$dir/logs/daily/2026-11-22.excimer.all.$ext"
    printf 'log_target: stderr\n' >"$dir/config.yaml"
    out=$(measure "$TMP/hostile.out" "$TMP/hostile.err" 0 - -- "$SVG" generate \
        --config "$dir/config.yaml" --data-dir "$dir")
    rss=$(calc "$(field "$out" rss_kb) / 1024")
    note=$(gzip -dc "$dir/svgs/daily/2026-11-22.excimer.all.svgz" 2>/dev/null |
        sed -n 's/.*<text id="subtitle"[^>]*>\([^<]*\)<.*/\1/p' | head -c 150)
    printf '   %-34s %9.1f MB %8.2f s  rc=%s  %s\n' "$1 ($(calc "$(stat -c %s "$2") / 1e6") MB)" \
        "$rss" "$(field "$out" wall)" "$(field "$out" rc)" "${note:-(nothing left out)}"
    [ "$(field "$out" rc)" = 0 ] || RENDER_OK=0
    if [ "$HOSTILE_RSS" = - ] || [ "$(is "$rss > $HOSTILE_RSS")" = 1 ]; then HOSTILE_RSS=$rss; fi
    rm -rf "$dir"
}

hostile_test() {
    [ -x "$HOSTILE" ] || { say ""; say "== hostile logs skipped: no $HOSTILE"; return 0; }
    say ""
    say "== hostile logs: arclamp-svg generate, default configuration, the log as the day's all log"
    printf '   %-34s %12s %10s\n' "log" "peak RSS" "wall"
    hostile_run "unique stacks" "$(ensure_hostile unique "$HOSTILE_MB")"
    hostile_run "huge distinct frames" "$(ensure_hostile hugeframes 300)"
    hostile_run "million-frame stacks" "$(ensure_hostile deep 300)"
    hostile_run "two million boxes" "$(ensure_hostile wide 50)"
    hostile_run "gzip bomb" "$(ensure_bomb)"
}

# ---- summary ----

MISSED=0
summary() {
    local cpu="-" ratio="-" ok_cpu=0 ok_ratio=0 ok_rss=0 key="$TARGET_LINES,render"
    say ""
    say "== summary (targets for the $TARGET_LINES-line log, forward + reversed from one read)"
    if [ -n "${RES[$key,cpu]:-}" ]; then
        cpu=${RES[$key,cpu]}
        ratio=$(calc "$cpu / ${RES[$TARGET_LINES,floor,cpu]}")
        ok_cpu=$(is "$cpu <= $TARGET_CPU_S")
        ok_ratio=$(is "$ratio <= $TARGET_RATIO")
    fi
    [ "$PIPE_RSS" = - ] || ok_rss=$(is "$PIPE_RSS < $TARGET_PIPE_RSS_MB")
    printf '%-34s %8s s    [target <= %s s: %s]\n' "arclamp-svg CPU, both graphs:" \
        "$cpu" "$TARGET_CPU_S" "$(verdict "$ok_cpu")"
    printf '%-34s %8s x    [target <= %s x: %s]\n' "ratio to the floor:" \
        "$ratio" "$TARGET_RATIO" "$(verdict "$ok_ratio")"
    printf '%-34s %8s MB   [target < %s MB: %s]\n' "peak RSS, log x $PIPE_COPIES through a pipe:" \
        "$PIPE_RSS" "$TARGET_PIPE_RSS_MB" "$(verdict "$ok_rss")"
    local ok_hostile=1
    if [ "$HOSTILE_RSS" != - ]; then
        ok_hostile=$(is "$HOSTILE_RSS <= $TARGET_HOSTILE_RSS_MB")
        printf '%-34s %8s MB   [target <= %s MB: %s]\n' "peak RSS, worst hostile log:" \
            "$HOSTILE_RSS" "$TARGET_HOSTILE_RSS_MB" "$(verdict "$ok_hostile")"
    fi
    [ "$ok_cpu$ok_ratio$ok_rss$ok_hostile" = 1111 ] || MISSED=1
    say "SUMMARY lines=$TARGET_LINES floor_cpu_s=${RES[$TARGET_LINES,floor,cpu]:--} render_cpu_s=$cpu ratio=$ratio render_rss_mb=${RES[$key,rss]:--} pipe_rss_mb=$PIPE_RSS hostile_rss_mb=$HOSTILE_RSS"
}

main() {
    HAVE_SVG=1
    { [ -x "$LOGGEN" ] && [ -x "$FLOOR" ]; } ||
        die "the bench tools are missing in $BUILD/bench (make build/bench/svg-loggen build/bench/svg-floor)"
    if [ ! -x "$SVG" ]; then
        say "bench: $SVG is missing (make build/bin/arclamp-svg): only the floor is measured"
        HAVE_SVG=0
        RENDER_OK=0
    fi
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/arclamp-svg-bench.XXXXXX")
    write_measure
    say "== arclamp-svg benchmark: $(nproc) CPUs; logs in $DATA; SVGs in $TMP"
    say "   arclamp-svg render $(printf '%q ' "${RENDER_FLAGS[@]}")--output F.svg --reversed-output R.svg LOG"
    local lines
    for lines in "${SIZES[@]}"; do ensure_log "$lines"; done
    for lines in "${SIZES[@]}"; do compare "$lines"; done
    if [ "$HAVE_SVG" = 1 ] && [ "$PIPE_COPIES" -gt 0 ]; then pipe_test; fi
    flamegraph_reference
    if [ "$HAVE_SVG" = 1 ] && [ "${BENCH_HOSTILE:-1}" != 0 ]; then hostile_test; fi
    summary
    [ "$RENDER_OK" = 1 ] || exit 1
    [ "${BENCH_STRICT:-0}" = 1 ] && [ "$MISSED" = 1 ] && exit 2
    exit 0
}

main "$@"
