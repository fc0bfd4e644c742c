// Module tree panel: the tree mirrors the module records of example:chain:3 (root Chain →
// blocks (Sequential) → 3 SparseConvBlocks → SubmConv3d, BatchNorm, ReLU, per Examples.h), the
// Leaf checkbox re-traces through the session, and selection goes both ways. Node counts are
// worked out by hand: the chain traces to x + 3 × (conv, norm, relu) + output = 11 nodes; with
// `blocks.0` kept whole its three layers become one node: 1 + 1 + 2 × 3 + 1 = 9; with `blocks`
// kept whole: x, blocks, output = 3.

#include "StudioSession.h"
#include "fx/Graph.h"
#include "panels/ModuleTreeModel.h"
#include "panels/ModuleTreePanel.h"

#include "WidgetTestSupport.h"

#include <QAbstractItemModelTester>
#include <QTreeView>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using lattice::studio::ModuleTreeModel;
using lattice::studio::ModuleTreePanel;
using lattice::studio::StudioSession;

using namespace lattice::widgettest;

namespace {

QModelIndex leafIndex(const ModuleTreeModel& model, const QString& path) {
  return model.indexOfPath(path).siblingAtColumn(ModuleTreeModel::LeafColumn);
}

Qt::CheckState checkState(const ModuleTreeModel& model, const QString& path) {
  return static_cast<Qt::CheckState>(leafIndex(model, path).data(Qt::CheckStateRole).toInt());
}

} // namespace

class TestPanelsModuleTree : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void treeMirrorsModules();
  void leafCheckboxRetraces();
  void forcedExpandOfLoweredLeafFailsTrace();
  void selectionBothWays();
  void rootRowIsSelectable();
  void modelResetsOnNewModel();
};

void TestPanelsModuleTree::treeMirrorsModules() {
  StudioSession session;
  ModuleTreeModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model.rowCount(), 0);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));

  QCOMPARE(model.rowCount(), 1); // the root
  const QModelIndex root = model.index(0, 0);
  QCOMPARE(root.data().toString(), QStringLiteral("(root)"));
  QCOMPARE(root.siblingAtColumn(ModuleTreeModel::TypeColumn).data().toString(), QStringLiteral("Chain"));
  QCOMPARE(model.rowCount(root), 1);
  const QModelIndex blocks = model.index(0, 0, root);
  QCOMPARE(blocks.data().toString(), QStringLiteral("blocks"));
  QCOMPARE(blocks.data(ModuleTreeModel::PathRole).toString(), QStringLiteral("blocks"));
  QCOMPARE(model.rowCount(blocks), 3);
  const QModelIndex block1 = model.index(1, 0, blocks);
  QCOMPARE(block1.data(ModuleTreeModel::PathRole).toString(), QStringLiteral("blocks.1"));
  QCOMPARE(block1.siblingAtColumn(ModuleTreeModel::TypeColumn).data().toString(),
           QStringLiteral("SparseConvBlock"));
  QCOMPARE(model.rowCount(block1), 3);
  QCOMPARE(model.index(2, 0, block1).data(ModuleTreeModel::PathRole).toString(),
           QStringLiteral("blocks.1.2"));
  QCOMPARE(model.parent(model.index(2, 0, block1)), block1);
  QCOMPARE(model.indexOfPath(QStringLiteral("blocks.1")), block1);
  QVERIFY(!model.indexOfPath(QStringLiteral("blocks.7")).isValid());

  // Decisions: the default lattice policy keeps SubmConv3d (lowered) and the torch.nn layers
  // as leaves and inlines the containers.
  QCOMPARE(checkState(model, QStringLiteral("blocks.1.0")), Qt::Checked);
  QCOMPARE(checkState(model, QStringLiteral("blocks.1")), Qt::Unchecked);
  QCOMPARE(checkState(model, QStringLiteral("blocks")), Qt::Unchecked);
  QVERIFY(!root.siblingAtColumn(ModuleTreeModel::LeafColumn).data(Qt::CheckStateRole).isValid());
  QVERIFY(!(model.flags(root.siblingAtColumn(ModuleTreeModel::LeafColumn)) & Qt::ItemIsUserCheckable));
  QVERIFY(model.indexOfPath(QStringLiteral("blocks.1.0")).data(ModuleTreeModel::HasLoweringRole).toBool());
  QCOMPARE(model.indexOfPath(QStringLiteral("blocks.1.0"))
               .siblingAtColumn(ModuleTreeModel::LoweringColumn)
               .data()
               .toString(),
           QStringLiteral("lattice"));
  QVERIFY(!model.indexOfPath(QStringLiteral("blocks.1")).data(ModuleTreeModel::HasLoweringRole).toBool());
  QCOMPARE(leafIndex(model, QStringLiteral("blocks.1")).data().toString(), QStringLiteral("inlined"));
  QCOMPARE(leafIndex(model, QStringLiteral("blocks.1.0")).data().toString(), QStringLiteral("leaf"));
}

void TestPanelsModuleTree::leafCheckboxRetraces() {
  StudioSession session;
  ModuleTreeModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QCOMPARE(int(session.graph()->size()), 11);
  QSignalSpy graphChanged(&session, &StudioSession::graphChanged);
  QSignalSpy dataChanged(&model, &QAbstractItemModel::dataChanged);

  // Keep blocks.0 whole.
  QVERIFY(model.setData(leafIndex(model, QStringLiteral("blocks.0")), Qt::Checked, Qt::CheckStateRole));
  QCOMPARE(graphChanged.count(), 1);
  QVERIFY(!dataChanged.isEmpty());
  QCOMPARE(int(session.graph()->size()), 9);
  QVERIFY(session.graph()->findNode("blocks_0"));
  QCOMPARE(checkState(model, QStringLiteral("blocks.0")), Qt::Checked);
  QVERIFY(leafIndex(model, QStringLiteral("blocks.0")).data(ModuleTreeModel::OverriddenRole).toBool());
  QVERIFY(model.indexOfPath(QStringLiteral("blocks.0.1")).data(ModuleTreeModel::InsideLeafRole).toBool());
  QVERIFY(!model.indexOfPath(QStringLiteral("blocks.1.1")).data(ModuleTreeModel::InsideLeafRole).toBool());

  // Back to the policy's decision: the override is cleared, not pinned to false.
  QVERIFY(model.setData(leafIndex(model, QStringLiteral("blocks.0")), Qt::Unchecked, Qt::CheckStateRole));
  QCOMPARE(graphChanged.count(), 2);
  QCOMPARE(int(session.graph()->size()), 11);
  QVERIFY(session.tracer().leafOverrides().empty());
  QVERIFY(!leafIndex(model, QStringLiteral("blocks.0")).data(ModuleTreeModel::OverriddenRole).toBool());

  // The whole Sequential as one node.
  QVERIFY(model.setData(leafIndex(model, QStringLiteral("blocks")), Qt::Checked, Qt::CheckStateRole));
  QCOMPARE(int(session.graph()->size()), 3);
  QVERIFY(session.graph()->findNode("blocks"));

  // Only the checkbox column of a non-root row accepts check states.
  QVERIFY(!model.setData(model.indexOfPath(QStringLiteral("blocks")), Qt::Unchecked, Qt::CheckStateRole));
  QVERIFY(!model.setData(model.index(0, ModuleTreeModel::LeafColumn), Qt::Checked, Qt::CheckStateRole));
  QCOMPARE(int(session.graph()->size()), 3);
}

void TestPanelsModuleTree::forcedExpandOfLoweredLeafFailsTrace() {
  StudioSession session;
  ModuleTreeModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QSignalSpy traceFailed(&session, &StudioSession::traceFailed);
  // SubmConv3d is a library leaf without a graph: inlining it cannot trace.
  QVERIFY(model.setData(leafIndex(model, QStringLiteral("blocks.2.0")), Qt::Unchecked, Qt::CheckStateRole));
  QCOMPARE(traceFailed.count(), 1);
  QVERIFY(!session.graph());
  QCOMPARE(checkState(model, QStringLiteral("blocks.2.0")), Qt::Unchecked); // the user's choice stays visible
  QVERIFY(leafIndex(model, QStringLiteral("blocks.2.0")).data(ModuleTreeModel::OverriddenRole).toBool());
  QVERIFY(model.setData(leafIndex(model, QStringLiteral("blocks.2.0")), Qt::Checked, Qt::CheckStateRole));
  QVERIFY(session.graph());
  QCOMPARE(int(session.graph()->size()), 11);
}

void TestPanelsModuleTree::selectionBothWays() {
  StudioSession session;
  ModuleTreePanel panel(&session);
  QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QSignalSpy moduleSelected(&session, &StudioSession::moduleSelectionChanged);

  // View → session.
  panel.view()->setCurrentIndex(panel.model()->indexOfPath(QStringLiteral("blocks.2")));
  QCOMPARE(session.selectedModule(), QStringLiteral("blocks.2"));
  QCOMPARE(moduleSelected.count(), 1);

  // Session → view, without echoing a second selection back.
  session.selectModule(QStringLiteral("blocks.0.1"));
  QCOMPARE(moduleSelected.count(), 2);
  QCOMPARE(panel.view()->currentIndex().data(ModuleTreeModel::PathRole).toString(),
           QStringLiteral("blocks.0.1"));
  QCOMPARE(session.selectedModule(), QStringLiteral("blocks.0.1"));
}

void TestPanelsModuleTree::rootRowIsSelectable() {
  StudioSession session;
  ModuleTreePanel panel(&session);
  QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  panel.resize(400, 400);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  QVERIFY(!session.hasModuleSelection());
  QSignalSpy moduleSelected(&session, &StudioSession::moduleSelectionChanged);

  // Clicking the top row selects the root module (its path is "").
  QTreeView* view = panel.view();
  const QModelIndex root = panel.model()->index(0, ModuleTreeModel::NameColumn);
  QCOMPARE(root.data().toString(), QStringLiteral("(root)"));
  QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(root).center());
  QVERIFY(session.hasModuleSelection());
  QCOMPARE(session.selectedModule(), QString());
  QCOMPARE(moduleSelected.count(), 1);

  // Selected elsewhere (a node in the graph), a second click on the same row shows it again.
  session.selectNode(QStringLiteral("blocks_0_0"));
  moduleSelected.clear();
  QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(root).center());
  QVERIFY(session.hasModuleSelection());
  QVERIFY(!moduleSelected.isEmpty());
  QCOMPARE(moduleSelected.back().front().toString(), QString());

  // Clearing the session's module selection clears the view's.
  session.clearModuleSelection();
  QVERIFY(!session.hasModuleSelection());
  QVERIFY(view->selectionModel()->selectedRows().isEmpty());
  session.selectModule(QString());
  QCOMPARE(view->currentIndex().siblingAtColumn(0), root);
}

void TestPanelsModuleTree::modelResetsOnNewModel() {
  StudioSession session;
  ModuleTreeModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:1")));
  QCOMPARE(reset.count(), 1);
  QCOMPARE(model.rowCount(model.indexOfPath(QStringLiteral("blocks"))), 1);
}

QTEST_MAIN(TestPanelsModuleTree)
#include "tst_panels_moduletree.moc"
