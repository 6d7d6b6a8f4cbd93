# The `make` variables nix/package.nix passes to both `make` (the build phase,
# target `all`) and `make install` (the install phase): every directory of the
# Makefile's installation section, each inside $out.
#
# nix/tests/test_nix.py evaluates this same file (through package.nix) and runs
# `make install DESTDIR=<tmp>` with it, so the tree it checks is laid out
# exactly like the derivation's $out; it also fails when the Makefile gains an
# installation directory variable this list does not set.
{ out }:
[
  "PREFIX=${out}"
  "BINDIR=${out}/bin"
  "SYSCONFDIR=${out}/etc"
  "UNITDIR=${out}/lib/systemd/system"
  "SYSUSERSDIR=${out}/lib/sysusers.d"
  "TMPFILESDIR=${out}/lib/tmpfiles.d"
  "DOCDIR=${out}/share/doc"
  # php.buildEnv loads ${ext}/lib/php/extensions/${ext.extensionName}.so
  "PHP_EXTDIR=${out}/lib/php/extensions"
  # the reference excimer.ini (not loaded: NixOS writes PHP's ini itself)
  "PHP_INIDIR=${out}/share/php-excimer-sampler"
  "PHP_LIBDIR=${out}/share/php"
  # arclamp-hprof-fpm.service's php-fpm configuration (Debian's; not used by
  # the NixOS module, which reads the sources)
  "HPROF_FPMDIR=${out}/share/php-excimer-sampler/hprof-fpm"
]
