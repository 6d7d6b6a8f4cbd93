#!/usr/bin/env bash
# bench/arclamp-log.sh: throughput benchmark of arclamp-log over Redis pub/sub.
#
# Run by `make bench` once build/bin/arclamp-log and build/bench/* are built.
# Starts a private redis-server on 127.0.0.1 (free port, no persistence),
# measures the pub/sub ceiling with a subscriber that only counts, then runs
# the daemon and publishes realistic samples at rising rates, counting the
# lines that reach the hourly trace logs, the daemon's CPU time per message
# and its peak RSS. See bench/README.md for how to read the output.
#
# Environment: BUILD (default ./build), BENCH_RATES (space-separated msg/s),
# BENCH_STEP_SECONDS (default 3), BENCH_KEEP=1 keeps the temporary directory,
# BENCH_STRICT=1 exits 2 when a target is missed, BENCH_STREAM=0 skips the
# stream-mode step, BENCH_TRICKLE_RATES (default "1000 4000 8000"; empty
# skips) and BENCH_TRICKLE_SECONDS (10) the low-rate step, TMPDIR for the
# trace logs.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
DAEMON=$BUILD/bin/arclamp-log
LOADGEN=$BUILD/bench/redis-loadgen
SUBSCRIBER=$BUILD/bench/redis-count-subscriber
read -r -a RATES <<<"${BENCH_RATES:-10000 25000 50000 75000 100000 125000 150000 200000 250000 300000}"
STEP_SECONDS=${BENCH_STEP_SECONDS:-3}
TRICKLE_SECONDS=${BENCH_TRICKLE_SECONDS:-10}
CEILING_SECONDS=3
CHANNEL=excimer
SEED=42
CLK_TCK=$(getconf CLK_TCK)
# Targets
TARGET_CEILING_PCT=90
TARGET_CPU_US=5
TARGET_RSS_MB=50

PIDS=()
TMP=
PORT=

say() { printf '%s\n' "$*"; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

# ---- cleanup: stop everything this script started, by pid ----

stop_pid() {
    local pid=$1 i
    kill "$pid" 2>/dev/null || return 0
    for i in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
    if [ -n "$TMP" ] && [ -d "$TMP" ]; then
        if [ "${BENCH_KEEP:-0}" = 1 ]; then say "bench: kept $TMP"; else rm -rf "$TMP"; fi
    fi
}
trap cleanup EXIT

# ---- helpers ----

# field LINE KEY: the value of KEY=value in a line of key=value pairs.
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -n1; }

calc() { awk "BEGIN { printf \"%.2f\", ($1) }"; }   # calc EXPR: awk arithmetic
is() { awk "BEGIN { printf \"%d\", ($1) ? 1 : 0 }"; }  # is EXPR: 1 when true, else 0

rcli() { timeout 5 redis-cli -h 127.0.0.1 -p "$PORT" "$@"; }

numsub() { rcli PUBSUB NUMSUB "$CHANNEL" 2>/dev/null | sed -n 2p; }

wait_subscribers() {
    local want=$1 i
    for i in $(seq 1 100); do
        [ "$(numsub)" = "$want" ] && return 0
        sleep 0.1
    done
    return 1
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_redis() {
    local _ i pid
    for _ in $(seq 1 10); do
        PORT=$((20000 + RANDOM % 40000))
        port_in_use "$PORT" && continue
        redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
            --daemonize no --dir "$TMP" --logfile "$TMP/redis.log" &
        pid=$!
        PIDS+=("$pid")
        for i in $(seq 1 50); do
            [ "$(rcli PING 2>/dev/null)" = PONG ] && return 0
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        stop_pid "$pid"
    done
    die "could not start redis-server"
}

# Redis's own count of subscribers it cut off for exceeding the output buffer limit.
redis_drops() { grep -c 'output buffer limits' "$TMP/redis.log" 2>/dev/null || true; }

# cpu_ticks PID: "utime stime" in clock ticks (fields 14 and 15 of /proc/PID/stat).
cpu_ticks() {
    local s
    s=$(<"/proc/$1/stat")
    s=${s##*) }
    read -r -a f <<<"$s"
    echo "${f[11]} ${f[12]}"
}

sum_ticks() { local u s; read -r u s <<<"$1"; echo $((u + s)); }

hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

metric() {
    [ -f "$TMP/metrics.prom" ] || { echo 0; return; }
    awk -v m="$1" '$1 == m { v = $2 } END { printf "%.0f\n", v + 0 }' "$TMP/metrics.prom"
}

hourly_all_files() { find "$TMP/logs/hourly" -name '*.all.log' -type f 2>/dev/null || true; }

hourly_bytes() {
    local f total=0
    while IFS= read -r f; do total=$((total + $(stat -c %s "$f"))); done < <(hourly_all_files)
    echo "$total"
}

hourly_lines() {
    local f total=0
    while IFS= read -r f; do total=$((total + $(wc -l <"$f"))); done < <(hourly_all_files)
    echo "$total"
}

truncate_logs() { find "$TMP/logs" -name '*.log' -type f -exec truncate -s 0 {} + 2>/dev/null || true; }

# Waits until the hourly all files hold WANT bytes or stop growing (2.5 s,
# with flush_interval 1), at most 30 s.
wait_flushed() {
    local want=$1 size last=-1 still=0 i
    for i in $(seq 1 120); do
        size=$(hourly_bytes)
        [ "$size" -ge "$want" ] && return 0
        if [ "$size" = "$last" ]; then still=$((still + 1)); else still=0; fi
        [ "$still" -ge 10 ] && return 0
        last=$size
        sleep 0.25
    done
}

# wait_metric NAME VALUE: waits (at most 3 s) until the metrics file shows
# VALUE for NAME; it is rewritten every metrics_interval (1 s, plus timer slack).
wait_metric() {
    local i
    for i in $(seq 1 12); do
        [ "$(metric "$1")" = "$2" ] && return 0
        sleep 0.25
    done
}

# ---- step a: ceiling ----

CEILING=0
SUB_CPU=-
measure_ceiling() {
    local out sub
    say "== Redis pub/sub ceiling: counting subscriber vs redis-loadgen --max for ${CEILING_SECONDS}s"
    "$SUBSCRIBER" --port "$PORT" --channel "$CHANNEL" --idle 5 --timeout 60 \
        >"$TMP/ceiling.out" 2>"$TMP/ceiling.err" &
    sub=$!
    PIDS+=("$sub")
    wait_subscribers 1 || die "the counting subscriber did not subscribe"
    out=$("$LOADGEN" --port "$PORT" --channel "$CHANNEL" --max --seconds "$CEILING_SECONDS" \
        --seed "$SEED" --sentinel 2>/dev/null) || die "redis-loadgen failed: $out"
    wait "$sub" || true
    local got
    got=$(cat "$TMP/ceiling.out")
    say "   publisher:  $out"
    say "   subscriber: $got"
    CEILING=$(field "$got" rate)
    SUB_CPU=$(field "$got" cpu_us)
    [ "$(field "$got" end)" = sentinel ] || say "   warning: subscriber ended by $(field "$got" end)"
    [ "$(field "$got" received)" = "$(field "$out" sent)" ] ||
        say "   warning: the counting subscriber lost messages"
}

# ---- step b: the daemon ----

# write_config [pubsub|stream]
write_config() {
    cat >"$TMP/arclamp-log.yaml" <<EOF
base_path: $TMP/logs
redis:
  host: 127.0.0.1
  port: $PORT
  mode: ${1:-pubsub}
  stream_consumer: bench
redis_channel: $CHANNEL
logs:
  - period: hourly
    format: "%Y-%m-%d_%H"
    retain: 1000
  - period: daily
    format: "%Y-%m-%d"
    retain: 1000
log_target: stderr
metrics_file: $TMP/metrics.prom
metrics_interval: 1
flush_interval: 1
EOF
}

DPID=
# start_daemon [pubsub|stream]: starts arclamp-log and waits until it reads.
start_daemon() {
    mkdir -p "$TMP/logs"
    write_config "${1:-pubsub}"
    "$DAEMON" --check-config --config "$TMP/arclamp-log.yaml" >"$TMP/check.out" 2>&1 ||
        die "arclamp-log refused the configuration: $(cat "$TMP/check.out")"
    "$DAEMON" --config "$TMP/arclamp-log.yaml" 2>>"$TMP/daemon.log" &
    DPID=$!
    PIDS+=("$DPID")
    [ "${1:-pubsub}" = stream ] && return 0
    if ! wait_subscribers 1; then
        tail -n 20 "$TMP/daemon.log" >&2 || true
        die "arclamp-log did not subscribe to $CHANNEL within 10 s"
    fi
}

CPU_LIST=()
MAX_RSS_KB=0
BEST_RATE=0
BEST_TARGET=0
DAEMON_DIED=0
LOSS_SEEN=0

print_header() {
    printf '%9s %10s %9s %9s %8s %10s %5s %7s  %s\n' \
        target sent/s sent written lost cpu_us/msg sys% rss_MB notes
}

# run_step RATE INDEX: one publishing step; sets STEP_LOST and STEP_ACHIEVED.
run_step() {
    local rate=$1 idx=$2 out sent bytes achieved unheard cpu0 cpu1 w0 w1 rc0 rc1 d0 d1
    local written lost cpu_us sys_pct=- rss notes="" u0 s0 u1 s1
    truncate_logs
    cpu0=$(cpu_ticks "$DPID"); w0=$(metric 'arclamp_log_lines_written_total{group="hourly"}')
    rc0=$(metric arclamp_log_redis_reconnects_total); d0=$(redis_drops)
    out=$("$LOADGEN" --port "$PORT" --channel "$CHANNEL" --rate "$rate" \
        --seconds "$STEP_SECONDS" --seed $((SEED + idx)) 2>/dev/null) || notes+="loadgen-error "
    sent=$(field "$out" sent); bytes=$(field "$out" bytes)
    achieved=$(field "$out" rate); unheard=$(field "$out" unheard)
    wait_flushed $((bytes + sent))
    written=$(hourly_lines); lost=$((sent - written))
    wait_metric 'arclamp_log_lines_written_total{group="hourly"}' $((w0 + written))
    if ! kill -0 "$DPID" 2>/dev/null; then DAEMON_DIED=1; notes+="DAEMON-DIED "; fi
    cpu1=$(cpu_ticks "$DPID" 2>/dev/null || echo "$cpu0"); rss=$(hwm_kb "$DPID" 2>/dev/null || echo 0)
    w1=$(metric 'arclamp_log_lines_written_total{group="hourly"}')
    rc1=$(metric arclamp_log_redis_reconnects_total); d1=$(redis_drops)
    [ $((w1 - w0)) = "$written" ] || notes+="metric=$((w1 - w0)) "
    [ "$((rc1 - rc0))" = 0 ] || notes+="reconnects=$((rc1 - rc0)) "
    [ "$((d1 - d0))" = 0 ] || notes+="redis-dropped-client "
    [ "${unheard:-0}" = 0 ] || notes+="unheard=$unheard "
    [ "$(numsub)" = 1 ] || notes+="not-subscribed "
    read -r u0 s0 <<<"$cpu0"
    read -r u1 s1 <<<"$cpu1"
    cpu_us=-
    [ "$written" -gt 0 ] && cpu_us=$(calc "($u1 + $s1 - $u0 - $s0) * 1000000 / $CLK_TCK / $written")
    [ $((u1 + s1 - u0 - s0)) -gt 0 ] && sys_pct=$(calc "100 * ($s1 - $s0) / ($u1 + $s1 - $u0 - $s0)")
    [ "$written" -gt 0 ] && [ "$lost" = 0 ] && CPU_LIST+=("$cpu_us")
    [ "$rss" -gt "$MAX_RSS_KB" ] && MAX_RSS_KB=$rss
    printf '%9s %10.0f %9s %9s %8s %10s %5.0f %7.1f  %s\n' "$rate" "$achieved" "$sent" \
        "$written" "$lost" "$cpu_us" "${sys_pct/-/0}" "$(calc "$rss / 1024")" "$notes"
    STEP_LOST=$lost
    STEP_ACHIEVED=$achieved
}

run_steps() {
    local i rate
    say ""
    say "== arclamp-log: ${STEP_SECONDS}s per rate, lines counted in hourly/*.all.log"
    print_header
    for i in "${!RATES[@]}"; do
        rate=${RATES[$i]}
        run_step "$rate" "$i"
        [ "$DAEMON_DIED" = 1 ] && { say "   the daemon died; stopping"; return; }
        if [ "$STEP_LOST" -gt 0 ]; then
            LOSS_SEEN=1
            say "   loss at $rate msg/s; stopping"
            return
        fi
        BEST_RATE=$STEP_ACHIEVED
        BEST_TARGET=$rate
        if [ "$(is "$STEP_ACHIEVED < 0.8 * $rate")" = 1 ]; then
            say "   the publisher reached only $STEP_ACHIEVED msg/s (Redis saturated); stopping"
            return
        fi
    done
}

# ---- low rates, one message at a time ----

ctx_switches() { awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$1/status"; }

# At low rates a message rarely finds another one waiting: what does each
# cost? redis-loadgen --batch 1 publishes them one by one, evenly spaced.
trickle_steps() {
    local rate out sent cpu0 cpu1 c0 c1 written
    read -r -a trickle <<<"${BENCH_TRICKLE_RATES:-1000 4000 8000}"
    [ "${#trickle[@]}" -gt 0 ] || return 0
    say ""
    say "== low rates: one message at a time (redis-loadgen --batch 1), ${TRICKLE_SECONDS}s per rate"
    printf '%9s %9s %10s %9s %12s
' rate written cpu_us/msg wakeups msgs/wakeup
    for rate in "${trickle[@]}"; do
        truncate_logs
        cpu0=$(cpu_ticks "$DPID"); c0=$(ctx_switches "$DPID")
        out=$("$LOADGEN" --port "$PORT" --channel "$CHANNEL" --rate "$rate" --batch 1 \
            --seconds "$TRICKLE_SECONDS" --seed "$SEED" 2>/dev/null) || true
        sent=$(field "$out" sent)
        wait_flushed $(($(field "$out" bytes) + sent))
        cpu1=$(cpu_ticks "$DPID"); c1=$(ctx_switches "$DPID")
        written=$(hourly_lines)
        printf '%9s %9s %10s %9s %12s\n' "$rate" "$written" \
            "$(calc "$written > 0 ? ($(sum_ticks "$cpu1") - $(sum_ticks "$cpu0")) * 1000000 / $CLK_TCK / $written : 0")" \
            $((c1 - c0)) "$(calc "$written / ($c1 - $c0 + 1)")"
    done
}

stop_daemon() {
    local rc=0 i
    kill -TERM "$DPID" 2>/dev/null || return 0
    for i in $(seq 1 100); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$DPID" 2>/dev/null; then
        say "   warning: arclamp-log did not stop within 10 s of SIGTERM"
        return 0
    fi
    wait "$DPID" || rc=$?
    [ "$rc" = 0 ] || say "   warning: arclamp-log exited with status $rc after SIGTERM"
}

# ---- optional: stream mode ----

wait_group() {
    local i
    for i in $(seq 1 100); do
        rcli XINFO GROUPS "$CHANNEL" 2>/dev/null | grep -qx arclamp-log && return 0
        sleep 0.1
    done
    return 1
}

now() { date +%s.%N; }

# XADD as fast as Redis takes it for STEP_SECONDS, then time until every line
# is written: with streams nothing is lost, the backlog waits in Redis.
stream_step() {
    local out sent bytes t0 t1 cpu0 cpu1 written notes=""
    say ""
    say "== stream mode: redis-loadgen --stream --max for ${STEP_SECONDS}s, then drain"
    rcli DEL "$CHANNEL" >/dev/null
    start_daemon stream
    wait_group || { say "   arclamp-log created no consumer group on $CHANNEL; skipped"; return 0; }
    truncate_logs
    cpu0=$(cpu_ticks "$DPID"); t0=$(now)
    out=$("$LOADGEN" --stream --port "$PORT" --channel "$CHANNEL" --max \
        --seconds "$STEP_SECONDS" --seed "$SEED" 2>/dev/null) || notes+="loadgen-error "
    sent=$(field "$out" sent); bytes=$(field "$out" bytes)
    wait_flushed $((bytes + sent)); t1=$(now)
    kill -0 "$DPID" 2>/dev/null || { DAEMON_DIED=1; notes+="DAEMON-DIED "; }
    cpu1=$(cpu_ticks "$DPID" 2>/dev/null || echo "$cpu0")
    written=$(hourly_lines)
    say "   XADD: $out"
    printf '   written %s of %s (lost %s) in %.1f s = %.0f lines/s drained; %s us CPU/msg; stream length left %s; %s\n' \
        "$written" "$sent" $((sent - written)) "$(calc "$t1 - $t0")" \
        "$(calc "$written / ($t1 - $t0)")" \
        "$(calc "$written > 0 ? ($(sum_ticks "$cpu1") - $(sum_ticks "$cpu0")) * 1000000 / $CLK_TCK / $written : 0")" \
        "$(rcli XLEN "$CHANNEL")" "$notes"
}

# ---- step c: summary ----

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# verdict OK(1|0): prints ok or MISSED.
verdict() { if [ "$1" = 1 ]; then echo "ok"; else echo "MISSED"; fi; }

MISSED=0
summary() {
    local pct med rss_mb ok_ratio ok_cpu=0 ok_rss
    CEILING=${CEILING:-0}
    pct=$(calc "$CEILING > 0 ? 100 * $BEST_RATE / $CEILING : 0")
    med=$(median "${CPU_LIST[@]}")
    rss_mb=$(calc "$MAX_RSS_KB / 1024")
    ok_ratio=$(is "$pct >= $TARGET_CEILING_PCT")
    [ "$med" = - ] || ok_cpu=$(is "$med <= $TARGET_CPU_US")
    ok_rss=$(is "$rss_mb < $TARGET_RSS_MB")
    [ "$ok_ratio$ok_cpu$ok_rss" = 111 ] || MISSED=1
    say ""
    say "== summary"
    printf 'ceiling (counting subscriber): %9.0f msg/s (the subscriber itself: %s us CPU/msg)\n' \
        "$CEILING" "$SUB_CPU"
    printf 'highest zero-loss rate:        %9.0f msg/s = %5.1f%% of ceiling   [target >= %s%%: %s] (step %s msg/s)\n' \
        "$BEST_RATE" "$pct" "$TARGET_CEILING_PCT" "$(verdict "$ok_ratio")" "$BEST_TARGET"
    [ "$LOSS_SEEN" = 1 ] || say "                               (no loss at any rate tried: a lower bound)"
    printf 'median CPU per message:        %9s us                           [target <= %s us: %s]\n' \
        "$med" "$TARGET_CPU_US" "$(verdict "$ok_cpu")"
    printf 'peak RSS (VmHWM):              %9.1f MB                           [target < %s MB: %s]\n' \
        "$rss_mb" "$TARGET_RSS_MB" "$(verdict "$ok_rss")"
    say "SUMMARY ceiling=$(printf %.0f "$CEILING") zero_loss_rate=$(printf %.0f "$BEST_RATE") ratio_pct=$pct cpu_us_median=$med rss_mb_max=$rss_mb"
}

report_daemon_log() {
    local n
    local re=' (warning|err|crit|alert|emerg) '
    n=$(grep -Ec "$re" "$TMP/daemon.log" || true)
    [ "$n" = 0 ] && return
    say ""
    say "== arclamp-log logged $n warning/error lines; the last ones:"
    grep -E "$re" "$TMP/daemon.log" | tail -n 5 || true
}

main() {
    [ -x "$DAEMON" ] || die "$DAEMON is missing: build it first (make build/bin/arclamp-log)"
    if [ ! -x "$LOADGEN" ] || [ ! -x "$SUBSCRIBER" ]; then
        die "the bench tools are missing in $BUILD/bench (make build/bench/redis-loadgen build/bench/redis-count-subscriber)"
    fi
    if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
        die "redis-server and redis-cli are needed (apt-get install redis-server)"
    fi
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/arclamp-bench.XXXXXX")
    start_redis
    say "redis-server on 127.0.0.1:$PORT; $(nproc) CPUs; trace logs in $TMP/logs"
    measure_ceiling
    start_daemon
    run_steps
    [ "$DAEMON_DIED" = 0 ] && trickle_steps
    stop_daemon
    [ "${BENCH_STREAM:-1}" = 1 ] && [ "$DAEMON_DIED" = 0 ] && { stream_step; stop_daemon; }
    summary
    report_daemon_log
    [ "$DAEMON_DIED" = 0 ] || exit 1
    [ "${BENCH_STRICT:-0}" = 1 ] && [ "$MISSED" = 1 ] && exit 2
    exit 0
}

main "$@"
