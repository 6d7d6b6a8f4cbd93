"""redis-server inside the tier1 namespace, and redis-cli run inside a namespace."""

import os
import re
from pathlib import Path

from .procs import Proc, wait_until

REDIS_SERVER = "/usr/bin/redis-server"
REDIS_CLI = "/usr/bin/redis-cli"


class Redis:
    """redis-server bound to its namespace's address on a non-default port.

    persist=True keeps data across a restart (AOF, fsync always): what the
    stream-mode scenarios need; the default is a cache-like server (no RDB,
    no AOF) like Arc Lamp's pub/sub Redis."""

    def __init__(self, ns, workdir, port=16379, persist=False):
        self.ns = ns
        self.host = ns.address
        self.port = port
        self.dir = Path(workdir) / "redis"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.persist = persist
        argv = [REDIS_SERVER, "--bind", self.host, "--port", str(port), "--dir", str(self.dir),
                "--daemonize", "no", "--save", "", "--protected-mode", "no",
                "--logfile", "", "--loglevel", "notice"]
        if persist:
            argv += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            argv += ["--appendonly", "no"]
        self.proc = Proc(ns, "redis-server", argv, self.dir / "redis.log")

    def start(self):
        size = os.path.getsize(self.proc.log) if os.path.exists(self.proc.log) else 0
        self.proc.start()
        # the "Ready" line of this start (the log is appended to across restarts)
        def ready():
            with open(self.proc.log, "rb") as f:
                f.seek(size)
                return b"Ready to accept connections" in f.read()
        wait_until(lambda: ready() or (not self.proc.alive() and self._died()),
                   what="redis-server ready")
        return self

    def _died(self):
        raise AssertionError("redis-server exited:\n" + self.proc.log_text()[-3000:])

    def stop(self):
        return self.proc.stop()

    def kill(self):
        self.proc.kill()

    def restart(self, downtime=0.5, kill=False):
        """Stop (SIGTERM: a clean shutdown; with persist the AOF is fsynced;
        kill=True: SIGKILL), stay down for `downtime` s, start again. Returns
        (t_down, t_up): time.monotonic() when it was gone and when it was
        ready again."""
        import time
        if kill:
            self.kill()
        else:
            self.stop()
        t_down = time.monotonic()
        time.sleep(downtime)
        self.start()
        return t_down, time.monotonic()

    def publishes_until_subscribed(self, channel="excimer", timeout=20.0):
        """After a restart: polls until `channel` has a subscriber again and
        returns how many PUBLISH commands this server executed until then
        (read in the same MULTI as the subscriber count: an upper bound of
        what was published with nobody listening, as nothing is queued for
        a subscriber that is not there)."""
        import time
        deadline = time.monotonic() + timeout
        script = "MULTI\nPUBSUB NUMSUB %s\nINFO commandstats\nEXEC\n" % channel
        while True:
            cp = self.ns.run([REDIS_CLI, "-h", self.host, "-p", str(self.port)],
                             input=script.encode(), timeout=10, check=False)
            out = cp.stdout.decode("utf-8", "replace")
            # (redis-cli prints the transaction's replies as "QUEUEDexcimer\n1\n...")
            m = re.search(r"%s\r?\n(\d+)\r?\n" % re.escape(channel), out)
            numsub = int(m.group(1)) if m else 0
            if numsub >= 1:
                m = re.search(r"cmdstat_publish:calls=(\d+)", out)
                return int(m.group(1)) if m else 0
            if time.monotonic() >= deadline:
                raise AssertionError("no subscriber on %s within %.0fs: %s" % (channel, timeout, out[-500:]))
            time.sleep(0.02)

    def stream_state(self, key="excimer", group="arclamp-log"):
        """{"length": XLEN, "pending": entries delivered to the group and not acknowledged}."""
        length = int(self.cli_raw("XLEN", key) or 0)
        pend = self.cli_raw("XPENDING", key, group).splitlines()
        return {"length": length, "pending": int(pend[0]) if pend and pend[0].isdigit() else 0}

    def url(self, channel="excimer", stream=False):
        return "redis://%s:%d/%s%s" % (self.host, self.port, channel, "?stream=1" if stream else "")

    def cli(self, *args, ns=None, timeout=10):
        """redis-cli ARGS run inside a namespace (tier1 by default, so the
        connection never leaves the fleet's network); returns stdout text."""
        ns = ns or self.ns
        cp = ns.run([REDIS_CLI, "-h", self.host, "-p", str(self.port), "--no-raw"] + list(args),
                    timeout=timeout, check=False)
        if cp.returncode != 0:
            raise AssertionError("redis-cli %s: %s" % (" ".join(args), cp.stderr.decode()))
        return cp.stdout.decode("utf-8", "replace").strip()

    def cli_raw(self, *args, ns=None, timeout=10):
        ns = ns or self.ns
        cp = ns.run([REDIS_CLI, "-h", self.host, "-p", str(self.port), "--raw"] + list(args),
                    timeout=timeout, check=False)
        if cp.returncode != 0:
            raise AssertionError("redis-cli %s: %s" % (" ".join(args), cp.stderr.decode()))
        return cp.stdout.decode("utf-8", "replace").strip()
