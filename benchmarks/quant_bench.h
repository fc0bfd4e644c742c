#pragma once
/// \file lattice-bench --quant-plan (quant_bench.cpp): the quantization planner's sensitivity
/// analysis against one dense run of the same model on the same inputs.

/// Runs the planner benchmark with lattice-bench's arguments; returns the exit code.
int quantBenchMain(int argc, char** argv);
