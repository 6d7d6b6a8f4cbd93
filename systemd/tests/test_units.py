"""Host-side checks of the systemd units as `make install` installs them
(no root, no container; needs only the build):

- `systemd-analyze verify` reports nothing for the nine units;
- every service scores an exposure of at most 2.0 in `systemd-analyze
  security --offline=true` (the scores are printed), the profiled PHP-FPM
  (arclamp-hprof-fpm.service) at most 3.5: it must leave the application
  the view of the system php8.2-fpm.service gives it (which scores 9.6);
- per service, every check of `systemd-analyze security --offline=true
  --json=short` (systemd's own parser and list of checks) is set, except
  the ones of UNSET_ALLOWED, each with its reason. The total score alone
  would stay under 2.0 without ProtectSystem= and more; this fails as soon
  as any single hardening setting goes (and when an allowed one becomes set,
  so the list stays true);
- the settings the units are for, beyond hardening (Type=notify, the
  watchdog, Restart=, ExecReload=, the sockets, the priorities, the timers'
  schedules, what arclamp-report.service may write), read from the
  installed files with testkit.parse_unit;
- the trust boundary (issue 14): the socket is the unix socket only (UDP is
  an opt-in drop-in), root:arclamp-senders 0660 in a 0750 directory, and the
  installed sysusers.d and tmpfiles.d files declare that group and directory;
  every service has MemoryHigh= < MemoryMax=, the oneshots a finite
  TimeoutStartSec= (below their timer's period where that is a day) and no
  RuntimeMaxSec= (no effect on Type=oneshot), and only the two generate
  jobs treat exit status 75 (another run holds the lock) as success.

The units are installed with PREFIX and SYSCONFDIR under a temporary
directory (not DESTDIR), so the ExecStart= paths written into them point at
programs that exist: verify checks that they are executable.
"""

import ipaddress
import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from testkit import exec_argv, parse_unit, unit_values  # common/tests, on sys.path by conftest.py

REPO = Path(__file__).resolve().parents[2]
UNITS = ["arclamp-log.socket", "arclamp-log.service", "arclamp-svg.service", "arclamp-svg.timer",
         "arclamp-svg-compress.service", "arclamp-svg-compress.timer",
         "arclamp-report.service", "arclamp-report.timer", "arclamp-hprof-fpm.service"]
SERVICES = [u for u in UNITS if u.endswith(".service")]
# The project's own programs; arclamp-hprof-fpm.service runs Debian's php-fpm8.2.
ARCLAMP_SERVICES = [u for u in SERVICES if u != "arclamp-hprof-fpm.service"]
MAX_EXPOSURE = {**{s: 2.0 for s in ARCLAMP_SERVICES}, "arclamp-hprof-fpm.service": 3.5}

# The checks of `systemd-analyze security` (their "json_field") each service
# may leave unset, with the exposure analyze then reports for it (so a weaker
# form of the same setting, e.g. IPAddressAllow= without IPAddressDeny=any,
# still fails). Every other check must be set.
_UNSET_ALL = {
    # No chroot/image: the service runs the host's /usr/bin program and libraries.
    "RootDirectoryOrRootImage": 0.1,
    # Implied by ProtectSystem=/PrivateTmp= (systemd.exec(5)); analyze scores only the explicit setting.
    "PrivateMounts": 0.2,
    # AF_UNIX is needed: the journal, sd_notify, and (arclamp-log) the unix ingest socket.
    "RestrictAddressFamilies_AF_UNIX": 0.1,
    # No device at all: PrivateDevices=yes + DevicePolicy=closed (analyze still counts char-rtc:r).
    "DeviceAllow": 0.1,
    # UMask=0022: graphs and trace logs must be readable by a web server.
    "UMask": 0.1,
}
UNSET_ALLOWED = {
    "arclamp-log.service": {
        **_UNSET_ALL,
        # AF_INET/AF_INET6: Redis over TCP and the UDP ingest socket.
        "RestrictAddressFamilies_AF_INET_INET6": 0.3,
        # The host's network: Redis over TCP, the UDP ingest socket.
        "PrivateNetwork": 0.5,
        # IPAddressDeny=any with IPAddressAllow=localhost (Redis on this host): 0.1, "only localhost entries".
        "IPAddressDeny": 0.1,
    },
    "arclamp-svg.service": _UNSET_ALL,
    "arclamp-svg-compress.service": _UNSET_ALL,
    # the same as arclamp-svg's generate: Graphviz runs in-process, and still
    # needs no exception (MemoryDenyWriteExecute=, the system call filter)
    "arclamp-report.service": _UNSET_ALL,
    # A PHP-FPM master running the application as php8.2-fpm.service does:
    # what is left unset is what the application (or the master's job) needs,
    # or what would make it behave differently from the main instance, whose
    # requests it must profile faithfully (the unit's comment).
    "arclamp-hprof-fpm.service": {
        **_UNSET_ALL,
        # UMask=0022: php8.2-fpm's, so files the application writes get the same modes.
        "UMask": 0.1,
        # Runs as root: the master switches each worker to the pool's user (and
        # chowns its socket); for a root service these two do not apply.
        "UserOrDynamicUser": 0.4,
        "SupplementaryGroups": 0.0,
        "RemoveIPC": 0.0,
        # setuid()/setgid()/initgroups() and chown() of the socket (in @privileged)
        "SystemCallFilter_privileged": 0.2,
        # PHP's proc_nice(), a pool's rlimit_files and process.priority
        "SystemCallFilter_resources": 0.2,
        "CapabilityBoundingSet_CAP_SET_UID_GID_PCAP": 0.3,
        "CapabilityBoundingSet_CAP_CHOWN_FSETID_SETFCAP": 0.2,
        # signalling workers that run as another user
        "CapabilityBoundingSet_CAP_KILL": 0.1,
        # mail() runs sendmail: postfix's postdrop is setgid, exim setuid
        "NoNewPrivileges": 0.2,
        # PCRE's JIT and opcache.jit: without them the profiled requests would run slower code
        "MemoryDenyWriteExecute": 0.1,
        # the application's connections (databases, caches, HTTP; AF_NETLINK:
        # getaddrinfo()'s AI_ADDRCONFIG)
        "RestrictAddressFamilies_AF_INET_INET6": 0.3,
        "RestrictAddressFamilies_AF_NETLINK": 0.1,
        "PrivateNetwork": 0.5,
        "IPAddressDeny": 0.2,
        # the application's files, users and /tmp as in the main instance:
        # ProtectSystem=full (the pool's user cannot write /usr or /etc anyway),
        # not strict (it writes below /var); sites under /home; a /tmp shared
        # with the main instance; /proc/loadavg (sys_getloadavg())
        "ProtectSystem": 0.1,
        "ProtectHome": 0.2,
        "PrivateTmp": 0.2,
        "PrivateUsers": 0.2,
        "ProcSubset": 0.1,
    },
}


@pytest.fixture(scope="module")
def install_top(tmp_path_factory):
    top = tmp_path_factory.mktemp("install")
    r = subprocess.run(
        ["make", "-s", "--no-print-directory", "install", f"PREFIX={top}/usr", f"SYSCONFDIR={top}/etc",
         f"PHP_EXTDIR={top}/php", f"PHP_INIDIR={top}/phpini"],
        cwd=REPO, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"make install failed:\n{r.stdout}\n{r.stderr}"
    return top


@pytest.fixture(scope="module")
def unitdir(install_top):
    d = install_top / "usr/lib/systemd/system"
    assert sorted(p.name for p in d.iterdir()) == sorted(UNITS)
    return d


def test_verify_reports_nothing(unitdir):
    r = subprocess.run(["systemd-analyze", "verify", "--man=no"] + [str(unitdir / u) for u in UNITS],
                       capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout + r.stderr) == (0, "")


@pytest.mark.parametrize("service", SERVICES)
def test_security_exposure(unitdir, service, summary):
    r = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", str(unitdir / service)],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r"Overall exposure level for (\S+): (\d+\.\d+) (\w+)", r.stdout)
    assert m, f"no exposure level in the output (status {r.returncode}):\n{r.stdout}\n{r.stderr}"
    assert m.group(1) == service
    score = float(m.group(2))
    summary.append(f"systemd-analyze security: {service}: exposure {score} {m.group(3)}")
    assert score <= MAX_EXPOSURE[service], r.stdout


@pytest.mark.parametrize("service", SERVICES)
def test_security_every_check_set(unitdir, service):
    """Each check of systemd-analyze security is set, except the allowed ones."""
    r = subprocess.run(["systemd-analyze", "security", "--offline=true", "--json=short", "--no-pager",
                        str(unitdir / service)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    checks = json.loads(r.stdout)
    fields = [c["json_field"] for c in checks]
    assert len(checks) > 50 and len(set(fields)) == len(fields), fields
    allowed = UNSET_ALLOWED[service]
    # an allowed name that is no check at all (a typo, a renamed check) would allow nothing
    assert set(allowed) <= set(fields), f"not checks of systemd-analyze: {sorted(set(allowed) - set(fields))}"
    unset = {c["json_field"]: c for c in checks if c["set"] is not True}
    missing = {f: f'{c["name"]}: {c["description"]}' for f, c in unset.items() if f not in allowed}
    assert missing == {}, f"{service}: hardening checks not set (add the setting back, or allow it " \
                          f"in UNSET_ALLOWED with a reason): {missing}"
    weaker = {f: f'{c["name"]}: {c["description"]} (exposure {c["exposure"]}, allowed {allowed[f]})'
              for f, c in unset.items() if float(c["exposure"] or 0) > allowed[f]}
    assert weaker == {}, f"{service}: weaker than allowed: {weaker}"
    now_set = sorted(set(allowed) - set(unset))
    assert now_set == [], f"{service}: now set, remove from UNSET_ALLOWED: {now_set}"


# --- the units' settings besides hardening ------------------------------------

def one(unit, section, key):
    vals = unit_values(unit, section, key)
    assert len(vals) == 1, f"[{section}] {key}= is {vals}, expected exactly one value"
    return vals[0]


def timespan_usec(text):
    r = subprocess.run(["systemd-analyze", "timespan", text], capture_output=True, text=True, timeout=60)
    m = re.search(r"μs:\s*(\d+)", r.stdout)
    assert r.returncode == 0 and m, f"systemd-analyze timespan {text!r}: {r.stdout}{r.stderr}"
    return int(m.group(1))


def calendar_normalized(text):
    r = subprocess.run(["systemd-analyze", "calendar", text], capture_output=True, text=True, timeout=60)
    m = re.search(r"Normalized form:\s*(.+)", r.stdout)
    assert r.returncode == 0 and m, f"systemd-analyze calendar {text!r}: {r.stdout}{r.stderr}"
    return m.group(1).strip()


def is_true(text):
    return text.lower() in ("yes", "true", "on", "1")


@pytest.fixture(scope="module")
def units(unitdir):
    return {u: parse_unit((unitdir / u).read_text()) for u in UNITS}


def test_parse_unit_repeated_keys_and_reset():
    """testkit.parse_unit, which the checks above and nix/tests rely on."""
    text = ("# c\n[Socket]\nListenDatagram=/a\nListenDatagram=/b\n; c\nX=1\nX=\nX=2\n"
            "Y=a \\\n  b\n")
    assert parse_unit(text) == {("Socket", "ListenDatagram"): ["/a", "/b"], ("Socket", "X"): ["2"],
                             ("Socket", "Y"): ["a  b"]}


def test_log_service_settings(units, install_top):
    u = units["arclamp-log.service"]
    assert one(u, "Service", "Type") == "notify"
    assert timespan_usec(one(u, "Service", "WatchdogSec")) > 0
    assert one(u, "Service", "Restart") == "on-failure"
    reload = exec_argv(one(u, "Service", "ExecReload"))
    assert reload[0].endswith("/kill") and reload[1:] == ["-HUP", "$MAINPID"], reload
    start = exec_argv(one(u, "Service", "ExecStart"))
    assert start[0] == f"{install_top}/usr/bin/arclamp-log", start
    assert start[start.index("--config") + 1] == f"{install_top}/etc/arclamp/arclamp-log.yaml", start


SENDERS = "arclamp-senders"


def test_log_socket_settings(units):
    """Only the unix socket, and only root and the senders' group may use
    it: UDP cannot tell local users apart, so it is a documented drop-in."""
    u = units["arclamp-log.socket"]
    assert unit_values(u, "Socket", "ListenDatagram") == ["/run/arclamp/ingest.sock"]
    assert unit_values(u, "Socket", "ListenStream") == []
    assert one(u, "Socket", "SocketUser") == "root"
    assert one(u, "Socket", "SocketGroup") == SENDERS
    assert one(u, "Socket", "SocketMode") == "0660"
    assert one(u, "Socket", "DirectoryMode") == "0750"


def conf_lines(path):
    return [line.split() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def test_sysusers_declares_senders_group(install_top):
    lines = conf_lines(install_top / "usr/lib/sysusers.d/arclamp.conf")
    assert ["g", SENDERS, "-"] in lines, lines
    # nobody is made a sender by the package: that is the administrator's call
    assert [l for l in lines if l[0] == "m"] == [], lines


def test_tmpfiles_closes_socket_directory(install_top, units):
    """The socket's directory is root:arclamp-senders 0750, made by tmpfiles
    (at boot before any socket, in the postinst before the socket starts)."""
    sock_dir = unit_values(units["arclamp-log.socket"], "Socket", "ListenDatagram")[0].rsplit("/", 1)[0]
    lines = conf_lines(install_top / "usr/lib/tmpfiles.d/arclamp.conf")
    assert ["d", sock_dir, "0750", "root", SENDERS, "-"] in lines, lines


SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def size_bytes(text):
    m = re.fullmatch(r"(\d+)([KMGT]?)", text)
    assert m, f"not a size in bytes: {text!r}"
    return int(m.group(1)) * SIZE_UNITS[m.group(2)]


@pytest.mark.parametrize("service", ARCLAMP_SERVICES)
def test_services_memory_bounded(units, service):
    """MemoryHigh= (throttling) below MemoryMax= (the OOM kill); arclamp-svg
    generate keeps its 200 MB target under both, arclamp-report generate the
    244 MB it took on a log of 50,000 distinct arcs (its unit's comment)."""
    u = units[service]
    high, peak = size_bytes(one(u, "Service", "MemoryHigh")), size_bytes(one(u, "Service", "MemoryMax"))
    assert 64 << 20 <= high < peak <= 1 << 30, (high, peak)
    if service == "arclamp-svg.service":
        assert high >= 200 * 1000 * 1000, high
    if service == "arclamp-report.service":
        assert high >= 244 * 1000 * 1000, high


ONESHOT_TIMEOUT_MAX = {"arclamp-svg.service": "1h", "arclamp-svg-compress.service": "23h",
                       "arclamp-report.service": "1h"}
ONESHOTS = sorted(ONESHOT_TIMEOUT_MAX)


def test_every_oneshot_time_bounded():
    """A new oneshot gets its bound here too."""
    assert ONESHOTS == sorted(s for s in ARCLAMP_SERVICES if s != "arclamp-log.service")


@pytest.mark.parametrize("service", ONESHOTS)
def test_oneshots_time_bounded(units, service):
    """A oneshot has no start timeout by default, and its timer never fires
    again while it runs: TimeoutStartSec= bounds the run. RuntimeMaxSec= has
    no effect on Type=oneshot, so it is not set (it would only mislead)."""
    u = units[service]
    t = timespan_usec(one(u, "Service", "TimeoutStartSec"))
    assert 0 < t <= timespan_usec(ONESHOT_TIMEOUT_MAX[service]), t
    assert unit_values(u, "Service", "RuntimeMaxSec") == []


GENERATE_JOBS = ["arclamp-svg.service", "arclamp-report.service"]


def test_only_generate_skips_with_success(units):
    """75 is the generate jobs' "another run holds the lock" (arclamp-svg
    logs and counts it; arclamp-report says so on stderr, in the journal);
    compress and the daemon have no such status."""
    for s in GENERATE_JOBS:
        assert one(units[s], "Service", "SuccessExitStatus") == "75", s
    for s in ("arclamp-svg-compress.service", "arclamp-log.service"):
        assert unit_values(units[s], "Service", "SuccessExitStatus") == [], s


@pytest.mark.parametrize("service", ONESHOTS)
def test_timer_jobs_settings(units, service):
    """The timer jobs yield to the web servers sharing the host."""
    u = units[service]
    assert one(u, "Service", "Type") == "oneshot"
    assert int(one(u, "Service", "Nice")) >= 10
    assert one(u, "Service", "IOSchedulingClass") == "idle"
    assert one(u, "Service", "CPUSchedulingPolicy") == "batch"


def test_report_service_writes_only_reports(units, install_top):
    """arclamp-report generate reads the run logs and writes only the
    reports directory: under ProtectSystem=strict its StateDirectory= is the
    one writable path (not all of /var/lib/arclamp, as arclamp-svg's), made
    by tmpfiles as well, owned by arclamp, 0755 for the web server; and its
    command line names the data directory the Debian packages use."""
    u = units["arclamp-report.service"]
    start = exec_argv(one(u, "Service", "ExecStart"))
    assert start == [f"{install_top}/usr/bin/arclamp-report", "generate", "--data-dir", "/var/lib/arclamp",
                     "--quiet"], start
    assert one(u, "Service", "ProtectSystem") == "strict"
    assert one(u, "Service", "StateDirectory") == "arclamp/reports"
    for key in ("ReadWritePaths", "LogsDirectory", "CacheDirectory", "RuntimeDirectory", "ConfigurationDirectory"):
        assert unit_values(u, "Service", key) == [], key
    assert (one(u, "Service", "User"), one(u, "Service", "Group")) == ("arclamp", "arclamp")
    lines = conf_lines(install_top / "usr/lib/tmpfiles.d/arclamp.conf")
    assert ["d", "/var/lib/arclamp/reports", "0755", "arclamp", "arclamp", "-"] in lines, lines
    # arclamp-svg's index links <data_dir>/reports/index.html: the same data directory
    assert "data_dir: /var/lib/arclamp\n" in (REPO / "systemd/arclamp-svg.yaml").read_text()


TIMERS = {"arclamp-svg.timer": "*:0/15", "arclamp-svg-compress.timer": "daily",
          "arclamp-report.timer": "*:5/15"}


@pytest.mark.parametrize("timer", sorted(TIMERS))
def test_timers_settings(units, timer):
    u = units[timer]
    assert calendar_normalized(one(u, "Timer", "OnCalendar")) == calendar_normalized(TIMERS[timer])
    assert is_true(one(u, "Timer", "Persistent"))
    if timer != "arclamp-svg-compress.timer":
        assert timespan_usec(one(u, "Timer", "RandomizedDelaySec")) > 0
    assert unit_values(u, "Install", "WantedBy") == ["timers.target"]


def test_generate_timers_apart(units):
    """The two 15-minute jobs start five minutes apart, so they do not read
    the disk and take the cores at the same minute: with their randomized
    delays, their start windows stay a minute apart at least."""
    def minutes(timer):
        r = subprocess.run(["systemd-analyze", "calendar", "--iterations=8", "--base-time=2026-11-26 00:00:00 UTC",
                            one(units[timer], "Timer", "OnCalendar")], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, TZ="UTC"))
        assert r.returncode == 0, r.stdout + r.stderr
        return [int(m) for m in re.findall(r"\d\d:(\d\d):00", r.stdout.split("Next elapse", 1)[1])]
    svg, report = minutes("arclamp-svg.timer"), minutes("arclamp-report.timer")
    assert len(svg) >= 4 and len(report) >= 4, (svg, report)
    delay = max(timespan_usec(one(units[t], "Timer", "RandomizedDelaySec"))
                for t in ("arclamp-svg.timer", "arclamp-report.timer"))
    for a in svg:
        for b in report:
            gap = min((a - b) % 60, (b - a) % 60) * 60 * 1_000_000
            assert gap >= delay + 60_000_000, (a, b)


# --- the profiled PHP-FPM (php-excimer-sampler) -----------------------------

HPROF = "arclamp-hprof-fpm.service"


def ini_lines(path):
    return [line.strip() for line in path.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith(";")]


def test_hprof_fpm_runs_debian_php_fpm_with_its_own_configuration(units, install_top):
    """A second master of Debian's php-fpm8.2 (Type=notify, as
    php8.2-fpm.service) on the php-fpm.conf `make install` wrote, whose
    pools are its pool.d/; PHP_INI_SCAN_DIR starts with ':' so php8.2-fpm's
    own conf.d is read first and conf.d/ here after it; php-fpm8.2 -t
    accepts the configuration; restarted and reloaded with php8.2-fpm; can
    be enabled (multi-user.target)."""
    u = units[HPROF]
    confdir = f"{install_top}/etc/php/8.2/arclamp-hprof-fpm"
    assert one(u, "Service", "Type") == "notify"
    assert exec_argv(one(u, "Service", "ExecStart")) == [
        "/usr/sbin/php-fpm8.2", "--nodaemonize", "--fpm-config", f"{confdir}/php-fpm.conf"]
    assert one(u, "Service", "Environment") == f"PHP_INI_SCAN_DIR=:{confdir}/conf.d"
    reload = exec_argv(one(u, "Service", "ExecReload"))
    assert reload[0].endswith("/kill") and reload[1:] == ["-USR2", "$MAINPID"], reload
    assert one(u, "Unit", "PartOf") == one(u, "Unit", "ReloadPropagatedFrom") == "php8.2-fpm.service"
    assert unit_values(u, "Install", "WantedBy") == ["multi-user.target"]
    assert f"include = {confdir}/pool.d/*.conf" in ini_lines(Path(confdir) / "php-fpm.conf")
    assert "excimer.hprof_sample_rate = 1" in ini_lines(Path(confdir) / "conf.d/90-arclamp-hprof.ini")
    r = subprocess.run(["/usr/sbin/php-fpm8.2", "-t", "--fpm-config", f"{confdir}/php-fpm.conf"],
                       env=dict(os.environ, PHP_INI_SCAN_DIR=f":{confdir}/conf.d"),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "test is successful" in r.stdout + r.stderr, r.stdout + r.stderr


def test_hprof_fpm_socket_is_the_one_nginx_splits_to(units, install_top):
    """The pool listens in the unit's RuntimeDirectory=, as the pool's user
    (the main pool's: www-data, whom nginx runs as), and the installed nginx
    snippet sends the profiled share there and the rest to php8.2-fpm's
    socket, with that socket as the backup of the profiled one."""
    u = units[HPROF]
    pool = dict(line.split(" = ", 1) for line in ini_lines(
        install_top / "etc/php/8.2/arclamp-hprof-fpm/pool.d/www.conf") if " = " in line)
    rundir = one(u, "Service", "RuntimeDirectory")
    assert pool["listen"].rsplit("/", 1)[0] == "/run/" + rundir, (pool["listen"], rundir)
    assert pool["user"] == pool["group"] == pool["listen.owner"] == pool["listen.group"] == "www-data"
    assert pool["pm"] == "static" and 1 <= int(pool["pm.max_children"]) <= 8
    snippet = (install_top / "etc/nginx/snippets/arclamp-hprof-split.conf").read_text()
    servers = re.findall(r"^\s*server unix:(\S+?)( backup)?;$", snippet, re.M)
    assert servers == [("/run/php/php8.2-fpm.sock", ""), (pool["listen"], ""),
                       ("/run/php/php8.2-fpm.sock", " backup")], servers
    assert re.search(r'^split_clients "\$\{request_id\}" \$arclamp_php_backend \{$', snippet, re.M)
    debian_pool = Path("/etc/php/8.2/fpm/pool.d/www.conf")
    if debian_pool.exists():        # php8.2-fpm's own pool listens where the snippet says
        assert "listen = /run/php/php8.2-fpm.sock" in ini_lines(debian_pool)


def test_hprof_fpm_leaves_the_application_alone(units):
    """What would make the profiled requests behave (or run) differently
    from the main instance's stays off, whatever the exposure score would
    gain (the unit's comment says why, each)."""
    u = units[HPROF]
    for key in ("NoNewPrivileges", "MemoryDenyWriteExecute", "PrivateTmp", "ProtectHome",
                "PrivateUsers", "PrivateNetwork", "IPAddressDeny", "ProcSubset", "User",
                "ReadOnlyPaths", "InaccessiblePaths", "MemoryMax", "MemoryHigh"):
        assert unit_values(u, "Service", key) == [], key
    assert one(u, "Service", "ProtectSystem") == "full"
    assert one(u, "Service", "UMask") == "0022"
    assert set(one(u, "Service", "RestrictAddressFamilies").split()) == {
        "AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}
    assert set(one(u, "Service", "CapabilityBoundingSet").split()) == {
        "CAP_CHOWN", "CAP_SETUID", "CAP_SETGID", "CAP_KILL"}


# --- the object store (systemd/object-store.conf, a drop-in example) ----------

DROPIN = REPO / "systemd/object-store.conf"
# the units the drop-in is for: the jobs that publish to (or read from) the store
STORE_SERVICES = ["arclamp-svg.service", "arclamp-report.service"]
OFFLINE_SERVICES = ["arclamp-svg.service", "arclamp-svg-compress.service", "arclamp-report.service"]
# with the drop-in, what opens besides UNSET_ALLOWED: the host's network, the
# Internet families and an allow list (IPAddressDeny=any kept: 0.1, "allow
# list with non-localhost entries"; without the deny it would score 0.2)
STORE_UNSET = {"RestrictAddressFamilies_AF_INET_INET6": 0.3, "PrivateNetwork": 0.5, "IPAddressDeny": 0.1}


@pytest.mark.parametrize("service", OFFLINE_SERVICES)
def test_units_without_dropin_deny_the_network(units, service):
    """As shipped, the timer jobs have no network at all: the object store
    is opened only by the administrator's drop-in."""
    u = units[service]
    assert is_true(one(u, "Service", "PrivateNetwork"))
    assert one(u, "Service", "RestrictAddressFamilies") == "AF_UNIX"
    assert one(u, "Service", "IPAddressDeny") == "any"
    assert unit_values(u, "Service", "IPAddressAllow") == []
    assert unit_values(u, "Service", "LoadCredential") == []


@pytest.fixture(scope="module")
def dropin_unitdir(unitdir, tmp_path_factory):
    """The installed store services, each with the drop-in in its .d/."""
    d = tmp_path_factory.mktemp("dropin")
    for s in STORE_SERVICES:
        (d / s).write_text((unitdir / s).read_text())
        (d / f"{s}.d").mkdir()
        (d / f"{s}.d/object-store.conf").write_text(DROPIN.read_text())
    return d


def test_dropin_verifies_with_each_unit(dropin_unitdir):
    """systemd reads the drop-in (an unknown key or a bad value would be
    reported) with each unit it is for; SYSTEMD_UNIT_PATH makes verify load
    <unit>.d/ from that directory (":" keeps the default path for the
    targets)."""
    r = subprocess.run(["systemd-analyze", "verify", "--man=no"] + [str(dropin_unitdir / s) for s in STORE_SERVICES],
                       env=dict(os.environ, SYSTEMD_UNIT_PATH=f"{dropin_unitdir}:"),
                       capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout + r.stderr) == (0, "")


@pytest.mark.parametrize("service", STORE_SERVICES)
def test_dropin_opens_only_the_store(dropin_unitdir, service):
    """With the drop-in, systemd's own reading of unit + drop-in (security
    --offline) has exactly the network opened that the store needs: the
    host's network, AF_INET/AF_INET6 and an IP allow list under
    IPAddressDeny=any; every other check stays as shipped. An empty
    RestrictAddressFamilies= left alone (no list after it) or an
    IPAddressDeny= reset would show here as a weaker check."""
    r = subprocess.run(["systemd-analyze", "security", "--offline=true", "--json=short", "--no-pager",
                        str(dropin_unitdir / service)],
                       env=dict(os.environ, SYSTEMD_UNIT_PATH=f"{dropin_unitdir}:"),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    checks = {c["json_field"]: c for c in json.loads(r.stdout)}
    allowed = {**UNSET_ALLOWED[service], **STORE_UNSET}
    unset = {f: c for f, c in checks.items() if c["set"] is not True}
    assert sorted(unset) == sorted(allowed), f"{service} with the drop-in: unset {sorted(unset)}"
    weaker = {f: (c["description"], c["exposure"]) for f, c in unset.items()
              if float(c["exposure"] or 0) > allowed[f]}
    assert weaker == {}, weaker


def test_dropin_settings():
    """The lists are reset, then set, so the drop-in says the whole list;
    IPAddressDeny= is left as shipped (any); the placeholders of
    IPAddressAllow= are documentation addresses nothing answers (an
    unedited copy fails closed); the credential's name is the one the
    programs look for in $CREDENTIALS_DIRECTORY (common/src/storeconf.h)."""
    text = DROPIN.read_text()
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith(("#", ";"))]
    assert lines[0] == "[Service]"
    for key in ("RestrictAddressFamilies", "IPAddressAllow"):
        assigned = [l.split("=", 1)[1] for l in lines if l.startswith(key + "=")]
        assert len(assigned) == 2 and assigned[0] == "" and assigned[1], (key, assigned)
    d = parse_unit(text)
    assert not is_true(one(d, "Service", "PrivateNetwork"))
    assert set(one(d, "Service", "RestrictAddressFamilies").split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert unit_values(d, "Service", "IPAddressDeny") == []
    docs = [ipaddress.ip_network("192.0.2.0/24"), ipaddress.ip_network("2001:db8::/32")]
    for a in one(d, "Service", "IPAddressAllow").split():
        net = ipaddress.ip_network(a, strict=False)
        assert any(net.version == n.version and net.subnet_of(n) for n in docs), a
    name = re.search(r'#define STORECONF_CREDENTIAL_NAME "([^"]+)"',
                     (REPO / "common/src/storeconf.h").read_text()).group(1)
    assert one(d, "Service", "LoadCredential") == f"{name}:/etc/arclamp/object-store.env"


def yaml_comment_blocks(text):
    """The commented-out `object_store:` blocks of a packaged YAML file,
    uncommented: each runs from "# object_store:" to the first line that is
    not "#" followed by two spaces (or the bare "#" ending the block)."""
    blocks, cur = [], None
    for line in text.splitlines():
        if line == "# object_store:":
            cur = ["object_store:"]
            blocks.append(cur)
        elif cur is not None and line.startswith("#   "):
            cur.append(line[2:])
        else:
            cur = None
    return ["\n".join(b) + "\n" for b in blocks]


def test_packaged_yaml_documents_every_object_store_key():
    """systemd/arclamp-svg.yaml's commented object_store: block names every
    key of the section's option table (common/src/storeconf.c), and the
    section is off as packaged."""
    text = (REPO / "systemd/arclamp-svg.yaml").read_text()
    assert "object_store" not in yaml.safe_load(text)
    table = (REPO / "common/src/storeconf.c").read_text()
    table = table[table.index("store_config_options[] = {"):table.index("{NULL}")]
    keys = set(re.findall(r'^\s*\{"([a-z_]+)", OPT_', table, re.M))
    assert len(keys) > 20, keys
    full = yaml_comment_blocks(text)[0]
    documented = set(re.findall(r"^ {2}#? ?([a-z_]+):", full, re.M))
    assert keys - documented == set(), f"not in the packaged YAML: {sorted(keys - documented)}"
    assert documented - keys == set(), f"no such key: {sorted(documented - keys)}"


def test_packaged_yaml_object_store_examples_accepted(install_top, tmp_path):
    """The Swift and the S3 example, uncommented, are accepted by the
    installed arclamp-svg, with their credentials in the file systemd's
    LoadCredential= gives ($CREDENTIALS_DIRECTORY/arclamp-object-store,
    0600), as the drop-in arranges."""
    text = (REPO / "systemd/arclamp-svg.yaml").read_text()
    examples = yaml_comment_blocks(text)[1:]
    assert sorted(yaml.safe_load(e)["object_store"]["type"] for e in examples) == ["s3", "swift"]
    creds = tmp_path / "creds"
    creds.mkdir()
    (creds / "arclamp-object-store").write_text(
        "ST_USER=arclamp:publisher\nST_KEY=secret\nAWS_ACCESS_KEY_ID=AK\nAWS_SECRET_ACCESS_KEY=SK\n")
    (creds / "arclamp-object-store").chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ST_", "OS_", "AWS_"))}
    for i, example in enumerate(examples):
        data = tmp_path / f"data{i}"
        data.mkdir()
        cfg = tmp_path / f"c{i}.yaml"
        cfg.write_text(f"data_dir: {data}\n" + example)
        argv = [install_top / "usr/bin/arclamp-svg", "metrics", "--config", cfg, "--output", tmp_path / "m.prom"]
        r = subprocess.run(argv, env=dict(env, CREDENTIALS_DIRECTORY=str(creds)),
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, example + r.stdout + r.stderr
        # and without the credentials, refused: the check above was not empty
        r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode != 0 and "object_store" in r.stderr, example + r.stderr
