#pragma once
/// \file The numeric diff of two artifacts (`lattice-cli diff A B --inputs IN`): both run on the
/// same inputs with every value kept, and each pair of matched ops (ArtifactDiff's pairing: by
/// name, then along the data flow) is compared value against value, in B's op order, which is
/// the data flow. A is the reference (the dense export), B the candidate (the int4 export): the
/// report shows where B's error enters and how it grows, the first op whose relative L2 error
/// exceeds the tolerance, and the outputs.

#include "runtime/Compare.h"
#include "runtime/Runtime.h"
#include "support/Expected.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace lattice {

/// One compared value: an op's result (or an output) in A and B.
struct NumericValueDiff {
  /// B's SSA name of the value (`conv1`), or the output's ABI name.
  std::string name;
  /// The op kind (`subm_conv3d`), "" for outputs.
  std::string opName;
  int indexA = -1, indexB = -1;
  /// Why the values could not be compared ("" when they were).
  std::string problem;
  runtime::Divergence divergence;
  /// relL2 above the tolerance (or not comparable).
  bool exceeds = false;
};

struct NumericDiff {
  double tolerance = 0.0;
  /// Matched ops in B's order, except weights (the structural diff compares them) and
  /// decompose / with_features (their values are their operands').
  std::vector<NumericValueDiff> ops;
  /// Per output of B (matched to A's by ABI name).
  std::vector<NumericValueDiff> outputs;
  /// Index into `ops` of the first op over the tolerance, -1 when none.
  int firstDivergent = -1;

  /// True when no op and no output exceeds the tolerance.
  bool withinTolerance() const;
};

struct NumericDiffOptions {
  /// Relative L2 error above which an op counts as divergent.
  double tolerance = 1e-3;
  runtime::Numerics numerics = runtime::Numerics::Default;
};

/// Runs `a` and `b` on `inputs` (values kept) and compares the values of their matched ops.
/// Errors: either run failing (its message, naming the side), the inputs not binding.
Expected<NumericDiff> numericDiff(runtime::Runtime& a, runtime::Runtime& b, const runtime::RuntimeInputs& inputs,
                                  const NumericDiffOptions& options = {});

/// The report `lattice-cli diff --inputs` prints: one line per op with max |Δ|, relative L2 and
/// Pearson, marks over the tolerance, the first divergent op, then the outputs.
std::string formatNumericDiff(const NumericDiff& diff, const std::string& nameA, const std::string& nameB);

/// {"tolerance", "ops": [{name, op, max_abs, rel_l2, pearson, exceeds[, problem]}...],
/// "first_divergent": {name, op, rel_l2} | null, "outputs": [...], "within_tolerance": bool}.
nlohmann::json numericDiffToJson(const NumericDiff& diff);

} // namespace lattice
