#!/usr/bin/env bash
# Builds the Debian package of Lattice Studio with CPack (packaging/CMakeLists.txt).
# Usage: packaging/package.sh
# Reuses the build directory LATTICE_BUILD_DIR (default build/; configured first when it has no
# cache yet), builds only what the package holds (lattice-cli, lattice-studio and its icons) and
# prints the .deb's path last: BUILD/packages/lattice-studio_VERSION_ARCH.deb. Needs dpkg-dev
# (dpkg-shlibdeps computes the dependencies) from packaging/install-deps.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${LATTICE_BUILD_DIR:-$root/build}"
jobs="${LATTICE_JOBS:-$(nproc)}"

die() {
  echo "package: $*" >&2
  exit 1
}
command -v dpkg-shlibdeps >/dev/null 2>&1 || die "dpkg-shlibdeps not found (Debian package dpkg-dev; see packaging/install-deps.sh)"
command -v cpack >/dev/null 2>&1 || die "cpack not found (Debian package cmake)"

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" >"$build.configure.log" 2>&1 \
    || { cat "$build.configure.log" >&2; die "configuring $build failed"; }
fi
if grep -q -x 'LATTICE_BUILD_STUDIO:BOOL=OFF' "$build/CMakeCache.txt"; then
  die "$build is configured with LATTICE_BUILD_STUDIO=OFF: the package holds the studio"
fi
cmake --build "$build" --target lattice-cli lattice-studio -j "$jobs"

rm -f "$build"/packages/lattice-studio_*.deb
log="$build/packages/cpack.log"
mkdir -p "$build/packages"
(cd "$build" && cpack -G DEB) >"$log" 2>&1 || { cat "$log" >&2; die "cpack failed (log: $log)"; }
debs=("$build"/packages/lattice-studio_*.deb)
[ -f "${debs[0]}" ] || { cat "$log" >&2; die "cpack wrote no lattice-studio_*.deb into $build/packages"; }
echo "package: ${debs[0]}"
