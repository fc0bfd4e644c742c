#pragma once
/// \file Layout of an ArtifactOpGraph. Up to kMaxGraphvizNodes nodes the
/// whole graph goes through one Graphviz `dot` call (core/layout computeLayout). Larger graphs
/// (an export of example:chain:10000 has 30 000 ops) would take minutes in `dot`, and an op
/// graph has no module hierarchy to collapse, so they get a linear-time layered layout instead:
/// ranks by longest path (sources such as weights sit just above their first consumer), order
/// within a rank by the mean position of the producers, and the ranks wrapped into side-by-side
/// bands so a long chain becomes columns rather than one tall strip. Edges are then single
/// cubic curves from the producer's bottom to the consumer's top.
///
/// Pure functions: they run on a worker thread; sizes are measured by the caller.

#include "artifactview/ArtifactOpGraph.h"
#include "layout/GraphLayout.h"

#include <atomic>
#include <vector>

namespace lattice::studio {

/// How a layout was made.
enum class ArtifactLayoutMethod { Graphviz, Layered };

struct ArtifactLayout {
  ArtifactLayoutMethod method = ArtifactLayoutMethod::Graphviz;
  /// Node boxes in node order (ids are the node positions as text), edges in edge order.
  LayoutResult result;
};

/// Lays out `graph` with box sizes `sizes` (one per node). `forceLayered` skips Graphviz even
/// for small graphs (tests, or when Graphviz fails). Errors: "layout cancelled" and Graphviz's.
Expected<ArtifactLayout> layoutArtifactGraph(const ArtifactOpGraph& graph,
                                             const std::vector<LayoutSize>& sizes,
                                             const std::atomic<bool>* cancel = nullptr,
                                             bool forceLayered = false);

/// The layered layout alone (never fails; checks `cancel` between passes and returns what it
/// has when set).
LayoutResult layeredLayout(const ArtifactOpGraph& graph, const std::vector<LayoutSize>& sizes,
                           const std::atomic<bool>* cancel = nullptr);

} // namespace lattice::studio
