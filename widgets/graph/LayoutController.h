#pragma once
/// \file LayoutController: runs core/layout off the UI thread (QtConcurrent). One request at a
/// time is current: a newer request cancels the older one and its result is dropped when it
/// arrives. Hierarchical requests go through layoutView with a per-grouping LayoutCache (so
/// expanding a group re-lays out only the units that changed); flat requests lay out every FX
/// node in one Graphviz call and are refused above the per-call bound. Progress is polled from
/// shared atomics, so workers never touch QObjects.

#include "layout/ViewLayout.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace lattice::studio {

class LayoutController : public QObject {
  Q_OBJECT

public:
  /// Label space per item, measured on the UI thread before a request (workers only read it).
  struct Measures {
    std::vector<LayoutSize> nodes;      ///< per GraphGrouping node
    std::vector<LayoutSize> groupBoxes; ///< per group, collapsed
    std::vector<LayoutSize> groupBands; ///< per group, the label band when expanded
  };

  explicit LayoutController(QObject* parent = nullptr);
  ~LayoutController() override;

  /// Lays out the hierarchical view of `grouping` under `expanded`. A grouping other than the
  /// previous one starts a fresh unit cache. Returns the request's generation.
  quint64 requestHierarchical(std::shared_ptr<const GraphGrouping> grouping, ExpandedGroups expanded,
                              std::shared_ptr<const Measures> measures);
  /// Lays out every node of `grouping` without clusters in one call; fails with a message when
  /// the graph has more than maxNodesPerLayout() nodes.
  quint64 requestFlat(std::shared_ptr<const GraphGrouping> grouping,
                      std::shared_ptr<const Measures> measures);
  /// Cancels the running request (it ends with layoutCancelled).
  void cancel();

  bool isRunning() const { return m_running; }
  /// (done, total) units of the running request; total 0 when unknown.
  std::pair<int, int> progress() const;
  /// The bound on the nodes of one Graphviz call.
  static std::size_t maxNodesPerLayout() { return kMaxGraphvizNodes; }
  /// The options every request uses (measure excluded).
  static ViewOptions viewOptions();

  /// One request as the worker sees it (defined in the .cpp).
  struct Job;

Q_SIGNALS:
  void layoutStarted(quint64 generation);
  /// The current request finished; `layout` is shared with nobody else.
  void layoutFinished(quint64 generation, std::shared_ptr<const lattice::ViewLayout> layout);
  void layoutFailed(quint64 generation, const QString& message);
  void layoutCancelled(quint64 generation);

private:
  quint64 start(std::shared_ptr<Job> job);
  void onFinished(quint64 generation, const std::shared_ptr<Job>& job);

  quint64 m_generation = 0;
  bool m_running = false;
  std::shared_ptr<Job> m_current;
  std::shared_ptr<LayoutCache> m_cache;
  std::uint64_t m_cacheGrouping = 0;
};

} // namespace lattice::studio
