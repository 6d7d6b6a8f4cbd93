"""testkit: helpers shared by the Python test suites (arclamp-log/tests,
arclamp-svg/tests, integration-tests): where the built programs are,
bounded polling, arclamp-log's metrics file, a stand-in for systemd's
notify socket, and a reader of systemd unit files (systemd/tests, nix/tests).
Standard library only.

A suite puts this directory on sys.path (its conftest.py) and imports it:
    from testkit import wait_until, read_metrics
"""

import os
import re
import shlex
import socket
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

# Upper bound for any single wait in the suites.
WAIT = 20.0


def repo_bin(env_name, default):
    """The program named by the environment variable `env_name`, else
    `default`; relative paths are taken from the top of the repository."""
    p = Path(os.environ.get(env_name, default))
    if not p.is_absolute():
        p = REPO_ROOT / p
    return str(p)


# What systemd hands a service. A daemon a test starts must not inherit it
# from a test run that itself runs under systemd (a CI job's unit).
SYSTEMD_ENV = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS",
               "LISTEN_PID", "LISTEN_FDNAMES", "JOURNAL_STREAM", "INVOCATION_ID")


def env_without_systemd():
    """This process's environment without SYSTEMD_ENV: for a daemon to start."""
    return {k: v for k, v in os.environ.items() if k not in SYSTEMD_ENV}


# --- polling ------------------------------------------------------------------

class Timeout(AssertionError):
    pass


def wait_until(pred, timeout=WAIT, interval=0.05, what="condition", describe=None):
    """Polls pred() until it returns a truthy value, which is returned; raises
    Timeout after `timeout` s (with describe()'s text when given)."""
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            extra = ""
            if describe is not None:
                try:
                    extra = ": " + str(describe())
                except Exception as exc:  # pragma: no cover - diagnostics only
                    extra = ": (describe failed: %r)" % exc
            raise Timeout("timed out after %.1fs waiting for %s%s" % (timeout, what, extra))
        time.sleep(interval)


# --- arclamp-log's metrics file (Prometheus text format) -------------------------

_METRIC_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)')
_LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def read_metrics(path):
    """{(name, frozenset(labels.items())): value}; {} when the file is missing."""
    try:
        text = Path(path).read_text()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _METRIC_RE.match(line)
        if not m:
            continue
        labels = frozenset(_LABEL_RE.findall(m.group(2) or ""))
        try:
            out[(m.group(1), labels)] = float(m.group(3))
        except ValueError:
            pass
    return out


def metric(metrics, name, **labels):
    """Value of the series with exactly these labels; 0 when absent
    (counters start at zero)."""
    return metrics.get((name, frozenset(labels.items())), 0.0)


def metric_sum(metrics, name, **labels):
    """Sum of the series of `name` whose labels include these."""
    want = set(labels.items())
    return sum(v for (n, lab), v in metrics.items() if n == name and want <= set(lab))


# --- sd_notify ------------------------------------------------------------------

class NotifyListener:
    """A unix datagram socket standing in for systemd's notify socket.

    A thread drains it all the time: sd_notify() blocks when the socket queue
    is full, so a test that stops reading must not stall the daemon."""

    def __init__(self, path):
        self.path = str(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.05)
        self.items = []  # (monotonic time, "KEY=VALUE")
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="notify-reader", daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            now = time.monotonic()
            with self._lock:
                for item in data.decode("utf-8", "replace").split("\n"):
                    if item:
                        self.items.append((now, item))

    def close(self):
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()

    def snapshot(self):
        with self._lock:
            return list(self.items)

    def __len__(self):
        with self._lock:
            return len(self.items)

    def values(self):
        return [s for _, s in self.snapshot()]

    def find(self, pred, start=0):
        items = self.snapshot()
        for i in range(start, len(items)):
            if pred(items[i][1]):
                return i
        return None

    def wait_for(self, wanted, start=0, timeout=WAIT, alive=None, describe=None):
        """Waits for an item equal to `wanted` (or starting with it when it
        ends in '=') from index `start` on; returns its index. alive: a
        callable, fail early when it returns False; describe: more text for
        the failure."""
        if wanted.endswith("="):
            pred = lambda s: s.startswith(wanted)  # noqa: E731
        else:
            pred = lambda s: s == wanted  # noqa: E731
        more = (lambda: ":\n" + describe()) if describe else (lambda: "")
        deadline = time.monotonic() + timeout
        while True:
            i = self.find(pred, start)
            if i is not None:
                return i
            if alive is not None and not alive():
                raise AssertionError("the daemon exited while waiting for %r%s" % (wanted, more()))
            if time.monotonic() >= deadline:
                raise AssertionError("no %r from the daemon within %.1fs (after item %d); got %r%s"
                                     % (wanted, timeout, start, self.values()[-20:], more()))
            time.sleep(0.02)


# --- systemd unit files ------------------------------------------------------

def parse_unit(text):
    """A unit file's text -> {(section, key): [values]}, as systemd.syntax(7)
    reads it: a key may repeat (ListenDatagram=, ExecStart= of a oneshot), an
    empty assignment resets the list, comments (also inside a continued line)
    are skipped and a trailing backslash continues the line."""
    res, section, pending = {}, None, ""
    for raw in text.splitlines():
        s = raw.strip()
        if (not pending and not s) or (s and s[0] in "#;"):
            continue
        line, pending = pending + s, ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        key, eq, value = line.partition("=")
        if not (eq and section):
            raise ValueError(f"not a unit file line: {raw!r}")
        vals = res.setdefault((section, key.strip()), [])
        if value.strip() == "":
            vals.clear()
        else:
            vals.append(value.strip())
    return res


def unit_values(unit, section, key):
    """The values of `key` in `section` of a parse_unit() result, in order."""
    return unit.get((section, key), [])


def exec_argv(cmd):
    """An Exec*= command line -> argv, systemd's prefixes (-@:+!) removed."""
    argv = shlex.split(cmd)
    argv[0] = argv[0].lstrip("-@:+!")
    return argv
