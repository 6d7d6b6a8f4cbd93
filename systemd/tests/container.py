"""container: build, boot, enter and stop Debian system containers for tests.

A small library (no pytest in it) used by systemd/tests/test_system.py and
meant for other suites that need real systemd as PID 1 (integration-tests'
"tier2 in nspawn"). Everything needs root, `debootstrap` and
`systemd-nspawn` (Debian package `systemd-container`), and `nsenter`
(util-linux).

    import container as ct

    base = ct.debootstrap("/var/tmp/x/base", include=ct.BASE_PACKAGES)
    with ct.Overlay([base], "/var/tmp/x/ov") as ov:          # a writable copy
        ct.run_in_root(ov.root, ["apt-get", "update"], timeout=300)  # host network
        with ct.Container(ov.root, binds_ro={"/host/debs": "/debs"}) as c:
            c.boot()                                          # --private-network
            c.wait_running(timeout=120)                       # 'running' or 'degraded'
            print(c.exec("systemctl is-active dbus").stdout)
            code, failed = c.stop_with_verdict()              # 0: no failed unit
    # the container is stopped and its cgroups removed on leaving the block,
    # whatever happened; the overlay is unmounted.

The mirror: `host_debian_sources()` reads this machine's apt configuration at
run time (`apt-get indextargets`) and returns the Debian archives it uses
(main, -updates, -security of the host's release); `debootstrap()` takes the
main one, `write_apt_sources()` writes all of them into a root. No host name
is written anywhere in the tree.

How a container runs here (what was found on a host without systemd as
PID 1, a hybrid cgroup v1/v2 layout, systemd 252):
- `systemd-nspawn --boot --register=no --keep-unit`: no machined and no host
  manager to create a scope, so nspawn uses the cgroup it was started in.
  Started from a shell in the root cgroup it would put the container's
  `payload/` (and systemd would put its slices) at the top of the host's
  hierarchies, where a second container would collide. So every nspawn is
  first moved into its own cgroup, `<hierarchy>/arclamp-nspawn-<machine>`,
  in the named `systemd` v1 hierarchy and in the v2 (unified) one, and those
  are removed after it exits. On a host whose PID 1 is systemd, nspawn is run
  without `--keep-unit` and asks the host manager for a scope instead (not
  exercised on the CI machine, which has no systemd).
- Entering a booted container: `nsenter` into every namespace of its PID 1
  (mount, UTS, IPC, network, PID, cgroup; root and working directory), with a
  clean environment. There is no machined, so `machinectl shell` and
  `systemd-run --machine` do not work. Commands run this way are not in a
  unit of the container: use `systemctl` / `systemd-run` inside for that.
- Booted: `systemctl is-system-running --wait` inside, retried until the
  manager answers.
- Stopping: `systemctl poweroff` or `systemctl exit CODE` inside (nspawn then
  exits with CODE), else SIGTERM to nspawn (a clean halt), else SIGKILL to
  the container's PID 1, which ends its whole PID namespace.
- Every boot also gets a deadline unit (`nspawn-deadline.service`): if the
  harness dies without stopping the container, the container ends itself
  after `deadline` seconds with exit status 124.

Run `python3 container.py --help` for a command line (debootstrap a root,
boot one and get a shell), handy when writing tests.
"""

import errno
import fcntl
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

__all__ = [
    "BASE_PACKAGES", "ContainerError", "host_codename", "host_debian_sources", "apt_proxy_env",
    "debootstrap", "shared_base_root", "write_apt_sources", "Overlay", "unmount_below", "run_in_root", "Container", "host_has_systemd",
]

# What the system test needs in the root besides minbase: systemd as init,
# D-Bus, ss (iproute2), pgrep (procps) and a python3 to send datagrams.
BASE_PACKAGES = ("systemd", "systemd-sysv", "dbus", "iproute2", "procps", "python3-minimal")

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
EXEC_ENV = {
    "PATH": PATH, "LANG": "C.UTF-8", "HOME": "/root", "TERM": "dumb",
    "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0", "SYSTEMD_LESS": "", "DEBIAN_FRONTEND": "noninteractive",
}


# Every namespace of the container's PID 1 but the user namespace (nspawn
# runs without one here), and its root and working directory.
NSENTER_FLAGS = ["--mount", "--uts", "--ipc", "--net", "--pid", "--cgroup", "--root", "--wd"]


class ContainerError(RuntimeError):
    pass


def _log(msg):
    sys.stderr.write(f"[container {time.strftime('%H:%M:%S')}] {msg}\n")
    sys.stderr.flush()


def _run(argv, timeout, log=None, env=None, check=True, nice=False):
    """Runs a host command with a time limit, killing its whole process group
    when it is exceeded. Output goes to `log` (a path, appended) or is
    captured and returned."""
    if nice:
        argv = ["nice", "-n", "10", "ionice", "-c", "2", "-n", "7"] + list(argv)
    out = open(log, "ab") if log else subprocess.PIPE
    try:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             env=env, start_new_session=True)
        try:
            stdout, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _killpg(p)
            raise ContainerError(f"timed out after {timeout} s: {shlex.join(argv)}"
                                 + (f" (log: {log})" if log else ""))
    finally:
        if log:
            out.close()
    text = stdout.decode(errors="replace") if stdout is not None else ""
    if check and p.returncode != 0:
        tail = text[-3000:] if text else (_tail(log) if log else "")
        raise ContainerError(f"exit status {p.returncode}: {shlex.join(argv)}\n{tail}")
    return p.returncode, text


def _tail(path, n=3000):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - n))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def _killpg(p, sig=signal.SIGKILL):
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


# --- the host's Debian archives --------------------------------------------

def host_codename():
    with open("/etc/os-release") as f:
        for line in f:
            if line.startswith("VERSION_CODENAME="):
                return line.split("=", 1)[1].strip().strip('"')
    raise ContainerError("no VERSION_CODENAME in /etc/os-release")


def _deb822(text):
    records, cur = [], {}
    for line in text.splitlines():
        if not line.strip():
            if cur:
                records.append(cur)
            cur = {}
        elif ":" in line and not line[0].isspace():
            k, v = line.split(":", 1)
            cur[k.strip()] = v.strip()
    if cur:
        records.append(cur)
    return records


def host_debian_sources(codename=None):
    """The Debian archives this machine's apt uses for its release, read from
    its apt configuration now: a list of (uri, suite, [components]), the
    release's main suite first, then -updates, -security etc. Only `deb`
    entries of the suites <codename>, <codename>-updates, -security,
    -backports and -proposed-updates whose Release file says Origin: Debian
    (or that were never downloaded, so have no Origin yet) are kept: a
    third-party repository is never used."""
    codename = codename or host_codename()
    arch = _run(["dpkg", "--print-architecture"], 30)[1].strip()
    suites = [codename] + [f"{codename}-{s}" for s in ("updates", "security", "backports", "proposed-updates")]
    _, text = _run(["apt-get", "indextargets", "Identifier: Packages"], 60)
    found = {}
    for r in _deb822(text):
        release = r.get("Release") or r.get("Codename")
        if r.get("Target-Of") != "deb" or release not in suites:
            continue
        if r.get("Architecture") not in (arch, "all", None):
            continue
        if r.get("Origin") not in (None, "", "Debian"):
            continue
        uri = r.get("Repo-URI")
        if not uri:
            continue
        comps = found.setdefault((uri, release), [])
        if r.get("Component") and r["Component"] not in comps:
            comps.append(r["Component"])
    out = sorted(((u, s, c or ["main"]) for (u, s), c in found.items()),
                 key=lambda e: (suites.index(e[1]), e[0]))
    if not out or out[0][1] != codename:
        raise ContainerError(
            f"apt has no Debian archive for {codename} configured (apt-get indextargets): "
            "the system test needs the machine's Debian mirror")
    return out


def apt_proxy_env():
    """http_proxy/https_proxy for debootstrap when apt is configured with a
    proxy (Acquire::http::Proxy), so the root comes the way apt goes."""
    env = {}
    for scheme in ("http", "https"):
        rc, out = _run(["apt-config", "shell", "P", f"Acquire::{scheme}::Proxy"], 30, check=False)
        if rc == 0 and out.strip().startswith("P="):
            val = shlex.split(out.strip()[2:])
            if val and val[0] and val[0].upper() != "DIRECT":
                env[f"{scheme}_proxy"] = val[0]
    return env


def write_apt_sources(root, sources):
    """Writes `sources` ((uri, suite, components) as host_debian_sources()
    returns them) as the root's /etc/apt/sources.list, and the host's apt
    proxy setting if it has one."""
    lines = ["# written by systemd/tests/container.py from the host's apt configuration"]
    lines += [f"deb {uri} {suite} {' '.join(comps)}" for uri, suite, comps in sources]
    with open(os.path.join(root, "etc/apt/sources.list"), "w") as f:
        f.write("\n".join(lines) + "\n")
    proxy = apt_proxy_env()
    if proxy:
        with open(os.path.join(root, "etc/apt/apt.conf.d/90host-proxy"), "w") as f:
            for k, v in proxy.items():
                f.write(f'Acquire::{k.split("_")[0]}::Proxy "{v}";\n')


def debootstrap(target, include=BASE_PACKAGES, suite=None, sources=None, variant="minbase",
                timeout=900, log=None):
    """A minimal Debian root in `target` (which must not exist or be empty)
    from the host's own mirror, with `include` added and apt pointing at all
    the host's Debian archives for that release. Returns `target`."""
    sources = sources or host_debian_sources(suite)
    mirror, suite = sources[0][0], sources[0][1]
    argv = ["debootstrap", f"--variant={variant}", "--components=" + ",".join(sources[0][2]),
            "--include=" + ",".join(include), suite, target, mirror]
    _log(f"debootstrap {suite} from {mirror} into {target}")
    env = dict(os.environ, **apt_proxy_env())
    t0 = time.monotonic()
    _run(argv, timeout, log=log, env=env, nice=True)
    write_apt_sources(target, sources)
    _log(f"debootstrap done in {time.monotonic() - t0:.0f} s")
    return target


# Lock files of shared roots this process uses, held open (a shared flock)
# until it exits: while one is held, no later run removes that root from
# under this process's overlay mounts.
_held_locks = []


def _remove_stale_runs(parent, keep):
    """Removes the run directories under `parent` other than `keep` that no
    live process holds (their run.lock can be taken exclusively). Only
    directories with a run.lock are considered: nothing else there is ours."""
    for name in os.listdir(parent):
        d = os.path.join(parent, name)
        lock = os.path.join(d, "run.lock")
        if d == keep or not os.path.isdir(d) or not os.path.isfile(lock):
            continue
        try:
            with open(lock, "a") as f:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                _log(f"removing the base roots of an earlier run: {d}")
                unmount_below(d)
                shutil.rmtree(d, ignore_errors=True)
        except BlockingIOError:
            pass            # a run still using it
        except OSError as e:
            _log(f"cannot remove {d}: {e}")


def shared_base_root(include=BASE_PACKAGES, private_dir=None, log=None, timeout=900):
    """A debootstrapped root with `include`, for read-only use as an overlay's
    lower layer.

    With ARCLAMP_NSPAWN_BASE_DIR set (the Makefile sets it to a directory
    per make invocation, under build/nspawn/), the root is made once in that
    directory by whichever suite needs it first and reused by the others of
    the same run: `make check` debootstraps once for the system test and the
    fleet's tier2 container. Directories of earlier runs are removed then.
    Without it, the root is made in `private_dir`, the caller's to remove.
    Returns the root's path."""
    shared = os.environ.get("ARCLAMP_NSPAWN_BASE_DIR")
    if not shared:
        return debootstrap(os.path.join(private_dir, "base"), include=include, log=log, timeout=timeout)
    shared = os.path.abspath(shared)
    os.makedirs(shared, exist_ok=True)
    run_lock = open(os.path.join(shared, "run.lock"), "a")
    fcntl.flock(run_lock, fcntl.LOCK_SH)
    _held_locks.append(run_lock)
    _remove_stale_runs(os.path.dirname(shared), keep=shared)
    key = hashlib.sha256((host_codename() + "\0" + ",".join(sorted(include))).encode()).hexdigest()[:12]
    root = os.path.join(shared, f"base-{key}")
    with open(root + ".lock", "a") as make_lock:
        fcntl.flock(make_lock, fcntl.LOCK_EX)      # one debootstrap; the others wait for it
        if os.path.isdir(root):
            _log(f"reusing {root} (made earlier in this run)")
        else:
            partial = root + ".partial"
            unmount_below(partial)          # a debootstrap killed with /proc mounted
            shutil.rmtree(partial, ignore_errors=True)
            debootstrap(partial, include=include, log=log, timeout=timeout)
            os.rename(partial, root)
    return root


# --- writable copies of a root ---------------------------------------------

class Overlay:
    """A writable view of read-only lower roots (first = top) at `self.root`:
    overlayfs with its upper and work directories under `base`, or, where
    overlayfs cannot be mounted, a copy (`cp -a --reflink=auto`) of the single
    lower root. `unmount()` keeps the upper layer; `upper` can then be the
    top lower root of another Overlay."""

    def __init__(self, lowers, base):
        self.lowers = [os.path.abspath(p) for p in lowers]
        self.base = os.path.abspath(base)
        self.upper = os.path.join(self.base, "upper")
        self.work = os.path.join(self.base, "work")
        self.root = os.path.join(self.base, "root")
        self.mounted = False
        self.kind = None

    def mount(self):
        for d in (self.upper, self.work, self.root):
            os.makedirs(d, exist_ok=True)
        opts = f"lowerdir={':'.join(self.lowers)},upperdir={self.upper},workdir={self.work}"
        rc, out = _run(["mount", "-t", "overlay", "overlay", "-o", opts, self.root], 60, check=False)
        if rc == 0:
            self.mounted, self.kind = True, "overlayfs"
            return self
        if len(self.lowers) != 1:
            raise ContainerError(f"overlayfs mount failed and a copy needs a single lower root: {out}")
        _log(f"overlayfs unavailable ({out.strip()}); copying the root instead")
        os.rmdir(self.root)
        _run(["cp", "-a", "--reflink=auto", self.lowers[0], self.root], 900)
        self.kind = "copy"
        return self

    def unmount(self):
        if self.mounted:
            rc, out = _run(["umount", self.root], 60, check=False)
            if rc != 0:
                _run(["umount", "-l", self.root], 60, check=False)
            self.mounted = False

    def __enter__(self):
        return self.mount()

    def __exit__(self, *exc):
        self.unmount()


def unmount_below(path):
    """Unmounts everything mounted below `path` (overlays left by a fixture
    that failed half-way, or by a killed run), deepest first, so removing
    the directory afterwards cannot reach into a lower layer."""
    prefix = os.path.abspath(path).rstrip("/") + "/"
    with open("/proc/self/mountinfo") as f:
        mounts = [line.split()[4] for line in f]
    for m in sorted((m for m in mounts if m.startswith(prefix)), key=len, reverse=True):
        _run(["umount", "-l", m], 60, check=False)


# --- cgroups for nspawn without a host manager ------------------------------

def host_has_systemd():
    return os.path.isdir("/run/systemd/system")


def _cgroup_roots():
    """Mount points of the hierarchies nspawn and systemd use: the v2
    (unified) one and the v1 one named `systemd`."""
    roots = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, _, post = line.partition(" - ")
            fields, pfields = pre.split(), post.split()
            mnt, fstype, sopts = fields[4], pfields[0], pfields[2] if len(pfields) > 2 else ""
            if fstype == "cgroup2" or (fstype == "cgroup" and "name=systemd" in sopts.split(",")):
                roots.append(mnt)
    return roots


class _Cgroup:
    def __init__(self, name):
        self.dirs = [os.path.join(r, name) for r in _cgroup_roots()]

    def create(self):
        for d in self.dirs:
            os.makedirs(d, exist_ok=True)

    def enter(self):
        """Called in the child between fork and exec."""
        for d in self.dirs:
            with open(os.path.join(d, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))

    def remove(self):
        """Removes the trees, deepest first; a cgroup still holding processes
        is reported, not forced."""
        left = []
        for top in self.dirs:
            if not os.path.isdir(top):
                continue
            for dirpath, dirnames, _ in os.walk(top, topdown=False):
                for attempt in range(50):
                    try:
                        os.rmdir(dirpath)
                        break
                    except OSError as e:
                        if e.errno == errno.ENOENT:
                            break
                        if e.errno != errno.EBUSY or attempt == 49:
                            left.append(f"{dirpath}: {e.strerror}")
                            break
                        time.sleep(0.1)
        return left


def _nspawn_base(root, machine, network, binds, binds_ro, keep_unit):
    argv = ["systemd-nspawn", "--quiet", f"--directory={root}", f"--machine={machine}",
            "--register=no", "--link-journal=no", "--timezone=off"]
    if keep_unit:
        argv.append("--keep-unit")
    argv.append("--resolv-conf=copy-host" if network == "host" else "--resolv-conf=off")
    if network == "private":
        argv.append("--private-network")
    elif network.startswith("netns:"):
        # A network namespace someone else made (ip netns add): the container
        # gets its interfaces and addresses, nothing else of the host's.
        argv.append("--network-namespace-path=" + network[len("netns:"):])
    elif network != "host":
        raise ValueError(f"network must be 'private', 'host' or 'netns:PATH', not {network!r}")
    for src, dst in (binds or {}).items():
        argv.append(f"--bind={src}:{dst}")
    for src, dst in (binds_ro or {}).items():
        argv.append(f"--bind-ro={src}:{dst}")
    return argv


def _cleanup_run_dirs(machine):
    # nspawn refuses to rm -rf its propagation directory when /run is not a
    # tmpfs ("Attempted to remove disk file system"); it is ours, so remove it.
    for d in (f"/run/systemd/nspawn/propagate/{machine}", f"/run/systemd/nspawn/unix-export/{machine}"):
        if os.path.isdir(d) and not os.path.ismount(d):
            shutil.rmtree(d, ignore_errors=True)


_counter = 0


def _machine_name(prefix):
    global _counter
    _counter += 1
    return f"{prefix}-{os.getpid()}-{_counter}"[:64]


def run_in_root(root, argv, timeout, network="host", binds=None, binds_ro=None, log=None,
                check=True, env=None, machine_prefix="arclamp-run"):
    """Runs one command in `root` with systemd-nspawn, not booted (the
    command is PID 1 of a fresh PID namespace). network="host" shares the
    host's network (for apt from the Debian mirror); "private" gives only a
    loopback. Returns (exit status, output); output goes to `log` if given."""
    machine = _machine_name(machine_prefix)
    keep_unit = not host_has_systemd()
    argv_full = _nspawn_base(root, machine, network, binds, binds_ro, keep_unit)
    argv_full.append("--console=pipe")
    for k, v in dict(EXEC_ENV, **(env or {})).items():
        argv_full.append(f"--setenv={k}={v}")
    argv_full += ["--"] + list(argv)
    cg = _Cgroup(f"arclamp-nspawn-{machine}") if keep_unit else None
    if cg:
        cg.create()
    out = open(log, "ab") if log else subprocess.PIPE
    try:
        p = subprocess.Popen(argv_full, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True, preexec_fn=cg.enter if cg else None)
        try:
            stdout, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # SIGTERM makes nspawn kill the payload; then make sure.
            _killpg(p, signal.SIGTERM)
            _killpg(p, signal.SIGKILL)
            raise ContainerError(f"timed out after {timeout} s in {root}: {shlex.join(argv)}")
    finally:
        if log:
            out.close()
        if cg:
            cg.remove()
        _cleanup_run_dirs(machine)
    text = stdout.decode(errors="replace") if stdout is not None else ""
    if check and p.returncode != 0:
        raise ContainerError(f"exit status {p.returncode} in {root}: {shlex.join(argv)}\n"
                             + (text[-3000:] or (_tail(log) if log else "")))
    return p.returncode, text


# --- booted containers -------------------------------------------------------

DEADLINE_UNIT = """\
# Written by systemd/tests/container.py: ends this container by itself with
# exit status 124 if the test harness has not stopped it within {secs} s.
[Unit]
Description=Container deadline ({secs} s)

[Service]
ExecStart=/bin/sh -c 'sleep {secs}; echo "container deadline reached" >/dev/console; exec systemctl --no-block exit 124'

[Install]
WantedBy=multi-user.target
"""


class Container:
    """One boot of `root` with systemd-nspawn --boot and a private network.

    network: "private" (only a loopback), or "netns:/run/netns/NAME" to
    join an existing network namespace (the integration fleet's tier2).
    binds / binds_ro: {host path: container path}. console_log: where the
    console (boot messages) goes; by default a file next to the root.
    deadline: seconds after which the container ends itself (status 124);
    None for no deadline unit."""

    def __init__(self, root, machine=None, binds=None, binds_ro=None, console_log=None,
                 deadline=900, network="private"):
        self.root = os.path.abspath(root)
        self.machine = machine or _machine_name("arclamp-st")
        self.binds, self.binds_ro = binds or {}, binds_ro or {}
        self.console_log = console_log or (self.root.rstrip("/") + f".{self.machine}.console.log")
        self.deadline = deadline
        self.network = network
        self.proc = None
        self.leader = None
        self.returncode = None
        self.keep_unit = not host_has_systemd()
        self._cg = None
        self._log_fd = None
        self.boot_seconds = None

    # -- life cycle --
    def boot(self, timeout=60):
        """Starts nspawn in the background and returns once the container's
        PID 1 exists (use wait_running() to wait for the boot to finish)."""
        if self.proc:
            raise ContainerError("already booted")
        self._install_deadline()
        argv = _nspawn_base(self.root, self.machine, self.network, self.binds, self.binds_ro,
                            self.keep_unit)
        argv += ["--boot", "--console=read-only", f"--hostname={self.machine}"]
        if self.keep_unit:
            self._cg = _Cgroup(f"arclamp-nspawn-{self.machine}")
            self._cg.create()
        self._log_fd = open(self.console_log, "ab")
        self._t0 = time.monotonic()
        _log(f"booting {self.machine} on {self.root}")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self._log_fd,
                                     stderr=subprocess.STDOUT, start_new_session=True,
                                     preexec_fn=self._cg.enter if self._cg else None)
        deadline = time.monotonic() + timeout
        mypidns = os.readlink("/proc/self/ns/pid")
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._finish()
                raise ContainerError(f"systemd-nspawn exited with {self.returncode} while booting:\n"
                                     + _tail(self.console_log))
            for child in self._children(self.proc.pid):
                try:
                    if os.readlink(f"/proc/{child}/ns/pid") != mypidns:
                        self.leader = child
                        return self
                except OSError:
                    pass
            time.sleep(0.1)
        self.kill()
        raise ContainerError(f"no container PID 1 after {timeout} s:\n" + _tail(self.console_log))

    @staticmethod
    def _children(pid):
        kids = []
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    kids += [int(x) for x in f.read().split()]
        except OSError:
            pass
        return kids

    def _install_deadline(self):
        unitdir = os.path.join(self.root, "etc/systemd/system")
        path = os.path.join(unitdir, "nspawn-deadline.service")
        wants = os.path.join(unitdir, "multi-user.target.wants", "nspawn-deadline.service")
        if self.deadline is None:
            for p in (wants, path):
                if os.path.lexists(p):
                    os.unlink(p)
            return
        os.makedirs(os.path.dirname(wants), exist_ok=True)
        with open(path, "w") as f:
            f.write(DEADLINE_UNIT.format(secs=int(self.deadline)))
        if not os.path.lexists(wants):
            os.symlink("../nspawn-deadline.service", wants)

    def wait_running(self, timeout=120):
        """Waits until the manager in the container finished booting; returns
        `systemctl is-system-running` ('running', or 'degraded' when a unit
        failed). Raises if it does not finish within `timeout`."""
        deadline = time.monotonic() + timeout
        last = ""
        while True:
            self._check_alive()
            left = deadline - time.monotonic()
            if left <= 0:
                raise ContainerError(f"{self.machine} did not finish booting within {timeout} s "
                                     f"(last: {last.strip()}):\n" + _tail(self.console_log))
            r = self.exec(["systemctl", "is-system-running", "--wait"], timeout=max(1, left), check=False)
            state = r.stdout.strip()
            if state in ("running", "degraded"):
                if self.boot_seconds is None:
                    self.boot_seconds = time.monotonic() - self._t0
                    _log(f"{self.machine} {state} after {self.boot_seconds:.1f} s")
                return state
            if state == "stopping":
                raise ContainerError(f"{self.machine} is {state}:\n" + _tail(self.console_log))
            # 'offline' is what systemctl says before PID 1 has created
            # /run/systemd/system (sd_booted() false): nspawn's child appears
            # in its own PID namespace a moment before that, and on a busy
            # host the moment can be long. A container that really died is
            # caught by _check_alive() above, one that never boots by the
            # deadline.
            last = r.stdout + r.stderr  # bus not up yet, or 'initializing'/'starting'
            time.sleep(0.2)

    def failed_units(self):
        return self.exec("systemctl --failed --no-legend --plain", check=False).stdout.strip()

    def stop(self, exit_code=None, timeout=90):
        """Asks the container to end: `systemctl poweroff`, or `systemctl exit
        CODE`. Returns nspawn's exit status; kills the container if it has not
        ended within `timeout` s and raises."""
        if not self.running():
            return self._finish()
        cmd = ["systemctl", "--no-block"] + (["poweroff"] if exit_code is None else ["exit", str(exit_code)])
        self.exec(cmd, timeout=30, check=False)
        return self.wait_exit(timeout)

    def stop_with_verdict(self, timeout=90):
        """Ends the boot with the container's own verdict as its exit status:
        0 when `systemctl is-system-running` is 'running' (no unit failed in
        this boot), else 1. Returns (exit status, failed units)."""
        failed = self.failed_units()
        script = ('if [ "$(systemctl is-system-running)" = running ]; then c=0; else c=1; fi; '
                  'exec systemctl --no-block exit $c')
        self.exec(["sh", "-c", script], timeout=30, check=False)
        return self.wait_exit(timeout), failed

    def wait_exit(self, timeout):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise ContainerError(f"{self.machine} did not shut down within {timeout} s:\n"
                                 + _tail(self.console_log))
        return self._finish()

    def kill(self):
        """Ends the container at once: SIGTERM to nspawn (a halt), then
        SIGKILL to its PID 1 (kills the whole PID namespace) and nspawn."""
        if self.proc and self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                if self.leader:
                    try:
                        os.kill(self.leader, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    _killpg(self.proc)
        return self._finish()

    def _finish(self):
        if self.proc is not None and self.returncode is None:
            self.returncode = self.proc.wait()
        if self._log_fd:
            self._log_fd.close()
            self._log_fd = None
        if self._cg:
            left = self._cg.remove()
            if left:
                _log("cgroups left behind: " + "; ".join(left))
            self._cg = None
        _cleanup_run_dirs(self.machine)
        self.leader = None
        return self.returncode

    def running(self):
        return self.proc is not None and self.proc.poll() is None and self.leader is not None

    def _check_alive(self):
        if not self.running():
            rc = self._finish() if self.proc else None
            raise ContainerError(f"{self.machine} is not running (nspawn exit status {rc}):\n"
                                 + _tail(self.console_log))

    def close(self):
        """Stops the container whatever its state (clean poweroff first)."""
        if self.running():
            try:
                self.stop(timeout=60)
            except ContainerError as e:
                _log(str(e).splitlines()[0])
        self.kill()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- commands inside --
    def exec(self, cmd, timeout=60, check=True, input=None, user=None, env=None):
        """Runs `cmd` (an argv list, or a string for `sh -c`) inside the booted
        container as root (or `user`, by name, through setpriv) with a clean
        environment. Returns a CompletedProcess with text stdout/stderr;
        raises ContainerError on timeout, or on a non-zero status if `check`."""
        self._check_alive()
        argv = ["sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
        if user is not None:
            argv = ["sh", "-c", 'exec setpriv --reuid="$0" --regid="$(id -g "$0")" --init-groups -- "$@"',
                    user] + argv
        envl = [f"{k}={v}" for k, v in dict(EXEC_ENV, **(env or {})).items()]
        full = ["nsenter", f"--target={self.leader}"] + NSENTER_FLAGS + ["env", "-i"] + envl + argv
        p = subprocess.Popen(full, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            data = input.encode() if isinstance(input, str) else input
            out, err = p.communicate(input=data, timeout=timeout)
        except subprocess.TimeoutExpired:
            _killpg(p)
            raise ContainerError(f"timed out after {timeout} s in {self.machine}: {shlex.join(argv)}")
        r = subprocess.CompletedProcess(argv, p.returncode, out.decode(errors="replace"),
                                        err.decode(errors="replace"))
        if check and r.returncode != 0:
            raise ContainerError(f"exit status {r.returncode} in {self.machine}: {shlex.join(argv)}\n"
                                 f"stdout: {r.stdout[-2000:]}\nstderr: {r.stderr[-2000:]}")
        return r

    def show(self, unit, *props):
        """`systemctl show UNIT -p ...` as a dict; a property listed several
        times (a socket's Listen=) has its values joined with newlines."""
        args = ["systemctl", "show", unit] + [f"--property={p}" for p in props]
        res = {}
        for line in self.exec(args).stdout.splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                res[k] = res[k] + "\n" + v if k in res else v
        return res

    def write_file(self, path, content, mode=0o644):
        self.exec(["sh", "-c", f'cat > "$0" && chmod {mode:o} "$0"', path], input=content)

    def read_file(self, path):
        return self.exec(["cat", path]).stdout

    def exists(self, path):
        """Whether `path` exists inside the container."""
        return self.exec(["test", "-e", path], check=False).returncode == 0

    def wait_for(self, what, predicate, timeout, interval=0.5):
        """Polls predicate() (its truthy value is returned) until `timeout`;
        raises ContainerError naming `what` otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            v = predicate()
            if v:
                return v
            if time.monotonic() > deadline:
                raise ContainerError(f"timed out after {timeout} s waiting for {what}")
            self._check_alive()
            time.sleep(interval)


# --- command line, for developing tests ------------------------------------

def _main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="container.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sources", help="print the Debian archives read from apt's configuration")
    s = sub.add_parser("debootstrap", help="make a base root")
    s.add_argument("target")
    s.add_argument("--include", default=",".join(BASE_PACKAGES))
    s = sub.add_parser("shell", help="boot ROOT on an overlay (changes are thrown away) and open a shell")
    s.add_argument("root")
    s.add_argument("--bind-ro", action="append", default=[], metavar="SRC:DST")
    a = ap.parse_args(argv)
    if a.cmd == "sources":
        for uri, suite, comps in host_debian_sources():
            print(f"deb {uri} {suite} {' '.join(comps)}")
    elif a.cmd == "debootstrap":
        debootstrap(a.target, include=a.include.split(","))
    elif a.cmd == "shell":
        tmp = tempfile.mkdtemp(prefix="arclamp-shell-", dir="/var/tmp")
        try:
            with Overlay([a.root], tmp) as ov:
                binds = dict(b.split(":", 1) for b in a.bind_ro)
                with Container(ov.root, binds_ro=binds, deadline=3600) as c:
                    c.boot()
                    print(c.wait_running())
                    subprocess.call(["nsenter", f"--target={c.leader}"] + NSENTER_FLAGS
                                    + ["env", "-i", f"PATH={PATH}", "TERM=" + os.environ.get("TERM", "dumb"),
                                       "bash", "-l"])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    _main(sys.argv[1:])
