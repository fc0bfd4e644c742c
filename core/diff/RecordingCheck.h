#pragma once
/// \file Checking a lowered model against what PyTorch computed (`lattice-cli check MODEL.ltfx`,
/// the studio's recorded golden): the model's artifact runs on the archive's recorded inputs with
/// every value kept, and each FX node's value (the ArtifactValue the lowering interpreter gave the
/// node, found by its SSA name in the run) is compared with the node's recorded activation, in
/// graph order, which is the data flow. The first node whose relative L2 error exceeds the
/// tolerance is where the artifact stops computing what PyTorch computed.

#include "fx/Graph.h"
#include "fx/Interpreter.h"
#include "model/ArchiveRecordings.h"
#include "runtime/Compare.h"
#include "runtime/Runtime.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace lattice {

/// Where a recorded value lives in the artifact: the recorded name (`fc`, `out.1`), its FX node,
/// and the SSA name (without `%`) of the value the lowering produced for it.
struct NodeValueRef {
  std::string name;
  std::string node;
  std::string ssa;
  bool sparse = false;
};

/// The artifact values of every node of `graph` that `interpreter` (a finished lowering
/// interpreter) has a value for, named as activations.safetensors names them: a node whose value
/// is one ArtifactValue under the node name, a list or tuple item under `NODE.i` (recursively).
/// Other values (numbers, shapes, None, attributes) have no entry.
std::vector<NodeValueRef> artifactValuesByNode(const fx::Graph& graph, const fx::Interpreter& interpreter);

/// One recorded value against the run.
struct NodeCheck {
  NodeValueRef ref;
  /// Why the values were not compared ("" when they were): no recorded value, a value the run
  /// did not keep, shapes or supports that differ.
  std::string problem;
  runtime::Divergence divergence;
  /// relL2 above the tolerance, or recorded but not comparable.
  bool exceeds = false;
  bool compared() const { return problem.empty(); }
};

struct RecordingCheck {
  double tolerance = 0.0;
  /// In graph order: every artifact value that has a recording, and every recording whose node
  /// has no artifact value is left out (the lowering folded it away: getitem, attributes).
  std::vector<NodeCheck> nodes;
  /// Index into `nodes` of the first value over the tolerance, -1 when none.
  int firstDivergent = -1;
  /// Recorded values of nodes that have an artifact value but a different kind or name layout.
  std::vector<std::string> warnings;

  bool withinTolerance() const { return firstDivergent < 0; }
};

/// Compares `refs` (artifactValuesByNode) with `recordings`' activations, reading the values of
/// `run` (a finished run started with keepValues). A recorded sparse value is matched row by
/// coordinate (§10.6: equal active rows and coordinates after Morton sorting), a dense one element
/// by element.
RecordingCheck checkAgainstRecording(const std::vector<NodeValueRef>& refs, const runtime::Runtime& run,
                                     const ArchiveRecordings& recordings, double tolerance);

/// One line per compared value (max |Δ|, relative L2, Pearson, a mark over the tolerance), then
/// the first divergent node or "every recorded node within tolerance".
std::string formatRecordingCheck(const RecordingCheck& check);

/// {"tolerance", "nodes": [{name, node, ssa, max_abs, rel_l2, pearson, exceeds[, problem]}...],
/// "first_divergent": {name, node, ssa, rel_l2} | null, "within_tolerance": bool}.
nlohmann::json recordingCheckToJson(const RecordingCheck& check);

} // namespace lattice
