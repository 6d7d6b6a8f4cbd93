"""bench/benchkit.py: how the Python benches measure a process's CPU time
(and where the repository and its build tree are), imported by
bench/store.py and bench/cluster.py.

Two ways, one copy each, so that the benches count CPU the same way:
  - a process we started and wait for: wait4, whose rusage is that process
    alone (user + system seconds, peak RSS), not its siblings';
  - a process that keeps running (a daemon, a Redis or Swift server):
    utime + stime from /proc/PID/stat, read before and after a step, in
    clock ticks (10 ms on Linux: coarse, so steps last seconds).
"""

import os
import subprocess
import time
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")

# The repository, and the build tree the benches measure ($BUILD, relative
# to the repository unless absolute; default build/).
ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("BUILD", "build"))
if not BUILD.is_absolute():
    BUILD = ROOT / BUILD


def proc_cpu_ticks(pid):
    """utime + stime of a running process, in clock ticks (0 once it is
    gone, so a process that died counts nothing more)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return 0
    # the command name (field 2) may hold spaces: count fields after its ")"
    fields = stat.rsplit(")", 1)[1].split()
    try:
        return int(fields[11]) + int(fields[12])
    except (IndexError, ValueError):
        return 0


def proc_cpu_seconds(pids):
    """User + system seconds the processes `pids` have used so far."""
    return sum(proc_cpu_ticks(pid) for pid in pids) / CLK_TCK


def reap(pid):
    """Waits for a child with wait4: dict rc, cpu, user, sys (seconds) and
    rss_kb of that process alone."""
    _, status, ru = os.wait4(pid, 0)
    return {"rc": os.waitstatus_to_exitcode(status), "cpu": ru.ru_utime + ru.ru_stime,
            "user": ru.ru_utime, "sys": ru.ru_stime, "rss_kb": ru.ru_maxrss}


def run_measured(cmd, out, err, cwd=None):
    """Runs cmd (stdin /dev/null, stdout and stderr to the files out and
    err) and waits for it: reap()'s dict, and wall (seconds)."""
    t0 = time.monotonic()
    o = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    e = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    devnull = os.open(os.devnull, os.O_RDONLY)
    # posix_spawn has no cwd: the child chdirs through a tiny sh when asked
    argv = (["/bin/sh", "-c", 'cd "$0" && exec "$@"', str(cwd)] + list(cmd)) if cwd else list(cmd)
    try:
        pid = os.posix_spawn(argv[0], [str(a) for a in argv], os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0),
                                           (os.POSIX_SPAWN_DUP2, o, 1),
                                           (os.POSIX_SPAWN_DUP2, e, 2)])
    finally:
        for fd in (o, e, devnull):
            os.close(fd)
    r = reap(pid)
    r["wall"] = time.monotonic() - t0
    return r


def stop(proc, grace=15):
    """Ends a process we started: SIGTERM, then SIGKILL after `grace`
    seconds; reaped either way (nothing when it has ended already)."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
