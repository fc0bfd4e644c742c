#!/usr/bin/env bash
# Validates Lattice Studio's desktop integration files with the freedesktop tools:
#   validate.sh desktop FILE.desktop      desktop-file-validate: no error, no warning
#   validate.sh metainfo FILE.metainfo.xml appstreamcli validate --no-net, and the file is named
#                                          after its component id
#   validate.sh mime MIME.xml FILE.desktop update-mime-database compiles it without an error into
#                                          the expected globs and parents, and every MimeType of
#                                          the desktop file is one of its types
# Exit 0 valid, 1 invalid (with the validator's messages), 2 usage, 77 when the validator is not
# installed (ctest reports that as skipped).
set -uo pipefail

need() { # TOOL DEBIAN_PACKAGE
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "validate.sh: $1 is not installed (Debian package $2): skipped"
    exit 77
  fi
}
fail() {
  echo "validate.sh: $*" >&2
  exit 1
}

mode="${1:-}"
case "$mode" in
desktop)
  [ $# -eq 2 ] || { echo "usage: validate.sh desktop FILE.desktop" >&2; exit 2; }
  need desktop-file-validate desktop-file-utils
  [ -f "$2" ] || fail "$2: no such file"
  out="$(desktop-file-validate "$2" 2>&1)"
  rc=$?
  [ $rc -eq 0 ] && [ -z "$out" ] || fail "desktop-file-validate $2 (exit $rc):"$'\n'"$out"
  echo "$2: valid desktop entry"
  ;;
metainfo)
  [ $# -eq 2 ] || { echo "usage: validate.sh metainfo FILE.metainfo.xml" >&2; exit 2; }
  need appstreamcli appstream
  [ -f "$2" ] || fail "$2: no such file"
  out="$(appstreamcli validate --no-net --no-color "$2" 2>&1)" || fail "appstreamcli validate $2:"$'\n'"$out"
  id="$(sed -n 's:.*<id>\(.*\)</id>.*:\1:p' "$2" | head -n 1)"
  [ "$(basename "$2")" = "$id.metainfo.xml" ] || fail "$2: expected the file name $id.metainfo.xml (its component id)"
  echo "$2: valid AppStream metainfo ($id)"
  ;;
mime)
  [ $# -eq 3 ] || { echo "usage: validate.sh mime MIME.xml FILE.desktop" >&2; exit 2; }
  need update-mime-database shared-mime-info
  [ -f "$2" ] || fail "$2: no such file"
  [ -f "$3" ] || fail "$3: no such file"
  db="$(mktemp -d)"
  trap 'rm -rf "$db"' EXIT
  mkdir -p "$db/mime/packages"
  cp "$2" "$db/mime/packages/lattice-studio.xml"
  # update-mime-database reports errors on stderr but exits 0: its messages decide.
  out="$(update-mime-database "$db/mime" 2>&1)"
  if [ $? -ne 0 ] || grep -q -E 'Error|Failed|error|[Ww]arning' <<<"$out"; then
    fail "update-mime-database rejects $2:"$'\n'"$out"
  fi
  for glob in 'application/x-lattice-fx-archive:*.ltfx' 'application/x-lattice-artifact:*.lattice' \
              'text/x-mlir:*.mlir'; do
    grep -q -x -F "50:$glob" "$db/mime/globs2" || fail "$2: the compiled database lacks the glob $glob"
  done
  for parent in 'application/x-lattice-fx-archive inode/directory' \
                'application/x-lattice-artifact inode/directory' 'text/x-mlir text/plain'; do
    grep -q -x -F "$parent" "$db/mime/subclasses" || fail "$2: the compiled database lacks the parent '$parent'"
  done
  types="$(sed -n 's/^MimeType=//p' "$3" | tr ';' '\n' | sed '/^$/d')"
  [ -n "$types" ] || fail "$3: no MimeType="
  for t in $types; do
    grep -q -x -F "$t" "$db/mime/types" || fail "$3: MimeType $t is not defined by $2"
  done
  echo "$2: valid MIME package ($(wc -l <"$db/mime/types") types); $3's MimeType entries are its types"
  ;;
*)
  echo "usage: validate.sh desktop|metainfo|mime FILE..." >&2
  exit 2
  ;;
esac
