#!/usr/bin/env bash
# Fresh Debian 12 machine -> installs dependencies, builds, and runs Lattice Studio on the bundled
# example (SparseResUNet42). Without a display (or before the studio is built) it runs the same
# job headless through lattice-cli and prints the result.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/packaging/install-deps.sh"
"$root/packaging/build.sh"
bin="${LATTICE_BUILD_DIR:-$root/build}/bin"
model="${1:-example:sparse_resunet42}"

if [ -x "$bin/lattice-studio" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec "$bin/lattice-studio" "$model"
fi

echo "== lattice-cli info $model"
"$bin/lattice-cli" info "$model"
echo
echo "== lattice-cli trace $model --format tabular"
"$bin/lattice-cli" trace "$model" --format tabular
out="$(mktemp -d)/model.lattice"
echo
echo "== lattice-cli lower $model -o $out"
"$bin/lattice-cli" lower "$model" -o "$out"
echo
echo "== lattice-cli validate $out"
"$bin/lattice-cli" validate "$out"
echo
echo "(no display: start build/bin/lattice-studio $model on a desktop to step through it)"
