#!/usr/bin/env bash
# install-tree.sh BUILD_DIR VERSION: `cmake --install` of BUILD_DIR into a scratch prefix, then
# check-installed-tree.sh on it. The ctest test packaging_install_tree.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -eq 2 ] || { echo "usage: install-tree.sh BUILD_DIR VERSION" >&2; exit 2; }
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
if ! cmake --install "$1" --prefix "$scratch/usr" --strip >"$scratch/install.log" 2>&1; then
  cat "$scratch/install.log" >&2
  echo "install-tree: cmake --install $1 failed" >&2
  exit 1
fi
echo "install-tree: installed $(grep -c -E '^-- (Installing|Up-to-date)' "$scratch/install.log") files into $scratch/usr"
"$here/check-installed-tree.sh" "$scratch/usr" "$2"
