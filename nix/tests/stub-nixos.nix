# The NixOS options nix/module.nix sets (and a few neighbours), declared with
# their NixOS types as far as the stub lib has them, so that evaluating the
# module against nix/tests/stub-lib.nix fails on an option name NixOS does not
# have ("does not exist") or a value of the wrong type. Names and types are
# copied from nixos/modules (system/boot/systemd.nix, systemd-unit-options.nix,
# config/users-groups.nix, system/etc/etc.nix, services/web-servers/phpfpm,
# services/web-servers/nginx); they cannot be checked against a real nixpkgs
# here. The phpfpm pools are those of nixpkgs at 01edb2ee (structured
# phpOptions); what the module reads of a pool it did not define (user,
# group, phpEnv, phpOptions, settings, socket) passes through unchanged, so
# the older `lines` phpOptions would work the same.
{ config, lib, pkgs, ... }:
let
  inherit (lib) mkOption types;
  # nixos/lib/systemd-unit-options.nix: lists are concatenated, else equal values
  unitOption = lib.mkOptionType {
    name = "systemd option";
    merge = loc: values:
      if lib.any builtins.isList values
      then lib.concatMap (v: if builtins.isList v then v else [ v ]) values
      else if lib.all (v: v == lib.head values) values then lib.head values
      else throw "The option `${lib.concatStringsSep "." loc}' has conflicting definition values.";
  };
  strs = mkOption { type = types.listOf types.str; default = [ ]; };
  unitOptions = {
    enable = mkOption { type = types.bool; default = true; };
    description = mkOption { type = types.str; default = ""; };
    wantedBy = strs;
    requiredBy = strs;
    wants = strs;
    requires = strs;
    after = strs;
    before = strs;
    partOf = strs;
    unitConfig = mkOption { type = types.attrsOf unitOption; default = { }; };
    restartTriggers = mkOption { type = types.listOf unitOption; default = [ ]; };
    reloadTriggers = mkOption { type = types.listOf unitOption; default = [ ]; };
  };
  cfgPhpfpm = config.services.phpfpm;
  unitsOf = extra: mkOption {
    type = types.attrsOf (types.submodule { options = unitOptions // extra; });
    default = { };
  };
in
{
  options = {
    assertions = mkOption { type = types.listOf types.unspecified; default = [ ]; };
    warnings = mkOption { type = types.listOf types.str; default = [ ]; };

    environment.etc = mkOption {
      type = types.attrsOf (types.submodule {
        options = {
          enable = mkOption { type = types.bool; default = true; };
          source = mkOption { type = types.path; };
          text = mkOption { type = types.nullOr types.lines; default = null; };
          mode = mkOption { type = types.str; default = "symlink"; };
        };
      });
      default = { };
    };

    users.users = mkOption {
      type = types.attrsOf (types.submodule {
        options = {
          isSystemUser = mkOption { type = types.bool; default = false; };
          isNormalUser = mkOption { type = types.bool; default = false; };
          group = mkOption { type = types.str; default = ""; };
          home = mkOption { type = types.path; default = "/var/empty"; };
          createHome = mkOption { type = types.bool; default = false; };
          description = mkOption { type = types.str; default = ""; };
          extraGroups = strs;
          uid = mkOption { type = types.nullOr types.int; default = null; };
        };
      });
      default = { };
    };
    users.groups = mkOption {
      type = types.attrsOf (types.submodule {
        options = {
          gid = mkOption { type = types.nullOr types.int; default = null; };
          members = strs;
        };
      });
      default = { };
    };

    systemd.packages = mkOption { type = types.listOf types.package; default = [ ]; };
    # nixos/modules/system/boot/systemd/tmpfiles.nix: links lib/tmpfiles.d/*.conf of each package
    systemd.tmpfiles.packages = mkOption { type = types.listOf types.package; default = [ ]; };
    systemd.tmpfiles.rules = mkOption { type = types.listOf types.str; default = [ ]; };
    systemd.services = unitsOf {
      serviceConfig = mkOption { type = types.attrsOf unitOption; default = { }; };
      environment = mkOption { type = types.attrsOf (types.nullOr types.str); default = { }; };
      path = mkOption { type = types.listOf (types.either types.package types.str); default = [ ]; };
      script = mkOption { type = types.lines; default = ""; };
      restartIfChanged = mkOption { type = types.bool; default = true; };
    };
    systemd.sockets = unitsOf {
      socketConfig = mkOption { type = types.attrsOf unitOption; default = { }; };
      listenStreams = strs;
      listenDatagrams = strs;
    };
    systemd.timers = unitsOf {
      timerConfig = mkOption { type = types.attrsOf unitOption; default = { }; };
    };

    networking.firewall.allowedUDPPorts = mkOption { type = types.listOf types.int; default = [ ]; };
    networking.firewall.allowedTCPPorts = mkOption { type = types.listOf types.int; default = [ ]; };

    services.phpfpm.phpPackage = mkOption { type = types.package; default = pkgs.php; };
    services.phpfpm.phpOptions = mkOption {
      type = types.attrsOf (types.oneOf [ types.str types.int ]);
      default = { };
    };
    # one systemd service (and PHP-FPM master) per pool, phpfpm-<name>.service
    services.phpfpm.pools = mkOption {
      type = types.attrsOf (types.submodule ({ name, config, ... }: {
        options = {
          socket = mkOption { type = types.str; readOnly = true; };
          listen = mkOption { type = types.str; default = ""; };
          phpPackage = mkOption { type = types.package; default = cfgPhpfpm.phpPackage; };
          phpOptions = mkOption { type = types.attrsOf (types.oneOf [ types.str types.int ]); default = { }; };
          phpEnv = mkOption { type = types.attrsOf types.str; default = { }; };
          user = mkOption { type = types.str; };
          group = mkOption { type = types.str; };
          settings = mkOption { type = types.attrsOf (types.oneOf [ types.str types.int types.bool ]); default = { }; };
          extraConfig = mkOption { type = types.nullOr types.lines; default = null; };
        };
        config = {
          socket = if config.listen == "" then "/run/phpfpm/${name}.sock" else config.listen;
          group = lib.mkDefault config.user;
          settings = builtins.mapAttrs (n: lib.mkDefault) {
            listen = config.socket;
            inherit (config) user group;
          };
        };
      }));
      default = { };
    };

    services.nginx.enable = mkOption { type = types.bool; default = false; };
    services.nginx.appendHttpConfig = mkOption { type = types.lines; default = ""; };
  };
}
