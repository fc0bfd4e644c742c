// Hierarchy navigation on the model graph (offscreen): Expand All / Collapse All / Expand to
// Depth N against the grouping's groups and the depths read from their module paths; one click
// on a group's indicator expands or collapses it, and a click on a frame's title selects its
// module without moving the view; the keyboard's expand and collapse; the context menu's
// entries, enabled where they apply, doing what they say (breakpoint, copy, leaf decision, run
// to here, show in MLIR); large graphs opening as an overview of collapsed groups; and Help ▸
// Keyboard Shortcuts listing the graph's keys (the arrow-key walk included) with no key bound
// twice in the window.

#include "GraphTestSupport.h"
#include "LeafEdits.h"
#include "MainWindow.h"
#include "StudioSession.h"
#include "WidgetTestSupport.h"
#include "fx/Graph.h"
#include "graph/ClusterItem.h"
#include "graph/GraphScene.h"
#include "graph/GraphView.h"
#include "graph/GraphWidget.h"
#include "graph/NodeItem.h"
#include "help/HelpDialogs.h"
#include "layout/GraphGrouping.h"
#include "model/Model.h"

#include <QtCore/QSortFilterProxyModel>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtGui/QClipboard>
#include <QtGui/QImage>
#include <QtGui/QPainter>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QMenu>

#include <algorithm>
#include <set>

using namespace lattice;
using namespace lattice::studio;
using lattice::widgettest::openAndWait;
using lattice::widgettest::waitForLayout;
using lattice::widgettest::waitFor;

namespace {

struct Fixture {
  StudioSession session;
  GraphWidget widget{&session};

  bool open(const QString& reference) {
    QSignalSpy finished(&widget, &GraphWidget::layoutFinished);
    widget.resize(1200, 800);
    widget.show();
    return openAndWait(session, reference) && waitForLayout(widget, finished);
  }
  /// Runs `change` and waits for the layout it asks for.
  bool relaid(const std::function<void()>& change) {
    QSignalSpy finished(&widget, &GraphWidget::layoutFinished);
    change();
    return waitForLayout(widget, finished);
  }
  std::set<std::string> expanded() const {
    return {widget.expandedGroups().begin(), widget.expandedGroups().end()};
  }
  QStringList clusters() const {
    QStringList out;
    for (ClusterItem* c : widget.scene()->clusterItems())
      out << c->modulePath();
    out.sort();
    return out;
  }
  QStringList groupBoxes() const {
    QStringList out;
    for (NodeItem* item : widget.scene()->nodeItems())
      if (item->isGroup()) out << item->key();
    out.sort();
    return out;
  }
  NodeItem* selectedBox() const {
    const QList<QGraphicsItem*> s = widget.scene()->selectedItems();
    return s.size() == 1 ? qgraphicsitem_cast<NodeItem*>(s.front()) : nullptr;
  }
};

/// Module depth read from a path: its number of components ("stages.1.0" is 3).
int pathDepth(const std::string& path) {
  return int(std::count(path.begin(), path.end(), '.')) + 1;
}

QAction* entry(QMenu* menu, const char* id) {
  return menu->findChild<QAction*>(QString::fromLatin1(id));
}

} // namespace

class TestGraphHierarchy : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void expandAllCollapseAllAndDepth();
  void oneClickOnTheIndicatorTogglesAGroup();
  void keysExpandAndCollapse();
  void contextMenuOfNodesAndGroups();
  void contextMenuRunsAndShowsMlir();
  void largeGraphsOpenAsAnOverview();
  void windowActionsAndShortcutsTable();
};

void TestGraphHierarchy::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  lattice::widgettest::isolateSettings(QStringLiteral("tst_graph_hierarchy"));
}

void TestGraphHierarchy::expandAllCollapseAllAndDepth() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:sparse_resnet21d")));
  const GraphGrouping* grouping = f.widget.grouping();
  QVERIFY(grouping);
  const fx::Graph* graph = f.session.graph();
  QVERIFY(graph->size() <= GraphWidget::kOverviewAbove); // opens fully expanded
  std::set<std::string> all;
  int deepest = 0;
  for (std::size_t g = 1; g < grouping->groups().size(); ++g) {
    QVERIFY(!grouping->groups()[g].synthetic); // depths below come from module paths
    all.insert(grouping->groups()[g].path);
    deepest = std::max(deepest, pathDepth(grouping->groups()[g].path));
  }
  QVERIFY(all.size() > 5);
  QVERIFY(deepest >= 3);
  QCOMPARE(f.expanded(), all);

  // Collapse All: no group open, the root's sub-groups are boxes.
  QVERIFY(f.relaid([&] { f.widget.graphAction(QStringLiteral("view.collapseAll"))->trigger(); }));
  QVERIFY(f.expanded().empty());
  QVERIFY(f.clusters().isEmpty());
  QStringList top;
  for (const std::string& p : all)
    if (pathDepth(p) == 1) top << QString::fromStdString(p);
  top.sort();
  QCOMPARE(f.groupBoxes(), top);

  // Depth N: exactly the groups whose path has at most N components are open; the boxes are
  // the groups one level deeper.
  for (int depth = 1; depth < deepest; ++depth) {
    const QString id = QStringLiteral("view.expandDepth%1").arg(depth);
    QVERIFY(f.relaid([&] { f.widget.graphAction(id)->trigger(); }));
    std::set<std::string> want;
    QStringList frames, boxes;
    for (const std::string& p : all) {
      if (pathDepth(p) <= depth) {
        want.insert(p);
        frames << QString::fromStdString(p);
      } else if (pathDepth(p) == depth + 1) {
        boxes << QString::fromStdString(p);
      }
    }
    frames.sort();
    boxes.sort();
    QCOMPARE(f.expanded(), want);
    QCOMPARE(f.clusters(), frames);
    QCOMPARE(f.groupBoxes(), boxes);
  }

  // Expand All: every group of the grouping, every FX node its own box.
  QVERIFY(f.relaid([&] { f.widget.graphAction(QStringLiteral("view.expandAll"))->trigger(); }));
  QCOMPARE(f.expanded(), all);
  QVERIFY(f.groupBoxes().isEmpty());
  QCOMPARE(f.widget.scene()->nodeItems().size(), qsizetype(graph->size()));
}

void TestGraphHierarchy::oneClickOnTheIndicatorTogglesAGroup() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:3")));
  GraphScene* scene = f.widget.scene();
  GraphView* view = f.widget.view();
  QVERIFY(f.relaid([&] { f.widget.collapseAll(); }));
  QVERIFY(scene->groupItem(QStringLiteral("blocks")));
  view->setZoom(1.0);

  // One click on the box's "+" expands it.
  GroupToggleItem* plus = scene->toggleItem(QStringLiteral("blocks"));
  QVERIFY(plus);
  QVERIFY(!plus->isExpanded());
  QCOMPARE(plus->parentItem(), static_cast<QGraphicsItem*>(scene->groupItem(QStringLiteral("blocks"))));
  view->centerOn(plus);
  QVERIFY(f.relaid([&] {
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(plus->scenePos()));
  }));
  QVERIFY(f.expanded().count("blocks"));
  ClusterItem* frame = scene->clusterItem(QStringLiteral("blocks"));
  QVERIFY(frame);
  QVERIFY(!scene->groupItem(QStringLiteral("blocks")));

  // A click on the frame's title selects the module and leaves the view where it is (no
  // re-centring under the pointer before a second click).
  const QRectF title = frame->titleRect();
  const QPointF onTitle(title.left() + title.width() * 0.6, title.center().y());
  view->centerOn(onTitle + QPointF(0, 150));
  const QPoint at = view->mapFromScene(onTitle);
  QVERIFY(view->viewport()->rect().contains(at));
  const QPointF centre = view->mapToScene(view->viewport()->rect().center());
  QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
  QCOMPARE(f.session.selectedModule(), QStringLiteral("blocks"));
  QCOMPARE(view->mapToScene(view->viewport()->rect().center()), centre);
  QVERIFY(f.expanded().count("blocks")); // a single click on the title does not collapse

  // One click on the frame's "−" collapses it again.
  GroupToggleItem* minus = scene->toggleItem(QStringLiteral("blocks"));
  QVERIFY(minus);
  QVERIFY(minus->isExpanded());
  QCOMPARE(minus->parentItem(), static_cast<QGraphicsItem*>(frame));
  QVERIFY(f.relaid([&] {
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(minus->scenePos()));
  }));
  QVERIFY(!f.expanded().count("blocks"));
  QVERIFY(scene->groupItem(QStringLiteral("blocks")));

  // An exported picture leaves the indicators out (and the view keeps them): where the "+"
  // has its dark cross, the picture shows the box's light face.
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("graph.png"));
  QString error;
  QVERIFY2(f.widget.exportImage(png, &error), qPrintable(error));
  GroupToggleItem* shown = scene->toggleItem(QStringLiteral("blocks"));
  QVERIFY(shown->isVisible());
  const QImage image(png);
  QVERIFY(!image.isNull());
  const QRectF source = scene->itemsBoundingRect().adjusted(-20, -20, 20, 20);
  const qreal scale = image.width() / source.width();
  const QPoint spot = ((shown->scenePos() - source.topLeft()) * scale).toPoint();
  QVERIFY2(qGray(image.pixel(spot)) > 150, qPrintable(QString::number(qGray(image.pixel(spot)))));
  // With the indicator drawn, the same spot is dark.
  QImage withIndicator(image.size(), QImage::Format_ARGB32_Premultiplied);
  withIndicator.fill(Qt::white);
  QPainter painter(&withIndicator);
  scene->render(&painter, QRectF(QPointF(0, 0), QSizeF(image.size())), source);
  painter.end();
  QVERIFY2(qGray(withIndicator.pixel(spot)) < 100, qPrintable(QString::number(qGray(withIndicator.pixel(spot)))));
}

void TestGraphHierarchy::keysExpandAndCollapse() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:3")));
  GraphScene* scene = f.widget.scene();
  GraphView* view = f.widget.view();
  QVERIFY(f.relaid([&] { f.widget.collapseAll(); }));
  f.widget.activateWindow();
  view->setFocus();
  const bool focused = QTest::qWaitForWindowActive(&f.widget) && QApplication::focusWidget() == view;
  QAction* expand = f.widget.graphAction(QStringLiteral("view.expandGroup"));
  QAction* collapse = f.widget.graphAction(QStringLiteral("view.collapseGroup"));
  QSignalSpy expanded(expand, &QAction::triggered);
  QSignalSpy collapsed(collapse, &QAction::triggered);

  // Shift+Right on a selected group box opens it and selects its first box.
  f.session.selectModule(QStringLiteral("blocks"));
  QCOMPARE(f.selectedBox(), scene->groupItem(QStringLiteral("blocks")));
  QVERIFY(f.relaid([&] { QTest::keyClick(view, Qt::Key_Right, Qt::ShiftModifier); }));
  QVERIFY(f.expanded().count("blocks"));
  QVERIFY(f.selectedBox());
  QCOMPARE(f.selectedBox()->key(), QStringLiteral("blocks.0")); // blocks' first child, still closed
  QCOMPARE(f.session.selectedModule(), QStringLiteral("blocks.0"));
  // Return opens it too; its first box is a node.
  QVERIFY(f.relaid([&] { QTest::keyClick(view, Qt::Key_Return); }));
  QVERIFY(f.expanded().count("blocks.0"));
  QCOMPARE(f.session.selectedNode(), QStringLiteral("blocks_0_0"));
  // The arrow-key walk goes on from there.
  QTest::keyClick(view, Qt::Key_Down);
  QCOMPARE(f.session.selectedNode(), QStringLiteral("blocks_0_1"));
  // Shift+Left collapses the group around the selected box and selects the group's box, and
  // again one level up.
  QVERIFY(f.relaid([&] { QTest::keyClick(view, Qt::Key_Left, Qt::ShiftModifier); }));
  QVERIFY(!f.expanded().count("blocks.0"));
  QCOMPARE(f.selectedBox(), scene->groupItem(QStringLiteral("blocks.0")));
  QVERIFY(f.relaid([&] { QTest::keyClick(view, Qt::Key_Left, Qt::ShiftModifier); }));
  QVERIFY(!f.expanded().count("blocks"));
  QCOMPARE(f.selectedBox(), scene->groupItem(QStringLiteral("blocks")));
  if (focused) { // with the focus on the view the keys are the actions' (else the view's own)
    QCOMPARE(expanded.count(), 2);
    QCOMPARE(collapsed.count(), 2);
  } else {
    qWarning("the view had no focus: its own key handling was tested, not the actions'");
  }
  // A node at the top (the input) has no group around it: nothing to collapse.
  f.session.selectNode(QStringLiteral("x"));
  QSignalSpy started(&f.widget, &GraphWidget::layoutStarted);
  collapse->trigger();
  expand->trigger();
  QTest::qWait(100);
  QCOMPARE(started.count(), 0);
}

void TestGraphHierarchy::contextMenuOfNodesAndGroups() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:3")));
  GraphScene* scene = f.widget.scene();
  const Model* model = f.session.model();

  // A leaf module's node.
  NodeItem* conv = scene->nodeItem(QStringLiteral("blocks_1_0"));
  QVERIFY(conv);
  std::unique_ptr<QMenu> menu(f.widget.createContextMenu(conv, &f.widget));
  for (const char* id : {"graph.expand", "graph.collapse", "graph.breakpoint", "graph.runToHere", "graph.keepLeaf",
                         "graph.inline", "graph.copyName", "graph.showInMlir"})
    QVERIFY2(entry(menu.get(), id), id);
  QVERIFY(!entry(menu.get(), "graph.expand")->isEnabled());
  QVERIFY(entry(menu.get(), "graph.collapse")->isEnabled());
  QVERIFY(entry(menu.get(), "graph.collapse")->text().contains(QStringLiteral("blocks.1")));
  QVERIFY(entry(menu.get(), "graph.breakpoint")->isEnabled());
  QVERIFY(!entry(menu.get(), "graph.breakpoint")->isChecked());
  QVERIFY(entry(menu.get(), "graph.runToHere")->isEnabled());
  QVERIFY(!entry(menu.get(), "graph.keepLeaf")->isEnabled()); // it is a leaf already
  // A library module (no forward graph of its own) cannot be inlined.
  const ModuleInfo* convModule = model->module("blocks.1.0");
  QVERIFY(convModule);
  QCOMPARE(entry(menu.get(), "graph.inline")->isEnabled(), convModule->graph != nullptr);
  QVERIFY(entry(menu.get(), "graph.copyName")->isEnabled());
  QVERIFY(!entry(menu.get(), "graph.showInMlir")->isEnabled()); // nothing lowered yet

  // Toggle Breakpoint and Copy Name do what they say.
  entry(menu.get(), "graph.breakpoint")->trigger();
  QVERIFY(f.session.breakpoints().contains(QStringLiteral("blocks_1_0")));
  QVERIFY(conv->hasState(NodeItem::Breakpoint));
  menu.reset(f.widget.createContextMenu(conv, &f.widget));
  QVERIFY(entry(menu.get(), "graph.breakpoint")->isChecked());
  entry(menu.get(), "graph.breakpoint")->trigger();
  QVERIFY(!f.session.breakpoints().contains(QStringLiteral("blocks_1_0")));
  QApplication::clipboard()->clear();
  entry(menu.get(), "graph.copyName")->trigger();
  QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("blocks_1_0"));

  // An expanded group's frame: collapse it, keep it as a leaf; no debugger entries.
  ClusterItem* frame = scene->clusterItem(QStringLiteral("blocks.1"));
  QVERIFY(frame);
  menu.reset(f.widget.createContextMenu(frame, &f.widget));
  QVERIFY(!entry(menu.get(), "graph.expand")->isEnabled());
  QVERIFY(entry(menu.get(), "graph.collapse")->isEnabled());
  QCOMPARE(entry(menu.get(), "graph.collapse")->text(), QStringLiteral("Collapse blocks.1"));
  QVERIFY(!entry(menu.get(), "graph.breakpoint")->isEnabled());
  QVERIFY(!entry(menu.get(), "graph.runToHere")->isEnabled());
  QVERIFY(!entry(menu.get(), "graph.showInMlir")->isEnabled());
  QVERIFY(!f.session.isLeaf(QStringLiteral("blocks.1")));
  QVERIFY(entry(menu.get(), "graph.keepLeaf")->isEnabled());
  QVERIFY(!entry(menu.get(), "graph.inline")->isEnabled());
  entry(menu.get(), "graph.copyName")->trigger();
  QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("blocks.1"));

  // Collapse from the frame's menu: the group becomes a box, whose menu expands it.
  QVERIFY(f.relaid([&] { entry(menu.get(), "graph.collapse")->trigger(); }));
  NodeItem* box = scene->groupItem(QStringLiteral("blocks.1"));
  QVERIFY(box);
  menu.reset(f.widget.createContextMenu(box, &f.widget));
  QVERIFY(entry(menu.get(), "graph.expand")->isEnabled());
  QCOMPARE(entry(menu.get(), "graph.collapse")->text(), QStringLiteral("Collapse blocks")); // the group around it
  QVERIFY(!entry(menu.get(), "graph.breakpoint")->isEnabled());
  QVERIFY(entry(menu.get(), "graph.keepLeaf")->isEnabled());
  // The indicator's menu is its group's.
  std::unique_ptr<QMenu> viaToggle(f.widget.createContextMenu(scene->toggleItem(QStringLiteral("blocks.1")), &f.widget));
  QCOMPARE(entry(viaToggle.get(), "graph.expand")->text(), entry(menu.get(), "graph.expand")->text());
  QVERIFY(f.relaid([&] { entry(menu.get(), "graph.expand")->trigger(); }));
  QVERIFY(scene->clusterItem(QStringLiteral("blocks.1")));

  // Keep as Leaf re-traces with the override, as one undoable step.
  LeafEdits* edits = LeafEdits::of(&f.session);
  const int steps = edits->count();
  menu.reset(f.widget.createContextMenu(scene->clusterItem(QStringLiteral("blocks.1")), &f.widget));
  QVERIFY(f.relaid([&] { entry(menu.get(), "graph.keepLeaf")->trigger(); }));
  QVERIFY(f.session.isLeaf(QStringLiteral("blocks.1")));
  QVERIFY(f.session.graph()->findNode("blocks_1"));
  QCOMPARE(edits->count(), steps + 1);
  // The new call_module node offers Inline (the block has a forward graph), which undoes it.
  NodeItem* kept = scene->nodeItem(QStringLiteral("blocks_1"));
  QVERIFY(kept);
  menu.reset(f.widget.createContextMenu(kept, &f.widget));
  QVERIFY(!entry(menu.get(), "graph.keepLeaf")->isEnabled());
  QVERIFY(entry(menu.get(), "graph.inline")->isEnabled());
  QVERIFY(f.relaid([&] { entry(menu.get(), "graph.inline")->trigger(); }));
  QVERIFY(!f.session.isLeaf(QStringLiteral("blocks.1")));
  QVERIFY(f.session.graph()->findNode("blocks_1_0"));
  QVERIFY(!LeafEdits::of(&f.session)->overrideOf(QStringLiteral("blocks.1"))); // back to the default
  QVERIFY(f.relaid([&] { edits->undo(); }));
  QVERIFY(f.session.isLeaf(QStringLiteral("blocks.1")));

  // The background's menu: the whole graph's actions.
  menu.reset(f.widget.createContextMenu(nullptr, &f.widget));
  QVERIFY(menu->actions().contains(f.widget.graphAction(QStringLiteral("view.expandAll"))));
  QVERIFY(menu->actions().contains(f.widget.graphAction(QStringLiteral("view.collapseAll"))));
}

void TestGraphHierarchy::contextMenuRunsAndShowsMlir() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:3")));
  GraphScene* scene = f.widget.scene();
  std::unique_ptr<QMenu> menu(f.widget.createContextMenu(scene->nodeItem(QStringLiteral("blocks_1_1")), &f.widget));
  entry(menu.get(), "graph.runToHere")->trigger();
  QTRY_VERIFY_WITH_TIMEOUT(!f.session.isRunning(), 30000);
  QCOMPARE(f.session.currentNode(), QStringLiteral("blocks_1_1"));
  // The current node is not "here" to run to; an executed one is (by restarting).
  menu.reset(f.widget.createContextMenu(scene->nodeItem(QStringLiteral("blocks_1_1")), &f.widget));
  QVERIFY(!entry(menu.get(), "graph.runToHere")->isEnabled());
  QVERIFY(!entry(menu.get(), "graph.showInMlir")->isEnabled()); // not lowered yet
  menu.reset(f.widget.createContextMenu(scene->nodeItem(QStringLiteral("blocks_0_0")), &f.widget));
  QVERIFY(entry(menu.get(), "graph.runToHere")->isEnabled());
  // An executed node emitted its ops: Show in MLIR selects it and asks for the panel.
  QAction* mlir = entry(menu.get(), "graph.showInMlir");
  QVERIFY(mlir->isEnabled());
  QSignalSpy shown(&f.widget, &GraphWidget::showInMlirRequested);
  mlir->trigger();
  QCOMPARE(f.session.selectedNode(), QStringLiteral("blocks_0_0"));
  QCOMPARE(shown.count(), 1);
  QCOMPARE(shown.front().front().toString(), QStringLiteral("blocks_0_0"));

  // In the window, the MLIR panel comes forward.
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  QVERIFY(openAndWait(*window.session(), QStringLiteral("example:chain:2")));
  auto* dock = window.findChild<QDockWidget*>(QStringLiteral("mlirDock"));
  QVERIFY(dock);
  dock->hide();
  window.session()->startInterpreter();
  window.session()->step();
  window.session()->step();
  QVERIFY(waitFor([&] { return window.graphWidget()->scene()->nodeItem(QStringLiteral("blocks_0_0")); }));
  menu.reset(window.graphWidget()->createContextMenu(
      window.graphWidget()->scene()->nodeItem(QStringLiteral("blocks_0_0")), &window));
  entry(menu.get(), "graph.showInMlir")->trigger();
  QVERIFY(dock->isVisible());
  menu.reset(); // before the window that parents it
}

void TestGraphHierarchy::largeGraphsOpenAsAnOverview() {
  // chain:100 has 3 × 100 + 2 = 302 nodes: every group collapsed, `blocks` one box (opening the
  // lone wrapper would show 102 boxes, more than an overview).
  {
    Fixture f;
    QVERIFY(f.open(QStringLiteral("example:chain:100")));
    QCOMPARE(f.session.graph()->size(), std::size_t(302));
    QVERIFY(f.session.graph()->size() > GraphWidget::kOverviewAbove);
    QVERIFY(f.expanded().empty());
    QVERIFY(f.clusters().isEmpty());
    QCOMPARE(f.groupBoxes(), QStringList{QStringLiteral("blocks")});
    QCOMPARE(f.widget.scene()->nodeItems().size(), 3); // x, blocks, output
  }
  // chain:99 has 299 nodes: fully expanded, as before.
  {
    Fixture f;
    QVERIFY(f.open(QStringLiteral("example:chain:99")));
    QCOMPARE(f.session.graph()->size(), std::size_t(299));
    QVERIFY(f.groupBoxes().isEmpty());
    QCOMPARE(f.widget.scene()->nodeItems().size(), qsizetype(299));
  }
  // chain:201 (605 nodes): `blocks` is chunked into blocks[0..99], blocks[100..199] and the
  // lone blocks.200; as the only group at the top it opens, showing 5 boxes.
  {
    Fixture f;
    QVERIFY(f.open(QStringLiteral("example:chain:201")));
    QCOMPARE(f.expanded(), (std::set<std::string>{"blocks"}));
    QCOMPARE(f.groupBoxes(), (QStringList{"blocks.200", "blocks[0..99]", "blocks[100..199]"}));
    QCOMPARE(f.widget.scene()->nodeItems().size(), 5);
  }
}

void TestGraphHierarchy::windowActionsAndShortcutsTable() {
  MainWindow window;
  // The hierarchy's actions are the window's, in the View menu, with their keys.
  const QList<std::pair<QString, QKeySequence>> keys = {
      {"view.expandAll", QKeySequence(QStringLiteral("Ctrl+Shift+E"))},
      {"view.collapseAll", QKeySequence(QStringLiteral("Ctrl+Shift+C"))},
      {"view.expandDepth1", QKeySequence(QStringLiteral("Ctrl+Alt+1"))},
      {"view.expandDepth5", QKeySequence(QStringLiteral("Ctrl+Alt+5"))},
      {"view.expandGroup", QKeySequence(QStringLiteral("Shift+Right"))},
      {"view.collapseGroup", QKeySequence(QStringLiteral("Shift+Left"))},
      {"view.goProducer", QKeySequence(Qt::Key_Up)},
      {"view.goConsumer", QKeySequence(Qt::Key_Down)},
      {"view.previousSibling", QKeySequence(Qt::Key_Left)},
      {"view.nextSibling", QKeySequence(Qt::Key_Right)},
  };
  for (const auto& [id, key] : keys) {
    QAction* a = window.action(id);
    QVERIFY2(a, qPrintable(id));
    QCOMPARE(a->shortcut(), key);
    QCOMPARE(a, window.graphWidget()->graphAction(id));
  }
  QVERIFY(window.action(QStringLiteral("view.expandGroup"))->shortcuts().contains(QKeySequence(Qt::Key_Return)));
  // The view's own keys work only with the graph focused.
  QCOMPARE(window.action(QStringLiteral("view.goProducer"))->shortcutContext(), Qt::WidgetShortcut);
  // Nothing open: nothing to expand.
  QVERIFY(!window.action(QStringLiteral("view.expandAll"))->isEnabled());

  // No key is bound twice among the window's shortcuts (an ambiguous key does nothing).
  QHash<QString, QString> owner;
  for (QAction* a : window.shortcutActions()) {
    if (a->shortcutContext() == Qt::WidgetShortcut) continue;
    for (const QKeySequence& k : a->shortcuts()) {
      const QString text = k.toString(QKeySequence::PortableText);
      QVERIFY2(!owner.contains(text), qPrintable(text + QStringLiteral(": ") + owner.value(text) +
                                                  QStringLiteral(" and ") + a->objectName()));
      owner.insert(text, a->objectName());
    }
  }

  // Help ▸ Keyboard Shortcuts lists the walk, the expand and collapse keys and the gestures.
  window.resize(600, 400); // the menu bar overflows: its overflow popup is no menu of the path
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  window.action(QStringLiteral("help.shortcuts"))->trigger();
  ShortcutsDialog* dialog = window.shortcutsDialog();
  QVERIFY(dialog);
  QHash<QString, QString> rows;
  QHash<QString, QString> where;
  for (int r = 0; r < dialog->rows()->rowCount(); ++r) {
    const QString action = dialog->rows()->index(r, ShortcutsDialog::ActionColumn).data().toString();
    rows.insert(action, dialog->rows()->index(r, ShortcutsDialog::ShortcutColumn).data().toString());
    where.insert(action, dialog->rows()->index(r, ShortcutsDialog::MenuColumn).data().toString());
  }
  const auto native = [](const QKeySequence& k) { return k.toString(QKeySequence::NativeText); };
  QCOMPARE(rows.value(QStringLiteral("Go to Producer")), native(QKeySequence(Qt::Key_Up)));
  QCOMPARE(rows.value(QStringLiteral("Go to Consumer")), native(QKeySequence(Qt::Key_Down)));
  QCOMPARE(rows.value(QStringLiteral("Previous Sibling")), native(QKeySequence(Qt::Key_Left)));
  QCOMPARE(rows.value(QStringLiteral("Next Sibling")), native(QKeySequence(Qt::Key_Right)));
  QVERIFY(rows.value(QStringLiteral("Expand Group")).contains(native(QKeySequence(QStringLiteral("Shift+Right")))));
  QVERIFY(rows.value(QStringLiteral("Collapse Group")).contains(native(QKeySequence(QStringLiteral("Shift+Left")))));
  QCOMPARE(rows.value(QStringLiteral("Expand All Groups")), native(QKeySequence(QStringLiteral("Ctrl+Shift+E"))));
  QCOMPARE(rows.value(QStringLiteral("Expand to Depth 2")), native(QKeySequence(QStringLiteral("Ctrl+Alt+2"))));
  QCOMPARE(where.value(QStringLiteral("Go to Producer")), QStringLiteral("View ▸ Navigate Graph"));
  QCOMPARE(where.value(QStringLiteral("Expand to Depth 2")), QStringLiteral("View ▸ Expand to Depth"));
  QCOMPARE(where.value(QStringLiteral("Toggle Breakpoint")), QStringLiteral("Debug"));
  for (const ShortcutsDialog::KeyRow& row : ShortcutsDialog::otherKeys())
    QCOMPARE(rows.value(row.action), row.keys);
  QVERIFY(rows.value(QStringLiteral("Zoom in (graph key)")).contains(QLatin1Char('+')));
  dialog->searchField()->setText(QStringLiteral("sibling"));
  QCOMPARE(dialog->rows()->rowCount(), 2);
}

QTEST_MAIN(TestGraphHierarchy)
#include "tst_graph_hierarchy.moc"
