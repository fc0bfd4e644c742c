#!/usr/bin/env bash
# The libFuzzer build and a short bounded session of every fuzz target (fuzz/README.md), so the
# clang build of the fuzzers keeps linking and the readers keep surviving fresh mutations.
# Installs clang and its libFuzzer runtime (LATTICE_FUZZ=1 packaging/install-deps.sh), configures
# build-fuzz/ with clang and -DLATTICE_BUILD_FUZZERS=ON (ASan + UBSan, ccache as every build),
# builds only the fuzz_<target> binaries, then runs each for LATTICE_FUZZ_SECONDS (default 30)
# through its ctest entry fuzz_<target>_bounded, LATTICE_TEST_JOBS (default 2) at a time. A crash,
# a sanitizer report, a timeout or a leak fails the script; libFuzzer leaves the input as
# build-fuzz/fuzz/crash-* (or leak-*, timeout-*, slow-unit-*) and the log names it.
# Usage: packaging/test-fuzz.sh   (CI runs it from .ci/run)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${LATTICE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${LATTICE_JOBS:-$(nproc)}"
test_jobs="${LATTICE_TEST_JOBS:-2}"
seconds="${LATTICE_FUZZ_SECONDS:-30}"
targets=(fuzz_mlir_reader fuzz_safetensors fuzz_archive_json fuzz_torch_pickle fuzz_runtime_inputs fuzz_artifact_run)

LATTICE_FUZZ=1 "$root/packaging/install-deps.sh"

# The studio is not needed; the tests stay on because the bounded runs are ctest entries.
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLATTICE_BUILD_FUZZERS=ON -DLATTICE_BUILD_STUDIO=OFF -DLATTICE_FUZZ_SECONDS="$seconds" \
  >"$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

cd "$build"
started=$SECONDS
ctest --output-on-failure --no-tests=error -j "$test_jobs" -R '^fuzz_.*_bounded$'
echo "test-fuzz: ${#targets[@]} targets fuzzed for ${seconds} s each in $((SECONDS - started)) s"
