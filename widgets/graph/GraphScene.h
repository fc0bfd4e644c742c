#pragma once
/// \file GraphScene: the QGraphicsScene of one laid-out view. It turns a core/layout ViewLayout
/// into NodeItem / EdgeItem / ClusterItem, maps FX node names and group paths to items, and
/// shows the interpreter, breakpoint and search states on them. It holds no session: GraphWidget
/// feeds it.

#include "graph/LayoutController.h"
#include "graph/NodeStyle.h"
#include "layout/ViewLayout.h"

#include <QGraphicsScene>
#include <QHash>
#include <QSet>
#include <QStringList>

#include <memory>

namespace lattice {
class LoweringVerdicts;
class Model;
namespace fx {
class Graph;
}
} // namespace lattice

namespace lattice::studio {

class ClusterItem;
class EdgeItem;
class GroupToggleItem;
class NodeItem;

class GraphScene : public QGraphicsScene {
  Q_OBJECT

public:
  explicit GraphScene(QObject* parent = nullptr);
  ~GraphScene() override;

  /// Replaces every item by the items of `layout` (a view of `grouping`). `graph` and `model`
  /// give node roles and labels; both may be null (roles then come from the grouping's ops).
  void build(const ViewLayout& layout, std::shared_ptr<const GraphGrouping> grouping, const fx::Graph* graph,
             const Model* model);
  /// Removes every item.
  void clearGraph();
  /// The lowering's verdicts the node roles come from (null: none, every call Unchecked); the
  /// items built already take their new roles.
  void setVerdicts(std::shared_ptr<const LoweringVerdicts> verdicts, const fx::Graph* graph);
  const LoweringVerdicts* verdicts() const { return m_verdicts.get(); }

  /// The label space, as the items paint them, of every item that can be visible under
  /// `expanded` (all nodes when `flat`), on top of `previous` (null: nothing measured yet, made
  /// for `grouping`). Entries not needed stay unmeasured (negative width). Returns `previous`
  /// itself when nothing was missing, else a new copy (workers may hold the old one). UI thread
  /// only: it measures fonts. Measuring only what shows keeps opening a 30 000-node graph fast.
  static std::shared_ptr<const LayoutController::Measures>
  measureVisible(std::shared_ptr<const LayoutController::Measures> previous, const GraphGrouping& grouping,
                 const ExpandedGroups& expanded, bool flat, const fx::Graph* graph, const Model* model);
  /// Role and label of a grouped node / a collapsed group / an expanded group's title.
  static NodeRole nodeRole(const GroupedNode& node, const fx::Graph* graph, const LoweringVerdicts* verdicts);
  static NodeLabel nodeLabelOf(const GroupedNode& node, const fx::Graph* graph, const Model* model);
  static NodeLabel groupLabel(const Group& group, const Model* model);
  static QString clusterTitle(const Group& group, const Model* model);

  const GraphGrouping* grouping() const { return m_grouping.get(); }
  /// Items in layout order.
  const QList<NodeItem*>& nodeItems() const { return m_nodes; }
  const QList<EdgeItem*>& edgeItems() const { return m_edges; }
  const QList<ClusterItem*>& clusterItems() const { return m_clusters; }

  /// The box of FX node `name`; nullptr when it is hidden in a collapsed group.
  NodeItem* nodeItem(const QString& name) const;
  /// The box of collapsed group `path`; nullptr when it is not a visible box.
  NodeItem* groupItem(const QString& path) const;
  /// The frame of expanded group `path`.
  ClusterItem* clusterItem(const QString& path) const;
  /// The expand / collapse indicator of group `path` (on its box or its frame); nullptr when
  /// the group shows neither.
  GroupToggleItem* toggleItem(const QString& path) const;
  /// The box showing FX node `name`: its own, else the collapsed group hiding it.
  NodeItem* itemForNode(const QString& name) const;

  /// Boxes with an edge into / out of `item`, in edge order (edges ending on a cluster frame
  /// are skipped).
  QList<NodeItem*> producers(const NodeItem* item) const;
  QList<NodeItem*> consumers(const NodeItem* item) const;

  /// Interpreter state: the next node, the executed nodes (in order) and the failed node.
  /// Collapsed groups take the current/failed state of a node they hide.
  void setInterpreterState(const QString& current, const QStringList& executed, const QString& failed);
  /// The nodes with a breakpoint; those in `disabled` are drawn hollow.
  void setBreakpoints(const QSet<QString>& nodes, const QSet<QString>& disabled = {});
  /// Marks the boxes showing these nodes as search hits (a group hiding a hit is marked too).
  void setSearchHits(const QStringList& nodes);
  /// Colours the boxes of an overlay (the numeric debugger's time or error): by node name or
  /// group path; boxes without an entry have none.
  void setHeat(const QHash<QString, QColor>& byKey);
  /// Emphasises the edges of `item` (nullptr clears).
  void setFocusItem(NodeItem* item);

private:
  void applyStates();

  std::shared_ptr<const GraphGrouping> m_grouping;
  std::shared_ptr<const LoweringVerdicts> m_verdicts;
  QList<NodeItem*> m_nodes;
  QList<EdgeItem*> m_edges;
  QList<ClusterItem*> m_clusters;
  QHash<QString, NodeItem*> m_byNode;
  QHash<QString, NodeItem*> m_byGroup;
  QHash<QString, ClusterItem*> m_clusterByGroup;
  QHash<const NodeItem*, QList<EdgeItem*>> m_in;
  QHash<const NodeItem*, QList<EdgeItem*>> m_out;
  NodeItem* m_focus = nullptr;

  QString m_current;
  QStringList m_executed;
  QString m_failed;
  QSet<QString> m_breakpoints;
  QSet<QString> m_disabledBreakpoints;
  QStringList m_searchHits;
  QHash<QString, QColor> m_heat;
};

} // namespace lattice::studio
