#pragma once
/// \file The runtime plan of a verified artifact (lattice-artifact-validation.md sec. 7): the
/// arguments with their ABI names and roles, the ops in order with their operands and results as
/// value slots, the outputs, and for every slot its last use (so a run frees what is dead).
/// buildRuntimePlan checks rules R1-R17 with the reference's messages, each prefixed with the
/// location in graph.mlir (`graph.mlir:12:5: error: ...`).

#include "mlir/ArtifactGraph.h"
#include "support/Expected.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace lattice::runtime {

/// One argument of `@forward`: label `arg{i}`, its ABI name and role (`lattice.input_names`,
/// `lattice.input_roles`) and its type.
struct PlanArg {
  std::string label;
  std::string abiName;
  std::string role;
  const ArtifactValueDef* def = nullptr;
  int slot = -1;
};

/// One op of the entry function.
struct PlanOp {
  const ArtifactOp* op = nullptr;
  /// The op's kind (opName gives `conv3d`, `sparse.make`).
  OpKind kind = OpKind::None;
  /// Value slots of the SSA operands, in order (the weight op's symbol is not an operand).
  std::vector<int> operands;
  std::vector<int> results;

  /// The first result's SSA name without `%` (what messages and the studio call the op).
  const std::string& name() const;
  const SourceLoc& loc() const { return op->loc; }
  /// The attribute `name`, or nullptr.
  const ArtifactAttrValue* attr(std::string_view name) const;
  /// Typed readers of attributes the verifier guarantees; a missing or mistyped one throws
  /// lattice::Exception (only reachable with an unverified graph).
  std::array<std::int64_t, 3> i64Triple(std::string_view name) const;
  std::array<double, 3> f64Triple(std::string_view name) const;
  /// An i64 triple, or `fallback` when the op does not carry it (subm has no stride).
  std::array<std::int64_t, 3> i64TripleOr(std::string_view name, std::array<std::int64_t, 3> fallback) const;
  std::int64_t i64(std::string_view name) const;
  double f32(std::string_view name) const;
  /// A string or enum attribute's value (`canonical_f32`, `avg`).
  const std::string& text(std::string_view name) const;
};

/// One output: the returned slot, its ABI name and role (`lattice.output_names/roles`).
struct PlanOutput {
  std::string abiName;
  std::string role;
  int slot = -1;
  const ArtifactType* type = nullptr;
};

struct RuntimePlan {
  /// The graph the plan points into (kept alive by the plan).
  std::shared_ptr<const ArtifactGraph> graph;
  std::vector<PlanArg> args;
  std::vector<PlanOp> ops;
  std::vector<PlanOutput> outputs;
  /// Per slot: the SSA name without `%`, its type, the op that defines it (-1 for arguments),
  /// and the index of the last op that reads it (ops.size() when an output reads it, -1 when
  /// nothing does).
  std::vector<std::string> slotNames;
  std::vector<const ArtifactType*> slotTypes;
  std::vector<int> producer;
  std::vector<int> lastUse;
  /// SSA name without `%` → slot.
  std::unordered_map<std::string, int> slotIndex;

  /// The slot of `%name` (with or without the `%`), or -1.
  int slotOf(std::string_view name) const;
  /// The op index of the op whose first result or weight symbol is `name`, or -1.
  int opIndexOf(std::string_view name) const;
  /// `file:line:col: error: 'lattice.X' op %name: message`: how every execution error reads.
  std::string opError(int opIndex, const std::string& message) const;
};

/// Builds the plan of a graph that passed verifyArtifactGraph. Errors are the R rules' messages
/// with the location of the op or attribute they concern.
Expected<RuntimePlan> buildRuntimePlan(std::shared_ptr<const ArtifactGraph> graph);

} // namespace lattice::runtime
