// LayoutController: request bookkeeping (generations, cancel flags, the unit cache per
// grouping) and the worker functions. It does not build scene items (GraphScene does) and it
// never measures fonts on a worker thread (the caller passes Measures).

#include "graph/LayoutController.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <optional>

namespace lattice::studio {

struct LayoutController::Job {
  std::shared_ptr<const GraphGrouping> grouping;
  ExpandedGroups expanded;
  std::shared_ptr<const Measures> measures;
  std::shared_ptr<LayoutCache> cache;
  bool flat = false;

  std::atomic<bool> cancel{false};
  std::atomic<int> done{0};
  std::atomic<int> total{0};

  std::shared_ptr<ViewLayout> result;
  std::string error;
};

namespace {

ItemMeasure measureFrom(std::shared_ptr<const LayoutController::Measures> m) {
  return [m](const GraphGrouping&, const ViewItem& item) -> LayoutSize {
    if (item.kind == ViewItemKind::Node) return m->nodes[static_cast<std::size_t>(item.index)];
    const auto i = static_cast<std::size_t>(item.index);
    return item.expanded ? m->groupBands[i] : m->groupBoxes[i];
  };
}

/// Every FX node in one Graphviz call, no clusters.
Expected<ViewLayout> layoutFlat(const GraphGrouping& grouping, const LayoutController::Measures& m,
                                const ViewOptions& options, const std::atomic<bool>* cancel) {
  const std::size_t count = grouping.nodes().size();
  if (count > options.maxNodesPerLayout)
    return makeError("the flat view lays out at most " + std::to_string(options.maxNodesPerLayout) +
                     " nodes in one call; this graph has " + std::to_string(count) +
                     " (use the hierarchical view)");
  ViewLayout out;
  LayoutGraph graph;
  graph.nodes.reserve(count);
  out.items.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    ViewItem item;
    item.kind = ViewItemKind::Node;
    item.index = static_cast<int>(i);
    item.id = nodeItemId(grouping.nodes()[i].name);
    LayoutNode node;
    node.id = item.id;
    node.width = m.nodes[i].width;
    node.height = m.nodes[i].height;
    graph.nodes.push_back(std::move(node));
    out.items.push_back(std::move(item));
  }
  for (const auto& [from, to] : grouping.edges())
    graph.edges.push_back(
        {graph.nodes[static_cast<std::size_t>(from)].id, graph.nodes[static_cast<std::size_t>(to)].id, 1});
  Expected<LayoutResult> result = computeLayout(graph, options.layout, cancel);
  if (!result) return result.error();
  out.layout = std::move(*result);
  out.stats.units = 1;
  out.stats.layoutCalls = 1;
  out.stats.largestUnit = count;
  return out;
}

void runJob(LayoutController::Job* job) {
  ViewOptions options = LayoutController::viewOptions();
  options.measure = measureFrom(job->measures);
  Expected<ViewLayout> layout = makeError("layout did not run");
  if (job->flat) {
    job->total = 1;
    layout = layoutFlat(*job->grouping, *job->measures, options, &job->cancel);
    job->done = 1;
  } else {
    layout = layoutView(*job->grouping, job->expanded, options, job->cache.get(), &job->cancel,
                        [job](int done, int total) {
                          job->done = done;
                          job->total = total;
                        });
  }
  if (layout)
    job->result = std::make_shared<ViewLayout>(std::move(*layout));
  else
    job->error = layout.message();
}

} // namespace

LayoutController::LayoutController(QObject* parent) : QObject(parent) {}

LayoutController::~LayoutController() {
  if (m_current) m_current->cancel = true; // the worker finishes on its own; its result is dropped
}

ViewOptions LayoutController::viewOptions() {
  ViewOptions o;
  o.expandAllUpTo = 500;
  o.maxNodesPerLayout = maxNodesPerLayout();
  o.layout.rankDir = RankDir::TopToBottom;
  o.layout.nodeSep = 22;
  o.layout.rankSep = 34;
  o.layout.clusterMargin = 10;
  o.groupPadding = 10;
  return o;
}

quint64 LayoutController::requestHierarchical(std::shared_ptr<const GraphGrouping> grouping,
                                              ExpandedGroups expanded,
                                              std::shared_ptr<const Measures> measures) {
  if (!m_cache || m_cacheGrouping != grouping->id()) {
    // A new grouping (new graph, new fonts): start a fresh unit cache. The old one stays alive
    // for a worker still using it.
    m_cache = std::make_shared<LayoutCache>();
    m_cacheGrouping = grouping->id();
  }
  auto job = std::make_shared<Job>();
  job->grouping = std::move(grouping);
  job->expanded = std::move(expanded);
  job->measures = std::move(measures);
  job->cache = m_cache;
  return start(std::move(job));
}

quint64 LayoutController::requestFlat(std::shared_ptr<const GraphGrouping> grouping,
                                      std::shared_ptr<const Measures> measures) {
  auto job = std::make_shared<Job>();
  job->grouping = std::move(grouping);
  job->measures = std::move(measures);
  job->flat = true;
  return start(std::move(job));
}

quint64 LayoutController::start(std::shared_ptr<Job> job) {
  if (m_current) m_current->cancel = true; // superseded: stop it between units
  const quint64 generation = ++m_generation;
  m_current = job;
  m_running = true;
  Q_EMIT layoutStarted(generation);
  auto* watcher = new QFutureWatcher<void>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, job] {
    watcher->deleteLater();
    onFinished(generation, job);
  });
  watcher->setFuture(QtConcurrent::run([job] { runJob(job.get()); }));
  return generation;
}

void LayoutController::cancel() {
  if (m_current) m_current->cancel = true;
}

std::pair<int, int> LayoutController::progress() const {
  if (!m_current) return {0, 0};
  return {m_current->done.load(), m_current->total.load()};
}

void LayoutController::onFinished(quint64 generation, const std::shared_ptr<Job>& job) {
  if (generation != m_generation) return; // stale: a newer request owns the view
  m_running = false;
  m_current.reset();
  // A cancel issued before this point wins even when the worker got to the end first.
  if (job->cancel)
    Q_EMIT layoutCancelled(generation);
  else if (job->result)
    Q_EMIT layoutFinished(generation, job->result);
  else
    Q_EMIT layoutFailed(generation, QString::fromStdString(job->error));
}

} // namespace lattice::studio
