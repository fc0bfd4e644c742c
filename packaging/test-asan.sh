#!/usr/bin/env bash
# The sanitizer build: the `asan` preset (ASan + UBSan, LeakSanitizer on, Debug, no precompiled
# headers so a missing #include shows) builds only what the tests need (the `lattice_tests`
# target) and runs every core, CLI and widget test under it, plus the fuzz replays. Any ASan or
# UBSan report, and any leak not in packaging/lsan.supp, fails its test.
# Not run here (the normal build runs them, packaging/test.sh):
# - python_*: the Python exporter's tests exercise Python and a lattice-cli they build first;
# - packaging_*: validators of resources/ and `cmake --install` of the studio, which this build
#   does not make (lattice_tests only); they check files, not our code's memory.
# Leaks inside libraries we cannot fix are suppressed in packaging/lsan.supp (each one explained).
# Usage: packaging/test-asan.sh   (after packaging/install-deps.sh; CI runs it from .ci/run)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${LATTICE_ASAN_BUILD_DIR:-$root/build-asan}"
jobs="${LATTICE_JOBS:-$(nproc)}"
test_jobs="${LATTICE_TEST_JOBS:-2}"

cmake -S "$root" -B "$build" --preset asan >"$build.configure.log" 2>&1 \
  || { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j "$jobs" --target lattice_tests

asan="detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0:strict_string_checks=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$root/packaging/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export QT_QPA_PLATFORM=offscreen
not_here='^(python_|packaging_)'
cd "$build"
status=0
# Graphviz is built without frame pointers, so ASan's fast unwinder stops at its allocator and a
# suppression could not tell Graphviz's own leaks from a layout we forgot to free. The tests that
# run Graphviz (label `graphviz`) record allocation stacks with the slow unwinder (deep enough to
# reach the allocating library); it costs several times the run time, so the others keep the fast one.
ASAN_OPTIONS="$asan" ctest --output-on-failure -j "$test_jobs" -E "$not_here" -LE graphviz || status=1
ASAN_OPTIONS="$asan:fast_unwind_on_malloc=0:malloc_context_size=12" \
  ctest --output-on-failure -j "$test_jobs" -E "$not_here" -L graphviz || status=1
exit "$status"
