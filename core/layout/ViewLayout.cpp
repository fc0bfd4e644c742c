// layoutView: the bounded, cached, nested layout of a view (the scheme is described in
// ViewLayout.h) and LayoutCache.
//
// Implements unit planning (flat vs nested), the routing of each merged FX edge to the one unit
// whose layout draws it, per-unit Graphviz calls through computeLayout with a cache keyed by
// the unit's subtree expansion, and the composition of unit results into one coordinate system.
//
// Deliberately not here: which groups are expanded (ViewGraph.cpp) and threading: the caller
// runs this off the UI thread and drops stale results; the cache is the only shared state.

#include "layout/ViewLayout.h"

#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace lattice {

namespace {

/// One unit's own Graphviz result plus what its boxes stand for.
struct UnitLayout {
  LayoutResult result;
  std::vector<GroupChild> nodeItems; ///< parallel to result.nodes
  std::vector<int> clusterGroups;    ///< parallel to result.clusters (flat units)
};

using UnitPtr = std::shared_ptr<const UnitLayout>;

} // namespace

struct LayoutCache::Impl {
  struct Entry {
    UnitPtr layout;
    std::uint64_t lastUse = 0;
  };
  mutable std::mutex mutex;
  std::size_t maxEntries;
  std::uint64_t groupingId = 0;
  std::uint64_t tick = 0;
  std::unordered_map<std::string, Entry> entries;

  void adopt(std::uint64_t id) { // under the lock
    if (groupingId != id) {
      entries.clear();
      groupingId = id;
    }
  }
  UnitPtr find(std::uint64_t id, const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex);
    adopt(id);
    auto it = entries.find(key);
    if (it == entries.end()) return nullptr;
    it->second.lastUse = ++tick;
    return it->second.layout;
  }
  void insert(std::uint64_t id, const std::string& key, UnitPtr layout) {
    std::lock_guard<std::mutex> lock(mutex);
    adopt(id);
    entries[key] = {std::move(layout), ++tick};
    while (entries.size() > maxEntries) {
      auto oldest = entries.begin();
      for (auto it = entries.begin(); it != entries.end(); ++it)
        if (it->second.lastUse < oldest->second.lastUse) oldest = it;
      entries.erase(oldest);
    }
  }
};

struct LayoutCacheAccess {
  static LayoutCache::Impl& impl(LayoutCache& c) { return *c.m_impl; }
};

LayoutCache::LayoutCache(std::size_t maxEntries) : m_impl(std::make_unique<Impl>()) {
  m_impl->maxEntries = std::max<std::size_t>(1, maxEntries);
}

LayoutCache::~LayoutCache() = default;

void LayoutCache::clear() {
  std::lock_guard<std::mutex> lock(m_impl->mutex);
  m_impl->entries.clear();
}

std::size_t LayoutCache::size() const {
  std::lock_guard<std::mutex> lock(m_impl->mutex);
  return m_impl->entries.size();
}

namespace {

enum class UnitKind : unsigned char { None, Flat, Nested };

std::uint64_t fnv(std::uint64_t h, const std::string& s) {
  for (unsigned char ch : s)
    h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

std::uint64_t fnvMix(std::uint64_t h, std::uint64_t v) {
  for (int i = 0; i < 8; ++i)
    h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ull;
  return h;
}

struct PairHash {
  std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& p) const {
    return std::hash<std::uint64_t>()(p.first * 0x9E3779B97F4A7C15ull ^ p.second);
  }
};

std::uint64_t itemKey(const GroupChild& c) {
  return (static_cast<std::uint64_t>(c.index) << 1) | (c.isGroup ? 1u : 0u);
}

/// Edges a nested unit draws between its direct children, merged.
struct UnitEdges {
  std::vector<std::pair<GroupChild, GroupChild>> ends;
  std::vector<int> counts;
  std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::size_t, PairHash> index;

  void add(const GroupChild& a, const GroupChild& b) {
    auto [it, inserted] = index.emplace(std::make_pair(itemKey(a), itemKey(b)), ends.size());
    if (inserted) {
      ends.emplace_back(a, b);
      counts.push_back(1);
    } else {
      ++counts[it->second];
    }
  }
};

class ViewLayouter {
public:
  ViewLayouter(const GraphGrouping& grouping, const ExpandedGroups& expanded, const ViewOptions& options)
      : m_g(grouping), m_groups(grouping.groups()), m_state(grouping, expanded), m_opt(options) {}

  Expected<ViewLayout> run(LayoutCache* cache, const std::atomic<bool>* cancel,
                           const LayoutProgress& progress);

private:
  void plan(int g);
  void routeEdges();
  GroupChild childOf(int unit, GroupChild x) const;
  LayoutSize band(int g) const { return measureItem(m_opt, m_g, m_state.item({true, g})); }
  LayoutSize nestedBoxSize(int g) const;
  std::string cacheKey(int g) const;
  Expected<UnitPtr> layoutUnit(int g, const std::atomic<bool>* cancel);
  void place(int g, double dx, double dy, const std::string& parentCluster, ViewLayout& out) const;

  const GraphGrouping& m_g;
  const std::vector<Group>& m_groups;
  ViewState m_state;
  const ViewOptions& m_opt;
  std::vector<UnitKind> m_kind;               ///< per group
  std::vector<int> m_units;                   ///< post-order: children before parents
  std::vector<std::uint64_t> m_signature;     ///< per open group: its subtree's expansion state
  std::unordered_map<int, UnitEdges> m_edges; ///< nested units only
  std::unordered_map<int, UnitPtr> m_done;
};

void ViewLayouter::plan(int g) {
  if (m_state.visibleCount(g) <= m_opt.maxNodesPerLayout) {
    m_kind[g] = UnitKind::Flat;
  } else {
    m_kind[g] = UnitKind::Nested;
    for (const GroupChild& c : m_groups[g].children)
      if (c.isGroup && m_state.isOpen(c.index)) plan(c.index); // recursion depth: module depth
  }
  m_units.push_back(g);
}

GroupChild ViewLayouter::childOf(int unit, GroupChild x) const {
  int h;
  if (!x.isGroup) {
    h = m_g.nodes()[x.index].group;
    if (h == unit) return x;
  } else {
    h = x.index;
  }
  while (m_groups[h].parent != unit)
    h = m_groups[h].parent;
  return {true, h};
}

void ViewLayouter::routeEdges() {
  // The unit drawing an edge is the nearest unit at or above the two items' common group.
  std::vector<int> unitOf(m_groups.size(), -1);
  for (int g : m_state.openGroups())
    unitOf[g] = m_kind[g] != UnitKind::None ? g : unitOf[m_groups[g].parent];
  for (const auto& [u, v] : m_g.edges()) {
    const GroupChild a = m_state.itemOfNode(u), b = m_state.itemOfNode(v);
    if (a.isGroup == b.isGroup && a.index == b.index) continue;
    auto container = [&](const GroupChild& x) {
      return x.isGroup ? m_groups[x.index].parent : m_g.nodes()[x.index].group;
    };
    const int unit = unitOf[m_g.commonGroup(container(a), container(b))];
    if (m_kind[unit] == UnitKind::Nested) m_edges[unit].add(childOf(unit, a), childOf(unit, b));
  }
}

LayoutSize ViewLayouter::nestedBoxSize(int g) const {
  const LayoutRect& inner = m_done.at(g)->result.bounds;
  const LayoutSize b = band(g);
  const double pad = m_opt.groupPadding;
  return {std::max(inner.width, b.width) + 2 * pad, b.height + inner.height + 2 * pad};
}

std::string ViewLayouter::cacheKey(int g) const {
  const LayoutOptions& l = m_opt.layout;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%c|%016llx|%s|%g|%g|%g|%g|%zu|", m_kind[g] == UnitKind::Flat ? 'F' : 'N',
                static_cast<unsigned long long>(m_signature[g]), rankDirName(l.rankDir), l.nodeSep, l.rankSep,
                l.clusterMargin, m_opt.groupPadding, m_opt.maxNodesPerLayout);
  return buf + m_groups[g].path;
}

Expected<UnitPtr> ViewLayouter::layoutUnit(int g, const std::atomic<bool>* cancel) {
  auto unit = std::make_shared<UnitLayout>();
  LayoutGraph graph;
  if (m_kind[g] == UnitKind::Flat) {
    ViewGraph vg = buildViewGraph(m_state, m_opt, g);
    graph = std::move(vg.graph);
    for (const ViewItem& it : vg.items)
      unit->nodeItems.push_back({it.kind == ViewItemKind::Group, it.index});
    for (const ViewItem& it : vg.clusters)
      unit->clusterGroups.push_back(it.index);
  } else {
    for (const GroupChild& c : m_groups[g].children) {
      const ViewItem it = m_state.item(c);
      const LayoutSize size = it.expanded ? nestedBoxSize(c.index) : measureItem(m_opt, m_g, it);
      graph.nodes.push_back({it.id, size.width, size.height, {}});
      unit->nodeItems.push_back(c);
    }
    auto e = m_edges.find(g);
    if (e != m_edges.end())
      for (std::size_t i = 0; i < e->second.ends.size(); ++i)
        graph.edges.push_back({m_state.item(e->second.ends[i].first).id,
                               m_state.item(e->second.ends[i].second).id, e->second.counts[i]});
  }
  Expected<LayoutResult> r = computeLayout(graph, m_opt.layout, cancel);
  if (!r) {
    const std::string where =
        m_groups[g].path.empty() ? "the root group" : "group '" + m_groups[g].path + "'";
    if (r.code() == ErrorCode::Cancelled) return r.error();
    return makeError(r.message() + " (laying out " + where + ")");
  }
  unit->result = std::move(*r);
  return UnitPtr(std::move(unit));
}

void ViewLayouter::place(int g, double dx, double dy, const std::string& parentCluster,
                         ViewLayout& out) const {
  const UnitLayout& u = *m_done.at(g);
  const LayoutResult& r = u.result;
  const bool nested = m_kind[g] == UnitKind::Nested;
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    const ViewItem it = m_state.item(u.nodeItems[i]);
    NodeBox box = r.nodes[i];
    box.cx += dx;
    box.cy += dy;
    if (nested && it.expanded) {
      const LayoutRect rect = box.rect();
      const int c = it.index;
      out.layout.clusters.push_back({it.id, m_groups[c].path, parentCluster, rect});
      out.clusters.push_back(it);
      const LayoutRect& inner = m_done.at(c)->result.bounds;
      const double pad = m_opt.groupPadding;
      place(c, rect.left + (rect.width - inner.width) / 2, rect.top + band(c).height + pad, it.id, out);
      continue;
    }
    out.layout.nodes.push_back(std::move(box));
    out.items.push_back(it);
  }
  for (std::size_t i = 0; i < r.clusters.size(); ++i) {
    ClusterBox c = r.clusters[i];
    c.box.left += dx;
    c.box.top += dy;
    if (c.parent.empty()) c.parent = parentCluster;
    out.layout.clusters.push_back(std::move(c));
    out.clusters.push_back(m_state.item({true, u.clusterGroups[i]}));
  }
  for (EdgePath e : r.edges) {
    for (LayoutPoint& p : e.points) {
      p.x += dx;
      p.y += dy;
    }
    for (std::optional<LayoutPoint>* p : {&e.arrowHead, &e.arrowTail})
      if (*p) {
        (*p)->x += dx;
        (*p)->y += dy;
      }
    out.layout.edges.push_back(std::move(e));
  }
}

Expected<ViewLayout> ViewLayouter::run(LayoutCache* cache, const std::atomic<bool>* cancel,
                                       const LayoutProgress& progress) {
  m_kind.assign(m_groups.size(), UnitKind::None);
  plan(0);
  routeEdges();

  // Subtree expansion signatures, children before parents.
  m_signature.assign(m_groups.size(), 0);
  const std::vector<int>& open = m_state.openGroups();
  for (auto it = open.rbegin(); it != open.rend(); ++it) {
    std::uint64_t h = fnv(0xcbf29ce484222325ull, m_groups[*it].path);
    for (const GroupChild& c : m_groups[*it].children)
      if (c.isGroup && m_state.isOpen(c.index)) h = fnvMix(h, m_signature[c.index]);
    m_signature[*it] = h;
  }

  ViewLayout out;
  const int total = static_cast<int>(m_units.size());
  out.stats.units = total;
  auto* shared = cache ? &LayoutCacheAccess::impl(*cache) : nullptr;
  int done = 0;
  for (int g : m_units) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return makeError("layout cancelled", ErrorCode::Cancelled);
    const std::string key = shared ? cacheKey(g) : std::string();
    UnitPtr unit = shared ? shared->find(m_g.id(), key) : nullptr;
    if (unit) {
      ++out.stats.cacheHits;
    } else {
      Expected<UnitPtr> made = layoutUnit(g, cancel);
      if (!made) return made.error();
      unit = std::move(*made);
      ++out.stats.layoutCalls;
      if (shared) shared->insert(m_g.id(), key, unit);
    }
    out.stats.largestUnit = std::max(out.stats.largestUnit, unit->result.nodes.size());
    m_done[g] = std::move(unit);
    if (progress) progress(++done, total);
  }

  place(0, 0, 0, std::string(), out);
  out.layout.bounds = m_done.at(0)->result.bounds;
  return out;
}

} // namespace

Expected<ViewLayout> layoutView(const GraphGrouping& grouping, const ExpandedGroups& expanded,
                                const ViewOptions& options, LayoutCache* cache,
                                const std::atomic<bool>* cancel, const LayoutProgress& progress) {
  return ViewLayouter(grouping, expanded, options).run(cache, cancel, progress);
}

} // namespace lattice
