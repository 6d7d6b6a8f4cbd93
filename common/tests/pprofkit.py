"""Running Go's own pprof (`go tool pprof`, Debian's golang-go) on the
profiles Arc Lamp writes, for the tests that check them with a real client.

Go is run offline, with its home, module path and build cache in a
temporary directory (nothing is fetched, nothing outside is written), and
-top's table is parsed into numbers in the unit asked for (`-unit`), so a
test compares exact values, negative ones included."""
import os
import re
import shutil
import subprocess


def go_env(home):
    """(go, environment) for running go tool pprof with its state under home
    (a directory, e.g. from tmp_path_factory)."""
    go = shutil.which("go")
    if not go:
        raise RuntimeError("go not found (Debian package golang-go, scripts/install-deps)")
    env = dict(os.environ, HOME=str(home), GOPATH=str(home / "go"), GOCACHE=str(home / "cache"),
               GOPROXY="off", GOFLAGS="", GOTOOLCHAIN="local")
    return go, env


def pprof(env, *args):
    """go tool pprof's stdout; fails the test on a non-zero exit."""
    go, environ = env
    proc = subprocess.run([go, "tool", "pprof", *map(str, args)], capture_output=True,
                          env=environ, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    return proc.stdout.decode("utf-8")


_ROW = re.compile(r"^ *(-?[\d.]+)([a-zA-Z]*) +-?[\d.]+% +-?[\d.]+% +(-?[\d.]+)([a-zA-Z]*) +-?[\d.]+%  (.*)$")


def pprof_top(env, path, sample_index=None, unit=None):
    """(table, {function: (flat, cum)}) from `-top`, every node, for one sample
    type, the numbers in `unit` (e.g. "us", "B"; None: as shown)."""
    # -nodefraction=0: no node is dropped for a small cum (default 0.5%)
    args = ["-top", "-nodecount=1000", "-nodefraction=0"]
    if sample_index:
        args.append(f"-sample_index={sample_index}")
    if unit:
        args.append(f"-unit={unit}")
    out = pprof(env, *args, path)
    rows = {}
    for line in out.split("\n"):
        m = _ROW.match(line)
        if m:
            assert m.group(5) not in rows, line
            assert unit is None or {m.group(2), m.group(4)} <= {unit, ""}, line
            rows[m.group(5)] = (float(m.group(1)), float(m.group(3)))
    return out, rows
