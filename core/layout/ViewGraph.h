#pragma once
/// \file The collapsible view of a grouped FX graph: which groups are expanded, which items are
/// visible, how they are identified, and the flat LayoutGraph of a view.
///
/// An item is what the view draws as one box: an FX node whose groups are all expanded, or a
/// collapsed group whose ancestors are all expanded. An expanded group is drawn as a cluster
/// around its items. Item ids are unique names, never pointers: `node:<fx name>` and
/// `group:<group path>` (nodeItemId / groupItemId; parseItemId reverses them).

#include "layout/GraphGrouping.h"
#include "layout/GraphLayout.h"

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace lattice {

enum class ViewItemKind : unsigned char { Node, Group };

/// One visible thing: an FX node or a group (collapsed: a box; expanded: a cluster).
struct ViewItem {
  ViewItemKind kind = ViewItemKind::Node;
  int index = 0;         ///< into GraphGrouping::nodes() or ::groups()
  bool expanded = false; ///< groups only
  std::string id;        ///< nodeItemId / groupItemId
};

/// "node:" + FX node name.
std::string nodeItemId(const std::string& fxName);
/// "group:" + group path ("group:" alone is the root).
std::string groupItemId(const std::string& groupPath);
/// Splits an item id into kind and name (FX name or group path); false for anything else.
bool parseItemId(const std::string& id, ViewItemKind& kind, std::string& name);

/// Paths of the expanded groups. The root is always expanded (its path "" may be omitted); a
/// group listed here is shown expanded only when its ancestors are expanded too.
using ExpandedGroups = std::set<std::string>;

/// Label space for one item, in points: a node's or collapsed group's box, or the label band on
/// top of an expanded group. The studio passes one that measures its fonts.
using ItemMeasure = std::function<LayoutSize(const GraphGrouping&, const ViewItem&)>;

/// A font-free estimate (about 7 points per character, 28-point rows, 20-point group bands).
LayoutSize estimateItemSize(const GraphGrouping& grouping, const ViewItem& item);

struct ViewOptions {
  std::size_t expandAllUpTo = 500;     ///< graphs with at most this many nodes open fully expanded
  std::size_t maxNodesPerLayout = kMaxGraphvizNodes; ///< bound on the nodes of one Graphviz call;
                                                     ///< also the item budget of defaultExpansion
  LayoutOptions layout;
  ItemMeasure measure;     ///< empty: estimateItemSize
  double groupPadding = 8; ///< nested layout: space around a group's interior
};

/// `options.measure` when set, else estimateItemSize.
LayoutSize measureItem(const ViewOptions& options, const GraphGrouping& grouping, const ViewItem& item);

/// The initial expansion: every group when the graph has at most `expandAllUpTo` nodes;
/// otherwise top-level groups start collapsed and groups are expanded breadth-first in graph
/// order while the view stays within `maxNodesPerLayout` items, stopping at the first group
/// that does not fit (chain:10000: `blocks` and its first 7 range groups, 795 items).
ExpandedGroups defaultExpansion(const GraphGrouping& grouping, const ViewOptions& options = {});
/// Every group expanded.
ExpandedGroups fullExpansion(const GraphGrouping& grouping);
/// The groups of depth 1 to `depth` expanded, deeper ones collapsed: depth 1 opens the root's
/// sub-groups and shows theirs as boxes; 0 or less collapses every group. Range groups are a
/// level of the tree like any other.
ExpandedGroups expansionToDepth(const GraphGrouping& grouping, int depth);
/// The overview of a large graph: every group collapsed, except that a group which is the only
/// sub-group of an open group (a wrapper such as `backbone`) opens while the view stays within
/// `maxItems` boxes.
ExpandedGroups overviewExpansion(const GraphGrouping& grouping, std::size_t maxItems);
/// Expands `path` and its ancestors; false (nothing changed) for an unknown path.
bool expandGroup(const GraphGrouping& grouping, ExpandedGroups& expanded, const std::string& path);
/// Collapses `path` (its descendants keep their state, hidden); false for an unknown path or the root.
bool collapseGroup(const GraphGrouping& grouping, ExpandedGroups& expanded, const std::string& path);

/// Visibility of every group and node under one expansion state (linear to compute).
class ViewState {
public:
  ViewState(const GraphGrouping& grouping, const ExpandedGroups& expanded);

  const GraphGrouping& grouping() const { return m_grouping; }
  /// The group and all its ancestors are expanded (the root always is).
  bool isOpen(int group) const { return m_open[group] != 0; }
  /// The visible item standing for node `n` (itself, or its outermost collapsed group).
  GroupChild itemOfNode(int n) const;
  /// Items drawn inside open group `g`'s subtree (its clusters excluded); 0 when not open.
  std::size_t visibleCount(int group) const { return m_visible[group]; }
  /// ViewItem for a group child as seen in this state (id, kind, expanded flag).
  ViewItem item(const GroupChild& c) const;
  /// Open groups in pre-order (parents first), starting at the root.
  const std::vector<int>& openGroups() const { return m_preorder; }

private:
  const GraphGrouping& m_grouping;
  std::vector<char> m_open;
  std::vector<int> m_collapsedItem; ///< per group: the outermost closed group at or above it, or -1
  std::vector<std::size_t> m_visible;
  std::vector<int> m_preorder;
};

/// A flat view: the visible items of open group `root`'s subtree as one LayoutGraph (FX edges
/// between items, self-edges dropped, parallel edges merged into one with `count`), open groups
/// below `root` as clusters carrying their label band. `items`/`clusters` parallel the graph's
/// `nodes`/`clusters`.
struct ViewGraph {
  LayoutGraph graph;
  std::vector<ViewItem> items;
  std::vector<ViewItem> clusters;
};

ViewGraph buildViewGraph(const ViewState& state, const ViewOptions& options = {}, int root = 0);
/// Convenience: buildViewGraph(ViewState(grouping, expanded), options, 0).
ViewGraph buildViewGraph(const GraphGrouping& grouping, const ExpandedGroups& expanded,
                         const ViewOptions& options = {});

} // namespace lattice
