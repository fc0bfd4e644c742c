#pragma once
/// \file Where torch-lattice (the trainer) and the artifact, as mlx-lattice runs it (the consumer,
/// validation spec sec. 10), compute different things for the same module by design. The lowering
/// is byte-identical to the reference exporter, so these are not lowering bugs: a model that uses
/// such a module computes something else on the device than in training, and a check against
/// recorded activations must say so by name instead of reporting a bare mismatch. Each rule is
/// recognised from the artifact op alone (its kind and attributes) together with how the two
/// values compare; docs/trainer-differences.md gives the evidence for each.

#include "runtime/RuntimePlan.h"

#include <cstdint>
#include <optional>
#include <string>

namespace lattice {

struct TrainerDifference {
  /// A short stable id (`odd-kernel-support`), for scripts and the JSON report.
  std::string rule;
  /// "torch-lattice computes … here; the artifact, as mlx-lattice runs it, computes …".
  std::string text;
};

/// How a node's value compared with the recording: sparse row counts (-1 for dense values).
struct ValueComparison {
  std::int64_t rows = -1, recordedRows = -1, commonRows = -1;
  bool supportsDiffer() const { return rows >= 0 && (commonRows != rows || commonRows != recordedRows); }
};

/// The documented difference that explains why the value of `op` differs from the trainer's, or
/// nullopt when none applies (then the difference is a real divergence).
std::optional<TrainerDifference> knownTrainerDifference(const runtime::PlanOp& op, const ValueComparison& comparison);

} // namespace lattice
