"""arclamp-log in the tier2 namespace, its configuration, notify socket and metrics;
arclamp-svg on its data directory."""

import json
import os
import re
import socket
import subprocess
import threading
import time
from pathlib import Path

from .procs import Proc, WAIT, tail

REPO_ROOT = Path(__file__).resolve().parents[2]

HOURLY = {"period": "hourly", "format": "%Y-%m-%d_%H", "retain": 336}
DAILY = {"period": "daily", "format": "%Y-%m-%d", "retain": 45}

_SCRUB_ENV = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS",
              "LISTEN_PID", "LISTEN_FDNAMES", "JOURNAL_STREAM", "INVOCATION_ID")


def repo_bin(env_name, default):
    p = Path(os.environ.get(env_name, default))
    if not p.is_absolute():
        p = REPO_ROOT / p
    return str(p)


def arclamp_log_bin():
    return repo_bin("ARCLAMP_LOG_BIN", "build/bin/arclamp-log")


def arclamp_svg_bin():
    return repo_bin("ARCLAMP_SVG_BIN", "build/bin/arclamp-svg")


class NotifyListener:
    """A unix datagram socket standing in for systemd's notify socket, drained
    by a thread (sd_notify blocks when the queue is full)."""

    def __init__(self, path):
        self.path = str(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.05)
        self.items = []
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
            with self._lock:
                self.items.extend(i for i in data.decode("utf-8", "replace").split("\n") if i)

    def __len__(self):
        with self._lock:
            return len(self.items)

    def wait_for(self, wanted, start=0, timeout=WAIT, alive=None, describe=None):
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                items = self.items[start:]
            for i, item in enumerate(items):
                if item == wanted or (wanted.endswith("=") and item.startswith(wanted)):
                    return start + i
            if alive is not None and not alive():
                raise AssertionError("arclamp-log exited while waiting for %r%s"
                                     % (wanted, ":\n" + describe() if describe else ""))
            if time.monotonic() >= deadline:
                raise AssertionError("no %r from arclamp-log within %.1fs%s"
                                     % (wanted, timeout, ":\n" + describe() if describe else ""))
            time.sleep(0.02)

    def close(self):
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


def redis_config(redis, mode):
    """arclamp-log's `redis:` section for the harness Redis: quick reconnects
    and health checks, so the fault scenarios fit in seconds."""
    return {"host": redis.host, "port": redis.port, "mode": mode,
            "reconnect_max_delay": 1, "connect_timeout": 1,
            "health_check_interval": 2, "stream_consumer": "tier2"}


class MetricsReader:
    """arclamp-log's Prometheus text file, read by the test: a mixin of both
    tier2 kinds (needs self.metrics_path)."""

    def metrics(self):
        return read_metrics(self.metrics_path)

    def metric(self, name, **labels):
        return self.metrics().get((name, frozenset(labels.items())), 0.0)

    def metric_sum(self, name):
        return sum(v for (n, _), v in self.metrics().items() if n == name)

    def wait_metrics_fresh(self, timeout=WAIT):
        """Wait until the metrics file is rewritten after now (it is every 0.2 s)."""
        from .procs import wait_until
        t0 = time.time()
        wait_until(lambda: os.path.exists(self.metrics_path)
                   and os.path.getmtime(self.metrics_path) > t0 + 0.01,
                   timeout=timeout, what="a fresh metrics file")
        return self.metrics()

    def wait_quiet(self, settle=1.0, timeout=WAIT):
        """Wait until lines_received and lines_written stop moving for `settle` s
        and every received line is accounted for (written or invalid)."""
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while True:
            m = self.wait_metrics_fresh(timeout=max(1.0, deadline - time.monotonic()))
            now = (_sum(m, "arclamp_log_lines_received_total"),
                   _sum(m, "arclamp_log_lines_written_total"),
                   _sum(m, "arclamp_log_lines_invalid_total"))
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= settle:
                return m
            if time.monotonic() >= deadline:
                return m
            time.sleep(0.1)

    def wait_redis_connected(self, timeout=WAIT, describe=None):
        from .procs import wait_until
        wait_until(lambda: self.metric("arclamp_log_redis_connected") == 1, timeout=timeout,
                   what="arclamp-log connected to redis", describe=describe)


class ArclampLog(MetricsReader):
    """arclamp-log with a generated configuration (written as JSON, which is YAML).

    redis: a harness Redis or None; mode: 'pubsub' or 'stream'; udp_port: a UDP
    ingest socket on the namespace's address (None: none); unix: also a unix
    ingest socket under the work dir; logs: the log groups (hourly + daily);
    over: more top-level keys.

    socket_activation: the test process holds the ingest sockets (a
    sockact.SocketHolder, as PID 1 holds arclamp-log.socket) and passes them
    with LISTEN_FDS to every start; the config then has no `listen`.
    tmpfs: a size ("1m"): base_path is a tmpfs of that size, mounted in a
    private mount namespace of the daemon (nothing is mounted in the root
    namespace; it goes away with the daemon); the test reaches the files
    through /proc/PID/root (files_root)."""

    def __init__(self, ns, workdir, redis=None, mode="pubsub", channel="excimer", udp_port=7761,
                 unix=True, logs=None, over=None, argv_prefix=None, extra_env=None,
                 socket_activation=False, tmpfs=None):
        self.ns = ns
        self.dir = Path(workdir) / "arclamp"
        self.data_dir = self.dir / "data"          # arclamp-svg's data_dir
        self.base_path = self.data_dir / "logs"    # arclamp-log's base_path
        self.base_path.mkdir(parents=True, exist_ok=True)
        self.config_path = self.dir / "arclamp-log.yaml"
        self.metrics_path = self.dir / "arclamp-log.prom"
        self.unix_path = self.dir / "ingest.sock" if unix else None
        self.udp_port = udp_port
        self.channel = channel
        self.logs = [dict(g) for g in (logs or [HOURLY, DAILY])]
        listen = []
        if udp_port:
            listen.append("udp://%s:%d" % (ns.address, udp_port))
        if self.unix_path:
            listen.append("unix://%s" % self.unix_path)
        cfg = {
            "base_path": str(self.base_path),
            "log_target": "stderr",
            "flush_interval": 0.2,
            "metrics_file": str(self.metrics_path),
            "metrics_interval": 0.2,
            "redis_channel": channel,
            "logs": self.logs,
        }
        self.holder = None
        if socket_activation and listen:
            from .sockact import SocketHolder
            self.holder = SocketHolder(ns, udp=(ns.address, udp_port) if udp_port else None,
                                       unix=self.unix_path, name=channel)
        elif listen:
            cfg["listen"] = listen
        if redis is not None:
            cfg["redis"] = redis_config(redis, mode)
        cfg.update(over or {})
        self.config = cfg
        self.write_config()
        self.notify = NotifyListener(self.dir / "notify.sock")
        env = {k: v for k, v in os.environ.items() if k not in _SCRUB_ENV}
        env["NOTIFY_SOCKET"] = self.notify.path
        argv = list(argv_prefix or []) + [arclamp_log_bin(), str(self.config_path)]
        pass_fds = ()
        if self.holder is not None:
            argv = self.holder.wrap(argv)
            pass_fds = self.holder.fds()
            env.update(self.holder.env())
        self.tmpfs = tmpfs
        if tmpfs:
            # unshare and sh exec in turn, so the daemon keeps the Popen's pid
            argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                    'mount -t tmpfs -o "size=$1,mode=0755" arclamp-it-tier2 "$2" && shift 2 '
                    '&& exec "$@"', "sh", str(tmpfs), str(self.base_path)] + argv
        env.update(extra_env or {})
        self.proc = Proc(ns, "arclamp-log", argv, self.dir / "arclamp-log.stderr", env=env,
                         pass_fds=pass_fds)

    def write_config(self):
        tmp = self.config_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.config, indent=2) + "\n")
        os.replace(str(tmp), str(self.config_path))

    def udp_target(self):
        return "udp://%s:%d" % (self.ns.address, self.udp_port)

    def unix_target(self):
        return "unix://%s" % self.unix_path

    def start(self, wait_ready=True):
        mark = len(self.notify)
        self.proc.start()
        if wait_ready:
            self.notify.wait_for("READY=1", start=mark, alive=self.proc.alive,
                                 describe=lambda: tail(self.proc.log, 2000))
            if self.config.get("redis"):
                self.wait_redis_connected()
        return self

    def wait_redis_connected(self, timeout=WAIT):
        MetricsReader.wait_redis_connected(self, timeout, describe=lambda: tail(self.proc.log, 2000))

    @property
    def files_root(self):
        """base_path as the test process sees the daemon's files: through
        /proc/PID/root when they are on the daemon's private tmpfs."""
        if not self.tmpfs:
            return self.base_path
        if not self.proc.alive():
            raise AssertionError("arclamp-log is not running: its tmpfs is gone")
        return Path("/proc/%d/root%s" % (self.proc.pid, self.base_path))

    def stop(self):
        return self.proc.stop()

    def kill(self):
        """SIGKILL (the socket holder keeps the ingest sockets, when there is one)."""
        self.proc.kill()

    def restart(self, wait_ready=True):
        return self.start(wait_ready=wait_ready)

    def events(self, name):
        """The daemon's stderr log entries of one event (`... <level> <event>: ...`)."""
        pat = re.compile(r"^\S+ \S+\[\d+\] \w+ %s: " % re.escape(name))
        return [line for line in self.proc.log_text().splitlines() if pat.match(line)]

    def generate_svgs(self):
        """arclamp-svg generate on the data directory, run inside tier2."""
        return svg_generate(self.data_dir, ns=self.ns)

    def diagnostics(self, limit=3000):
        return [("arclamp-log", tail(self.proc.log, limit))]

    def unexpected_exit(self):
        rc = self.proc.unexpected_exit()
        return None if rc is None else "arclamp-log exited with status %s" % rc

    def close(self):
        try:
            if self.proc.alive():
                self.proc.stop()
        finally:
            self.notify.close()
            if self.holder is not None:
                self.holder.close()


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
        if m:
            try:
                out[(m.group(1), frozenset(_LABEL_RE.findall(m.group(2) or "")))] = float(m.group(3))
            except ValueError:
                pass
    return out


def _sum(metrics, name):
    return sum(v for (n, _), v in metrics.items() if n == name)


def metric_sum(metrics, name, **labels):
    want = set(labels.items())
    return sum(v for (n, lab), v in metrics.items() if n == name and want <= set(lab))


def svg_generate(data_dir, ns=None, timeout=120):
    """arclamp-svg generate on a data directory (inside ns when given)."""
    argv = [arclamp_svg_bin(), "generate", "--data-dir", str(data_dir), "--config", "/dev/null"]
    if ns is not None:
        argv = ns.argv(argv)
    cp = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    if cp.returncode != 0:
        raise AssertionError("arclamp-svg generate: exit %d\n%s"
                             % (cp.returncode, cp.stdout.decode("utf-8", "replace")))
    return cp.stdout.decode("utf-8", "replace")
