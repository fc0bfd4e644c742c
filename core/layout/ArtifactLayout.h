#pragma once
/// \file Layout of an artifact's op graph (the studio's ArtifactOpGraph reduced to node numbers
/// and edges). Up to kMaxGraphvizNodes nodes the whole graph goes through one Graphviz `dot`
/// call (computeLayout). Larger graphs
/// (an export of example:chain:10000 has 30 000 ops) would take minutes in `dot`, and an op
/// graph has no module hierarchy to collapse, so they get a linear-time layered layout instead:
/// ranks by longest path (sources such as weights sit just above their first consumer), order
/// within a rank by the mean position of the producers, and the ranks wrapped into side-by-side
/// bands so a long chain becomes columns rather than one tall strip. Edges are then single
/// cubic curves from the producer's bottom to the consumer's top.
///
/// Pure functions: they run on a worker thread; sizes are measured by the caller.

#include "layout/GraphLayout.h"

#include <atomic>
#include <cstddef>
#include <vector>

namespace lattice {

/// A producer → consumer edge between node numbers.
struct OpLayoutEdge {
  int from = -1;
  int to = -1;
};

/// An op graph as the layout sees it: nodes 0 .. nodeCount − 1, numbered so that every producer
/// comes before its consumers (values are defined before they are used), and the edges in the
/// order the result lists their paths.
struct OpLayoutGraph {
  std::size_t nodeCount = 0;
  std::vector<OpLayoutEdge> edges;
};

/// How a layout was made.
enum class ArtifactLayoutMethod { Graphviz, Layered };

struct ArtifactLayout {
  ArtifactLayoutMethod method = ArtifactLayoutMethod::Graphviz;
  /// Node boxes in node order (ids are the node positions as text), edges in edge order.
  LayoutResult result;
};

/// Lays out `graph` with box sizes `sizes` (one per node). `forceLayered` skips Graphviz even
/// for small graphs (tests, or when Graphviz fails). Errors: a size count other than the node
/// count, an edge naming no node, "layout cancelled" and Graphviz's.
Expected<ArtifactLayout> layoutArtifactGraph(const OpLayoutGraph& graph, const std::vector<LayoutSize>& sizes,
                                             const std::atomic<bool>* cancel = nullptr,
                                             bool forceLayered = false);

/// The layered layout alone (never fails on a graph layoutArtifactGraph accepts; checks `cancel`
/// between passes and returns what it has when set).
LayoutResult layeredLayout(const OpLayoutGraph& graph, const std::vector<LayoutSize>& sizes,
                           const std::atomic<bool>* cancel = nullptr);

} // namespace lattice
