#!/usr/bin/env bash
# nix/tests/mutations.sh: breaks one thing at a time (in nix/, flake.nix, the
# Makefile's install section, systemd/) in a copy of the tree and checks that
# nix/tests/test_nix.py then fails. Not part of `make check` (about two
# minutes); run it after changing the tests. Prints "ok (fails) ..." per
# mutation, "!! ..." for one the tests did not catch, and exits non-zero then.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
C=$(mktemp -d /tmp/arclamp-nix-mutations.XXXXXX)
missed=0
restore() {
  rm -rf $C; mkdir -p $C
  tar -C $SRC --exclude=./build --exclude=./.git -cf - . | tar -C $C -xf -
  ln -s $SRC/build $C/build
}
try() {  # NAME FILE PERL-EXPR
  restore
  perl -0pi -e "$3" "$C/$2"
  if [ ! -f "$C/$2" ] || cmp -s "$C/$2" "$SRC/$2"; then echo "!! $1: edit did not apply"; missed=1; return; fi
  out=$(cd $C && /usr/bin/python3 -m pytest -q -p no:cacheprovider nix/tests 2>&1 | tail -1)
  case "$out" in *failed*|*error*) echo "ok (fails) $1: $out";; *) echo "!! NOT CAUGHT $1: $out"; missed=1;; esac
}
# the unchanged copy must pass, or the failures below would prove nothing
restore
base=$(cd $C && /usr/bin/python3 -m pytest -q -p no:cacheprovider nix/tests 2>&1 | tail -1)
case "$base" in *failed*|*error*|"") echo "!! the unchanged tree fails: $base"; rm -rf $C; exit 1;; esac
echo "baseline: $base"
try "syntax error in module"          nix/module.nix      's/mkMerge \[/mkMerge [ (/'
try "ExecStart binary name"          nix/module.nix      's|/bin/arclamp-log --config|/bin/arclamp-logd --config|'
try "ExecStart arguments"            nix/module.nix      's|compress --older-than 1|compress --older-than 2|'
try "unit name typo"                 nix/module.nix      's|arclamp-svg-compress.wantedBy|arclamp-svg-compres.wantedBy|'
try "no ExecReload override"         nix/module.nix      's|serviceConfig.ExecReload = .*\n||'
try "socket not enabled"             nix/module.nix      's|systemd.sockets.arclamp-log.wantedBy = \[ "sockets.target" \];||'
try "default retain differs"         nix/module.nix      's|retain = 336|retain = 335|'
try "config path not in etc"         nix/module.nix      's|svgConfigPath = "/etc/arclamp/arclamp-svg.yaml"|svgConfigPath = "/etc/arclamp/svg.yaml"|'
try "user home differs"              nix/module.nix      's|home = "/var/lib/arclamp";|home = "/srv/arclamp";|'
try "nixpkgs excimer kept"           nix/module.nix      's|builtins.filter \(e: \(e.extensionName or ""\) != "excimer"\) enabled|enabled|'
try "wrong NixOS option name"        nix/module.nix      's|reloadTriggers = |reloadTrigger = |'
try "BINDIR moved"                   nix/make-flags.nix  's|"BINDIR=\$\{out\}/bin"|"BINDIR=\${out}/sbin"|'
try "PHP_EXTDIR missing"             nix/make-flags.nix  's|  "PHP_EXTDIR=.*\n||'
try "package.nix own flags"          nix/package.nix     's|makeFlags = import ./make-flags.nix \{ out = placeholder "out"; \};|makeFlags = [ "PREFIX=\${placeholder "out"}" ];|'
try "build dir not excluded"         nix/package.nix     's|\[ "build" "nix"|[ "nix"|'
try "component file list wrong"      nix/components.nix  's|"etc/arclamp/arclamp-svg.yaml"\n||'
try "postInstall not splitting"      nix/package.nix     's|bash \$\{./split.sh\}|true \${./split.sh}|'
try "flake lacks a package"          flake.nix           's|arclamp-log arclamp-svg arclamp-report php-excimer-sampler arclamp default|arclamp-log arclamp-svg arclamp-report arclamp default|'
try "flake module elsewhere"         flake.nix           's|nixosModules.default = ./nix/module.nix;|nixosModules.default = { };|'
try "Makefile: new install dir"      Makefile            's|(PHP_LIBDIR  \?= .*\n)|$1DATADIR ?= \$(PREFIX)/share\n|'
try "Makefile: extra file installed" Makefile            's|(\tinstall -m 0644 \$\(EXT_DIR\)/client/ArcLamp.php[^\n]*\n)|$1\tinstall -m 0644 VERSION \$(DESTDIR)\$(PHP_LIBDIR)/VERSION\n|'
try "Makefile: unit renamed"         Makefile            's|arclamp-svg-compress.service arclamp-svg-compress.timer|arclamp-svg-compress.service|'
try "Makefile: PKGS changed"         Makefile            's|^PKGS     := hiredis|PKGS     := hiredis libcurl|m'
try "shipped ExecStart args change"  systemd/arclamp-svg.service 's|ExecStart=/usr/bin/arclamp-svg generate|ExecStart=/usr/bin/arclamp-svg generate --force|'
try "shipped unit: other User="      systemd/arclamp-svg.service 's|User=arclamp|User=arclamp-svg|'
try "shipped socket WantedBy"        systemd/arclamp-log.socket 's|WantedBy=sockets.target|WantedBy=sockets.target multi-user.target|'
try "packaged yaml changed"          systemd/arclamp-svg.yaml 's|data_dir: /var/lib/arclamp|data_dir: /srv/arclamp|'
try "shipped ExecStart /usr/sbin"    systemd/arclamp-svg-compress.service 's|ExecStartPre=|X|; s|(\[Service\]\n)|$1ExecStartPre=/usr/sbin/true\n|'
try "stub lib: types.bool accepts all" nix/tests/stub-lib.nix 's|description = "boolean"; check = b.isBool;|description = "boolean"; check = _: true;|'
try "svg tmpfiles not registered"    nix/module.nix 's|      systemd.tmpfiles.packages = \[ cfg.svg.package \];\n||'
try "tmpfiles file not installed"    nix/components.nix 's|      "lib/tmpfiles.d/arclamp.conf"\n||'
try "svg ExecStart not overridden"  nix/module.nix 's|      systemd.services.arclamp-svg.serviceConfig.ExecStart =\n[^\n]*\n||'
try "settings key the program refuses" nix/tests/test_nix.py 's|services.arclamp.log.settings.base_path = "/srv/arclamp/logs";|services.arclamp.log.settings.base_path = "/srv/arclamp/logs"; services.arclamp.log.settings.flush_interval = "soon";|'
try "example uses unknown option" nix/example.nix 's|networking.firewall.allowedUDPPorts|networking.firewall.allowedUdpPorts|'
try "senders group not declared"     nix/module.nix 's|      users.groups.arclamp-senders.members = cfg.log.senders;\n||'
try "senders option ignored"         nix/module.nix 's|members = cfg.log.senders;|members = [ ];|'
try "shipped socket: other group"    systemd/arclamp-log.socket 's|SocketGroup=arclamp-senders|SocketGroup=arclamp-send|'
# arclamp-report
try "report package missing"         nix/packages.nix 's|  arclamp-report = callPackage[^\n]*\n||'
try "report component lacks a file"  nix/components.nix 's|      "lib/systemd/system/arclamp-report.timer"\n||'
try "report timer not enabled"       nix/module.nix 's|          wantedBy = \[ "timers.target" \];\n          timerConfig.OnCalendar|          timerConfig.OnCalendar|'
try "report interval default differs" nix/module.nix 's|reportShippedInterval = "\*:5/15";|reportShippedInterval = "*:0/15";|'
try "report schedule not reset"      nix/module.nix 's|timerConfig.OnCalendar = \[ "" cfg.report.interval \];|timerConfig.OnCalendar = [ cfg.report.interval ];|'
try "report ExecStart arguments"     nix/module.nix 's|" --data-dir \$\{cfg.report.dataDir\} --quiet"|" --data-dir \${cfg.report.dataDir}"|'
try "report dataDir not svg's"       nix/module.nix 's|        default = svgDataDir;|        default = "/var/lib/arclamp";|'
try "report other dir not writable"  nix/module.nix 's|        systemd.services.arclamp-report.serviceConfig.ReadWritePaths = \[ reportDir \];\n||'
try "report other dir not made"      nix/module.nix 's|        systemd.tmpfiles.rules = \[ "d \$\{reportDir\} 0755 arclamp arclamp -" \];\n||'
try "report logs warning missing"    nix/module.nix 's|arclamp-report reads run logs from|arclamp-report reads run logs at|; s|\(mkIf \(cfg.log.enable && reportLogsDir != logBasePath\)|(mkIf false|'
try "report user not created"        nix/module.nix 's|cfg.log.enable \|\| cfg.svg.enable \|\| cfg.report.enable|cfg.log.enable \|\| cfg.svg.enable|'
try "tmpfiles lacks reports/"        systemd/arclamp.tmpfiles 's|d /var/lib/arclamp/reports 0755 arclamp arclamp -\n||'
try "shipped report unit: config"    systemd/arclamp-report.service 's|generate --data-dir /var/lib/arclamp --quiet|generate --data-dir /var/lib/arclamp --quiet --config /etc/arclamp/arclamp-report.yaml|'
# arclamp-report and the object store
try "report keeps no network"        nix/module.nix 's|    \+\+ lib.optional cfg.report.enable "arclamp-report";|;|'
try "report --config always"         nix/module.nix 's|lib.optionalString storeOn " --config|lib.optionalString true " --config|'
try "report --config never"          nix/module.nix 's|lib.optionalString storeOn " --config|lib.optionalString false " --config|'
try "report yaml with svg's keys"    nix/module.nix 's|\{ object_store = storeSection; \}|{ object_store = cfg.svg.settings.object_store or storeSection; }|'
try "report yaml not written"        nix/module.nix 's|        environment.etc."arclamp/arclamp-report.yaml".source = reportConfigFile;\n||'
try "report from_store logs closed"  nix/module.nix 's|ReadWritePaths = \[ reportLogsDir \];|ReadWritePaths = [ ];|'
try "report from_store logs not made" nix/module.nix 's|        systemd.tmpfiles.rules = \[ "d \$\{reportLogsDir\} 0755 arclamp arclamp -" \];\n||'
rm -rf $C
exit $missed
