"""The whole simulated fleet of one test: namespaces, Redis, arclamp-log,
php-fpm web hosts, and the accounting that compares what the extensions
report as sent with what arclamp-log wrote.

    with Fleet(FleetOptions(hosts=3, transport="pubsub")) as fleet:
        fleet.load_all(count=30)
        fleet.run_jobs_all()
        acct = fleet.account()

Everything is torn down on exit, also on failure or Ctrl-C: processes are
stopped (then killed), namespaces deleted, the work directory removed
(kept when ARCLAMP_IT_KEEP=1, for debugging).
"""

import atexit
import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from . import netns
from .arclamp import ArclampLog, HOURLY, DAILY, metric_sum
from .fpm import WebHost
from .procs import WAIT, tail, wait_until
from .redis import Redis
from .tier2_nspawn import Tier2Container
from .tracelogs import TraceLogs

APP_SRC = Path(__file__).resolve().parents[1] / "app"

# A realistic request mix: page views, action API, REST API (round robin).
DEFAULT_URLS = [
    "/index.php?title=Main_Page",
    "/api.php?action=query&list=recentchanges",
    "/rest.php/v1/page/Earth",
    "/index.php?title=Special:Random",
    "/api.php?action=parse&page=Sandbox",
    "/rest.php/v1/page/Moon/history",
    "/index.php?title=Albert_Einstein",
    "/api.php?action=search&search=page+12",
    "/rest.php/v1/search/moon",
]

TRANSPORTS = ("pubsub", "stream", "udp", "unix")


@dataclasses.dataclass
class FleetOptions:
    hosts: int = 3                 # web hosts web1..webN
    transport: str = "pubsub"      # pubsub | stream | udp | unix
    children: int = 2              # php-fpm workers per host (pm static)
    period: float = 0.005          # excimer.arclamp_period
    event_type: str = "cpu"        # excimer.arclamp_event_type
    timeout: float = 0.1           # excimer.arclamp_timeout
    logs: list = None              # arclamp-log groups (default hourly + daily)
    redis: bool = None             # start Redis (default: when the transport needs it)
    redis_persist: bool = False    # AOF with fsync always (stream scenarios)
    redis_port: int = 16379
    udp_port: int = 7761
    channel: str = "excimer"
    arclamp_over: dict = None      # more arclamp-log configuration keys
    arclamp_argv_prefix: list = None
    arclamp_env: dict = None
    socket_activation: bool = False  # the harness holds arclamp-log's ingest sockets (LISTEN_FDS)
    tier2_tmpfs: str = None        # base_path on a tmpfs of this size ("1m"), private to the daemon
    fpm_ini: dict = None           # more INI settings for php-fpm
    app_dir: str = None            # a different application
    app_setup: object = None       # callable(template_dir) run after the app is built
    gen_modules: int = 24          # modules generated into the application
    per_host: dict = None          # {"web2": {"period": 60, "ini": {...}, "excimer": False, ...}}:
                                   # WebHost settings of one host (ini is merged with fpm_ini)
    tier2: str = "process"         # process: arclamp-log run by the harness in the tier2
                                   # namespace; nspawn: the .debs' units in a booted container
    tier2_lowers: list = None      # nspawn: the root's layers (tier2_nspawn.prepare_root)
    target: str = None             # excimer.arclamp_target instead of the transport's (a
                                   # Redis Cluster of the test's own; per_host ini may pin more)
    pre_start: object = None       # callable(fleet) run once the fleet's namespaces exist and
                                   # before any of its servers start: a test adds namespaces
                                   # and servers of its own that they need (a cluster)

    def __post_init__(self):
        if self.transport not in TRANSPORTS:
            raise ValueError("transport must be one of %s" % (TRANSPORTS,))
        if self.redis is None:
            self.redis = self.transport in ("pubsub", "stream")
        if self.tier2 not in ("process", "nspawn"):
            raise ValueError("tier2 must be 'process' or 'nspawn'")
        if self.tier2 == "nspawn":
            unsupported = [k for k in ("arclamp_argv_prefix", "arclamp_env", "socket_activation",
                                       "tier2_tmpfs") if getattr(self, k)]
            if self.transport == "unix":
                unsupported.append("transport unix")
            if unsupported or not self.tier2_lowers:
                raise ValueError("tier2 nspawn: needs tier2_lowers; not with %s" % unsupported)


class LoadRun:
    """Fleet.load_all running in a thread (see Fleet.start_load)."""

    def __init__(self, fleet, kw):
        self.kw = kw
        self.result = None
        self.error = None
        self.t_start = time.monotonic()
        self.thread = threading.Thread(target=self._run, args=(fleet,), name="load", daemon=True)
        self.thread.start()

    def _run(self, fleet):
        try:
            self.result = fleet.load_all(**self.kw)
        except BaseException as exc:       # re-raised by wait()
            self.error = exc

    def running(self):
        return self.thread.is_alive()

    def wait(self):
        self.thread.join(timeout=float(self.kw.get("duration", 60.0)) + 150)
        if self.thread.is_alive():
            raise AssertionError("the load did not finish")
        if self.error is not None:
            raise self.error
        return self.result


class Fleet:
    def __init__(self, opts=None, **kw):
        self.opts = opts or FleetOptions(**kw)
        self.topo = netns.Topology()
        self.run_id = self.topo.run_id
        self.workdir = Path(tempfile.mkdtemp(prefix="al-%s-" % self.run_id, dir="/tmp"))
        self.redis = None
        self.arclamp = None
        self.web = {}
        self.parts = []         # more processes of the hosts (nginx): close(), diagnostics()
        self.jobs = {}          # host -> [RunJobs reports]
        self.t_start = time.monotonic()
        self._closed = False

    # ------------------------------------------------------------------ setup
    def start(self):
        o = self.opts
        try:
            self._old_sigterm = signal.signal(signal.SIGTERM, self._on_sigterm)
        except ValueError:          # not the main thread
            self._old_sigterm = None
        atexit.register(self.close)   # a backstop (Ctrl-C, an error outside a with block)
        try:
            self.topo.start()
            tier1 = self.topo.add_host("tier1", 11)
            tier2 = self.topo.add_host("tier2", 12)
            webs = [self.topo.add_host("web%d" % i, 100 + i) for i in range(1, o.hosts + 1)]
            if o.pre_start is not None:
                o.pre_start(self)
            if o.redis:
                self.redis = Redis(tier1, self.workdir / "tier1", port=o.redis_port,
                                   persist=o.redis_persist).start()
            if o.tier2 == "nspawn":
                self.arclamp = Tier2Container(
                    tier2, self.workdir / "tier2", o.tier2_lowers, redis=self.redis,
                    mode="stream" if o.transport == "stream" else "pubsub", channel=o.channel,
                    udp_port=o.udp_port, logs=o.logs, over=o.arclamp_over)
            else:
                self.arclamp = ArclampLog(
                    tier2, self.workdir / "tier2", redis=self.redis,
                    mode="stream" if o.transport == "stream" else "pubsub", channel=o.channel,
                    udp_port=o.udp_port, unix=True, logs=o.logs or [HOURLY, DAILY],
                    over=o.arclamp_over, argv_prefix=o.arclamp_argv_prefix,
                    extra_env=o.arclamp_env, socket_activation=o.socket_activation,
                    tmpfs=o.tier2_tmpfs)
            self.arclamp.start()
            template = self._build_app()
            for ns in webs:
                app = self.workdir / ns.host / "app"
                shutil.copytree(str(template), str(app), symlinks=False)
                kw = dict(children=o.children, period=o.period, event_type=o.event_type,
                          timeout=o.timeout, ini=dict(o.fpm_ini or {}))
                own = dict((o.per_host or {}).get(ns.host, {}))
                kw["ini"].update(own.pop("ini", {}))
                kw.update(own)
                self.web[ns.host] = WebHost(ns, self.workdir, app, self.target(), **kw)
            for w in self.web.values():
                w.start()
        except BaseException:
            self.close()
            raise
        return self

    def _on_sigterm(self, signum, frame):
        self.close()
        raise SystemExit(128 + signum)

    def _build_app(self):
        src = Path(self.opts.app_dir) if self.opts.app_dir else APP_SRC
        template = self.workdir / "app-template"
        shutil.copytree(str(src), str(template),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        gen = template / "gen_modules.py"
        if gen.exists() and self.opts.gen_modules:
            subprocess.run([sys.executable, str(gen), str(template), "--modules",
                            str(self.opts.gen_modules)], check=True, stdout=subprocess.DEVNULL,
                           timeout=60)
        if self.opts.app_setup is not None:
            self.opts.app_setup(str(template))
        return template

    def target(self, transport=None):
        if transport is None and self.opts.target:
            return self.opts.target
        t = transport or self.opts.transport
        if t == "pubsub":
            return self.redis.url(self.opts.channel)
        if t == "stream":
            return self.redis.url(self.opts.channel, stream=True)
        if t == "udp":
            return self.arclamp.udp_target()
        return self.arclamp.unix_target()

    # ------------------------------------------------------------------ load
    def load_all(self, urls=None, count=30, duration=60.0, concurrency=1, hosts=None):
        """Bounded load on every web host at once (each client inside its host's
        namespace). Returns {host: result}; raises if a client failed."""
        hosts = hosts or list(self.web)
        results, errors = {}, {}

        def one(h, seed):
            try:
                results[h] = self.web[h].load(urls or DEFAULT_URLS, count=count,
                                              duration=duration, concurrency=concurrency,
                                              seed=seed)
            except BaseException as exc:    # reported below
                errors[h] = exc

        threads = [threading.Thread(target=one, args=(h, i + 1)) for i, h in enumerate(hosts)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=duration + 120)
        if errors:
            raise AssertionError("load failed: %r" % errors)
        return results

    def start_load(self, **kw):
        """load_all(**kw) in the background, for faults injected mid-load:
        returns a LoadRun; its wait() gives load_all's result."""
        return LoadRun(self, kw)

    def run_jobs_all(self, jobs=20, hosts=None):
        """The CLI job runner once on every web host (in turn)."""
        out = {}
        for h in hosts or list(self.web):
            rep = self.web[h].run_jobs(self.target(), jobs=jobs)
            self.jobs.setdefault(h, []).append(rep)
            out[h] = rep
        return out

    @staticmethod
    def latencies(results):
        return [r["latency"] for res in results.values() for r in res["requests"]]

    @staticmethod
    def requests_in(results, t_from=None, t_to=None):
        """Requests (of every host) that started at or after t_from and ended
        at or before t_to (time.monotonic() values of the test process: the
        clock is system-wide)."""
        out = []
        for res in results.values():
            for r in res["requests"]:
                start = res["t0"] + r["start"]
                end = start + r["latency"]
                if (t_from is None or start >= t_from) and (t_to is None or end <= t_to):
                    out.append(r)
        return out

    @staticmethod
    def failed_requests(results):
        return [(h, r) for h, res in results.items() for r in res["requests"] if r.get("error")]

    # ------------------------------------------------------------------ accounting
    def sent_by_host(self):
        """{host: {"sent": lines, "failed": lines, "unheard": lines, "errors": {...},
        "workers": n, "hprof_runs": runs}}: every php-fpm worker's excimer_arclamp_stats() plus the
        CLI runs ("unheard": sent lines Redis had no subscriber for)."""
        out = {}
        for h, w in self.web.items():
            acc = {"sent": 0, "failed": 0, "unheard": 0, "errors": {}, "workers": 0, "cli_sent": 0,
                   "hprof_runs": 0}
            for st in self.settled_worker_stats(w).values():
                acc["workers"] += 1
                acc["sent"] += st["sent"]
                acc["hprof_runs"] += st.get("hprof_runs", 0)
                acc["failed"] += st["failed"]
                acc["unheard"] += st["unheard"]
                for k, v in st["errors"].items():
                    acc["errors"][k] = acc["errors"].get(k, 0) + v
            for rep in self.jobs.get(h, []):
                acc["sent"] += rep["stats"]["sent"]
                acc["cli_sent"] += rep["stats"]["sent"]
                acc["failed"] += rep["stats"]["failed"]
                acc["unheard"] += rep["stats"]["unheard"]
                for k, v in rep["stats"]["errors"].items():
                    acc["errors"][k] = acc["errors"].get(k, 0) + v
            out[h] = acc
        return out

    @staticmethod
    def settled_worker_stats(web, timeout=WAIT):
        """The workers' stats once none has lines queued: the extension sends
        a worker's samples in batches, up to excimer.arclamp_send_delay (1 s)
        after the request, and counts them only then."""
        deadline = time.monotonic() + timeout
        while True:
            stats = web.worker_stats()
            if all(st.get("queued", 0) == 0 for st in stats.values()) or time.monotonic() > deadline:
                return stats
            time.sleep(0.3)

    def delivered(self):
        """Waits until no worker of any web host has lines queued (they were
        sent, or failed), then until arclamp-log is quiet."""
        for w in self.web.values():
            self.settled_worker_stats(w)
        return self.settle()

    def settle(self, expected_lines=None, timeout=WAIT):
        """Wait until arclamp-log has dealt with everything: it received
        expected_lines (when given), every group wrote or refused each line
        it received, and the counters stopped moving."""
        if expected_lines is not None:
            groups = [g["period"] for g in self.arclamp.logs]

            def done():
                m = self.arclamp.metrics()
                received = metric_sum(m, "arclamp_log_lines_received_total")
                invalid = metric_sum(m, "arclamp_log_lines_invalid_total")
                return received >= expected_lines and all(
                    metric_sum(m, "arclamp_log_lines_written_total", group=g) + invalid >= received
                    for g in groups)
            try:
                wait_until(done, timeout=timeout, what="%d lines received and written" % expected_lines)
            except AssertionError:
                pass            # the accounting reports the difference
        return self.arclamp.wait_quiet(settle=0.6, timeout=timeout)

    def account(self, lossy=False):
        """Settles, then compares sent and written. Returns a dict:
        sent_by_host, metrics, logs (TraceLogs), per_group {group: {tag: summary}}.
        lossy: lines are expected to be missing (do not wait for all of them to
        arrive, only for arclamp-log's counters to stop moving)."""
        sent = self.sent_by_host()
        total = sum(s["sent"] for s in sent.values())
        metrics = self.settle(expected_lines=None if lossy else total)
        logs = TraceLogs(self.arclamp.files_root)
        per_group = {g: {t: logs.summary(g, t) for t in logs.tags(g)} for g in logs.groups()}
        return {"sent_by_host": sent, "sent": total, "metrics": metrics, "logs": logs,
                "per_group": per_group,
                "received": int(metric_sum(metrics, "arclamp_log_lines_received_total")),
                "invalid": int(metric_sum(metrics, "arclamp_log_lines_invalid_total"))}

    def generate_svgs(self):
        """The flame graphs of tier2's logs, made on tier2 (arclamp-svg
        generate, or the packaged arclamp-svg.service)."""
        return self.arclamp.generate_svgs()

    # ------------------------------------------------------------------ teardown
    def close(self):
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        errors = []
        for w in self.parts + list(self.web.values()):
            try:
                w.close()
            except Exception as exc:
                errors.append(exc)
        for part in (self.arclamp, self.redis):
            if part is None:
                continue
            try:
                part.close() if hasattr(part, "close") else part.stop()
            except Exception as exc:
                errors.append(exc)
        try:
            self.topo.close()          # kills what is left in the namespaces, deletes them
        except Exception as exc:
            errors.append(exc)
        if getattr(self, "_old_sigterm", None) is not None:
            try:
                signal.signal(signal.SIGTERM, self._old_sigterm)
            except ValueError:
                pass
        if os.environ.get("ARCLAMP_IT_KEEP") != "1":
            shutil.rmtree(str(self.workdir), ignore_errors=True)
        if errors:
            raise errors[0]

    def diagnostics(self, limit=3000):
        """Tails of every log of the fleet, for failure reports."""
        out = []
        paths = []
        if self.redis is not None:
            paths.append(("redis", self.redis.proc.log))
        for h, w in self.web.items():
            paths += [("php-fpm %s" % h, w.dir / "fpm.log"), ("php-fpm stderr %s" % h, w.proc.log),
                      ("php errors %s" % h, w.dir / "php-errors.log")]
        for name, p in paths:
            if os.path.exists(str(p)) and os.path.getsize(str(p)):
                out.append((name, tail(p, limit)))
        for part in self.parts:
            out += part.diagnostics(limit)
        if self.arclamp is not None:
            out += self.arclamp.diagnostics(limit)
        return out

    def unexpected_exits(self):
        out = []
        procs = [w.proc for w in self.web.values()] + [p.proc for p in self.parts]
        procs += [self.redis.proc] if self.redis is not None else []
        for p in procs:
            rc = p.unexpected_exit()
            if rc is not None:
                out.append("%s exited with status %s" % (p.name, rc))
        if self.arclamp is not None and self.arclamp.unexpected_exit():
            out.append(self.arclamp.unexpected_exit())
        return out

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
