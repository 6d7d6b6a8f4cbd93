"""Shared fixtures for the arclamp-log integration tests.

Everything here talks to real components on this machine only: a real
redis-server bound to 127.0.0.1 on a free port, the real daemon binary
(ARCLAMP_LOG_BIN, default build/bin/arclamp-log), unix sockets in a short
per-test directory under /tmp.  Every wait is a bounded poll.
"""

import contextlib
import errno
import glob
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common" / "tests"))
# Polling, the metrics file and the notify socket are shared with the other
# suites (the tests import them from testkit too).
from testkit import WAIT, NotifyListener, env_without_systemd, repo_bin, wait_until  # noqa: E402

REDIS_SERVER = "/usr/bin/redis-server"
SOCKET_ACTIVATE = "/usr/bin/systemd-socket-activate"

# What a sample line written to a trace log must look like.
SAMPLE_RE = re.compile(rb"^[^;\s][^\n]*[^;] [1-9][0-9]*$")


def daemon_bin():
    return repo_bin("ARCLAMP_LOG_BIN", "build/bin/arclamp-log")


@pytest.fixture(scope="session")
def arclamp_bin():
    path = daemon_bin()
    if not os.access(path, os.X_OK):
        pytest.fail("daemon binary %s not found or not executable "
                    "(build it with `make build/bin/arclamp-log` or set ARCLAMP_LOG_BIN)" % path)
    return path


# --------------------------------------------------------------------------
# Ports


def free_port(kind=socket.SOCK_STREAM):
    """A port on 127.0.0.1 that was free a moment ago (found by binding port 0)."""
    with socket.socket(socket.AF_INET, kind) as s:
        if kind == socket.SOCK_STREAM:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------
# Per-test logs attached to failure reports

_LOGS = []


def register_log(name, path):
    _LOGS.append((name, str(path)))


def _tail(path, limit=6000):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        return "(unreadable: %s)" % exc
    if len(data) > limit:
        data = b"...\n" + data[-limit:]
    return data.decode("utf-8", "replace")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    del _LOGS[:]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed and rep.when in ("call", "teardown", "setup"):
        for name, path in list(_LOGS):
            rep.sections.append(("log: %s (%s)" % (name, path), _tail(path)))


# --------------------------------------------------------------------------
# Working directory (short, so unix socket paths fit in sun_path)


@pytest.fixture
def workdir():
    d = Path(tempfile.mkdtemp(prefix="al-", dir="/tmp"))
    try:
        yield d
    finally:
        shutil.rmtree(str(d), ignore_errors=True)


# --------------------------------------------------------------------------
# A tiny RESP client (binary safe)


class RedisError(Exception):
    pass


class RedisClient:
    def __init__(self, port=None, host="127.0.0.1", timeout=5.0, unix_path=None):
        if unix_path:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            self.sock.connect(str(unix_path))
        else:
            self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @staticmethod
    def encode(args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, str):
                a = a.encode("utf-8")
            elif isinstance(a, (int, float)):
                a = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def command(self, *args):
        self.sock.sendall(self.encode(args))
        return self._read()

    def pipeline(self, commands):
        """Send many commands at once, return the list of replies (errors as RedisError objects)."""
        self.sock.sendall(b"".join(self.encode(c) for c in commands))
        replies = []
        for _ in commands:
            try:
                replies.append(self._read())
            except RedisError as exc:
                replies.append(exc)
        return replies

    def _fill(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("redis closed the connection")
        self.buf += chunk

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                line, self.buf = self.buf[:i], self.buf[i + 2:]
                return line
            self._fill()

    def _exact(self, n):
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def _read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest
        if t == b"-":
            raise RedisError(rest.decode("utf-8", "replace"))
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if t == b"*":
            n = int(rest)
            if n < 0:
                return None
            return [self._read() for _ in range(n)]
        raise RedisError("unexpected RESP type %r" % line)


# --------------------------------------------------------------------------
# redis-server


class RedisServer:
    """A redis-server on 127.0.0.1 and a free port, or with unix=True on a
    unix socket only (`path`, no TCP port)."""

    def __init__(self, directory, port=None, appendonly=False, extra_args=(), password=None,
                 unix=False):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "redis.sock" if unix else None
        self.port = None if unix else port or free_port()
        self.appendonly = appendonly
        self.extra_args = list(extra_args)
        self.password = password
        self.proc = None
        self.log = self.dir / "redis.log"
        register_log("redis-server", self.log)

    def start(self):
        assert self.proc is None or self.proc.poll() is not None
        where = (["--port", "0", "--unixsocket", str(self.path), "--unixsocketperm", "700"]
                 if self.path else ["--port", str(self.port), "--bind", "127.0.0.1"])
        args = [REDIS_SERVER] + where + [
                "--save", "", "--daemonize", "no",
                "--dir", str(self.dir), "--logfile", str(self.log),
                "--protected-mode", "yes"]
        if self.appendonly:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            args += ["--appendonly", "no"]
        if self.password:
            args += ["--requirepass", self.password]
        args += self.extra_args
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self._pong, timeout=10, what="redis-server on %s to answer PING"
                   % (self.path or "port %d" % self.port))
        return self

    def _pong(self):
        if self.proc.poll() is not None:
            raise AssertionError("redis-server exited with %s" % self.proc.returncode)
        try:
            with self.client(timeout=1) as c:
                return c.command("PING") == b"PONG"
        except (OSError, RedisError):
            return False

    def kill(self):
        """SIGKILL, as a crash would."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def client(self, timeout=5.0, db=None):
        c = RedisClient(self.port, timeout=timeout, unix_path=self.path)
        if self.password:
            c.command("AUTH", self.password)
        if db:
            c.command("SELECT", db)
        return c

    def numsub(self, channel="excimer"):
        try:
            with self.client(timeout=2) as c:
                reply = c.command("PUBSUB", "NUMSUB", channel)
            return int(reply[1])
        except (OSError, RedisError):
            return -1

    def wait_subscribed(self, channel="excimer", count=1, timeout=WAIT):
        wait_until(lambda: self.numsub(channel) == count, timeout=timeout,
                   what="%d subscriber(s) on %s" % (count, channel),
                   describe=lambda: "NUMSUB=%d" % self.numsub(channel))


@contextlib.contextmanager
def redis_instance(**kw):
    """A redis-server (not started) in its own directory, always stopped and removed."""
    server = RedisServer(Path(tempfile.mkdtemp(prefix="redis-", dir="/tmp")), **kw)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(str(server.dir), ignore_errors=True)


@pytest.fixture
def redis_server():
    with redis_instance() as server:
        server.start()
        yield server


@pytest.fixture
def redis_server_aof():
    """appendonly with fsync on every write: data survives a SIGKILL and restart."""
    with redis_instance(appendonly=True) as server:
        server.start()
        yield server


# --------------------------------------------------------------------------
# YAML writer (block style; strings double-quoted JSON-style, which YAML accepts)


def to_yaml(obj, indent=0):
    pad = " " * indent
    lines = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, (dict, list)) and v:
                lines.append("%s%s:" % (pad, k))
                lines.append(to_yaml(v, indent + 2))
            else:
                lines.append("%s%s: %s" % (pad, k, _scalar(v)))
    elif isinstance(obj, list):
        for v in obj:
            if isinstance(v, dict) and v:
                sub = to_yaml(v, indent + 2).split("\n")
                sub[0] = pad + "- " + sub[0].lstrip()
                lines.extend(sub)
            elif isinstance(v, list) and v:
                lines.append(pad + "-")
                lines.append(to_yaml(v, indent + 2))
            else:
                lines.append("%s- %s" % (pad, _scalar(v)))
    else:
        lines.append(pad + _scalar(obj))
    return "\n".join(lines)


def _scalar(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, list):
        return "[]"
    return json.dumps(str(v))


HOURLY = {"period": "hourly", "format": "%Y-%m-%d_%H", "retain": 10}
DAILY = {"period": "daily", "format": "%Y-%m-%d", "retain": 10}


def base_config(workdir, redis=None, **over):
    cfg = {
        "base_path": str(workdir / "logs"),
        "log_target": "stderr",
        "flush_interval": 0.2,
        "metrics_file": str(workdir / "metrics.prom"),
        "metrics_interval": 0.2,
        "logs": [dict(HOURLY), dict(DAILY)],
    }
    if redis is not None:
        cfg["redis"] = {"host": "127.0.0.1", "port": redis.port,
                        "reconnect_max_delay": 1, "connect_timeout": 1}
        cfg["redis_channel"] = "excimer"
    cfg.update(over)
    return cfg


# --------------------------------------------------------------------------
# The daemon


_SANITIZER_MARKS = (b"ERROR: AddressSanitizer", b"ERROR: LeakSanitizer",
                    b"runtime error:", b"ERROR: UndefinedBehaviorSanitizer")


class Daemon:
    def __init__(self, binary, workdir, config, notify=True, extra_env=None,
                 argv_prefix=None, name="arclamp-log"):
        self.binary = binary
        self.workdir = Path(workdir)
        self.config_path = self.workdir / "arclamp-log.yaml"
        self.log = self.workdir / ("%s.stderr" % name)
        self.argv_prefix = list(argv_prefix or [])
        self.extra_env = dict(extra_env or {})
        self.proc = None
        self.stopped_by_test = False
        self.notify = NotifyListener(self.workdir / "notify.sock") if notify else None
        self.write_config(config)
        register_log(name + " stderr", self.log)
        register_log(name + " config", self.config_path)

    def write_config(self, config):
        text = config if isinstance(config, str) else to_yaml(config) + "\n"
        tmp = self.config_path.with_suffix(".tmp")
        tmp.write_text(text)
        os.replace(str(tmp), str(self.config_path))

    def env(self):
        env = env_without_systemd()
        if self.notify is not None:
            env["NOTIFY_SOCKET"] = self.notify.path
        env.update(self.extra_env)
        return env

    def start(self, wait_ready=True):
        assert self.proc is None or self.proc.poll() is not None, "already running"
        self.stopped_by_test = False
        start_index = len(self.notify) if self.notify else 0
        logf = open(str(self.log), "ab")
        try:
            self.proc = subprocess.Popen(self.argv_prefix + [self.binary, str(self.config_path)],
                                         stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                                         env=self.env())
        finally:
            logf.close()
        if wait_ready and self.notify is not None:
            self.wait_ready(start_index)
        return self

    def wait_ready(self, start=0, timeout=WAIT):
        return self.notify.wait_for("READY=1", start=start, timeout=timeout, alive=self.alive)

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self, timeout=WAIT):
        """SIGTERM and wait; returns the exit status."""
        self.stopped_by_test = True
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            raise AssertionError("daemon did not exit within %.1fs of SIGTERM" % timeout)

    def kill(self):
        self.stopped_by_test = True
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def wait_exit(self, timeout=WAIT):
        self.stopped_by_test = True
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            raise AssertionError("daemon did not exit within %.1fs" % timeout)

    def stderr_text(self):
        try:
            return self.log.read_bytes().decode("utf-8", "replace")
        except OSError:
            return ""

    def sanitizer_report(self):
        try:
            data = self.log.read_bytes()
        except OSError:
            return None
        for mark in _SANITIZER_MARKS:
            if mark in data:
                return mark.decode()
        return None

    def finalize(self):
        """Always called by the fixture: stop what is running, then complain about
        anything a test did not expect (unexpected death, unclean stop, sanitizer report)."""
        problems = []
        if self.proc is not None:
            rc = self.proc.poll()
            if rc is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    rc = self.proc.wait(timeout=10)
                    if rc != 0:
                        problems.append("exit status %s after SIGTERM at teardown" % rc)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=10)
                    problems.append("did not stop within 10s of SIGTERM at teardown")
            elif not self.stopped_by_test:
                problems.append("daemon died during the test with status %s" % rc)
        if self.notify is not None:
            self.notify.close()
        report = self.sanitizer_report()
        if report:
            problems.append("sanitizer report in stderr (%s)" % report)
        return problems


@pytest.fixture
def daemon_factory(arclamp_bin, workdir):
    """daemon_factory(config, **kw) -> Daemon (not started); subdir= gives
    a daemon its own directory (config, notify socket, stderr) in workdir,
    for tests that run several."""
    made = []

    def make(config, subdir=None, **kw):
        where = workdir
        if subdir:
            where = workdir / subdir
            where.mkdir(exist_ok=True)
        d = Daemon(arclamp_bin, where, config, **kw)
        made.append(d)
        return d

    yield make
    problems = []
    for d in made:
        found = d.finalize()
        if found:
            # the work dir is gone by the time the report is made: quote the log here
            problems.append("; ".join(found) + "\n--- %s (tail) ---\n%s" % (d.log, _tail(d.log, 4000)))
    if problems:
        pytest.fail("daemon teardown: " + "\n".join(problems), pytrace=False)


# --------------------------------------------------------------------------
# Trace log helpers


def log_files(base, period=None, tag=None, gz=False):
    base = str(base)
    pat = os.path.join(base, period or "*", "*.%s.log%s" % (tag or "*", ".gz" if gz else ""))
    return sorted(glob.glob(pat))


def read_lines(paths):
    """All lines of these files (a trailing partial line is returned as is)."""
    out = []
    for p in paths:
        with open(p, "rb") as f:
            data = f.read()
        if not data:
            continue
        parts = data.split(b"\n")
        if parts[-1] == b"":
            parts.pop()
        out.extend(parts)
    return out


def lines_of(base, period, tag="all"):
    return read_lines(log_files(base, period, tag))


def tags_in(base, period, bucket_re=r"\d{4}-\d{2}-\d{2}(?:_\d{2})?"):
    """{tag: [files]} of one group dir, for names <bucket>.<tag>.log."""
    out = {}
    rx = re.compile(r"^(%s)\.(.+)\.log$" % bucket_re)
    d = os.path.join(str(base), period)
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        m = rx.match(name)
        if m:
            out.setdefault(m.group(2), []).append(os.path.join(d, name))
    return out


def count_lines(base, period, tag="all"):
    try:
        return len(lines_of(base, period, tag))
    except OSError:
        return 0


# --------------------------------------------------------------------------
# Realistic sample lines

ENTRY_POINTS = [
    ("index", "/srv/mediawiki/php-1.44.0-wmf.3/index.php"),
    ("api", "/srv/mediawiki/php-1.44.0-wmf.3/api.php"),
    ("RunJobs", "/srv/mediawiki/rpc/RunJobs.php"),
    (None, "excimer_truncated"),
]

_MIDDLE = [
    "MediaWiki\\MediaWikiEntryPoint::run",
    "MediaWiki\\Actions\\ViewAction::show",
    "{closure:/srv/mediawiki/php-1.44.0-wmf.3/includes/Output/OutputPage.php(3127)}",
    "Wikimedia\\Rdbms\\Database::query",
]


def sample_line(seq, marker="s", entry=0, count=1):
    """One valid collapsed-stack line. entry indexes ENTRY_POINTS."""
    tag, first = ENTRY_POINTS[entry % len(ENTRY_POINTS)]
    frames = [first] + _MIDDLE[: 1 + seq % len(_MIDDLE)] + ["leaf_%s_%d" % (marker, seq)]
    return ("%s %d" % (";".join(frames), count)).encode()


def make_batch(n, marker="s"):
    """n distinct lines cycling through index, api, RunJobs and a non-php entry.
    Returns (lines, {tag: expected count}) where tag None means no tag file."""
    lines, per_tag = [], {}
    for i in range(n):
        lines.append(sample_line(i, marker, entry=i))
        tag = ENTRY_POINTS[i % len(ENTRY_POINTS)][0]
        per_tag[tag] = per_tag.get(tag, 0) + 1
    return lines, per_tag


def ceil_div(a, b):
    return int(math.ceil(a / float(b)))


def unix_sender(sndbuf=8 << 20):
    """A unix datagram socket able to send datagrams of a few MB."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_SNDBUFFORCE", 32), sndbuf)
    except OSError:
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        except OSError:
            pass
    s.settimeout(5)
    return s


def send_unix(path, payloads, sock=None):
    own = sock is None
    s = sock or unix_sender()
    try:
        for p in payloads:
            for _ in range(200):
                try:
                    s.sendto(p, str(path))
                    break
                except OSError as exc:
                    # the receiver queue is full for a moment: retry, bounded
                    if exc.errno in (errno.EAGAIN, errno.ENOBUFS):
                        time.sleep(0.01)
                        continue
                    raise
            else:
                raise AssertionError("could not send a datagram to %s" % path)
    finally:
        if own:
            s.close()


def send_udp(port, payloads, host="127.0.0.1"):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(fam, socket.SOCK_DGRAM) as s:
        for p in payloads:
            s.sendto(p, (host, port))
