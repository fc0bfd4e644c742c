#pragma once
/// \file StepTargets: where Step Over and Step Out stop, worked out from the module groups of the
/// traced graph (GraphGrouping) and the groups the view shows expanded. Qt-free; node indices are
/// GraphGrouping::nodes() indices, which are graph order, the order the interpreter executes.
///
/// A group's *end* is the node after its last node in graph order (a group's nodes are usually
/// consecutive; when they are not, everything up to its last node runs). Step Over a node hidden
/// in a collapsed group runs to the end of the outermost collapsed group hiding it; Step Out runs
/// to the end of the current node's innermost module group. -1 stands for the end of the graph.

#include "layout/GraphGrouping.h"
#include "layout/ViewGraph.h"

#include <vector>

namespace lattice::studio {

/// The outermost group holding node `node` that is not expanded while its ancestors are: the box
/// the view draws for the node. -1 when the node shows as its own box (or is unknown).
int collapsedGroupOf(const GraphGrouping& grouping, const ExpandedGroups& expanded, int node);

/// The groups holding node `node`, innermost first, the root excluded.
std::vector<int> groupsOf(const GraphGrouping& grouping, int node);

/// The innermost module group holding `node` (synthetic range groups skipped); -1 for a node of
/// the root.
int innermostModuleGroup(const GraphGrouping& grouping, int node);

/// Index of the last node of `group`'s subtree in graph order; -1 for an empty group.
int lastNodeOf(const GraphGrouping& grouping, int group);

/// The first node after `group` (lastNodeOf + 1); -1 when the group ends the graph.
int nodeAfterGroup(const GraphGrouping& grouping, int group);

/// Where Step Over from `current` pauses: after the collapsed group hiding it, else the next
/// node. -1: the end.
int stepOverTarget(const GraphGrouping& grouping, const ExpandedGroups& expanded, int current);

/// Where Step Out from `current` pauses: after its innermost module group. -1: the end (a node of
/// the root, or a group that ends the graph).
int stepOutTarget(const GraphGrouping& grouping, int current);

} // namespace lattice::studio
