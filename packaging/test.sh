#!/usr/bin/env bash
# Fresh Debian 12 machine -> installs dependencies, builds, runs every test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/packaging/install-deps.sh"
"$root/packaging/build.sh"
build="${LATTICE_BUILD_DIR:-$root/build}"
cd "$build"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "${LATTICE_TEST_JOBS:-2}"
