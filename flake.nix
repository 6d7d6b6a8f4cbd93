# Arc Lamp in C as a flake: the four packages of nix/package.nix and the
# NixOS module nix/module.nix. No flake.lock is committed: it was written
# where nothing can be fetched; the first `nix build` / `nix flake lock`
# creates one (commit it to pin nixpkgs).
{
  description = "Arc Lamp in C: continuous PHP profiling (arclamp-log, arclamp-svg, arclamp-report, php-excimer-sampler)";

  # Any nixpkgs that still has php82 (the extension is a PHP 8.2 extension).
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.05";

  outputs = { self, nixpkgs }:
    let
      system = "x86_64-linux";
      pkgs = nixpkgs.legacyPackages.${system};
      arclamp = import ./nix/packages.nix { inherit (pkgs) callPackage; };
    in
    {
      packages.${system} = {
        inherit (arclamp) arclamp-log arclamp-svg arclamp-report php-excimer-sampler arclamp default;
      };

      # services.arclamp.{log,svg,report,phpExtension}; its packages default to
      # nix/package.nix built against the importing system's nixpkgs.
      nixosModules.default = ./nix/module.nix;
      nixosModules.arclamp = self.nixosModules.default;
    };
}
