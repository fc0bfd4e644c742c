// Interpreter panel: the value table after N steps of example:chain:3 (x, then per block
// blocks_<b>_0 SubmConv3d(16, 16), blocks_<b>_1 BatchNorm, blocks_<b>_2 ReLU, then output; all
// sparse f32 with 16 channels, named after their module paths per lowering.md §2.5), the
// current-node row, the breakpoint column, the tool bar wired to the session, and the
// diagnostics list for a lowering that fails at a module without a lowering.

#include "StudioSession.h"
#include "panels/DiagnosticsModel.h"
#include "panels/InterpreterPanel.h"
#include "panels/ValueTableModel.h"

#include "WidgetTestSupport.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QTableView>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using lattice::studio::DiagnosticsModel;
using lattice::studio::InterpreterPanel;
using lattice::studio::StudioSession;
using lattice::studio::ValueTableModel;
using State = StudioSession::InterpreterState;

using namespace lattice::widgettest;

namespace {

const QString kSparseType = QStringLiteral(
    "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>");

QStringList rowNames(const ValueTableModel& model) {
  QStringList names;
  for (int r = 0; r < model.rowCount(); ++r)
    names << model.index(r, 0).data(ValueTableModel::NodeNameRole).toString();
  return names;
}

QString cell(const ValueTableModel& model, int row, int column) {
  return model.index(row, column).data().toString();
}

} // namespace

class TestPanelsInterpreter : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void rowsAfterSteps_data();
  void rowsAfterSteps();
  void valuesOfExecutedNodes();
  void breakpointColumnAndContinue();
  void runToSelectedAndStop();
  void failureShowsInDiagnostics();
  void clickingRowsSelectsNodes();
};

void TestPanelsInterpreter::rowsAfterSteps_data() {
  QTest::addColumn<int>("steps");
  QTest::addColumn<QStringList>("rows");
  // After start (0 steps) only the pending row: x runs next.
  QTest::newRow("started") << 0 << QStringList{QStringLiteral("x")};
  QTest::newRow("one") << 1 << QStringList{QStringLiteral("x"), QStringLiteral("blocks_0_0")};
  QTest::newRow("four") << 4
                        << QStringList{QStringLiteral("x"), QStringLiteral("blocks_0_0"),
                                       QStringLiteral("blocks_0_1"), QStringLiteral("blocks_0_2"),
                                       QStringLiteral("blocks_1_0")};
  // All 11 nodes ran: no pending row.
  QTest::newRow("all") << 11 << QStringList{QStringLiteral("x"),          QStringLiteral("blocks_0_0"),
                                            QStringLiteral("blocks_0_1"), QStringLiteral("blocks_0_2"),
                                            QStringLiteral("blocks_1_0"), QStringLiteral("blocks_1_1"),
                                            QStringLiteral("blocks_1_2"), QStringLiteral("blocks_2_0"),
                                            QStringLiteral("blocks_2_1"), QStringLiteral("blocks_2_2"),
                                            QStringLiteral("output")};
}

void TestPanelsInterpreter::rowsAfterSteps() {
  QFETCH(int, steps);
  QFETCH(QStringList, rows);
  StudioSession session;
  InterpreterPanel panel(&session);
  ValueTableModel& model = *panel.valueModel();
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QCOMPARE(model.rowCount(), 0);
  panel.action(QStringLiteral("start"))->trigger();
  QCOMPARE(session.interpreterState(), State::Paused);
  for (int i = 0; i < steps; ++i)
    panel.action(QStringLiteral("step"))->trigger();
  QCOMPARE(rowNames(model), rows);
  const bool finished = steps == 11;
  QCOMPARE(session.interpreterState(), finished ? State::Finished : State::Paused);
  QCOMPARE(model.executedRows(), steps);
  const int last = model.rowCount() - 1;
  QCOMPARE(model.index(last, 0).data(ValueTableModel::IsCurrentRole).toBool(), !finished);
  if (!finished) {
    QCOMPARE(model.index(last, 0).data(ValueTableModel::NodeNameRole).toString(), session.currentNode());
    QCOMPARE(cell(model, last, ValueTableModel::StepColumn), QStringLiteral("\u25B6"));
    QVERIFY(cell(model, last, ValueTableModel::SsaColumn).isEmpty()); // not executed: no value
  }
  for (int r = 0; r < model.executedRows(); ++r)
    QCOMPARE(cell(model, r, ValueTableModel::StepColumn), QString::number(r + 1));
  QVERIFY(!panel.action(QStringLiteral("step"))->isEnabled() == finished);
}

void TestPanelsInterpreter::valuesOfExecutedNodes() {
  StudioSession session;
  ValueTableModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  session.startInterpreter();
  for (int i = 0; i < 3; ++i)
    session.step(); // x, blocks_0_0, blocks_0_1
  QCOMPARE(model.rowCount(), 4);
  // x: the sparse input (16 channels).
  QCOMPARE(cell(model, 0, ValueTableModel::KindColumn), QStringLiteral("sparse_tensor"));
  QCOMPARE(cell(model, 0, ValueTableModel::ChannelsColumn), QStringLiteral("16"));
  QCOMPARE(cell(model, 0, ValueTableModel::DTypeColumn), QStringLiteral("f32"));
  QCOMPARE(cell(model, 0, ValueTableModel::SsaColumn), QStringLiteral("%x"));
  QCOMPARE(cell(model, 0, ValueTableModel::TypeColumn), kSparseType);
  // The convolution, named after its module path.
  QCOMPARE(cell(model, 1, ValueTableModel::SsaColumn), QStringLiteral("%blocks_0_0"));
  QCOMPARE(cell(model, 1, ValueTableModel::ChannelsColumn), QStringLiteral("16"));
  QCOMPARE(cell(model, 1, ValueTableModel::TypeColumn), kSparseType);
  QCOMPARE(cell(model, 2, ValueTableModel::SsaColumn), QStringLiteral("%blocks_0_1"));
  // A batch run appends every executed node at once.
  session.runToNode(QStringLiteral("blocks_2_1"));
  QCOMPARE(model.rowCount(), 9);
  QCOMPARE(cell(model, 7, ValueTableModel::SsaColumn), QStringLiteral("%blocks_2_0"));
  QVERIFY(model.index(8, 0).data(ValueTableModel::IsCurrentRole).toBool());
  // The output node returns the last value.
  session.continueRun();
  QCOMPARE(session.interpreterState(), State::Finished);
  QCOMPARE(model.rowCount(), 11);
  QCOMPARE(cell(model, 10, ValueTableModel::NodeColumn), QStringLiteral("output"));
  QCOMPARE(cell(model, 10, ValueTableModel::SsaColumn), QStringLiteral("%blocks_2_2"));
  // A restart empties the table down to the pending first node.
  session.startInterpreter();
  QCOMPARE(rowNames(model), QStringList{QStringLiteral("x")});
}

void TestPanelsInterpreter::breakpointColumnAndContinue() {
  StudioSession session;
  InterpreterPanel panel(&session);
  ValueTableModel& model = *panel.valueModel();
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  session.startInterpreter();
  session.step();
  session.step(); // x, blocks_0_0 executed; blocks_0_1 pending
  const QModelIndex bp = model.index(1, ValueTableModel::BreakpointColumn);
  QVERIFY(model.flags(bp) & Qt::ItemIsUserCheckable);
  QCOMPARE(static_cast<Qt::CheckState>(bp.data(Qt::CheckStateRole).toInt()), Qt::Unchecked);
  QVERIFY(model.setData(bp, Qt::Checked, Qt::CheckStateRole));
  QVERIFY(session.breakpoints().contains(QStringLiteral("blocks_0_0")));
  QCOMPARE(static_cast<Qt::CheckState>(bp.data(Qt::CheckStateRole).toInt()), Qt::Checked);

  // A breakpoint set elsewhere (the graph's F9) shows in the column.
  QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
  session.toggleBreakpoint(QStringLiteral("blocks_0_1"));
  QVERIFY(!changed.isEmpty());
  QCOMPARE(static_cast<Qt::CheckState>(model.index(2, 0).data(Qt::CheckStateRole).toInt()), Qt::Checked);
  // The toolbar's breakpoint action toggles the selected node.
  session.selectNode(QStringLiteral("blocks_2_0"));
  panel.action(QStringLiteral("breakpoint"))->trigger();
  QVERIFY(session.breakpoints().contains(QStringLiteral("blocks_2_0")));

  // Continue stops with blocks_2_0 next: 7 executed rows + the pending one.
  session.toggleBreakpoint(QStringLiteral("blocks_0_1")); // cleared again: only blocks_2_0 lies ahead
  panel.action(QStringLiteral("continue"))->trigger();
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_2_0"));
  QCOMPARE(model.rowCount(), 8);
  QCOMPARE(model.executedRows(), 7);
  QCOMPARE(static_cast<Qt::CheckState>(model.index(7, 0).data(Qt::CheckStateRole).toInt()), Qt::Checked);
  // Unchecking a row clears the session's breakpoint.
  QVERIFY(model.setData(model.index(7, 0), Qt::Unchecked, Qt::CheckStateRole));
  QVERIFY(!session.breakpoints().contains(QStringLiteral("blocks_2_0")));
}

void TestPanelsInterpreter::runToSelectedAndStop() {
  StudioSession session;
  InterpreterPanel panel(&session);
  QAbstractItemModelTester tester(panel.valueModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QVERIFY(!panel.action(QStringLiteral("runToSelected"))->isEnabled());
  session.selectNode(QStringLiteral("blocks_1_2"));
  QVERIFY(panel.action(QStringLiteral("runToSelected"))->isEnabled());
  panel.action(QStringLiteral("runToSelected"))->trigger();
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_1_2"));
  // x, block 0 (3 nodes), blocks_1_0, blocks_1_1 executed; blocks_1_2 pending.
  QCOMPARE(panel.valueModel()->rowCount(), 7);
  QCOMPARE(panel.valueModel()->rowOfNode(QStringLiteral("blocks_1_2")), 6);
  // The selected row follows the session's selection.
  QCOMPARE(panel.valueView()->currentIndex().row(), 6);
  panel.action(QStringLiteral("stop"))->trigger();
  QCOMPARE(session.interpreterState(), State::NotStarted);
  QCOMPARE(panel.valueModel()->rowCount(), 0);
  QVERIFY(!panel.action(QStringLiteral("stop"))->isEnabled());
}

void TestPanelsInterpreter::failureShowsInDiagnostics() {
  StudioSession session;
  InterpreterPanel panel(&session);
  ValueTableModel& values = *panel.valueModel();
  DiagnosticsModel& diagnostics = *panel.diagnosticsModel();
  QAbstractItemModelTester valuesTester(&values, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester diagnosticsTester(&diagnostics,
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  // Block 1 kept whole is a call_module of SparseConvBlock, which has no lowering.
  session.setLeafOverride(QStringLiteral("blocks.1"), true);
  panel.action(QStringLiteral("continue"))->trigger();
  QCOMPARE(session.interpreterState(), State::Failed);
  QCOMPARE(diagnostics.rowCount(), 1);
  QCOMPARE(diagnostics.index(0, DiagnosticsModel::NodeColumn).data().toString(), QStringLiteral("blocks_1"));
  const QString message = diagnostics.index(0, DiagnosticsModel::MessageColumn).data().toString();
  QVERIFY2(message.startsWith(QStringLiteral("unsupported module for lattice artifact: SparseConvBlock")),
           qPrintable(message));
  QVERIFY(!message.contains(QLatin1Char('\n'))); // one line; the tooltip has the whole text
  QCOMPARE(diagnostics.index(0, 1).data(Qt::ToolTipRole).toString(), session.lastError());

  // The value table stops at the failing node: x and block 0 ran, blocks_1 is marked failed.
  QCOMPARE(values.rowCount(), 5);
  QCOMPARE(values.executedRows(), 4);
  QCOMPARE(cell(values, 4, ValueTableModel::NodeColumn), QStringLiteral("blocks_1"));
  QCOMPARE(cell(values, 4, ValueTableModel::KindColumn), QStringLiteral("error"));
  QVERIFY(cell(values, 4, ValueTableModel::TypeColumn).startsWith(QStringLiteral("unsupported module")));
  QVERIFY(!panel.action(QStringLiteral("step"))->isEnabled());

  // Restarting clears the interpreter's diagnostic; a failed trace adds its own.
  session.setLeafOverride(QStringLiteral("blocks.1"), std::nullopt);
  QCOMPARE(diagnostics.rowCount(), 0);
  session.setLeafOverride(QStringLiteral("blocks.1.0"), false);
  QCOMPARE(diagnostics.rowCount(), 1);
  QCOMPARE(diagnostics.index(0, 0).data().toString(), QStringLiteral("(trace)"));
  QVERIFY(diagnostics.index(0, 0).data(DiagnosticsModel::NodeNameRole).toString().isEmpty());
  session.setLeafOverride(QStringLiteral("blocks.1.0"), std::nullopt);
  QCOMPARE(diagnostics.rowCount(), 0);
}

void TestPanelsInterpreter::clickingRowsSelectsNodes() {
  StudioSession session;
  InterpreterPanel panel(&session);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  session.setLeafOverride(QStringLiteral("blocks.2"), true);
  session.continueRun(); // fails at blocks_2
  QCOMPARE(session.failedNode(), QStringLiteral("blocks_2"));
  panel.resize(700, 500);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));

  QTableView* values = panel.valueView();
  const QModelIndex row2 = panel.valueModel()->index(2, ValueTableModel::NodeColumn);
  values->scrollTo(row2);
  QTest::mouseClick(values->viewport(), Qt::LeftButton, {}, values->visualRect(row2).center());
  QCOMPARE(session.selectedNode(), QStringLiteral("blocks_0_1"));

  QTableView* diagnostics = panel.diagnosticsView();
  const QModelIndex error = panel.diagnosticsModel()->index(0, DiagnosticsModel::MessageColumn);
  QTest::mouseClick(diagnostics->viewport(), Qt::LeftButton, {}, diagnostics->visualRect(error).center());
  QCOMPARE(session.selectedNode(), QStringLiteral("blocks_2"));
}

QTEST_MAIN(TestPanelsInterpreter)
#include "tst_panels_interpreter.moc"
