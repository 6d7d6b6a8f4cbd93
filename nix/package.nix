# Arc Lamp for nixpkgs, callPackage style:
#
#   pkgs.callPackage ./nix/package.nix { component = "arclamp-log"; }
#
# `component` is one of nix/components.nix: arclamp-log, arclamp-svg,
# arclamp-report, php-excimer-sampler, or arclamp (all four in one package,
# the default).
#
# Every component is built the same way, with the project's own Makefile:
# stdenv's build phase runs `make` (target `all`: the programs and the PHP
# extension, which the Makefile builds with `phpize` + `./configure` from
# nixpkgs' php82.unwrapped dev output) and the install phase runs
# `make install`, both with the flags of nix/make-flags.nix (PREFIX=$out and
# every other directory inside $out). The Makefile's install step rewrites the
# units' ExecStart= to $out/bin and their --config to $out/etc/arclamp, so
# $out/lib/systemd/system works as is (systemd.packages, or a symlink on
# another distribution). postInstall then keeps only the component's files
# (nix/split.sh). The extension output has passthru.extensionName, which is
# what php.buildEnv / php.withExtensions need.
{ lib
, stdenv
, pkg-config
, autoconf
, re2c
, hiredis
, libyaml
, systemd
, zlib
, xxHash
, libsodium
, curl
, openssl
, libxml2
, json_c
, graphviz
, check
, php82
, component ? "arclamp"
}:

let
  components = import ./components.nix;
  comp = components.${component} or (throw
    "nix/package.nix: unknown component \"${component}\" (one of: ${lib.concatStringsSep ", " (lib.attrNames components)})");
  php = php82;
  root = toString ../.;
  # Not part of the build: the build/ directory of a local checkout (its objects
  # and programs were built against Debian's libraries and would look up to
  # date to make), and the Nix files themselves (editing them must not rebuild).
  excluded = map (p: "${root}/${p}") [ "build" "nix" "flake.nix" "flake.lock" ];
in
stdenv.mkDerivation {
  pname = component;
  version = lib.fileContents ../VERSION;

  src = lib.cleanSourceWith {
    name = "arclamp-source";
    src = ../.;
    filter = path: type:
      lib.cleanSourceFilter path type && !(builtins.elem (toString path) excluded);
  };

  # pkg-config finds hiredis, yaml-0.1, libsystemd, zlib, libxxhash, libsodium, libcurl,
  # libcrypto (openssl) and libxml-2.0 (the Makefile's PKGS: the object-store client) and json-c and libgvc (graphviz: its REPORT_PKGS); phpize and php-config come
  # from PHP's dev output and need autoconf.
  nativeBuildInputs = [ pkg-config autoconf re2c (lib.getDev php.unwrapped) ];
  buildInputs = [ hiredis libyaml systemd zlib xxHash libsodium curl openssl libxml2 json_c graphviz ];

  makeFlags = import ./make-flags.nix { out = placeholder "out"; };
  enableParallelBuilding = true;

  postInstall = lib.optionalString (comp.files != null) ''
    bash ${./split.sh} "$out" ${lib.escapeShellArgs comp.files}
  '';

  # The Check unit tests (`make unit-tests`); off by default: never run in a
  # Nix sandbox so far (see the README's Nix section).
  doCheck = false;
  checkTarget = "unit-tests";
  nativeCheckInputs = [ check ];

  passthru = {
    inherit component;
  } // lib.optionalAttrs (comp ? phpExtension) {
    extensionName = comp.phpExtension;
  };

  meta = {
    inherit (comp) description;
    platforms = lib.platforms.linux;
  } // lib.optionalAttrs (comp ? mainProgram) {
    inherit (comp) mainProgram;
  };
}
