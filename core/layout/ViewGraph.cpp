// The collapsible view over a GraphGrouping: item ids, expansion (default, expand, collapse),
// per-state visibility (ViewState) and the flat LayoutGraph of a view (buildViewGraph).
//
// Deliberately not here: calling Graphviz, the nested layout of views too big for one call, and
// caching (ViewLayout.cpp). Everything here is plain bookkeeping, linear in the graph.

#include "layout/ViewGraph.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <unordered_map>

namespace lattice {

namespace {
constexpr const char* kNodePrefix = "node:";
constexpr const char* kGroupPrefix = "group:";
constexpr std::size_t kNodePrefixLength = 5;
constexpr std::size_t kGroupPrefixLength = 6;
} // namespace

std::string nodeItemId(const std::string& fxName) {
  return kNodePrefix + fxName;
}

std::string groupItemId(const std::string& groupPath) {
  return kGroupPrefix + groupPath;
}

bool parseItemId(const std::string& id, ViewItemKind& kind, std::string& name) {
  if (id.compare(0, kNodePrefixLength, kNodePrefix) == 0) {
    kind = ViewItemKind::Node;
    name = id.substr(kNodePrefixLength);
    return true;
  }
  if (id.compare(0, kGroupPrefixLength, kGroupPrefix) == 0) {
    kind = ViewItemKind::Group;
    name = id.substr(kGroupPrefixLength);
    return true;
  }
  return false;
}

LayoutSize estimateItemSize(const GraphGrouping& grouping, const ViewItem& item) {
  constexpr double kCharWidth = 7;
  if (item.kind == ViewItemKind::Node) {
    const GroupedNode& n = grouping.nodes()[item.index];
    return {std::max(48.0, kCharWidth * static_cast<double>(n.name.size()) + 24), 28};
  }
  const Group& g = grouping.groups()[item.index];
  // Collapsed: "path (N nodes)"; expanded: a band with the path.
  const double text = static_cast<double>(g.path.size() + (item.expanded ? 0 : 12));
  if (item.expanded) return {kCharWidth * text + 16, 20};
  return {std::max(64.0, kCharWidth * text + 24), 32};
}

LayoutSize measureItem(const ViewOptions& options, const GraphGrouping& grouping, const ViewItem& item) {
  return options.measure ? options.measure(grouping, item) : estimateItemSize(grouping, item);
}

// ---------------------------------------------------------------------------------------------
// Expansion

ExpandedGroups defaultExpansion(const GraphGrouping& grouping, const ViewOptions& options) {
  const std::vector<Group>& groups = grouping.groups();
  ExpandedGroups out;
  if (grouping.nodes().size() <= options.expandAllUpTo) {
    for (std::size_t g = 1; g < groups.size(); ++g)
      out.insert(groups[g].path);
    return out;
  }
  // Breadth-first from the root's sub-groups; expanding g replaces 1 item by its children.
  std::size_t visible = groups[0].children.size();
  std::deque<int> queue;
  for (const GroupChild& c : groups[0].children)
    if (c.isGroup) queue.push_back(c.index);
  while (!queue.empty()) {
    const Group& g = groups[queue.front()];
    queue.pop_front();
    const std::size_t after = visible - 1 + g.children.size();
    if (after > options.maxNodesPerLayout) break;
    visible = after;
    out.insert(g.path);
    for (const GroupChild& c : g.children)
      if (c.isGroup) queue.push_back(c.index);
  }
  return out;
}

ExpandedGroups fullExpansion(const GraphGrouping& grouping) {
  return expansionToDepth(grouping, std::numeric_limits<int>::max());
}

ExpandedGroups expansionToDepth(const GraphGrouping& grouping, int depth) {
  ExpandedGroups out;
  const std::vector<Group>& groups = grouping.groups();
  for (std::size_t g = 1; g < groups.size(); ++g)
    if (groups[g].depth <= depth) out.insert(groups[g].path);
  return out;
}

ExpandedGroups overviewExpansion(const GraphGrouping& grouping, std::size_t maxItems) {
  ExpandedGroups out;
  const std::vector<Group>& groups = grouping.groups();
  std::size_t visible = groups[0].children.size();
  for (int open = 0;;) {
    int only = -1;
    for (const GroupChild& c : groups[std::size_t(open)].children) {
      if (!c.isGroup) continue;
      if (only >= 0) return out; // more than one sub-group: the overview shows them as boxes
      only = c.index;
    }
    if (only < 0) return out;
    const std::size_t after = visible - 1 + groups[std::size_t(only)].children.size();
    if (after > maxItems) return out;
    visible = after;
    out.insert(groups[std::size_t(only)].path);
    open = only;
  }
}

bool expandGroup(const GraphGrouping& grouping, ExpandedGroups& expanded, const std::string& path) {
  int g = grouping.findGroup(path);
  if (g < 0) return false;
  for (; g > 0; g = grouping.groups()[g].parent)
    expanded.insert(grouping.groups()[g].path);
  return true;
}

bool collapseGroup(const GraphGrouping& grouping, ExpandedGroups& expanded, const std::string& path) {
  const int g = grouping.findGroup(path);
  if (g <= 0) return false;
  expanded.erase(path);
  return true;
}

// ---------------------------------------------------------------------------------------------
// ViewState

ViewState::ViewState(const GraphGrouping& grouping, const ExpandedGroups& expanded) : m_grouping(grouping) {
  const std::vector<Group>& groups = grouping.groups();
  m_open.assign(groups.size(), 0);
  m_collapsedItem.assign(groups.size(), -1);
  m_visible.assign(groups.size(), 0);
  m_open[0] = 1;

  // Pre-order over the whole tree: a group is open when listed and its parent is open.
  std::vector<int> order;
  order.reserve(groups.size());
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int g = stack.back();
    stack.pop_back();
    order.push_back(g);
    if (m_open[g]) m_preorder.push_back(g);
    const std::vector<GroupChild>& children = groups[g].children;
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      if (!it->isGroup) continue;
      const int c = it->index;
      if (m_open[g]) {
        m_open[c] = expanded.count(groups[c].path) ? 1 : 0;
        m_collapsedItem[c] = m_open[c] ? -1 : c;
      } else {
        m_collapsedItem[c] = m_collapsedItem[g];
      }
      stack.push_back(c);
    }
  }
  // Visible counts, children before parents.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int g = *it;
    if (!m_open[g]) continue;
    std::size_t n = 0;
    for (const GroupChild& c : groups[g].children)
      n += (!c.isGroup || !m_open[c.index]) ? 1 : m_visible[c.index];
    m_visible[g] = n;
  }
}

GroupChild ViewState::itemOfNode(int n) const {
  const int g = m_grouping.nodes()[n].group;
  if (m_open[g]) return {false, n};
  return {true, m_collapsedItem[g]};
}

ViewItem ViewState::item(const GroupChild& c) const {
  ViewItem it;
  it.index = c.index;
  if (c.isGroup) {
    it.kind = ViewItemKind::Group;
    it.expanded = m_open[c.index] != 0;
    it.id = groupItemId(m_grouping.groups()[c.index].path);
  } else {
    it.kind = ViewItemKind::Node;
    it.id = nodeItemId(m_grouping.nodes()[c.index].name);
  }
  return it;
}

// ---------------------------------------------------------------------------------------------
// Flat view graph

namespace {
std::uint64_t itemKey(const GroupChild& c) {
  return (static_cast<std::uint64_t>(c.index) << 1) | (c.isGroup ? 1u : 0u);
}

struct PairHash {
  std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& p) const {
    return std::hash<std::uint64_t>()(p.first * 0x9E3779B97F4A7C15ull ^ p.second);
  }
};
} // namespace

ViewGraph buildViewGraph(const ViewState& state, const ViewOptions& options, int root) {
  const GraphGrouping& grouping = state.grouping();
  const std::vector<Group>& groups = grouping.groups();
  ViewGraph out;
  if (!state.isOpen(root)) return out;

  // Open groups of root's subtree, parents first (pre-order restricted to the subtree).
  std::vector<int> open;
  for (int g : state.openGroups())
    if (grouping.contains(root, g)) open.push_back(g);

  for (int g : open) {
    const std::string cluster = g == root ? std::string() : groupItemId(groups[g].path);
    if (g != root) {
      const ViewItem band = state.item({true, g});
      const LayoutSize size = measureItem(options, grouping, band);
      const int parent = groups[g].parent;
      out.graph.clusters.push_back({band.id, groups[g].path,
                                    parent == root ? std::string() : groupItemId(groups[parent].path),
                                    size.width, size.height});
      out.clusters.push_back(band);
    }
    for (const GroupChild& c : groups[g].children) {
      if (c.isGroup && state.isOpen(c.index)) continue; // a cluster, listed on its own
      ViewItem it = state.item(c);
      const LayoutSize size = measureItem(options, grouping, it);
      out.graph.nodes.push_back({it.id, size.width, size.height, cluster});
      out.items.push_back(std::move(it));
    }
  }

  std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::size_t, PairHash> edgeIndex;
  for (const auto& [u, v] : grouping.edges()) {
    if (root != 0 && (!grouping.contains(root, grouping.nodes()[u].group) ||
                      !grouping.contains(root, grouping.nodes()[v].group)))
      continue;
    const GroupChild a = state.itemOfNode(u), b = state.itemOfNode(v);
    const std::uint64_t ka = itemKey(a), kb = itemKey(b);
    if (ka == kb) continue;
    auto [it, inserted] = edgeIndex.emplace(std::make_pair(ka, kb), out.graph.edges.size());
    if (!inserted) {
      ++out.graph.edges[it->second].count;
      continue;
    }
    out.graph.edges.push_back({state.item(a).id, state.item(b).id, 1});
  }
  return out;
}

ViewGraph buildViewGraph(const GraphGrouping& grouping, const ExpandedGroups& expanded,
                         const ViewOptions& options) {
  return buildViewGraph(ViewState(grouping, expanded), options, 0);
}

} // namespace lattice
