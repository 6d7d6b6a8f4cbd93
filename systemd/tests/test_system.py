"""System test: the built Debian packages on a real systemd, in a container.

Once per test run a minimal Debian root (debootstrap --variant=minbase, the
host's release, with systemd, D-Bus, iproute2, procps and python3-minimal)
is made from the mirror this machine's apt uses (read from its apt
configuration now, see container.py); under make, one per make invocation,
shared with the integration fleet's tier2 container (ARCLAMP_NSPAWN_BASE_DIR,
see container.shared_base_root). Then, on an overlay of that root:

1. Download step (not booted, host network: the only time the container
   reaches the network, and only the Debian mirror): `apt-get update` and
   `apt-get install --download-only` of the four .debs' dependencies and
   php8.2-cli, then of Debian's php-excimer, then of php8.2-fpm and nginx
   (separate commands: php-excimer conflicts with ours).
2. First boot (--private-network), everything installed with `apt-get
   install` on the running system (nothing left to download), as an
   operator would, so the maintainer scripts meet a live systemd: php8.2-cli
   and Debian's php-excimer first (its version is recorded), then
   build/deb/{arclamp-log,arclamp-svg,arclamp-report,php-excimer-sampler}_*.deb.
   Then, as the READMEs say: www-data is made a sender (a sysusers.d drop-in
   `m www-data arclamp-senders`), and the documented UDP drop-in is added
   (systemd/README.md's block, daemon-reload, restart of the socket).
   Recorded:
   right after that, before any service could make them, the owner and mode
   of /var/lib/arclamp, its logs/ and reports/ (the postinst's systemd-tmpfiles; the
   services' start times too, since a timer firing meanwhile would make
   them as well); the conffiles; that Debian's php-excimer is no longer
   installed and PHP loads ours; what postinst started (the socket and the
   timers, not the service), the socket's owner, group and mode and its
   directory's, that UDP is not listening before the drop-in and is after
   it, the arclamp user, the PHP module, a run of the
   graph job before any sample and of the report job before any run log,
   and a first sample; arclamp-hprof-fpm.service installed, neither enabled
   nor started. Then php8.2-fpm, a SAPI
   installed after the extension: its conf.d and `php-fpm8.2 -m` (and
   arclamp-hprof-fpm still inactive); then nginx. The boot
   ends with the container's own verdict (`systemctl exit 0` if no unit
   failed, else 1).
   Then, with the container stopped, the persistent timer's stamp is dated an
   hour back: the machine "was off" when a run was due.
3. Second boot (--private-network): what an installed system does at boot —
   the socket listens and the service does not run; the timer catches up
   (Persistent=yes) and runs arclamp-svg on the first boot's logs; the first
   datagram starts the daemon, which reaches READY; samples (unix socket as
   a member of arclamp-senders, UDP, the PHP extension in zero-code mode,
   and the packaged ArcLamp.php client) land in the trace logs, while a user
   outside the group (nobody, no supplementary groups) gets EACCES; the
   units' MemoryHigh=/MemoryMax=/TimeoutStartSec= are what systemd applies
   (systemctl show, and the cgroup's memory.max where the container has the
   memory controller); the journal has the
   structured fields; arclamp-report.service, as shipped (Graphviz in its
   process under MemoryDenyWriteExecute= and the system call filter),
   writes the pages of run logs written as arclamp, owned by arclamp, and a
   run that finds the lock held (exit 75) does not fail the unit;
   arclamp-svg-compress.service compresses a trace log
   three days old (sorted .log.gz, mtime kept); the watchdog is armed and
   fed; `systemctl reload` works and a config change takes effect;
   README.Debian's split: zero-code collection on, `systemctl enable --now
   arclamp-hprof-fpm`, the nginx snippet at 1 in 2 in front of both
   php-fpm masters, every request served, the twin's all profiled and their
   runs written, php8.2-fpm's none, the twin's hardening seen in /proc, and
   stopped, its share served by php8.2-fpm; `dpkg
   --purge` removes the units, the configuration and the generated files,
   keeps the trace logs and the arclamp user, and leaves no process; the boot
   ends with the container's verdict.

Every check runs inside the container (nsenter into its PID 1's
namespaces); nothing in the root namespace talks to the container's network.
Facts of the first boot and of the moment the second boot finished are
recorded by fixtures, so any test can run alone (`-k reload`); the tests of
the second boot run in file order and `test_purge...` is destructive, so it
comes last. Every wait has a time limit; containers are always stopped and
the temporary directory removed (ARCLAMP_SYSTEMTEST_KEEP=1 keeps it).

Environment:
  ARCLAMP_SKIP_SYSTEM_TEST=1   skip this module
  ARCLAMP_DEB_DIR=DIR          use the .debs in DIR (default build/deb, made
                               with `make deb` when missing or older than the commit
                               it packages, DEB_TREE, default HEAD; with
                               DEB_TREE=worktree: older than a file of the tree)
  ARCLAMP_SYSTEMTEST_TMPDIR    where the roots go (default /var/tmp; needs ~600 MB)
  ARCLAMP_SYSTEMTEST_BASE=DIR  use an existing debootstrapped root (read only)
                               instead of making one: for developing tests only
  ARCLAMP_NSPAWN_BASE_DIR=DIR  make the root there once and reuse it (set by
                               the Makefile per make invocation)
  ARCLAMP_SYSTEMTEST_KEEP=1    keep the temporary directory (roots, logs)
"""

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import container as ct
import debs as debs_mod

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ["arclamp-log", "arclamp-svg", "arclamp-report", "php-excimer-sampler"]
EXTRA_PACKAGES = ["php8.2-cli"]
# Installed before ours, which must replace Debian's excimer (Conflicts/Replaces).
DEBIAN_EXCIMER = ["php8.2-cli", "php-excimer"]
# A PHP SAPI installed after ours: it must get the module too.
LATER_SAPI = "php8.2-fpm"
EXCIMER_INI = "/etc/php/8.2/mods-available/excimer.ini"
# The profiled second PHP-FPM and the nginx split (php-excimer-sampler).
HPROF_UNIT = "arclamp-hprof-fpm.service"
HPROF_ETC = "/etc/php/8.2/arclamp-hprof-fpm"
SPLIT_SNIPPET = "/etc/nginx/snippets/arclamp-hprof-split.conf"
WEB_SERVER = "nginx"
CONFFILES = ["/etc/arclamp/arclamp-log.yaml", "/etc/arclamp/arclamp-svg.yaml", EXCIMER_INI,
             f"{HPROF_ETC}/php-fpm.conf", f"{HPROF_ETC}/pool.d/www.conf",
             f"{HPROF_ETC}/conf.d/90-arclamp-hprof.ini", SPLIT_SNIPPET]
# The services that would create the data directories themselves (StateDirectory=).
STATE_SERVICES = ["arclamp-log.service", "arclamp-svg.service", "arclamp-svg-compress.service",
                  "arclamp-report.service"]
UNITS = ["arclamp-log.socket", "arclamp-log.service", "arclamp-svg.service", "arclamp-svg.timer",
         "arclamp-svg-compress.service", "arclamp-svg-compress.timer",
         "arclamp-report.service", "arclamp-report.timer", HPROF_UNIT]
TIMERS = ["arclamp-svg.timer", "arclamp-svg-compress.timer", "arclamp-report.timer"]
SOCK = "/run/arclamp/ingest.sock"
SOCK_DIR = "/run/arclamp"
SENDERS = "arclamp-senders"
# PHP-FPM's user on Debian, made a sender in the first boot as README.md says.
SENDER = "www-data"
SENDER_DROPIN = ("/etc/sysusers.d/arclamp-senders-www-data.conf", f"m {SENDER} {SENDERS}\n")
UDP_DROPIN = "/etc/systemd/system/arclamp-log.socket.d/udp.conf"
# The services' limits as shipped (systemd/*.service), compared with what
# systemd applies.
LIMITED_SERVICES = ["arclamp-log.service", "arclamp-svg.service", "arclamp-svg-compress.service",
                    "arclamp-report.service"]
UDP = ("127.0.0.1", 7761)
LOGS = "/var/lib/arclamp/logs"
SAMPLE = "/srv/mediawiki/php-1.44.0-wmf.3/index.php;Foo::bar;strlen 1"
STAMP = "var/lib/systemd/timers/stamp-arclamp-svg.timer"
REPORTS = "/var/lib/arclamp/reports"
DATA_DIRS = ["/var/lib/arclamp", LOGS, REPORTS]

pytestmark = pytest.mark.skipif(os.environ.get("ARCLAMP_SKIP_SYSTEM_TEST") == "1",
                                reason="ARCLAMP_SKIP_SYSTEM_TEST=1")


# --- helpers run inside the container ----------------------------------------

SEND_PY = r"""
import errno, socket, sys
kind, payload = sys.argv[1], sys.argv[2].encode()
try:
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.sendto(payload, sys.argv[3])
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(payload, (sys.argv[3], int(sys.argv[4])))
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
    sys.exit(3)
print("sent")
"""


def send(c, payload, kind="unix", user=SENDER):
    """One datagram from inside the container, by default as www-data, a
    member of arclamp-senders (setpriv --init-groups); fails if refused."""
    args = [SOCK] if kind == "unix" else [UDP[0], str(UDP[1])]
    c.exec(["python3", "-c", SEND_PY, kind, payload] + args, user=user, timeout=30)


# An attacker with no group of ours: nobody:nogroup, supplementary groups cleared.
AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]


def try_send(c, payload, prefix=()):
    """Sends one datagram to the unix socket as `prefix` (e.g. AS_NOBODY) says;
    returns "sent" or the errno's name (EACCES, ...)."""
    r = c.exec(list(prefix) + ["python3", "-c", SEND_PY, "unix", payload, SOCK], timeout=30, check=False)
    return r.stdout.strip() or f"status {r.returncode}: {r.stderr.strip()}"


def readme_udp_dropin():
    """The drop-in systemd/README.md documents for UDP on this host (its
    fenced block that listens on 127.0.0.1:7761): the test applies exactly it."""
    text = (REPO / "systemd" / "README.md").read_text()
    blocks = re.findall(r"```\n(.*?)```", text, re.S)
    found = [b for b in blocks if "ListenDatagram=127.0.0.1:7761" in b]
    assert len(found) == 1, f"systemd/README.md: {len(found)} blocks with ListenDatagram=127.0.0.1:7761"
    return found[0]


def socket_perms(c):
    """'PATH USER GROUP MODE' of the socket and of its directory, one line each."""
    return c.exec(["stat", "-c", "%n %U %G %a", SOCK, SOCK_DIR], check=False).stdout.splitlines()


def grep_logs(c, pattern, needle):
    """{path: number of lines holding `needle`} for the trace logs matching
    the glob `pattern` under /var/lib/arclamp/logs."""
    out = c.exec(["sh", "-c", 'for f in ' + LOGS + '/' + pattern + '; do [ -f "$f" ] || continue; '
                  'printf "%s\\t%s\\n" "$f" "$(grep -cF -e "$0" "$f")"; done', needle], timeout=30).stdout
    res = {}
    for line in out.splitlines():
        path, _, n = line.rpartition("\t")
        res[path] = int(n)
    return res


def wait_lines(c, pattern, needle, timeout=20):
    """Waits until a trace log matching `pattern` holds `needle`."""
    return c.wait_for(f"{needle!r} in {LOGS}/{pattern}",
                      lambda: {p: n for p, n in grep_logs(c, pattern, needle).items() if n}, timeout)


def journal(c, unit, since_cursor=None):
    args = ["journalctl", "--no-pager", "-o", "json", "-u", unit]
    if since_cursor:
        args += ["--after-cursor", since_cursor]
    out = c.exec(args, timeout=30).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def journal_cursor(c):
    out = c.exec(["journalctl", "--no-pager", "-n", "0", "--show-cursor", "-q"], timeout=30, check=False).stdout
    m = re.search(r"-- cursor: (\S+)", out)
    return m.group(1) if m else None


def wait_event(c, event, cursor=None, timeout=15):
    return c.wait_for(f"ARCLAMP_EVENT={event} in arclamp-log's journal",
                      lambda: [e for e in journal(c, "arclamp-log.service", cursor)
                               if e.get("ARCLAMP_EVENT") == event], timeout)


def listening(c):
    """The ingest sockets as `ss` sees them: {address: owning process}."""
    out = c.exec(["ss", "-H", "-l", "-n", "-p", "-x", "-u"], timeout=30).stdout
    found = {}
    for line in out.splitlines():
        for addr in (SOCK, f"{UDP[0]}:{UDP[1]}"):
            if re.search(r"\s" + re.escape(addr) + r"\s", line + " "):
                m = re.search(r'users:\(\("([^"]+)",pid=(\d+)', line)
                found[addr] = (m.group(1), int(m.group(2))) if m else None
    return found


def unit_state(c, unit):
    return c.show(unit, "ActiveState", "SubState", "UnitFileState", "MainPID", "Result", "Type",
                  "NextElapseUSecRealtime", "LastTriggerUSec", "LastTriggerUSecMonotonic", "Listen",
                  "LoadState", "InvocationID")


def php_excimer_facts(c):
    """Which excimer PHP's CLI loads: its version, and whether it is ours
    (excimer_arclamp_stats() exists only in ours)."""
    return {
        "version": c.exec(["php", "-r", 'echo phpversion("excimer");'], check=False).stdout.strip(),
        "ours": c.exec(["php", "-r", 'var_dump(function_exists("excimer_arclamp_stats"));'],
                       check=False).stdout.strip(),
    }


def daemon_pids(c):
    return c.exec(["pgrep", "-x", "arclamp-log"], check=False, timeout=30).stdout.split()


def snapshot(c):
    """What an observer sees of the Arc Lamp units right now."""
    return {
        "socket": unit_state(c, "arclamp-log.socket"),
        "service": unit_state(c, "arclamp-log.service"),
        "listening": listening(c),
        "pids": daemon_pids(c),
        "timers": {t: unit_state(c, t) for t in TIMERS},
    }


# --- the .debs, the base root ----------------------------------------------

@pytest.fixture(scope="session")
def prerequisites():
    if os.geteuid() != 0:
        pytest.fail("the system test needs root (debootstrap, mounts, systemd-nspawn); "
                    "ARCLAMP_SKIP_SYSTEM_TEST=1 skips it")
    missing = [t for t in ("debootstrap", "systemd-nspawn", "nsenter", "apt-get", "mount")
               if not shutil.which(t)]
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: install debootstrap, systemd-container "
                    "(scripts/install-deps does)")


@pytest.fixture(scope="session")
def workdir(prerequisites):
    base = os.environ.get("ARCLAMP_SYSTEMTEST_TMPDIR", "/var/tmp")
    d = Path(tempfile.mkdtemp(prefix="arclamp-systemtest-", dir=base))
    yield d
    ct.unmount_below(str(d))    # a fixture may have failed half-way
    if os.environ.get("ARCLAMP_SYSTEMTEST_KEEP") == "1":
        print(f"kept {d}")
    else:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def debs(prerequisites, workdir, timings):
    """The three packages, fresh (see debs.py), copied into the work
    directory: ({package: path in the container}, host directory)."""
    out = workdir / "debs"
    names = debs_mod.ensure_debs(PACKAGES, str(out), workdir / "make-deb.log", timings)
    return {p: f"/debs/{n}" for p, n in names.items()}, str(out)


@pytest.fixture(scope="session")
def base_root(workdir, timings):
    given = os.environ.get("ARCLAMP_SYSTEMTEST_BASE")
    if given:
        return given
    t0 = time.monotonic()
    root = ct.shared_base_root(ct.BASE_PACKAGES, private_dir=str(workdir),
                               log=str(workdir / "debootstrap.log"), timeout=900)
    timings["debootstrap (minbase + systemd), or reuse"] = time.monotonic() - t0
    return root


@pytest.fixture(scope="module")
def overlay(base_root, workdir):
    ov = ct.Overlay([base_root], str(workdir / "overlay")).mount()
    yield ov
    ov.unmount()


# --- first boot: install on a running system ---------------------------------

@pytest.fixture(scope="module")
def first_boot(overlay, debs, workdir, timings):
    """Installs the packages into the running container and records what
    happened (a dict); the container is stopped afterwards."""
    paths, debdir = debs
    ours = [paths[p] for p in PACKAGES]
    pkgs = ours + EXTRA_PACKAGES
    t0 = time.monotonic()
    # Three downloads: Debian's php-excimer conflicts with ours, so it cannot
    # be resolved together with them; the later SAPI comes on its own.
    get = "apt-get -q install -y --no-install-recommends --download-only"
    ct.run_in_root(overlay.root, ["sh", "-c", f'apt-get -q update && {get} "$@" '
                                  f'&& {get} {" ".join(DEBIAN_EXCIMER)} && {get} {LATER_SAPI} {WEB_SERVER}',
                                  "sh"] + pkgs,
                   timeout=900, network="host", binds_ro={debdir: "/debs"}, log=str(workdir / "download.log"))
    timings["download step (apt-get update, --download-only)"] = time.monotonic() - t0

    facts = {}
    t0 = time.monotonic()
    with ct.Container(overlay.root, binds_ro={debdir: "/debs"}, console_log=str(workdir / "boot1.log"),
                      deadline=900) as c:
        c.boot()
        facts["boot_state"] = c.wait_running(timeout=120)
        facts["before"] = snapshot(c)

        def apt_install(what, args):
            r = c.exec(["apt-get", "-q", "install", "-y", "--no-install-recommends"] + args,
                       timeout=600, check=False)
            facts[what] = (r.returncode, r.stdout + r.stderr)
            if r.returncode != 0:
                pytest.fail(f"apt-get install {' '.join(args)} in the booted container failed "
                            f"({r.returncode}):\n{r.stdout[-4000:]}\n{r.stderr[-2000:]}")

        # Debian's php-excimer first: ours replaces it.
        apt_install("debian_excimer_install", DEBIAN_EXCIMER)
        facts["excimer_before"] = php_excimer_facts(c)
        apt_install("install", ours)
        facts["hprof_after_install"] = unit_state(c, HPROF_UNIT)
        # Before anything could start a service (the socket's waits for a
        # datagram; a timer could fire, which the test checks for).
        facts["data_dirs"] = c.exec(["stat", "-c", "%n %U %G %a"] + DATA_DIRS, check=False).stdout
        facts["state_services"] = {s: c.show(s, "ExecMainStartTimestampMonotonic")["ExecMainStartTimestampMonotonic"]
                                   for s in STATE_SERVICES}
        timings["boot 1 + apt-get install"] = time.monotonic() - t0
        facts["dpkg"] = c.exec(["dpkg-query", "-W", "-f", "${Package} ${Status}\\n"] + PACKAGES).stdout
        facts["conffiles"] = c.exec(["dpkg-query", "-W", "-f", "${Conffiles}\\n"] + PACKAGES).stdout
        r = c.exec(["dpkg-query", "-W", "-f", "${Status}", "php-excimer"], check=False)
        facts["debian_excimer_status"] = (r.returncode, r.stdout.strip(), r.stderr.strip())
        facts["excimer_after"] = php_excimer_facts(c)
        facts["after_install"] = snapshot(c)
        facts["socket_perms"] = socket_perms(c)
        # Before www-data is a sender: it is refused like anyone else.
        facts["send_before_member"] = try_send(
            c, SAMPLE, ["setpriv", f"--reuid={SENDER}", f"--regid={SENDER}", "--init-groups", "--"])

        # What README.md says to do: make PHP-FPM's user a sender ...
        c.exec(["mkdir", "-p", "/etc/sysusers.d"])
        c.write_file(SENDER_DROPIN[0], SENDER_DROPIN[1])
        c.exec(["systemd-sysusers"], timeout=60)
        facts["sender_groups"] = c.exec(["id", "-nG", SENDER], check=False).stdout.split()
        # ... and, here, turn UDP on with the documented drop-in.
        c.exec(["mkdir", "-p", UDP_DROPIN.rsplit("/", 1)[0]])
        c.write_file(UDP_DROPIN, readme_udp_dropin())
        c.exec("systemctl daemon-reload && systemctl restart arclamp-log.socket", timeout=60)
        facts["after_udp_dropin"] = snapshot(c)
        facts["socket_perms_after_restart"] = socket_perms(c)
        facts["unit_files"] = c.exec("systemctl list-unit-files --no-legend 'arclamp*'", check=False).stdout
        facts["passwd"] = c.exec(["getent", "passwd", "arclamp"], check=False).stdout.strip()
        facts["php_m"] = c.exec(["php", "-m"], check=False).stdout
        facts["php_cli_ini"] = c.exec("ls -l /etc/php/8.2/cli/conf.d/", check=False).stdout

        # The graph job on a system that has not received a sample yet.
        r = c.exec(["systemctl", "start", "arclamp-svg.service"], timeout=120, check=False)
        facts["svg_before_samples"] = (r.returncode, r.stderr,
                                       c.show("arclamp-svg.service", "Result", "ExecMainStatus"),
                                       c.exec("journalctl --no-pager -o cat -u arclamp-svg.service",
                                              check=False).stdout)

        # The report job too, before arclamp-log wrote any run log.
        r = c.exec(["systemctl", "start", "arclamp-report.service"], timeout=120, check=False)
        facts["report_before_logs"] = (r.returncode, r.stderr,
                                       c.show("arclamp-report.service", "Result", "ExecMainStatus"),
                                       c.exec("journalctl --no-pager -o cat -u arclamp-report.service",
                                              check=False).stdout,
                                       c.exec(["cat", f"{REPORTS}/index.html"], check=False).stdout)

        # A first sample on the freshly installed system (no reboot yet).
        send(c, SAMPLE)
        try:
            c.wait_for("arclamp-log.service active",
                       lambda: unit_state(c, "arclamp-log.service")["SubState"] == "running", 30)
            facts["first_sample_logs"] = wait_lines(c, "hourly/*.excimer.index.log", "Foo::bar;strlen", 20)
        except ct.ContainerError as e:
            facts["first_sample_logs"] = str(e)
        facts["service_after_sample"] = unit_state(c, "arclamp-log.service")

        # A PHP SAPI installed after the extension gets it too.
        t1 = time.monotonic()
        apt_install("later_sapi_install", [LATER_SAPI])
        facts["later_sapi_ini"] = c.exec("ls -l /etc/php/8.2/fpm/conf.d/*excimer.ini", check=False).stdout
        facts["later_sapi_m"] = c.exec(["php-fpm8.2", "-m"], check=False).stdout
        timings[f"boot 1: apt-get install {LATER_SAPI}"] = time.monotonic() - t1
        facts["hprof_after_fpm"] = unit_state(c, HPROF_UNIT)
        apt_install("web_server_install", [WEB_SERVER])
        facts["verdict"] = c.stop_with_verdict(timeout=120)
    timings["boot 1 total"] = time.monotonic() - t0

    # Powered off: date the timer's stamp an hour back, as if the machine had
    # been off when a run was due.
    stamp = Path(overlay.root) / STAMP
    facts["stamp_existed"] = stamp.exists()
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()
    past = time.time() - 3600
    os.utime(stamp, (past, past))
    return facts


def test_install_on_running_system(first_boot):
    rc, _ = first_boot["install"]
    assert rc == 0
    for p in PACKAGES:
        assert f"{p} install ok installed" in first_boot["dpkg"]
    assert first_boot["before"]["socket"]["LoadState"] == "not-found"


def test_postinst_creates_data_directories(first_boot):
    """/var/lib/arclamp and its logs/ exist right after the installation,
    owned by arclamp: made by the postinst (systemd-tmpfiles), not only by
    systemd when a service first starts (StateDirectory=)."""
    ran = {s: t for s, t in first_boot["state_services"].items() if t not in ("", "0")}
    if ran:
        pytest.skip(f"inconclusive: a timer started {', '.join(ran)} during the installation, "
                    "whose StateDirectory= makes the directories as well")
    assert first_boot["data_dirs"].splitlines() == [f"{d} arclamp arclamp 755" for d in DATA_DIRS], \
        first_boot["data_dirs"]


def test_configuration_files_are_conffiles(first_boot):
    listed = {line.split()[0] for line in first_boot["conffiles"].splitlines() if line.strip()}
    assert set(CONFFILES) <= listed, first_boot["conffiles"]


def test_replaces_debian_php_excimer(first_boot):
    """Debian's php-excimer, installed first, is replaced by ours: removed
    (Conflicts/Replaces), and PHP loads our extension instead."""
    rc, out = first_boot["debian_excimer_install"]
    assert rc == 0, out
    before, after = first_boot["excimer_before"], first_boot["excimer_after"]
    assert before["version"] and before["ours"] == "bool(false)", before
    rc, status, err = first_boot["debian_excimer_status"]
    assert status != "install ok installed", (rc, status, err)
    assert after["ours"] == "bool(true)" and after["version"] != before["version"], after


def test_php_sapi_installed_later_gets_extension(first_boot):
    """php8.2-fpm, installed after the extension, has it enabled (it was
    registered with php-maintscript-helper) and loads it."""
    rc, out = first_boot["later_sapi_install"]
    assert rc == 0, out
    assert "excimer.ini -> /etc/php/8.2/mods-available/excimer.ini" in first_boot["later_sapi_ini"], \
        first_boot["later_sapi_ini"]
    assert "excimer" in first_boot["later_sapi_m"].split(), first_boot["later_sapi_m"]


def test_postinst_starts_socket_not_service(first_boot):
    s = first_boot["after_install"]
    assert (s["socket"]["ActiveState"], s["socket"]["SubState"]) == ("active", "listening")
    assert s["socket"]["UnitFileState"] == "enabled"
    assert s["socket"]["Listen"] == f"{SOCK} (Datagram)"
    assert (s["service"]["ActiveState"], s["service"]["UnitFileState"]) == ("inactive", "disabled")
    assert s["pids"] == []


def test_socket_for_senders_only(first_boot):
    """The packaged socket is root:arclamp-senders 0660 in a root:arclamp-senders
    0750 directory (tmpfiles ran before the socket started), also after a
    restart of the socket; a user outside the group is refused."""
    want = [f"{SOCK} root {SENDERS} 660", f"{SOCK_DIR} root {SENDERS} 750"]
    assert first_boot["socket_perms"] == want
    assert first_boot["socket_perms_after_restart"] == want
    assert first_boot["send_before_member"] == "EACCES"
    assert SENDERS in first_boot["sender_groups"], first_boot["sender_groups"]


def test_udp_only_with_documented_dropin(first_boot):
    """No UDP port by default (not in the socket unit, nothing listening);
    with systemd/README.md's drop-in, 127.0.0.1:7761 listens, held by PID 1."""
    before, after = first_boot["after_install"], first_boot["after_udp_dropin"]
    assert set(before["listening"]) == {SOCK}, before["listening"]
    assert set(after["listening"]) == {SOCK, f"{UDP[0]}:{UDP[1]}"}, after["listening"]
    assert after["listening"][f"{UDP[0]}:{UDP[1]}"] == ("systemd", 1)
    assert f"{UDP[0]}:{UDP[1]} (Datagram)" in after["socket"]["Listen"]
    assert (after["socket"]["ActiveState"], after["socket"]["SubState"]) == ("active", "listening")


def test_postinst_starts_timers(first_boot):
    for t, st in first_boot["after_install"]["timers"].items():
        assert (st["ActiveState"], st["SubState"], st["UnitFileState"]) == ("active", "waiting", "enabled"), t
        assert st["NextElapseUSecRealtime"] not in ("", "n/a", "0"), t


def test_system_user_created(first_boot):
    fields = first_boot["passwd"].split(":")
    assert fields[0] == "arclamp" and int(fields[2]) < 1000, first_boot["passwd"]
    assert fields[5] == "/var/lib/arclamp"


def test_php_extension_enabled_for_cli(first_boot):
    assert "excimer" in first_boot["php_m"].split(), first_boot["php_m"]
    assert "excimer.ini" in first_boot["php_cli_ini"]


def test_svg_job_before_any_sample(first_boot):
    """The timer runs arclamp-svg every 15 minutes from installation on,
    before arclamp-log has written anything: that run must not fail."""
    rc, err, show, log = first_boot["svg_before_samples"]
    assert (rc, show["Result"]) == (0, "success"), f"{err}\n{show}\njournal:\n{log}"


def test_report_job_before_any_run_log(first_boot):
    """The report timer runs from installation on too, long before any run
    log exists: that run succeeds and writes an index saying so."""
    rc, err, show, log, index = first_boot["report_before_logs"]
    assert (rc, show["Result"], show["ExecMainStatus"]) == (0, "success", "0"), f"{err}\n{show}\njournal:\n{log}"
    assert "No run logs yet." in index, index


def test_hprof_fpm_installed_not_enabled(first_boot):
    """arclamp-hprof-fpm.service comes with the package, neither enabled nor
    started, and php8.2-fpm's installation (and start) does not start it."""
    for when in ("hprof_after_install", "hprof_after_fpm"):
        st = first_boot[when]
        assert (st["LoadState"], st["UnitFileState"], st["ActiveState"]) == ("loaded", "disabled", "inactive"), \
            (when, st)


def test_first_sample_after_install(first_boot):
    assert isinstance(first_boot["first_sample_logs"], dict), first_boot["first_sample_logs"]
    assert first_boot["service_after_sample"]["SubState"] == "running"


def test_first_boot_ends_with_verdict(first_boot):
    code, failed = first_boot["verdict"]
    assert (code, failed) == (0, "")


# --- second boot: the installed system -------------------------------------

@pytest.fixture(scope="module")
def system(first_boot, overlay, workdir, timings):
    """The installed system booted again; `at_boot`: what it looked like when
    the boot finished, before anything was sent to it."""
    t0 = time.monotonic()
    c = ct.Container(overlay.root, console_log=str(workdir / "boot2.log"), deadline=900)
    try:
        c.boot()
        state = c.wait_running(timeout=120)
        c.at_boot = snapshot(c)
        c.at_boot["state"] = state
        c.at_boot["failed"] = c.failed_units()
        c.t_booted = time.monotonic()
        timings["boot 2 (until is-system-running)"] = c.t_booted - t0
        yield c
    finally:
        c.close()
        timings["boot 2 total"] = time.monotonic() - t0


@pytest.fixture(scope="module")
def started(system):
    """The daemon started by a first datagram (done once)."""
    c = system
    if not getattr(c, "started_info", None):
        before = unit_state(c, "arclamp-log.service")
        t0 = time.monotonic()
        send(c, SAMPLE, "unix")
        st = c.wait_for("arclamp-log.service active (running)",
                        lambda: (lambda s: s if s["SubState"] == "running" else None)(
                            unit_state(c, "arclamp-log.service")), 30, interval=0.1)
        c.started_info = {"before": before, "after": st, "seconds": time.monotonic() - t0}
    return c


def test_at_boot_socket_listens_service_not_running(system):
    s = system.at_boot
    assert s["state"] == "running", s["failed"]
    assert (s["socket"]["ActiveState"], s["socket"]["SubState"]) == ("active", "listening")
    # Both addresses (UDP by the first boot's drop-in) are held by PID 1
    # (systemd), not by the daemon.
    assert set(s["listening"]) == {SOCK, f"{UDP[0]}:{UDP[1]}"}, s["listening"]
    assert all(owner == ("systemd", 1) for owner in s["listening"].values()), s["listening"]
    assert (s["service"]["ActiveState"], s["service"]["SubState"], s["service"]["MainPID"]) == \
        ("inactive", "dead", "0")
    assert s["pids"] == []
    # At boot, tmpfiles made the directory before the socket unit started.
    assert socket_perms(system) == [f"{SOCK} root {SENDERS} 660", f"{SOCK_DIR} root {SENDERS} 750"]


def test_first_datagram_starts_service_ready(started):
    c = started
    info = c.started_info
    assert info["before"]["ActiveState"] == "inactive"
    st = info["after"]
    # Type=notify: 'active (running)' is reached only on READY=1.
    assert (st["Type"], st["ActiveState"], st["SubState"]) == ("notify", "active", "running")
    pid = st["MainPID"]
    assert c.exec(["ps", "-o", "user=,comm=", "-p", pid]).stdout.split() == ["arclamp", "arclamp-log"]
    # STATUS= comes every 5 s.
    status = c.wait_for("STATUS= of arclamp-log",
                        lambda: c.show("arclamp-log.service", "StatusText")["StatusText"], 12)
    assert re.search(r"msg/s", status), status


def test_samples_land_in_trace_logs(started):
    c = started
    # The first datagram (unix socket, as www-data, a sender).
    for pattern in ("hourly/*.excimer.index.log", "hourly/*.excimer.all.log",
                    "daily/*.excimer.index.log", "daily/*.excimer.all.log"):
        assert wait_lines(c, pattern, "index.php;Foo::bar;strlen 1"), pattern
    # One over UDP.
    send(c, "/srv/mediawiki/php-1.44.0-wmf.3/api.php;Foo::viaUdp;strlen 2", "udp")
    assert wait_lines(c, "hourly/*.excimer.api.log", "Foo::viaUdp;strlen 2")
    assert wait_lines(c, "daily/*.excimer.all.log", "Foo::viaUdp;strlen 2")
    owners = c.exec(["sh", "-c", f"stat -c %U {LOGS}/hourly/*.log | sort -u"]).stdout.split()
    assert owners == ["arclamp"]
    # A hostile line is refused, the valid one in the same message kept.
    send(c, "bad line without count\n/srv/x/index.php;Foo::kept;strlen 3")
    assert wait_lines(c, "hourly/*.excimer.index.log", "Foo::kept;strlen 3")
    assert not any(grep_logs(c, "hourly/*.log", "bad line without count").values())


def test_outsider_cannot_send(started):
    """Issue 14, item 1: a local user outside arclamp-senders (nobody,
    supplementary groups cleared) cannot feed the logs — sendto() gets
    EACCES (the directory alone would refuse it) — while a member's line
    sent right after lands. With the packaged socket of before (0666) the
    first send succeeded."""
    c = started
    assert try_send(c, "/srv/x/outsider.php;Attack::fromNobody;strlen 1", AS_NOBODY) == "EACCES"
    # and with nobody's own groups (as a login would have them)
    assert try_send(c, "/srv/x/outsider.php;Attack::ownGroups;strlen 1",
                    ["setpriv", "--reuid=nobody", "--regid=nogroup", "--init-groups", "--"]) == "EACCES"
    assert try_send(c, "/srv/x/member.php;Member::sends;strlen 1",
                    ["setpriv", f"--reuid={SENDER}", f"--regid={SENDER}", "--init-groups", "--"]) == "sent"
    assert wait_lines(c, "hourly/*.excimer.member.log", "Member::sends;strlen 1")
    # the member's line came after: had the outsider's been taken, it would be written by now
    assert not any(grep_logs(c, "*/*.log", "Attack::").values())


def shipped_limits(service):
    """MemoryHigh=/MemoryMax=/TimeoutStartSec= of systemd/SERVICE in the tree."""
    from testkit import parse_unit, unit_values   # common/tests, on sys.path by conftest.py
    unit = parse_unit((REPO / "systemd" / service).read_text())
    return {k: (unit_values(unit, "Service", k) or [None])[-1] for k in ("MemoryHigh", "MemoryMax", "TimeoutStartSec")}


def size_bytes(text):
    m = re.fullmatch(r"(\d+)([KMGT]?)", text)
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2)]


def timespan_usec(c, text):
    out = c.exec(["systemd-analyze", "timespan", text]).stdout
    return int(re.search(r"(?:μ|u)s:\s*(\d+)", out).group(1))


def test_units_limits_applied(started, summary):
    """Issue 14, items 2 and 3: what systemd applies (systemctl show) is what
    the units ship: MemoryHigh=/MemoryMax= for the three services, a finite
    TimeoutStartSec= for the oneshots; and for the running daemon, its
    cgroup's memory.max, where the container has the memory controller."""
    c = started
    for svc in LIMITED_SERVICES:
        want = shipped_limits(svc)
        got = c.show(svc, "MemoryHigh", "MemoryMax", "TimeoutStartUSec", "Type", "ControlGroup")
        assert got["MemoryHigh"] == str(size_bytes(want["MemoryHigh"])), (svc, got)
        assert got["MemoryMax"] == str(size_bytes(want["MemoryMax"])), (svc, got)
        if got["Type"] == "oneshot":
            assert want["TimeoutStartSec"] and got["TimeoutStartUSec"] not in ("infinity", "0"), (svc, got)
            assert timespan_usec(c, got["TimeoutStartUSec"]) == timespan_usec(c, want["TimeoutStartSec"]), \
                (svc, got, want)
    # The running daemon's cgroup: memory.max/.high (unified hierarchy), or
    # memory.limit_in_bytes, to which systemd maps MemoryMax= on the legacy
    # memory controller (a hybrid layout; MemoryHigh= has no v1 form).
    cg = c.show("arclamp-log.service", "ControlGroup")["ControlGroup"]
    want = shipped_limits("arclamp-log.service")
    v2 = c.exec(["cat", f"/sys/fs/cgroup{cg}/memory.max", f"/sys/fs/cgroup{cg}/memory.high"], check=False)
    v1 = c.exec(["cat", f"/sys/fs/cgroup/memory{cg}/memory.limit_in_bytes"], check=False)
    if v2.returncode == 0:
        assert v2.stdout.split() == [str(size_bytes(want[k])) for k in ("MemoryMax", "MemoryHigh")], v2.stdout
        summary.append("system test: arclamp-log.service's memory.max and memory.high (cgroup v2) checked")
    elif v1.returncode == 0:
        assert v1.stdout.split() == [str(size_bytes(want["MemoryMax"]))], v1.stdout
        summary.append("system test: arclamp-log.service's memory.limit_in_bytes (cgroup v1) checked")
    else:
        summary.append("system test: no memory controller in the container: the cgroup's limit not checked")


def test_php_extension_sends_samples(started):
    """The packaged extension in zero-code mode, as PHP-FPM's user (a
    sender): php-cli samples itself and sends to the ingest socket."""
    c = started
    c.exec(["sh", "-c", "mkdir -p /srv/systemtest && cat > /srv/systemtest/phpentry.php"],
           input="<?php\nfunction burn() { $x = 0; $t = microtime(true);"
                 " while (microtime(true) - $t < 0.3) { $x += strlen(str_repeat('a', 100)); } return $x; }\n"
                 "echo burn(), \"\\n\";\n")
    c.exec(["php", "-d", f"excimer.arclamp_target=unix://{SOCK}", "-d", "excimer.arclamp_period=0.01",
            "-d", "excimer.arclamp_event_type=real", "/srv/systemtest/phpentry.php"], user=SENDER, timeout=60)
    found = wait_lines(c, "hourly/*.excimer.phpentry.log", "/srv/systemtest/phpentry.php;", 20)
    assert any("burn" in c.read_file(p) for p in found)


ARCLAMP_CLIENT = """<?php
require_once 'Wikimedia/ArcLamp.php';
Wikimedia\\ArcLamp::collect( [ 'target' => 'unix://%s', 'period' => 0.01, 'event-type' => EXCIMER_REAL ] );
function arclampClientBurn() {
    $x = 0; $t = microtime( true );
    while ( microtime( true ) - $t < 0.3 ) { $x += strlen( str_repeat( 'a', 100 ) ); }
    return $x;
}
echo arclampClientBurn(), "\\n";
""" % SOCK


def test_arclamp_php_client_sends_samples(started):
    """The packaged ArcLamp.php client, loaded from the include path as
    documented, as PHP-FPM's user (zero-code mode explicitly off, so
    every sample comes from the client): its samples land in the trace log
    of the script."""
    c = started
    c.exec(["sh", "-c", "mkdir -p /srv/systemtest && cat > /srv/systemtest/arclampclient.php"], input=ARCLAMP_CLIENT)
    c.exec(["php", "-d", "excimer.arclamp_target=", "/srv/systemtest/arclampclient.php"], user=SENDER, timeout=60)
    found = wait_lines(c, "hourly/*.excimer.arclampclient.log", "/srv/systemtest/arclampclient.php;", 20)
    assert any("arclampClientBurn" in c.read_file(p) for p in found), found


def test_journal_has_structured_fields(started):
    entries = wait_event(started, "started")
    e = entries[-1]
    assert e.get("ARCLAMP_FILE") == "/etc/arclamp/arclamp-log.yaml"
    assert "2 sockets" in e.get("MESSAGE", ""), e.get("MESSAGE")
    assert e.get("_SYSTEMD_UNIT") == "arclamp-log.service"
    assert e.get("SYSLOG_IDENTIFIER") == "arclamp-log"
    assert e.get("PRIORITY") in {"5", "6"} and e.get("MESSAGE")
    # The refused line of test_samples... (or any): counted with a reason.
    send(started, "no count here")
    inv = wait_event(started, "invalid_lines", timeout=15)
    assert inv[-1].get("ARCLAMP_COUNT") and "no_count" in inv[-1].get("ARCLAMP_REASON", ""), inv[-1]


RELOAD_GROUP = """\
  - period: reloadtest
    format: "%Y-%m-%d.reloadtest"
    retain: 3
"""


def test_reload(started):
    c = started
    conf = "/etc/arclamp/arclamp-log.yaml"
    orig = c.read_file(conf)
    pid = c.show("arclamp-log.service", "MainPID")["MainPID"]
    try:
        # A change that takes effect: a third log group.
        assert "\nlogs:\n" in orig
        c.write_file(conf, orig.replace("\nlogs:\n", "\nlogs:\n" + RELOAD_GROUP, 1))
        cur = journal_cursor(c)
        c.exec(["systemctl", "reload", "arclamp-log.service"], timeout=60)
        ev = wait_event(c, "reloaded", cur)
        assert ev[-1].get("ARCLAMP_FILE") == conf
        send(c, "/srv/mediawiki/w/index.php;Reload::check;strlen 1")
        assert wait_lines(c, "reloadtest/*.reloadtest.index.log", "Reload::check;strlen 1")
        # A broken file: reported, the running configuration kept.
        c.write_file(conf, "logs: [\n")
        cur = journal_cursor(c)
        c.exec(["systemctl", "reload", "arclamp-log.service"], timeout=60)
        wait_event(c, "reload_failed", cur)
        send(c, "/srv/mediawiki/w/index.php;Reload::stillOld;strlen 1")
        assert wait_lines(c, "reloadtest/*.reloadtest.index.log", "Reload::stillOld;strlen 1")
        st = c.show("arclamp-log.service", "ActiveState", "SubState", "MainPID", "NRestarts")
        assert (st["ActiveState"], st["SubState"], st["MainPID"], st["NRestarts"]) == \
            ("active", "running", pid, "0")
    finally:
        c.write_file(conf, orig)
        c.exec(["systemctl", "reload", "arclamp-log.service"], timeout=60, check=False)


def test_timer_runs_arclamp_svg(system):
    """The timer was enabled and, the machine having been 'off' when a run
    was due (its stamp dated an hour back), catches up at boot
    (Persistent=yes) and runs arclamp-svg on the logs of the first boot."""
    c = system
    t = unit_state(c, "arclamp-svg.timer")
    assert (t["ActiveState"], t["UnitFileState"]) == ("active", "enabled")
    comp = unit_state(c, "arclamp-svg-compress.timer")
    assert (comp["ActiveState"], comp["UnitFileState"]) == ("active", "enabled")
    # Triggered in this boot (a monotonic trigger time), then finished.
    c.wait_for("arclamp-svg.timer to trigger", lambda: unit_state(c, "arclamp-svg.timer")
               ["LastTriggerUSecMonotonic"] not in ("0", ""), 120)
    svc = c.wait_for("arclamp-svg.service to finish", lambda: (lambda s: s if s["ExecMainExitTimestampMonotonic"]
                     not in ("0", "") and s["ActiveState"] == "inactive" else None)(
                     c.show("arclamp-svg.service", "ActiveState", "Result", "ExecMainStatus",
                            "ExecMainExitTimestampMonotonic")), 120)
    assert (svc["Result"], svc["ExecMainStatus"]) == ("success", "0"), svc
    # Armed for the next tick: a timer has no next elapse while the run it
    # started is going (on a busy machine the test can look then).
    for timer in ("arclamp-svg.timer", "arclamp-svg-compress.timer"):
        wait_next_elapse(c, timer)
    graphs = c.exec(["sh", "-c", "cd /var/lib/arclamp/svgs && ls */*.svgz"]).stdout.split()
    for period in ("hourly", "daily"):
        for suffix in (".excimer.index.svgz", ".excimer.index.reversed.svgz", ".excimer.all.svgz"):
            assert any(g.startswith(period + "/") and g.endswith(suffix) for g in graphs), (period, suffix, graphs)
    index = c.read_file("/var/lib/arclamp/index.html")
    assert "excimer.index" in index
    c.exec(["sh", "-c", "zcat /var/lib/arclamp/svgs/hourly/*.excimer.index.svgz | grep -q 'Foo::bar'"])


# A run log as arclamp-log writes it (common/src/runline.h): one run per
# bucket, two hours, so the second also gets its diff page.
REPORT_RUN = """\
xhprof/1 {id} begin {t} web1 wt,cpu /srv/w/index.php
xhprof/1 {id} arc 1 {main} 80 - - main()
xhprof/1 {id} arc 2 60 50 - - main()==>foo
xhprof/1 {id} end 2 0
"""
REPORT_LOGS = {"2026-11-26_02.excimer.index": REPORT_RUN.format(id="0011223344556676", t=1795658400, main=90),
               "2026-11-26_03.excimer.index": REPORT_RUN.format(id="0011223344556677", t=1795662000, main=100)}
# And one of MediaWiki's shape (bench/runlogs.py: 20 runs of 2,000 arcs), so
# Graphviz lays out a callgraph of about a hundred functions under the hardening.
REPORT_BENCH = "2026-11-26_04.excimer.api"


def write_as_arclamp(c, path, text):
    c.exec(["sh", "-c", 'mkdir -p "$(dirname "$0")" && cat > "$0"', path], input=text, user="arclamp")


@contextlib.contextmanager
def timer_held(c, timer, service, timeout=300):
    """The timer stopped, and its last run waited out, while a test starts
    the service by hand and looks at what that run wrote: a tick in between
    (arclamp-report.timer fires at :05/:20/:35/:50) would start a run of its
    own, which `systemctl start` joins or which rewrites the pages being
    compared. Started again afterwards; Persistent= may then start one run
    for the tick it missed, which the next user of the service waits out."""
    c.exec(["systemctl", "stop", timer], timeout=60)
    try:
        c.wait_for(f"{service} idle", lambda: c.show(service, "ActiveState")["ActiveState"]
                   in ("inactive", "failed"), timeout)
        yield
    finally:
        c.exec(["systemctl", "start", timer], timeout=60)


def report_run(c, timeout=300):
    """Starts arclamp-report.service once, after any run the timer started
    has finished (systemctl start would join that run instead), and returns
    what systemd says of it, with its duration."""
    c.wait_for("arclamp-report.service idle", lambda: c.show("arclamp-report.service", "ActiveState")
               ["ActiveState"] in ("inactive", "failed"), timeout)
    r = c.exec(["systemctl", "start", "arclamp-report.service"], timeout=timeout, check=False)
    st = c.show("arclamp-report.service", "Result", "ExecMainStatus", "ExecMainStartTimestampMonotonic",
                "ExecMainExitTimestampMonotonic", "InvocationID")
    st["returncode"], st["stderr"] = r.returncode, r.stderr
    st["seconds"] = (int(st["ExecMainExitTimestampMonotonic"] or 0) -
                     int(st["ExecMainStartTimestampMonotonic"] or 0)) / 1e6
    st["journal"] = c.exec(["journalctl", "--no-pager", "-o", "cat", f"_SYSTEMD_INVOCATION_ID={st['InvocationID']}"],
                           check=False).stdout
    return st


@pytest.fixture(scope="module")
def report_pages(system, tmp_path_factory, summary):
    """Run logs written as arclamp (as arclamp-log would), then one run of
    arclamp-report.service as its timer starts it: what systemd said, and
    the pages' owners."""
    c = system
    for name, text in REPORT_LOGS.items():
        write_as_arclamp(c, f"{LOGS}/hourly/{name}.runs", text)
    bench = tmp_path_factory.mktemp("runlogs")
    subprocess.run([sys.executable, str(REPO / "bench/runlogs.py"), str(bench), "--logs", "1", "--runs", "20"],
                   check=True, capture_output=True, timeout=120)
    (made,) = (bench / "hourly").iterdir()
    write_as_arclamp(c, f"{LOGS}/hourly/{REPORT_BENCH}.runs", made.read_text())
    with timer_held(c, "arclamp-report.timer", "arclamp-report.service"):
        st = report_run(c)
    summary.append(f"system test: arclamp-report.service on 3 run logs (one of 20 runs x 2,000 arcs): "
                   f"{st['seconds']:.2f} s")
    st["owners"] = c.exec(["sh", "-c", f'cd {REPORTS} && find . -mindepth 1 -printf "%P %u %g %m\\n" | sort'],
                          check=False).stdout
    return st


def test_report_service_writes_pages(report_pages, system):
    """arclamp-report.service, as its timer starts it (the hardened unit as
    shipped), turns the run logs into pages under /var/lib/arclamp/reports,
    owned by arclamp; Graphviz, in the same process, drew the callgraphs
    under MemoryDenyWriteExecute= and the system call filter."""
    c, st = system, report_pages
    assert (st["returncode"], st["Result"], st["ExecMainStatus"]) == (0, "success", "0"), st
    owners = dict((line.split(" ", 1)[0], line.split(" ", 1)[1]) for line in st["owners"].splitlines())
    want = ["index.html"] + [f"hourly/{kind}/{name}{ext}"
                             for name in [*REPORT_LOGS, REPORT_BENCH]
                             for kind, ext in (("report", ".html"), ("callgraph", ".svg"), ("summary", ".json"))]
    want += ["hourly/diff/2026-11-26_03.excimer.index.html"]
    for page in want:
        assert owners.get(page) == "arclamp arclamp 644", (page, st["owners"])
    assert all(o.startswith("arclamp arclamp ") for o in owners.values()), st["owners"]
    summary_json = json.loads(c.read_file(f"{REPORTS}/hourly/summary/2026-11-26_03.excimer.index.json"))
    assert (summary_json["runs"], summary_json["bad_lines"], summary_json["incomplete"]) == (1, 0, 0), summary_json
    # Graphviz's SVG: every function of the small run, and a hundred boxes or so of the big one
    small = c.read_file(f"{REPORTS}/hourly/callgraph/2026-11-26_03.excimer.index.svg")
    assert "main()" in small and "foo" in small and 'class="node"' in small, small[:2000]
    big = c.read_file(f"{REPORTS}/hourly/callgraph/{REPORT_BENCH}.svg")
    assert big.count('class="node"') >= 20, big[:2000]
    index = c.read_file(f"{REPORTS}/index.html")
    assert "2026-11-26_03.excimer.index.html" in index and "diff with the previous" in index
    # nothing said on stderr (--quiet: only trouble is), nothing else written
    assert "arclamp-report:" not in st["journal"], st["journal"]
    assert not c.exists("/var/lib/arclamp/.cache"), "written outside the reports directory"


def test_report_service_hardening_applied(system):
    """What the unit asks for is what systemd applied to that run: the
    settings Graphviz could trip over, and the one writable directory."""
    got = system.show("arclamp-report.service", "MemoryDenyWriteExecute", "ProtectSystem", "PrivateNetwork",
                      "NoNewPrivileges", "SystemCallFilter", "SystemCallErrorNumber", "StateDirectory",
                      "RestrictAddressFamilies", "User", "Nice", "IOSchedulingClass")
    assert (got["MemoryDenyWriteExecute"], got["ProtectSystem"], got["PrivateNetwork"], got["NoNewPrivileges"]) == \
        ("yes", "strict", "yes", "yes"), got
    # an allow list (no leading ~), without the privileged calls
    assert got["SystemCallFilter"] and not got["SystemCallFilter"].startswith("~"), got
    assert " setuid " not in f" {got['SystemCallFilter']} " and " reboot " not in f" {got['SystemCallFilter']} ", got
    assert got["SystemCallErrorNumber"] in ("EPERM", "1"), got
    assert (got["StateDirectory"], got["RestrictAddressFamilies"], got["User"]) == \
        ("arclamp/reports", "AF_UNIX", "arclamp"), got


def test_report_service_lock_held_is_success(report_pages, system):
    """Exit status 75 (another generate holds the lock) counts as success:
    the unit does not fail, and no page changes."""
    c = system
    listing = ["sh", "-c", f"cd {REPORTS} && find . -type f ! -name '.*' -printf '%P %T@\\n' | sort"]
    with timer_held(c, "arclamp-report.timer", "arclamp-report.service"):
        before = c.exec(listing).stdout
        r = c.exec(["flock", f"{REPORTS}/.arclamp-report.lock", "systemctl", "start", "arclamp-report.service"],
                   timeout=120, check=False)
        st = c.show("arclamp-report.service", "Result", "ExecMainStatus", "ActiveState")
        after = c.exec(listing).stdout
    assert (r.returncode, st["Result"], st["ExecMainStatus"], st["ActiveState"]) == (0, "success", "75", "inactive"), \
        (r.stderr, st)
    assert after == before


def wait_next_elapse(c, timer, timeout=300):
    """The timer's next elapse, once it has one: none while the run it
    started is going (Persistent= may start one when the timer starts)."""
    return c.wait_for(f"{timer} armed", lambda: (lambda v: v if v not in ("", "n/a", "0") else None)(
        unit_state(c, timer)["NextElapseUSecRealtime"]), timeout)


def test_report_timer_enabled(system):
    t = unit_state(system, "arclamp-report.timer")
    assert (t["ActiveState"], t["UnitFileState"]) == ("active", "enabled")
    wait_next_elapse(system, "arclamp-report.timer")


COMPRESS_LINES = ["/srv/mediawiki/w/index.php;Compress::zeta;strlen 3",
                  "/srv/mediawiki/w/index.php;Compress::alpha;strlen 1",
                  "/srv/mediawiki/w/api.php;Compress::mid;strlen 2"]


def test_compress_under_systemd(system):
    """arclamp-svg-compress.service, as its timer runs it: a trace log last
    written three days ago becomes X.log.gz, sorted, with its mtime kept."""
    c = system
    out = c.exec(["sh", "-c", 't=$(( $(date +%s) - 3 * 86400 )); '
                  f'f={LOGS}/daily/$(date -d @$t +%Y-%m-%d).excimer.compresstest.log; '
                  f'install -d -o arclamp -g arclamp {LOGS}/daily && cat > "$f" && '
                  'chown arclamp:arclamp "$f" && touch -d @$t "$f" && echo "$f $t"'],
                 input="".join(line + "\n" for line in COMPRESS_LINES)).stdout.split()
    path, mtime = out
    r = c.exec(["systemctl", "start", "arclamp-svg-compress.service"], timeout=120, check=False)
    st = c.show("arclamp-svg-compress.service", "Result", "ExecMainStatus")
    log = c.exec("journalctl --no-pager -o cat -u arclamp-svg-compress.service", check=False).stdout
    assert (r.returncode, st["Result"], st["ExecMainStatus"]) == (0, "success", "0"), f"{r.stderr}\n{log}"
    assert not c.exists(path), f"{path} still there"
    assert c.exec(["stat", "-c", "%Y %U", path + ".gz"]).stdout.split() == [mtime, "arclamp"]
    assert c.exec(["zcat", path + ".gz"]).stdout == "".join(line + "\n" for line in sorted(COMPRESS_LINES))


def test_metrics_file(started):
    c = started
    text = c.wait_for("arclamp-log.prom with received lines", lambda: (lambda t: t if re.search(
        r"^arclamp_log_lines_received_total [1-9]", t, re.M) else None)(
        c.exec(["cat", "/var/lib/arclamp/arclamp-log.prom"], check=False).stdout), 25)
    assert "arclamp_log_messages_received_total" in text


def test_watchdog_armed_and_fed(started):
    c = started
    st = c.show("arclamp-log.service", "WatchdogUSec", "ExecMainStartTimestampMonotonic")
    assert st["WatchdogUSec"] == "30s"
    start = int(st["ExecMainStartTimestampMonotonic"])
    # sd-event sends WATCHDOG=1 every 15-22.5 s: the timestamp moves past
    # the start.
    wd = c.wait_for("a WATCHDOG=1 keep-alive", lambda: (lambda v: v if v > start + 1_000_000 else None)(
        int(c.show("arclamp-log.service", "WatchdogTimestampMonotonic")["WatchdogTimestampMonotonic"] or 0)),
        40, interval=1)
    assert wd > start
    st = c.show("arclamp-log.service", "ActiveState", "NRestarts", "WatchdogTimestamp")
    assert (st["ActiveState"], st["NRestarts"]) == ("active", "0")
    assert st["WatchdogTimestamp"]


# The profiled PHP-FPM as README.Debian enables it: nginx's default site
# with the shipped snippet at 1 in 2, and a script telling which instance ran
# it (its pid, excimer.hprof_sample_rate, whether an API module is loaded).
HPROF_SITE = """server {
    listen 80 default_server;
    root /var/www/html;
    index index.html;
    location ~ \\.php$ {
        include snippets/fastcgi-php.conf;
        fastcgi_pass $arclamp_php_backend;
    }
}
"""
PROBE_PHP = """<?php
echo getmypid(), ' ', ini_get('excimer.hprof_sample_rate'), ' ', (int) extension_loaded('xhprof'), "\\n";
"""
# n GETs of the probe through nginx, with PHP's CLI (no curl in the
# container): "STATUS LINE | PID RATE MODULE" each.
FETCH_PHP = r"""
for ($i = 0; $i < (int) $argv[1]; $i++) {
    $body = @file_get_contents('http://127.0.0.1/probe.php');
    echo ($http_response_header[0] ?? 'no response'), ' | ', trim((string) $body), "\n";
}
"""
PROM = "/var/lib/arclamp/arclamp-log.prom"


def fetch_probe(c, n):
    out = c.exec(["php", "-d", "excimer.arclamp_target=", "-r", FETCH_PHP, "--", str(n)], timeout=120).stdout
    rows = []
    for line in out.splitlines():
        status, _, body = line.partition(" | ")
        rows.append((status, *body.split()))
    assert len(rows) == n, out
    return rows


def runs_written(c, group="hourly"):
    text = c.read_file(PROM) if c.exists(PROM) else ""
    m = re.search(r'^arclamp_log_runs_written_total\{group="%s"\} (\d+)$' % group, text, re.M)
    return int(m.group(1)) if m else 0


def children(c, pid):
    return c.exec(["ps", "-o", "pid=,user=", "--ppid", str(pid)], check=False).stdout.split()


def test_hprof_fpm_split_as_readme_debian_says(started, summary):
    """README.Debian's steps on the installed system: zero-code collection
    on (excimer.ini's shipped target line), `systemctl enable --now
    arclamp-hprof-fpm`, the snippet included at nginx's http level (its
    share set to 50%), the default site's PHP location passing to
    $arclamp_php_backend, a reload of php8.2-fpm (which reloads the twin too)
    and nginx. Then through nginx: every request succeeds; both instances
    serve some; the twin's requests (its own workers, www-data, excimer.
    hprof_sample_rate 1) are each profiled and their runs are all that
    arclamp-log writes, php8.2-fpm's (rate 0, no API module) none; the twin
    runs under the unit's hardening (root master with the bounding set
    CHOWN KILL SETGID SETUID, workers with a seccomp filter but without
    no_new_privs, so mail()'s set-id helpers still work), logs to the
    journal, its socket is www-data's. Stopped, its share is served by
    php8.2-fpm (the snippet's backup) and nothing fails."""
    c = started
    c.exec(["sed", "-i", r's|^;\(excimer.arclamp_target = "unix:///run/arclamp/ingest.sock"\)$|\1|', EXCIMER_INI])
    assert 'excimer.arclamp_target = "unix:///run/arclamp/ingest.sock"' in c.read_file(EXCIMER_INI).splitlines()
    c.exec(["systemctl", "enable", "--now", HPROF_UNIT], timeout=60)
    c.write_file("/etc/nginx/conf.d/arclamp-hprof-split.conf", "include snippets/arclamp-hprof-split.conf;\n")
    c.exec(["sed", "-i", "s/^    0.1%    arclamp_php_hprof;$/    50%    arclamp_php_hprof;/", SPLIT_SNIPPET])
    assert "    50%    arclamp_php_hprof;" in c.read_file(SPLIT_SNIPPET).splitlines()
    c.write_file("/etc/nginx/sites-available/default", HPROF_SITE)
    c.write_file("/var/www/html/probe.php", PROBE_PHP)
    cursor = journal_cursor(c)
    nginx_master = c.show("nginx.service", "MainPID")["MainPID"]
    old_nginx_workers = children(c, nginx_master)[0::2]
    c.exec("systemctl reload php8.2-fpm && nginx -t && systemctl reload nginx", timeout=60)
    reloaded = c.wait_for(f"{HPROF_UNIT} reloaded with php8.2-fpm", lambda: [
        e for e in journal(c, HPROF_UNIT, cursor) if str(e.get("MESSAGE", "")).startswith("Reloaded")], 30)
    assert reloaded
    twin = c.show(HPROF_UNIT, "ActiveState", "SubState", "MainPID", "NRestarts")
    main = c.show("php8.2-fpm.service", "ActiveState", "MainPID")
    assert (twin["ActiveState"], twin["SubState"], twin["NRestarts"]) == ("active", "running", "0"), twin
    # nginx's reload returns before its old workers, which still serve the
    # site without its PHP location (the probe's source as text), are gone
    c.wait_for("nginx's workers with the new configuration", lambda: (
        lambda now: now and not set(now) & set(old_nginx_workers))(
            children(c, nginx_master)[0::2]), 30)

    before = {g: runs_written(c, g) for g in ("hourly", "daily")}
    rows = fetch_probe(c, 40)
    assert all(r[0].endswith(" 200 OK") for r in rows), rows
    twin_workers, main_workers = children(c, twin["MainPID"]), children(c, main["MainPID"])
    served = {"1": [r for r in rows if r[2] == "1"], "0": [r for r in rows if r[2] == "0"]}
    assert served["1"] and served["0"] and len(served["1"]) + len(served["0"]) == 40, rows
    assert {r[1] for r in served["1"]} <= set(twin_workers[0::2]), (served["1"], twin_workers)
    assert {r[1] for r in served["0"]} <= set(main_workers[0::2]), (served["0"], main_workers)
    assert all(r[3] == "0" for r in rows), "an API module is loaded: %r" % rows
    # every request of the twin profiled, its run written; none of php8.2-fpm's
    n = len(served["1"])
    # (the metrics file is written every 15 s)
    c.wait_for(f"{n} runs written", lambda: all(runs_written(c, g) >= before[g] + n for g in before), 45)
    assert {g: runs_written(c, g) - before[g] for g in before} == {"hourly": n, "daily": n}

    # the unit's hardening, as the kernel sees it
    assert c.exec(["ps", "-o", "user=", "-p", twin["MainPID"]]).stdout.split() == ["root"]
    assert set(twin_workers[1::2]) == {"www-data"} and len(twin_workers) == 4, twin_workers
    status = c.read_file(f"/proc/{twin_workers[0]}/status")
    assert re.search(r"^NoNewPrivs:\s+0$", status, re.M) and re.search(r"^Seccomp:\s+2$", status, re.M), status
    # CAP_CHOWN (0), CAP_KILL (5), CAP_SETGID (6), CAP_SETUID (7)
    assert re.search(r"^CapBnd:\s+0*e1$", status, re.M), status
    assert c.exec(["stat", "-c", "%U %G %a", "/run/arclamp-hprof-fpm/php-fpm.sock"]).stdout.split() == \
        ["www-data", "www-data", "660"]
    assert any(e.get("SYSLOG_IDENTIFIER") == "arclamp-hprof-fpm" for e in journal(c, HPROF_UNIT)), \
        "no journal entry of php-fpm as arclamp-hprof-fpm"

    # stopped: php8.2-fpm serves its share, nothing fails, no run
    c.exec(["systemctl", "stop", HPROF_UNIT], timeout=60)
    rows = fetch_probe(c, 20)
    assert all(r[0].endswith(" 200 OK") and r[2] == "0" for r in rows), rows
    assert {g: runs_written(c, g) - before[g] for g in before} == {"hourly": n, "daily": n}
    summary.append(f"system test: the split through nginx: {n} of 40 requests to {HPROF_UNIT}, "
                   f"each profiled, runs written {n}; stopped: 20 of 20 served by php8.2-fpm")


def test_purge_removes_units_and_processes(started):
    """Last: destructive."""
    c = started
    assert daemon_pids(c), "the daemon should run before the purge"
    # The administrator's own drop-ins are theirs, not the packages': they
    # go first, so that what is left below is the packages' doing.
    c.exec(["rm", "-r", UDP_DROPIN.rsplit("/", 1)[0], SENDER_DROPIN[0]])
    r = c.exec(["dpkg", "--purge"] + PACKAGES, timeout=300, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    for u in UNITS:
        assert not c.exists(f"/lib/systemd/system/{u}"), u
    leftovers = c.exec("find /etc/systemd/system -name 'arclamp*'", timeout=30).stdout
    assert leftovers == ""
    c.exec(["systemctl", "daemon-reload"], timeout=60)
    assert c.exec("systemctl list-unit-files --no-legend | grep arclamp", check=False).stdout == ""
    assert c.exec("systemctl list-units --all --no-legend | grep arclamp", check=False).stdout == ""
    time.sleep(0.5)
    assert daemon_pids(c) == []
    assert c.exec(["pgrep", "-u", "arclamp"], check=False).stdout == ""
    assert listening(c) == {}
    assert "excimer" not in c.exec(["php", "-m"], check=False).stdout.split()
    assert c.exec("ls /etc/php/8.2/cli/conf.d/ | grep excimer", check=False).stdout == ""

    # What the README's "Purge" says: the configuration and everything
    # generated goes; the trace logs and the user stay.
    for f in CONFFILES + ["/usr/lib/tmpfiles.d/arclamp-log.conf", "/usr/lib/tmpfiles.d/arclamp-svg.conf",
                          "/usr/lib/tmpfiles.d/arclamp-report.conf", REPORTS,
                          "/var/lib/arclamp/svgs", "/var/lib/arclamp/index.html",
                          "/var/lib/arclamp/index.json", "/var/lib/arclamp/arclamp-log.prom",
                          "/var/lib/arclamp/.arclamp-svg"]:
        assert not c.exists(f), f"{f} is left after the purge"
    r = c.exec(["find", LOGS, "-type", "f", "-name", "*.log*"], timeout=30, check=False)
    kept = r.stdout.split()
    assert any(f.startswith(f"{LOGS}/hourly/") and f.endswith(".excimer.index.log") for f in kept), \
        f"the trace logs are gone after the purge: {r.stdout}{r.stderr}"
    assert c.exec(["getent", "passwd", "arclamp"], check=False).returncode == 0


def test_second_boot_ends_with_verdict(system):
    """The boot ends by itself with the container's verdict: 0 when no unit
    failed during it."""
    code, failed = system.stop_with_verdict(timeout=120)
    assert (code, failed) == (0, "")
