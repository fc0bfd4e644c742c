#!/usr/bin/env bash
# Regenerates this folder's printed forms and expected first errors with an upstream lattice-opt.
# Usage: tests/data/lattice-opt/regenerate.sh LATTICE_OPT LATTICE_CLI UPSTREAM_TEST_DIR
#   LATTICE_OPT        lattice-opt built from mlx-lattice (mlir/tools/lattice-opt)
#   LATTICE_CLI        this project's build/bin/lattice-cli (lowers the examples)
#   UPSTREAM_TEST_DIR  mlx-lattice's mlir/test/Dialect/Lattice (its valid/ and invalid/ fixtures)
set -euo pipefail
opt="$1"; cli="$2"; upstream="$3"
here="$(cd "$(dirname "$0")" && pwd)"
data="$here/.."
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

mkdir -p "$here/printed/models" "$here/printed/dialect-valid" "$here/printed/examples" "$here/invalid"
for dir in "$data"/conformance/models/*/; do
  name="$(basename "$dir")"
  "$opt" --lattice-verify-artifact "$dir/expected.lattice/graph.mlir" -o "$here/printed/models/$name.mlir"
done
for f in "$upstream"/valid/*.mlir; do
  "$opt" --lattice-verify-artifact "$f" -o "$here/printed/dialect-valid/$(basename "$f")"
done
for example in sparse_resnet21d; do
  "$cli" lower "example:$example" -o "$tmp/$example.lattice" >/dev/null
  "$opt" --lattice-verify-artifact "$tmp/$example.lattice/graph.mlir" -o "$here/printed/examples/$example.mlir"
done
cp "$upstream"/invalid/*.mlir "$here/invalid/"
( cd "$here/invalid"
  for f in *.mlir; do
    # The first diagnostic only: MLIR stops at the first failure of each stage.
    if "$opt" --lattice-verify-artifact "$f" -o /dev/null 2>"$tmp/err"; then
      echo "expected $f to be rejected" >&2; exit 1
    fi
    head -n 1 "$tmp/err"
  done ) >"$here/expected-first-errors.txt"
