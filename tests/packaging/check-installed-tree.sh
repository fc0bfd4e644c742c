#!/usr/bin/env bash
# check-installed-tree.sh [--system] PREFIX VERSION: checks an installation of Lattice Studio under
# PREFIX (`cmake --install --prefix DIR/usr`, the usr/ of a `dpkg -x` of the .deb, or with
# --system a prefix shared with other packages, such as /usr after `dpkg -i`): every file the
# desktop needs is in place and valid, the binaries and the TorchScript plugin resolve their
# libraries without an RPATH, the binaries report VERSION and answer --help without a display,
# lattice-cli finds the plugin, and the studio renders a model offscreen.
# One line per failure; exit 1 when anything failed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shared=0
if [ "${1:-}" = --system ]; then
  shared=1
  shift
fi
[ $# -eq 2 ] || { echo "usage: check-installed-tree.sh [--system] PREFIX VERSION" >&2; exit 2; }
prefix="$(cd "$1" && pwd)" || exit 2
version="$2"
version_re="${version//./\\.}"
app_id=io.github.lattice_studio.LatticeStudio
sizes=(16 22 24 32 48 64 128 256)
failures=0
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
ok() { echo "ok: $*"; }
need_file() { [ -f "$prefix/$1" ] || fail "not installed: $prefix/$1"; }
validate() { # MODE FILE...: validate.sh, where a missing validator is a note, not a failure
  "$here/validate.sh" "$@"
  case $? in
  0 | 77) ;;
  *) fail "$1 validation of ${*:2}" ;;
  esac
}

# 1. The files.
for f in bin/lattice-cli bin/lattice-studio; do
  [ -x "$prefix/$f" ] || fail "not installed or not executable: $prefix/$f"
done
plugin=lib/lattice-studio/lattice-torchscript.so # the TorchScript plugin, loaded on demand
need_file $plugin
if [ $shared -eq 0 ]; then
  extra="$(ls "$prefix/bin" 2>/dev/null | grep -v -x -e lattice-cli -e lattice-studio)"
  [ -z "$extra" ] || fail "unexpected files in $prefix/bin: $(echo $extra)"
fi
desktop=share/applications/lattice-studio.desktop
metainfo=share/metainfo/$app_id.metainfo.xml
mime=share/mime/packages/lattice-studio.xml
for f in $desktop $metainfo $mime share/icons/hicolor/scalable/apps/lattice-studio.svg \
         share/doc/lattice-studio/README.md share/doc/lattice-studio/docs/ARCHITECTURE.md; do
  need_file "$f"
done
for s in "${sizes[@]}"; do
  png="$prefix/share/icons/hicolor/${s}x${s}/apps/lattice-studio.png"
  if [ ! -f "$png" ]; then
    fail "not installed: $png"
    continue
  fi
  # A PNG starts with its 8-byte signature and the IHDR chunk: width and height, big-endian.
  read -r -a b <<<"$(od -An -tu1 -N24 -w24 "$png")"
  sig="${b[*]:0:8}"
  w=$(((b[16] << 24) | (b[17] << 16) | (b[18] << 8) | b[19]))
  h=$(((b[20] << 24) | (b[21] << 16) | (b[22] << 8) | b[23]))
  if [ "$sig" != "137 80 78 71 13 10 26 10" ]; then
    fail "$png: not a PNG"
  elif [ "$w" -ne "$s" ] || [ "$h" -ne "$s" ]; then
    fail "$png: ${w}x${h}, expected ${s}x${s}"
  fi
done
[ $failures -eq 0 ] && ok "files in place under $prefix"

# 2. The desktop integration, validated, and pointing at what is installed.
if [ -f "$prefix/$desktop" ]; then
  validate desktop "$prefix/$desktop"
  exec_bin="$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$prefix/$desktop")"
  [ -x "$prefix/bin/$exec_bin" ] || fail "$desktop: Exec=$exec_bin is not in $prefix/bin"
  icon="$(sed -n 's/^Icon=//p' "$prefix/$desktop")"
  [ -f "$prefix/share/icons/hicolor/scalable/apps/$icon.svg" ] || fail "$desktop: Icon=$icon is not an installed icon"
  [ -f "$prefix/$mime" ] && validate mime "$prefix/$mime" "$prefix/$desktop"
fi
if [ -f "$prefix/$metainfo" ]; then
  validate metainfo "$prefix/$metainfo"
  launchable="$(sed -n 's:.*<launchable type="desktop-id">\(.*\)</launchable>.*:\1:p' "$prefix/$metainfo")"
  [ -f "$prefix/share/applications/$launchable" ] || fail "$metainfo: launchable '$launchable' is not installed"
  # The tree as a software centre reads it (the metainfo with its desktop file), when the tree is
  # ours alone: on a shared /usr it would judge every other package's metainfo too.
  if [ $shared -eq 0 ] && [ "$(basename "$prefix")" = usr ] && command -v appstreamcli >/dev/null 2>&1; then
    out="$(appstreamcli validate-tree --no-net --no-color "$(dirname "$prefix")" 2>&1)" \
      || fail "appstreamcli validate-tree $(dirname "$prefix"):"$'\n'"$out"
  fi
fi

# 3. The binaries: system libraries only, found without an RPATH into a build tree.
for b in lattice-cli lattice-studio; do
  bin="$prefix/bin/$b"
  [ -x "$bin" ] || continue
  if command -v readelf >/dev/null 2>&1; then
    rpath="$(readelf -d "$bin" | grep -E '\((RPATH|RUNPATH)\)')"
    [ -z "$rpath" ] || fail "$bin has an RPATH (expected none, its libraries are the system's): $rpath"
  fi
  missing="$(ldd "$bin" 2>&1 | grep 'not found')"
  [ -z "$missing" ] || fail "$bin: libraries not found:"$'\n'"$missing"
done
if [ -f "$prefix/$plugin" ]; then
  missing="$(ldd "$prefix/$plugin" 2>&1 | grep 'not found')"
  [ -z "$missing" ] || fail "$prefix/$plugin: libraries not found:"$'\n'"$missing"
fi

# Run without a display, whatever the caller has.
run() { env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM XDG_CONFIG_HOME="$scratch/config" "$@"; }
expect_output() { # WHAT EXPECTED_REGEX COMMAND...
  local what="$1" pattern="$2" out rc
  shift 2
  out="$(run timeout 60 "$@" 2>&1)"
  rc=$?
  if [ $rc -ne 0 ]; then
    fail "$what exited with $rc:"$'\n'"$out"
  elif ! grep -q -E "$pattern" <<<"$out"; then
    fail "$what: expected a line matching '$pattern', got:"$'\n'"$out"
  else
    ok "$what: $(grep -m1 -E "$pattern" <<<"$out")"
  fi
}
if [ -x "$prefix/bin/lattice-cli" ]; then
  expect_output "lattice-cli --version" "^lattice-cli $version_re\$" "$prefix/bin/lattice-cli" --version
  # The TorchScript plugin, which lattice-cli loads from ../lib/lattice-studio/ when it reads a .pt:
  # a corrupt TorchScript archive is refused by the importer inside the plugin, so the message
  # proves that the installed binary found the plugin and LibTorch (a missing one says "cannot
  # load the TorchScript plugin").
  if [ -f "$here/../data/repro/pt_code_truncated.pt" ]; then
    out="$(run timeout 120 "$prefix/bin/lattice-cli" info "$here/../data/repro/pt_code_truncated.pt" 2>&1)"
    if grep -q "not a TorchScript archive" <<<"$out"; then
      ok "lattice-cli loads the TorchScript plugin: $(head -c 160 <<<"$out")"
    else
      fail "lattice-cli info on a TorchScript archive did not reach the TorchScript plugin:"$'\n'"$out"
    fi
  fi
fi
if [ -x "$prefix/bin/lattice-studio" ]; then
  expect_output "lattice-studio --version" "^Lattice Studio $version_re\$" "$prefix/bin/lattice-studio" --version
  expect_output "lattice-studio --help" "^Usage: .*lattice-studio .*model" "$prefix/bin/lattice-studio" --help
  # The GUI itself, on Qt's offscreen platform: a built-in model traced, laid out and rendered.
  shot="$scratch/studio.png"
  out="$(run QT_QPA_PLATFORM=offscreen timeout 300 "$prefix/bin/lattice-studio" example:chain:3 --screenshot "$shot" 2>&1)"
  rc=$?
  if [ $rc -ne 0 ] || [ ! -s "$shot" ]; then
    fail "lattice-studio example:chain:3 --screenshot (offscreen) exited with $rc, no screenshot:"$'\n'"$out"
  else
    ok "lattice-studio example:chain:3 --screenshot rendered the window offscreen"
  fi
fi

if [ $failures -ne 0 ]; then
  echo "check-installed-tree: $failures check(s) failed under $prefix" >&2
  exit 1
fi
echo "check-installed-tree: all checks passed under $prefix"
