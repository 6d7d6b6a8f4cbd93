"""tier2 as a booted Debian system: arclamp-log and arclamp-svg installed
from the .debs (`make deb`) and run by their packaged systemd units, with
systemd as PID 1 of a systemd-nspawn container that lives in the fleet's
tier2 network namespace.

    lowers = prepare_root(workdir)            # once per test session
    t2 = Tier2Container(ns, workdir, lowers, redis=redis)
    t2.start()                                # boots, waits for READY and Redis
    ...
    t2.close()

prepare_root() takes the debootstrapped base (shared with the system test,
see systemd/tests/container.py) and apt-installs the two packages into an
overlay of it with the host's network, not booted, the only step that
reaches the Debian mirror. Each fleet then boots its own overlay on top of
that prepared layer, joined to its tier2 namespace; the harness writes the
operator's part (the configuration and drop-ins for network ingest and the
Redis host) into that overlay before the boot and reads the trace logs and
metrics file through it. Commands inside run with nsenter (container.py).
"""

import json
import sys
import time
from pathlib import Path

from testkit import REPO_ROOT

from .arclamp import DAILY, HOURLY, MetricsReader, redis_config
from .procs import WAIT, tail

sys.path.insert(0, str(REPO_ROOT / "systemd" / "tests"))
import container as ct  # noqa: E402
import debs  # noqa: E402

unmount_below = ct.unmount_below     # for harness.cleanup and the session fixture

PACKAGES = ["arclamp-log", "arclamp-svg"]
DATA = "/var/lib/arclamp"
SERVICE = "arclamp-log.service"

# The drop-in systemd/arclamp-log.socket documents for accepting samples from
# the network, with the fleet's subnet for the operator's 10.0.0.0/8. The
# packaged socket has no UDP port at all (only the unix socket, for the group
# arclamp-senders): this drop-in is what opens one.
SOCKET_DROPIN = """\
[Socket]
ListenDatagram=0.0.0.0:{port}
IPAddressDeny=any
IPAddressAllow=localhost {subnet}
"""

# arclamp-log.service reaches only localhost unless told (IPAddressAllow=).
SERVICE_DROPIN = """\
[Service]
IPAddressAllow={redis_host}
"""


def prepare_root(workdir, timings=None):
    """The lower layers of every tier2 container of this session: [the
    installed packages, the base root]. workdir must outlive them."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    base = ct.shared_base_root(ct.BASE_PACKAGES, private_dir=str(workdir),
                               log=str(workdir / "debootstrap.log"))
    if timings is not None:
        timings["tier2 base root (debootstrap, or reuse)"] = time.monotonic() - t0
    debdir = workdir / "debs"
    names = debs.ensure_debs(PACKAGES, str(debdir), workdir / "make-deb.log", timings)
    t0 = time.monotonic()
    ov = ct.Overlay([base], str(workdir / "prepared")).mount()
    try:
        ct.run_in_root(ov.root, ["sh", "-c", 'apt-get -q update && apt-get -q install -y '
                                 '--no-install-recommends "$@" && apt-get clean', "sh"]
                       + ["/debs/" + n for n in names.values()],
                       timeout=900, network="host", binds_ro={str(debdir): "/debs"},
                       log=str(workdir / "apt-install.log"))
    finally:
        ov.unmount()
    if timings is not None:
        timings["tier2 packages installed"] = time.monotonic() - t0
    return [ov.upper, base]


class Tier2Container(MetricsReader):
    """arclamp-log and arclamp-svg under their own units in a container in
    the tier2 namespace `ns`. Same interface as harness.arclamp.ArclampLog
    where the fleet needs it (logs, metrics, files_root, data_dir, targets,
    generate_svgs, diagnostics, close); the faults are systemd's to handle
    (kill_daemon: SIGKILL, Restart=on-failure, the socket held by PID 1)."""

    def __init__(self, ns, workdir, lowers, redis=None, mode="pubsub", channel="excimer",
                 udp_port=7761, logs=None, over=None):
        self.ns = ns
        self.dir = Path(workdir) / "tier2-nspawn"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.overlay = ct.Overlay(lowers, str(self.dir / "overlay"))
        self.root = Path(self.overlay.root)
        self.data_dir = self.root / DATA.lstrip("/")      # arclamp-svg's data_dir, seen from here
        self.base_path = self.data_dir / "logs"
        self.files_root = self.base_path
        self.metrics_path = self.data_dir / "arclamp-log.prom"
        self.udp_port = udp_port
        self.channel = channel
        self.redis = redis
        self.logs = [dict(g) for g in (logs or [HOURLY, DAILY])]
        cfg = {
            "base_path": DATA + "/logs",
            "flush_interval": 0.2,
            "metrics_file": DATA + "/arclamp-log.prom",
            "metrics_interval": 0.2,
            "redis_channel": channel,
            "logs": self.logs,
        }
        if redis is not None:
            cfg["redis"] = redis_config(redis, mode)
        cfg.update(over or {})
        self.config = cfg
        self.container = None
        self._closing = False

    # -- life cycle
    def start(self):
        self.overlay.mount()
        self._write("etc/arclamp/arclamp-log.yaml", json.dumps(self.config, indent=2) + "\n")
        subnet = self.ns.address.rsplit(".", 1)[0] + ".0/24"
        self._write("etc/systemd/system/arclamp-log.socket.d/network.conf",
                    SOCKET_DROPIN.format(port=self.udp_port, subnet=subnet))
        if self.redis is not None:
            self._write("etc/systemd/system/arclamp-log.service.d/redis.conf",
                        SERVICE_DROPIN.format(redis_host=self.redis.host))
        self.container = ct.Container(str(self.root), machine=self.ns.name,
                                      network="netns:/run/netns/" + self.ns.name,
                                      console_log=str(self.dir / "console.log"), deadline=900)
        self.container.boot()
        state = self.container.wait_running(timeout=120)
        if state != "running":
            raise AssertionError("tier2 booted %s: failed units: %s"
                                 % (state, self.container.failed_units()))
        if self.redis is not None:
            # Nothing arrives on the sockets before the first sample: start
            # the daemon so it subscribes (as `systemctl enable --now` would).
            self.exec(["systemctl", "start", SERVICE], timeout=60)
            self.wait_redis_connected(describe=lambda: self.journal(SERVICE, lines=30))
        return self

    def _write(self, rel, text):
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def close(self):
        self._closing = True
        try:
            if self.container is not None:
                self.container.close()
        finally:
            self.overlay.unmount()

    # -- inside the container
    def exec(self, cmd, timeout=60, check=True):
        return self.container.exec(cmd, timeout=timeout, check=check)

    def service(self, unit=SERVICE):
        return self.container.show(unit, "ActiveState", "SubState", "MainPID", "NRestarts",
                                   "Result", "WatchdogUSec", "ExecMainStatus")

    def journal(self, unit, lines=50):
        return self.exec(["journalctl", "--no-pager", "-o", "short-monotonic", "-n", str(lines),
                          "-u", unit], timeout=30, check=False).stdout

    def ip_filter_enforced(self, host, port):
        """Whether systemd enforces IPAddressDeny= here: a transient unit with
        the packaged service's filter (localhost only) tries to connect to
        host:port. Not everywhere: it needs cgroup BPF, which a container on
        a host with a hybrid cgroup layout may not get."""
        probe = ("import socket, sys\n"
                 "socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2).close()")

        def connects(*props):
            argv = ["systemd-run", "--quiet", "--wait", "--pipe"]
            for p in props:
                argv += ["-p", p]
            return self.exec(argv + ["python3", "-c", probe, host, str(port)], timeout=30,
                             check=False).returncode == 0
        if not connects():
            raise AssertionError("the probe cannot reach %s:%s even without a filter" % (host, port))
        return not connects("IPAddressDeny=any", "IPAddressAllow=localhost")

    def kill_daemon(self):
        """SIGKILL arclamp-log the way a crash would; returns the killed
        MainPID. systemd restarts it (Restart=on-failure) and keeps the
        sockets meanwhile."""
        pid = int(self.service()["MainPID"])
        assert pid > 0, "arclamp-log is not running"
        self.exec(["systemctl", "kill", "--signal=SIGKILL", SERVICE], timeout=30)
        return pid

    def wait_service_running(self, other_than=None, timeout=WAIT):
        """Waits until arclamp-log is active (READY sent) with a MainPID other
        than `other_than`; returns its state."""
        deadline = time.monotonic() + timeout
        while True:
            st = self.service()
            if st["ActiveState"] == "active" and st["SubState"] == "running" \
                    and st["MainPID"] not in ("0", str(other_than)):
                return st
            if time.monotonic() > deadline:
                raise AssertionError("arclamp-log not running again within %.0f s: %r\n%s"
                                     % (timeout, st, self.journal(SERVICE)))
            time.sleep(0.1)

    # -- what the fleet uses
    def udp_target(self):
        return "udp://%s:%d" % (self.ns.address, self.udp_port)

    def unix_target(self):
        raise ValueError("the container's unix ingest socket is not reachable from the web hosts")

    def generate_svgs(self):
        """The packaged graph job: `systemctl start arclamp-svg.service`
        (a oneshot: returns when it is done). Returns its journal."""
        r = self.exec(["systemctl", "start", "arclamp-svg.service"], timeout=300, check=False)
        st = self.service("arclamp-svg.service")
        out = self.journal("arclamp-svg.service", lines=100)
        if r.returncode != 0 or st["Result"] != "success":
            raise AssertionError("arclamp-svg.service: exit %d, %r\n%s%s"
                                 % (r.returncode, st, r.stderr, out))
        return out

    def diagnostics(self, limit=3000):
        out = [("tier2 console", tail(self.dir / "console.log", limit))]
        if self.container is not None and self.container.running():
            for unit in (SERVICE, "arclamp-log.socket", "arclamp-svg.service"):
                out.append(("tier2 journal %s" % unit, self.journal(unit)[-limit:]))
        return out

    def unexpected_exit(self):
        if self.container is None or self._closing or self.container.running():
            return None
        return "the tier2 container ended (nspawn exit status %s)" % self.container.returncode
