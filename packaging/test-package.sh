#!/usr/bin/env bash
# Checks the Debian package of Lattice Studio.
# Usage: packaging/test-package.sh [FILE.deb]   (default: builds it with packaging/package.sh)
#  1. its control fields: name, version, and a dependency on the package of every shared
#     library the binaries and the TorchScript plugin link directly (as this machine resolves
#     them), on libqt6svg6 and on OpenBLAS;
#  2. unpacked into a scratch root with `dpkg -x` (no root needed), the installed tree passes
#     tests/packaging/check-installed-tree.sh: files in place and valid, the installed
#     `lattice-cli --version` and `lattice-studio --help` run without a display, the studio
#     renders a model offscreen;
#  3. with LATTICE_DPKG_INSTALL=1, as root: `dpkg -i` for real, the same checks on /usr, the MIME
#     database updated by its trigger, then `dpkg -r` (unless it was installed before).
# Exit 0 when everything passed, 1 with one line per failure otherwise.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
check="$root/tests/packaging/check-installed-tree.sh"
failures=0
fail() {
  echo "test-package: FAIL: $*" >&2
  failures=$((failures + 1))
}
die() {
  echo "test-package: $*" >&2
  exit 1
}
for tool in dpkg-deb dpkg-query ldd readelf; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done

if [ $# -ge 1 ]; then
  deb="$1"
else
  deb="$("$root/packaging/package.sh" | sed -n 's/^package: //p' | tail -n 1)"
  [ -n "$deb" ] || die "packaging/package.sh did not make a package"
fi
[ -f "$deb" ] || die "$deb: no such file"
deb="$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"

# 1. Control fields.
name="$(dpkg-deb -f "$deb" Package)"
version="$(dpkg-deb -f "$deb" Version)"
depends="$(dpkg-deb -f "$deb" Depends)"
[ "$name" = lattice-studio ] || fail "Package: '$name', expected lattice-studio"
[ -n "$version" ] || fail "no Version"
echo "test-package: $deb: $name $version, $(dpkg-deb -c "$deb" | grep -c -v '/$') files"
echo "test-package: Depends: $depends"
dep_names=" $(sed -E 's/\([^)]*\)//g; s/[,|]/ /g' <<<"$depends" | tr -s ' ') "
has_dep() { [[ "$dep_names" == *" $1 "* ]] || [[ "$dep_names" == *" $1:"* ]]; }
has_dep libqt6svg6 || fail "Depends lacks libqt6svg6 (the SVG icon engine the studio's icons need)"
has_dep libopenblas0-pthread || fail "Depends lacks libopenblas0-pthread (the BLAS the runtime loads for its GEMMs)"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
dpkg-deb -x "$deb" "$scratch/root" || die "dpkg-deb -x $deb failed"

# Every directly linked library comes from a package the .deb depends on; the TorchScript plugin
# (loaded by the programs when they read a PyTorch archive) counts as a binary.
plugin="$scratch/root/usr/lib/lattice-studio/lattice-torchscript.so"
[ -f "$plugin" ] || fail "no TorchScript plugin at /usr/lib/lattice-studio/lattice-torchscript.so"
owner() { # PATH -> the package that installed it ("" when none); tries the merged-/usr twin too
  local p="$1" alt pkg
  case "$p" in /usr/*) alt="${p#/usr}" ;; *) alt="/usr$p" ;; esac
  for q in "$p" "$alt" "$(readlink -f "$p")"; do
    pkg="$(dpkg-query -S "$q" 2>/dev/null | head -n 1 | cut -d: -f1)"
    [ -n "$pkg" ] && { echo "$pkg"; return; }
  done
}
for bin in "$scratch"/root/usr/bin/* "$plugin"; do
  [ -f "$bin" ] || continue
  resolved="$(ldd "$bin")"
  for soname in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    # "libfoo.so.1 => /path (addr)", or for the dynamic loader "/path/ld-linux... (addr)".
    path="$(awk -v s="$soname" '
      $1 == s && $2 == "=>" { print $3; exit }
      substr($1, 1, 1) == "/" && substr($1, length($1) - length(s)) == "/" s { print $1; exit }' <<<"$resolved")"
    if [ -z "$path" ] || [ "$path" = "not" ]; then
      fail "$(basename "$bin"): $soname not found on this machine"
      continue
    fi
    pkg="$(owner "$path")"
    if [ -z "$pkg" ]; then
      fail "$(basename "$bin"): $soname ($path) belongs to no Debian package"
    elif ! has_dep "$pkg"; then
      fail "$(basename "$bin"): links $soname from $pkg, which Depends does not list"
    fi
  done
done
[ $failures -eq 0 ] && echo "test-package: Depends covers every library the binaries link"

# 2. The unpacked tree.
"$check" "$scratch/root/usr" "$version" || fail "the package unpacked with dpkg -x (see above)"

# 3. A real installation.
if [ "${LATTICE_DPKG_INSTALL:-0}" = 1 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    fail "LATTICE_DPKG_INSTALL=1 needs root for dpkg -i"
  else
    before="$(dpkg-query -W -f='${Status}' lattice-studio 2>/dev/null)"
    if ! dpkg -i "$deb"; then
      fail "dpkg -i $deb failed (missing dependencies? apt-get install -f installs them)"
    else
      "$check" --system /usr "$version" || fail "the package installed with dpkg -i (see above)"
      if [ -f /usr/share/mime/globs2 ] && command -v update-mime-database >/dev/null 2>&1; then
        grep -q -x -F '50:application/x-lattice-fx-archive:*.ltfx' /usr/share/mime/globs2 \
          || fail "after dpkg -i, /usr/share/mime/globs2 lacks *.ltfx (shared-mime-info's trigger did not run?)"
      fi
      if [[ "$before" != *"install ok installed"* ]]; then
        dpkg -r lattice-studio >/dev/null || fail "dpkg -r lattice-studio failed"
        [ ! -e /usr/bin/lattice-studio ] || fail "dpkg -r left /usr/bin/lattice-studio behind"
      fi
    fi
  fi
fi

if [ $failures -ne 0 ]; then
  echo "test-package: $failures failure(s)" >&2
  exit 1
fi
echo "test-package: $deb passed"
