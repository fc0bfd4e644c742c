// lattice-layout-bench: timings of the graph view's layout path (against its targets), median of N
// runs after one warm-up, each run with a fresh layout cache:
//   - example:chain:10000 "open to interactive view" = trace + grouping + default expansion +
//     layoutView (target < 3 s); the model load (building 10 000 blocks' weights) is reported
//     on its own, it happens before the view is asked for;
//   - expanding one group of that view (target < 1 s): the first expansion past the 800-item
//     budget (the view switches to nested units), a further range, and a block inside a range;
//   - example:sparse_resunet42 fully expanded (one flat layout with 62 clusters);
//   - one flat Graphviz call on chains of 200 / 400 / 800 nodes, for the per-call bound.
// Run on demand; it is not a test.
//
//   lattice-layout-bench [--runs N]

#include "BenchSupport.h"

#include "layout/ViewLayout.h"
#include "model/LoadModel.h"
#include "trace/Tracer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

using namespace lattice;

namespace {

using bench::Clock;
using bench::median;
using bench::msSince;

[[noreturn]] void fail(const std::string& what, const std::string& message) {
  std::fprintf(stderr, "lattice-layout-bench: %s: %s\n", what.c_str(), message.c_str());
  std::exit(1);
}

template <typename T> T orFail(Expected<T> e, const std::string& what) {
  if (!e) fail(what, e.message());
  return std::move(*e);
}

/// Median of `runs` timings of `fn` (which returns its own measured milliseconds) after a warm-up.
double medianOf(int runs, const std::function<double()>& fn) {
  std::vector<double> times;
  for (int i = 0; i <= runs; ++i) {
    const double ms = fn();
    if (i > 0) times.push_back(ms);
  }
  return median(times);
}

void row(const char* what, double ms, const char* target, const std::string& note = {}) {
  std::printf("%-46s %9.1f ms  %-8s %s\n", what, ms, target, note.c_str());
}

std::string statsNote(const ViewLayout& v) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%zu items, %d units, %d Graphviz calls, largest %zu nodes", v.items.size(),
                v.stats.units, v.stats.layoutCalls, v.stats.largestUnit);
  return buf;
}

void benchChain(int runs) {
  const auto t0 = Clock::now();
  const Model model = orFail(loadModel("example:chain:10000"), "example:chain:10000");
  row("chain:10000 model load (not part of open)", msSince(t0), "");

  double traceMs = 0, groupMs = 0, layoutMs = 0;
  ViewLayout initial;
  const double open = medianOf(runs, [&] {
    const auto a = Clock::now();
    auto graph = orFail(LatticeTracer().trace(model), "trace chain:10000");
    const auto b = Clock::now();
    const GraphGrouping grouping = GraphGrouping::build(*graph);
    const ExpandedGroups expanded = defaultExpansion(grouping);
    const auto c = Clock::now();
    LayoutCache cache;
    initial = orFail(layoutView(grouping, expanded, {}, &cache), "layout chain:10000");
    traceMs = std::chrono::duration<double, std::milli>(b - a).count();
    groupMs = std::chrono::duration<double, std::milli>(c - b).count();
    layoutMs = msSince(c);
    return msSince(a);
  });
  row("chain:10000 open to interactive view", open, "< 3000", statsNote(initial));
  row("  last run: trace", traceMs, "");
  row("  last run: grouping + default expansion", groupMs, "");
  row("  last run: layoutView", layoutMs, "");

  auto graph = orFail(LatticeTracer().trace(model), "trace chain:10000");
  const GraphGrouping grouping = GraphGrouping::build(*graph);
  struct Step {
    const char* label;
    const char* path;
  };
  const Step steps[] = {{"chain:10000 expand blocks[700..799] (to nested)", "blocks[700..799]"},
                        {"chain:10000 then expand blocks[800..899]", "blocks[800..899]"},
                        {"chain:10000 then expand blocks.850", "blocks.850"}};
  std::vector<std::vector<double>> times(std::size(steps));
  std::vector<ViewLayout> last(std::size(steps));
  for (int run = 0; run <= runs; ++run) {
    LayoutCache cache;
    ExpandedGroups expanded = defaultExpansion(grouping);
    orFail(layoutView(grouping, expanded, {}, &cache), "layout chain:10000");
    for (std::size_t s = 0; s < std::size(steps); ++s) {
      const auto t = Clock::now();
      if (!expandGroup(grouping, expanded, steps[s].path)) fail("expand", steps[s].path);
      last[s] = orFail(layoutView(grouping, expanded, {}, &cache), std::string("expand ") + steps[s].path);
      if (run > 0) times[s].push_back(msSince(t));
    }
  }
  for (std::size_t s = 0; s < std::size(steps); ++s)
    row(steps[s].label, median(times[s]), "< 1000", statsNote(last[s]));
}

void benchResUNet(int runs) {
  const Model model = orFail(loadModel("example:sparse_resunet42"), "example:sparse_resunet42");
  auto graph = orFail(LatticeTracer().trace(model), "trace sparse_resunet42");
  const GraphGrouping grouping = GraphGrouping::build(*graph);
  ExpandedGroups all;
  for (const Group& g : grouping.groups())
    all.insert(g.path);
  ViewLayout v;
  const double ms = medianOf(runs, [&] {
    const auto t = Clock::now();
    v = orFail(layoutView(grouping, all), "layout sparse_resunet42");
    return msSince(t);
  });
  row("sparse_resunet42 full layout", ms, "",
      statsNote(v) + ", " + std::to_string(v.clusters.size()) + " clusters");
}

void benchFlatCalls(int runs) {
  for (int n : {200, 400, 800}) {
    LayoutGraph g;
    for (int i = 0; i < n; ++i) {
      g.nodes.push_back({"n" + std::to_string(i), 120, 28, {}});
      if (i) g.edges.push_back({"n" + std::to_string(i - 1), "n" + std::to_string(i), 1});
    }
    const double ms = medianOf(runs, [&] {
      const auto t = Clock::now();
      orFail(computeLayout(g), "flat chain");
      return msSince(t);
    });
    const std::string label = "one Graphviz call, chain of " + std::to_string(n) + " nodes";
    row(label.c_str(), ms, "");
  }
}

} // namespace

int main(int argc, char** argv) {
  int runs = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: lattice-layout-bench [--runs N]\n");
      return 2;
    }
  }
  std::printf("lattice-layout-bench: median of %d runs after one warm-up\n", runs);
  benchChain(runs);
  benchResUNet(runs);
  benchFlatCalls(runs);
  return 0;
}
