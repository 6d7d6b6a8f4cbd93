# bench/lib.sh: what bench/arclamp-svg.sh and bench/export.sh share, sourced
# by both (not run on its own): the MediaWiki-like trace logs they read
# (named, checked and made once, so that the two benches measure the same
# file), the arithmetic and median helpers of their tables, and the wait4
# measuring wrapper. One copy, so that the two benches cannot drift apart
# in how a log is made or a run is measured.
#
# The sourcing script sets ROOT (the repository) before sourcing, and
# BENCH_NAME (the prefix of die's message) and TMP (a directory of its own,
# made before write_measure; cleanup removes it) before calling these.
# shellcheck shell=bash disable=SC2034  # its settings are the sourcing scripts'

# ---- the settings both benches share ----
# (the programs, where the logs live, how they are made, the graphs' flags)
BUILD=${BUILD:-$ROOT/build}
SVG=$BUILD/bin/arclamp-svg
LOGGEN=$BUILD/bench/svg-loggen
FLOOR=$BUILD/bench/svg-floor
DATA=${BENCH_DATA:-$BUILD/bench/data}
SEED=${BENCH_SEED:-42}
DISTINCT=${BENCH_DISTINCT:-50000}
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
TITLE="MediaWiki - daily - 2026-11-22"
RENDER_FLAGS=(--minwidth=1 --fonttype=monospace --fontsize=11 --title "$TITLE")

say() { printf '%s\n' "$*"; }
die() { printf '%s: %s\n' "${BENCH_NAME:-bench}" "$*" >&2; exit 1; }

# cleanup: the EXIT trap of the sourcing script (trap cleanup EXIT).
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
    if [ -n "${TMP:-}" ] && [ -d "$TMP" ]; then
        if [ "${BENCH_KEEP:-0}" = 1 ]; then say "bench: kept $TMP"; else rm -rf "$TMP"; fi
    fi
}

# ---- helpers ----

# field LINE KEY: the value of KEY=value in a line of key=value pairs.
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -n1; }
calc() { awk "BEGIN { printf \"%.2f\", ($1) }"; }      # calc EXPR: awk arithmetic
calc0() { awk "BEGIN { printf \"%.0f\", ($1) }"; }
is() { awk "BEGIN { printf \"%d\", ($1) ? 1 : 0 }"; }  # is EXPR: 1 when true, else 0
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minmax() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }
verdict() { if [ "$1" = 1 ]; then echo "ok"; else echo "MISSED"; fi; }

# ---- the measuring wrapper ----

# write_measure: writes $TMP/measure.py, which runs a command with stdout
# and stderr to files (and, with COPIES > 0, standard input from `cat FEED`
# COPIES times; else /dev/null), waits for it with wait4 and prints the
# rusage of that process alone:
#   cpu= user= sys= rss_kb= wall= rc=
write_measure() {
    cat >"$TMP/measure.py" <<'EOF'
import os, sys, time
out, err, copies, feed, sep, *cmd = sys.argv[1:]
assert sep == "--" and cmd
copies = int(copies)
t0 = time.monotonic()
feeder = None
stdin_fd = os.open(os.devnull, os.O_RDONLY)
if copies > 0:
    os.close(stdin_fd)
    stdin_fd, w = os.pipe()
    feeder = os.posix_spawnp("cat", ["cat"] + [feed] * copies, os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, w, 1)])
    os.close(w)
o = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
e = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
try:
    pid = os.posix_spawnp(cmd[0], cmd, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, stdin_fd, 0),
                                        (os.POSIX_SPAWN_DUP2, o, 1),
                                        (os.POSIX_SPAWN_DUP2, e, 2)])
except OSError as ex:
    print(f"cpu=0 user=0 sys=0 rss_kb=0 wall=0 rc=127 error={ex.strerror.replace(' ', '_')}")
    sys.exit(0)
for fd in (stdin_fd, o, e):
    os.close(fd)
_, status, ru = os.wait4(pid, 0)
wall = time.monotonic() - t0
if feeder is not None:
    os.waitpid(feeder, 0)
rc = os.waitstatus_to_exitcode(status)
print(f"cpu={ru.ru_utime + ru.ru_stime:.3f} user={ru.ru_utime:.3f} sys={ru.ru_stime:.3f} "
      f"rss_kb={ru.ru_maxrss} wall={wall:.3f} rc={rc}")
EOF
}

# measure OUT ERR COPIES FEED -- CMD...: prints the wrapper's line.
measure() { "$PYTHON" "$TMP/measure.py" "$@"; }

# ---- the logs ----

# log_path LINES: where the LINES-line log of this seed and shape lives.
log_path() { echo "$DATA/svg-$1-s$SEED-k$DISTINCT.log"; }

# ensure_log LINES: generates the log unless it is there with the same
# generator version (its .meta file says so, and the size matches).
ensure_log() {
    local lines=$1 path meta version size want_kb free_kb
    path=$(log_path "$lines")
    meta=$path.meta
    version=$("$LOGGEN" --version)
    if [ -f "$path" ] && [ -f "$meta" ] && grep -qxF "version=$version" "$meta"; then
        size=$(stat -c %s "$path")
        if grep -qxF "size=$size" "$meta"; then
            say "   reusing $path ($(calc "$size / 1e6") MB)"
            return 0
        fi
    fi
    mkdir -p "$DATA"
    rm -f "$path" "$meta"
    want_kb=$((lines * 21 / 10 + 1024))   # about 2.1 KB a line
    free_kb=$(df -Pk "$DATA" | awk 'NR == 2 { print $4 }')
    [ "$free_kb" -gt $((want_kb + 1048576)) ] ||
        die "not enough disk space in $DATA for a $lines-line log (about $((want_kb / 1024)) MB)"
    say "   generating $path ($lines lines, seed $SEED, $DISTINCT distinct stacks)..."
    "$LOGGEN" --lines "$lines" --seed "$SEED" --distinct "$DISTINCT" --stats \
        --output "$path.tmp" 2>"$path.stats" || die "svg-loggen failed: $(cat "$path.stats")"
    mv -f "$path.tmp" "$path"
    # the .meta last, so that a cut-off run makes the log again
    { echo "version=$version"; echo "size=$(stat -c %s "$path")"; } >"$meta"
}
