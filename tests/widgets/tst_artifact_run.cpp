// The artifact view's run bar: an opened artifact run on its inputs and
// checked against expected outputs. Expectations come from the conformance files: the manifest's
// cases, inputs, expected outputs and tolerances (read here, not through the bar), the op count of
// graph.mlir's text; the overlay colours follow from the run's own figures.

#include "MainWindow.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactNodeItem.h"
#include "artifactview/ArtifactOpGraph.h"
#include "artifactview/ArtifactRun.h"
#include "artifactview/ArtifactStyle.h"
#include "artifactview/ArtifactView.h"
#include "numeric/NumericOverlay.h"

#include "ArtifactViewTestSupport.h"

#include <QAction>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QTabWidget>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

#include <algorithm>

using namespace lattice;
using namespace lattice::studio;
using namespace lattice::widgettest;

class TestArtifactRun : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void runChecksConformanceCases_data();
  void runChecksConformanceCases();
  void runAgainstTheWrongGoldenFails();
  void ctrlRRunsTheCurrentArtifact();
};

void TestArtifactRun::initTestCase() {
  isolateSettings(QStringLiteral("tst_artifact_run"));
}

void TestArtifactRun::runChecksConformanceCases_data() {
  // Every case of the manifest: its artifact, inputs, expected outputs and tolerances, read here
  // from manifest.json (the run bar finds them on its own).
  QTest::addColumn<QString>("artifact");
  QTest::addColumn<QString>("inputs");
  QTest::addColumn<QString>("expected");
  QTest::addColumn<double>("rtol");
  QTest::addColumn<double>("atol");
  const QString root = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/");
  QFile f(root + QStringLiteral("manifest.json"));
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QJsonArray cases = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("cases")).toArray();
  QVERIFY(!cases.isEmpty());
  for (const QJsonValue& v : cases) {
    const QJsonObject c = v.toObject();
    QTest::newRow(qPrintable(c.value(QStringLiteral("name")).toString()))
        << root + c.value(QStringLiteral("expected_artifact")).toString()
        << root + c.value(QStringLiteral("inputs")).toString()
        << root + c.value(QStringLiteral("expected_outputs")).toString() << c.value(QStringLiteral("rtol")).toDouble()
        << c.value(QStringLiteral("atol")).toDouble();
  }
}

void TestArtifactRun::runChecksConformanceCases() {
  // Opening a conformance case picks its inputs, expected outputs and the manifest's tolerances;
  // Run executes it off the UI thread and every output matches (as `lattice-cli check` finds).
  QFETCH(QString, artifact);
  QFETCH(QString, inputs);
  QFETCH(QString, expected);
  QFETCH(double, rtol);
  QFETCH(double, atol);
  ArtifactView view;
  QVERIFY(openAndSettle(view, artifact));
  ArtifactRunBar* bar = view.runBar();
  const ArtifactRunRequest request = bar->request();
  QVERIFY(request.inputs.source == RunInputSpec::Source::File);
  QCOMPARE(QFileInfo(QString::fromStdString(request.inputs.file)).canonicalFilePath(), QFileInfo(inputs).canonicalFilePath());
  QCOMPARE(QFileInfo(QString::fromStdString(request.expectedFile)).canonicalFilePath(), QFileInfo(expected).canonicalFilePath());
  QCOMPARE(request.rtol, rtol);
  QCOMPARE(request.atol, atol);
  QVERIFY(bar->result() == nullptr);

  bar->run();
  QVERIFY(bar->isRunning());
  QVERIFY(waitFor([&] { return !bar->isRunning(); }));
  const ArtifactRunResult* result = bar->result();
  QVERIFY(result);
  QVERIFY2(result->error.empty(), result->error.c_str());
  QVERIFY(result->hasGolden());
  for (const runtime::OutputCheck& c : result->checks)
    QVERIFY2(c.ok, qPrintable(QString::fromStdString(c.name + ": " + c.problem)));
  // One time per op of the text (counted without the reader), each op ran.
  const TextGraph text = readTextGraph(readText(artifact + QStringLiteral("/graph.mlir")));
  QCOMPARE(int(result->opMs.size()), text.ops.size());
  QVERIFY(std::all_of(result->opMs.begin(), result->opMs.end(), [](double ms) { return ms >= 0; }));

  // Time overlay: the slowest op is red; Accuracy: the ops that make the outputs are not.
  const ArtifactOpGraph& graph = *view.document()->opGraph;
  bar->setOverlay(ArtifactOverlay::Time);
  const int slowest = int(std::max_element(result->opMs.begin(), result->opMs.end()) - result->opMs.begin());
  QCOMPARE(view.graphView()->nodeItem(graph.nodeOfOp(slowest))->style().fill, heatColor(1.0));
  QVERIFY(view.overlayLegend()->isVisibleTo(&view));
  bar->setOverlay(ArtifactOverlay::Accuracy);
  for (int op : result->checkOps) {
    if (op < 0) continue;
    const QColor fill = view.graphView()->nodeItem(graph.nodeOfOp(op))->style().fill;
    QVERIFY(fill == heatColor(0.0) || fill == heatColor(0.25));
  }
  bar->setOverlay(ArtifactOverlay::Categories);
  QVERIFY(!view.overlayLegend()->isVisibleTo(&view));
  QCOMPARE(view.graphView()->nodeItem(graph.nodeOfOp(slowest))->style().fill,
           categoryStyle(graph.nodes()[std::size_t(graph.nodeOfOp(slowest))].category).fill);
}

void TestArtifactRun::runAgainstTheWrongGoldenFails() {
  // sparse_classifier's run checked against point_voxel's expected outputs: the output is
  // missing there, the check fails, and the op that makes it turns red.
  ArtifactView view;
  QVERIFY(openAndSettle(view, expectedDir(QStringLiteral("sparse_classifier"))));
  ArtifactRunBar* bar = view.runBar();
  bar->setExpectedFile(modelsDir() + QStringLiteral("/point_voxel/expected.safetensors"));
  bar->setOverlay(ArtifactOverlay::Accuracy);
  QSignalSpy finished(bar, &ArtifactRunBar::finished);
  bar->run();
  QVERIFY(waitFor([&] { return !finished.isEmpty(); }));
  const ArtifactRunResult* result = bar->result();
  QVERIFY(result && result->error.empty() && result->hasGolden());
  QVERIFY(!result->allOk());
  QVERIFY(!result->checks.front().problem.empty());
  const int op = result->checkOps.front();
  QVERIFY(op >= 0);
  QCOMPARE(view.graphView()->nodeItem(view.document()->opGraph->nodeOfOp(op))->style().fill, heatColor(1.0));
  QVERIFY(view.overlayLegend()->text().contains(QStringLiteral("outside")));

  // Inputs that do not fit the ABI: the run fails with the binding's message, nothing crashes.
  bar->setInputsFile(modelsDir() + QStringLiteral("/point_voxel/inputs.safetensors"));
  bar->run();
  QVERIFY(waitFor([&] { return finished.count() == 2; }));
  QVERIFY(bar->result() && !bar->result()->error.empty());

  // Another artifact opened while a run goes on: that run's result is not shown for it.
  bar->setInputsFile(QString());
  bar->run();
  QVERIFY(bar->isRunning());
  const QString other = expectedDir(QStringLiteral("point_voxel"));
  QVERIFY(openAndSettle(view, other));
  QVERIFY(waitFor([&] { return !bar->isRunning(); }));
  QVERIFY(bar->result() == nullptr);
  QCOMPARE(QString::fromStdString(bar->request().artifact), other);
}

void TestArtifactRun::ctrlRRunsTheCurrentArtifact() {
  MainWindow window;
  const QString dir = expectedDir(QStringLiteral("sparse_classifier"));
  window.openArtifact(dir);
  ArtifactView* view = window.artifactView(dir);
  QVERIFY(view);
  QCOMPARE(window.tabs()->currentWidget(), view);
  QVERIFY(waitFor([&] { return view->document() && !view->isLoading(); }));
  // Debug ▸ Run on Inputs (Ctrl+R) runs the artifact whose tab is current.
  QAction* runInputs = window.action(QStringLiteral("debug.runInputs"));
  QVERIFY(runInputs->isEnabled());
  runInputs->trigger();
  QVERIFY(view->runBar()->isRunning());
  QVERIFY(!runInputs->isEnabled());
  QVERIFY(waitFor([&] { return !view->runBar()->isRunning(); }));
  QVERIFY(view->runBar()->result() && view->runBar()->result()->allOk());
  QVERIFY(runInputs->isEnabled());
}

QTEST_MAIN(TestArtifactRun)
#include "tst_artifact_run.moc"
