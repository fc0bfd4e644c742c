#pragma once
/// \file ArtifactOpGraph: the node/edge view of an artifact's entry function that the artifact
/// and compare views lay out and draw. One node per function argument, then
/// one per op, in source order; one edge per operand use, from the node defining the value (an
/// argument or the op with that result) to the op using it. Values nobody defines (the verifier
/// reports them) get no edge. Each node knows the MLIR lines it was written on, so the text
/// and the graph can highlight each other.

#include "mlir/ArtifactGraph.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace lattice::studio {

/// What a node of the op graph stands for; the artifact view colours nodes by it.
enum class OpCategory : unsigned char {
  Argument,  ///< a function argument (the input ABI)
  Weight,    ///< `lattice.weight`
  Compute,   ///< convolutions, linear, matmul: the ops that hold weights
  Structure, ///< `lattice.sparse.*` (make, decompose, with_features, ...)
  Other,     ///< every other op (norms, activations, pools, arithmetic, foreign ops)
};

/// One node. `index` points into the entry function's arguments (Argument) or ops (the rest).
struct OpGraphNode {
  OpCategory category = OpCategory::Other;
  int index = -1;
  QString title;         ///< `%stem`, `%a, %b, %c`, `@stem_weight`
  QString subtitle;      ///< `conv3d`, `weight`, or the argument's type
  QString tooltip;       ///< the op name, results with types and attributes
  bool returned = false; ///< one of its values is returned by the function
  /// 1-based MLIR lines the node was written on (inclusive); 0 when unknown.
  int firstLine = 0;
  int lastLine = 0;

  bool isArgument() const { return category == OpCategory::Argument; }
};

/// A producer → consumer edge between node positions; `operand` is the operand position of the
/// consuming op.
struct OpGraphEdge {
  int from = -1;
  int to = -1;
  int operand = 0;
};

class ArtifactOpGraph {
public:
  ArtifactOpGraph() = default;
  /// Builds the graph of `graph.entry()` (empty when the module has no function).
  explicit ArtifactOpGraph(const ArtifactGraph& graph);

  const std::vector<OpGraphNode>& nodes() const { return m_nodes; }
  const std::vector<OpGraphEdge>& edges() const { return m_edges; }
  int argumentCount() const { return m_arguments; }
  int opCount() const { return static_cast<int>(m_nodes.size()) - m_arguments; }

  /// Node position of argument `i` / op `i` of the entry function; -1 when out of range.
  int nodeOfArgument(int argument) const;
  int nodeOfOp(int op) const;
  /// The node whose lines contain 1-based `line`; -1 when none.
  int nodeAtLine(int line) const;
  /// Producers / consumers of a node (edge order; repeated when a value is used twice).
  std::vector<int> producers(int node) const;
  std::vector<int> consumers(int node) const;
  /// The ops' storage keys: the `storage_key` attribute of `lattice.weight` ops; the node of
  /// the weight op with `key`, or -1.
  int nodeOfStorageKey(const std::string& key) const;
  /// Find (Ctrl+F in an artifact tab): the nodes whose title, subtitle or tooltip (op name, SSA
  /// names, result types, attributes and their values) contain `text`, ignoring case, in node
  /// order; none for blank text.
  std::vector<int> search(const QString& text) const;

private:
  std::vector<OpGraphNode> m_nodes;
  std::vector<OpGraphEdge> m_edges;
  std::vector<std::vector<int>> m_in;                     ///< edge indices per node
  std::vector<std::vector<int>> m_out;                    ///< edge indices per node
  std::vector<std::pair<int, int>> m_lineIndex;           ///< (firstLine, node) sorted, for nodeAtLine
  std::vector<std::pair<std::string, int>> m_storageKeys; ///< sorted
  int m_arguments = 0;
};

} // namespace lattice::studio
