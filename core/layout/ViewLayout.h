#pragma once
/// \file Layout of a whole view of a grouped FX graph, with every Graphviz call bounded in size.
///
/// Graphviz `dot` grows super-linearly with the number of nodes, so a view is
/// laid out in *units*. An open group whose visible subtree has at most `maxNodesPerLayout`
/// items is one unit laid out in one call, its open sub-groups as Graphviz clusters (edges reach
/// the real items inside). A bigger open group is a *nested* unit: each of its open sub-groups
/// is laid out first as a unit of its own, then the group lays out its direct children with
/// those sub-groups as fixed-size boxes (edges that enter such a box end at its border). Because
/// chunking (GraphGrouping.h) caps a group's children, no call exceeds the bound. Each unit's
/// result is cached by (group path, unit kind, expansion state of its subtree, options), so
/// expanding a group re-lays out only the units on the path from it to the root.

#include "layout/ViewGraph.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

namespace lattice {

/// Per-unit layouts, reusable across views of ONE GraphGrouping (a different grouping clears
/// it). Thread-safe; least recently used entries beyond `maxEntries` are dropped. Clear it when
/// the item measure changes (fonts): the key cannot see the measure function.
class LayoutCache {
public:
  explicit LayoutCache(std::size_t maxEntries = 1024);
  ~LayoutCache();
  LayoutCache(const LayoutCache&) = delete;
  LayoutCache& operator=(const LayoutCache&) = delete;

  void clear();
  std::size_t size() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  friend struct LayoutCacheAccess;
};

/// Figures of one layoutView call.
struct ViewLayoutStats {
  int units = 0;       ///< units the view consists of
  int layoutCalls = 0; ///< Graphviz calls made (cache misses)
  int cacheHits = 0;
  std::size_t largestUnit = 0; ///< most nodes in any unit of the view (cached or not)
};

/// A composed view in one y-down coordinate system (bounds at 0,0):
///  - `layout.nodes`: one box per visible item (FX node or collapsed group), ids as ViewGraph.h;
///    `items` parallels it.
///  - `layout.clusters`: one box per open group except the root (id `group:<path>`, label = the
///    path, parent = enclosing open group's id or ""), the top `measure(expanded item).height`
///    points of it being the label band; `clusters` parallels it.
///  - `layout.edges`: merged FX edges (`count` of them). Endpoints are item ids; an edge laid out
///    in a nested unit may end at an open group's id (a cluster box) instead of an item inside.
struct ViewLayout {
  LayoutResult layout;
  std::vector<ViewItem> items;
  std::vector<ViewItem> clusters;
  ViewLayoutStats stats;
};

/// Progress of layoutView: `done` of `total` units finished (called from the calling thread).
using LayoutProgress = std::function<void(int done, int total)>;

/// Lays out the view of `grouping` under `expanded`. `cache` may be null. `cancel` is checked
/// between units and around each Graphviz call ("layout cancelled"). Run it off the UI thread;
/// the cache may be shared by concurrent calls.
Expected<ViewLayout> layoutView(const GraphGrouping& grouping, const ExpandedGroups& expanded,
                                const ViewOptions& options = {}, LayoutCache* cache = nullptr,
                                const std::atomic<bool>* cancel = nullptr,
                                const LayoutProgress& progress = {});

} // namespace lattice
