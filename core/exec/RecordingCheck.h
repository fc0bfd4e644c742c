#pragma once
/// \file Checking a lowered model against what PyTorch computed (`lattice-cli check MODEL.ltfx`,
/// the studio's recorded golden): the model's artifact runs on the archive's recorded inputs with
/// every value kept, and each FX node's value (the ArtifactValue the lowering interpreter gave the
/// node, found by its SSA name in the run) is compared with the node's recorded activation, in
/// graph order, which is the data flow. The first node whose relative L2 error exceeds the
/// tolerance is where the artifact stops computing what PyTorch computed, unless the difference
/// is one that torch-lattice and the artifact (as mlx-lattice runs it) make by design
/// (TrainerDifferences.h): such a node names the difference, and the nodes downstream of it that
/// differ inherit it instead of being reported as divergent.
///
/// Recorded sparse coordinates are physical (fx-archive.md); a recording without
/// `"coords": "physical"` in its metadata holds torch-lattice's own strided units and is read in
/// those (ArchiveRecordings::physicalCoords). Sparse values are matched row by coordinate; when the
/// two supports differ, the rows both have are still compared.

#include "fx/Graph.h"
#include "fx/Interpreter.h"
#include "model/ArchiveRecordings.h"
#include "runtime/Compare.h"
#include "runtime/Runtime.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
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
  /// The nearest FX nodes upstream of `node` that have artifact values (looking through nodes
  /// that have none, such as a folded getitem): where a difference can come from.
  std::vector<std::string> upstream;
};

/// The artifact values of every node of `graph` that `interpreter` (a finished lowering
/// interpreter) has a value for, named as activations.safetensors names them: a node whose value
/// is one ArtifactValue under the node name, a list or tuple item under `NODE.i` (recursively).
/// Other values (numbers, shapes, None, attributes) have no entry.
std::vector<NodeValueRef> artifactValuesByNode(const fx::Graph& graph, const fx::Interpreter& interpreter);

/// One recorded value against the run.
struct NodeCheck {
  NodeValueRef ref;
  /// Why the values were not (all) compared ("" when they were): a value the run did not keep,
  /// kinds or shapes that differ, supports that differ (then `divergence` covers the rows both
  /// have).
  std::string problem;
  /// Over every element, or over the rows both supports have (`commonRows`).
  runtime::Divergence divergence;
  /// Sparse values: active rows of the run's value, of the recorded one, and in both; -1 dense.
  std::int64_t rows = -1, recordedRows = -1, commonRows = -1;
  /// The documented trainer/consumer difference this node's op is subject to, when its value
  /// differs: a short rule id and the sentence a user reads. Empty otherwise.
  std::string differenceRule;
  std::string difference;
  /// When this node differs only because an upstream node does by design: that node's name.
  std::string inheritedFrom;
  /// relL2 above the tolerance, non-finite values, or recorded but not (all) comparable.
  bool exceeds = false;

  bool compared() const { return problem.empty(); }
  /// Exceeds, and a documented difference here or upstream accounts for it.
  bool explained() const { return exceeds && (!difference.empty() || !inheritedFrom.empty()); }
  /// The relative L2 error to show and colour by: over the compared elements, infinity when none
  /// could be compared.
  double shownError() const;
};

struct RecordingCheck {
  double tolerance = 0.0;
  /// In graph order: every artifact value that has a recording, and every recording whose node
  /// has no artifact value is left out (the lowering folded it away: getitem, attributes).
  std::vector<NodeCheck> nodes;
  /// Index into `nodes` of the first value over the tolerance that no documented difference
  /// explains, -1 when none.
  int firstDivergent = -1;
  /// Index into `nodes` of the first node with a documented trainer/consumer difference, -1 none.
  int firstDifference = -1;
  /// Recorded values of nodes that have an artifact value but a different kind or name layout.
  std::vector<std::string> warnings;

  /// Every compared value within the tolerance, nothing left uncompared.
  bool withinTolerance() const { return firstDivergent < 0 && firstDifference < 0; }
  /// Nothing diverges but where a documented difference says it must.
  bool onlyKnownDifferences() const { return firstDivergent < 0 && firstDifference >= 0; }
};

/// The numbers of each node value against its recording, taken while a run goes on: for a run
/// that does not hold every value to its end (the studio within its memory budget). Call
/// measureOp after each op (RuntimeOptions::afterOp, before the op's operands can be freed);
/// checkAgainstRecording then judges these numbers for the values the run no longer holds.
class RecordingMeasurements {
public:
  RecordingMeasurements(std::vector<NodeValueRef> refs, const runtime::RuntimePlan& plan,
                        const ArchiveRecordings& recordings);
  /// Measures the values op `opIndex` of `run` produced (and, on the first call, the arguments').
  void measureOp(const runtime::Runtime& run, int opIndex);

  struct Measured {
    NodeCheck check; ///< rows, divergence and problem filled in; nothing judged yet
    std::int64_t offGrid = 0;
    bool strided = false;
  };
  /// The numbers of refs()[index], or nullptr when its value was not measured.
  const Measured* measured(std::size_t index) const;
  const std::vector<NodeValueRef>& refs() const { return m_refs; }

private:
  std::vector<NodeValueRef> m_refs;
  const ArchiveRecordings* m_recordings;
  std::vector<std::vector<std::size_t>> m_refsOfOp; ///< op index → indices into m_refs
  std::vector<std::size_t> m_argumentRefs;
  bool m_argumentsDone = false;
  std::vector<std::optional<Measured>> m_measured;
};

/// Compares `refs` (artifactValuesByNode) with `recordings`' activations, reading the values of
/// `run` (a finished run started with keepValues). A recorded sparse value is matched row by
/// coordinate (§10.6: the same rows; when they differ, the rows both have), a dense one element
/// by element. A value `run` no longer holds is judged from `measured` (same refs) when given.
RecordingCheck checkAgainstRecording(const std::vector<NodeValueRef>& refs, const runtime::Runtime& run,
                                     const ArchiveRecordings& recordings, double tolerance,
                                     const RecordingMeasurements* measured = nullptr);

/// One line per compared value (max |Δ|, relative L2, Pearson, a mark over the tolerance), then
/// the first divergent node or "every recorded node within tolerance".
std::string formatRecordingCheck(const RecordingCheck& check);

/// {"tolerance", "nodes": [{name, node, ssa, compared, max_abs, rel_l2, pearson, exceeds[, problem]
/// [, rows, recorded_rows, common_rows][, difference: {rule, text}][, inherited_from]}...],
/// "first_divergent": {name, node, ssa, rel_l2, problem?} | null, "differences": [{node, rule,
/// text}...], "within_tolerance": bool, "only_known_differences": bool}. rel_l2 is null where no
/// element could be compared.
nlohmann::json recordingCheckToJson(const RecordingCheck& check);

} // namespace lattice
