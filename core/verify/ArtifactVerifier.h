#pragma once
/// \file The artifact verifier: every rule of lattice-artifact-validation.md that can be checked
/// without running the graph, over a parsed ArtifactGraph and (optionally) its
/// weights.safetensors. Unlike the reference, which stops at the first failure, it reports every
/// error it finds; checks whose inputs are already reported broken are skipped, so one mistake
/// gives one diagnostic. The first diagnostic of verifyArtifactGraph is the one the reference
/// (`lattice-opt --lattice-verify-artifact`) reports first: parse-level problems, then the op
/// verifiers in op order (inside an op ODS's order: missing attributes by name, attribute
/// constraints, operand types, result types, then the custom rules), then the contract rules
/// M1-M17 in rule order; the others follow in source order. Op errors are located at the op's
/// name, as MLIR locates a custom-format op.
///
/// Rule classes and where they are reported (messages are the spec's, prefixed for ops with
/// `'lattice.X' op ` as MLIR does):
///  - MLIR structure (SSA names defined before use and once, operand types agreeing with the
///    defining value, return types agreeing with the function): at the use/definition.
///  - ODS (sec. 4): operand/result counts and type classes, required attributes and attribute
///    kinds: at the op.
///  - V (sec. 5): the per-op custom verifiers with their exact messages: at the op.
///  - M (sec. 6): module attributes, IR version, schema digest, weight file, the single
///    `@forward` entry, ABI names and roles, lattice-only body: at the module, the attribute
///    whose value is wrong, the extra function, the entry's name, or the op (the reference
///    reports some of these at `module` or `func.func`).
///  - R (sec. 7) where it adds to the above: unknown attributes (R12), `coord_order` values
///    (R13): at the op.
///  - Weights (sec. 2 IO6, sec. 8 X1-X5, X8; format sec. 11, 13): storage keys present, no
///    unreferenced tensor, dtypes and shapes consistent with layout, packing and the consuming
///    ops: at the weight or consumer op in graph.mlir, or on weights.safetensors itself.
///  - Channels (the runtime's shape rules that depend only on the artifact: sec. 8 X8, X14, and
///    the runtime's checks of linear widths, biases and norm vectors): channel counts followed
///    along the graph from the inputs' types and the weights' shapes, each consumer checked with
///    the runtime's message, at the op, naming the weight key.
///  - Coordinate extents (an extension the spec allows, sec. 5): kernel_size × dilation, stride,
///    padding and the tensor stride of a forward op at most 2^31 − 1 per axis, the range of an
///    i32 coordinate: at the op, naming the attribute and axis.

#include "mlir/ArtifactGraph.h"
#include "mlir/Diagnostic.h"
#include "tensor/Safetensors.h"

#include <functional>
#include <string>
#include <vector>

namespace lattice {

/// Structure, ODS, V, M and R checks of `graph`; diagnostics name graph.fileName.
std::vector<Diagnostic> verifyArtifactGraph(const ArtifactGraph& graph);

/// The weight checks of `graph` against `weights`; `weightsFileName` names the safetensors file
/// in diagnostics about it as a whole (unreferenced tensors).
std::vector<Diagnostic> verifyArtifactWeights(const ArtifactGraph& graph, const SafetensorsFile& weights,
                                              const std::string& weightsFileName);

/// What the first op that constrains it requires of an entry-function argument whose channel
/// count the graph leaves open (a sparse input's features `tensor<?x?xf32>`): the count the
/// op's weight takes, by the same rules the weight checks apply.
struct ArgumentChannelNeed {
  std::size_t argument = 0; ///< index into the entry function's arguments
  std::int64_t channels = 0;
  std::string op;           ///< `lattice.subm_conv3d`
  SourceLoc loc;            ///< of the op
  std::string result;       ///< the op's first result (without `%`)
  std::string weightKey;    ///< the storage key of the weight that decides it
};

/// The stored tensor under a key, or nullptr (a weights file's find, or a lowering's weight
/// table: only dtypes and shapes are read).
using WeightLookup = std::function<const TensorData*(const std::string& key)>;

/// The needs of the entry function's arguments of unknown width, at most one per argument.
std::vector<ArgumentChannelNeed> argumentChannelNeeds(const ArtifactGraph& graph, const WeightLookup& weights);

} // namespace lattice
