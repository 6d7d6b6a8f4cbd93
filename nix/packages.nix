# The packages of nix/package.nix, one per component of nix/components.nix,
# for a package set's callPackage (flake.nix uses it).
{ callPackage }:
rec {
  arclamp-log = callPackage ./package.nix { component = "arclamp-log"; };
  arclamp-svg = callPackage ./package.nix { component = "arclamp-svg"; };
  arclamp-report = callPackage ./package.nix { component = "arclamp-report"; };
  php-excimer-sampler = callPackage ./package.nix { component = "php-excimer-sampler"; };
  arclamp = callPackage ./package.nix { component = "arclamp"; };
  default = arclamp;
}
