#pragma once
/// \file lattice-bench --startup (startup_bench.cpp): lattice-cli's start-up time.

/// Runs the start-up benchmark with lattice-bench's arguments; returns the exit code.
int startupBenchMain(int argc, char** argv);
