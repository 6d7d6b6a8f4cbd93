#!/usr/bin/env bash
# nix/split.sh OUT FILE...
# Keeps only the FILEs (paths relative to OUT) of the tree `make install` wrote
# into OUT, with their modes, and removes everything else. Fails if a FILE is
# missing. Run by nix/package.nix's postInstall, and by nix/tests/test_nix.py
# on a `make install DESTDIR=...` tree.
set -euo pipefail
out=$1
shift
full=$(mktemp -d "${TMPDIR:-/tmp}/arclamp-split.XXXXXX")
mv "$out" "$full/tree"
mkdir -p "$out"
for f in "$@"; do
  case "$f" in
    /* | *..*) echo "split.sh: bad path: $f" >&2; exit 1 ;;
  esac
  if [ ! -e "$full/tree/$f" ]; then
    echo "split.sh: $f was not installed by make install" >&2
    exit 1
  fi
  mkdir -p "$out/$(dirname "$f")"
  # cp -p keeps the mode (0755 programs, 0644 the rest)
  cp -p "$full/tree/$f" "$out/$f"
done
rm -rf "$full"
