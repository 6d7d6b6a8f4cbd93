"""Network namespaces for one test run, and running commands inside them.

Topology (nothing is added to the root namespace):

    al-<run>-hub     a bridge br0, no address; one veth end per host (v-<host>)
    al-<run>-<host>  loopback up, eth0 (the other veth end) with 10.77.0.X/24,
                     no default route: only the fleet's /24 is reachable

Names are unique per run (<run> = 6 hex digits from the pid and time), so two
runs on one machine never share a namespace; addresses may repeat between runs
because each run's namespaces are isolated from the other's.
"""

import os
import subprocess
import time

SUBNET = "10.77.0"
# One file per live run: its run id holds the pid of the process that owns it,
# so `python3 -m harness.cleanup` can tell a killed run's namespaces from a
# running one's.
RUNS_DIR = "/tmp/arclamp-it-runs"
IP = "/usr/sbin/ip" if os.path.exists("/usr/sbin/ip") else "ip"


class CommandError(Exception):
    pass


def run(argv, timeout=30, check=True, input=None, env=None):
    """Run argv (root namespace); returns CompletedProcess. Bounded by timeout."""
    try:
        cp = subprocess.run(argv, input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        raise CommandError("%s: timed out after %ss" % (" ".join(argv), timeout)) from exc
    if check and cp.returncode != 0:
        raise CommandError("%s: exit %d: %s" % (" ".join(map(str, argv)), cp.returncode,
                                                cp.stderr.decode("utf-8", "replace").strip()))
    return cp


def ip(*args, **kw):
    return run([IP] + [str(a) for a in args], **kw)


def new_run_id():
    return "%06x" % ((os.getpid() * 7919 + int(time.time() * 1000)) & 0xFFFFFF)


class Namespace:
    """One network namespace of this run."""

    def __init__(self, topo, host, address):
        self.topo = topo
        self.host = host              # short name: tier1, tier2, web1...
        self.name = "al-%s-%s" % (topo.run_id, host)
        self.address = address        # 10.77.0.X, None for the hub

    def __repr__(self):
        return "<Namespace %s %s>" % (self.name, self.address)

    def argv(self, cmd):
        """argv that runs cmd (a list) inside this namespace."""
        return [IP, "netns", "exec", self.name] + [str(c) for c in cmd]

    def run(self, cmd, timeout=30, check=True, input=None, env=None):
        """Run cmd inside the namespace and wait (bounded); returns CompletedProcess."""
        return run(self.argv(cmd), timeout=timeout, check=check, input=input, env=env)

    def popen(self, cmd, **kw):
        """Start cmd inside the namespace. `ip netns exec` execs the command
        itself, so the Popen's pid is the command's pid."""
        return subprocess.Popen(self.argv(cmd), **kw)

    def ip(self, *args, **kw):
        return ip("-n", self.name, *args, **kw)

    def pids(self):
        cp = ip("netns", "pids", self.name, check=False)
        return [int(p) for p in cp.stdout.split() if p.strip().isdigit()]


class Topology:
    """The namespaces of one run: a hub with a bridge and hosts attached to it.

    Use as a context manager, or call close(): it kills whatever still runs in
    the namespaces (processes this run started there) and deletes them."""

    def __init__(self, run_id=None):
        self.run_id = run_id or new_run_id()
        self.hub = Namespace(self, "hub", None)
        self.hosts = {}
        self._created = []
        self._next_octet = {"tier": 10, "web": 100, "other": 200}

    # -- setup
    def _add_ns(self, ns):
        ip("netns", "add", ns.name)
        self._created.append(ns)
        ns.ip("link", "set", "lo", "up")

    def start(self):
        os.makedirs(RUNS_DIR, exist_ok=True)
        with open(os.path.join(RUNS_DIR, self.run_id), "w") as f:
            f.write("%d\n" % os.getpid())
        self._add_ns(self.hub)
        self.hub.ip("link", "add", "br0", "type", "bridge")
        self.hub.ip("link", "set", "br0", "up")
        return self

    def add_host(self, host, octet=None):
        """A namespace joined to the bridge with 10.77.0.<octet>/24."""
        if octet is None:
            kind = "tier" if host.startswith("tier") else "web" if host.startswith("web") else "other"
            self._next_octet[kind] += 1
            octet = self._next_octet[kind]
        ns = Namespace(self, host, "%s.%d" % (SUBNET, octet))
        self._add_ns(ns)
        veth = "v-" + host
        if len(veth) > 15:
            raise ValueError("host name too long for an interface name: %r" % host)
        self.hub.ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns.name)
        self.hub.ip("link", "set", veth, "master", "br0", "up")
        ns.ip("addr", "add", "%s/24" % ns.address, "dev", "eth0")
        ns.ip("link", "set", "eth0", "up")
        self.hosts[host] = ns
        return ns

    def __getitem__(self, host):
        return self.hosts[host]

    # -- faults (used by later scenarios)
    def cut(self, host):
        """Detach the host's veth from the bridge: its frames go nowhere, its
        link stays up (a silent black hole, like a dead switch port)."""
        self.hub.ip("link", "set", "v-" + host, "nomaster")

    def uncut(self, host):
        self.hub.ip("link", "set", "v-" + host, "master", "br0")

    # -- teardown
    def close(self):
        errors = []
        for ns in reversed(self._created):
            for sig in (15, 9):
                pids = ns.pids()
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, sig)
                    except ProcessLookupError:
                        pass
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline and ns.pids():
                    time.sleep(0.05)
            cp = ip("netns", "del", ns.name, check=False)
            if cp.returncode != 0:
                errors.append("%s: %s" % (ns.name, cp.stderr.decode("utf-8", "replace").strip()))
        self._created = []
        try:
            os.unlink(os.path.join(RUNS_DIR, self.run_id))
        except FileNotFoundError:
            pass
        if errors:
            raise CommandError("namespace teardown: " + "; ".join(errors))

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()


def leftover_namespaces():
    """Namespaces named like ours (al-XXXXXX-...) that exist now."""
    cp = ip("netns", "list", check=False)
    names = [line.split()[0] for line in cp.stdout.decode().splitlines() if line.strip()]
    return [n for n in names if n.startswith("al-") and len(n.split("-")) >= 3]
