#pragma once
/// \file ArtifactDiff: structural and weight diff of two lattice artifacts.
///
/// Ops of the entry functions are matched first by result name (or weight symbol), then, for
/// what is left, along the data flow: an unmatched op in B is paired with an unmatched op of A of
/// the same kind whose operands are produced by already-matched ops (in the same positions), so a
/// consistent renaming of values is not a change. Matched ops are compared by attributes (by
/// name; attribute order is never a change), operand and result types, and operands (whether each
/// operand comes from the matched producer). Module attributes, function arguments (the input
/// ABI) and returned values with their names and roles (the output ABI) are compared separately.
/// Weights are compared per storage key of matched `lattice.weight` ops: added/removed keys,
/// dtype/shape changes of the stored tensors, and values (quantized weights dequantized as
/// lattice-artifact-format.md sec. 13.3 describes, so an int4 weight compares with a dense one).
///
/// Nothing here needs Qt or LibTorch; the studio and `lattice-cli diff` share it.

#include "mlir/ArtifactGraph.h"
#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lattice {

/// One side of a diff: the parsed graph and, for a directory, its weights.
struct LoadedArtifact {
  /// What the user named (a `.lattice` directory or a lone `.mlir` file).
  std::string path;
  ArtifactGraph graph;
  /// The weights (read into memory); absent for a lone `.mlir`.
  std::shared_ptr<const SafetensorsFile> weights;
};

/// Reads `path` (an artifact directory with graph.mlir and weights.safetensors, or a lone
/// graph file). Errors name the file: "cannot parse 'a.lattice/graph.mlir': 3:7: ...".
/// Does not verify; a graph that parses is enough to diff.
Expected<LoadedArtifact> loadArtifact(const std::string& path);

/// How an element of A relates to its counterpart in B.
enum class DiffStatus { Unchanged, Changed, Added, Removed };
/// "unchanged", "changed", "added", "removed".
const char* diffStatusName(DiffStatus status);

/// One attribute, type or ABI field that differs. `before`/`after` are canonical texts; an
/// empty string with `present*` false means the field is absent on that side.
struct FieldChange {
  /// What changed: an attribute name (`stride`), `result 0 type`, `operand 1 type`,
  /// `operand 1` (comes from a different producer), `op` (the op kind), `input 'coords' type`...
  std::string field;
  std::string before;
  std::string after;
  bool presentBefore = true;
  bool presentAfter = true;
};

/// A pairing of ops of the two entry functions; every op of A and of B appears in exactly one.
struct OpDiff {
  DiffStatus status = DiffStatus::Unchanged;
  /// Index into graph.entry()->ops of A / B, -1 when absent on that side.
  int indexA = -1;
  int indexB = -1;
  /// The op's display name on each side: its first result (`conv1`) or its weight symbol,
  /// "" when absent on that side.
  std::string nameA;
  std::string nameB;
  /// Short op name (`conv3d`, `weight`) of A, or of B when added.
  std::string opName;
  /// True when matched along the data flow under a different name.
  bool renamed = false;
  /// Changed only: every difference, attributes in A's order then B-only ones, then types and
  /// operands.
  std::vector<FieldChange> changes;
};

/// Value statistics of a weight present on both sides with the same logical element count.
struct WeightValueStats {
  std::uint64_t elements = 0;
  /// Elements where a != b (exact float comparison after dequantization).
  std::uint64_t changedElements = 0;
  /// max |b - a|.
  double maxAbsDelta = 0.0;
  /// max |b - a| / max(|a|, tiny): tiny = 1e-12 so a zero `a` gives a large, finite value.
  double maxRelDelta = 0.0;
};

/// A weight (one storage key of a `lattice.weight` op, in its logical dense layout).
struct WeightDiff {
  DiffStatus status = DiffStatus::Unchanged;
  std::string key;
  /// Stored form per side: `F32 [4, 3, 3, 3, 2]`, `int4 g32 f16 (U32 [27, 1, 4])`; "" when absent.
  std::string formA;
  std::string formB;
  /// Logical shape per side (from the stored tensor, or for packed weights the dequantized
  /// rows with the consumer's input channels).
  std::vector<std::int64_t> shapeA;
  std::vector<std::int64_t> shapeB;
  /// Set when both sides were compared value by value.
  std::optional<WeightValueStats> values;
  /// Why values were not compared, or other remarks ("shape differs", "missing from
  /// weights.safetensors"); "" when nothing to say.
  std::string note;
  /// True when the stored form differs (dtype, packing or stored shape) even if values are equal.
  bool formChanged = false;
};

/// The whole diff.
struct ArtifactDiff {
  std::vector<FieldChange> moduleAttributes;
  /// Inputs (function arguments: names, order, types) and outputs (returned values, names,
  /// roles, types).
  std::vector<FieldChange> abi;
  /// Every op of both sides, in B's order with removed ops of A inserted after their
  /// predecessor in A.
  std::vector<OpDiff> ops;
  /// Every weight key of both sides (unchanged ones included), sorted by key.
  std::vector<WeightDiff> weights;

  /// True when nothing differs (unchanged ops and weights only).
  bool equal() const;
  /// Counts for summaries.
  std::size_t count(DiffStatus status) const;        ///< of ops
  std::size_t weightCount(DiffStatus status) const;  ///< of weights
};

/// Options of diffArtifacts.
struct DiffOptions {
  /// Compare weight values (reads and dequantizes every weight on both sides).
  bool compareValues = true;
  /// Absolute tolerance under which two values count as equal (0: exact).
  double tolerance = 0.0;
};

/// Diffs A against B (B is "after").
ArtifactDiff diffArtifacts(const LoadedArtifact& a, const LoadedArtifact& b,
                           const DiffOptions& options = {});

/// The logical float values of weight `key` of `artifact` (dense F32/F16 converted, int4/int8
/// dequantized, rows mapped back to the logical layout), or an error naming the key.
Expected<std::vector<float>> weightValues(const LoadedArtifact& artifact, const std::string& key);

/// b - a per element for a weight present on both sides with equal logical element counts
/// (for the studio's histogram of Δ).
Expected<std::vector<float>> weightDeltas(const LoadedArtifact& a, const LoadedArtifact& b,
                                          const std::string& key);

/// Human-readable report, one difference per line (what `lattice-cli diff` prints):
/// `~ conv3d %conv1: stride: array<i64: 1, 1, 1> -> array<i64: 2, 2, 2>`, `+ relu %relu3`,
/// `- weight @head_bias`, `~ weight stem.weight: max |Δ| 0.0123, max rel 0.04, 17/108 changed`,
/// ending with a summary line. Empty diff: "artifacts are equal".
std::string formatDiff(const ArtifactDiff& diff, const std::string& nameA, const std::string& nameB);

/// JSON form (`lattice-cli diff --json`): {"equal": bool, "module_attributes": [...], "abi":
/// [...], "ops": [only non-unchanged], "weights": [only non-unchanged], "summary": {...}}.
nlohmann::json diffToJson(const ArtifactDiff& diff);

} // namespace lattice
