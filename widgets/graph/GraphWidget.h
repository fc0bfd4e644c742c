#pragma once
/// \file GraphWidget: the studio's central widget. It observes the StudioSession and keeps the
/// graph view in step with it: groups and measures the traced graph, asks LayoutController for
/// a layout (hierarchical or flat), rebuilds the GraphScene when one arrives, mirrors selection
/// both ways, shows interpreter/breakpoint states, and hosts search (Ctrl+F), the keyboard's
/// walk and expand / collapse keys (keyActions()), Expand All / Collapse All / Expand to Depth,
/// the context menu of nodes and groups, and the progress card (with Cancel) shown while loading
/// or laying out.

#include "graph/GraphView.h"
#include "graph/LayoutController.h"
#include "layout/ViewLayout.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <utility>
#include <vector>

class QAction;
class QFrame;
class QGraphicsItem;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;

namespace lattice::studio {

class GraphScene;
class GraphSearchBar;
class LayoutController;
class NodeItem;
class StudioSession;

class GraphWidget : public QWidget {
  Q_OBJECT

public:
  explicit GraphWidget(StudioSession* session, QWidget* parent = nullptr);
  ~GraphWidget() override;

  /// Graphs with more nodes than this open with their groups collapsed (overviewExpansion);
  /// smaller ones open fully expanded.
  static constexpr std::size_t kOverviewAbove = 300;
  /// The most boxes the overview of a large graph opens a lone wrapper group for.
  static constexpr std::size_t kOverviewItems = 50;
  /// The depths View ▸ Expand to Depth offers a key for (Ctrl+Alt+1 ...).
  static constexpr int kDepthKeys = 5;

  /// The graph's actions, by objectName: view.expandAll (Ctrl+Shift+E), view.collapseAll
  /// (Ctrl+Shift+C), view.expandDepth1..5 (Ctrl+Alt+1..5), view.expandDepth (asks for N), and
  /// the keys of the focused view (widget shortcuts): view.expandGroup (Shift+Right, Return),
  /// view.collapseGroup (Shift+Left), view.goProducer (Up), view.goConsumer (Down),
  /// view.previousSibling (Left), view.nextSibling (Right). The model tab puts them in its View
  /// menu, which lists them in Help ▸ Keyboard Shortcuts.
  const QList<QAction*>& graphActions() const { return m_actions; }
  /// The one of graphActions() called `id`; nullptr when none is.
  QAction* graphAction(const QString& id) const;

  /// The context menu of `item` (a node or collapsed group box, an expanded group's frame, an
  /// indicator, or nullptr for the background), owned by `parent`. Its actions, by objectName:
  /// graph.expand, graph.collapse, graph.breakpoint, graph.runToHere, graph.keepLeaf,
  /// graph.inline, graph.copyName, graph.showInMlir (and for the background view.expandAll,
  /// view.collapseAll); those that do not apply to `item` are disabled.
  QMenu* createContextMenu(QGraphicsItem* item, QWidget* parent);

  GraphView* view() const { return m_view; }
  GraphScene* scene() const { return m_scene; }
  LayoutController* layoutController() const { return m_controller; }
  GraphSearchBar* searchBar() const { return m_searchBar; }

  bool isHierarchical() const { return m_hierarchical; }
  bool isLayoutRunning() const;
  /// Paths of the expanded module groups of the current view.
  const ExpandedGroups& expandedGroups() const { return m_expanded; }
  /// The current grouping of the traced graph (null when nothing is shown).
  const GraphGrouping* grouping() const { return m_grouping.get(); }

  /// Search hits of the current text (node names, graph order) and the one last moved to (-1).
  const QStringList& searchHits() const { return m_hits; }
  int searchIndex() const { return m_hitIndex; }

  /// Writes the whole graph as PNG or SVG (by the suffix of `path`); false with a message.
  bool exportImage(const QString& path, QString* error) const;

  /// The tooltip of a box: its name and type and, once the node ran, its value as the value
  /// table reads it (valueToolTip).
  QString toolTipFor(const NodeItem* item) const;

public Q_SLOTS:
  /// Hierarchical (module groups, the default) or flat (every node in one layout). A flat view
  /// the layout refuses (more than LayoutController::maxNodesPerLayout() nodes) falls back to
  /// hierarchical with hierarchicalChanged(true) and flatViewRefused.
  void setHierarchical(bool hierarchical);
  void showSearch();
  void setSearchText(const QString& text);
  /// Moves to the next / previous search hit (selects it in the session).
  void findNext();
  void findPrevious();
  /// Expands / collapses a module group and lays the view out again.
  void expandGroup(const QString& path);
  void collapseGroup(const QString& path);
  /// Every group expanded / collapsed; the groups of depth 1 to `depth` expanded, deeper ones
  /// collapsed (1: the top-level groups open). Each lays the view out again and frames it.
  void expandAll();
  void collapseAll();
  void expandToDepth(int depth);
  /// The keyboard's expand and collapse: expands the selected collapsed group (then selects its
  /// first box), or collapses the group around the selected box or the selected frame (then
  /// selects the group's box).
  void expandSelected();
  void collapseSelected();
  /// Lays out the current graph again.
  void relayout();
  /// Arrow-key navigation: Up to a producer, Down to a consumer, Left/Right through the other
  /// producers or consumers of the last move (or the siblings of the selected box).
  void navigate(lattice::studio::GraphView::Direction direction);

Q_SIGNALS:
  void layoutStarted();
  /// A layout was applied to the scene.
  void layoutFinished();
  /// The lowering's verdicts were applied to the node roles (after a load, a change of inputs).
  void verdictsChanged();
  void layoutFailed(const QString& message);
  void layoutCancelled();
  /// The layout mode changed: by setHierarchical, or back to hierarchical when the flat view
  /// was refused.
  void hierarchicalChanged(bool hierarchical);
  /// The flat view was refused (`message` says why); the view went back to module groups.
  void flatViewRefused(const QString& message);
  /// The context menu's Show in MLIR selected `node`: the MLIR panel highlights its lines; the
  /// window is to bring that panel forward.
  void showInMlirRequested(const QString& node);

protected:
  void resizeEvent(QResizeEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void onGraphChanged();
  /// Dry-runs the lowering on the session's graph and inputs (checkLowering) on a worker and
  /// gives the scene its verdicts, which the node roles come from, when the job is done (a newer
  /// request voids an older job's result). GraphWidgetVerdicts.cpp.
  void updateVerdicts();
  void onVerdictsReady();
  /// Teardown only: waits for the verdict jobs still running (they read a snapshot, so a model
  /// change never needs to).
  void waitForVerdictJobs();
  void onTraceFailed(const QString& message);
  void onLayoutFinished(quint64 generation, std::shared_ptr<const ViewLayout> layout);
  void onSceneSelectionChanged();
  void onSessionSelection(const QString& nodeName);
  void onSessionModuleSelection(const QString& modulePath);
  void onItemActivated(QGraphicsItem* item);
  void onItemClicked(QGraphicsItem* item);
  void onContextMenu(QGraphicsItem* item, const QPoint& globalPos);
  void createActions();
  /// Replaces the expansion, lays out again and frames the result (keeping the selection).
  void setExpansion(ExpandedGroups expanded);
  /// Selects `to` (a box) in the scene and the session, and scrolls it into view.
  void moveSelectionTo(NodeItem* to);
  /// The group path `item` stands for: a collapsed box, a frame or an indicator ("" otherwise).
  QString groupPathOf(QGraphicsItem* item) const;
  /// The innermost expanded group holding `item`'s box ("" for the root).
  QString enclosingGroupOf(const NodeItem* item) const;
  /// Paints the interpreter's states on the boxes; with `follow`, keeps the current (or failed)
  /// node in view at a readable zoom (GraphView::followItem).
  void updateInterpreterState(bool follow);
  void updateOverlay();
  /// Selects `item` (or clears) without echoing to the session.
  void selectItem(NodeItem* item);
  /// Shows FX node `name`: selects and centres its box, expanding groups hiding it.
  void revealNode(const QString& name);
  /// Brings module `modulePath` into view: its collapsed box (selected), its expanded frame, or
  /// the call_module node of a leaf.
  void showModule(const QString& modulePath);
  void initialView();
  void showMessage(const QString& text);
  void placeOverlay();

  StudioSession* m_session;
  GraphView* m_view;
  GraphScene* m_scene;
  LayoutController* m_controller;
  GraphSearchBar* m_searchBar;

  QFrame* m_overlay;
  QLabel* m_overlayText;
  QProgressBar* m_overlayBar;
  QPushButton* m_overlayCancel;
  QTimer m_overlayTimer;
  QElapsedTimer m_busySince;
  QElapsedTimer m_openClock; ///< since the last openModel, for the timing log
  enum class Busy { None, Loading, Layout } m_busy = Busy::None;

  std::shared_ptr<const GraphGrouping> m_grouping;
  QString m_verdictError; ///< why the lowering could not be dry-run (no verdicts)
  struct VerdictResult;
  quint64 m_verdictGeneration = 0; ///< bumped per request; a job of an older one is void
  QFutureWatcher<std::shared_ptr<VerdictResult>>* m_verdictWatcher = nullptr;
  std::vector<QFuture<std::shared_ptr<VerdictResult>>> m_verdictJobs; ///< maybe still running
  std::shared_ptr<const LayoutController::Measures> m_measures;
  ExpandedGroups m_expanded;
  QString m_groupedReference; ///< the model the expansion state belongs to
  bool m_hierarchical = true;
  bool m_freshModel = false;
  QString m_pendingReveal;
  QString m_pendingFirstChildOf; ///< after the layout, select the first box of this group
  QString m_pendingGroupBox;     ///< after the layout, select this group's box
  bool m_reframe = false;        ///< after the layout, frame the view (Expand All and the like)
  QElapsedTimer m_lastToggle;    ///< an indicator click: the double-click it may start is ignored
  QList<QAction*> m_actions;
  QString m_anchorGroup;
  QString m_anchorModule; ///< the module to show after the re-layout of a re-trace
  bool m_syncing = false;

  QStringList m_hits;
  int m_hitIndex = -1;

  /// The last vertical move's candidates (is a group, key), for Left/Right.
  std::vector<std::pair<bool, QString>> m_navAlternatives;
};

} // namespace lattice::studio
