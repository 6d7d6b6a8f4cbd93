"""arclamp-log in the tier2 namespace, its configuration, notify socket and metrics;
arclamp-svg and arclamp-report on its data directory."""

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from testkit import (NotifyListener, env_without_systemd, metric, metric_sum, read_metrics,
                     repo_bin)

from .procs import Proc, WAIT, tail, wait_until

HOURLY = {"period": "hourly", "format": "%Y-%m-%d_%H", "retain": 336}
DAILY = {"period": "daily", "format": "%Y-%m-%d", "retain": 45}


def arclamp_log_bin():
    return repo_bin("ARCLAMP_LOG_BIN", "build/bin/arclamp-log")


def arclamp_svg_bin():
    return repo_bin("ARCLAMP_SVG_BIN", "build/bin/arclamp-svg")


def arclamp_report_bin():
    return repo_bin("ARCLAMP_REPORT_BIN", "build/bin/arclamp-report")


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
        return metric(self.metrics(), name, **labels)

    def metric_sum(self, name):
        return metric_sum(self.metrics(), name)

    def wait_metrics_fresh(self, timeout=WAIT):
        """Wait until the metrics file is rewritten after now (it is every 0.2 s)."""
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
            now = (metric_sum(m, "arclamp_log_lines_received_total"),
                   metric_sum(m, "arclamp_log_lines_written_total"),
                   metric_sum(m, "arclamp_log_lines_invalid_total"))
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= settle:
                return m
            if time.monotonic() >= deadline:
                return m
            time.sleep(0.1)

    def wait_redis_connected(self, timeout=WAIT, describe=None):
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
        env = env_without_systemd()
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

    def reload(self):
        """SIGHUP: the daemon writes what it holds (buffers, the pending
        minutes of request tiers) and reads its configuration again;
        returns once it said READY=1 again."""
        mark = len(self.notify)
        self.proc.signal(signal.SIGHUP)
        self.notify.wait_for("RELOADING=1", start=mark, alive=self.proc.alive,
                             describe=lambda: tail(self.proc.log, 2000))
        self.notify.wait_for("READY=1", start=mark, alive=self.proc.alive,
                             describe=lambda: tail(self.proc.log, 2000))

    def events(self, name):
        """The daemon's stderr log entries of one event (`... <level> <event>: ...`)."""
        pat = re.compile(r"^\S+ \S+\[\d+\] \w+ %s: " % re.escape(name))
        return [line for line in self.proc.log_text().splitlines() if pat.match(line)]

    def generate_svgs(self):
        """arclamp-svg generate on the data directory, run inside tier2."""
        return svg_generate(self.data_dir, ns=self.ns)

    def generate_reports(self):
        """arclamp-report generate on the data directory, run inside tier2."""
        return report_generate(self.data_dir, ns=self.ns)

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


def report_generate(data_dir, ns=None, timeout=120):
    """arclamp-report generate on a data directory (inside ns when given)."""
    argv = [arclamp_report_bin(), "generate", "--data-dir", str(data_dir)]
    if ns is not None:
        argv = ns.argv(argv)
    cp = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    if cp.returncode != 0:
        raise AssertionError("arclamp-report generate: exit %d\n%s"
                             % (cp.returncode, cp.stdout.decode("utf-8", "replace")))
    return cp.stdout.decode("utf-8", "replace")
