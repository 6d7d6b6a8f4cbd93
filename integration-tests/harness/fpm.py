"""php-fpm with the excimer extension in one web host's namespace, and the
load client / CLI job runner run inside that namespace."""

import json
import os
import re
import sys
import time
from pathlib import Path

from testkit import repo_bin

from .procs import Proc, tail, wait_until

HARNESS_PARENT = str(Path(__file__).resolve().parents[1])   # integration-tests/
PHP_FPM = "/usr/sbin/php-fpm8.2"
PHP_CLI = "/usr/bin/php8.2" if os.path.exists("/usr/bin/php8.2") else "/usr/bin/php"
PHP_EXT_DIR = "/usr/lib/php/20220829"


def excimer_so():
    return repo_bin("EXCIMER_SO", "build/php/excimer.so")


def ini_value(v):
    """An INI value as php -d and PHP_ADMIN_VALUE take it: quoted unless plain."""
    v = str(v)
    if re.fullmatch(r"[A-Za-z0-9_./:+-]*", v):
        return v
    # an INI string: '=', '?', '&' etc. are not allowed unquoted
    if '"' in v or "\n" in v:
        raise ValueError("cannot pass INI value %r" % v)
    return '"%s"' % v


def api_module_so(name):
    """The built API module `name` (xhprof, tideways_xhprof, uprofiler)."""
    return os.path.join(os.path.dirname(excimer_so()), name + ".so")


def php_ini_pairs(extra=None, opcache=True, excimer=True, modules=()):
    """The harness's INI settings, in order: only our excimer module is
    loaded, then the API modules named in `modules` (they need excimer's
    symbols, so they come after it); excimer=False: not even excimer (a
    baseline), and no excimer.* settings."""
    ini = {"display_errors": "0", "log_errors": "1",
           "memory_limit": "256M", "max_execution_time": "60"}
    if excimer:
        ini["extension"] = excimer_so()
    else:
        extra = {k: v for k, v in (extra or {}).items() if not k.startswith("excimer.")}
        assert not modules, "the API modules need excimer"
    if opcache:
        ini.update({"zend_extension": os.path.join(PHP_EXT_DIR, "opcache.so"),
                    "opcache.enable": "1", "opcache.enable_cli": "1",
                    "opcache.validate_timestamps": "0"})
    ini.update(extra or {})
    pairs = list(ini.items())
    at = [k for k, _ in pairs].index("extension") + 1 if excimer else 0
    pairs[at:at] = [("extension", api_module_so(m)) for m in modules]
    return pairs


def php_ini_args(extra=None, opcache=True, excimer=True, modules=()):
    """-n and -d flags of php_ini_pairs(): -n, since Debian's php-excimer
    enables itself for every SAPI through conf.d, which -n skips."""
    args = ["-n"]
    for k, v in php_ini_pairs(extra, opcache, excimer, modules):
        args += ["-d", "%s=%s" % (k, ini_value(v))]
    return args


def php_ini_text(extra=None, opcache=True, excimer=True, modules=()):
    """The same settings as a php.ini file (for a php-fpm that also reads a
    scan directory: -n would skip it)."""
    return "".join("%s = %s\n" % (k, ini_value(v))
                   for k, v in php_ini_pairs(extra, opcache, excimer, modules))


def run_client(ns, workdir, mode, spec, timeout):
    """python3 -m harness.fcgi MODE with spec (written to workdir), inside
    namespace ns; returns its JSON answer."""
    spec_path = Path(workdir) / ("%s-%d.json" % (mode, time.monotonic_ns()))
    spec_path.write_text(json.dumps(spec))
    cp = ns.run([sys.executable, "-m", "harness.fcgi", mode, str(spec_path)],
                timeout=timeout, check=False, env=load_env())
    if cp.returncode != 0:
        raise AssertionError("%s client in %s: exit %d\n%s" % (
            mode, ns.host, cp.returncode, cp.stderr.decode("utf-8", "replace")[-3000:]))
    return json.loads(cp.stdout.decode())


def load_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LISTEN_", "NOTIFY_"))}
    env["PYTHONPATH"] = HARNESS_PARENT
    return env


class WebHost:
    """php-fpm (pm static, `children` workers) serving the app from
    <workdir>/<host>/app, with zero-code collection to `target`.

    modules: API modules loaded after excimer (["xhprof"]). fpm_conf: a
    callable(WebHost) giving the php-fpm.conf text instead of the harness's
    own (its pool must listen on .socket with `children` workers). scan_dir:
    ini files read after the harness's settings (PHP_INI_SCAN_DIR), which
    then go into a php.ini (-c) instead of -n -d, as a php-fpm that reads
    conf.d after php.ini. opcache=False: opcache not loaded."""

    def __init__(self, ns, workdir, app_dir, target, children=2, period=0.005,
                 event_type="cpu", timeout=0.1, ini=None, excimer=True, name=None,
                 modules=(), fpm_conf=None, scan_dir=None, opcache=True):
        self.ns = ns
        self.host = name or ns.host      # name: a second pool on the same host (web1-b)
        self.dir = Path(workdir) / self.host
        self.dir.mkdir(parents=True, exist_ok=True)
        self.app_dir = Path(app_dir)
        self.docroot = str(self.app_dir / "public")
        self.socket = str(self.dir / "fpm.sock")
        self.children = children
        self.target = target
        self.period = period
        self.event_type = event_type
        self.timeout = timeout
        self.ini = {"excimer.arclamp_target": target,
                    "excimer.arclamp_period": repr(float(period)),
                    "excimer.arclamp_event_type": event_type,
                    "excimer.arclamp_timeout": repr(float(timeout)),
                    "error_log": str(self.dir / "php-errors.log")}
        self.ini.update(ini or {})
        self.excimer = excimer
        self.modules = tuple(modules)
        conf = self.dir / "php-fpm.conf"
        conf.write_text(fpm_conf(self) if fpm_conf else """[global]
pid = {d}/fpm.pid
error_log = {d}/fpm.log
daemonize = no
log_level = notice

[app]
user = root
group = root
listen = {sock}
listen.mode = 0600
pm = static
pm.max_children = {children}
catch_workers_output = yes
decorate_workers_output = no
clear_env = yes
security.limit_extensions = .php
request_terminate_timeout = 60
""".format(d=self.dir, sock=self.socket, children=children))
        argv = [PHP_FPM, "-F", "-O", "-R", "-y", str(conf)]
        env = None
        if scan_dir is None:
            argv += php_ini_args(self.ini, opcache=opcache, excimer=excimer, modules=self.modules)
        else:
            php_ini = self.dir / "php.ini"
            php_ini.write_text(php_ini_text(self.ini, opcache=opcache, excimer=excimer,
                                            modules=self.modules))
            argv += ["-c", str(php_ini)]
            env = dict(load_env(), PHP_INI_SCAN_DIR=str(scan_dir))
        self.proc = Proc(ns, "php-fpm@" + self.host, argv, self.dir / "fpm.stderr", env=env)
        self.loads = []       # every load result, in order

    def start(self):
        self.proc.start()
        wait_until(lambda: os.path.exists(self.socket) or self._check_alive(),
                   what="php-fpm socket on " + self.host)
        self.proc.wait_log("ready to handle connections")
        text = self.proc.log_text()
        if "PHP:" in text or "PHP Warning" in text or "PHP Fatal" in text:
            raise AssertionError("php-fpm on %s complained at start:\n%s" % (self.host, text[-3000:]))
        return self

    def _check_alive(self):
        if not self.proc.alive():
            raise AssertionError("php-fpm on %s exited:\n%s\n%s" % (
                self.host, tail(self.proc.log, 3000), tail(self.dir / "fpm.log", 3000)))
        return False

    def stop(self):
        # SIGQUIT: graceful (workers finish their request: its samples are sent)
        return self.proc.stop(sig=3)

    def close(self):
        if self.proc.alive():
            try:
                self.proc.stop(sig=3)
            except AssertionError:
                pass

    def php_errors(self):
        return tail(self.dir / "php-errors.log", 20000) if (self.dir / "php-errors.log").exists() else ""

    # -- clients, run inside this host's namespace
    def _run_client(self, mode, spec, timeout):
        return run_client(self.ns, self.dir, mode, spec, timeout)

    def load(self, urls, count=30, duration=30.0, concurrency=1, seed=1, timeout=10.0,
             params=None, keep_body=False):
        """Bounded load: at most `count` requests within `duration` seconds."""
        spec = {"socket": self.socket, "docroot": self.docroot, "urls": list(urls),
                "count": count, "duration": duration, "concurrency": concurrency,
                "seed": seed, "timeout": timeout, "params": params or {},
                "keep_body": keep_body}
        res = self._run_client("load", spec, timeout=duration + timeout + 30)
        res["host"] = self.host
        self.loads.append(res)
        return res

    def variant(self, name, ini):
        """This pool with other INI settings for some requests: they carry
        them as PHP_ADMIN_VALUE, which php-fpm applies before the request
        starts (and keeps for the worker's later requests, so every variant
        of a comparison must set the same keys). Requests of several variants
        then run in the same worker processes: a comparison between them is
        free of what differs from one process to another."""
        return PoolVariant(self, name, ini)

    def interleave(self, targets, urls, rounds, timeout=10.0, seed=0):
        """Sequential requests to several pools (WebHosts of this namespace,
        or variants of them), interleaved request by request: for every round
        and url, one request to each target, in a random order (seeded).
        Returns [{"target", "url", "round", "latency", "cpu", "cpu_all", ...}]:
        the CPU time of the target's workers during the request, and until
        its next request (see harness.fcgi)."""
        spec = {"targets": [{"name": t.host, "socket": t.socket, "docroot": t.docroot,
                             "pids": sorted(t.worker_stats()),
                             "params": getattr(t, "params", None)} for t in targets],
                "urls": list(urls), "rounds": rounds, "timeout": timeout, "seed": seed}
        res = self._run_client("interleave", spec,
                               timeout=rounds * len(urls) * len(targets) * timeout + 30)
        return res["requests"]

    def worker_stats(self, hold=0.4, attempts=3, params=None, field="stats"):
        """excimer_arclamp_stats() of every worker: {pid: stats}. Exact totals
        because every worker answers and the stats requests take no samples
        (see harness.fcgi.run_stats); the workers go on sampling afterwards.
        field="tiers": each worker's excimer_tiers_status() instead."""
        last = None
        for _ in range(attempts):
            res = self._run_client("stats", {"socket": self.socket, "docroot": self.docroot,
                                             "workers": self.children, "hold": hold,
                                             "params": params}, timeout=30)
            answers = res["workers"]
            bad = [a for a in answers if "error" in a]
            pids = {a["pid"]: a for a in answers if "pid" in a}
            if not bad and len(pids) == self.children:
                for a in pids.values():
                    assert a["collecting"] is False, "stats request with collection on: %r" % a
                return {pid: a[field] for pid, a in pids.items()}
            last = answers
            hold *= 2
        raise AssertionError("could not reach every worker of %s: %r" % (self.host, last))

    def run_jobs(self, target, jobs=10, period=None, timeout=60):
        """The CLI job runner (maintenance/RunJobs.php) inside this namespace:
        it profiles itself with ExcimerProfiler and sends through
        excimer_arclamp_send(); returns its JSON report (stats included)."""
        argv = [PHP_CLI] + php_ini_args({"error_log": str(self.dir / "php-errors.log")}) + [
            str(self.app_dir / "maintenance" / "RunJobs.php"), "--jobs", str(jobs),
            "--target", target, "--period", repr(float(period or self.period))]
        cp = self.ns.run(argv, timeout=timeout, check=False, env=load_env())
        if cp.returncode != 0:
            raise AssertionError("RunJobs.php on %s: exit %d\n%s\n%s" % (
                self.host, cp.returncode, cp.stdout.decode("utf-8", "replace")[-2000:],
                cp.stderr.decode("utf-8", "replace")[-2000:]))
        return json.loads(cp.stdout.decode().strip().splitlines()[-1])


class PoolVariant:
    """One WebHost's workers, with INI settings passed per request (see
    WebHost.variant)."""

    def __init__(self, web, name, ini):
        self.web = web
        self.host = name
        self.socket = web.socket
        self.docroot = web.docroot
        self.params = {"PHP_ADMIN_VALUE": "\n".join('%s="%s"' % kv for kv in ini.items())}

    def worker_stats(self):
        # stats.php skips its own collection; the variants' requests set the
        # target themselves, so the empty one left behind here does no harm.
        return self.web.worker_stats(params={"PHP_ADMIN_VALUE": 'excimer.arclamp_target=""'})
