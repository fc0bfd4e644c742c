#!/usr/bin/env bash
# Configures and builds Lattice Studio into build/ (executables in build/bin/).
# Usage: packaging/build.sh [extra cmake -D options...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${LATTICE_BUILD_DIR:-$root/build}"
jobs="${LATTICE_JOBS:-$(nproc)}"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" "$@" >"$build.configure.log" 2>&1 \
  || { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j "$jobs"
