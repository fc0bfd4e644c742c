// computeLayout: one Graphviz `dot` layout of a LayoutGraph, in-process through cgraph and gvc.
//
// Implements input validation, the translation to a cgraph graph (fixed-size empty boxes,
// clusters as `cluster_<i>` subgraphs whose label is an empty fixed-size HTML cell, so Graphviz
// reserves exactly the band the item will paint), the layout under one process-wide lock, and the
// read-back of node centres, edge splines and cluster boxes, flipped to y-down coordinates.
//
// Deliberately not here: anything about what the nodes mean (the view layer builds the graph),
// interrupting Graphviz (it cannot be; callers bound the graph size instead) and rendering.
// Graphviz is not thread-safe, so the lock covers every cgraph/gvc call, not only gvLayout.
// The GVC_t is created once with gvContext(), which finds Debian's installed plugins (dot
// layout included) through the plugin config file, and lives for the rest of the process.

#include "layout/GraphLayout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace lattice {

bool LayoutRect::contains(const LayoutRect& r, double tolerance) const {
  return r.left >= left - tolerance && r.top >= top - tolerance && r.right() <= right() + tolerance &&
         r.bottom() <= bottom() + tolerance;
}

bool LayoutRect::intersects(const LayoutRect& r, double tolerance) const {
  const double overlapX = std::min(right(), r.right()) - std::max(left, r.left);
  const double overlapY = std::min(bottom(), r.bottom()) - std::max(top, r.top);
  return overlapX > tolerance && overlapY > tolerance;
}

const char* rankDirName(RankDir dir) {
  switch (dir) {
  case RankDir::TopToBottom:
    return "TB";
  case RankDir::LeftToRight:
    return "LR";
  case RankDir::BottomToTop:
    return "BT";
  case RankDir::RightToLeft:
    return "RL";
  }
  return "TB";
}

const NodeBox* LayoutResult::findNode(const std::string& id) const {
  for (const NodeBox& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

const ClusterBox* LayoutResult::findCluster(const std::string& id) const {
  for (const ClusterBox& c : clusters)
    if (c.id == id) return &c;
  return nullptr;
}

namespace {

constexpr double kPointsPerInch = 72.0;

bool cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

Error cancelledError() {
  return makeError("layout cancelled", ErrorCode::Cancelled);
}

bool validSize(double v) {
  return std::isfinite(v) && v >= 0;
}

/// Indices of the input, checked: unique ids, known references, clusters ordered parent-first.
struct Index {
  std::unordered_map<std::string, std::size_t> node;
  std::unordered_map<std::string, std::size_t> cluster;
  std::vector<std::size_t> clusterOrder; ///< every cluster after its parent
};

Expected<Index> validate(const LayoutGraph& g) {
  Index ix;
  for (std::size_t i = 0; i < g.clusters.size(); ++i) {
    const LayoutCluster& c = g.clusters[i];
    if (!ix.cluster.emplace(c.id, i).second) return makeError("layout: duplicate cluster id '" + c.id + "'");
    if (!validSize(c.labelWidth) || !validSize(c.labelHeight))
      return makeError("layout: cluster '" + c.id + "' has an invalid label size");
  }
  // Parent-first order by depth; a parent chain longer than the cluster count is a cycle.
  std::vector<std::size_t> depth(g.clusters.size(), 0);
  for (std::size_t i = 0; i < g.clusters.size(); ++i) {
    std::size_t d = 0;
    for (std::string p = g.clusters[i].parent; !p.empty(); p = g.clusters[ix.cluster[p]].parent) {
      auto it = ix.cluster.find(p);
      if (it == ix.cluster.end())
        return makeError("layout: cluster '" + g.clusters[i].id + "' has unknown parent '" + p + "'");
      if (++d > g.clusters.size())
        return makeError("layout: cluster '" + g.clusters[i].id + "' is its own ancestor");
    }
    depth[i] = d;
  }
  ix.clusterOrder.resize(g.clusters.size());
  for (std::size_t i = 0; i < ix.clusterOrder.size(); ++i)
    ix.clusterOrder[i] = i;
  std::stable_sort(ix.clusterOrder.begin(), ix.clusterOrder.end(),
                   [&](std::size_t a, std::size_t b) { return depth[a] < depth[b]; });

  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const LayoutNode& n = g.nodes[i];
    if (!ix.node.emplace(n.id, i).second) return makeError("layout: duplicate node id '" + n.id + "'");
    if (!validSize(n.width) || !validSize(n.height))
      return makeError("layout: node '" + n.id + "' has an invalid size");
    if (!n.cluster.empty() && !ix.cluster.count(n.cluster))
      return makeError("layout: node '" + n.id + "' is in unknown cluster '" + n.cluster + "'");
  }
  for (const LayoutEdge& e : g.edges) {
    if (!ix.node.count(e.from))
      return makeError("layout: edge '" + e.from + "' -> '" + e.to + "' starts at an unknown node");
    if (!ix.node.count(e.to))
      return makeError("layout: edge '" + e.from + "' -> '" + e.to + "' ends at an unknown node");
  }
  return ix;
}

// ---------------------------------------------------------------------------------------------
// Graphviz session: everything below runs under gGraphvizMutex.

std::mutex gGraphvizMutex;
std::string gGraphvizMessages; // filled by the cgraph error callback while the lock is held

int collectGraphvizMessage(char* message) {
  if (!message) return 0;
  std::string m(message);
  while (!m.empty() && (m.back() == '\n' || m.back() == ' '))
    m.pop_back();
  if (!m.empty()) {
    if (!gGraphvizMessages.empty()) gGraphvizMessages += "; ";
    gGraphvizMessages += m;
  }
  return 0;
}

GVC_t* sharedContext() {
  static GVC_t* context = gvContext(); // process lifetime on purpose: plugins load once
  return context;
}

std::string inches(double points) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", points / kPointsPerInch);
  return buf;
}

std::string pointsText(double points) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", points);
  return buf;
}

/// An HTML label that is one empty cell of exactly w × h points: Graphviz reserves the space.
std::string reservedLabel(double w, double h) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLPADDING=\"0\" CELLSPACING=\"0\"><TR>"
                "<TD FIXEDSIZE=\"TRUE\" WIDTH=\"%d\" HEIGHT=\"%d\"></TD></TR></TABLE>",
                static_cast<int>(std::ceil(std::max(1.0, w))), static_cast<int>(std::ceil(std::max(1.0, h))));
  return buf;
}

void set(void* obj, const char* name, const std::string& value) {
  agsafeset(obj, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

/// Frees the layout and closes the graph on every path out of the session. gvFreeLayout frees
/// whatever gvLayout got to allocate, and is a no-op on a graph that was never laid out, so it
/// needs no record of how far the session came.
struct GraphGuard {
  GVC_t* gvc;
  Agraph_t* g = nullptr;
  ~GraphGuard() {
    if (!g) return;
    gvFreeLayout(gvc, g);
    agclose(g);
  }
};

/// Maps Graphviz points (y up, origin anywhere) to result points (y down, bounds at 0,0).
struct Flip {
  double left;
  double top;
  LayoutPoint operator()(pointf p) const { return {p.x - left, top - p.y}; }
};

LayoutRect flipBox(const Flip& f, boxf b) {
  const LayoutPoint ll = f(b.LL), ur = f(b.UR);
  return {ll.x, ur.y, ur.x - ll.x, ll.y - ur.y};
}

/// Graphviz's spline list as one path: normally one Bézier; several (rare: concentrated or
/// clipped edges) are joined with straight cubic segments so the path stays 1 + 3k points.
void readSpline(const Flip& flip, Agedge_t* e, EdgePath& out) {
  const splines* spl = ED_spl(e);
  if (!spl) return;
  for (int i = 0; i < spl->size; ++i) {
    const bezier& bz = spl->list[i];
    if (bz.size <= 0) continue;
    if (!out.points.empty()) {
      const LayoutPoint a = out.points.back(), b = flip(bz.list[0]);
      out.points.push_back({a.x + (b.x - a.x) / 3, a.y + (b.y - a.y) / 3});
      out.points.push_back({a.x + 2 * (b.x - a.x) / 3, a.y + 2 * (b.y - a.y) / 3});
      out.points.push_back(b);
      for (int k = 1; k < bz.size; ++k)
        out.points.push_back(flip(bz.list[k]));
    } else {
      for (int k = 0; k < bz.size; ++k)
        out.points.push_back(flip(bz.list[k]));
    }
    if (bz.sflag && !out.arrowTail) out.arrowTail = flip(bz.sp);
    if (bz.eflag) out.arrowHead = flip(bz.ep);
  }
}

Expected<LayoutResult> runGraphviz(const LayoutGraph& input, const Index& ix, const LayoutOptions& opt) {
  std::lock_guard<std::mutex> lock(gGraphvizMutex);
  gGraphvizMessages.clear();
  agseterrf(&collectGraphvizMessage);
  GVC_t* gvc = sharedContext();
  if (!gvc) return makeError("layout: cannot create the graphviz context");

  GraphGuard guard{gvc};
  Agdesc_t desc = Agdirected;
  guard.g = agopen(const_cast<char*>("layout"), desc, nullptr);
  Agraph_t* g = guard.g;
  if (!g) return makeError("layout: graphviz cannot create a graph");

  set(g, "rankdir", rankDirName(opt.rankDir));
  set(g, "nodesep", inches(opt.nodeSep));
  set(g, "ranksep", inches(opt.rankSep));
  agattr(g, AGRAPH, const_cast<char*>("margin"), const_cast<char*>(""));
  agattr(g, AGRAPH, const_cast<char*>("label"), const_cast<char*>(""));
  agattr(g, AGNODE, const_cast<char*>("shape"), const_cast<char*>("box"));
  agattr(g, AGNODE, const_cast<char*>("fixedsize"), const_cast<char*>("true"));
  agattr(g, AGNODE, const_cast<char*>("label"), const_cast<char*>(""));
  Agsym_t* widthSym = agattr(g, AGNODE, const_cast<char*>("width"), const_cast<char*>("0.75"));
  Agsym_t* heightSym = agattr(g, AGNODE, const_cast<char*>("height"), const_cast<char*>("0.5"));

  std::vector<Agraph_t*> clusters(input.clusters.size(), nullptr);
  const std::string margin = pointsText(opt.clusterMargin);
  for (std::size_t i : ix.clusterOrder) {
    const LayoutCluster& c = input.clusters[i];
    Agraph_t* parent = c.parent.empty() ? g : clusters[ix.cluster.at(c.parent)];
    const std::string name = "cluster_" + std::to_string(i);
    clusters[i] = agsubg(parent, const_cast<char*>(name.c_str()), 1);
    set(clusters[i], "margin", margin);
    if (c.labelWidth > 0 || c.labelHeight > 0) {
      std::string html = reservedLabel(c.labelWidth, c.labelHeight);
      agset(clusters[i], const_cast<char*>("label"), agstrdup_html(g, const_cast<char*>(html.c_str())));
    }
  }

  std::vector<Agnode_t*> nodes(input.nodes.size(), nullptr);
  for (std::size_t i = 0; i < input.nodes.size(); ++i) {
    const LayoutNode& n = input.nodes[i];
    Agraph_t* owner = n.cluster.empty() ? g : clusters[ix.cluster.at(n.cluster)];
    nodes[i] = agnode(owner, const_cast<char*>(n.id.c_str()), 1);
    agxset(nodes[i], widthSym, const_cast<char*>(inches(n.width).c_str()));
    agxset(nodes[i], heightSym, const_cast<char*>(inches(n.height).c_str()));
  }
  std::vector<Agedge_t*> edges(input.edges.size(), nullptr);
  for (std::size_t i = 0; i < input.edges.size(); ++i) {
    const LayoutEdge& e = input.edges[i];
    edges[i] = agedge(g, nodes[ix.node.at(e.from)], nodes[ix.node.at(e.to)], nullptr, 1);
    if (!edges[i]) return makeError("layout: graphviz cannot create edge '" + e.from + "' -> '" + e.to + "'");
  }

  if (gvLayout(gvc, g, "dot") != 0) {
    std::string why = gGraphvizMessages.empty() ? std::string("unknown error") : gGraphvizMessages;
    return makeError("layout: graphviz 'dot' layout failed: " + why);
  }

  const boxf bb = GD_bb(g);
  const Flip flip{bb.LL.x, bb.UR.y};
  LayoutResult r;
  r.bounds = {0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y};
  r.nodes.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const LayoutNode& n = input.nodes[i];
    const LayoutPoint c = flip(ND_coord(nodes[i]));
    r.nodes.push_back({n.id, c.x, c.y, n.width, n.height});
  }
  r.edges.reserve(edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const LayoutEdge& e = input.edges[i];
    EdgePath path{e.from, e.to, e.count, {}, std::nullopt, std::nullopt};
    readSpline(flip, edges[i], path);
    r.edges.push_back(std::move(path));
  }
  r.clusters.reserve(clusters.size());
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    const LayoutCluster& c = input.clusters[i];
    r.clusters.push_back({c.id, c.label, c.parent, flipBox(flip, GD_bb(clusters[i]))});
  }
  return r;
}

} // namespace

Expected<LayoutResult> computeLayout(const LayoutGraph& graph, const LayoutOptions& options,
                                     const std::atomic<bool>* cancel) {
  if (cancelled(cancel)) return cancelledError();
  Expected<Index> ix = validate(graph);
  if (!ix) return ix.error();
  if (!validSize(options.nodeSep) || !validSize(options.rankSep) || !validSize(options.clusterMargin))
    return makeError("layout: invalid spacing options");
  if (graph.nodes.empty()) return LayoutResult{};
  Expected<LayoutResult> r = runGraphviz(graph, *ix, options);
  if (cancelled(cancel)) return cancelledError();
  return r;
}

std::string graphvizVersion() {
  std::lock_guard<std::mutex> lock(gGraphvizMutex);
  const char* version = gvcVersion(sharedContext());
  return version ? version : "unknown";
}

} // namespace lattice
