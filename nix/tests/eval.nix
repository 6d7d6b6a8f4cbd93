# Evaluates flake.nix, nix/package.nix (through nix/packages.nix) and
# nix/module.nix against the stubs (stub-lib.nix, stub-pkgs.nix,
# stub-nixos.nix), offline and without building anything:
#
#   nix-instantiate --store dummy:// --eval --strict --json nix/tests/eval.nix \
#     -A packages
#   nix-instantiate --store dummy:// --eval --strict --json nix/tests/eval.nix \
#     -A nixos --arg userConfig '{ services.arclamp.log.enable = true; }'
#
# nix/tests/test_nix.py runs these and checks the results against the tree
# `make install` writes.
{ userConfig ? { } }:
let
  b = builtins;
  lib = import ./stub-lib.nix;
  pkgs = import ./stub-pkgs.nix { inherit lib; };
  root = toString ../..;

  flake = import ../../flake.nix;
  nixpkgsInput = {
    inherit lib;
    legacyPackages.x86_64-linux = pkgs;
    outPath = "/nix/store/00000000000000000000000000000000-nixpkgs";
  };
  outputs = flake.outputs { self = outputs // { outPath = root; }; nixpkgs = nixpkgsInput; };
  flakePackages = outputs.packages.x86_64-linux;

  direct = import ../packages.nix { inherit (pkgs) callPackage; };

  describePackage = name: drv: {
    inherit (drv) name pname version makeFlags postInstall component enableParallelBuilding doCheck;
    # (not "outPath": JSON would turn the whole set into that string)
    out = drv.outPath;
    extensionName = drv.extensionName or null;
    mainProgram = drv.meta.mainProgram or null;
    description = drv.meta.description;
    files = (import ../components.nix).${name}.files;
    buildFlags = drv.buildFlags or [ ];
    installFlags = drv.installFlags or [ ];
    installTargets = drv.installTargets or "install";
    buildInputs = map (p: p.name) drv.buildInputs;
    nativeBuildInputs = map (p: p.name) drv.nativeBuildInputs;
    # what nix/make-flags.nix gives for the same $out placeholder
    makeFlagsFile = import ../make-flags.nix { out = b.placeholder "out"; };
    outPlaceholder = b.placeholder "out";
    # the store path "${./split.sh}" becomes in postInstall
    splitScript = "${../split.sh}";
    # the source filter on a few paths of the checkout
    srcFilter = b.listToAttrs (map
      (p: { name = "${p.path} (${p.type})"; value = drv.src.filter "${root}/${p.path}" p.type; })
      [
        { path = "build"; type = "directory"; }
        { path = "nix"; type = "directory"; }
        { path = "flake.nix"; type = "regular"; }
        { path = "flake.lock"; type = "regular"; }
        { path = ".git"; type = "directory"; }
        { path = "result"; type = "symlink"; }
        { path = "Makefile"; type = "regular"; }
        { path = "VERSION"; type = "regular"; }
        { path = "arclamp-log"; type = "directory"; }
        { path = "common"; type = "directory"; }
        { path = "systemd"; type = "directory"; }
        { path = "php-excimer-sampler"; type = "directory"; }
        { path = "arclamp-svg/src/flamegraph.js"; type = "regular"; }
      ]);
    srcOrigin = toString drv.src.origSrc;
  };

  # Everything JSON can carry of an evaluated NixOS configuration.
  eval = lib.evalModules {
    modules = [ ./stub-nixos.nix outputs.nixosModules.default userConfig ];
    specialArgs = { inherit pkgs; };
  };
  c = eval.config;
  failedAssertions = map (a: a.message) (b.filter (a: !a.assertion) c.assertions);
  arclampOptions = loc: decls: b.mapAttrs
    (n: d:
      if lib.isDerivation d then throw "unreachable"
      else if (d._type or null) == "option" then {
        description = d.description or null;
        type = d.type.description or null;
        hasDefault = d ? default;
        defaultText = d.defaultText.text or null;
        example = d.example.text or (d.example or null);
        readOnly = d.readOnly or false;
      }
      else arclampOptions (loc ++ [ n ]) d)
    decls;
  php = c.services.phpfpm.phpPackage;
  describePhp = p: {
    phpPackage = p.outPath;
    extensions = map (e: { out = e.outPath; extensionName = e.extensionName or null; })
      (p.stubEnabledExtensions or [ ]);
    extraConfig = p.stubExtraConfig or null;
  };
in
{
  flake = {
    inputs = b.mapAttrs (n: i: i.url or null) (flake.inputs or { });
    outputNames = b.attrNames outputs;
    packageNames = b.attrNames flakePackages;
    packageOutPaths = b.mapAttrs (n: p: p.outPath) flakePackages;
    directOutPaths = b.mapAttrs (n: p: p.outPath) direct;
    nixosModules = b.attrNames outputs.nixosModules;
    moduleIsModuleFile = outputs.nixosModules.default == ../module.nix;
  };

  packages = b.mapAttrs describePackage
    { inherit (direct) arclamp-log arclamp-svg arclamp-report php-excimer-sampler arclamp; };

  nixos =
    if failedAssertions != [ ] then
      throw "Failed assertions:\n- ${lib.concatStringsSep "\n- " failedAssertions}"
    else {
      services.arclamp = c.services.arclamp;
      options = arclampOptions [ ] eval.options.services.arclamp;
      systemd = {
        packages = map (p: p.outPath) c.systemd.packages;
        tmpfilesPackages = map (p: p.outPath) c.systemd.tmpfiles.packages;
        tmpfilesRules = c.systemd.tmpfiles.rules;
        inherit (c.systemd) services sockets timers;
      };
      inherit (c) networking;
      users = { inherit (c.users) users groups; };
      environment.etc = b.mapAttrs
        (n: e: { source = toString e.source; content = e.source.stubValue or null; })
        c.environment.etc;
      phpfpm = describePhp php // {
        pools = b.mapAttrs
          (n: p: { inherit (p) user group socket settings phpEnv phpOptions; php = describePhp p.phpPackage; })
          c.services.phpfpm.pools;
      };
      nginx = { inherit (c.services.nginx) enable appendHttpConfig; };
      coreutils = pkgs.coreutils.outPath;
      inherit (c) warnings;
    };
}
