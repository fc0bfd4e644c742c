// The Breakpoints dock: its model under QAbstractItemModelTester lists the session's breakpoints
// in graph order with each node's operation and module (read from the graph here), a check box
// per row enables or disables one (a disabled breakpoint stays listed, survives a reload, and F5
// runs past it), Remove and Remove All change session->breakpoints(), and a double-click selects
// the node.

#include "MainWindow.h"
#include "StudioSession.h"
#include "graph/GraphScene.h"
#include "graph/GraphWidget.h"
#include "graph/NodeItem.h"
#include "panels/BreakpointsModel.h"
#include "panels/BreakpointsPanel.h"

#include "WidgetTestSupport.h"

#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>
#include <QtWidgets/QTableView>

#include <algorithm>

using lattice::studio::BreakpointsModel;
using lattice::studio::BreakpointsPanel;
using lattice::studio::MainWindow;
using lattice::studio::StudioSession;
using State = StudioSession::InterpreterState;

using namespace lattice::widgettest;

namespace {

QStringList graphOrder(const lattice::fx::Graph& graph) {
  QStringList names;
  for (const lattice::fx::Node& n : graph.nodes())
    names << QString::fromStdString(n.name());
  return names;
}

} // namespace

class TestBreakpointsPanel : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { isolateSettings(QStringLiteral("tst_breakpoints_panel")); }
  void listsEnablesAndRemoves();
};

void TestBreakpointsPanel::listsEnablesAndRemoves() {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  StudioSession* session = window.session();
  auto* panel = window.findChild<BreakpointsPanel*>();
  QVERIFY(panel);
  auto* dock = window.findChild<QDockWidget*>(QStringLiteral("breakpointsDock"));
  QVERIFY(dock);
  QCOMPARE(window.dockWidgetArea(dock), Qt::BottomDockWidgetArea);
  BreakpointsModel* model = panel->model();
  QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  QCOMPARE(model->rowCount(), 0);

  QSignalSpy laidOut(window.graphWidget(), &lattice::studio::GraphWidget::layoutFinished);
  QVERIFY(openAndWait(*session, QStringLiteral("example:chain:6")));
  QVERIFY(waitFor([&] { return !laidOut.isEmpty(); }));
  const QStringList order = graphOrder(*session->graph());
  // Three breakpoints, set out of graph order.
  const QString a = order[4], b = order[10], c = order[15];
  for (const QString& node : {c, a, b})
    session->toggleBreakpoint(node);
  QCOMPARE(model->nodes(), (QStringList{a, b, c}));
  for (int row = 0; row < model->rowCount(); ++row) {
    const QString name = model->nodes()[row];
    const lattice::fx::Node* node = session->graph()->findNode(name.toStdString());
    QCOMPARE(model->index(row, BreakpointsModel::NodeColumn).data().toString(), name);
    QCOMPARE(model->index(row, BreakpointsModel::NodeColumn).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    const QString operation = model->index(row, BreakpointsModel::OperationColumn).data().toString();
    QVERIFY2(operation.contains(QString::fromStdString(node->target())), qPrintable(operation));
    // The module the node is in, as the graph groups it: its innermost group.
    const std::vector<std::string> groups = window.graphWidget()->grouping()->groupPathsOf(node->name());
    QVERIFY(!groups.empty()); // the chain's layers are in blocks.N
    QCOMPARE(model->index(row, BreakpointsModel::ModuleColumn).data().toString(),
             QString::fromStdString(groups.back()));
  }

  // Unchecked: still listed, disabled, and F5 runs past it to the next one.
  QSignalSpy changed(session, &StudioSession::breakpointsChanged);
  QVERIFY(model->setData(model->index(0, BreakpointsModel::NodeColumn), Qt::Unchecked, Qt::CheckStateRole));
  QCOMPARE(changed.count(), 1);
  QVERIFY(session->breakpoints().contains(a));
  QVERIFY(!session->isBreakpointEnabled(a));
  QVERIFY(session->disabledBreakpoints().contains(a));
  QCOMPARE(model->index(0, BreakpointsModel::NodeColumn).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
  QCOMPARE(model->rowCount(), 3);
  // The graph draws the disabled one hollow, the others filled.
  const lattice::studio::GraphScene* scene = window.graphWidget()->scene();
  QVERIFY(scene->nodeItem(a) && scene->nodeItem(b));
  QVERIFY(scene->nodeItem(a)->hasState(lattice::studio::NodeItem::Breakpoint));
  QVERIFY(scene->nodeItem(a)->hasState(lattice::studio::NodeItem::BreakpointDisabled));
  QVERIFY(scene->nodeItem(b)->hasState(lattice::studio::NodeItem::Breakpoint));
  QVERIFY(!scene->nodeItem(b)->hasState(lattice::studio::NodeItem::BreakpointDisabled));
  window.action(QStringLiteral("debug.start"))->trigger();
  QVERIFY(waitFor([&] { return !session->isRunning(); }));
  QCOMPARE(session->interpreterState(), State::Paused);
  QCOMPARE(session->currentNode(), b);
  // The row paused on is bold.
  QVERIFY(model->index(1, BreakpointsModel::NodeColumn).data(Qt::FontRole).value<QFont>().bold());

  // A reload keeps the breakpoints and which are disabled.
  QSignalSpy reloaded(session, &StudioSession::modelReloaded);
  session->reloadModel();
  QVERIFY(reloaded.wait(60000));
  QCOMPARE(model->nodes(), (QStringList{a, b, c}));
  QVERIFY(!session->isBreakpointEnabled(a));
  QVERIFY(session->isBreakpointEnabled(b));

  // Double-click selects the node.
  dock->raise();
  QVERIFY(waitFor([&] { return panel->view()->isVisible(); }, 5000));
  const QModelIndex cIndex = model->index(2, BreakpointsModel::OperationColumn);
  const QPoint centre = panel->view()->visualRect(cIndex).center();
  QTest::mouseClick(panel->view()->viewport(), Qt::LeftButton, {}, centre);
  QTest::mouseDClick(panel->view()->viewport(), Qt::LeftButton, {}, centre);
  QCOMPARE(session->selectedNode(), c);

  // Remove the selected row, then all.
  QVERIFY(panel->action(QStringLiteral("remove"))->isEnabled());
  panel->action(QStringLiteral("remove"))->trigger();
  QCOMPARE(session->breakpoints(), (QSet<QString>{a, b}));
  QCOMPARE(model->nodes(), (QStringList{a, b}));
  // Toggling a disabled breakpoint removes it; toggling again sets an enabled one.
  session->toggleBreakpoint(a);
  QVERIFY(!session->breakpoints().contains(a));
  QVERIFY(!session->disabledBreakpoints().contains(a));
  session->toggleBreakpoint(a);
  QVERIFY(session->isBreakpointEnabled(a));
  panel->action(QStringLiteral("disableAll"))->trigger();
  QCOMPARE(session->disabledBreakpoints(), session->breakpoints());
  QVERIFY(!panel->action(QStringLiteral("disableAll"))->isEnabled());
  panel->action(QStringLiteral("enableAll"))->trigger();
  QVERIFY(session->disabledBreakpoints().isEmpty());
  panel->action(QStringLiteral("removeAll"))->trigger();
  QVERIFY(session->breakpoints().isEmpty());
  QCOMPARE(model->rowCount(), 0);
  QVERIFY(!panel->view()->isVisible()); // the hint shows instead
}

QTEST_MAIN(TestBreakpointsPanel)
#include "tst_breakpoints_panel.moc"
