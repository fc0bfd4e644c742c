// StudioSession runs in slices (continueRun / runToNode from the event loop): with a slice budget
// of 0 every slice executes exactly one node, so a run of the chain example takes one
// interpreterStepped per node and stays observable between slices. The run must end where a
// synchronous run would (the end with the exact graph.mlir that saveLatticeModelArtifact writes,
// a breakpoint, the run-to node, the failing node), Stop must interrupt it at a slice boundary
// with the interpreter paused, and a restart must cancel it. Node names and counts come from the
// chain example's definition (Examples.h): x, then per block SubmConv3d + BatchNorm + ReLU
// (blocks_B_0..2), then the output.

#include "StudioSession.h"
#include "lowering/Lowering.h"
#include "model/LoadModel.h"

#include "WidgetTestSupport.h"

#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using lattice::studio::StudioSession;
using State = StudioSession::InterpreterState;

using namespace lattice::widgettest;

namespace {

/// Waits until the session reports the end of a run; false on a timeout.
bool waitForRunEnd(StudioSession& session, int timeoutMs = 30000) {
  QElapsedTimer clock;
  clock.start();
  while (session.isRunning() && clock.elapsed() < timeoutMs)
    QTest::qWait(5);
  return !session.isRunning();
}

/// graph.mlir as the core writes it for `reference` (what `lattice-cli lower` does).
QByteArray savedMlir(const QString& reference) {
  lattice::Expected<lattice::Model> model = lattice::loadModel(reference.toStdString());
  if (!model) return {};
  QTemporaryDir dir;
  const QString target = dir.filePath(QStringLiteral("a.lattice"));
  if (!lattice::saveLatticeModelArtifact(*model, target.toStdString())) return {};
  return readAll(target + QStringLiteral("/graph.mlir"));
}

} // namespace

class TestSessionRun : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void continueRunsInSlicesToTheEnd();
  void breakpointStopsExactlyAcrossSlices();
  void runToNodeAcrossSlices();
  void failureStopsAtTheFailingNode();
  void stopInterruptsAtASliceBoundary();
  void restartCancelsTheRun();
  void shortRunStaysSynchronous();
};

void TestSessionRun::continueRunsInSlicesToTheEnd() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:20")));
  session.setRunSliceBudget(0);
  QSignalSpy running(&session, &StudioSession::runningChanged);
  QSignalSpy stepped(&session, &StudioSession::interpreterStepped);
  QSignalSpy finished(&session, &StudioSession::interpreterFinished);
  session.continueRun();
  // The first slice ran at once (one node); the rest is queued on the event loop.
  QVERIFY(session.isRunning());
  QCOMPARE(running.count(), 1);
  QCOMPARE(running.front().front().toBool(), true);
  QCOMPARE(session.executedNodes(), QStringList{QStringLiteral("x")});
  QCOMPARE(session.interpreterState(), State::Paused);
  QCOMPARE(session.totalNodes(), 1 + 3 * 20 + 1);

  QVERIFY(waitForRunEnd(session));
  QCOMPARE(session.interpreterState(), State::Finished);
  QCOMPARE(session.executedNodes(), chainPrefix(20) << QStringLiteral("output"));
  // One signal per slice of one node; the end after the last one, then the run's end.
  QCOMPARE(stepped.count(), 62);
  QCOMPARE(stepped.back().front().toString(), QStringLiteral("output"));
  QCOMPARE(finished.count(), 1);
  QCOMPARE(running.count(), 2);
  QCOMPARE(running.back().front().toBool(), false);
  // Slicing changes nothing in what is built.
  const std::string text = session.lowering()->builder->writer().str().value();
  QCOMPARE(QByteArray::fromStdString(text), savedMlir(QStringLiteral("example:chain:20")));
}

void TestSessionRun::breakpointStopsExactlyAcrossSlices() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:20")));
  session.setRunSliceBudget(0);
  session.toggleBreakpoint(QStringLiteral("blocks_7_1"));
  session.continueRun();
  QVERIFY(session.isRunning());
  QVERIFY(waitForRunEnd(session));
  QCOMPARE(session.interpreterState(), State::Paused);
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_7_1"));
  QCOMPARE(session.executedNodes(), chainPrefix(7) << QStringLiteral("blocks_7_0"));
  // A breakpoint set while running stops the run when its node comes up.
  session.continueRun();
  QVERIFY(session.isRunning());
  session.toggleBreakpoint(QStringLiteral("blocks_15_0"));
  QVERIFY(waitForRunEnd(session));
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_15_0"));
  QCOMPARE(session.executedNodes().size(), 1 + 15 * 3);
}

void TestSessionRun::runToNodeAcrossSlices() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:20")));
  session.setRunSliceBudget(0);
  QSignalSpy finished(&session, &StudioSession::interpreterFinished);
  session.runToNode(QStringLiteral("blocks_12_2"));
  QVERIFY(session.isRunning());
  QVERIFY(waitForRunEnd(session));
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_12_2"));
  QCOMPARE(session.executedNodes(), chainPrefix(12)
                                        << QStringLiteral("blocks_12_0") << QStringLiteral("blocks_12_1"));
  QCOMPARE(finished.count(), 0);
  // A node that already ran: the run restarts and stops before it again.
  session.runToNode(QStringLiteral("blocks_3_0"));
  QVERIFY(waitForRunEnd(session));
  QCOMPARE(session.currentNode(), QStringLiteral("blocks_3_0"));
  QCOMPARE(session.executedNodes(), chainPrefix(3));
}

void TestSessionRun::failureStopsAtTheFailingNode() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:20")));
  session.setRunSliceBudget(0);
  // Block 6 kept whole is a call_module of SparseConvBlock, which has no lowering.
  session.setLeafOverride(QStringLiteral("blocks.6"), true);
  QSignalSpy failed(&session, &StudioSession::interpreterFailed);
  session.continueRun();
  QVERIFY(session.isRunning());
  QVERIFY(waitForRunEnd(session));
  QCOMPARE(session.interpreterState(), State::Failed);
  QCOMPARE(failed.count(), 1);
  QCOMPARE(failed.front().at(0).toString(), QStringLiteral("blocks_6"));
  QCOMPARE(session.executedNodes(), chainPrefix(6));
}

void TestSessionRun::stopInterruptsAtASliceBoundary() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:200")));
  session.setRunSliceBudget(0);
  QSignalSpy stepped(&session, &StudioSession::interpreterStepped);
  QSignalSpy running(&session, &StudioSession::runningChanged);
  session.continueRun();
  QTRY_VERIFY(stepped.count() >= 10);
  session.stopInterpreter(); // while running: an interrupt, not a reset
  QVERIFY(!session.isRunning());
  QCOMPARE(running.count(), 2);
  QCOMPARE(session.interpreterState(), State::Paused);
  const int executed = session.executedNodes().size();
  QVERIFY(executed < 1 + 3 * 200 + 1);
  // Paused exactly after the last reported node: nothing runs behind the user's back.
  QCOMPARE(session.executedNodes().constLast(), stepped.back().front().toString());
  QCOMPARE(session.currentNode(), chainPrefix(200).value(executed));
  QTest::qWait(50);
  QCOMPARE(session.executedNodes().size(), executed);
  // Continue resumes from there to the end.
  session.continueRun();
  QVERIFY(waitForRunEnd(session));
  QCOMPARE(session.interpreterState(), State::Finished);
  QCOMPARE(session.executedNodes(), chainPrefix(200) << QStringLiteral("output"));
  // Stop when nothing runs drops the interpreter.
  session.stopInterpreter();
  QCOMPARE(session.interpreterState(), State::NotStarted);
}

void TestSessionRun::restartCancelsTheRun() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:200")));
  session.setRunSliceBudget(0);
  QSignalSpy stepped(&session, &StudioSession::interpreterStepped);
  session.continueRun();
  QTRY_VERIFY(stepped.count() >= 3);
  session.startInterpreter();
  QVERIFY(!session.isRunning());
  QCOMPARE(session.interpreterState(), State::Paused);
  QVERIFY(session.executedNodes().isEmpty());
  QTest::qWait(50);
  QVERIFY(session.executedNodes().isEmpty()); // no slice of the old run comes late
  QCOMPARE(session.currentNode(), QStringLiteral("x"));
}

void TestSessionRun::shortRunStaysSynchronous() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  // A run its budget covers (the default, 15 ms, covers an 11-node run on an idle machine) ends
  // inside continueRun, unsliced; openAndWait gave it a budget no machine exceeds.
  QCOMPARE(StudioSession().runSliceBudget(), 15);
  QCOMPARE(session.runSliceBudget(), kUnslicedRunBudgetMs);
  QSignalSpy running(&session, &StudioSession::runningChanged);
  QSignalSpy stepped(&session, &StudioSession::interpreterStepped);
  session.continueRun();
  QCOMPARE(session.interpreterState(), State::Finished);
  QCOMPARE(running.count(), 0);
  QCOMPARE(stepped.count(), 1);
}

QTEST_GUILESS_MAIN(TestSessionRun)
#include "tst_session_run.moc"
