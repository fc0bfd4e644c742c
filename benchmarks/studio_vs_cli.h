#pragma once
/// \file lattice-bench --runtime's studio case (studio_vs_cli.cpp): the studio's run on saved
/// inputs against `lattice-cli run` on the same file, both as child processes.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace lattice::bench {

/// Saves random inputs of `points` points for `model` once, then runs `lattice-cli run MODEL
/// --inputs FILE` and `lattice-studio MODEL --inputs FILE --run` (headless, with settings of its
/// own) `runs` times each, interleaved, after one warm-up pair. The figures: each side's median
/// peak RSS and run time, and their ratios; {"skipped": why} when lattice-studio is not built.
nlohmann::json studioVsCli(const std::string& model, std::int64_t points, int runs);

} // namespace lattice::bench
