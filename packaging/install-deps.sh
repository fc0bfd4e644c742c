#!/usr/bin/env bash
# Installs the Debian 12 packages Lattice Studio needs, only those missing (idempotent).
# Runs apt-get as root, or through sudo.
set -euo pipefail

# qt6-charts-dev draws the studio's charts; its CMake config needs Qt6OpenGL(Widgets)'s, which
# Debian 12 ships in libqt6opengl6-dev without qt6-charts-dev depending on it. The runtime's GEMMs
# call CBLAS (cblas.h from libblas-dev) in libblas.so.3, which the alternatives resolve to OpenBLAS
# from libopenblas0-pthread. libtorch-dev builds the TorchScript plugin.
packages=(
  cmake g++ make ccache pkg-config
  qt6-base-dev qt6-svg-dev qt6-charts-dev libqt6opengl6-dev libgl-dev
  libtorch-dev libblas-dev libopenblas0-pthread libabsl-dev libgraphviz-dev graphviz nlohmann-json3-dev
  xvfb xauth python3 python3-torch python3-tqdm
  desktop-file-utils appstream dpkg-dev
)
# LATTICE_FUZZ=1: also clang and its libFuzzer runtime, for the -DLATTICE_BUILD_FUZZERS=ON build
# (fuzz/README.md). The default gcc build runs the fuzz targets through a replay driver instead.
if [ "${LATTICE_FUZZ:-0}" = "1" ]; then
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "install-deps: missing packages (${missing[*]}) and not root; install them or run with sudo" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
