#pragma once
/// \file lattice-bench --validation (validation_bench.cpp): the save's payload check
/// (validateArtifactPayload) on graphs of many weights.

/// Runs the validation benchmark with lattice-bench's arguments; returns the exit code.
int validationBenchMain(int argc, char** argv);
