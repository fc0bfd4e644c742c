// ArtifactLayout: the Graphviz call for small op graphs and the layered fallback for large
// ones. The fallback is deliberately simple (one barycentre sweep, no crossing minimisation
// beyond it, no edge routing): it exists so that 30 000 ops lay out in well under a second.

#include "layout/ArtifactLayout.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace lattice {

namespace {

constexpr double kNodeSep = 22;
constexpr double kRankSep = 34;
constexpr double kBandGap = 80;
constexpr int kMinBandRanks = 60;
constexpr double kArrow = 7;

bool cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load();
}

/// Ranks by longest path from the sources; then sources that feed something move down to just
/// above their first-ranked consumer (weights sit next to the op using them, not all on top).
std::vector<int> computeRanks(const OpLayoutGraph& graph) {
  const auto n = graph.nodeCount;
  std::vector<int> rank(n, 0);
  std::vector<std::vector<int>> in(n);
  std::vector<std::vector<int>> out(n);
  for (const OpLayoutEdge& e : graph.edges) {
    in[static_cast<std::size_t>(e.to)].push_back(e.from);
    out[static_cast<std::size_t>(e.from)].push_back(e.to);
  }
  // Producers always precede consumers (values are defined before use), so one pass in node
  // order is a topological pass.
  for (std::size_t v = 0; v < n; ++v)
    for (int u : in[v])
      rank[v] = std::max(rank[v], rank[static_cast<std::size_t>(u)] + 1);
  for (std::size_t v = 0; v < n; ++v) {
    if (!in[v].empty() || out[v].empty()) continue;
    int lowest = INT32_MAX;
    for (int c : out[v])
      lowest = std::min(lowest, rank[static_cast<std::size_t>(c)]);
    rank[v] = std::max(0, lowest - 1);
  }
  return rank;
}

} // namespace

LayoutResult layeredLayout(const OpLayoutGraph& graph, const std::vector<LayoutSize>& sizes,
                           const std::atomic<bool>* cancel) {
  LayoutResult result;
  const std::size_t n = graph.nodeCount;
  if (n == 0) return result;
  const std::vector<int> rank = computeRanks(graph);
  const int rankCount = *std::max_element(rank.begin(), rank.end()) + 1;

  std::vector<std::vector<int>> byRank(static_cast<std::size_t>(rankCount));
  for (std::size_t v = 0; v < n; ++v)
    byRank[static_cast<std::size_t>(rank[v])].push_back(static_cast<int>(v));
  std::vector<std::vector<int>> in(n);
  std::vector<int> firstConsumer(n, -1);
  for (const OpLayoutEdge& e : graph.edges) {
    in[static_cast<std::size_t>(e.to)].push_back(e.from);
    if (firstConsumer[static_cast<std::size_t>(e.from)] < 0)
      firstConsumer[static_cast<std::size_t>(e.from)] = e.to;
  }
  if (cancelled(cancel)) return result;

  // Horizontal placement, rank by rank: each node wants the mean x of its producers; a source
  // wants the mean of its consumer's other (placed or already wanted) producers. Overlaps are
  // pushed right, then the rank is shifted back so its mean sits where the nodes wanted it.
  std::vector<double> x(n, 0.0);
  std::vector<double> desired(n, 0.0);
  std::vector<char> known(n, 0);
  double widestRank = 0;
  for (const std::vector<int>& members : byRank) {
    std::vector<int> sources;
    for (int v : members) {
      const auto& producers = in[static_cast<std::size_t>(v)];
      if (producers.empty()) {
        sources.push_back(v);
        continue;
      }
      double sum = 0;
      for (int u : producers)
        sum += x[static_cast<std::size_t>(u)];
      desired[static_cast<std::size_t>(v)] = sum / static_cast<double>(producers.size());
      known[static_cast<std::size_t>(v)] = 1;
    }
    for (int v : sources) {
      const int c = firstConsumer[static_cast<std::size_t>(v)];
      double sum = 0;
      int count = 0;
      if (c >= 0)
        for (int u : in[static_cast<std::size_t>(c)])
          if (known[static_cast<std::size_t>(u)] && u != v) {
            sum += rank[static_cast<std::size_t>(u)] < rank[static_cast<std::size_t>(v)]
                       ? x[static_cast<std::size_t>(u)]
                       : desired[static_cast<std::size_t>(u)];
            ++count;
          }
      desired[static_cast<std::size_t>(v)] = count ? sum / count : 0.0;
      known[static_cast<std::size_t>(v)] = 1;
    }
    std::vector<int> order = members;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return desired[static_cast<std::size_t>(a)] < desired[static_cast<std::size_t>(b)];
    });
    double right = -1e300;
    double shift = 0;
    for (int v : order) {
      const double half = sizes[static_cast<std::size_t>(v)].width / 2;
      const double cx = std::max(desired[static_cast<std::size_t>(v)], right + kNodeSep + half);
      x[static_cast<std::size_t>(v)] = cx;
      right = cx + half;
      shift += desired[static_cast<std::size_t>(v)] - cx;
    }
    shift /= static_cast<double>(order.size());
    for (int v : order)
      x[static_cast<std::size_t>(v)] += shift;
    const double left =
        x[static_cast<std::size_t>(order.front())] - sizes[static_cast<std::size_t>(order.front())].width / 2;
    widestRank = std::max(widestRank, right + shift - left);
  }
  if (cancelled(cancel)) return result;

  // Bands of consecutive ranks side by side, aiming at a drawing about 1.5 times as wide as
  // high: ranks per band B with (ranks / B) * bandWidth ≈ 1.5 * B * rankHeight.
  std::vector<double> rankHeight(static_cast<std::size_t>(rankCount), 0.0);
  for (std::size_t v = 0; v < n; ++v)
    rankHeight[static_cast<std::size_t>(rank[v])] =
        std::max(rankHeight[static_cast<std::size_t>(rank[v])], sizes[v].height);
  const double meanRank = std::accumulate(rankHeight.begin(), rankHeight.end(), 0.0) / rankCount + kRankSep;
  int bandRanks = rankCount;
  if (rankCount > 2 * kMinBandRanks) {
    const double b = std::sqrt(rankCount * std::max(widestRank, 100.0) / (1.5 * meanRank));
    bandRanks = std::clamp(static_cast<int>(std::ceil(b)), kMinBandRanks, rankCount);
  }

  result.nodes.resize(n);
  std::vector<double> rankTop(static_cast<std::size_t>(rankCount), 0.0);
  double bandLeft = 0;
  double totalHeight = 0;
  for (int first = 0; first < rankCount; first += bandRanks) {
    const int last = std::min(rankCount, first + bandRanks);
    double minX = 1e300;
    double maxX = -1e300;
    double y = 0;
    for (int r = first; r < last; ++r) {
      rankTop[static_cast<std::size_t>(r)] = y;
      y += rankHeight[static_cast<std::size_t>(r)] + kRankSep;
      for (int v : byRank[static_cast<std::size_t>(r)]) {
        const double half = sizes[static_cast<std::size_t>(v)].width / 2;
        minX = std::min(minX, x[static_cast<std::size_t>(v)] - half);
        maxX = std::max(maxX, x[static_cast<std::size_t>(v)] + half);
      }
    }
    totalHeight = std::max(totalHeight, y - kRankSep);
    for (int r = first; r < last; ++r)
      for (int v : byRank[static_cast<std::size_t>(r)]) {
        const auto i = static_cast<std::size_t>(v);
        NodeBox& box = result.nodes[i];
        box.id = std::to_string(v);
        box.width = sizes[i].width;
        box.height = sizes[i].height;
        box.cx = bandLeft + (x[i] - minX);
        // Centred in its rank's row.
        box.cy = rankTop[static_cast<std::size_t>(r)] + rankHeight[static_cast<std::size_t>(r)] / 2;
      }
    bandLeft += (maxX - minX) + kBandGap;
  }
  if (cancelled(cancel)) return result;

  result.edges.reserve(graph.edges.size());
  for (const OpLayoutEdge& e : graph.edges) {
    const NodeBox& a = result.nodes[static_cast<std::size_t>(e.from)];
    const NodeBox& b = result.nodes[static_cast<std::size_t>(e.to)];
    EdgePath path;
    path.from = a.id;
    path.to = b.id;
    // The curve stops an arrow's length above the consumer; the arrowhead fills the gap (as
    // Graphviz's `e,x,y` does), which also spares the view measuring 100 000 curves.
    const LayoutPoint p0{a.cx, a.cy + a.height / 2};
    const LayoutPoint tip{b.cx, b.cy - b.height / 2};
    const LayoutPoint p3{tip.x, tip.y - kArrow};
    const double dy = std::max(kRankSep, std::abs(p3.y - p0.y) / 2);
    path.points = {p0, {p0.x, p0.y + dy}, {p3.x, p3.y - dy}, p3};
    path.arrowHead = tip;
    result.edges.push_back(std::move(path));
  }
  result.bounds = {0, 0, std::max(0.0, bandLeft - kBandGap), totalHeight};
  return result;
}

Expected<ArtifactLayout> layoutArtifactGraph(const OpLayoutGraph& graph, const std::vector<LayoutSize>& sizes,
                                             const std::atomic<bool>* cancel, bool forceLayered) {
  if (sizes.size() != graph.nodeCount)
    return makeError("artifact layout: " + std::to_string(sizes.size()) + " sizes for " +
                     std::to_string(graph.nodeCount) + " nodes");
  for (const OpLayoutEdge& e : graph.edges)
    if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= graph.nodeCount ||
        static_cast<std::size_t>(e.to) >= graph.nodeCount)
      return makeError("artifact layout: edge " + std::to_string(e.from) + " -> " + std::to_string(e.to) +
                       " names no node of " + std::to_string(graph.nodeCount));
  ArtifactLayout out;
  if (forceLayered || graph.nodeCount > kMaxGraphvizNodes) {
    out.method = ArtifactLayoutMethod::Layered;
    out.result = layeredLayout(graph, sizes, cancel);
    if (cancelled(cancel)) return makeError("layout cancelled", ErrorCode::Cancelled);
    return out;
  }
  LayoutGraph input;
  input.nodes.reserve(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    LayoutNode node;
    node.id = std::to_string(i);
    node.width = sizes[i].width;
    node.height = sizes[i].height;
    input.nodes.push_back(std::move(node));
  }
  input.edges.reserve(graph.edges.size());
  for (const OpLayoutEdge& e : graph.edges)
    input.edges.push_back({std::to_string(e.from), std::to_string(e.to), 1});
  LayoutOptions options;
  options.nodeSep = kNodeSep;
  options.rankSep = kRankSep;
  Expected<LayoutResult> laid = computeLayout(input, options, cancel);
  if (!laid) return laid.error();
  out.method = ArtifactLayoutMethod::Graphviz;
  out.result = std::move(*laid);
  return out;
}

} // namespace lattice
