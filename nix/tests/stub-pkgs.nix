# A stand-in for the nixpkgs package set: just what nix/package.nix,
# nix/packages.nix, nix/module.nix and flake.nix use. Packages are fake
# derivations (attribute sets with type = "derivation" and a made-up store
# path): nothing is built. stdenv.mkDerivation returns its arguments with such
# an outPath, so the tests can read makeFlags, postInstall, src's filter and
# passthru; nix/tests/test_nix.py installs `make install DESTDIR=<tmp>` at
# those store paths.
{ lib }:
let
  b = builtins;
  storePath = name: "/nix/store/${b.substring 0 32 (b.hashString "sha256" name)}-${name}";
  fake = name: extra: { type = "derivation"; inherit name; outPath = storePath name; } // extra;

  phpVersion = "8.2.99";
  phpFor = enabled: fake "php-with-extensions-${phpVersion}" {
    unwrapped = fake "php-${phpVersion}" { dev = fake "php-${phpVersion}-dev" { }; };
    stubEnabledExtensions = enabled;
    # nixpkgs: php.buildEnv { extensions = { enabled, all }: [ ... ]; extraConfig = "..."; }
    buildEnv = { extensions ? ({ enabled, ... }: enabled), extraConfig ? "" }:
      let
        exts = extensions { inherit enabled; all = { }; };
        id = b.hashString "sha256" (b.concatStringsSep " " (map (e: e.outPath) exts) + extraConfig);
      in
      (phpFor exts) // {
        name = "php-with-extensions-${phpVersion}-env";
        outPath = storePath "php-with-extensions-${phpVersion}-env-${b.substring 0 8 id}";
        stubExtraConfig = extraConfig;
      };
  };

  self = {
    inherit lib;
    callPackage = fn: args:
      let f = if b.isFunction fn then fn else import fn;
      in f (b.intersectAttrs (b.functionArgs f) self // args);

    stdenv.mkDerivation = attrs:
      let name = attrs.name or "${attrs.pname}-${attrs.version}"; in
      attrs // (attrs.passthru or { }) // {
        inherit name;
        type = "derivation";
        outPath = storePath name;
        drvAttrs = attrs;
      };

    # nixpkgs: formats.yaml {} = { type; generate = name: value: <derivation>; }
    # (json2yaml of builtins.toJSON value); `type` is nixpkgs' JSON value type.
    formats.yaml = { }: {
      type = with lib.types;
        let valueType = nullOr (oneOf [ bool int float str path (attrsOf valueType) (listOf valueType) ])
          // { description = "YAML value"; };
        in valueType;
      generate = name: value: fake name { stubValue = value; };
    };

    # php82 with two default extensions: opcache and nixpkgs' own excimer
    # (the module must drop the latter for ours).
    php82 = phpFor [
      (fake "php-opcache-${phpVersion}" { extensionName = "opcache"; })
      (fake "php-excimer-1.2.1" { extensionName = "excimer"; })
    ];
    php = self.php83;
    php83 = fake "php-with-extensions-8.3.99" { };

    coreutils = fake "coreutils-9.5" { };
    pkg-config = fake "pkg-config-wrapper-0.29.2" { };
    autoconf = fake "autoconf-2.72" { };
    re2c = fake "re2c-3.1" { };
    hiredis = fake "hiredis-1.2.0" { };
    libyaml = fake "libyaml-0.2.5" { };
    systemd = fake "systemd-256.8" { };
    zlib = fake "zlib-1.3.1" { };
    xxHash = fake "xxHash-0.8.2" { };
    libsodium = fake "libsodium-1.0.18" { };
    curl = fake "curl-8.7.1" { };
    openssl = fake "openssl-3.0.13" { };
    libxml2 = fake "libxml2-2.12.7" { };
    json_c = fake "json-c-0.16" { };
    graphviz = fake "graphviz-2.42.2" { };
    check = fake "check-0.15.2" { };
  };
in
self
