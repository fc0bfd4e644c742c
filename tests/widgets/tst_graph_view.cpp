// The graph view over a StudioSession (offscreen): items for every visible node with the
// role styles, module groups collapsed on large graphs and expanded on
// demand, search by name / target / module type, arrow-key moves to producers and consumers,
// selection in both directions, interpreter and breakpoint states, stale and cancelled layouts,
// the flat view's bound, image export, and the main window's menus and panel hook. Expected
// structures are worked out by hand from the chain example (x → 3 layers per block → output)
// or read from the FX graph itself (producers and users), never from the view.

#include "GraphTestSupport.h"
#include "MainWindow.h"
#include "StudioSession.h"
#include "fx/Graph.h"
#include "graph/ClusterItem.h"
#include "graph/EdgeItem.h"
#include "graph/GraphScene.h"
#include "graph/GraphSearch.h"
#include "graph/GraphSearchBar.h"
#include "graph/GraphWidget.h"
#include "graph/LayoutController.h"
#include "graph/NodeFonts.h"
#include "graph/NodeItem.h"
#include "graph/NodeStyle.h"
#include "help/HelpDialogs.h"
#include "layout/GraphGrouping.h"
#include "lowering/LoweringVerdicts.h"
#include "model/Examples.h"
#include "model/LoadModel.h"
#include "panels/ValueTableModel.h"

#include <QAbstractItemModelTester>
#include <QtCore/QSettings>
#include <QtCore/QSortFilterProxyModel>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtGui/QImage>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QMenu>
#include <QtWidgets/QMenuBar>
#include <QtWidgets/QStatusBar>
#include <QtWidgets/QTableView>

#include <set>

using namespace lattice;
using namespace lattice::studio;
using lattice::widgettest::waitForLayout;

namespace {

bool waitForLoad(StudioSession& session, const QString& reference) {
  QSignalSpy loaded(&session, &StudioSession::modelLoaded);
  QSignalSpy failed(&session, &StudioSession::modelLoadFailed);
  session.openModel(reference);
  for (int i = 0; i < 1200 && loaded.isEmpty() && failed.isEmpty(); ++i)
    QTest::qWait(50);
  return !loaded.isEmpty();
}

/// A session and graph widget with `reference` opened and laid out.
struct Fixture {
  StudioSession session;
  GraphWidget widget{&session};

  bool open(const QString& reference) {
    QSignalSpy finished(&widget, &GraphWidget::layoutFinished);
    widget.resize(1200, 800);
    widget.show();
    return waitForLoad(session, reference) && waitForLayout(widget, finished);
  }
  NodeItem* selectedItem() const {
    const QList<QGraphicsItem*> s = widget.scene()->selectedItems();
    return s.size() == 1 ? qgraphicsitem_cast<NodeItem*>(s.front()) : nullptr;
  }
};

QStringList names(const std::vector<fx::Node*>& nodes) {
  QStringList out;
  for (const fx::Node* n : nodes)
    out << QString::fromStdString(n->name());
  return out;
}

} // namespace

class TestGraphView : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void buildsItemForEveryNode_data();
  void buildsItemForEveryNode();
  void chainStructure();
  void nodeRoles();
  void largeGraphStartsCollapsedAndExpandsOnDemand();
  void search_data();
  void search();
  void searchBarWalksHits();
  void arrowKeysMoveToProducersAndConsumers();
  void leftRightCycleThroughConsumers();
  void selectionSyncsBothWays();
  void interpreterAndBreakpointStates();
  void staleLayoutIsDropped();
  void cancelledLayoutReportsCancel();
  void flatViewIsBounded();
  void refusedFlatViewUnticksItsAction();
  void followingZoomsToReadable();
  void nodeToolTipReadsLikeTheValueTable();
  void exportsImages();
  void mainWindowMenusAndPanels();
  void keyboardShortcutsListEveryActionAndSearch();
};

void TestGraphView::initTestCase() {
  QStandardPaths::setTestModeEnabled(true); // QSettings go to a throw-away location
  QCoreApplication::setOrganizationName(QStringLiteral("LatticeTests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_graph_view"));
  QSettings().clear(); // settings are saved as they change: nothing from a previous run
}

void TestGraphView::buildsItemForEveryNode_data() {
  QTest::addColumn<QString>("reference");
  QTest::newRow("chain:3") << QStringLiteral("example:chain:3");
  QTest::newRow("sparse_resnet21d") << QStringLiteral("example:sparse_resnet21d");
  QTest::newRow("sparse_resunet42") << QStringLiteral("example:sparse_resunet42");
  QTest::newRow("point_voxel") << QStringLiteral(LATTICE_TEST_DATA_DIR
                                                 "/conformance/models/point_voxel/model.ltfx");
}

void TestGraphView::buildsItemForEveryNode() {
  QFETCH(QString, reference);
  Fixture f;
  QVERIFY(f.open(reference));
  const fx::Graph* graph = f.session.graph();
  QVERIFY(graph);
  // Up to GraphWidget::kOverviewAbove nodes every group starts expanded: every FX node has its
  // own box, no group box.
  QVERIFY(graph->size() <= GraphWidget::kOverviewAbove);
  int groupBoxes = 0;
  for (NodeItem* item : f.widget.scene()->nodeItems())
    groupBoxes += item->isGroup() ? 1 : 0;
  QCOMPARE(groupBoxes, 0);
  QCOMPARE(f.widget.scene()->nodeItems().size(), qsizetype(graph->size()));
  for (const fx::Node& n : graph->nodes()) {
    NodeItem* item = f.widget.scene()->nodeItem(QString::fromStdString(n.name()));
    QVERIFY2(item, n.name().c_str());
    QCOMPARE(item->role(), classifyNode(n, f.widget.scene()->verdicts()));
    // Boxes lie inside the scene.
    QVERIFY(f.widget.scene()->sceneRect().contains(item->sceneBoundingRect()));
  }
  // One edge per distinct producer → consumer pair of the graph.
  std::set<std::pair<const fx::Node*, const fx::Node*>> pairs;
  for (const fx::Node& n : graph->nodes())
    for (const fx::Node* p : n.inputNodes())
      pairs.insert({p, &n});
  QCOMPARE(f.widget.scene()->edgeItems().size(), qsizetype(pairs.size()));
}

void TestGraphView::chainStructure() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:3")));
  GraphScene* scene = f.widget.scene();
  // x, 3 blocks × 3 layers, output; frames for blocks, blocks.0, blocks.1, blocks.2.
  QCOMPARE(scene->nodeItems().size(), 11);
  QCOMPARE(scene->edgeItems().size(), 10);
  QStringList clusters;
  for (ClusterItem* c : scene->clusterItems())
    clusters << c->modulePath();
  clusters.sort();
  QCOMPARE(clusters, (QStringList{"blocks", "blocks.0", "blocks.1", "blocks.2"}));
  // Top to bottom: each layer lies below its producer.
  QVERIFY(scene->nodeItem("blocks_0_1")->pos().y() > scene->nodeItem("blocks_0_0")->pos().y());
  QVERIFY(scene->nodeItem("output")->pos().y() > scene->nodeItem("blocks_2_2")->pos().y());
  // Each block's layers lie inside the block's frame.
  QVERIFY(scene->clusterItem("blocks.1")
              ->sceneBoundingRect()
              .contains(scene->nodeItem("blocks_1_2")->sceneBoundingRect()));
  // Edges run under the nodes.
  QVERIFY(scene->edgeItems().front()->zValue() < scene->nodeItems().front()->zValue());
}

void TestGraphView::nodeRoles() {
  // Roles from the lowering's verdicts (checkLowering): every opcode, a sparse add the lowering
  // lowers, a function and a method it refuses, a module without a lowering, and what uses a
  // refused node (not reached).
  Model model = makeChain(1);
  fx::Graph g;
  fx::Node* x = g.placeholder("x");
  fx::Node* w = g.getAttr("blocks.0.0.weight");
  fx::Node* conv = g.callModule("blocks.0.0", {fx::Value::node(x)});
  fx::Node* block = g.callModule("blocks.0", {fx::Value::node(x)});
  fx::Node* add = g.callFunction("operator.add", {fx::Value::node(conv), fx::Value::node(x)});
  fx::Node* sin = g.callFunction("torch.sin", {fx::Value::node(add)});
  fx::Node* item = g.callFunction("operator.getitem", {fx::Value::node(sin), fx::Value::integer(0)});
  fx::Node* view = g.callMethod("view", {fx::Value::node(add), fx::Value::integer(-1)});
  fx::Node* out = g.output(fx::Value::tuple({fx::Value::node(item), fx::Value::node(view), fx::Value::node(block)}));
  const Expected<LoweringVerdicts> verdicts = checkLowering(model, {}, g);
  QVERIFY2(verdicts, verdicts ? "" : verdicts.message().c_str());
  const LoweringVerdicts* v = &*verdicts;
  QCOMPARE(classifyNode(*x, v), NodeRole::Placeholder);
  QCOMPARE(classifyNode(*w, v), NodeRole::GetAttr);
  QCOMPARE(classifyNode(*conv, v), NodeRole::LatticeModule); // SubmConv3d lowers
  QCOMPARE(classifyNode(*block, v), NodeRole::OtherModule);  // SparseConvBlock has no lowering
  QCOMPARE(classifyNode(*add, v), NodeRole::LoweredFunction); // two sparse values
  QCOMPARE(classifyNode(*sin, v), NodeRole::Unsupported);
  QCOMPARE(classifyNode(*item, v), NodeRole::Unchecked); // uses the refused sine
  QCOMPARE(classifyNode(*view, v), NodeRole::Unsupported);
  QCOMPARE(classifyNode(*out, v), NodeRole::Output);
  QCOMPARE(classifyNode(*conv, nullptr), NodeRole::Unchecked); // no dry run, no claim
  // Export blockers are the nodes the lowering refuses.
  QVERIFY(roleStyle(NodeRole::Unsupported).blocker);
  QVERIFY(roleStyle(NodeRole::OtherModule).blocker);
  QVERIFY(!roleStyle(NodeRole::LatticeModule).blocker);
  QVERIFY(!roleStyle(NodeRole::LoweredFunction).blocker);
  QVERIFY(!roleStyle(NodeRole::Unchecked).blocker);
  QCOMPARE(nodeLabel(*conv, &model).subtitle, QStringLiteral("SubmConv3d"));
  QCOMPARE(moduleTypeOf(*conv, &model), QStringLiteral("torch_lattice.nn.modules.conv.SubmConv3d"));

  // In the view: a leaf forced on a block becomes an export blocker box.
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:2")));
  QSignalSpy finished(&f.widget, &GraphWidget::layoutFinished);
  f.session.setLeafOverride(QStringLiteral("blocks.1"), true);
  QVERIFY(waitForLayout(f.widget, finished));
  NodeItem* blocker = f.widget.scene()->nodeItem(QStringLiteral("blocks_1"));
  QVERIFY(blocker);
  QTRY_COMPARE_WITH_TIMEOUT(blocker->role(), NodeRole::OtherModule, 30000); // the verdicts are a worker's job
  QCOMPARE(f.widget.scene()->nodeItems().size(), 6); // x, 3 layers of block 0, blocks_1, output
}

void TestGraphView::largeGraphStartsCollapsedAndExpandsOnDemand() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:600"))); // 1 802 nodes
  GraphScene* scene = f.widget.scene();
  int groups = 0;
  for (NodeItem* item : scene->nodeItems())
    groups += item->isGroup() ? 1 : 0;
  QVERIFY(groups > 0);
  QVERIFY(scene->nodeItems().size() <= qsizetype(LayoutController::maxNodesPerLayout()));
  // The last block is hidden; its box is a collapsed group holding it.
  const QString last = QStringLiteral("blocks_599_2");
  QVERIFY(!scene->nodeItem(last));
  NodeItem* holder = scene->itemForNode(last);
  QVERIFY(holder);
  QVERIFY(holder->isGroup());
  // Selecting it elsewhere expands its groups and selects its own box.
  QSignalSpy finished(&f.widget, &GraphWidget::layoutFinished);
  f.session.selectNode(last);
  QVERIFY(waitForLayout(f.widget, finished));
  NodeItem* own = scene->nodeItem(last);
  QVERIFY(own);
  QVERIFY(own->isSelected());
  QVERIFY(f.widget.expandedGroups().count(QStringLiteral("blocks.599").toStdString()));
  // Double-clicking a frame's title collapses it again (via the widget's slot).
  finished.clear();
  f.widget.collapseGroup(QStringLiteral("blocks.599"));
  QVERIFY(waitForLayout(f.widget, finished));
  QVERIFY(!scene->nodeItem(last));
  QVERIFY(scene->groupItem(QStringLiteral("blocks.599")));
  // Selecting the module elsewhere (module tree) selects its box.
  f.session.selectModule(QStringLiteral("blocks.599"));
  QVERIFY(scene->groupItem(QStringLiteral("blocks.599"))->isSelected());
  // Selecting the box selects the module.
  f.session.clearModuleSelection();
  scene->clearSelection();
  scene->groupItem(QStringLiteral("blocks.599"))->setSelected(true);
  QCOMPARE(f.session.selectedModule(), QStringLiteral("blocks.599"));
}

void TestGraphView::search_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QStringList>("hits");
  QTest::newRow("module type") << "SubmConv3d" << QStringList{"blocks_0_0", "blocks_1_0", "blocks_2_0"};
  QTest::newRow("type, any case") << "submconv3D" << QStringList{"blocks_0_0", "blocks_1_0", "blocks_2_0"};
  QTest::newRow("qualified type") << "torch_lattice.nn.modules.norm"
                                  << QStringList{"blocks_0_1", "blocks_1_1", "blocks_2_1"};
  QTest::newRow("name") << "blocks_1" << QStringList{"blocks_1_0", "blocks_1_1", "blocks_1_2"};
  QTest::newRow("target path") << "blocks.2.1" << QStringList{"blocks_2_1"};
  QTest::newRow("input") << "x" << QStringList{"x"};
  QTest::newRow("output") << "output" << QStringList{"output"};
  QTest::newRow("nothing") << "conv2d" << QStringList{};
  QTest::newRow("empty") << "  " << QStringList{};
}

void TestGraphView::search() {
  QFETCH(QString, text);
  QFETCH(QStringList, hits);
  Expected<Model> model = loadModel("example:chain:3");
  QVERIFY(model.ok());
  auto graph = LatticeTracer().trace(*model);
  QVERIFY(graph.ok());
  QCOMPARE(searchNodes(**graph, &*model, text), hits);
}

void TestGraphView::searchBarWalksHits() {
  MainWindow window;
  window.resize(1200, 800);
  window.show();
  QSignalSpy finished(window.graphWidget(), &GraphWidget::layoutFinished);
  window.openModel(QStringLiteral("example:chain:3"));
  QVERIFY(waitForLayout(*window.graphWidget(), finished));
  GraphWidget* w = window.graphWidget();
  QVERIFY(!w->searchBar()->isVisible());
  window.action(QStringLiteral("view.find"))->trigger(); // Ctrl+F
  QVERIFY(w->searchBar()->isVisible());
  QTest::keyClicks(w->searchBar()->findChild<QLineEdit*>(QStringLiteral("graphSearchEdit")),
                   QStringLiteral("ReLU"));
  QCOMPARE(w->searchHits(), (QStringList{"blocks_0_2", "blocks_1_2", "blocks_2_2"}));
  for (const QString& hit : w->searchHits())
    QVERIFY(w->scene()->nodeItem(hit)->hasState(NodeItem::SearchHit));
  QVERIFY(!w->scene()->nodeItem(QStringLiteral("blocks_0_1"))->hasState(NodeItem::SearchHit));
  w->findNext();
  QCOMPARE(window.session()->selectedNode(), QStringLiteral("blocks_0_2"));
  w->findNext();
  QCOMPARE(window.session()->selectedNode(), QStringLiteral("blocks_1_2"));
  w->findPrevious();
  QCOMPARE(window.session()->selectedNode(), QStringLiteral("blocks_0_2"));
  w->findPrevious(); // wraps to the last hit
  QCOMPARE(window.session()->selectedNode(), QStringLiteral("blocks_2_2"));
  QVERIFY(w->scene()->nodeItem(QStringLiteral("blocks_2_2"))->isSelected());
}

void TestGraphView::arrowKeysMoveToProducersAndConsumers() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:3")));
  f.session.selectNode(QStringLiteral("blocks_1_0"));
  QVERIFY(f.selectedItem());
  QCOMPARE(f.selectedItem()->key(), QStringLiteral("blocks_1_0"));
  GraphView* view = f.widget.view();
  QTest::keyClick(view, Qt::Key_Up);
  QCOMPARE(f.session.selectedNode(), QStringLiteral("blocks_0_2")); // its producer
  QTest::keyClick(view, Qt::Key_Down);
  QTest::keyClick(view, Qt::Key_Down);
  QCOMPARE(f.session.selectedNode(), QStringLiteral("blocks_1_1"));
  QCOMPARE(f.selectedItem()->key(), QStringLiteral("blocks_1_1"));
  for (int i = 0; i < 10; ++i)
    QTest::keyClick(view, Qt::Key_Down); // stops at the output
  QCOMPARE(f.session.selectedNode(), QStringLiteral("output"));
  for (int i = 0; i < 20; ++i)
    QTest::keyClick(view, Qt::Key_Up); // and at the input
  QCOMPARE(f.session.selectedNode(), QStringLiteral("x"));
}

void TestGraphView::leftRightCycleThroughConsumers() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:sparse_resunet42")));
  // A node with two consumers (a residual block's input feeds main and shortcut), from the graph.
  const fx::Node* fork = nullptr;
  for (const fx::Node& n : f.session.graph()->nodes())
    if (n.users().size() == 2 && n.op() == fx::Op::CallModule) {
      fork = &n;
      break;
    }
  QVERIFY(fork);
  const QStringList users = names(fork->users());
  f.session.selectNode(QString::fromStdString(fork->name()));
  GraphView* view = f.widget.view();
  QTest::keyClick(view, Qt::Key_Down);
  const QString first = f.session.selectedNode();
  QVERIFY2(users.contains(first), qPrintable(first));
  QTest::keyClick(view, Qt::Key_Right);
  const QString second = f.session.selectedNode();
  QVERIFY(users.contains(second));
  QVERIFY(second != first);
  QTest::keyClick(view, Qt::Key_Right); // wraps around
  QCOMPARE(f.session.selectedNode(), first);
  QTest::keyClick(view, Qt::Key_Left);
  QCOMPARE(f.session.selectedNode(), second);
  QTest::keyClick(view, Qt::Key_Up); // back to the fork, whatever branch we are on
  QCOMPARE(f.session.selectedNode(), QString::fromStdString(fork->name()));
}

void TestGraphView::selectionSyncsBothWays() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:3")));
  QSignalSpy selection(&f.session, &StudioSession::selectionChanged);
  NodeItem* item = f.widget.scene()->nodeItem(QStringLiteral("blocks_2_1"));
  item->setSelected(true); // as a click does
  QCOMPARE(f.session.selectedNode(), QStringLiteral("blocks_2_1"));
  QCOMPARE(selection.count(), 1);
  // Its edges are emphasised.
  int highlighted = 0;
  for (EdgeItem* e : f.widget.scene()->edgeItems())
    highlighted += e->isHighlighted() ? 1 : 0;
  QCOMPARE(highlighted, 2);
  f.session.selectNode(QStringLiteral("x"));
  QVERIFY(!item->isSelected());
  QVERIFY(f.widget.scene()->nodeItem(QStringLiteral("x"))->isSelected());
  QCOMPARE(f.widget.scene()->selectedItems().size(), 1);
  f.session.selectNode(QString());
  QVERIFY(f.widget.scene()->selectedItems().isEmpty());
}

void TestGraphView::interpreterAndBreakpointStates() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:3")));
  GraphScene* scene = f.widget.scene();
  f.session.toggleBreakpoint(QStringLiteral("blocks_1_1"));
  QVERIFY(scene->nodeItem(QStringLiteral("blocks_1_1"))->hasState(NodeItem::Breakpoint));
  f.session.startInterpreter();
  QVERIFY(scene->nodeItem(QStringLiteral("x"))->hasState(NodeItem::Current));
  f.session.step();
  f.session.step();
  QVERIFY(scene->nodeItem(QStringLiteral("x"))->hasState(NodeItem::Executed));
  QVERIFY(scene->nodeItem(QStringLiteral("blocks_0_0"))->hasState(NodeItem::Executed));
  QVERIFY(scene->nodeItem(QStringLiteral("blocks_0_1"))->hasState(NodeItem::Current));
  QVERIFY(!scene->nodeItem(QStringLiteral("x"))->hasState(NodeItem::Current));
  f.session.continueRun();
  QVERIFY(scene->nodeItem(QStringLiteral("blocks_1_1"))->hasState(NodeItem::Current));
  f.session.toggleBreakpoint(QStringLiteral("blocks_1_1"));
  QVERIFY(!scene->nodeItem(QStringLiteral("blocks_1_1"))->hasState(NodeItem::Breakpoint));
  f.session.stopInterpreter();
  for (NodeItem* item : scene->nodeItems())
    QVERIFY(!item->hasState(NodeItem::Executed) && !item->hasState(NodeItem::Current));

  // A failing node is marked failed (block 1 kept whole has no lowering).
  QSignalSpy finished(&f.widget, &GraphWidget::layoutFinished);
  f.session.setLeafOverride(QStringLiteral("blocks.1"), true);
  QVERIFY(waitForLayout(f.widget, finished));
  f.session.continueRun();
  QCOMPARE(f.session.interpreterState(), StudioSession::InterpreterState::Failed);
  QVERIFY(scene->nodeItem(QStringLiteral("blocks_1"))->hasState(NodeItem::Failed));
}

void TestGraphView::staleLayoutIsDropped() {
  Expected<Model> model = loadModel("example:chain:3");
  QVERIFY(model.ok());
  auto graph = LatticeTracer().trace(*model);
  QVERIFY(graph.ok());
  auto grouping = std::make_shared<const GraphGrouping>(GraphGrouping::build(**graph));
  auto measures = GraphScene::measureVisible(nullptr, *grouping, defaultExpansion(*grouping), false,
                                             graph->get(), &*model);
  LayoutController controller;
  QSignalSpy finished(&controller, &LayoutController::layoutFinished);
  const quint64 first = controller.requestHierarchical(grouping, {}, measures); // all collapsed
  const quint64 second = controller.requestHierarchical(grouping, defaultExpansion(*grouping), measures);
  QVERIFY(second > first);
  QVERIFY(finished.wait(30000));
  QTest::qWait(200); // the first result, if it came, must not be delivered
  QCOMPARE(finished.count(), 1);
  QCOMPARE(finished.front().at(0).value<quint64>(), second);
  auto layout = finished.front().at(1).value<std::shared_ptr<const ViewLayout>>();
  QCOMPARE(layout->items.size(), std::size_t(11)); // the second request's view: every node
  QVERIFY(!controller.isRunning());
}

void TestGraphView::cancelledLayoutReportsCancel() {
  Expected<Model> model = loadModel("example:chain:3");
  QVERIFY(model.ok());
  auto graph = LatticeTracer().trace(*model);
  QVERIFY(graph.ok());
  auto grouping = std::make_shared<const GraphGrouping>(GraphGrouping::build(**graph));
  auto measures = GraphScene::measureVisible(nullptr, *grouping, defaultExpansion(*grouping), false,
                                             graph->get(), &*model);
  LayoutController controller;
  QSignalSpy finished(&controller, &LayoutController::layoutFinished);
  QSignalSpy cancelled(&controller, &LayoutController::layoutCancelled);
  controller.requestHierarchical(grouping, defaultExpansion(*grouping), measures);
  QVERIFY(controller.isRunning());
  controller.cancel();
  QVERIFY(cancelled.wait(30000));
  QCOMPARE(finished.count(), 0);
  QVERIFY(!controller.isRunning());
}

void TestGraphView::flatViewIsBounded() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:3")));
  QSignalSpy finished(&f.widget, &GraphWidget::layoutFinished);
  f.widget.setHierarchical(false);
  QVERIFY(waitForLayout(f.widget, finished));
  QCOMPARE(f.widget.scene()->nodeItems().size(), 11);
  QVERIFY(f.widget.scene()->clusterItems().isEmpty());

  // 3 × 300 + 2 = 902 nodes: more than one Graphviz call may take.
  Fixture big;
  QVERIFY(big.open(QStringLiteral("example:chain:300")));
  QSignalSpy failed(&big.widget, &GraphWidget::layoutFailed);
  big.widget.setHierarchical(false);
  QVERIFY(failed.wait(30000));
  QVERIFY2(failed.front().front().toString().contains(QStringLiteral("at most 800")),
           qPrintable(failed.front().front().toString()));
}

void TestGraphView::exportsImages() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:2")));
  QTemporaryDir dir;
  QString error;
  const QString png = dir.filePath(QStringLiteral("graph.png"));
  QVERIFY2(f.widget.exportImage(png, &error), qPrintable(error));
  const QImage image(png);
  QVERIFY(!image.isNull());
  // Taller than wide: a chain laid out top to bottom.
  QVERIFY(image.height() > image.width());
  const QString svg = dir.filePath(QStringLiteral("graph.svg"));
  QVERIFY2(f.widget.exportImage(svg, &error), qPrintable(error));
  QFile file(svg);
  QVERIFY(file.open(QIODevice::ReadOnly));
  const QByteArray text = file.readAll();
  QVERIFY(text.contains("<svg"));
  QVERIFY(text.contains("blocks_1_2")); // labels are text, not pixels
  QVERIFY(!f.widget.exportImage(dir.filePath(QStringLiteral("graph.bmp")), &error));
  QVERIFY(error.contains(QStringLiteral("bmp")));
}

// Help ▸ Keyboard Shortcuts lists every action that has a key, with that key, and
// the search field filters by action, key or menu.
void TestGraphView::keyboardShortcutsListEveryActionAndSearch() {
  using lattice::studio::ShortcutsDialog;
  MainWindow window;
  window.action(QStringLiteral("help.shortcuts"))->trigger();
  ShortcutsDialog* dialog = window.shortcutsDialog();
  QVERIFY(dialog && dialog->isVisible());
  QAbstractItemModelTester tester(dialog->rows(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  auto listed = [&] {
    QHash<QString, QString> rows; // action -> shortcut
    for (int r = 0; r < dialog->rows()->rowCount(); ++r)
      rows.insert(dialog->rows()->index(r, ShortcutsDialog::ActionColumn).data().toString(),
                  dialog->rows()->index(r, ShortcutsDialog::ShortcutColumn).data().toString());
    return rows;
  };
  const QHash<QString, QString> all = listed();
  int withKeys = 0;
  for (QAction* a : window.shortcutActions()) {
    if (a->shortcut().isEmpty()) continue;
    ++withKeys;
    const QString text = a->text().remove(QLatin1Char('&'));
    QVERIFY2(all.contains(text), qPrintable(text));
    QVERIFY2(all.value(text).contains(a->shortcut().toString(QKeySequence::NativeText)), qPrintable(text));
  }
  QVERIFY(withKeys >= 20);
  QCOMPARE(all.value(QStringLiteral("Restart")),
           QKeySequence(QStringLiteral("Ctrl+Shift+F5")).toString(QKeySequence::NativeText));

  dialog->searchField()->setText(QStringLiteral("f5"));
  const QHash<QString, QString> f5 = listed();
  QCOMPARE(
      QSet<QString>(f5.keyBegin(), f5.keyEnd()),
      (QSet<QString>{QStringLiteral("Start / Continue"), QStringLiteral("Restart"), QStringLiteral("Stop")}));
  dialog->searchField()->setText(QStringLiteral("debug"));
  QVERIFY(listed().contains(QStringLiteral("Toggle Breakpoint"))); // by menu
  QVERIFY(!listed().contains(QStringLiteral("Open Model…")));
  dialog->searchField()->clear();
  QCOMPARE(dialog->rows()->rowCount(), all.size());

  const QString about = lattice::studio::aboutText();
  QVERIFY(about.contains(QString::fromLatin1(qVersion())));
  QVERIFY2(about.contains(QStringLiteral("1.13")), qPrintable(about)); // Debian 12's LibTorch
  QVERIFY2(about.contains(QStringLiteral("Graphviz</td><td>2.")), qPrintable(about));
}

// A flat view the layout refuses (902 nodes, more than one Graphviz call takes)
// goes back to module groups, and View ▸ Flat unticks itself (Hierarchical ticked again).
void TestGraphView::refusedFlatViewUnticksItsAction() {
  QSettings().clear(); // a window opens in the mode it saved last: module groups here
  MainWindow window;
  window.resize(1200, 800);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  GraphWidget* graph = window.graphWidget();
  QSignalSpy laidOut(graph, &GraphWidget::layoutFinished);
  window.openModel(QStringLiteral("example:chain:300"));
  QVERIFY(waitForLayout(*graph, laidOut));
  QVERIFY(window.action(QStringLiteral("view.hierarchical"))->isChecked());

  QSignalSpy refused(graph, &GraphWidget::flatViewRefused);
  laidOut.clear();
  window.action(QStringLiteral("view.flat"))->trigger();
  QVERIFY(window.action(QStringLiteral("view.flat"))->isChecked()); // until the layout refuses
  QVERIFY(refused.wait(30000));
  QVERIFY2(refused.front().front().toString().contains(QStringLiteral("at most 800")),
           qPrintable(refused.front().front().toString()));
  QVERIFY(!window.action(QStringLiteral("view.flat"))->isChecked());
  QVERIFY(window.action(QStringLiteral("view.hierarchical"))->isChecked());
  QVERIFY(graph->isHierarchical());
  QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("Flat view refused")));
  // The module groups are laid out again, not a "layout failed" card over an empty view.
  QVERIFY(waitForLayout(*graph, laidOut));
  QVERIFY(!graph->scene()->nodeItems().isEmpty());
  QVERIFY(!graph->scene()->clusterItems().isEmpty() || graph->scene()->groupItem(QStringLiteral("blocks")));

  // A graph small enough keeps the flat view.
  laidOut.clear();
  window.openModel(QStringLiteral("example:chain:3"));
  QVERIFY(waitForLayout(*graph, laidOut));
  laidOut.clear();
  refused.clear();
  window.action(QStringLiteral("view.flat"))->trigger();
  QVERIFY(waitForLayout(*graph, laidOut));
  QVERIFY(refused.isEmpty());
  QVERIFY(window.action(QStringLiteral("view.flat"))->isChecked());
  QVERIFY(!graph->isHierarchical());
}

// Following the interpreter zooms a view too far out to read in to a readable
// level (the node's name line, NodeFonts' 9 pt bold, at GraphView::kReadablePointSize or more on
// screen), and never zooms out a view the user brought closer.
void TestGraphView::followingZoomsToReadable() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:40"))); // 122 nodes, one tall column
  GraphView* view = f.widget.view();
  const qreal titlePoints = nodeTitleFont().pointSizeF();
  auto screenPoints = [&] { return titlePoints * view->zoom(); };
  auto visible = [&](const QString& node) {
    NodeItem* item = f.widget.scene()->nodeItem(node);
    return item &&
           view->mapToScene(view->viewport()->rect()).boundingRect().contains(item->sceneBoundingRect());
  };
  view->fitToView();
  QVERIFY2(screenPoints() < 5.0, qPrintable(QString::number(view->zoom()))); // the whole chain: unreadable
  QVERIFY(visible(QStringLiteral("x")));
  f.session.startInterpreter();
  f.session.step(); // x ran; blocks_0_0 is current, visible before (the old code left the zoom)
  QCOMPARE(f.session.currentNode(), QStringLiteral("blocks_0_0"));
  QVERIFY2(screenPoints() >= GraphView::kReadablePointSize - 1e-9, qPrintable(QString::number(view->zoom())));
  QVERIFY2(screenPoints() < GraphView::kReadablePointSize + 0.01, qPrintable(QString::number(view->zoom())));
  QVERIFY(visible(QStringLiteral("blocks_0_0")));

  // Closer than readable: the zoom stays; a node out of view is brought in.
  view->setZoom(2.0);
  view->centerOn(f.widget.scene()->nodeItem(QStringLiteral("blocks_39_2"))); // the far end
  QVERIFY(!visible(QStringLiteral("blocks_0_1")));
  f.session.step();
  QCOMPARE(f.session.currentNode(), QStringLiteral("blocks_0_1"));
  QCOMPARE(view->zoom(), 2.0);
  QVERIFY(visible(QStringLiteral("blocks_0_1")));
  // A run follows its last node the same way.
  f.session.toggleBreakpoint(QStringLiteral("blocks_30_0"));
  view->setZoom(0.1);
  f.session.continueRun();
  QTRY_VERIFY_WITH_TIMEOUT(!f.session.isRunning(), 30000);
  QCOMPARE(f.session.currentNode(), QStringLiteral("blocks_30_0"));
  QVERIFY(screenPoints() >= GraphView::kReadablePointSize - 1e-9);
  QVERIFY(visible(QStringLiteral("blocks_30_0")));
}

// A node's tooltip, once it ran, reads like its row in the value table: every
// value column's title and the text the table shows there, not the value's debug repr.
void TestGraphView::nodeToolTipReadsLikeTheValueTable() {
  Fixture f;
  QVERIFY(f.open(QStringLiteral("example:chain:2")));
  ValueTableModel table(&f.session);
  NodeItem* conv = f.widget.scene()->nodeItem(QStringLiteral("blocks_0_0"));
  QVERIFY(conv);
  QCOMPARE(f.widget.toolTipFor(conv), conv->toolTip()); // not run: no value
  f.session.startInterpreter();
  f.session.step();
  f.session.step(); // x, blocks_0_0
  const int row = table.rowOfNode(QStringLiteral("blocks_0_0"));
  QVERIFY(row >= 0 && row < table.executedRows());
  const QString tip = f.widget.toolTipFor(conv);
  QVERIFY2(tip.startsWith(conv->toolTip()), qPrintable(tip));
  for (int column : {ValueTableModel::KindColumn, ValueTableModel::ChannelsColumn,
                     ValueTableModel::DTypeColumn, ValueTableModel::SsaColumn, ValueTableModel::TypeColumn}) {
    const QString title = table.headerData(column, Qt::Horizontal).toString();
    const QString shown = table.index(row, column).data().toString();
    QVERIFY(!shown.isEmpty());
    QVERIFY2(tip.contains(title + QStringLiteral(": ") + shown + QLatin1Char('\n')) ||
                 tip.endsWith(title + QStringLiteral(": ") + shown),
             qPrintable(tip));
    // The table's own tooltip is the same text.
    QCOMPARE(table.index(row, column).data(Qt::ToolTipRole).toString(), tip.mid(conv->toolTip().size() + 2));
  }
  QVERIFY2(!tip.contains(QStringLiteral("ArtifactValue(")), qPrintable(tip));
  QVERIFY(tip.contains(QStringLiteral("Kind: sparse_tensor")));
  QVERIFY(tip.contains(QStringLiteral("Channels: 16")));
  QVERIFY(tip.contains(QStringLiteral("SSA: %blocks_0_0")));
}

void TestGraphView::mainWindowMenusAndPanels() {
  MainWindow window;
  const QList<std::pair<QString, QKeySequence>> shortcuts = {
      {"file.open", QKeySequence(QStringLiteral("Ctrl+O"))},
      {"file.export", QKeySequence(QStringLiteral("Ctrl+E"))},
      {"debug.start", QKeySequence(Qt::Key_F5)},
      {"debug.restart", QKeySequence(QStringLiteral("Ctrl+Shift+F5"))},
      {"help.shortcuts", QKeySequence(QStringLiteral("Ctrl+/"))},
      {"help.documentation", QKeySequence(Qt::Key_F1)},
      {"debug.step", QKeySequence(Qt::Key_F10)},
      {"debug.breakpoint", QKeySequence(Qt::Key_F9)},
      {"view.find", QKeySequence(QStringLiteral("Ctrl+F"))},
      {"file.openArtifact", QKeySequence(QStringLiteral("Ctrl+Shift+O"))},
      {"file.loadWeights", QKeySequence(QStringLiteral("Ctrl+Shift+L"))},
      {"tools.compare", QKeySequence(QStringLiteral("Ctrl+Shift+D"))},
      {"tools.compareLast", QKeySequence(QStringLiteral("Ctrl+Alt+D"))},
      {"edit.undo", QKeySequence(QStringLiteral("Ctrl+Z"))},
      {"edit.redo", QKeySequence(QStringLiteral("Ctrl+Shift+Z"))},
  };
  for (const auto& [id, key] : shortcuts) {
    QAction* a = window.action(id);
    QVERIFY2(a, qPrintable(id));
    QCOMPARE(a->shortcut(), key);
  }
  QStringList menus;
  for (QAction* a : window.menuBar()->actions())
    menus << a->text().remove(QLatin1Char('&'));
  QCOMPARE(menus, (QStringList{"File", "Edit", "View", "Tools", "Debug", "Help"}));

  // The window's own panels, then two more added as a plugin would.
  for (const char* name : {"moduleTreeDock", "inspectorDock", "mlirDock", "interpreterDock"})
    QVERIFY2(window.findChild<QDockWidget*>(QString::fromLatin1(name)), name);
  auto* dock = new QDockWidget(QStringLiteral("Extra"), &window);
  dock->setObjectName(QStringLiteral("extraDock"));
  window.addPanel(dock, Qt::RightDockWidgetArea);
  QVERIFY(window.panelsMenu()->actions().contains(dock->toggleViewAction()));
  QCOMPARE(window.dockWidgetArea(dock), Qt::RightDockWidgetArea);
  auto* second = new QDockWidget(QStringLiteral("Values"), &window);
  second->setObjectName(QStringLiteral("valuesDock"));
  window.addPanel(second, Qt::RightDockWidgetArea);
  QVERIFY(window.tabifiedDockWidgets(dock).contains(second));

  // Nothing open: debugging and export are disabled.
  QVERIFY(!window.action(QStringLiteral("debug.step"))->isEnabled());
  QVERIFY(!window.action(QStringLiteral("file.export"))->isEnabled());
  QSignalSpy loaded(window.session(), &StudioSession::modelLoaded);
  window.openModel(QStringLiteral("example:chain:1"));
  QVERIFY(loaded.wait(30000));
  QVERIFY(window.action(QStringLiteral("debug.step"))->isEnabled());
  QVERIFY(window.recentFiles().startsWith(QStringLiteral("example:chain:1")));
  window.action(QStringLiteral("debug.step"))->trigger(); // F10 starts on the first node
  QCOMPARE(window.session()->currentNode(), QStringLiteral("x"));

  // File ▸ Open Example lists the built-in models (chain:N asks for N) and opens the one chosen.
  QMenu* examples = nullptr;
  for (QMenu* menu : window.findChildren<QMenu*>())
    if (menu->title().remove(QLatin1Char('&')) == QStringLiteral("Open Example")) examples = menu;
  QVERIFY(examples);
  QStringList listed;
  for (QAction* a : examples->actions())
    listed << a->text();
  QStringList expected;
  for (const std::string& name : lattice::exampleNames())
    expected << (name == "chain:N" ? QStringLiteral("chain:N (synthetic)…") : QString::fromStdString(name));
  QCOMPARE(listed, expected);
  examples->actions().constFirst()->trigger();
  QVERIFY(loaded.wait(60000));
  QCOMPARE(window.session()->modelReference(), QStringLiteral("example:") + expected.constFirst());
}

QTEST_MAIN(TestGraphView)
#include "tst_graph_view.moc"
