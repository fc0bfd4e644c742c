#pragma once
/// \file Executing a lowering without writing it (`lattice-cli run MODEL`, `check MODEL.ltfx`,
/// the studio's Run): the finished builder's MLIR text is parsed and verified, its weight table
/// becomes the runtime's weights, and every op of the plan is mapped back to the FX node that
/// emitted it (the builder's provenance), so a run can be shown node by node.

#include "lowering/Lowering.h"
#include "exec/RecordingCheck.h"
#include "runtime/Runtime.h"
#include "support/Expected.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace lattice {

struct LoweredRun {
  explicit LoweredRun(runtime::Runtime rt) : runtime(std::move(rt)) {}

  runtime::Runtime runtime;
  /// Per plan op: the FX node that emitted it ("" for ops emitted outside any node: the inputs'
  /// sparse.make on the direct path).
  std::vector<std::string> opNodes;
  /// Each node's artifact values (artifactValuesByNode); empty on the direct path.
  std::vector<NodeValueRef> nodeValues;

  /// The index one past the last op node `node` emitted, or -1 when it emitted none: runUntil of
  /// it executes the node's ops (ops are emitted, and run, in node order).
  int opEndOf(const std::string& node) const;
  /// Indices of the ops node `node` emitted, in order.
  const std::vector<int>& opsOf(const std::string& node) const;
  /// Indices into nodeValues of node `node`'s values, in order.
  const std::vector<int>& valuesOf(const std::string& node) const;

  /// Builds the node → ops and node → values index from opNodes and nodeValues (runLowering does;
  /// call it again after changing either). Lookups are then constant time, so stepping and the
  /// overlays cost the same per node on a graph of any length.
  void index();

private:
  std::unordered_map<std::string, std::vector<int>> m_opsOf;
  std::unordered_map<std::string, std::vector<int>> m_valuesOf;
};

/// Builds the runtime of a finished lowering. `artifactName` stands for the artifact directory in
/// messages (`NAME/graph.mlir:12:5: error: ...`). Errors: the text does not parse or verify (the
/// verifier's diagnostics), the plan's rules.
Expected<LoweredRun> runLowering(const PreparedLowering& lowering, const std::string& artifactName);

/// The FX node an error of `lowering` is about: the node the interpreter failed on, else the
/// node that emitted the op at the error's line of the builder's text (a verifier or plan error
/// from runLowering), else for an error about an artifact input (binding) the node that owns the
/// argument (the input's placeholder). Empty when none applies (an error of the module as a whole).
std::string failedNodeOf(const PreparedLowering& lowering, const Error& error);

/// A finished run's outputs against an expected-outputs file (named as `lattice-cli run -o`
/// writes outputs), as a check of one node per output: the FX node that produced it, its
/// relative L2 error against the file; over `tolerance`, or not comparable, is divergent. What
/// the studio uses as the golden of a model without recorded activations. A file that cannot be
/// read or does not fit the outputs is the check's one warning.
RecordingCheck checkOutputsByNode(const LoweredRun& run, const std::string& expectedFile, double tolerance);

} // namespace lattice
