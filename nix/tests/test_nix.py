"""Offline checks of the Nix packaging (nix/, flake.nix).

This machine has no nixpkgs and no binary cache, so nothing is built with Nix
here. What is checked, with Debian's nix-bin (nix-instantiate, `--store
dummy://`: no daemon, no /nix, nothing written):

1. every .nix file parses;
2. flake.nix, nix/package.nix and nix/module.nix evaluate against stubs of
   nixpkgs' lib and package set (nix/tests/stub-*.nix) and of the NixOS
   options the module sets, and the results are dumped as JSON;
3. the Makefile's `make install DESTDIR=<tmp>` is run with exactly the flags
   the derivation passes (package.nix's makeFlags, which must be
   nix/make-flags.nix), at the store paths the stub gives each package, then
   the derivation's own postInstall (nix/split.sh) is run on it; every unit
   name, ExecStart/ExecReload path, config path, user and file the module
   and the flake refer to must exist in those trees, and the module's settings
   must equal the packaged configs and be accepted by the real programs.

Run from the repository root: /usr/bin/python3 -m pytest -q -p no:cacheprovider nix/tests
"""

import fcntl
import json
import os
import re
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "common" / "tests"))
from testkit import exec_argv, parse_unit, unit_values  # noqa: E402
EVAL = ROOT / "nix" / "tests" / "eval.nix"
COMPONENTS = ["arclamp-log", "arclamp-svg", "arclamp-report", "php-excimer-sampler", "arclamp"]
# the components with programs (and units)
PROGRAMS = ["arclamp-log", "arclamp-svg", "arclamp-report"]
ALL_ON = """{
  services.arclamp.log.enable = true;
  services.arclamp.svg.enable = true;
  services.arclamp.report.enable = true;
  services.arclamp.phpExtension.enable = true;
  services.arclamp.phpExtension.settings = {
    "excimer.arclamp_target" = "unix:///run/arclamp/ingest.sock";
    "excimer.arclamp_period" = 60;
    "excimer.some_flag" = true;
  };
}"""
# Absolute paths outside the store that exist on every NixOS system.
NIXOS_PATHS = {"/bin/sh"}
# Executables of (stub) nixpkgs packages the module may use: package name -> files.
STORE_EXECUTABLES = {"coreutils": {"bin/kill"}}


# --- helpers ----------------------------------------------------------------

@pytest.fixture(scope="session")
def nix_env(tmp_path_factory):
    home = tmp_path_factory.mktemp("nix-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NIX_")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"),
               NIX_CONFIG="build-users-group =\n")
    return env


def run_nix(env, *args, check=True):
    p = subprocess.run(["nix-instantiate", "--store", "dummy://", *args], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(f"nix-instantiate {' '.join(args)} failed:\n{p.stderr}")
    return p


def nix_eval(env, attr, user_config=None, check=True):
    args = ["--eval", "--strict", "--json", str(EVAL), "-A", attr]
    if user_config is not None:
        args += ["--arg", "userConfig", user_config]
    p = run_nix(env, *args, check=check)
    return json.loads(p.stdout) if p.returncode == 0 else p


def apply_overrides(shipped, override):
    """systemd list semantics of a drop-in: "" resets, anything else appends."""
    result = list(shipped)
    for v in override:
        result = [] if v == "" else result + [v]
    return result


class Tree:
    """A `make install DESTDIR=...` tree of one package at its (fake) store path."""

    def __init__(self, destdir, out):
        self.destdir, self.out = Path(destdir), out

    def path(self, p):
        return self.destdir / p.lstrip("/")

    def root(self):
        return self.path(self.out)

    def files(self):
        r = self.root()
        return sorted(str(p.relative_to(r)) for p in r.rglob("*") if not p.is_dir())


# --- fixtures ---------------------------------------------------------------

@pytest.fixture(scope="session")
def packages(nix_env):
    return nix_eval(nix_env, "packages")


@pytest.fixture(scope="session")
def flake(nix_env):
    return nix_eval(nix_env, "flake")


@pytest.fixture(scope="session")
def trees(packages, tmp_path_factory):
    """Each package's $out: `make install` with its makeFlags, then its postInstall."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    result = {}
    for name, pkg in packages.items():
        destdir = tmp_path_factory.mktemp(f"install-{name}")
        flags = [f.replace(pkg["outPlaceholder"], pkg["out"]) for f in pkg["makeFlags"]]
        p = subprocess.run(["make", "--no-print-directory", *pkg["buildFlags"], *flags,
                            *pkg["installFlags"], f"DESTDIR={destdir}", pkg["installTargets"]],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
        assert p.returncode == 0, f"make install for {name} failed:\n{p.stdout}\n{p.stderr}"
        tree = Tree(destdir, pkg["out"])
        tree.full = tree.files()
        script = pkg["postInstall"].replace(pkg["splitScript"], str(ROOT / "nix" / "split.sh"))
        p = subprocess.run(["bash", "-euo", "pipefail", "-c", script],
                           env={**env, "out": str(tree.root()), "TMPDIR": str(destdir)},
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, f"postInstall of {name} failed:\n{p.stderr}"
        result[name] = tree
    return result


CONFIGS = {"all-on": ALL_ON, "example": "./nix/example.nix"}


@pytest.fixture(scope="session", params=sorted(CONFIGS))
def nixos(nix_env, request):
    """The evaluated configuration of ALL_ON, and of nix/example.nix (the README's)."""
    return nix_eval(nix_env, "nixos", CONFIGS[request.param])


def tree_of(trees, store_path):
    for t in trees.values():
        if store_path == t.out or store_path.startswith(t.out + "/"):
            return t
    return None


def units_of(trees, nixos):
    """{unit file name: (tree, parsed unit)} of the packages in systemd.packages."""
    units = {}
    for out in nixos["systemd"]["packages"]:
        t = tree_of(trees, out)
        assert t is not None, f"systemd.packages holds {out}, which is none of the packages"
        udir = t.path(out + "/lib/systemd/system")
        assert udir.is_dir(), f"{out} has no lib/systemd/system"
        for f in sorted(udir.iterdir()):
            units[f.name] = (t, parse_unit(f.read_text()))
    return units


# --- 1. every .nix file parses ------------------------------------------------

NIX_FILES = sorted([ROOT / "flake.nix", *(ROOT / "nix").rglob("*.nix")])


@pytest.mark.parametrize("path", NIX_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_parses(nix_env, path):
    run_nix(nix_env, "--parse", str(path))


# --- 2. the flake and the packages --------------------------------------------

def test_flake_outputs(flake):
    assert flake["inputs"]["nixpkgs"], "flake.nix has no inputs.nixpkgs.url"
    assert {"arclamp-log", "arclamp-svg", "arclamp-report", "php-excimer-sampler", "default"} <= \
        set(flake["packageNames"])
    assert "default" in flake["nixosModules"]
    assert flake["moduleIsModuleFile"], "nixosModules.default is not nix/module.nix"
    # the flake's packages are nix/packages.nix's, i.e. nix/package.nix's
    for name, out in flake["packageOutPaths"].items():
        assert out == flake["directOutPaths"][name], name
    assert flake["packageOutPaths"]["default"] == flake["directOutPaths"]["arclamp"]


@pytest.mark.parametrize("name", COMPONENTS)
def test_make_flags_come_from_make_flags_nix(packages, name):
    pkg = packages[name]
    assert pkg["makeFlags"] == pkg["makeFlagsFile"], \
        "nix/package.nix's makeFlags are not nix/make-flags.nix's"
    # the build and install phases add no directory of their own
    assert pkg["buildFlags"] == [] and pkg["installFlags"] == []
    assert pkg["installTargets"] == "install"
    for f in pkg["makeFlags"]:
        var, _, value = f.partition("=")
        assert value == pkg["outPlaceholder"] or value.startswith(pkg["outPlaceholder"] + "/"), \
            f"{var} is not inside $out"


def test_make_flags_cover_makefile_install_dirs(packages):
    """Every directory variable of the Makefile's installation section is set."""
    text = (ROOT / "Makefile").read_text()
    section = text[text.index("# --- installation"):text.index("\ninstall:")]
    dirs = set(re.findall(r"^([A-Z_]+)\s*\?=", section, re.M))
    assert {"PREFIX", "BINDIR", "UNITDIR", "PHP_EXTDIR"} <= dirs
    flags = {f.partition("=")[0] for f in packages["arclamp"]["makeFlags"]}
    assert dirs <= flags, f"nix/make-flags.nix does not set {sorted(dirs - flags)}"


def test_source_filter(packages):
    filt = packages["arclamp"]["srcFilter"]
    assert packages["arclamp"]["srcOrigin"] == str(ROOT)
    for p in ["build (directory)", "nix (directory)", "flake.nix (regular)",
              "flake.lock (regular)", ".git (directory)", "result (symlink)"]:
        assert filt[p] is False, f"{p} would be copied into the build's source"
    for p in ["Makefile (regular)", "VERSION (regular)", "arclamp-log (directory)",
              "common (directory)", "systemd (directory)", "php-excimer-sampler (directory)",
              "arclamp-svg/src/flamegraph.js (regular)"]:
        assert filt[p] is True, f"{p} would be missing from the build's source"


def test_package_metadata(packages):
    version = (ROOT / "VERSION").read_text().strip()
    for name in COMPONENTS:
        pkg = packages[name]
        assert pkg["pname"] == name and pkg["version"] == version
        assert pkg["description"]
        # build inputs: the Makefile's pkg-config packages and PHP's phpize
        assert any(n.startswith("pkg-config") for n in pkg["nativeBuildInputs"])
        assert any(n.startswith("php-") and n.endswith("-dev") for n in pkg["nativeBuildInputs"])
    mk = (ROOT / "Makefile").read_text()
    assert re.search(r"^PKGS\s*:=\s*hiredis yaml-0.1 libsystemd zlib libxxhash libsodium libcurl libcrypto libxml-2.0 json-c\s*$", mk, re.M), \
        "the Makefile's PKGS changed: update buildInputs in nix/package.nix and this test"
    assert re.search(r"^REPORT_PKGS\s*:=\s*json-c libgvc\s*$", mk, re.M), \
        "the Makefile's REPORT_PKGS changed: update buildInputs in nix/package.nix and this test"
    for name in COMPONENTS:  # the object-store client's libcurl, libcrypto, libxml-2.0
        assert {"curl", "openssl", "libxml2"} <= {n.rsplit("-", 1)[0] for n in packages[name]["buildInputs"]}
    assert packages["php-excimer-sampler"]["extensionName"] == "excimer"
    for name in PROGRAMS:
        assert packages[name]["mainProgram"] == name


# --- 3. what make install writes ------------------------------------------------

@pytest.mark.parametrize("name", COMPONENTS)
def test_component_tree(packages, trees, name):
    tree, pkg = trees[name], packages[name]
    # make install wrote nothing outside $out
    outside = [str(p) for p in tree.destdir.rglob("*")
               if not p.is_dir() and not str(p).startswith(str(tree.root()) + "/")]
    assert outside == [], f"make install wrote outside $out: {outside}"
    if pkg["files"] is None:
        assert tree.files() == tree.full
    else:
        assert tree.files() == sorted(pkg["files"])
    for f in tree.files():
        if f.startswith("bin/"):
            assert os.access(tree.root() / f, os.X_OK), f
        else:
            assert not (tree.root() / f).stat().st_mode & stat.S_IXOTH or f.endswith(".so"), f


def test_components_cover_everything_installed(packages, trees):
    listed = set()
    for name in PROGRAMS + ["php-excimer-sampler"]:
        listed |= set(packages[name]["files"])
    full = set(trees["arclamp"].full)
    assert full - listed == set(), "installed by make install but in no package of nix/components.nix"
    assert listed - full == set()


# Units of Debian's PHP (the package ships them as reference copies): not
# for NixOS, whose module does the same with its own means.
DEBIAN_PHP_UNITS = {"arclamp-hprof-fpm.service"}


@pytest.mark.parametrize("name", PROGRAMS + ["arclamp"])
def test_installed_units_point_into_out(trees, name):
    """The units as installed work on their own: ExecStart and --config
    inside $out (arclamp-report has no configuration file: its command line
    names the data directory of the packaged configurations)."""
    tree = trees[name]
    udir = tree.root() / "lib/systemd/system"
    services = [f for f in udir.iterdir() if f.suffix == ".service" and f.name not in DEBIAN_PHP_UNITS]
    assert services
    for f in services:
        unit = parse_unit(f.read_text())
        for cmd in unit_values(unit, "Service", "ExecStart"):
            argv = exec_argv(cmd)
            assert argv[0].startswith(tree.out + "/bin/"), f"{f.name}: {cmd}"
            assert os.access(tree.path(argv[0]), os.X_OK), f"{f.name}: {argv[0]} not installed"
            if argv[0].endswith("/bin/arclamp-report"):
                assert "--config" not in argv, f"{f.name}: {cmd}"
                assert argv[argv.index("--data-dir") + 1] == "/var/lib/arclamp", f"{f.name}: {cmd}"
                continue
            cfg = argv[argv.index("--config") + 1]
            assert cfg.startswith(tree.out + "/etc/arclamp/"), f"{f.name}: {cmd}"
            assert tree.path(cfg).is_file(), f"{f.name}: {cfg} not installed"


@pytest.mark.parametrize("name", ["php-excimer-sampler", "arclamp"])
def test_hprof_fpm_unit_names_its_installed_configuration(trees, name):
    """arclamp-hprof-fpm.service runs Debian's php-fpm8.2 (not a program
    of the package), with the php-fpm.conf and conf.d/ `make install`
    wrote at HPROF_FPMDIR, whose php-fpm.conf includes its pool.d/."""
    tree = trees[name]
    unit = parse_unit((tree.root() / "lib/systemd/system/arclamp-hprof-fpm.service").read_text())
    argv = exec_argv(unit_values(unit, "Service", "ExecStart")[0])
    assert argv[0] == "/usr/sbin/php-fpm8.2", argv
    conf = argv[argv.index("--fpm-config") + 1]
    confdir = tree.out + "/share/php-excimer-sampler/hprof-fpm"
    assert conf == confdir + "/php-fpm.conf" and tree.path(conf).is_file(), conf
    assert unit_values(unit, "Service", "Environment") == [f"PHP_INI_SCAN_DIR=:{confdir}/conf.d"]
    assert (tree.path(confdir) / "conf.d/90-arclamp-hprof.ini").is_file()
    assert f"include = {confdir}/pool.d/*.conf" in tree.path(conf).read_text().splitlines()
    assert (tree.path(confdir) / "pool.d/www.conf").is_file()


def test_php_extension_layout(packages, trees):
    """php.buildEnv loads ${ext}/lib/php/extensions/${ext.extensionName}.so."""
    for name in ("php-excimer-sampler", "arclamp"):
        ext = packages[name]["extensionName"]
        so = trees[name].root() / f"lib/php/extensions/{ext}.so"
        assert so.is_file(), f"{name}: {so} missing"
        assert so.read_bytes()[:4] == b"\x7fELF"


# --- 4. the NixOS module against the installed trees ------------------------------

def test_module_units_exist(trees, nixos):
    units = units_of(trees, nixos)
    kinds = {"services": ".service", "sockets": ".socket", "timers": ".timer"}
    for kind, suffix in kinds.items():
        for name in nixos["systemd"][kind]:
            assert name + suffix in units, \
                f"systemd.{kind}.{name}: {name}{suffix} is not installed by any package in systemd.packages"
    # the packages the module enables are the module's package options
    a = nixos["services"]["arclamp"]
    enabled = [a[k]["package"] for k in ("log", "svg", "report") if a[k]["enable"]]
    assert len(enabled) >= 2
    assert nixos["systemd"]["packages"] == enabled
    assert nixos["systemd"]["tmpfilesPackages"] == enabled


def test_module_exec_paths_resolve(trees, nixos):
    """Every Exec*= of every service, after the module's drop-ins, exists on NixOS."""
    units = units_of(trees, nixos)
    stub_store = {name: nixos[name] for name in STORE_EXECUTABLES}
    checked = 0
    for fname, (tree, unit) in units.items():
        if not fname.endswith(".service"):
            continue
        override = nixos["systemd"]["services"].get(fname[:-len(".service")], {}).get("serviceConfig", {})
        keys = {k for s, k in unit if s == "Service" and k.startswith("Exec")} | \
               {k for k in override if k.startswith("Exec")}
        for key in sorted(keys):
            for cmd in apply_overrides(unit_values(unit, "Service", key), override.get(key, [])):
                exe = exec_argv(cmd)[0]
                checked += 1
                owner = tree_of(trees, exe)
                if owner is not None:
                    assert os.access(owner.path(exe), os.X_OK), f"{fname} {key}: {exe} is not installed"
                elif any(exe.startswith(p + "/") for p in stub_store.values()):
                    name = next(n for n, p in stub_store.items() if exe.startswith(p + "/"))
                    assert exe[len(stub_store[name]) + 1:] in STORE_EXECUTABLES[name], f"{fname} {key}: {exe}"
                else:
                    assert exe in NIXOS_PATHS, f"{fname} {key}={cmd}: {exe} does not exist on NixOS"
    assert checked >= 4


def test_module_execstart_is_the_shipped_command(trees, nixos):
    """The module's ExecStart= is the shipped one with --config /etc/arclamp/X.yaml."""
    units = units_of(trees, nixos)
    etc = nixos["environment"]["etc"]
    services = [f[:-len(".service")] for f in units if f.endswith(".service")]
    assert services
    for name in services:
        tree, unit = units[name + ".service"]
        svc = nixos["systemd"]["services"].get(name, {})
        override = svc.get("serviceConfig", {}).get("ExecStart")
        assert override, f"{name}: no ExecStart override (the shipped one reads the store's default config)"
        assert override[0] == "" and len(override) == 2, f"{name}: ExecStart must reset then set one command"
        (shipped,) = unit_values(unit, "Service", "ExecStart")
        want, got = exec_argv(shipped), exec_argv(override[1])
        assert len(want) == len(got), f"{name}: {override[1]!r} vs shipped {shipped!r}"
        for w, g in zip(want, got):
            if w != g:
                m = re.fullmatch(re.escape(tree.out) + r"(/etc/arclamp/[^/]+\.yaml)", w)
                assert m and g == m.group(1), f"{name}: {override[1]!r} vs shipped {shipped!r}"
                assert g[len("/etc/"):] in etc, f"{name}: {g} is not in environment.etc"
    # arclamp-report: no configuration file, so with the default dataDir the
    # very command shipped (the loop above let nothing differ)
    if "arclamp-report" in services:
        assert "--config" not in exec_argv(nixos["systemd"]["services"]["arclamp-report"]["serviceConfig"]
                                           ["ExecStart"][1])


def test_module_enables_sockets_and_timers(trees, nixos):
    units = units_of(trees, nixos)
    for fname, (_, unit) in units.items():
        name, _, kind = fname.rpartition(".")
        wanted = unit_values(unit, "Install", "WantedBy")
        configured = nixos["systemd"].get(kind + "s", {}).get(name, {}).get("wantedBy", [])
        if kind in ("socket", "timer"):
            assert sorted(configured) == sorted(wanted), f"{fname}: wantedBy {configured}, shipped {wanted}"
        else:
            assert configured == [], f"{fname} is started by its socket or timer, not wanted by a target"
    assert nixos["systemd"]["sockets"]["arclamp-log"]["wantedBy"] == ["sockets.target"]


def test_module_reload_triggers(nixos):
    svc = nixos["systemd"]["services"]["arclamp-log"]
    assert svc["reloadTriggers"] == [nixos["environment"]["etc"]["arclamp/arclamp-log.yaml"]["source"]]
    reload = svc["serviceConfig"]["ExecReload"]
    assert reload[0] == "" and exec_argv(reload[-1])[1:] == ["-HUP", "$MAINPID"]


def test_module_user_matches_sysusers_and_units(trees, nixos):
    """Every user and group the shipped units name (User=, Group=, the
    socket's SocketUser=/SocketGroup=) and every line of the sysusers.d file
    is declared by the module: a socket whose group is missing fails to start."""
    units = units_of(trees, nixos)
    users, groups = nixos["users"]["users"], nixos["users"]["groups"]
    named = 0
    for fname, (_, unit) in units.items():
        for u in unit_values(unit, "Service", "User") + unit_values(unit, "Socket", "SocketUser"):
            named += 1
            assert u == "root" or (u in users and users[u]["isSystemUser"]), f"{fname}: user {u}"
        for g in unit_values(unit, "Service", "Group") + unit_values(unit, "Socket", "SocketGroup"):
            named += 1
            assert g in groups, f"{fname}: group {g}"
    assert named >= 8
    sysusers = trees["arclamp-log"].root() / "lib/sysusers.d/arclamp.conf"
    lines = [shlex.split(l) for l in sysusers.read_text().splitlines() if l.strip() and not l.startswith("#")]
    assert {l[0] for l in lines} == {"u", "g"}, lines
    for kind, name, *rest in lines:
        if kind == "u":
            _id, gecos, home = rest
            assert name in users
            assert users[name]["home"] == home and users[name]["description"] == gecos
            assert users[name]["group"] == name and name in groups
        else:
            assert rest == ["-"] and name in groups and name not in users


def test_module_senders(nix_env):
    """services.arclamp.log.senders are the members of arclamp-senders, the
    socket's group; nobody is one by default."""
    default = nix_eval(nix_env, "nixos", ALL_ON)
    assert default["users"]["groups"]["arclamp-senders"]["members"] == []
    r = nix_eval(nix_env, "nixos", '{ services.arclamp.log.enable = true; '
                 'services.arclamp.log.senders = [ "mediawiki" "wwwrun" ]; }')
    assert r["users"]["groups"]["arclamp-senders"]["members"] == ["mediawiki", "wwwrun"]
    example = nix_eval(nix_env, "nixos", CONFIGS["example"])
    assert example["users"]["groups"]["arclamp-senders"]["members"] == ["mediawiki"]


def test_module_tmpfiles_create_state_directories(trees, nixos):
    """systemd.tmpfiles.packages holds the packages' tmpfiles.d files, which
    create every StateDirectory= of the units (under /var/lib), owned by a
    user and group the module declares."""
    users, groups = nixos["users"]["users"], nixos["users"]["groups"]
    created = {}
    for out in nixos["systemd"]["tmpfilesPackages"]:
        t = tree_of(trees, out)
        assert t is not None, f"systemd.tmpfiles.packages holds {out}, which is none of the packages"
        confs = sorted(t.path(out + "/lib/tmpfiles.d").glob("*.conf"))
        assert confs, f"{out} has no lib/tmpfiles.d/*.conf (NixOS links only those)"
        for conf in confs:
            for line in conf.read_text().splitlines():
                if not line.strip() or line.startswith("#"):
                    continue
                kind, path, mode, user, group, age = line.split()
                assert kind == "d" and (user in users or user == "root") and group in groups, \
                    f"{conf.name}: {line}"
                created[path] = (mode, user, group)
    wanted = set()
    for fname, (_, unit) in units_of(trees, nixos).items():
        for v in unit_values(unit, "Service", "StateDirectory"):
            wanted |= {"/var/lib/" + d for d in v.split()}
    assert wanted and wanted <= set(created), f"not created by tmpfiles: {sorted(wanted - set(created))}"


def test_module_report_defaults_are_the_shipped_unit(nix_env, trees):
    """services.arclamp.report with its defaults changes nothing of the
    shipped unit but the store path: its schedule (the OnCalendar= drop-in
    resets it to the same calendar), its data directory (arclamp-svg's
    data_dir, so the index links the reports), no ReadWritePaths= and no
    tmpfiles rule beyond the package's file."""
    r = nix_eval(nix_env, "nixos", "{ services.arclamp.report.enable = true; }")
    a = r["services"]["arclamp"]["report"]
    out = a["package"]
    tree = tree_of(trees, out)
    udir = tree.path(out + "/lib/systemd/system")
    timer = parse_unit((udir / "arclamp-report.timer").read_text())
    service = parse_unit((udir / "arclamp-report.service").read_text())
    t = r["systemd"]["timers"]["arclamp-report"]
    assert t["wantedBy"] == unit_values(timer, "Install", "WantedBy") == ["timers.target"]
    assert t["timerConfig"]["OnCalendar"] == ["", a["interval"]]
    assert apply_overrides(unit_values(timer, "Timer", "OnCalendar"), t["timerConfig"]["OnCalendar"]) == \
        unit_values(timer, "Timer", "OnCalendar") == ["*:5/15"]
    assert a["dataDir"] == r["services"]["arclamp"]["svg"]["settings"]["data_dir"] == "/var/lib/arclamp"
    svc = r["systemd"]["services"]["arclamp-report"]["serviceConfig"]
    assert apply_overrides(unit_values(service, "Service", "ExecStart"), svc["ExecStart"]) == \
        unit_values(service, "Service", "ExecStart")
    assert "ReadWritePaths" not in svc and r["systemd"]["tmpfilesRules"] == []
    assert r["systemd"]["packages"] == r["systemd"]["tmpfilesPackages"] == [out]
    assert "arclamp" in r["users"]["users"] and r["systemd"]["sockets"] == {}
    assert r["warnings"] == []


def test_module_report_data_dir_and_interval(nix_env, trees):
    """Another dataDir: the command line names it, and its reports/ is made
    (tmpfiles) and opened (ReadWritePaths=: the unit's StateDirectory= opens
    only /var/lib/arclamp/reports); it follows arclamp-svg's data_dir; a
    data directory arclamp-log or arclamp-svg does not share is warned
    about; `interval` replaces the schedule."""
    r = nix_eval(nix_env, "nixos", """{
      services.arclamp.report.enable = true;
      services.arclamp.report.dataDir = "/srv/arclamp";
      services.arclamp.report.interval = "hourly";
    }""")
    svc = r["systemd"]["services"]["arclamp-report"]["serviceConfig"]
    argv = exec_argv(svc["ExecStart"][-1])
    assert argv[1:] == ["generate", "--data-dir", "/srv/arclamp", "--quiet"], argv
    assert svc["ReadWritePaths"] == ["/srv/arclamp/reports"]
    assert r["systemd"]["tmpfilesRules"] == ["d /srv/arclamp/reports 0755 arclamp arclamp -"]
    assert r["systemd"]["timers"]["arclamp-report"]["timerConfig"]["OnCalendar"] == ["", "hourly"]
    assert r["warnings"] == []
    # following arclamp-svg's data_dir, the links of its index stay right
    r = nix_eval(nix_env, "nixos", """{
      services.arclamp.svg.enable = true;
      services.arclamp.report.enable = true;
      services.arclamp.svg.settings.data_dir = "/srv/arclamp";
    }""")
    assert r["services"]["arclamp"]["report"]["dataDir"] == "/srv/arclamp"
    assert r["warnings"] == []
    # not arclamp-log's logs, nor arclamp-svg's directory
    r = nix_eval(nix_env, "nixos", """{
      services.arclamp.log.enable = true;
      services.arclamp.svg.enable = true;
      services.arclamp.report.enable = true;
      services.arclamp.report.dataDir = "/srv/elsewhere";
    }""")
    assert len(r["warnings"]) == 2, r["warnings"]
    assert any("/srv/elsewhere/logs" in w and "/var/lib/arclamp/logs" in w for w in r["warnings"])
    assert any("/srv/elsewhere/reports" in w and "/var/lib/arclamp/reports" in w for w in r["warnings"])


def test_module_default_settings_match_packaged_yaml(nix_env):
    r = nix_eval(nix_env, "nixos", "{ services.arclamp.log.enable = true; services.arclamp.svg.enable = true; }")
    for prog in ("arclamp-log", "arclamp-svg"):
        packaged = yaml.safe_load((ROOT / "systemd" / f"{prog}.yaml").read_text())
        settings = r["services"]["arclamp"][prog[len("arclamp-"):]]["settings"]
        assert settings == packaged, f"services.arclamp.*.settings defaults differ from systemd/{prog}.yaml"
        assert r["environment"]["etc"][f"arclamp/{prog}.yaml"]["content"] == settings
    assert r["warnings"] == []


def check_configs(trees, result, tmp_path):
    """The rendered settings (as YAML, like formats.yaml) pass the installed programs' checks."""
    bindir = trees["arclamp"].root() / "bin"
    etc = result["environment"]["etc"]
    log = tmp_path / "arclamp-log.yaml"
    log.write_text(yaml.safe_dump(etc["arclamp/arclamp-log.yaml"]["content"]))
    p = subprocess.run([bindir / "arclamp-log", "--check-config", "--config", log], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    svg = tmp_path / "arclamp-svg.yaml"
    svg.write_text(yaml.safe_dump(etc["arclamp/arclamp-svg.yaml"]["content"]))
    (tmp_path / "data").mkdir(exist_ok=True)
    p = subprocess.run([bindir / "arclamp-svg", "metrics", "--config", svg, "--data-dir", tmp_path / "data",
                        "--output", tmp_path / "m.prom"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_module_settings_accepted_by_programs(trees, nixos, tmp_path):
    check_configs(trees, nixos, tmp_path)


def test_module_settings_merge(nix_env, trees, tmp_path):
    r = nix_eval(nix_env, "nixos", """{
      services.arclamp.log.enable = true;
      services.arclamp.svg.enable = true;
      services.arclamp.log.settings.base_path = "/srv/arclamp/logs";
      services.arclamp.log.settings.redis = { host = "127.0.0.1"; port = 6379; };
      services.arclamp.svg.settings.functions = [ { function = "UploadBase::performUpload"; label = "Upload"; } ];
    }""")
    log = r["services"]["arclamp"]["log"]["settings"]
    assert log["base_path"] == "/srv/arclamp/logs"
    assert log["redis"] == {"host": "127.0.0.1", "port": 6379}
    assert [g["period"] for g in log["logs"]] == ["hourly", "daily"]
    assert log["metrics_file"] == "/var/lib/arclamp/arclamp-log.prom"
    svg = r["services"]["arclamp"]["svg"]["settings"]
    assert svg["data_dir"] == "/var/lib/arclamp" and svg["functions"][0]["label"] == "Upload"
    assert len(r["warnings"]) == 1 and "/var/lib/arclamp/logs" in r["warnings"][0]
    check_configs(trees, r, tmp_path)


def test_module_log_reads_a_redis_cluster(nix_env, trees, tmp_path):
    """The cluster keys pass through settings to a file arclamp-log
    accepts, and allowedAddresses opens the shipped localhost-only unit to
    the cluster's nodes (and only arclamp-log's)."""
    r = nix_eval(nix_env, "nixos", """{
      services.arclamp.log.enable = true;
      services.arclamp.svg.enable = true;
      services.arclamp.log.allowedAddresses = [ "10.64.0.0/24" ];
      services.arclamp.log.settings.redis = {
        cluster = [ "10.64.0.11:7000" "10.64.0.12:7000" ];
        shards = 16; mode = "stream"; stream_consumer = "tier1";
      };
      services.arclamp.log.settings.redis_channels = [ "excimer" "xhprof" "tiers" ];
    }""")
    assert r["services"]["arclamp"]["log"]["settings"]["redis"]["shards"] == 16
    check_configs(trees, r, tmp_path)
    _, shipped = units_of(trees, r)["arclamp-log.service"]
    override = r["systemd"]["services"]["arclamp-log"]["serviceConfig"]
    assert effective(shipped, override, "IPAddressAllow") == ["localhost", "10.64.0.0/24"]
    assert effective(shipped, override, "IPAddressDeny") == ["any"]
    plain = nix_eval(nix_env, "nixos", "{ services.arclamp.log.enable = true; }")
    assert "IPAddressAllow" not in plain["systemd"]["services"]["arclamp-log"]["serviceConfig"]


def test_module_disabled_sets_nothing(nix_env):
    r = nix_eval(nix_env, "nixos", "{ }")
    assert r["phpfpm"]["pools"] == {} and r["nginx"]["appendHttpConfig"] == ""
    assert r["services"]["arclamp"]["hprofFpm"]["nginxConfig"] == ""
    assert r["systemd"]["packages"] == [] and r["systemd"]["tmpfilesPackages"] == []
    assert r["systemd"]["services"] == {} and r["systemd"]["sockets"] == {} and r["systemd"]["timers"] == {}
    assert r["users"]["users"] == {} and r["environment"]["etc"] == {}
    assert r["phpfpm"]["phpPackage"] != r["services"]["arclamp"]["phpExtension"]["finalPackage"]


def test_module_svg_without_compress(nix_env):
    r = nix_eval(nix_env, "nixos", "{ services.arclamp.svg.enable = true; services.arclamp.svg.compress.enable = false; }")
    assert list(r["systemd"]["timers"]) == ["arclamp-svg"]
    assert r["systemd"]["tmpfilesPackages"] == [r["services"]["arclamp"]["svg"]["package"]]
    assert list(r["systemd"]["sockets"]) == []
    assert "arclamp" in r["users"]["users"]


def test_module_php_extension(packages, trees, nixos):
    php = nixos["phpfpm"]
    a = nixos["services"]["arclamp"]["phpExtension"]
    assert php["phpPackage"] == a["finalPackage"]
    ours = [e for e in php["extensions"] if e["out"] == a["package"]]
    assert ours == [{"out": packages["php-excimer-sampler"]["out"], "extensionName": "excimer"}]
    assert tree_of(trees, ours[0]["out"]).path(ours[0]["out"] + "/lib/php/extensions/excimer.so").is_file()
    # the php's other extensions stay; nixpkgs' own excimer does not (same name)
    assert [e["extensionName"] for e in php["extensions"]] == ["opcache", "excimer"]

    def ini(v):
        return ("1" if v else "0") if isinstance(v, bool) else str(v) if isinstance(v, int) else f'"{v}"'
    assert sorted(php["extraConfig"].splitlines()) == sorted(f"{k} = {ini(v)}" for k, v in a["settings"].items())
    assert a["settings"]["excimer.arclamp_target"] == "unix:///run/arclamp/ingest.sock"


def test_all_on_ini_rendering(nix_env):
    r = nix_eval(nix_env, "nixos", ALL_ON)
    assert sorted(r["phpfpm"]["extraConfig"].splitlines()) == [
        'excimer.arclamp_period = 60',
        'excimer.arclamp_target = "unix:///run/arclamp/ingest.sock"',
        'excimer.some_flag = 1',
    ]


def test_example_configuration(nix_env):
    r = nix_eval(nix_env, "nixos", CONFIGS["example"])
    sock = r["systemd"]["sockets"]["arclamp-log"]
    assert sock["listenDatagrams"] == ["0.0.0.0:7761"] and sock["wantedBy"] == ["sockets.target"]
    log = r["services"]["arclamp"]["log"]["settings"]
    assert log["logs"][0]["retain"] == 672 and log["base_path"] == "/var/lib/arclamp/logs"
    assert r["warnings"] == []


def test_module_options_documented(nixos):
    def walk(tree, loc):
        for k, v in tree.items():
            if "readOnly" in v and "type" in v:
                yield ".".join(loc + [k]), v
            else:
                yield from walk(v, loc + [k])
    opts = list(walk(nixos["options"], ["services", "arclamp"]))
    assert len(opts) >= 11
    for name, o in opts:
        assert o["description"], f"{name} has no description"
        assert o["type"], name
        assert o["hasDefault"], f"{name} has no default"


# --- hprofFpm: the profiled twin of a PHP-FPM pool, and the nginx split -------------

HPROF_POOL = """
  services.phpfpm.pools.mediawiki = {
    user = "mediawiki";
    group = "www";
    phpEnv.MW_INSTALL_PATH = "/srv/mediawiki";
    phpOptions."memory_limit" = "256M";
    settings = { pm = "dynamic"; "pm.max_children" = 8; "pm.start_servers" = 2;
                 "pm.status_path" = "/status"; "listen.owner" = "nginx";
                 "request_terminate_timeout" = 60; catch_workers_output = true; };
  };
  services.arclamp.phpExtension.enable = true;
  services.arclamp.phpExtension.settings."excimer.arclamp_target" = "unix:///run/arclamp/ingest.sock";
"""
HPROF = "{" + HPROF_POOL + """
  services.nginx.enable = true;
  services.arclamp.hprofFpm = { enable = true; pool = "mediawiki"; apiModules = [ "xhprof" ]; };
}"""
SHIPPED_HPROF_INI = ROOT / "php-excimer-sampler/hprof-fpm/conf.d/90-arclamp-hprof.ini"
SHIPPED_SPLIT = ROOT / "nginx/arclamp-hprof-split.conf"


def directives(path, comment):
    """The lines of a shipped file that are neither empty nor comments."""
    return [l for l in path.read_text().splitlines() if l.strip() and not l.lstrip().startswith(comment)]


def test_module_hprof_fpm_pool(nix_env, trees):
    """The profiled twin is a pool of its own (NixOS runs each pool in its
    own master and service): the application pool's user, group,
    environment, php.ini options and settings, but a static process
    manager of its own; its PHP has the same extensions and settings as the
    application's, then the shipped 90-arclamp-hprof.ini's, then the API
    module chosen, loaded from the package."""
    r = nix_eval(nix_env, "nixos", HPROF)
    a = r["services"]["arclamp"]["hprofFpm"]
    pools = r["phpfpm"]["pools"]
    assert sorted(pools) == ["arclamp-hprof", "mediawiki"]
    main, twin = pools["mediawiki"], pools["arclamp-hprof"]
    for k in ("user", "group", "phpEnv", "phpOptions"):
        assert twin[k] == main[k], k
    assert twin["socket"] == a["socket"] == "/run/phpfpm/arclamp-hprof.sock" != main["socket"]
    kept = {k: v for k, v in main["settings"].items()
            if k != "pm" and not k.startswith("pm.") and k not in ("listen", "user", "group")}
    assert "pm.status_path" not in kept and kept["listen.owner"] == "nginx"
    assert twin["settings"] == dict(kept, pm="static", **{"pm.max_children": a["maxChildren"]},
                                    listen=twin["socket"], user="mediawiki", group="www")
    # the PHP: the application's, plus the shipped ini and the module
    assert main["php"]["phpPackage"] == r["services"]["arclamp"]["phpExtension"]["finalPackage"]
    assert twin["php"]["phpPackage"] != main["php"]["phpPackage"]
    assert twin["php"]["extensions"] == main["php"]["extensions"]
    pkg = r["services"]["arclamp"]["phpExtension"]["package"]
    shipped = directives(SHIPPED_HPROF_INI, ";")
    assert "excimer.hprof_sample_rate = 1" in shipped
    assert twin["php"]["extraConfig"].splitlines() == main["php"]["extraConfig"].splitlines() + shipped + [
        f"extension = {pkg}/lib/php/extensions/xhprof.so"]
    assert tree_of(trees, pkg).path(pkg + "/lib/php/extensions/xhprof.so").is_file()
    assert "hprof" not in main["php"]["extraConfig"]
    assert r["warnings"] == []


def test_module_hprof_fpm_nginx(nix_env, tmp_path):
    """nginx's http block gets the shipped snippet's directives with the
    sockets of NixOS's pools and the share of `every` (1,000: 0.10%), and
    Debian's nginx accepts them with a typical PHP location."""
    r = nix_eval(nix_env, "nixos", HPROF)
    text = r["nginx"]["appendHttpConfig"]
    assert text == r["services"]["arclamp"]["hprofFpm"]["nginxConfig"]
    expected = [l.replace("unix:/run/php/php8.2-fpm.sock", "unix:/run/phpfpm/mediawiki.sock")
                 .replace("unix:/run/arclamp-hprof-fpm/php-fpm.sock", "unix:/run/phpfpm/arclamp-hprof.sock")
                 .replace("0.1%", "0.10%") for l in directives(SHIPPED_SPLIT, "#")]
    assert text.splitlines() == expected
    assert text.count("unix:/run/phpfpm/mediawiki.sock") == 2 and "/run/php/" not in text
    (tmp_path / "split.conf").write_text(text)
    for name in ("snippets", "fastcgi.conf"):
        (tmp_path / name).symlink_to(Path("/etc/nginx") / name)
    (tmp_path / "nginx.conf").write_text(f"""pid {tmp_path}/nginx.pid;
events {{ }}
http {{
    include split.conf;
    server {{
        listen 127.0.0.1:8080;
        root {tmp_path};
        location ~ \\.php$ {{
            include snippets/fastcgi-php.conf;
            fastcgi_pass $arclamp_php_backend;
        }}
    }}
}}
""")
    p = subprocess.run(["/usr/sbin/nginx", "-t", "-e", str(tmp_path / "error.log"), "-c", str(tmp_path / "nginx.conf")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "syntax is ok" in p.stderr, p.stdout + p.stderr


@pytest.mark.parametrize("every,share", [(2, "50.00%"), (3, "33.33%"), (1000, "0.10%"), (10000, "0.01%")])
def test_module_hprof_fpm_share(nix_env, every, share):
    r = nix_eval(nix_env, "nixos", "{" + HPROF_POOL + f"""
      services.arclamp.hprofFpm = {{ enable = true; pool = "mediawiki"; every = {every}; }};
      services.arclamp.hprofFpm.configureNginx = true;
    }}""")
    lines = [l.split() for l in r["nginx"]["appendHttpConfig"].splitlines()]
    assert [share, "arclamp_php_hprof;"] in lines, lines


def test_module_hprof_fpm_settings_last_and_nginx_optional(nix_env):
    """hprofFpm.settings come after the shipped ini's (a later line wins in
    php.ini); without services.nginx (or configureNginx = false) nginx is
    left alone, nginxConfig still says what to add."""
    r = nix_eval(nix_env, "nixos", "{" + HPROF_POOL + """
      services.arclamp.hprofFpm = { enable = true; pool = "mediawiki"; maxChildren = 4;
        settings = { "excimer.hprof_target" = "redis://10.0.0.5:6379/xhprof"; "excimer.hprof_flags" = "cpu"; }; };
    }""")
    twin = r["phpfpm"]["pools"]["arclamp-hprof"]
    tail = twin["php"]["extraConfig"].splitlines()[-2:]
    assert sorted(tail) == ['excimer.hprof_flags = "cpu"', 'excimer.hprof_target = "redis://10.0.0.5:6379/xhprof"']
    assert twin["settings"]["pm.max_children"] == 4
    assert r["nginx"] == {"enable": False, "appendHttpConfig": ""}
    assert "split_clients" in r["services"]["arclamp"]["hprofFpm"]["nginxConfig"]
    r = nix_eval(nix_env, "nixos", HPROF[:-1] + "services.arclamp.hprofFpm.configureNginx = false; }")
    assert r["nginx"]["appendHttpConfig"] == ""


# --- 5. the evaluation is strict enough to catch mistakes ----------------------------

@pytest.mark.parametrize("config,error", [
    ("{ services.arclamp.log.enabled = true; }", "does not exist"),
    ("{ services.arclamp.log.enable = \"yes\"; }", "is not of type"),
    ("{ services.arclamp.svg.enable = true; systemd.services.arclamp-svg.serviceConfg = { }; }", "does not exist"),
    ("{ services.arclamp.phpExtension.enable = true; "
     "services.arclamp.phpExtension.settings.\"excimer.x\" = \"a\\\"b\"; }", "double quote"),
    ("{ pkgs, ... }: { services.arclamp.phpExtension.enable = true; "
     "services.phpfpm.phpPackage = pkgs.php83; }", "defined multiple times"),
    ("{ services.arclamp.phpExtension.enable = true; "
     "services.arclamp.phpExtension.finalPackage = { type = \"derivation\"; outPath = \"/x\"; }; }",
     "read-only"),
    ("{" + HPROF_POOL + "services.arclamp.hprofFpm = { enable = true; pool = \"mediawiki\"; every = 1; }; }",
     "is not of type"),
    ("{" + HPROF_POOL + "services.arclamp.hprofFpm = { enable = true; pool = \"wiki\"; }; }",
     "must name a services.phpfpm pool"),
    ("{" + HPROF_POOL + "services.arclamp.hprofFpm = { enable = true; }; }", "must name a services.phpfpm pool"),
    ("{ services.phpfpm.pools.mediawiki.user = \"mw\"; "
     "services.arclamp.hprofFpm = { enable = true; pool = \"mediawiki\"; }; }",
     "needs services.arclamp.phpExtension.enable"),
    ("{" + HPROF_POOL + "services.arclamp.hprofFpm = { enable = true; pool = \"mediawiki\"; "
     "settings.\"excimer.x\" = \"a\\\"b\"; }; }", "double quote"),
    ("{" + HPROF_POOL + "services.arclamp.hprofFpm = { enable = true; pool = \"mediawiki\"; "
     "apiModules = [ \"xdebug\" ]; }; }", "is not of type"),
])
def test_mistakes_fail_evaluation(nix_env, config, error):
    p = nix_eval(nix_env, "nixos", config, check=False)
    assert isinstance(p, subprocess.CompletedProcess), f"{config} evaluated"
    assert error in p.stderr, p.stderr



# --- objectStore: the object_store: section and the unit opened to the store ---------

STORE_SWIFT = """{
  services.arclamp.svg.enable = true;
  services.arclamp.report.enable = true;
  services.arclamp.objectStore = {
    type = "swift";
    authUrl = "https://swift.example.org/auth/v1.0";
    host = "eqiad";
    credentialsFile = "/run/secrets/arclamp-object-store";
    allowedAddresses = [ "10.64.0.0/24" "localhost" ];
  };
  services.arclamp.svg.settings.object_store.retention_days = 30;
}"""
STORE_S3 = """{
  services.arclamp.svg.enable = true;
  services.arclamp.report.enable = true;
  services.arclamp.objectStore = {
    type = "s3";
    endpoint = "https://s3.example.org";
    region = "eu-west-1";
    bucket = "arclamp";
    fromStore = true;
    hosts = [ "eqiad" "codfw" ];
    allowedAddresses = [ "any" ];
  };
}"""
NETWORK_KEYS = ("PrivateNetwork", "RestrictAddressFamilies", "IPAddressAllow", "IPAddressDeny", "LoadCredential")
REPORT_YAML = "arclamp/arclamp-report.yaml"


def effective(unit, override, key):
    """A list setting of the shipped unit after the module's drop-in."""
    v = override.get(key, [])
    return apply_overrides(unit_values(unit, "Service", key), v if isinstance(v, list) else [v])


def test_module_object_store_off_by_default(nix_env):
    """Without a store no unit gets network, and arclamp-report no
    configuration file (a --config naming no file would be an error) and no
    other writable path: its command is the shipped one."""
    r = nix_eval(nix_env, "nixos", ALL_ON)
    assert r["services"]["arclamp"]["objectStore"]["type"] == "none"
    assert "object_store" not in r["environment"]["etc"]["arclamp/arclamp-svg.yaml"]["content"]
    assert REPORT_YAML not in r["environment"]["etc"]
    for name, svc in r["systemd"]["services"].items():
        assert not set(NETWORK_KEYS) & set(svc["serviceConfig"]), name
    report = r["systemd"]["services"]["arclamp-report"]["serviceConfig"]
    assert "--config" not in exec_argv(report["ExecStart"][-1])
    assert "ReadWritePaths" not in report


def report_argv_with_config(trees, r):
    """arclamp-report's command after the drop-in: the shipped one with
    --config naming the generated file (in environment.etc), and dataDir."""
    _, shipped = units_of(trees, r)["arclamp-report.service"]
    override = r["systemd"]["services"]["arclamp-report"]["serviceConfig"]["ExecStart"]
    assert override[0] == "" and len(override) == 2
    (cmd,) = unit_values(shipped, "Service", "ExecStart")
    want = exec_argv(cmd)
    want[want.index("--data-dir") + 1] = r["services"]["arclamp"]["report"]["dataDir"]
    got = exec_argv(override[1])
    assert got[0] == r["services"]["arclamp"]["report"]["package"] + "/bin/arclamp-report"
    assert got[:2] == [got[0], "generate"] and got[2:4] == ["--config", "/etc/" + REPORT_YAML]
    assert [got[1]] + got[4:] == want[1:], (override, cmd)
    return got


def check_report_accepts_store(trees, tmp_path, content, cred_name, cred_text):
    """The installed arclamp-report loads the generated file (a generate
    that reaches the lock; held here, so it stops there, exit 75, before
    any store request) with the credentials where LoadCredential= puts
    them, and refuses it without (exit 78, the section named)."""
    cfg = tmp_path / "arclamp-report.yaml"
    cfg.write_text(yaml.safe_dump(content))
    creds = tmp_path / "report-creds"
    creds.mkdir()
    (creds / cred_name).write_text(cred_text)
    (creds / cred_name).chmod(0o600)
    data = tmp_path / "report-data"
    (data / "reports").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ST_", "OS_", "AWS_", "CREDENTIALS_"))}
    argv = [trees["arclamp"].root() / "bin/arclamp-report", "generate", "--config", cfg,
            "--data-dir", data, "--quiet"]
    with open(data / "reports" / ".arclamp-report.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = subprocess.run(argv, env=dict(env, CREDENTIALS_DIRECTORY=str(creds)), capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 75 and "another generate is running" in p.stderr, p.stdout + p.stderr
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
        assert p.returncode == 78 and "object_store" in p.stderr, p.stdout + p.stderr


def test_module_object_store_swift(nix_env, trees, tmp_path):
    """The YAML section from the options (other keys merged in from
    settings.object_store), and arclamp-svg.service, only it, opened as
    systemd/object-store.conf opens it on Debian: the shipped unit plus the
    module's drop-in gives the same lists as the shipped unit plus that
    file, with the allowed addresses and the credentials file in place of
    the example's."""
    r = nix_eval(nix_env, "nixos", STORE_SWIFT)
    section = r["environment"]["etc"]["arclamp/arclamp-svg.yaml"]["content"]["object_store"]
    assert section == {"type": "swift", "auth_url": "https://swift.example.org/auth/v1.0", "host": "eqiad",
                       "from_store": False, "retention_days": 30}
    units = units_of(trees, r)
    _, shipped = units["arclamp-svg.service"]
    override = r["systemd"]["services"]["arclamp-svg"]["serviceConfig"]
    dropin = parse_unit((ROOT / "systemd/object-store.conf").read_text())
    assert override["PrivateNetwork"] is False
    assert effective(shipped, override, "RestrictAddressFamilies") == \
        apply_overrides(unit_values(shipped, "Service", "RestrictAddressFamilies"),
                        ["", *unit_values(dropin, "Service", "RestrictAddressFamilies")])
    assert set(effective(shipped, override, "RestrictAddressFamilies")[0].split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert effective(shipped, override, "IPAddressDeny") == ["any"] == \
        apply_overrides(unit_values(shipped, "Service", "IPAddressDeny"), unit_values(dropin, "Service", "IPAddressDeny"))
    assert effective(shipped, override, "IPAddressAllow") == ["10.64.0.0/24", "localhost"]
    (cred,) = effective(shipped, override, "LoadCredential")
    (debian_cred,) = unit_values(dropin, "Service", "LoadCredential")
    assert cred == debian_cred.split(":")[0] + ":/run/secrets/arclamp-object-store"
    # arclamp-report.service gets the same drop-in settings, compress none
    report = r["systemd"]["services"]["arclamp-report"]["serviceConfig"]
    assert {k: report[k] for k in NETWORK_KEYS if k in report} == \
        {k: override[k] for k in NETWORK_KEYS if k in override}
    _, shipped_report = units["arclamp-report.service"]
    assert effective(shipped_report, report, "IPAddressDeny") == ["any"]
    assert effective(shipped_report, report, "IPAddressAllow") == ["10.64.0.0/24", "localhost"]
    assert effective(shipped_report, report, "LoadCredential") == [cred]
    assert not set(NETWORK_KEYS) & set(r["systemd"]["services"]["arclamp-svg-compress"]["serviceConfig"])
    # its file: the options' section alone (retention_days is arclamp-svg's
    # setting), named by its command; no from_store, no other writable path
    assert r["environment"]["etc"][REPORT_YAML]["content"] == {"object_store": {
        "type": "swift", "auth_url": "https://swift.example.org/auth/v1.0", "host": "eqiad",
        "from_store": False}}
    report_argv_with_config(trees, r)
    assert "ReadWritePaths" not in report and r["systemd"]["tmpfilesRules"] == []
    check_report_accepts_store(trees, tmp_path, r["environment"]["etc"][REPORT_YAML]["content"],
                               cred.split(":")[0], "ST_USER=arclamp:publisher\nST_KEY=secret\n")
    # the installed arclamp-svg accepts the section, with the credentials
    # where LoadCredential= puts them, and refuses it without
    cfg = tmp_path / "arclamp-svg.yaml"
    cfg.write_text(yaml.safe_dump(dict(r["environment"]["etc"]["arclamp/arclamp-svg.yaml"]["content"],
                                       data_dir=str(tmp_path))))
    creds = tmp_path / "creds"
    creds.mkdir()
    (creds / cred.split(":")[0]).write_text("ST_USER=arclamp:publisher\nST_KEY=secret\n")
    (creds / cred.split(":")[0]).chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ST_", "OS_", "AWS_"))}
    argv = [trees["arclamp"].root() / "bin/arclamp-svg", "metrics", "--config", cfg, "--output", tmp_path / "m.prom"]
    p = subprocess.run(argv, env=dict(env, CREDENTIALS_DIRECTORY=str(creds)), capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    p = subprocess.run(argv, env=env, capture_output=True, text=True)
    assert p.returncode != 0 and "object_store" in p.stderr, p.stderr


def test_module_object_store_s3_from_store(nix_env, trees, tmp_path):
    """fromStore: arclamp-report merges every host's run logs and tier
    tables into <dataDir>/logs, which its unit may then write (the
    commented ReadWritePaths= line of systemd/object-store.conf)."""
    r = nix_eval(nix_env, "nixos", STORE_S3)
    section = r["environment"]["etc"]["arclamp/arclamp-svg.yaml"]["content"]["object_store"]
    assert section == {"type": "s3", "endpoint": "https://s3.example.org", "region": "eu-west-1",
                       "bucket": "arclamp", "from_store": True, "hosts": ["eqiad", "codfw"]}
    assert r["environment"]["etc"][REPORT_YAML]["content"] == {"object_store": section}
    for name in ("arclamp-svg", "arclamp-report"):
        override = r["systemd"]["services"][name]["serviceConfig"]
        assert override["IPAddressAllow"] == ["", "any"] and override["PrivateNetwork"] is False, name
        assert "LoadCredential" not in override
    report = r["systemd"]["services"]["arclamp-report"]["serviceConfig"]
    dropin = parse_unit((ROOT / "systemd/object-store.conf").read_text())
    commented = [l.lstrip("#") for l in (ROOT / "systemd/object-store.conf").read_text().splitlines()
                 if l.startswith("#ReadWritePaths=")]
    assert report["ReadWritePaths"] == ["/var/lib/arclamp/logs"] == [l.split("=", 1)[1] for l in commented]
    assert "ReadWritePaths" not in [k for _, k in dropin]
    assert r["systemd"]["tmpfilesRules"] == []  # the package's tmpfiles file makes it
    report_argv_with_config(trees, r)
    assert r["warnings"] == []
    check_report_accepts_store(trees, tmp_path, r["environment"]["etc"][REPORT_YAML]["content"],
                               "arclamp-object-store",
                               "AWS_ACCESS_KEY_ID=AKIDEXAMPLE\nAWS_SECRET_ACCESS_KEY=secret\n")


def test_module_object_store_report_only_other_data_dir(nix_env, trees):
    """arclamp-report alone talks to the store (arclamp-svg not enabled:
    no drop-in for it); with another dataDir and fromStore its logs
    directory is made and opened next to its reports directory."""
    r = nix_eval(nix_env, "nixos", """{
      services.arclamp.report.enable = true;
      services.arclamp.report.dataDir = "/srv/arclamp";
      services.arclamp.objectStore = {
        type = "swift"; fromStore = true; hosts = [ "eqiad" ];
        credentialsFile = "/run/secrets/store"; allowedAddresses = [ "10.64.0.0/24" ];
      };
    }""")
    assert sorted(r["systemd"]["services"]) == ["arclamp-report"]
    assert list(r["environment"]["etc"]) == [REPORT_YAML]
    assert r["environment"]["etc"][REPORT_YAML]["content"] == {
        "object_store": {"type": "swift", "from_store": True, "hosts": ["eqiad"]}}
    report = r["systemd"]["services"]["arclamp-report"]["serviceConfig"]
    assert report["LoadCredential"] == ["arclamp-object-store:/run/secrets/store"]
    assert report["IPAddressAllow"] == ["", "10.64.0.0/24"]
    assert sorted(report["ReadWritePaths"]) == ["/srv/arclamp/logs", "/srv/arclamp/reports"]
    assert sorted(r["systemd"]["tmpfilesRules"]) == [
        "d /srv/arclamp/logs 0755 arclamp arclamp -", "d /srv/arclamp/reports 0755 arclamp arclamp -"]
    argv = report_argv_with_config(trees, r)
    assert argv[argv.index("--data-dir") + 1] == "/srv/arclamp"
    # arclamp-svg alone: the report's file is not written
    r = nix_eval(nix_env, "nixos", """{
      services.arclamp.svg.enable = true;
      services.arclamp.objectStore = { type = "swift"; allowedAddresses = [ "any" ]; };
    }""")
    assert REPORT_YAML not in r["environment"]["etc"] and "arclamp-report" not in r["systemd"]["services"]


@pytest.mark.parametrize("config,error", [
    ("{ services.arclamp.svg.enable = true; services.arclamp.objectStore.type = \"ftp\"; }", "is not of type"),
    ("{ services.arclamp.svg.enable = true; services.arclamp.objectStore = { type = \"swift\"; "
     "authUrl = \"https://swift.example.org/auth/v1.0\"; }; }", "allowedAddresses"),
    ("{ services.arclamp.svg.enable = true; services.arclamp.objectStore = { type = \"swift\"; "
     "allowedAddresses = [ \"any\" ]; credentialsFile = ./flake.nix; }; }", "not a Nix path"),
    ("{ services.arclamp.svg.enable = true; services.arclamp.objectStore = { type = \"s3\"; "
     "allowedAddresses = [ \"any\" ]; }; }", "bucket is needed"),
])
def test_module_object_store_mistakes(nix_env, config, error):
    p = nix_eval(nix_env, "nixos", config, check=False)
    assert isinstance(p, subprocess.CompletedProcess), f"{config} evaluated"
    assert error in p.stderr, p.stderr
