// Module tree panel: the tree mirrors the module records of example:chain:3 (root Chain →
// blocks (Sequential) → 3 SparseConvBlocks → SubmConv3d, BatchNorm, ReLU, per Examples.h), the
// Leaf checkbox re-traces through the session, and selection goes both ways. Node counts are
// worked out by hand: the chain traces to x + 3 × (conv, norm, relu) + output = 11 nodes; with
// `blocks.0` kept whole its three layers become one node: 1 + 1 + 2 × 3 + 1 = 9; with `blocks`
// kept whole: x, blocks, output = 3.

#include "LeafEdits.h"
#include "StudioSession.h"
#include "fx/Graph.h"
#include "panels/ModuleTreeModel.h"
#include "panels/ModuleTreePanel.h"

#include "WidgetTestSupport.h"

#include <QAbstractItemModelTester>
#include <QSet>

#include <QTreeView>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>
#include <functional>

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
  void containersHaveNoLeafDecision();
  void leafTogglesUndoAndRedo();
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

// SparseResUNet42's `encoders` and `decoders` are ModuleLists and each
// `decoders.K` a ModuleDict (Examples: the backbone as torch-lattice records it). The graph
// calls their children (`encoders.0`, `decoders.0.upsample`), never them, so they are shown as
// containers without a leaf checkbox. Every other row's checkbox must agree with the traced
// graph: a checked module that is traced into is one call_module node, an unchecked one is not.
void TestPanelsModuleTree::containersHaveNoLeafDecision() {
  StudioSession session;
  ModuleTreeModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:sparse_resunet42")));
  QSignalSpy graphChanged(&session, &StudioSession::graphChanged);

  for (const char* path : {"encoders", "decoders", "decoders.0", "decoders.3"}) {
    const QString p = QString::fromLatin1(path);
    const QModelIndex leaf = leafIndex(model, p);
    QVERIFY2(leaf.isValid(), path);
    QVERIFY2(leaf.data(ModuleTreeModel::IsContainerRole).toBool(), path);
    QVERIFY2(!leaf.data(Qt::CheckStateRole).isValid(), path);
    QVERIFY2(!(model.flags(leaf) & Qt::ItemIsUserCheckable), path);
    QCOMPARE(leaf.data().toString(), QStringLiteral("container"));
    QVERIFY2(leaf.data(Qt::ToolTipRole).toString().contains(QStringLiteral("never called")), path);
    QVERIFY(!leaf.data(ModuleTreeModel::IsLeafRole).toBool());
    QVERIFY(!model.setData(leaf, Qt::Checked, Qt::CheckStateRole));
    QVERIFY(!model.setData(leaf, Qt::Unchecked, Qt::CheckStateRole));
  }
  QCOMPARE(graphChanged.count(), 0);
  QVERIFY(session.tracer().leafOverrides().empty());
  // Sequential has a forward: it keeps its checkbox (unchecked: inlined by default).
  for (const char* path : {"stem", "encoders.0", "decoders.0.fuse"}) {
    QVERIFY2(!leafIndex(model, QString::fromLatin1(path)).data(ModuleTreeModel::IsContainerRole).toBool(),
             path);
    QCOMPARE(checkState(model, QString::fromLatin1(path)), Qt::Unchecked);
  }

  // The tree agrees with the graph, row by row.
  QSet<QString> called;
  for (const lattice::fx::Node& node : session.graph()->nodes())
    if (node.op() == lattice::fx::Op::CallModule) called.insert(QString::fromStdString(node.target()));
  int rows = 0;
  int checked = 0;
  std::function<void(const QModelIndex&)> visit = [&](const QModelIndex& parent) {
    for (int r = 0; r < model.rowCount(parent); ++r) {
      const QModelIndex index = model.index(r, 0, parent);
      const QString path = index.data(ModuleTreeModel::PathRole).toString();
      ++rows;
      if (!index.data(ModuleTreeModel::InsideLeafRole).toBool()) {
        const QVariant state = leafIndex(model, path).data(Qt::CheckStateRole);
        if (state.isValid()) {
          const bool isLeaf = static_cast<Qt::CheckState>(state.toInt()) == Qt::Checked;
          checked += isLeaf ? 1 : 0;
          QVERIFY2(called.contains(path) == isLeaf, qPrintable(path));
        } else {
          QVERIFY2(!called.contains(path), qPrintable(path)); // a container is never called
        }
      }
      visit(index);
    }
  };
  visit(model.index(0, 0));
  QCOMPARE(rows + 1, int(session.model()->modules().size()));
  QCOMPARE(checked, int(called.size())); // every call_module node is a ticked row
  QVERIFY(!model.indexOfPath(QStringLiteral("encoders.2.1")).data(ModuleTreeModel::InsideLeafRole).toBool());
}

// Leaf toggles are undoable (LeafEdits: Edit ▸ Undo / Redo in the window). Undo and
// redo select the toggled module and give back the graph of before and after (node counts as in
// the file comment); a failed trace is undone like any toggle; a new model starts a fresh history.
void TestPanelsModuleTree::leafTogglesUndoAndRedo() {
  StudioSession session;
  ModuleTreeModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  lattice::studio::LeafEdits* edits = lattice::studio::LeafEdits::of(&session);
  QCOMPARE(lattice::studio::LeafEdits::of(&session), edits); // one per session
  QVERIFY(!edits->canUndo());

  QVERIFY(model.setData(leafIndex(model, QStringLiteral("blocks.0")), Qt::Checked, Qt::CheckStateRole));
  QCOMPARE(int(session.graph()->size()), 9);
  QVERIFY(model.setData(leafIndex(model, QStringLiteral("blocks")), Qt::Checked, Qt::CheckStateRole));
  QCOMPARE(int(session.graph()->size()), 3);
  QCOMPARE(edits->count(), 2);
  QCOMPARE(edits->undoText(), QStringLiteral("Keep blocks as Leaf"));

  session.selectModule(QStringLiteral("blocks.2.1")); // elsewhere
  edits->undo();
  QCOMPARE(int(session.graph()->size()), 9);
  QCOMPARE(session.selectedModule(), QStringLiteral("blocks"));
  QCOMPARE(checkState(model, QStringLiteral("blocks")), Qt::Unchecked);
  QVERIFY(!leafIndex(model, QStringLiteral("blocks")).data(ModuleTreeModel::OverriddenRole).toBool());
  edits->undo();
  QCOMPARE(int(session.graph()->size()), 11);
  QCOMPARE(session.selectedModule(), QStringLiteral("blocks.0"));
  QVERIFY(session.tracer().leafOverrides().empty());
  QVERIFY(!edits->canUndo());
  edits->redo();
  QCOMPARE(int(session.graph()->size()), 9);
  QCOMPARE(checkState(model, QStringLiteral("blocks.0")), Qt::Checked);
  edits->redo();
  QCOMPARE(int(session.graph()->size()), 3);
  QVERIFY(!edits->canRedo());

  // Setting what is already set adds nothing.
  edits->set(QStringLiteral("blocks"), true);
  QCOMPARE(edits->count(), 2);

  // A toggle that fails to trace is undone like the others.
  edits->undo();
  edits->undo();
  QSignalSpy traceFailed(&session, &StudioSession::traceFailed);
  QVERIFY(model.setData(leafIndex(model, QStringLiteral("blocks.2.0")), Qt::Unchecked, Qt::CheckStateRole));
  QCOMPARE(traceFailed.count(), 1);
  QVERIFY(!session.graph());
  QVERIFY(!edits->canRedo()); // the new change dropped the redo history
  edits->undo();
  QVERIFY(session.graph());
  QCOMPARE(int(session.graph()->size()), 11);
  QCOMPARE(checkState(model, QStringLiteral("blocks.2.0")), Qt::Checked);

  // Another model: the history is about paths of the old one.
  QVERIFY(model.setData(leafIndex(model, QStringLiteral("blocks.1")), Qt::Checked, Qt::CheckStateRole));
  QVERIFY(edits->canUndo());
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:1")));
  QCOMPARE(edits->count(), 0);
}

QTEST_MAIN(TestPanelsModuleTree)
#include "tst_panels_moduletree.moc"
