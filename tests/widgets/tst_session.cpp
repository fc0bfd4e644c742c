// StudioSession: loading in the background (conformance archives, examples, failures, stale and
// cancelled loads), leaf overrides that re-trace, and the steppable lowering: stepping every
// conformance archive to the end must give expected.lattice/graph.mlir byte for byte;
// breakpoints, continue and run-to-node stop where a debugger would; a failing lowering stops
// on the failing node with the builder's message. Node counts are worked out by hand from the
// chain example's definition (Examples.h): x, then per block SubmConv3d + BatchNorm + ReLU, then
// the output.

#include "StudioSession.h"

#include "WidgetTestSupport.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using lattice::studio::StudioSession;
using State = StudioSession::InterpreterState;

using namespace lattice::widgettest;

class TestSession : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void stepsConformanceArchiveToExpectedMlir_data();
  void stepsConformanceArchiveToExpectedMlir();
  void loadsExampleChain();
  void unknownExampleFails();
  void newerLoadSupersedesOlder();
  void cancelledLoadIsDropped();
  void leafOverridesRetrace();
  void lowersTheGraphOnScreen();
  void breakpointsAndContinue();
  void runToNode();
  void failingLoweringStopsAtFailingNode();
  void stepBeforeStartStartsOnFirstNode();
  void selectionSignalsOnce();
};

void TestSession::stepsConformanceArchiveToExpectedMlir_data() {
  QTest::addColumn<QString>("dir");
  const QStringList cases = QDir(conformanceDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
  QVERIFY(!cases.isEmpty());
  for (const QString& c : cases)
    QTest::newRow(qPrintable(c)) << QDir(conformanceDir()).filePath(c);
}

void TestSession::stepsConformanceArchiveToExpectedMlir() {
  QFETCH(QString, dir);
  StudioSession session;
  QSignalSpy loaded(&session, &StudioSession::modelLoaded);
  QVERIFY(openAndWait(session, dir + QStringLiteral("/model.ltfx")));
  QCOMPARE(loaded.count(), 1);
  QVERIFY(session.model());
  QVERIFY(session.graph());

  session.startInterpreter();
  QCOMPARE(session.interpreterState(), State::Paused);
  QVERIFY(session.lowering());
  if (!session.lowering()->direct()) QCOMPARE(session.lowering()->graph, session.graph());
  QSignalSpy stepped(&session, &StudioSession::interpreterStepped);
  QSignalSpy finished(&session, &StudioSession::interpreterFinished);
  int steps = 0;
  while (session.interpreterState() == State::Paused && steps < 100000) {
    session.step();
    ++steps;
  }
  QVERIFY2(session.interpreterState() == State::Finished, qPrintable(session.lastError()));
  QCOMPARE(finished.count(), 1);
  QCOMPARE(stepped.count(), steps);
  // Every node of the traced graph ran exactly once (one step each), or the one direct lowering.
  const int expectedSteps = session.lowering()->direct() ? 1 : int(session.graph()->size());
  QCOMPARE(steps, expectedSteps);
  QCOMPARE(session.executedNodes().size(), expectedSteps);

  auto text = session.lowering()->builder->toMlir();
  QVERIFY2(text.ok(), text.ok() ? "" : text.message().c_str());
  const QByteArray expected = readAll(dir + QStringLiteral("/expected.lattice/graph.mlir"));
  QVERIFY(!expected.isEmpty());
  QCOMPARE(QByteArray::fromStdString(*text), expected);
}

void TestSession::loadsExampleChain() {
  StudioSession session;
  QSignalSpy started(&session, &StudioSession::modelLoadStarted);
  QSignalSpy graphChanged(&session, &StudioSession::graphChanged);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QCOMPARE(started.count(), 1);
  QCOMPARE(started.front().front().toString(), QStringLiteral("example:chain:3"));
  QCOMPARE(graphChanged.count(), 1);
  QCOMPARE(session.modelReference(), QStringLiteral("example:chain:3"));
  QVERIFY(!session.isLoading());
  // x + 3 blocks × (conv, norm, relu) + output.
  QCOMPARE(int(session.graph()->size()), 11);
  QVERIFY(session.isLeaf(QStringLiteral("blocks.0.0")));
  QVERIFY(!session.isLeaf(QStringLiteral("blocks.0")));
  QVERIFY(!session.isLeaf(QStringLiteral("blocks")));
}

void TestSession::unknownExampleFails() {
  StudioSession session;
  QSignalSpy failed(&session, &StudioSession::modelLoadFailed);
  QVERIFY(!openAndWait(session, QStringLiteral("example:no_such_model")));
  QCOMPARE(failed.count(), 1);
  const QString message = failed.front().front().toString();
  QVERIFY2(message.contains(QStringLiteral("sparse_resunet42")),
           qPrintable(message)); // lists the valid names
  QVERIFY(!session.model());
  QVERIFY(!session.isLoading());
}

void TestSession::newerLoadSupersedesOlder() {
  StudioSession session;
  QSignalSpy loaded(&session, &StudioSession::modelLoaded);
  session.openModel(QStringLiteral("example:chain:3"));
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
  QTest::qWait(300); // the first load has long finished: its result must have been dropped
  QCOMPARE(loaded.count(), 1);
  QCOMPARE(session.modelReference(), QStringLiteral("example:chain:2"));
  QCOMPARE(int(session.graph()->size()), 8); // x + 2 × 3 + output
}

void TestSession::cancelledLoadIsDropped() {
  StudioSession session;
  QSignalSpy loaded(&session, &StudioSession::modelLoaded);
  QSignalSpy cancelled(&session, &StudioSession::modelLoadCancelled);
  session.openModel(QStringLiteral("example:chain:3"));
  QVERIFY(session.isLoading());
  session.cancelLoad();
  QCOMPARE(cancelled.count(), 1);
  QVERIFY(!session.isLoading());
  QTest::qWait(500);
  QCOMPARE(loaded.count(), 0);
  QVERIFY(!session.model());
}

void TestSession::leafOverridesRetrace() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QSignalSpy graphChanged(&session, &StudioSession::graphChanged);
  QSignalSpy reset(&session, &StudioSession::interpreterReset);

  // Block 0 kept whole: its three layers become one call_module node.
  session.setLeafOverride(QStringLiteral("blocks.0"), true);
  QCOMPARE(graphChanged.count(), 1);
  QVERIFY(reset.count() >= 1);
  QVERIFY(session.isLeaf(QStringLiteral("blocks.0")));
  QCOMPARE(int(session.graph()->size()), 9);
  QVERIFY(session.graph()->findNode("blocks_0"));
  QVERIFY(!session.graph()->findNode("blocks_0_0"));

  // The whole Sequential as one node: x, blocks, output.
  session.setLeafOverride(QStringLiteral("blocks"), true);
  QCOMPARE(int(session.graph()->size()), 3);

  // A lowered leaf forced open: SubmConv3d has no graph of its own, so tracing fails.
  session.setLeafOverride(QStringLiteral("blocks"), std::nullopt);
  session.setLeafOverride(QStringLiteral("blocks.0"), std::nullopt);
  QCOMPARE(int(session.graph()->size()), 11);
  QSignalSpy traceFailed(&session, &StudioSession::traceFailed);
  session.setLeafOverride(QStringLiteral("blocks.1.0"), false);
  QCOMPARE(traceFailed.count(), 1);
  QVERIFY(!session.graph());
  session.setLeafOverride(QStringLiteral("blocks.1.0"), std::nullopt);
  QVERIFY(session.graph());
  QCOMPARE(int(session.graph()->size()), 11);
}

void TestSession::lowersTheGraphOnScreen() {
  // The interpreter runs the session's own graph, overrides included: its nodes are the view's.
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  session.setLeafOverride(QStringLiteral("blocks.0"), true);
  const lattice::fx::Graph* graph = session.graph();
  QVERIFY(graph);
  session.startInterpreter();
  QCOMPARE(session.interpreterState(), State::Paused);
  QCOMPARE(session.lowering()->graph, graph);
  QVERIFY(!session.lowering()->ownedGraph);
  QCOMPARE(session.lowering()->interpreter->currentNode(), graph->findNode("x"));
  session.step();
  QCOMPARE(session.lowering()->interpreter->currentNode(), graph->findNode("blocks_0"));
  QVERIFY(session.lowering()->interpreter->valueOf(graph->findNode("x")));
  // Block 0 kept whole is a Sequential, which has no lowering: the lowering fails on that node.
  session.step();
  QCOMPARE(session.interpreterState(), State::Failed);
  QCOMPARE(session.failedNode(), QStringLiteral("blocks_0"));

  // A new override replaces the graph: the lowering is dropped first, and the next one runs on
  // the new graph.
  session.setLeafOverride(QStringLiteral("blocks.0"), std::nullopt);
  QVERIFY(!session.lowering());
  session.startInterpreter();
  QCOMPARE(session.lowering()->graph, session.graph());
  QVERIFY(session.graph()->findNode("blocks_0_0"));

  // Without a graph (its trace failed) starting reports the trace error.
  session.setLeafOverride(QStringLiteral("blocks.1.0"), false);
  QVERIFY(!session.graph());
  session.startInterpreter();
  QCOMPARE(session.interpreterState(), State::Failed);
  QVERIFY(!session.lastError().isEmpty());
}

void TestSession::breakpointsAndContinue() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QSignalSpy bpChanged(&session, &StudioSession::breakpointsChanged);
  session.toggleBreakpoint(QStringLiteral("blocks_1_1"));
  session.toggleBreakpoint(QStringLiteral("blocks_2_2"));
  QCOMPARE(bpChanged.count(), 2);
  QCOMPARE(session.breakpoints().size(), 2);

  QSignalSpy stepped(&session, &StudioSession::interpreterStepped);
  session.continueRun(); // starts the interpreter, then runs to the first breakpoint
  QCOMPARE(session.interpreterState(), State::Paused);
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_1_1"));
  QCOMPARE(session.executedNodes(), chainPrefix(3).mid(0, 5));
  QCOMPARE(stepped.count(), 1);
  QCOMPARE(stepped.front().front().toString(), QStringLiteral("blocks_1_0"));

  // Continue leaves a breakpoint it stands on, and stops at the next one.
  session.continueRun();
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_2_2"));
  QCOMPARE(session.executedNodes().size(), 9);

  session.toggleBreakpoint(QStringLiteral("blocks_2_2"));
  QCOMPARE(session.breakpoints().size(), 1);
  QSignalSpy finished(&session, &StudioSession::interpreterFinished);
  session.continueRun();
  QCOMPARE(session.interpreterState(), State::Finished);
  QCOMPARE(finished.count(), 1);
  QVERIFY(session.currentNode().isEmpty());
  QCOMPARE(session.executedNodes(), chainPrefix(3) << QStringLiteral("output"));
}

void TestSession::runToNode() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  session.runToNode(QStringLiteral("blocks_2_0"));
  QCOMPARE(session.interpreterState(), State::Paused);
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_2_0"));
  QCOMPARE(session.executedNodes().size(), 7);
  // A node that already ran is reached again from a restart.
  session.runToNode(QStringLiteral("blocks_0_1"));
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_0_1"));
  QCOMPARE(session.executedNodes(), chainPrefix(0) << QStringLiteral("blocks_0_0"));
  // An unknown node changes nothing.
  session.runToNode(QStringLiteral("no_such_node"));
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_0_1"));
  session.stopInterpreter();
  QCOMPARE(session.interpreterState(), State::NotStarted);
  QVERIFY(session.executedNodes().isEmpty());
  QVERIFY(!session.lowering());
}

void TestSession::failingLoweringStopsAtFailingNode() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  // Keeping block 1 whole makes it a call_module of SparseConvBlock, which has no lowering: the
  // interpreter (running the session's own trace) must fail exactly there.
  session.setLeafOverride(QStringLiteral("blocks.1"), true);
  QSignalSpy failed(&session, &StudioSession::interpreterFailed);
  session.continueRun();
  QCOMPARE(session.interpreterState(), State::Failed);
  QCOMPARE(session.failedNode(), QStringLiteral("blocks_1"));
  QCOMPARE(failed.count(), 1);
  QCOMPARE(failed.front().at(0).toString(), QStringLiteral("blocks_1"));
  const QString message = failed.front().at(1).toString();
  QVERIFY2(message.startsWith(QStringLiteral("unsupported module for lattice artifact: SparseConvBlock")),
           qPrintable(message));
  QCOMPARE(session.lastError(), message);
  QCOMPARE(session.executedNodes(), chainPrefix(1));
  // Further steps do nothing until a restart.
  session.step();
  QCOMPARE(failed.count(), 1);
  session.startInterpreter();
  QCOMPARE(session.interpreterState(), State::Paused);
  QCOMPARE(session.currentNode(), QStringLiteral("x"));
}

void TestSession::stepBeforeStartStartsOnFirstNode() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:1")));
  QSignalSpy reset(&session, &StudioSession::interpreterReset);
  session.step();
  QCOMPARE(reset.count(), 1);
  QCOMPARE(session.interpreterState(), State::Paused);
  QCOMPARE(session.currentNode(), QStringLiteral("x"));
  QVERIFY(session.executedNodes().isEmpty());
  session.step();
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_0_0"));
}

void TestSession::selectionSignalsOnce() {
  StudioSession session;
  QSignalSpy selection(&session, &StudioSession::selectionChanged);
  QSignalSpy module(&session, &StudioSession::moduleSelectionChanged);
  session.selectNode(QStringLiteral("a"));
  session.selectNode(QStringLiteral("a"));
  session.selectModule(QStringLiteral("blocks.0"));
  QCOMPARE(selection.count(), 1);
  QCOMPARE(module.count(), 1);
  QCOMPARE(session.selectedNode(), QStringLiteral("a"));
  QCOMPARE(session.selectedModule(), QStringLiteral("blocks.0"));
}

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
