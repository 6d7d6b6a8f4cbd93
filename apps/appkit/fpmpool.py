"""A php-fpm master with one static pool serving the wiki, on a unix socket in
the test's directory, started as `php-fpm -n -c INI -y CONF` (nothing of
/etc/php reaches it) and always stopped by its owner (the fixture).

Requests go through the fleet's FastCGI client (integration-tests/harness/
fcgi.py), one connection per request. `stop()` stops the master gracefully
(SIGQUIT: workers finish their request and shut PHP down) or as systemd does
(SIGTERM: the master terminates its workers); `log_text()` is php-fpm's own
log, where a worker that crashed is "child N exited on signal 11".
"""

import signal
import threading
from pathlib import Path

from harness import fcgi
from harness.procs import Proc, tail
from testkit import wait_until

from .collector import Host
from .mediawiki import PHP_FPM

POOL_CONF = """; written by apps/appkit/fpmpool.py
[global]
pid = {d}/fpm.pid
error_log = {d}/fpm.log
daemonize = no
log_level = notice
; a graceful stop (SIGQUIT) waits this long for workers to finish
process_control_timeout = 30

[wiki]
user = root
group = root
listen = {sock}
listen.mode = 0600
pm = static
pm.max_children = {children}
catch_workers_output = yes
decorate_workers_output = no
clear_env = yes
env[PATH] = /usr/bin:/bin
env[MW_CONFIG_FILE] = {settings}
security.limit_extensions = .php
request_terminate_timeout = 120
"""


class Pool:
    def __init__(self, wiki, workdir, ini, children=2):
        self.wiki = wiki
        self.dir = Path(workdir) / "fpm"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.socket = str(self.dir / "fpm.sock")
        self.children = children
        self.conf = self.dir / "php-fpm.conf"
        self.conf.write_text(POOL_CONF.format(d=self.dir, sock=self.socket, children=children,
                                              settings=wiki.settings))
        self.fpm_log = self.dir / "fpm.log"
        argv = [PHP_FPM, "-n", "-c", str(ini), "-y", str(self.conf), "-F", "-R"]
        self.proc = Proc(Host(), "php-fpm", argv, self.dir / "fpm.stderr")
        self.served = 0                 # requests answered (any status)
        self.exit_status = None

    def start(self):
        self.proc.start()
        wait_until(lambda: Path(self.socket).exists() or self._dead(), what="php-fpm's socket")
        wait_until(lambda: "ready to handle connections" in self.log_text() or self._dead(),
                   what="php-fpm ready")
        return self

    def _dead(self):
        if not self.proc.alive():
            raise AssertionError("php-fpm exited at start:\n%s\n%s"
                                 % (tail(self.proc.log, 3000), tail(self.fpm_log, 3000)))
        return False

    def get(self, url, timeout=60.0):
        """One GET; returns harness.fcgi.Response (status 0 and the error in
        .body when the connection failed: a crashed worker closes it)."""
        try:
            r = fcgi.request(self.socket, self.wiki.cgi_params(url), timeout=timeout)
        except (OSError, fcgi.FcgiError) as exc:
            r = fcgi.Response(0, {}, ("%s: %s" % (type(exc).__name__, exc)).encode(), b"", None)
        self.served += 1
        return r

    def load(self, urls, count, concurrency=1):
        """`count` requests cycling through urls, `concurrency` at a time;
        returns [(url, Response)] in the order they were planned."""
        plan = [urls[i % len(urls)] for i in range(count)]
        out = [None] * count
        nxt = iter(range(count))
        lock = threading.Lock()

        def worker():
            while True:
                with lock:
                    i = next(nxt, None)
                if i is None:
                    return
                out[i] = (plan[i], self.get(plan[i]))

        threads = [threading.Thread(target=worker) for _ in range(concurrency)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return out

    def worker_pids(self):
        """The pool's worker processes (children of the master)."""
        try:
            with open("/proc/%d/task/%d/children" % (self.proc.pid, self.proc.pid)) as f:
                return [int(p) for p in f.read().split()]
        except OSError:
            return []

    def stop(self, sig=signal.SIGQUIT, timeout=60.0):
        """Stop the master with sig and wait for it (bounded); returns its exit status."""
        self.exit_status = self.proc.stop(timeout=timeout, sig=sig)
        return self.exit_status

    def close(self):
        if self.proc.alive():
            try:
                self.proc.stop(timeout=30, sig=signal.SIGQUIT)
            except AssertionError:
                pass

    def log_text(self):
        return tail(self.fpm_log, 1 << 20)

    def crashes(self):
        """php-fpm's lines about workers that died of a signal."""
        return [line for line in self.log_text().splitlines() if "exited on signal" in line]

    def describe(self):
        return "php-fpm log:\n%s\nstderr:\n%s" % (tail(self.fpm_log, 3000),
                                                   tail(self.proc.log, 2000))

