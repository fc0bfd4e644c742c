#pragma once
/// \file lattice-bench --runtime (runtime_bench.cpp): the CPU runtime's benchmark.

/// Runs the runtime benchmark with lattice-bench's arguments; returns the exit code.
int runtimeBenchMain(int argc, char** argv);
