#pragma once
/// \file ArtifactGraphView: an artifact's op graph on screen. It measures the
/// labels on the UI thread, lays the graph out on a worker thread (ArtifactLayout: Graphviz up to
/// kMaxGraphvizNodes nodes, the layered fallback above; a newer graph cancels and drops an older
/// layout), builds ArtifactNodeItems and EdgeItems a slice per event-loop turn (120 000 ops never
/// freeze the window), and reports selection. It reuses the model graph's
/// GraphView (zoom, pan, fit, minimap) without its FX legend; owners show an ArtifactLegend.
///
/// Keys: Up / Down move to the first producer / consumer, Left / Right to the previous / next
/// node in source order.

#include "artifactview/ArtifactOpGraph.h"
#include "artifactview/ArtifactStyle.h"
#include "layout/ArtifactLayout.h"

#include <QHash>
#include <QSet>
#include <QVector>
#include <QWidget>

#include <atomic>
#include <memory>

class QGraphicsScene;
class QLabel;
class QPainter;

namespace lattice::studio {

class ArtifactNodeItem;
class EdgeItem;
class GraphView;

/// `graph` as the layout sees it: its node count and producer → consumer edges, in edge order.
OpLayoutGraph layoutGraphOf(const ArtifactOpGraph& graph);

class ArtifactGraphView : public QWidget {
  Q_OBJECT

public:
  explicit ArtifactGraphView(QWidget* parent = nullptr);
  ~ArtifactGraphView() override;

  /// Shows `graph` with `styles` (one per node, in node order) and lays it out in the
  /// background; layoutFinished follows. A later call supersedes a running layout.
  void setGraph(std::shared_ptr<const ArtifactOpGraph> graph, QVector<ArtifactNodeStyle> styles);
  /// Empties the view (a running layout is dropped).
  void clear();
  /// Changes node styles in place (no new layout).
  void setStyles(QVector<ArtifactNodeStyle> styles);
  /// A short text shown above the graph (what it is); the node and layout counts follow it.
  void setCaption(const QString& caption);

  const ArtifactOpGraph* graph() const { return m_graph.get(); }
  GraphView* view() const { return m_view; }
  QGraphicsScene* scene() const { return m_scene; }
  bool isLayoutRunning() const { return m_running; }
  /// How the shown layout was made (meaningful after layoutFinished).
  ArtifactLayoutMethod layoutMethod() const { return m_method; }
  /// The box of node `node`; nullptr before the layout or out of range.
  ArtifactNodeItem* nodeItem(int node) const;
  int edgeItemCount() const { return m_edges.size(); }
  /// The selected node, -1 for none.
  int selectedNode() const;
  /// The node whose box centre is nearest to the viewport centre; -1 when empty.
  int nodeNearestCenter() const;
  /// Above this many nodes the graph opens at 100% on its first node rather than fitted, and
  /// the overview paints dots instead of the items.
  static constexpr int largeGraphNodes() { return 5000; }
  /// Lays out with the layered fallback even below the Graphviz limit (tests).
  void setForceLayered(bool force) { m_forceLayered = force; }
  /// Marks the Find matches (node positions; replaces the previous ones, also for boxes built
  /// later).
  void setSearchHits(const std::vector<int>& nodes);

public Q_SLOTS:
  /// Selects `node` (-1 clears) and brings it into view without emitting nodeSelected.
  void selectNode(int node);
  /// Centres the view on `node` without changing the selection or the zoom.
  void centerOnNode(int node);
  void fitToView();

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
  /// The user selected a node (click or keys); -1 when the selection was cleared.
  void nodeSelected(int node);
  /// A layout was applied to the scene.
  void layoutFinished();
  void layoutFailed(const QString& message);
  /// The user scrolled or zoomed (not emitted for programmatic centring).
  void viewportMoved();

private:
  struct Job;
  void onLayoutDone(quint64 generation, const std::shared_ptr<Job>& job);
  /// Empties the scene and adds the laid-out items in slices (buildSlice), one event-loop turn
  /// each, until every node and edge is in; then layoutFinished.
  void startBuild();
  void buildSlice(quint64 generation);
  void onSceneSelectionChanged();
  void highlightEdges(int node);
  bool isLarge() const;
  void updateMinimap();
  void paintOverview(QPainter& p, const QRectF& target, const QRectF& sceneRect) const;
  void navigate(int direction);
  void updateCaption();

  GraphView* m_view;
  QGraphicsScene* m_scene;
  QLabel* m_captionLabel;
  QString m_caption;

  std::shared_ptr<const ArtifactOpGraph> m_graph;
  QVector<ArtifactNodeStyle> m_styles;
  QVector<ArtifactNodeItem*> m_nodes;
  QVector<EdgeItem*> m_edges;
  QHash<int, QVector<EdgeItem*>> m_edgesOfNode;
  QVector<EdgeItem*> m_highlighted;
  QSet<int> m_searchHits;
  std::shared_ptr<Job> m_job;
  quint64 m_generation = 0;
  bool m_running = false;  ///< laying out or building the scene
  bool m_building = false; ///< the layout is in; the scene is being filled
  std::size_t m_built = 0; ///< items built so far (nodes, then edges)
  bool m_forceLayered = false;
  bool m_syncing = false;
  bool m_autoFit = false; ///< refit on resize until the user zooms, pans or a node is centred
  int m_programmaticScroll = 0;
  ArtifactLayoutMethod m_method = ArtifactLayoutMethod::Graphviz;
  QString m_layoutError;
};

} // namespace lattice::studio
