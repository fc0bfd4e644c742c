// GraphScene: items from a ViewLayout (coordinates are already scene units, y down), the
// name/path → item maps, adjacency for arrow-key navigation, and state painting. It does not
// lay out, search or talk to the session.

#include "graph/GraphScene.h"

#include "fx/Graph.h"
#include "graph/ClusterItem.h"
#include "graph/EdgeItem.h"
#include "graph/NodeItem.h"
#include "model/Model.h"

#include <QFontMetricsF>

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QPointF toPoint(const LayoutPoint& p) {
  return {p.x, p.y};
}

NodeRole roleFromOp(fx::Op op) {
  switch (op) {
  case fx::Op::Placeholder:
    return NodeRole::Placeholder;
  case fx::Op::GetAttr:
    return NodeRole::GetAttr;
  case fx::Op::Output:
    return NodeRole::Output;
  default:
    return NodeRole::Unchecked;
  }
}

QFont bandFont() {
  QFont f;
  f.setPointSizeF(8.0);
  return f;
}

} // namespace

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {
  setItemIndexMethod(BspTreeIndex);
}

GraphScene::~GraphScene() {
  clearGraph(); // while the maps are alive, and without selection signals from dying items
}

NodeRole GraphScene::nodeRole(const GroupedNode& node, const fx::Graph* graph, const LoweringVerdicts* verdicts) {
  const fx::Node* n = graph ? graph->findNode(node.name) : nullptr;
  return n ? classifyNode(*n, verdicts) : roleFromOp(node.op);
}

void GraphScene::setVerdicts(std::shared_ptr<const LoweringVerdicts> verdicts, const fx::Graph* graph) {
  m_verdicts = std::move(verdicts);
  if (!m_grouping) return;
  for (const GroupedNode& n : m_grouping->nodes())
    if (NodeItem* item = m_byNode.value(qs(n.name))) item->setRole(nodeRole(n, graph, m_verdicts.get()));
}

NodeLabel GraphScene::nodeLabelOf(const GroupedNode& node, const fx::Graph* graph, const Model* model) {
  if (const fx::Node* n = graph ? graph->findNode(node.name) : nullptr) return nodeLabel(*n, model);
  return {qs(node.name), qs(node.target)};
}

NodeLabel GraphScene::groupLabel(const Group& group, const Model* model) {
  NodeLabel label;
  label.title = qs(group.path);
  const ModuleInfo* module = model ? model->module(group.modulePath) : nullptr;
  label.subtitle = group.synthetic ? QStringLiteral("range") : module ? qs(module->className()) : QString();
  label.subtitle += (label.subtitle.isEmpty() ? QString() : QStringLiteral(" · ")) +
                    QString::number(group.nodeCount) + QStringLiteral(" nodes");
  return label;
}

QString GraphScene::clusterTitle(const Group& group, const Model* model) {
  const ModuleInfo* module = model ? model->module(group.modulePath) : nullptr;
  QString title = qs(group.path);
  if (module && !group.synthetic) title += QStringLiteral("  ·  ") + qs(module->className());
  return title;
}

std::shared_ptr<const LayoutController::Measures>
GraphScene::measureVisible(std::shared_ptr<const LayoutController::Measures> previous,
                           const GraphGrouping& grouping, const ExpandedGroups& expanded, bool flat,
                           const fx::Graph* graph, const Model* model) {
  constexpr LayoutSize kUnmeasured{-1, -1};
  std::shared_ptr<LayoutController::Measures> next;
  auto writable = [&]() -> LayoutController::Measures& {
    if (!next) {
      next = previous ? std::make_shared<LayoutController::Measures>(*previous)
                      : std::make_shared<LayoutController::Measures>();
      next->nodes.resize(grouping.nodes().size(), kUnmeasured);
      next->groupBoxes.resize(grouping.groups().size(), kUnmeasured);
      next->groupBands.resize(grouping.groups().size(), kUnmeasured);
    }
    return *next;
  };
  const LayoutController::Measures* have = previous.get();
  auto missing = [](const std::vector<LayoutSize>* v, std::size_t i) {
    return !v || i >= v->size() || (*v)[i].width < 0;
  };
  auto node = [&](std::size_t n) {
    if (!missing(next ? &next->nodes : have ? &have->nodes : nullptr, n)) return;
    const QSizeF s = NodeItem::preferredSize(nodeLabelOf(grouping.nodes()[n], graph, model));
    writable().nodes[n] = {s.width(), s.height()};
  };
  const QFontMetricsF band(bandFont());
  auto group = [&](std::size_t g) {
    if (!missing(next ? &next->groupBoxes : have ? &have->groupBoxes : nullptr, g)) return;
    const Group& info = grouping.groups()[g];
    const QSizeF s = NodeItem::preferredSize(groupLabel(info, model), true);
    LayoutController::Measures& m = writable();
    m.groupBoxes[g] = {s.width(), s.height()};
    m.groupBands[g] = {std::ceil(band.horizontalAdvance(clusterTitle(info, model))) + 20, 18};
  };

  if (flat) {
    if (grouping.nodes().size() <= LayoutController::maxNodesPerLayout()) // else the request is refused
      for (std::size_t n = 0; n < grouping.nodes().size(); ++n)
        node(n);
  } else {
    // Visible items are the children of open groups; open groups themselves need their band.
    const ViewState state(grouping, expanded);
    for (int g : state.openGroups()) {
      group(std::size_t(g));
      for (const GroupChild& c : grouping.groups()[std::size_t(g)].children) {
        if (c.isGroup)
          group(std::size_t(c.index));
        else
          node(std::size_t(c.index));
      }
    }
  }
  return next ? std::shared_ptr<const LayoutController::Measures>(std::move(next)) : previous;
}

void GraphScene::clearGraph() {
  // Forget the items before deleting them: removing selected items emits selectionChanged,
  // whose receivers must not reach the dying items through these maps.
  m_focus = nullptr;
  m_nodes.clear();
  m_edges.clear();
  m_clusters.clear();
  m_byNode.clear();
  m_byGroup.clear();
  m_clusterByGroup.clear();
  m_in.clear();
  m_out.clear();
  m_focus = nullptr;
  m_grouping.reset();
  const bool blocked = blockSignals(true);
  clear();
  blockSignals(blocked);
  setSceneRect(QRectF());
}

void GraphScene::build(const ViewLayout& layout, std::shared_ptr<const GraphGrouping> grouping,
                       const fx::Graph* graph, const Model* model) {
  clearGraph();
  m_grouping = std::move(grouping);
  const GraphGrouping& g = *m_grouping;

  // Clusters first (painted lowest), each knowing its depth for the tint.
  for (std::size_t i = 0; i < layout.layout.clusters.size() && i < layout.clusters.size(); ++i) {
    const ClusterBox& box = layout.layout.clusters[i];
    const Group& group = g.groups()[static_cast<std::size_t>(layout.clusters[i].index)];
    auto* item =
        new ClusterItem(qs(group.path), clusterTitle(group, model),
                        QRectF(box.box.left, box.box.top, box.box.width, box.box.height), group.depth - 1);
    addItem(item);
    m_clusters.push_back(item);
    m_clusterByGroup.insert(qs(group.path), item);
  }

  QHash<QString, NodeItem*> byId;
  for (std::size_t i = 0; i < layout.layout.nodes.size() && i < layout.items.size(); ++i) {
    const NodeBox& box = layout.layout.nodes[i];
    const ViewItem& view = layout.items[i];
    NodeItem* item = nullptr;
    const QSizeF size(box.width, box.height);
    if (view.kind == ViewItemKind::Node) {
      const GroupedNode& n = g.nodes()[static_cast<std::size_t>(view.index)];
      item = new NodeItem(qs(n.name), nodeRole(n, graph, m_verdicts.get()), nodeLabelOf(n, graph, model), size);
      m_byNode.insert(item->key(), item);
    } else {
      const Group& group = g.groups()[static_cast<std::size_t>(view.index)];
      item = new NodeItem(qs(group.path), NodeRole::Group, groupLabel(group, model), size, true);
      item->setMemberCount(int(group.nodeCount));
      item->setToolTip(QObject::tr("%1\n%2 nodes — click + or press Shift+Right to expand")
                           .arg(item->key())
                           .arg(group.nodeCount));
      // The "+" on the corner of the box's face (NodeItem paints a group's face 8 units lower
      // and narrower than its box, under the stacked cards).
      new GroupToggleItem(item->key(), false, QPointF(-size.width() / 2 + 2, -size.height() / 2 + 10), item);
      m_byGroup.insert(item->key(), item);
    }
    item->setPos(box.cx, box.cy);
    addItem(item);
    m_nodes.push_back(item);
    byId.insert(qs(box.id), item);
  }

  for (const EdgePath& e : layout.layout.edges) {
    NodeItem* from = byId.value(qs(e.from));
    NodeItem* to = byId.value(qs(e.to));
    QVector<QPointF> points;
    points.reserve(int(e.points.size()));
    for (const LayoutPoint& p : e.points)
      points.push_back(toPoint(p));
    std::optional<QPointF> head;
    if (e.arrowHead) head = toPoint(*e.arrowHead);
    auto* item = new EdgeItem(from, to, points, head);
    addItem(item);
    m_edges.push_back(item);
    if (from && to) {
      m_out[from].push_back(item);
      m_in[to].push_back(item);
    }
  }
  const LayoutRect& b = layout.layout.bounds;
  setSceneRect(QRectF(b.left, b.top, b.width, b.height).adjusted(-40, -40, 40, 40));
  applyStates();
}

NodeItem* GraphScene::nodeItem(const QString& name) const {
  return m_byNode.value(name);
}

NodeItem* GraphScene::groupItem(const QString& path) const {
  return m_byGroup.value(path);
}

ClusterItem* GraphScene::clusterItem(const QString& path) const {
  return m_clusterByGroup.value(path);
}

GroupToggleItem* GraphScene::toggleItem(const QString& path) const {
  QGraphicsItem* owner = m_byGroup.value(path);
  if (!owner) owner = m_clusterByGroup.value(path);
  if (!owner) return nullptr;
  for (QGraphicsItem* child : owner->childItems())
    if (auto* toggle = qgraphicsitem_cast<GroupToggleItem*>(child)) return toggle;
  return nullptr;
}

NodeItem* GraphScene::itemForNode(const QString& name) const {
  if (NodeItem* own = m_byNode.value(name)) return own;
  if (!m_grouping) return nullptr;
  for (const std::string& path : m_grouping->groupPathsOf(name.toStdString())) // outermost first
    if (NodeItem* group = m_byGroup.value(qs(path))) return group;
  return nullptr;
}

QList<NodeItem*> GraphScene::producers(const NodeItem* item) const {
  QList<NodeItem*> out;
  for (EdgeItem* e : m_in.value(item))
    if (!out.contains(e->from())) out.push_back(e->from());
  return out;
}

QList<NodeItem*> GraphScene::consumers(const NodeItem* item) const {
  QList<NodeItem*> out;
  for (EdgeItem* e : m_out.value(item))
    if (!out.contains(e->to())) out.push_back(e->to());
  return out;
}

void GraphScene::setInterpreterState(const QString& current, const QStringList& executed,
                                     const QString& failed) {
  m_current = current;
  m_executed = executed;
  m_failed = failed;
  applyStates();
}

void GraphScene::setBreakpoints(const QSet<QString>& nodes, const QSet<QString>& disabled) {
  m_breakpoints = nodes;
  m_disabledBreakpoints = disabled;
  applyStates();
}

void GraphScene::setSearchHits(const QStringList& nodes) {
  m_searchHits = nodes;
  applyStates();
}

void GraphScene::setHeat(const QHash<QString, QColor>& byKey) {
  m_heat = byKey;
  applyStates();
}

void GraphScene::setFocusItem(NodeItem* item) {
  if (m_focus) {
    for (EdgeItem* e : m_in.value(m_focus))
      e->setHighlighted(false);
    for (EdgeItem* e : m_out.value(m_focus))
      e->setHighlighted(false);
  }
  m_focus = item;
  if (m_focus) {
    for (EdgeItem* e : m_in.value(m_focus))
      e->setHighlighted(true);
    for (EdgeItem* e : m_out.value(m_focus))
      e->setHighlighted(true);
  }
}

void GraphScene::applyStates() {
  constexpr unsigned kAll = NodeItem::Current | NodeItem::Executed | NodeItem::Failed | NodeItem::Breakpoint |
                            NodeItem::SearchHit | NodeItem::BreakpointDisabled;
  QHash<NodeItem*, unsigned> states;
  auto mark = [&](NodeItem* item, NodeItem::State s) {
    if (item) states[item] |= s;
  };
  for (const QString& n : std::as_const(m_executed))
    mark(m_byNode.value(n), NodeItem::Executed);
  for (const QString& n : std::as_const(m_breakpoints))
    mark(m_byNode.value(n), NodeItem::Breakpoint);
  for (const QString& n : std::as_const(m_disabledBreakpoints))
    mark(m_byNode.value(n), NodeItem::BreakpointDisabled);
  for (const QString& n : std::as_const(m_searchHits))
    mark(itemForNode(n), NodeItem::SearchHit);
  if (!m_current.isEmpty()) mark(itemForNode(m_current), NodeItem::Current);
  if (!m_failed.isEmpty()) mark(itemForNode(m_failed), NodeItem::Failed);
  for (NodeItem* item : std::as_const(m_nodes)) {
    item->setHeat(m_heat.value(item->key()));
    const unsigned want = states.value(item, 0u);
    for (unsigned bit = 1; bit <= kAll; bit <<= 1)
      item->setState(static_cast<NodeItem::State>(bit), (want & bit) != 0);
  }
}

} // namespace lattice::studio
