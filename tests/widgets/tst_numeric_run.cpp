// The studio's numeric debugger: NumericRun and its Debug actions.
// Independent expectations: `lattice-cli run MODEL --random-inputs N:SEED --values FILE` (the same
// model lowered and run by the CLI) for every node's value, after a full Run and after numeric
// stepping; and an archive whose recorded activations disagree at one known node for the first
// divergent node.

#include "MainWindow.h"
#include "StudioSession.h"
#include "WidgetTestSupport.h"
#include "charts/DataFlowChart.h"
#include "model/Archive.h"
#include "model/LoadModel.h"
#include "numeric/NumericOverlay.h"
#include "numeric/NumericRun.h"
#include "numeric/RunInputsEditor.h"
#include "numeric/ValueInspector.h"
#include "numeric/ValueRowsModel.h"
#include "numeric/ValuesPanel.h"
#include "panels/DiagnosticsModel.h"
#include "panels/InputSpecEditor.h"
#include "runtime/Runtime.h"
#include "tensor/Safetensors.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QRadioButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <cstring>
#include <variant>

using namespace lattice;
using namespace lattice::studio;
using namespace lattice::widgettest;

class TestNumericRun : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void runEqualsTheCli();
  void steppingExecutesEachNode();
  void inputsDialogAndSave();
  void recordedGoldenFindsTheFirstDivergentNode();
  void knownTrainerDifferenceIsNamed();
  void runtimeErrorStopsOnItsNode();
  void failedRunNamesItsNode();
  void changesWhilePreparing();
  void expectedOutputsAreTheGolden();
  void memoryBudgetDropsAndRecomputesValues();
};

namespace {

const QString kChain = QStringLiteral("example:chain:2");

/// `lattice-cli run REFERENCE --random-inputs SPEC --values FILE`: every op's value by SSA name.
bool cliValues(const QString& reference, const QString& spec, const QString& file) {
  QProcess p;
  QTemporaryDir out;
  p.start(QStringLiteral(LATTICE_CLI), {QStringLiteral("run"), reference, QStringLiteral("--random-inputs"), spec,
                                        QStringLiteral("--values"), file, QStringLiteral("-o"),
                                        out.filePath(QStringLiteral("out.safetensors"))});
  if (!p.waitForFinished(120000) || p.exitCode() != 0) {
    qWarning("lattice-cli run failed: %s", p.readAllStandardError().constData());
    return false;
  }
  return true;
}

bool sameBytes(const TensorData& a, const TensorData& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.byteSize() == b.byteSize() &&
         std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
}

/// Every computed node value of `run` against the CLI's values file (by SSA name); the number of
/// values compared, -1 on the first mismatch.
int compareWithCli(const NumericRun& run, const SafetensorsFile& cli) {
  int compared = 0;
  for (const NodeValueRef& ref : run.lowered()->nodeValues) {
    const runtime::RuntimeValue& value = run.lowered()->runtime.value(run.lowered()->runtime.plan().slotOf(ref.ssa));
    std::vector<NamedTensor> tensors;
    if (const auto* s = std::get_if<runtime::Sparse>(&value))
      tensors = runtime::sparseTensors(ref.ssa, *s);
    else if (const auto* t = std::get_if<runtime::Tensor>(&value))
      tensors.push_back({ref.ssa, runtime::toTensorData(*t)});
    else
      continue;
    for (const NamedTensor& t : tensors) {
      const TensorData* expected = cli.find(t.key);
      if (!expected || !sameBytes(t.tensor, *expected)) {
        qWarning("%s differs from lattice-cli run --values", t.key.c_str());
        return -1;
      }
    }
    ++compared;
  }
  return compared;
}

NumericRun::InputChoice randomChoice(qint64 points, quint64 seed) {
  NumericRun::InputChoice c;
  c.points = points;
  c.seed = seed;
  return c;
}

} // namespace

void TestNumericRun::initTestCase() {
  isolateSettings(QStringLiteral("tst_numeric_run"));
  QVERIFY2(QFileInfo::exists(QStringLiteral(LATTICE_CLI)), "build lattice-cli first");
}

void TestNumericRun::runEqualsTheCli() {
  StudioSession session;
  NumericRun run(&session);
  QVERIFY(openAndWait(session, kChain));
  run.setInputChoice(randomChoice(300, 4));
  QCOMPARE(run.describeInputs(), QStringLiteral("300 random points (seed 4, batch 1)"));
  QSignalSpy changed(&run, &NumericRun::valuesChanged);
  run.run();
  QVERIFY(waitFor([&] { return !run.isRunning(); }));
  QCOMPARE(run.state(), NumericRun::State::Finished);
  QVERIFY(!changed.isEmpty());
  QCOMPARE(run.opsDone(), run.opsTotal());

  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("values.safetensors"));
  QVERIFY(cliValues(kChain, QStringLiteral("300:4"), file));
  Expected<SafetensorsFile> cli = SafetensorsFile::open(file.toStdString());
  QVERIFY(cli);
  QCOMPARE(compareWithCli(run, *cli), 8); // x, six layers, output
  // Values and times per node, as the panels ask for them.
  const auto values = run.valuesOf(QStringLiteral("blocks_1_0"));
  QCOMPARE(int(values.size()), 1);
  QCOMPARE(values[0].first, QStringLiteral("blocks_1_0"));
  QVERIFY(std::holds_alternative<runtime::Sparse>(values[0].second));
  QVERIFY(run.nodeMs(QStringLiteral("blocks_1_0")) >= 0.0);
  QVERIFY(run.nodeMs(QStringLiteral("output")) < 0.0); // the output node runs no op
  QVERIFY(run.recordingCheck() == nullptr);           // no recording: no golden
}

void TestNumericRun::steppingExecutesEachNode() {
  StudioSession session;
  NumericRun run(&session);
  QVERIFY(openAndWait(session, kChain));
  run.setInputChoice(randomChoice(250, 9));
  QVERIFY(run.isStepping()); // on by default
  session.setRunSliceBudget(0);
  session.startInterpreter();
  // The first step starts a prepare job and the ops run on a worker: steps taken meanwhile extend
  // the same run, and none of them waits for it.
  session.step(); // x
  QVERIFY(run.isRunning());
  QVERIFY(!run.isWholeRun());
  QVERIFY(run.lowered() == nullptr); // still preparing
  for (int i = 0; i < 2; ++i) session.step(); // blocks_0_0, blocks_0_1
  QCOMPARE(session.executedNodes(), chainPrefix(1).mid(0, 3));
  QVERIFY(waitFor([&] { return !run.isRunning(); }));
  QCOMPARE(run.state(), NumericRun::State::Ready);
  QVERIFY(std::holds_alternative<runtime::Sparse>(run.valuesOf(QStringLiteral("blocks_0_1")).at(0).second));
  QVERIFY(std::holds_alternative<std::monostate>(run.valuesOf(QStringLiteral("blocks_0_2")).at(0).second));
  QCOMPARE(run.opsDone(), run.lowered()->opEndOf("blocks_0_1"));
  session.continueRun();
  QVERIFY(waitFor([&] { return session.interpreterState() == StudioSession::InterpreterState::Finished; }));
  QVERIFY(waitFor([&] { return !run.isRunning(); }));
  QCOMPARE(run.state(), NumericRun::State::Finished);

  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("values.safetensors"));
  QVERIFY(cliValues(kChain, QStringLiteral("250:9"), file));
  Expected<SafetensorsFile> cli = SafetensorsFile::open(file.toStdString());
  QVERIFY(cli);
  QCOMPARE(compareWithCli(run, *cli), 8);

  // A finished run keeps its values when the interpreter restarts; new inputs drop them, and with
  // stepping off, stepping runs no op.
  session.startInterpreter();
  QCOMPARE(run.state(), NumericRun::State::Finished);
  run.setStepping(false);
  run.setInputChoice(randomChoice(250, 10));
  QVERIFY(run.lowered() == nullptr);
  session.startInterpreter();
  session.step();
  QVERIFY(run.lowered() == nullptr);
}

void TestNumericRun::inputsDialogAndSave() {
  StudioSession session;
  NumericRun run(&session);
  QVERIFY(openAndWait(session, kChain));
  // The Inputs dialog holds the specs and, with a run, the values; edits apply at once.
  InputSpecDialog dialog(&session, &run);
  RunInputsEditor* editor = dialog.runInputs();
  QVERIFY(editor);
  auto* points = editor->findChild<QSpinBox*>(QStringLiteral("points"));
  auto* seed = editor->findChild<QSpinBox*>(QStringLiteral("seed"));
  auto* file = editor->findChild<QRadioButton*>(QStringLiteral("sourceFile"));
  auto* recorded = editor->findChild<QRadioButton*>(QStringLiteral("sourceRecorded"));
  QVERIFY(points && seed && file && recorded);
  QVERIFY(!recorded->isEnabled()); // an example has no recording
  QCOMPARE(points->value(), int(run.inputChoice().points));
  points->setValue(120);
  Q_EMIT points->editingFinished();
  QCOMPARE(run.inputChoice().points, qint64(120));
  seed->setValue(11);
  Q_EMIT seed->editingFinished();
  QCOMPARE(run.inputChoice().seed, quint64(11));
  file->click(); // a file source without a file is not applied
  QCOMPARE(run.inputChoice().source, NumericRun::InputSource::Random);
  QVERIFY(!editor->statusText().isEmpty());
  editor->findChild<QRadioButton*>(QStringLiteral("sourceRandom"))->click();
  // A choice made elsewhere shows in the dialog.
  NumericRun::InputChoice other = run.inputChoice();
  other.batchSize = 3;
  run.setInputChoice(other);
  QCOMPARE(editor->findChild<QSpinBox*>(QStringLiteral("batch"))->value(), 3);
  other.batchSize = 1;
  run.setInputChoice(other);
  QTemporaryDir dir;
  const QString saved = dir.filePath(QStringLiteral("inputs.safetensors"));
  QCOMPARE(editor->saveTo(saved), QString());
  QCOMPARE(run.inputChoice().points, qint64(120));
  // The file holds what `lattice-cli run --random-inputs 120:11 --save-inputs` writes.
  const QString cliSaved = dir.filePath(QStringLiteral("cli.safetensors"));
  QProcess p;
  p.start(QStringLiteral(LATTICE_CLI), {QStringLiteral("run"), kChain, QStringLiteral("--random-inputs"),
                                        QStringLiteral("120:11"), QStringLiteral("--save-inputs"), cliSaved,
                                        QStringLiteral("-o"), dir.filePath(QStringLiteral("o.safetensors"))});
  QVERIFY(p.waitForFinished(120000) && p.exitCode() == 0);
  Expected<SafetensorsFile> a = SafetensorsFile::open(saved.toStdString()), b = SafetensorsFile::open(cliSaved.toStdString());
  QVERIFY(a && b);
  QCOMPARE(a->tensors().size(), b->tensors().size());
  for (const NamedTensor& t : b->tensors()) {
    const TensorData* mine = a->find(t.key);
    QVERIFY2(mine && sameBytes(*mine, t.tensor), t.key.c_str());
  }
  // The choice is remembered for the model.
  StudioSession again;
  NumericRun second(&again);
  QVERIFY(openAndWait(again, kChain));
  QCOMPARE(second.inputChoice().points, qint64(120));
  QCOMPARE(second.inputChoice().seed, quint64(11));
}

// With a memory budget smaller than the run's values, the oldest values the run no longer needs
// are dropped; selecting such a node computes it again, and what the panel then shows is, byte for
// byte, what `lattice-cli run --values` wrote. Cancelling a run gives its values back.
void TestNumericRun::memoryBudgetDropsAndRecomputesValues() {
  NumericRun::setMemoryBudget(100 * 1024); // about one value of 2 000 points × 16 channels
  StudioSession session;
  NumericRun run(&session);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  run.setInputChoice(randomChoice(2000, 5));
  run.run();
  QVERIFY(waitFor([&] { return !run.isRunning(); }));
  QCOMPARE(run.state(), NumericRun::State::Finished);
  QVERIFY(run.lowered()->runtime.keptBytes() < 400 * 1024);

  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("values.safetensors"));
  QVERIFY(cliValues(QStringLiteral("example:chain:3"), QStringLiteral("2000:5"), file));
  Expected<SafetensorsFile> cli = SafetensorsFile::open(file.toStdString());
  QVERIFY(cli);
  ValuesPanel panel(&session, &run);
  int dropped = 0, shown = 0;
  for (const fx::Node& node : session.graph()->nodes()) {
    const QString name = QString::fromStdString(node.name());
    if (run.valuesOf(name).empty()) continue;
    if (run.isDropped(name)) {
      ++dropped;
      session.selectNode(name); // the panel asks for it again
      QVERIFY(run.isRecomputing());
      QVERIFY(waitFor([&] { return !run.isRecomputing(); }));
      QVERIFY2(!run.isDropped(name), qPrintable(name));
    }
    for (const auto& [valueName, value] : run.valuesOf(name)) {
      std::vector<NamedTensor> tensors;
      const std::string ssa = run.lowered()->nodeValues[std::size_t(run.lowered()->valuesOf(node.name()).front())].ssa;
      if (const auto* s = std::get_if<runtime::Sparse>(&value)) tensors = runtime::sparseTensors(ssa, *s);
      else if (const auto* t = std::get_if<runtime::Tensor>(&value)) tensors.push_back({ssa, runtime::toTensorData(*t)});
      QVERIFY2(!tensors.empty(), qPrintable(name));
      for (const NamedTensor& t : tensors) {
        const TensorData* expected = cli->find(t.key);
        QVERIFY2(expected && sameBytes(t.tensor, *expected), t.key.c_str());
      }
      ++shown;
    }
  }
  QVERIFY2(dropped >= 5, qPrintable(QString::number(dropped)));
  QCOMPARE(shown, 11); // x, nine layers, output

  // Esc during a run: the run ends as cancelled and holds no values any more.
  run.setInputChoice(randomChoice(200000, 6));
  run.run();
  QVERIFY(waitFor([&] { return run.lowered() != nullptr && run.opsDone() > 0; }));
  run.cancel();
  QVERIFY(waitFor([&] { return !run.isRunning(); }));
  QCOMPARE(run.state(), NumericRun::State::Failed);
  QCOMPARE(run.lastError(), QStringLiteral("cancelled"));
  QVERIFY(run.lowered() == nullptr);
  NumericRun::setMemoryBudget(0);
}

void TestNumericRun::recordedGoldenFindsTheFirstDivergentNode() {
  // An archive of the chain with inputs and "recorded" activations: the CLI's values renamed by
  // node (for the chain every node's SSA name is its own), with blocks_0_1 scaled by 1.5.
  QTemporaryDir dir;
  const QString archive = dir.filePath(QStringLiteral("chain.ltfx"));
  Expected<Model> model = loadModel("example:chain:2");
  QVERIFY(model);
  QVERIFY(writeArchive(*model, archive.toStdString()));
  const QString values = dir.filePath(QStringLiteral("values.safetensors"));
  QVERIFY(cliValues(kChain, QStringLiteral("200:2"), values));
  {
    QProcess p;
    p.start(QStringLiteral(LATTICE_CLI), {QStringLiteral("run"), kChain, QStringLiteral("--random-inputs"),
                                          QStringLiteral("200:2"), QStringLiteral("--save-inputs"),
                                          archive + QStringLiteral("/inputs.safetensors"), QStringLiteral("-o"),
                                          dir.filePath(QStringLiteral("o.safetensors"))});
    QVERIFY(p.waitForFinished(120000) && p.exitCode() == 0);
  }
  Expected<SafetensorsFile> cli = SafetensorsFile::open(values.toStdString());
  QVERIFY(cli);
  std::vector<NamedTensor> activations;
  std::vector<std::vector<float>> scaled;
  scaled.reserve(4);
  for (const NamedTensor& t : cli->tensors()) {
    const std::string node = t.key.substr(0, t.key.find('.'));
    if (node.rfind("blocks_", 0) != 0 && node != "x") continue;
    if (t.key == "blocks_0_1.features") {
      std::vector<float> v(t.tensor.as<float>(), t.tensor.as<float>() + t.tensor.byteSize() / 4);
      for (float& f : v) f *= 1.5f;
      scaled.push_back(std::move(v));
      activations.push_back({t.key, TensorData::view(DType::F32, t.tensor.shape(),
                                                     reinterpret_cast<const uint8_t*>(scaled.back().data()),
                                                     t.tensor.byteSize(), nullptr)});
    } else {
      activations.push_back(t);
    }
  }
  QVERIFY(writeSafetensors(QString(archive + QStringLiteral("/activations.safetensors")).toStdString(), activations,
                           std::nullopt));

  MainWindow window;
  QVERIFY(openAndWait(*window.session(), archive));
  NumericRun* run = window.numericRun();
  QVERIFY(run->hasRecordedInputs());
  QVERIFY(run->hasRecordedActivations());
  QCOMPARE(run->inputChoice().source, NumericRun::InputSource::Recorded); // the default when recorded
  run->run();
  QVERIFY(waitFor([&] { return !run->isRunning(); }));
  QCOMPARE(run->state(), NumericRun::State::Finished);
  const RecordingCheck* check = run->recordingCheck();
  QVERIFY(check);
  QStringList exceeding;
  for (const NodeCheck& c : check->nodes)
    if (c.exceeds) exceeding << QString::fromStdString(c.ref.name);
  QCOMPARE(exceeding, QStringList{QStringLiteral("blocks_0_1")});
  QCOMPARE(run->firstDivergentNode(), QStringLiteral("blocks_0_1"));
  // Within a budget too small to keep any value the run no longer needs, the check is taken as
  // the ops run: the same numbers, though the values are gone by the end.
  std::vector<double> errors;
  for (const NodeCheck& c : check->nodes) errors.push_back(c.divergence.relL2);
  NumericRun::setMemoryBudget(1);
  run->run();
  QVERIFY(waitFor([&] { return !run->isRunning(); }));
  QCOMPARE(run->state(), NumericRun::State::Finished);
  QVERIFY(run->isDropped(QStringLiteral("blocks_0_0")));
  NumericRun::setMemoryBudget(0);
  check = run->recordingCheck();
  QVERIFY(check);
  std::vector<double> budgetedErrors;
  QStringList budgetedExceeding;
  for (const NodeCheck& c : check->nodes) {
    budgetedErrors.push_back(c.divergence.relL2);
    if (c.exceeds) budgetedExceeding << QString::fromStdString(c.ref.name);
  }
  QCOMPARE(budgetedErrors, errors);
  QCOMPARE(budgetedExceeding, exceeding);
  QCOMPARE(run->firstDivergentNode(), QStringLiteral("blocks_0_1"));
  QAction* go = window.action(QStringLiteral("debug.firstDivergent"));
  QVERIFY(go->isEnabled());
  go->trigger();
  QCOMPARE(window.session()->selectedNode(), QStringLiteral("blocks_0_1"));

  // The Values dock shows the selected node's value and its error; the chart has every node.
  auto* panel = window.findChild<ValuesPanel*>(QStringLiteral("valuesPanel"));
  QVERIFY(panel);
  QVERIFY2(panel->headerText().contains(QStringLiteral("blocks_0_1")), qPrintable(panel->headerText()));
  QVERIFY2(panel->headerText().contains(QStringLiteral("relative L2 0.333")), qPrintable(panel->headerText()));
  // The value was dropped within the budget: the panel has it computed again.
  QVERIFY(waitFor([&] { return !run->isRecomputing(); }));
  QCOMPARE(panel->inspector()->rowsModel()->totalRows(), qint64(200));
  QCOMPARE(int(panel->chart()->values().size()), 7); // x and the six layers (the output is blocks_1_2)

  // The accuracy overlay marks exactly the node over the threshold red, the others green; the
  // time overlay colours every node that ran ops.
  window.action(QStringLiteral("view.overlayAccuracy"))->trigger();
  const QHash<QString, QColor> accuracy = overlayColours(OverlayMode::Accuracy, *run, nullptr);
  QCOMPARE(accuracy.value(QStringLiteral("blocks_0_1")), heatColor(1.0));
  for (const QString& node : {QStringLiteral("x"), QStringLiteral("blocks_0_0"), QStringLiteral("blocks_1_2")})
    QCOMPARE(accuracy.value(node), heatColor(0.0));
  const QHash<QString, QColor> time = overlayColours(OverlayMode::Time, *run, nullptr);
  QCOMPARE(time.size(), 7);
  QVERIFY(!time.contains(QStringLiteral("output")));
}

void TestNumericRun::knownTrainerDifferenceIsNamed() {
  // An archive the real torch-lattice recorded (tests/data/real-torch-lattice): its
  // ConvTranspose3d returns to the input's support, the artifact's conv_transpose3d generates every
  // child. The run names that difference on `up` instead of reporting a divergence: no first
  // divergent node, the overlay colours `up` (and the output it flows into) as a known difference,
  // and the Values dock says which rule, with the rows both sides have compared.
  MainWindow window;
  QVERIFY(openAndWait(*window.session(), QStringLiteral(LATTICE_TEST_DATA_DIR "/real-torch-lattice/transposed.ltfx")));
  NumericRun* run = window.numericRun();
  QCOMPARE(run->inputChoice().source, NumericRun::InputSource::Recorded);
  run->run();
  QVERIFY(waitFor([&] { return !run->isRunning(); }));
  QCOMPARE(run->state(), NumericRun::State::Finished);
  const RecordingCheck* check = run->recordingCheck();
  QVERIFY(check);
  QVERIFY(check->onlyKnownDifferences());
  QCOMPARE(run->firstDivergentNode(), QString());
  const NodeCheck& up = check->nodes[std::size_t(check->firstDifference)];
  QCOMPARE(up.ref.node, std::string("up"));
  QCOMPARE(up.differenceRule, std::string("transposed-support"));
  QVERIFY(up.rows > up.recordedRows);
  QCOMPARE(up.commonRows, up.recordedRows);
  QVERIFY2(up.divergence.relL2 < 1e-5, qPrintable(QString::number(up.divergence.relL2)));

  const QHash<QString, QColor> accuracy = overlayColours(OverlayMode::Accuracy, *run, nullptr);
  QCOMPARE(accuracy.value(QStringLiteral("up")), knownDifferenceColor());
  QCOMPARE(accuracy.value(QStringLiteral("down")), heatColor(0.0));
  QVERIFY(overlayLegend(OverlayMode::Accuracy, *run).contains(QStringLiteral("differ by design")));

  window.session()->selectNode(QStringLiteral("up"));
  auto* panel = window.findChild<ValuesPanel*>(QStringLiteral("valuesPanel"));
  QVERIFY(panel);
  QVERIFY2(panel->headerText().contains(QStringLiteral("Known difference (transposed-support)")),
           qPrintable(panel->headerText()));
  auto* header = panel->findChild<QLabel*>(QStringLiteral("valuesHeader"));
  QVERIFY(header);
  QCOMPARE(header->toolTip().toStdString(), up.difference);
}

void TestNumericRun::runtimeErrorStopsOnItsNode() {
  // Inputs whose feature width disagrees with the model (8 channels for 16) fail at binding, with
  // the runtime's message; the run ends Failed and names the node whose input it is (the graph's
  // placeholder; no op ran). The interpreter panel's diagnostics list shows the error, on that
  // node, until the inputs change.
  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("bad.safetensors"));
  std::vector<int32_t> coords{0, 0, 0, 0, 0, 1, 0, 0};
  std::vector<float> features(2 * 8, 1.0f);
  std::vector<int32_t> active{2};
  auto view = [](DType d, std::vector<int64_t> shape, const void* p, std::size_t n) {
    return TensorData::view(d, std::move(shape), static_cast<const uint8_t*>(p), n, nullptr);
  };
  QVERIFY(writeSafetensors(file.toStdString(),
                           {{"x_coords", view(DType::I32, {2, 4}, coords.data(), coords.size() * 4)},
                            {"x_features", view(DType::F32, {2, 8}, features.data(), features.size() * 4)},
                            {"x_active", view(DType::I32, {1}, active.data(), 4)}},
                           std::nullopt));
  StudioSession session;
  NumericRun run(&session);
  QVERIFY(openAndWait(session, kChain));
  NumericRun::InputChoice choice;
  choice.source = NumericRun::InputSource::File;
  choice.file = file;
  run.setInputChoice(choice);
  DiagnosticsModel diagnostics(&session);
  QAbstractItemModelTester tester(&diagnostics, QAbstractItemModelTester::FailureReportingMode::QtTest);
  diagnostics.watchRun(&run);
  QSignalSpy failed(&run, &NumericRun::failed);
  run.run();
  QVERIFY(waitFor([&] { return !run.isRunning(); }));
  QCOMPARE(run.state(), NumericRun::State::Failed);
  QCOMPARE(failed.count(), 1);
  QVERIFY2(run.lastError().contains(QStringLiteral("x_features")), qPrintable(run.lastError()));
  QCOMPARE(diagnostics.rowCount(), 1);
  QCOMPARE(diagnostics.diagnostics().front().source, DiagnosticsModel::Diagnostic::Source::Run);
  QString placeholder;
  for (const fx::Node& node : session.graph()->nodes())
    if (node.op() == fx::Op::Placeholder && placeholder.isEmpty()) placeholder = QString::fromStdString(node.name());
  QCOMPARE(diagnostics.index(0, DiagnosticsModel::NodeColumn).data().toString(), placeholder);
  QCOMPARE(run.failedNode(), placeholder);
  QCOMPARE(diagnostics.index(0, DiagnosticsModel::MessageColumn).data(Qt::ToolTipRole).toString(), run.lastError());
  // A second failing run replaces the row rather than adding one.
  run.run();
  QVERIFY(waitFor([&] { return !run.isRunning(); }));
  QCOMPARE(failed.count(), 2);
  QCOMPARE(diagnostics.rowCount(), 1);
  // New inputs clear it.
  choice.source = NumericRun::InputSource::Random;
  run.setInputChoice(choice);
  QCOMPARE(diagnostics.rowCount(), 0);
}

void TestNumericRun::failedRunNamesItsNode() {
  // SparseResNet21D's input declared 8 channels wide: the artifact is refused (its first conv's
  // weight takes 4) and the diagnostics row names the FX node of that conv: the node that takes
  // the graph's input, found in the graph itself.
  StudioSession session;
  NumericRun run(&session);
  QVERIFY(openAndWait(session, QStringLiteral("example:sparse_resnet21d")));
  std::vector<InputSpec> specs = session.inputSpecs();
  QCOMPARE(specs.size(), std::size_t(1));
  specs[0].channels = 8;
  session.setInputSpecs(specs, QStringLiteral("Edit Channels"));
  DiagnosticsModel diagnostics(&session);
  diagnostics.watchRun(&run);
  run.run();
  QVERIFY(waitFor([&] { return !run.isRunning(); }));
  QCOMPARE(run.state(), NumericRun::State::Failed);
  QVERIFY2(run.lastError().contains(QStringLiteral("weight input channels must match x.channels")),
           qPrintable(run.lastError()));
  const fx::Node* input = nullptr;
  for (const fx::Node& node : session.graph()->nodes())
    if (node.op() == fx::Op::Placeholder) input = &node;
  QVERIFY(input && !input->users().empty());
  const fx::Node* consumer = input->users().front();
  QCOMPARE(consumer->op(), fx::Op::CallModule);
  QCOMPARE(diagnostics.rowCount(), 1);
  QCOMPARE(diagnostics.index(0, DiagnosticsModel::NodeColumn).data().toString(),
           QString::fromStdString(consumer->name()));
  QCOMPARE(run.failedNode(), QString::fromStdString(consumer->name()));
}

void TestNumericRun::changesWhilePreparing() {
  // The prepare job reads the session's model, graph and tracer on a worker. Whatever changes them
  // meanwhile waits for the job and drops its result; cancelling drops it too.
  StudioSession session;
  NumericRun run(&session);
  QVERIFY(openAndWait(session, kChain));
  run.setInputChoice(randomChoice(250, 9));
  QSignalSpy failed(&run, &NumericRun::failed);

  run.run();
  QVERIFY(run.isWholeRun());
  QVERIFY(run.lowered() == nullptr); // preparing
  session.setLeafOverride(QStringLiteral("blocks"), std::nullopt); // retraces the graph
  QCOMPARE(run.state(), NumericRun::State::Empty);
  QTest::qWait(50); // the dropped job's late "finished" changes nothing
  QCOMPARE(run.state(), NumericRun::State::Empty);
  QVERIFY(run.lowered() == nullptr);

  run.run();
  run.cancel();
  QCOMPARE(run.state(), NumericRun::State::Failed);
  QCOMPARE(run.lastError(), QStringLiteral("cancelled"));
  QCOMPARE(failed.count(), 1);

  run.run();
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3"))); // replaces the model
  QTest::qWait(50);
  QCOMPARE(run.state(), NumericRun::State::Empty);

  // After all that, a run completes on the new model.
  run.run();
  QVERIFY(waitFor([&] { return !run.isRunning(); }));
  QCOMPARE(run.state(), NumericRun::State::Finished);
  QCOMPARE(run.opsDone(), run.opsTotal());
  QVERIFY(std::holds_alternative<runtime::Sparse>(run.valuesOf(QStringLiteral("blocks_2_2")).at(0).second));
}

/// `lattice-cli run REFERENCE --random-inputs SPEC -o FILE`: the outputs, named as an
/// expected-outputs file names them.
bool cliOutputs(const QString& reference, const QString& spec, const QString& file) {
  QProcess p;
  p.start(QStringLiteral(LATTICE_CLI),
          {QStringLiteral("run"), reference, QStringLiteral("--random-inputs"), spec, QStringLiteral("-o"), file});
  if (!p.waitForFinished(120000) || p.exitCode() != 0) {
    qWarning("lattice-cli run failed: %s", p.readAllStandardError().constData());
    return false;
  }
  return true;
}

void TestNumericRun::expectedOutputsAreTheGolden() {
  // Without a recording, an expected-outputs file is the golden of the outputs: the CLI's outputs
  // on the same inputs agree; those of other inputs make the output's node the first divergent
  // one, red in the accuracy overlay. Changing the file needs no second run.
  QTemporaryDir dir;
  const QString same = dir.filePath(QStringLiteral("same.safetensors"));
  const QString other = dir.filePath(QStringLiteral("other.safetensors"));
  QVERIFY(cliOutputs(kChain, QStringLiteral("250:9"), same));
  QVERIFY(cliOutputs(kChain, QStringLiteral("250:10"), other));

  StudioSession session;
  NumericRun run(&session);
  QVERIFY(openAndWait(session, kChain));
  run.setInputChoice(randomChoice(250, 9));
  InputSpecDialog dialog(&session, &run);
  auto* expected = dialog.runInputs()->findChild<QLineEdit*>(QStringLiteral("expectedFile"));
  QVERIFY(expected);
  expected->setText(same);
  Q_EMIT expected->editingFinished();
  QCOMPARE(run.expectedOutputs(), same);
  QVERIFY(run.recordingCheck() == nullptr); // nothing ran yet

  run.run();
  QVERIFY(waitFor([&] { return !run.isRunning(); }));
  QCOMPARE(run.state(), NumericRun::State::Finished);
  const RecordingCheck* check = run.recordingCheck();
  QVERIFY(check);
  QCOMPARE(int(check->nodes.size()), 1); // the chain's one output
  const QString outputNode = QString::fromStdString(check->nodes[0].ref.node);
  QCOMPARE(outputNode, QStringLiteral("blocks_1_2")); // the last block's ReLU makes it
  QVERIFY(check->nodes[0].compared());
  QCOMPARE(check->nodes[0].divergence.maxAbs, 0.0); // the same runtime on the same inputs
  QVERIFY(check->withinTolerance());
  QCOMPARE(run.goldenDescription(), QStringLiteral("same.safetensors"));

  run.setExpectedOutputs(other);
  check = run.recordingCheck();
  QVERIFY(check && !check->withinTolerance());
  QCOMPARE(run.firstDivergentNode(), outputNode);
  QCOMPARE(overlayColours(OverlayMode::Accuracy, run, nullptr).value(outputNode), heatColor(1.0));
  QCOMPARE(expected->text(), other); // the dialog shows a choice made elsewhere

  // Remembered for the model.
  StudioSession again;
  NumericRun second(&again);
  QVERIFY(openAndWait(again, kChain));
  QCOMPARE(second.expectedOutputs(), other);
  second.setExpectedOutputs(QString());
}

QTEST_MAIN(TestNumericRun)
#include "tst_numeric_run.moc"
