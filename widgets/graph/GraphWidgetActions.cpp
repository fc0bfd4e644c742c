// GraphWidget's actions and menus: the graph's own actions (expand / collapse, the keyboard
// walk; ModelDocument puts them in View), Expand All / Collapse All / Expand to Depth and the
// keyboard's expand / collapse of the selection, and the right-click menu on nodes, groups and the
// background. The rest of the class is in GraphWidget.cpp.

#include "graph/GraphWidget.h"

#include "LeafEdits.h"
#include "quant/QuantFormatMenu.h"
#include "quant/QuantizationState.h"
#include "StudioSession.h"
#include "graph/ClusterItem.h"
#include "graph/GraphScene.h"
#include "graph/NodeItem.h"
#include "model/Model.h"
#include "panels/ModuleTreeModel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QInputDialog>
#include <QActionGroup>
#include <QMenu>

namespace lattice::studio {

namespace {
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}
} // namespace

// --- the graph's actions ---------------------------------------------------------------------

void GraphWidget::createActions() {
  const auto make = [this](const char* id, const QString& text, const QList<QKeySequence>& keys, auto slot) {
    auto* a = new QAction(text, this);
    a->setObjectName(QString::fromLatin1(id));
    a->setShortcuts(keys);
    connect(a, &QAction::triggered, this, slot);
    m_actions << a;
    return a;
  };
  // Window shortcuts: they act on the whole graph. (The model tab also puts them in its menu.)
  make("view.expandAll", tr("Expand &All Groups"), {QKeySequence(tr("Ctrl+Shift+E"))}, [this] { expandAll(); });
  make("view.collapseAll", tr("&Collapse All Groups"), {QKeySequence(tr("Ctrl+Shift+C"))},
       [this] { collapseAll(); });
  for (int depth = 1; depth <= kDepthKeys; ++depth) {
    const QByteArray id = "view.expandDepth" + QByteArray::number(depth);
    make(id.constData(), tr("Expand to Depth &%1").arg(depth),
         {QKeySequence(tr("Ctrl+Alt+%1").arg(depth))}, [this, depth] { expandToDepth(depth); });
  }
  make("view.expandDepth", tr("Expand to &Depth…"), {}, [this] {
    bool ok = false;
    const int depth = QInputDialog::getInt(window(), tr("Expand to Depth"),
                                           tr("Open the module groups down to depth (1: the top-level groups):"),
                                           kDepthKeys + 1, 0, 1000, 1, &ok);
    if (ok) expandToDepth(depth);
  });
  for (QAction* a : std::as_const(m_actions))
    addAction(a); // works without a menu too (a widget of its own, in tests)

  // Keys of the focused view (widget shortcuts: the search field and the panels keep theirs).
  const auto key = [this, &make](const char* id, const QString& text, const QList<QKeySequence>& keys, auto slot) {
    QAction* a = make(id, text, keys, slot);
    a->setShortcutContext(Qt::WidgetShortcut);
    m_view->addAction(a);
  };
  key("view.expandGroup", tr("E&xpand Group"), {QKeySequence(Qt::SHIFT | Qt::Key_Right), QKeySequence(Qt::Key_Return)},
      [this] { expandSelected(); });
  key("view.collapseGroup", tr("C&ollapse Group"), {QKeySequence(Qt::SHIFT | Qt::Key_Left)},
      [this] { collapseSelected(); });
  key("view.goProducer", tr("Go to &Producer"), {QKeySequence(Qt::Key_Up)},
      [this] { navigate(GraphView::Direction::Up); });
  key("view.goConsumer", tr("Go to C&onsumer"), {QKeySequence(Qt::Key_Down)},
      [this] { navigate(GraphView::Direction::Down); });
  key("view.previousSibling", tr("P&revious Sibling"), {QKeySequence(Qt::Key_Left)},
      [this] { navigate(GraphView::Direction::Left); });
  key("view.nextSibling", tr("&Next Sibling"), {QKeySequence(Qt::Key_Right)},
      [this] { navigate(GraphView::Direction::Right); });
  const std::pair<const char*, QString> tips[] = {
      {"view.goProducer", tr("Select a box feeding the selected one")},
      {"view.goConsumer", tr("Select a box the selected one feeds")},
      {"view.previousSibling", tr("The previous of the other producers or consumers of the last move")},
      {"view.nextSibling", tr("The next of the other producers or consumers of the last move")},
      {"view.expandGroup", tr("Expand the selected group")},
      {"view.collapseGroup", tr("Collapse the group around the selected box")},
  };
  for (const auto& [id, tip] : tips)
    graphAction(QString::fromLatin1(id))->setToolTip(tip);
}

QAction* GraphWidget::graphAction(const QString& id) const {
  for (QAction* a : m_actions)
    if (a->objectName() == id) return a;
  return nullptr;
}

// --- expand and collapse --------------------------------------------------------------------

void GraphWidget::expandAll() {
  if (m_grouping) setExpansion(fullExpansion(*m_grouping));
}

void GraphWidget::collapseAll() {
  setExpansion({});
}

void GraphWidget::expandToDepth(int depth) {
  if (m_grouping) setExpansion(expansionToDepth(*m_grouping, depth));
}

void GraphWidget::expandSelected() {
  const QList<QGraphicsItem*> selected = m_scene->selectedItems();
  NodeItem* box = selected.size() == 1 ? qgraphicsitem_cast<NodeItem*>(selected.front()) : nullptr;
  if (!box || !box->isGroup() || !m_hierarchical) return;
  m_pendingFirstChildOf = box->key();
  expandGroup(box->key());
}

void GraphWidget::collapseSelected() {
  if (!m_hierarchical) return;
  const QList<QGraphicsItem*> selected = m_scene->selectedItems();
  NodeItem* box = selected.size() == 1 ? qgraphicsitem_cast<NodeItem*>(selected.front()) : nullptr;
  QString path;
  if (box)
    path = enclosingGroupOf(box);
  else if (m_session->hasModuleSelection() && m_scene->clusterItem(m_session->selectedModule()))
    path = m_session->selectedModule(); // a frame whose title was clicked
  if (path.isEmpty()) return;
  m_pendingGroupBox = path;
  collapseGroup(path);
}

QString GraphWidget::enclosingGroupOf(const NodeItem* item) const {
  if (!item || !m_grouping) return {};
  int g = -1;
  if (item->isGroup()) {
    const int own = m_grouping->findGroup(item->key().toStdString());
    g = own > 0 ? m_grouping->groups()[std::size_t(own)].parent : -1;
  } else {
    const int n = m_grouping->findNode(item->key().toStdString());
    g = n >= 0 ? m_grouping->nodes()[std::size_t(n)].group : -1;
  }
  return g > 0 ? qs(m_grouping->groups()[std::size_t(g)].path) : QString();
}

QString GraphWidget::groupPathOf(QGraphicsItem* item) const {
  if (auto* toggle = qgraphicsitem_cast<GroupToggleItem*>(item)) return toggle->groupPath();
  if (auto* node = qgraphicsitem_cast<NodeItem*>(item)) return node->isGroup() ? node->key() : QString();
  if (auto* cluster = qgraphicsitem_cast<ClusterItem*>(item)) return cluster->modulePath();
  return {};
}

// --- the right-click menu --------------------------------------------------------------------

void GraphWidget::onContextMenu(QGraphicsItem* item, const QPoint& globalPos) {
  if (auto* toggle = qgraphicsitem_cast<GroupToggleItem*>(item)) item = toggle->parentItem();
  // The menu acts on what was clicked: select it first, as file managers do.
  if (auto* node = qgraphicsitem_cast<NodeItem*>(item)) {
    if (!node->isSelected()) moveSelectionTo(node);
  } else if (qgraphicsitem_cast<ClusterItem*>(item)) {
    onItemClicked(item);
  } else {
    item = nullptr; // edges and the background: the view's menu
  }
  QMenu* menu = createContextMenu(item, this);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->popup(globalPos);
}

QMenu* GraphWidget::createContextMenu(QGraphicsItem* item, QWidget* parent) {
  auto* menu = new QMenu(parent);
  menu->setObjectName(QStringLiteral("graphContextMenu"));
  if (auto* toggle = qgraphicsitem_cast<GroupToggleItem*>(item)) item = toggle->parentItem();
  auto* node = qgraphicsitem_cast<NodeItem*>(item);
  auto* cluster = qgraphicsitem_cast<ClusterItem*>(item);
  if ((!node && !cluster) || !m_grouping) {
    for (const char* id : {"view.expandAll", "view.collapseAll"})
      menu->addAction(graphAction(QString::fromLatin1(id)));
    return menu;
  }
  const auto add = [menu](const char* id, const QString& text, bool enabled) {
    QAction* a = menu->addAction(text);
    a->setObjectName(QString::fromLatin1(id));
    a->setEnabled(enabled);
    return a;
  };
  const QString groupPath = groupPathOf(item);
  const QString nodeName = node && !node->isGroup() ? node->key() : QString();
  const int groupIndex = groupPath.isEmpty() ? -1 : m_grouping->findGroup(groupPath.toStdString());
  const Group* group = groupIndex > 0 ? &m_grouping->groups()[std::size_t(groupIndex)] : nullptr;

  // Expand a collapsed group; collapse an expanded one, or the group around a box.
  const bool collapsedBox = node && node->isGroup();
  QAction* expand = add("graph.expand", collapsedBox ? tr("Expand %1").arg(groupPath) : tr("Expand"),
                        collapsedBox && m_hierarchical);
  const QString outer = cluster ? groupPath : enclosingGroupOf(node);
  QAction* collapse = add("graph.collapse", outer.isEmpty() ? tr("Collapse") : tr("Collapse %1").arg(outer),
                          !outer.isEmpty() && m_hierarchical);
  connect(expand, &QAction::triggered, this, [this, groupPath] { expandGroup(groupPath); });
  connect(collapse, &QAction::triggered, this, [this, outer, cluster] {
    if (!cluster) m_pendingGroupBox = outer; // the box that was selected is hidden: select the group
    collapseGroup(outer);
  });
  menu->addSeparator();

  // The debugger's, on a node.
  const auto state = m_session->interpreterState();
  const bool paused = state == StudioSession::InterpreterState::Paused;
  QAction* breakpoint = add("graph.breakpoint", tr("Toggle &Breakpoint"), !nodeName.isEmpty());
  breakpoint->setCheckable(true);
  breakpoint->setChecked(m_session->breakpoints().contains(nodeName));
  connect(breakpoint, &QAction::triggered, this, [this, nodeName] { m_session->toggleBreakpoint(nodeName); });
  const bool reachable = state == StudioSession::InterpreterState::NotStarted ||
                         (paused && nodeName != m_session->currentNode()) ||
                         m_session->executedNodes().contains(nodeName); // reached again by restarting
  QAction* runTo = add("graph.runToHere", tr("&Run to Here"),
                       !nodeName.isEmpty() && m_session->model() && !m_session->isRunning() && reachable);
  connect(runTo, &QAction::triggered, this, [this, nodeName] { m_session->runToNode(nodeName); });
  menu->addSeparator();

  // The tracer's leaf decision (undoable, as in the module tree): a call_module node can be
  // inlined, an inlined module's group kept as one node.
  QString modulePath;
  if (group && !group->synthetic) modulePath = qs(group->modulePath);
  const int n = nodeName.isEmpty() ? -1 : m_grouping->findNode(nodeName.toStdString());
  if (n >= 0 && m_grouping->nodes()[std::size_t(n)].op == fx::Op::CallModule)
    modulePath = qs(m_grouping->nodes()[std::size_t(n)].target);
  const Model* model = m_session->model();
  const ModuleInfo* module = model && !modulePath.isEmpty() ? model->module(modulePath.toStdString()) : nullptr;
  const bool decidable = module && !isModuleContainer(*module) && !m_session->isRunning();
  const bool leaf = decidable && m_session->isLeaf(modulePath);
  QAction* keep = add("graph.keepLeaf", tr("&Keep as Leaf"), decidable && !leaf);
  QAction* inlineIt = add("graph.inline", tr("&Inline"), decidable && leaf && module->graph != nullptr);
  const auto setLeaf = [this, modulePath](bool want) {
    const Model* m = m_session->model();
    const ModuleInfo* info = m ? m->module(modulePath.toStdString()) : nullptr;
    if (!info) return;
    // Back to the tracer's own decision clears the override instead of pinning it.
    const bool policy = m_session->tracer().isLeafModule(*info, info->path);
    LeafEdits::of(m_session)->set(modulePath, want == policy ? std::nullopt : std::optional<bool>(want));
  };
  connect(keep, &QAction::triggered, this, [setLeaf] { setLeaf(true); });
  connect(inlineIt, &QAction::triggered, this, [setLeaf] { setLeaf(false); });
  menu->addSeparator();

  // The quantization plan's format of the node's layer (undoable, as in the Quantization dock).
  if (QuantizationState* quant = QuantizationState::of(m_session); quant && quant->layerOfNode(nodeName) >= 0) {
    const int layer = quant->layerOfNode(nodeName);
    QMenu* formats = menu->addMenu(tr("&Quantization"));
    formats->setObjectName(QStringLiteral("graph.quantization"));
    addLayerFormatActions(formats, quant, layer, QStringLiteral("graph.quant."));
    menu->addSeparator();
  }

  // Copy the name; show the node's lines in the MLIR panel.
  const QString name = nodeName.isEmpty() ? (group ? qs(group->path) : groupPath) : nodeName;
  QAction* copy = add("graph.copyName", nodeName.isEmpty() ? tr("&Copy Module Path") : tr("&Copy Name"),
                      !name.isEmpty());
  connect(copy, &QAction::triggered, this, [name] { QApplication::clipboard()->setText(name); });
  const PreparedLowering* lowering = m_session->lowering();
  const bool lowered = !nodeName.isEmpty() && lowering && lowering->builder &&
                       !lowering->builder->provenanceOf(nodeName.toStdString()).empty();
  QAction* mlir = add("graph.showInMlir",
                      lowered || nodeName.isEmpty() ? tr("Show in &MLIR") : tr("Show in &MLIR (not lowered yet)"),
                      lowered);
  connect(mlir, &QAction::triggered, this, [this, nodeName] {
    m_session->selectNode(nodeName);
    Q_EMIT showInMlirRequested(nodeName);
  });
  return menu;
}

} // namespace lattice::studio
