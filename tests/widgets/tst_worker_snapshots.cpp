// Workers read snapshots, never the live session. A numeric prepare job is held on a latch (the
// NumericRun prepare hook) while the test loads another model, switches tabs, edits inputs and
// runs again: every call returns while the job is still held (were one to wait for it, the latch
// would time out first and the test fail), and when the latch opens the held job's late result
// changes nothing. Independent expectations: the node names of example:chain:N (chainPrefix),
// the snapshot's revision bumped by each change, and the lowering's own "cancelled".

#include "LeafEdits.h"
#include "MainWindow.h"
#include "StudioSession.h"
#include "WidgetTestSupport.h"
#include "WorkerTestSupport.h"
#include "numeric/NumericRun.h"

#include <QTabWidget>
#include <QUndoStack>
#include <QtTest/QtTest>

#include <variant>

using namespace lattice;
using namespace lattice::studio;
using namespace lattice::widgettest;

namespace {

NumericRun::InputChoice randomChoice(qint64 points, quint64 seed) {
  NumericRun::InputChoice c;
  c.points = points;
  c.seed = seed;
  return c;
}

/// The specs with the first one renamed: an edit (names are informative, the run is the same).
std::vector<InputSpec> renamedFirst(const StudioSession& session) {
  std::vector<InputSpec> specs = session.inputSpecs();
  if (!specs.empty()) specs.front().name += "_edited";
  return specs;
}

} // namespace

class TestWorkerSnapshots : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { isolateSettings(QStringLiteral("tst_worker_snapshots")); }
  void cleanup() { NumericRun::setPrepareHook({}); }
  void heldJobBlocksNothingAndIsDropped();
  void heldJobInTheWindow();
  void oneUndoStackForEveryEdit();
  void loweringStopsWhenCancelled();
};

void TestWorkerSnapshots::heldJobBlocksNothingAndIsDropped() {
  StudioSession session;
  NumericRun run(&session);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
  run.setInputChoice(randomChoice(200, 3));
  const quint64 first = session.revision();
  const std::shared_ptr<const ModelSnapshot> snapshot = session.snapshot();
  QCOMPARE(session.snapshot(), snapshot); // one snapshot per revision

  Latch latch;
  NumericRun::setPrepareHook([&latch] { latch.hold(); });
  run.run();
  QVERIFY(waitFor([&] { return latch.held() == 1; }));
  NumericRun::setPrepareHook({}); // the jobs started from now on run freely

  // Another model, while the job reads the first one's snapshot.
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QVERIFY(session.revision() != first);
  QVERIFY(session.snapshot() != snapshot);
  QCOMPARE(run.state(), NumericRun::State::Empty);
  QVERIFY(run.lowered() == nullptr);
  QVERIFY(run.hasJobsInFlight()); // still held

  // Inputs edited and undone, both while the job is held.
  const quint64 beforeEdit = session.revision();
  session.setInputSpecs(renamedFirst(session));
  QVERIFY(session.revision() != beforeEdit);
  session.undoStack()->undo();
  QCOMPARE(session.inputSpecsEdited(), false);

  // A run on the new model completes beside the held one.
  run.setInputChoice(randomChoice(200, 4));
  run.run();
  QVERIFY(waitFor([&] { return run.state() == NumericRun::State::Finished; }));
  QVERIFY(!latch.expired());
  QCOMPARE(latch.held(), 1);
  const LoweredRun* finished = run.lowered();
  QVERIFY(finished != nullptr);
  const QString lastNode = chainPrefix(3).constLast();
  QVERIFY(std::holds_alternative<runtime::Sparse>(run.valuesOf(lastNode).at(0).second));

  // The held job's result arrives late and is dropped: nothing changes.
  QSignalSpy states(&run, &NumericRun::stateChanged);
  QSignalSpy values(&run, &NumericRun::valuesChanged);
  QSignalSpy failures(&run, &NumericRun::failed);
  latch.release();
  QVERIFY(waitFor([&] { return !run.hasJobsInFlight(); }));
  QCOMPARE(states.count(), 0);
  QCOMPARE(values.count(), 0);
  QCOMPARE(failures.count(), 0);
  QCOMPARE(run.state(), NumericRun::State::Finished);
  QCOMPARE(run.lowered(), finished);
  // The snapshot the job read outlived the session's model: still whole.
  QCOMPARE(QString::fromStdString(snapshot->model->source), QStringLiteral("example:chain:2"));
  QVERIFY(snapshot->graph->findNode(chainPrefix(2).constLast().toStdString()) != nullptr);
}

void TestWorkerSnapshots::heldJobInTheWindow() {
  MainWindow window;
  StudioSession* session = window.session();
  NumericRun* run = window.numericRun();
  QVERIFY(openAndWait(*session, QStringLiteral("example:chain:2")));
  run->setInputChoice(randomChoice(200, 5));

  Latch latch;
  NumericRun::setPrepareHook([&latch] { latch.hold(); });
  run->run();
  QVERIFY(waitFor([&] { return latch.held() == 1; }));
  NumericRun::setPrepareHook({});

  QVERIFY(openAndWait(*session, QStringLiteral("example:chain:3")));
  window.openArtifact(conformanceDir() + QStringLiteral("/sparse_classifier/expected.lattice"));
  QTabWidget* tabs = window.tabs();
  QVERIFY(tabs->count() >= 2);
  tabs->setCurrentIndex(1);
  tabs->setCurrentIndex(0);
  session->setInputSpecs(renamedFirst(*session));
  QVERIFY(session->inputSpecsEdited());
  QTest::qWait(50); // the window handles what these calls posted
  QVERIFY(!latch.expired());
  QCOMPARE(run->state(), NumericRun::State::Empty);
  QVERIFY(run->hasJobsInFlight());

  QSignalSpy states(run, &NumericRun::stateChanged);
  latch.release();
  QVERIFY(waitFor([&] { return !run->hasJobsInFlight(); }));
  QCOMPARE(states.count(), 0);
  QCOMPARE(run->state(), NumericRun::State::Empty);
  QVERIFY(run->lowered() == nullptr);
}

void TestWorkerSnapshots::oneUndoStackForEveryEdit() {
  // Leaf toggles and input edits are commands on the one stack of the document, in order.
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
  QUndoStack* stack = session.undoStack();
  QCOMPARE(LeafEdits::of(&session), stack);
  QCOMPARE(session.inputUndoStack(), stack);
  const std::vector<InputSpec> archive = session.inputSpecs();
  const int nodes = static_cast<int>(session.graph()->size());

  LeafEdits::of(&session)->set(QStringLiteral("blocks.0"), true);
  const int collapsed = static_cast<int>(session.graph()->size());
  QVERIFY(collapsed < nodes);
  session.setInputSpecs(renamedFirst(session));
  QCOMPARE(stack->count(), 2);

  stack->undo(); // the input edit first
  QVERIFY(!session.inputSpecsEdited());
  QCOMPARE(static_cast<int>(session.graph()->size()), collapsed);
  stack->undo(); // then the leaf toggle
  QCOMPARE(static_cast<int>(session.graph()->size()), nodes);
  stack->redo();
  QCOMPARE(static_cast<int>(session.graph()->size()), collapsed);

  // Another model empties the stack; a reload keeps it.
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  QCOMPARE(stack->count(), 0);
  QCOMPARE(session.inputSpecs().size(), archive.size());
}

void TestWorkerSnapshots::loweringStopsWhenCancelled() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
  const std::shared_ptr<const ModelSnapshot> snapshot = session.snapshot();
  Expected<PreparedLowering> lowering = prepareLowering(*snapshot->model, snapshot->options, snapshot->graph.get());
  QVERIFY(lowering);
  std::atomic<bool> cancel{true};
  const Status stopped = finishLowering(*lowering, &cancel);
  QVERIFY(!stopped);
  QCOMPARE(QString::fromStdString(stopped.message()), QStringLiteral("cancelled"));
  QCOMPARE(lowering->interpreter->currentNode(), &*snapshot->graph->nodes().begin()); // no node ran

  Expected<PreparedLowering> again = prepareLowering(*snapshot->model, snapshot->options, snapshot->graph.get());
  QVERIFY(again);
  cancel = false;
  QVERIFY(finishLowering(*again, &cancel)); // not cancelled: to the end
  QVERIFY(again->interpreter->currentNode() == nullptr);
}

QTEST_MAIN(TestWorkerSnapshots)
#include "tst_worker_snapshots.moc"
