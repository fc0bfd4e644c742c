// The Quantization dock: QuantizationState, its panel, the graph's Quantization submenu and
// overlay, and Export with the plan.
// Independent expectations: QuantPlanner run directly on the same model, options and inputs, and
// `lattice-cli quant-plan --json` (every figure of the table); the plan read back through
// QuantizationPlan::formatFor after an edit and after its undo; the packing each weight op of the
// exported graph.mlir declares (read with a regular expression, not the studio's code).

#include "MainWindow.h"
#include "StudioSession.h"
#include "GraphTestSupport.h"
#include "WidgetTestSupport.h"
#include "WorkerTestSupport.h"
#include "graph/GraphScene.h"
#include "graph/GraphWidget.h"
#include "graph/NodeItem.h"
#include "numeric/NumericRun.h"
#include "panels/ExportDialog.h"
#include "quant/QuantCharts.h"
#include "quant/QuantLayersModel.h"
#include "quant/QuantOverlay.h"
#include "quant/QuantizationPanel.h"
#include "quant/QuantizationState.h"
#include "quant/QuantPlanner.h"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest/QtTest>

#include <cmath>
#include <map>

using namespace lattice;
using namespace lattice::studio;
using namespace lattice::widgettest;

class TestQuantizationDock : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void figuresEqualTheCore();
  void figuresEqualTheCli();
  void undoRestoresAChoice();
  void graphMenuAndOverlay();
  void exportUsesThePlan();
  void savedPlanLoadsBack();
  void cancelLeavesTheDockUsable();
  void lateResultAfterAModelChangeIsDropped();
  void analysisStartedAsTheModelLoadsIsKept();
  void budgetStepsAndSettingsPersist();
  void cleanupTestCase();

private:
  std::unique_ptr<StudioSession> m_session;
  std::unique_ptr<NumericRun> m_run;
  QuantizationState* m_state = nullptr; // the session's child
  std::unique_ptr<QuantizationPanel> m_panel;
};

namespace {

const QString kModel = QStringLiteral("example:sparse_resnet21d");
constexpr qint64 kPoints = 800;
constexpr quint64 kSeed = 3;

NumericRun::InputChoice randomChoice(qint64 points, quint64 seed) {
  NumericRun::InputChoice c;
  c.points = points;
  c.seed = seed;
  return c;
}

bool analysed(const QuantizationState& state) {
  return waitFor([&] { return !state.isBusy() && (state.hasPlan() || !state.lastError().isEmpty()); }, 600000);
}

/// The source row's value in `column` under `role`.
QVariant cell(const QuantLayersModel& model, int row, int column, int role = Qt::UserRole) {
  return model.data(model.index(row, column), role);
}

bool sameDouble(double a, double b) {
  return a == b || std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

/// The packing each weight of graph.mlir declares, by storage key: "dense", "int4/g32/f16", …
std::map<QString, QString> packings(const QString& mlir) {
  std::map<QString, QString> out;
  static const QRegularExpression weight(
      QStringLiteral("lattice\\.weight @\\S+ \\{storage_key = \"([^\"]+)\".*packing = #lattice\\.packing<(\\w+)"
                     "(?:, group_size = (\\d+), scale_dtype = (\\w+))?"));
  for (const QString& line : mlir.split(QLatin1Char('\n'))) {
    const QRegularExpressionMatch m = weight.match(line);
    if (!m.hasMatch()) continue;
    out[m.captured(1)] = m.captured(3).isEmpty()
                             ? m.captured(2)
                             : QStringLiteral("%1/g%2/%3").arg(m.captured(2), m.captured(3), m.captured(4));
  }
  return out;
}

QString packingOf(const WeightFormat& f) {
  return f.dense() ? QStringLiteral("dense")
                   : QStringLiteral("int%1/g%2/%3").arg(f.bits).arg(f.groupSize).arg(QString::fromStdString(f.scaleDtype));
}

} // namespace

void TestQuantizationDock::initTestCase() {
  isolateSettings(QStringLiteral("tst_quantization_dock"));
  m_session = std::make_unique<StudioSession>();
  m_run = std::make_unique<NumericRun>(m_session.get());
  m_state = new QuantizationState(m_session.get(), m_run.get());
  QCOMPARE(QuantizationState::of(m_session.get()), m_state);
  m_panel = std::make_unique<QuantizationPanel>(m_state);
  QVERIFY(openAndWait(*m_session, kModel));
  m_run->setInputChoice(randomChoice(kPoints, kSeed));
  QVERIFY(m_panel->randomWarning()->isVisibleTo(m_panel.get()));
  QVERIFY(m_panel->inputsLabel()->text().contains(QStringLiteral("random points (seed 3")));
  QVERIFY(m_panel->analyzeButton()->isEnabled());
  m_panel->analyzeButton()->click();
  QVERIFY(m_state->isBusy());
  QVERIFY(m_panel->cancelButton()->isEnabled());
  QVERIFY(analysed(*m_state));
  QVERIFY2(m_state->lastError().isEmpty(), qPrintable(m_state->lastError()));
  QVERIFY(m_state->measurement() != nullptr);
}

void TestQuantizationDock::cleanupTestCase() {
  m_panel.reset();
  m_session.reset(); // the state with it
  m_run.reset();
}

void TestQuantizationDock::figuresEqualTheCore() {
  // The planner run directly, with the options the dock's analysis used.
  QuantPlannerOptions o;
  o.exportOptions = m_session->snapshot()->options;
  runtime::RandomInputOptions random;
  random.points = kPoints;
  random.seed = kSeed;
  o.inputs = RunInputSpec::randomPoints(random);
  o.candidates = m_state->candidates();
  Expected<std::unique_ptr<QuantPlanner>> planner = QuantPlanner::create(*m_session->model(), o);
  QVERIFY2(planner, planner ? "" : planner.message().c_str());
  Expected<QuantSensitivity> sens = (*planner)->analyze();
  QVERIFY2(sens, sens ? "" : sens.message().c_str());
  Expected<PlanSearch> found = (*planner)->search(*sens, m_state->budget());
  QVERIFY(found);
  QVERIFY(sens->randomInputs);

  const QuantLayersModel& model = *m_panel->model();
  QCOMPARE(model.rowCount(), int(sens->layers.size()));
  QVERIFY(model.rowCount() > 5);
  const int candidates = int(sens->candidates.size());
  QCOMPARE(model.columnCount(), 4 + 2 * candidates + 1);
  int measured = 0;
  for (int row = 0; row < model.rowCount(); ++row) {
    const QuantLayer& layer = sens->layers[std::size_t(row)];
    QCOMPARE(cell(model, row, QuantLayersModel::LayerColumn).toString(), QString::fromStdString(layer.name));
    QCOMPARE(cell(model, row, QuantLayersModel::NodeColumn).toString(), QString::fromStdString(layer.node));
    QCOMPARE(cell(model, row, QuantLayersModel::ParametersColumn).toLongLong(), qlonglong(layer.parameters));
    QCOMPARE(cell(model, row, QuantLayersModel::DenseColumn).toULongLong(), qulonglong(layer.denseBytes));
    for (int c = 0; c < candidates; ++c) {
      const LayerCandidate& expected = sens->perLayer[std::size_t(row)][std::size_t(c)];
      if (!layer.packable) {
        QVERIFY(!cell(model, row, model.errorColumn(c)).isValid());
        continue;
      }
      QCOMPARE(cell(model, row, model.bytesColumn(c)).toULongLong(), qulonglong(expected.bytes));
      QVERIFY(expected.measured);
      QVERIFY2(sameDouble(cell(model, row, model.errorColumn(c)).toDouble(), expected.error.relL2),
               qPrintable(QStringLiteral("%1 %2").arg(QString::fromStdString(layer.name)).arg(c)));
      // The shown text is that figure.
      QCOMPARE(cell(model, row, model.errorColumn(c), Qt::DisplayRole).toString(),
               formatFigure(expected.error.relL2));
      ++measured;
    }
    // The plan the search chose for the same budget.
    QCOMPARE(cell(model, row, model.planColumn()).toString(),
             QString::fromStdString(found->chosen.formats[std::size_t(row)].name()));
  }
  QVERIFY(measured > 0);
  QCOMPARE(m_state->planBytes(), found->chosen.bytes);
  QVERIFY(m_state->measurement());
  QVERIFY(sameDouble(m_state->measurement()->error.relL2, found->chosen.error.relL2));
  QCOMPARE(m_state->denseBytes(), sens->bytesOf(std::vector<WeightFormat>(sens->layers.size())));
  QVERIFY(m_panel->summaryLabel()->text().contains(formatFigure(found->chosen.error.relL2)));
  // The charts draw every measured figure and the current plan.
  QCOMPARE(m_panel->sensitivityChart()->barCount(), measured);
  double bytes = 0.0, error = -1.0;
  QVERIFY(m_panel->paretoChart()->currentPoint(&bytes, &error));
  QCOMPARE(std::uint64_t(bytes), found->chosen.bytes);
  if (!qEnvironmentVariableIsEmpty("QUANT_DOCK_GRAB")) {
    m_panel->resize(1000, 600);
    m_panel->showChart(1);
    m_panel->show();
    QTest::qWait(300);
    m_panel->grab().save(qEnvironmentVariable("QUANT_DOCK_GRAB"));
    m_panel->showChart(0);
  }
}

void TestQuantizationDock::figuresEqualTheCli() {
  QVERIFY2(QFileInfo::exists(QStringLiteral(LATTICE_CLI)), "build lattice-cli first");
  QProcess p;
  p.start(QStringLiteral(LATTICE_CLI),
          {QStringLiteral("quant-plan"), kModel, QStringLiteral("--random-inputs"),
           QStringLiteral("%1:%2").arg(kPoints).arg(kSeed), QStringLiteral("--budget"),
           QString::number(m_state->budget().relL2, 'g', 17), QStringLiteral("--json")});
  QVERIFY(p.waitForFinished(600000));
  QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
  const QJsonObject report = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
  const QJsonArray layers = report.value(QStringLiteral("layers")).toArray();
  const QuantLayersModel& model = *m_panel->model();
  QCOMPARE(layers.size(), qsizetype(model.rowCount()));
  QCOMPARE(report.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("random")).toBool(), true);
  const QJsonObject planned = report.value(QStringLiteral("plan")).toObject().value(QStringLiteral("formats")).toObject();
  for (int row = 0; row < model.rowCount(); ++row) {
    const QJsonObject layer = layers[row].toObject();
    const QString name = layer.value(QStringLiteral("name")).toString();
    QCOMPARE(cell(model, row, QuantLayersModel::LayerColumn).toString(), name);
    QCOMPARE(cell(model, row, QuantLayersModel::NodeColumn).toString(), layer.value(QStringLiteral("node")).toString());
    QCOMPARE(cell(model, row, QuantLayersModel::ParametersColumn).toLongLong(),
             qlonglong(layer.value(QStringLiteral("parameters")).toDouble()));
    QCOMPARE(cell(model, row, QuantLayersModel::DenseColumn).toULongLong(),
             qulonglong(layer.value(QStringLiteral("dense_bytes")).toDouble()));
    // The report's candidate of each of the dock's, by format name.
    const QJsonArray candidates = layer.value(QStringLiteral("candidates")).toArray();
    QCOMPARE(candidates.size(), qsizetype(m_state->candidates().size()));
    for (int c = 0; c < int(m_state->candidates().size()); ++c) {
      const QString format = QString::fromStdString(m_state->candidates()[std::size_t(c)].name());
      QJsonObject cand;
      for (const QJsonValue& v : candidates)
        if (v.toObject().value(QStringLiteral("format")).toString() == format) {
          cand = v.toObject();
          break;
        }
      QVERIFY2(!cand.isEmpty(), qPrintable(format));
      if (!cand.value(QStringLiteral("measured")).toBool()) {
        QVERIFY(!cell(model, row, model.errorColumn(c)).isValid());
        continue;
      }
      QCOMPARE(cell(model, row, model.bytesColumn(c)).toULongLong(), qulonglong(cand.value(QStringLiteral("bytes")).toDouble()));
      QVERIFY2(sameDouble(cell(model, row, model.errorColumn(c)).toDouble(), cand.value(QStringLiteral("rel_l2")).toDouble()),
               qPrintable(name));
      QVERIFY(sameDouble(cell(model, row, model.errorColumn(c), QuantLayersModel::PearsonRole).toDouble(),
                         cand.value(QStringLiteral("pearson")).toDouble()));
    }
    if (planned.contains(name))
      QCOMPARE(cell(model, row, model.planColumn()).toString(), planned.value(name).toString());
  }
  QVERIFY(sameDouble(m_state->measurement()->error.relL2,
                     report.value(QStringLiteral("plan")).toObject().value(QStringLiteral("rel_l2")).toDouble()));
}

void TestQuantizationDock::undoRestoresAChoice() {
  QuantLayersModel& model = *m_panel->model();
  // A packable layer and a format other than its planned one.
  int row = -1;
  for (int r = 0; r < model.rowCount() && row < 0; ++r)
    if (m_state->sensitivity()->layers[std::size_t(r)].packable) row = r;
  QVERIFY(row >= 0);
  const QString layer = QString::fromStdString(m_state->sensitivity()->layers[std::size_t(row)].name);
  const WeightFormat before = m_state->plan()->formatFor(layer.toStdString());
  WeightFormat other;
  for (const WeightFormat& f : m_state->choicesFor(row))
    if (f != before) other = f;
  QVERIFY(other != before);
  QUndoStack* undo = m_session->undoStack();
  const int steps = undo->count();
  QSignalSpy planChanged(m_state, &QuantizationState::planChanged);
  // As the table's combo box commits it.
  QVERIFY(model.flags(model.index(row, model.planColumn())) & Qt::ItemIsEditable);
  QVERIFY(model.setData(model.index(row, model.planColumn()), QString::fromStdString(other.name()), Qt::EditRole));
  QCOMPARE(m_state->plan()->formatFor(layer.toStdString()), other);
  QCOMPARE(cell(model, row, model.planColumn()).toString(), QString::fromStdString(other.name()));
  QCOMPARE(undo->count(), steps + 1);
  QVERIFY(undo->undoText().contains(layer));
  QVERIFY(!planChanged.isEmpty());
  // The plan's error is measured again on the worker (the UI does not wait).
  QVERIFY(waitFor([&] { return m_state->measurement() != nullptr && !m_state->isBusy(); }, 120000));
  QCOMPARE(m_state->measurement()->formats, m_state->formats());
  undo->undo();
  QCOMPARE(m_state->plan()->formatFor(layer.toStdString()), before);
  undo->redo();
  QCOMPARE(m_state->plan()->formatFor(layer.toStdString()), other);
  undo->undo();
  QCOMPARE(m_state->plan()->formatFor(layer.toStdString()), before);
  // The table's context menu takes the same path.
  QMenu* menu = m_panel->createRowMenu(row, m_panel.get());
  QAction* pick = menu->findChild<QAction*>(QStringLiteral("quant.%1").arg(QString::fromStdString(other.kind())));
  QVERIFY(pick);
  pick->trigger();
  QCOMPARE(m_state->plan()->formatFor(layer.toStdString()), other);
  undo->undo();
  QCOMPARE(m_state->plan()->formatFor(layer.toStdString()), before);
  delete menu;
  QVERIFY(waitFor([&] { return !m_state->isBusy(); }, 120000));
}

void TestQuantizationDock::graphMenuAndOverlay() {
  MainWindow window;
  window.show();
  StudioSession* session = window.session();
  QuantizationState* state = QuantizationState::of(session);
  QVERIFY(state);
  auto* dock = window.findChild<QDockWidget*>(QStringLiteral("quantizationDock"));
  QVERIFY(dock);
  QCOMPARE(dock->windowTitle(), QStringLiteral("Quantization"));
  GraphWidget* graph = window.graphWidget();
  QSignalSpy laidOut(graph, &GraphWidget::layoutFinished);
  window.openModel(kModel);
  QVERIFY(waitFor([&] { return session->model() != nullptr && !session->isLoading(); }));
  QVERIFY(waitForLayout(*graph, laidOut));
  window.numericRun()->setInputChoice(randomChoice(kPoints, kSeed));
  window.action(QStringLiteral("debug.quantAnalyze"))->trigger();
  QVERIFY(analysed(*state));
  QVERIFY2(state->lastError().isEmpty(), qPrintable(state->lastError()));

  // A layer whose node has its own box (the flat view when groups hide it).
  int layer = -1;
  NodeItem* item = nullptr;
  const auto findItem = [&] {
    for (NodeItem* n : graph->scene()->nodeItems()) {
      const int l = state->layerOfNode(n->key());
      if (l >= 0 && state->sensitivity()->layers[std::size_t(l)].packable) {
        layer = l;
        item = n;
        return;
      }
    }
  };
  findItem();
  if (!item) {
    laidOut.clear();
    graph->setHierarchical(false);
    QVERIFY(waitForLayout(*graph, laidOut));
    findItem();
  }
  QVERIFY(item);
  const std::string name = state->sensitivity()->layers[std::size_t(layer)].name;
  const WeightFormat before = state->plan()->formatFor(name);
  const WeightFormat other = before.bits == 4 ? WeightFormat::quantized(8) : WeightFormat::quantized(4);
  std::unique_ptr<QMenu> menu(graph->createContextMenu(item, &window));
  auto* sub = menu->findChild<QMenu*>(QStringLiteral("graph.quantization"));
  QVERIFY(sub);
  QAction* pick = sub->findChild<QAction*>(QStringLiteral("graph.quant.%1").arg(QString::fromStdString(other.kind())));
  QVERIFY(pick);
  pick->trigger();
  QCOMPARE(state->plan()->formatFor(name), other);
  // Edit ▸ Undo (Ctrl+Z) restores it.
  QAction* undo = window.action(QStringLiteral("edit.undo"));
  QCOMPARE(undo->shortcut(), QKeySequence(QKeySequence::Undo));
  QVERIFY(undo->isEnabled());
  undo->trigger();
  QCOMPARE(state->plan()->formatFor(name), before);

  // View ▸ Overlay ▸ Quantization colours the layer's box by its format, with the legend.
  window.action(QStringLiteral("view.overlayQuantization"))->trigger();
  QCOMPARE(item->heat(), quantFormatColor(before));
  auto* legend = window.findChild<QLabel*>(QStringLiteral("overlayLegend"));
  QVERIFY(legend);
  QVERIFY(legend->text().contains(QStringLiteral("by format")));
  pick->trigger(); // the colour follows the plan
  QCOMPARE(item->heat(), quantFormatColor(other));
  window.action(QStringLiteral("view.overlayQuantSensitivity"))->trigger();
  QVERIFY(legend->text().contains(QStringLiteral("sensitivity")));
  QVERIFY(item->heat().isValid());
  QVERIFY(waitFor([&] { return !state->isBusy(); }, 120000));
}

void TestQuantizationDock::exportUsesThePlan() {
  // A plan with every kind: int4, int8 and dense layers.
  std::vector<WeightFormat> formats = m_state->formats();
  const auto& layers = m_state->sensitivity()->layers;
  int packable = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (!layers[i].packable) continue;
    formats[i] = packable % 3 == 0 ? WeightFormat::denseFormat()
                 : packable % 3 == 1 ? WeightFormat::quantized(8)
                                     : WeightFormat::quantized(4);
    ++packable;
  }
  QVERIFY(packable >= 3);
  m_state->setFormats(formats, QStringLiteral("mixed"));
  QCOMPARE(m_state->formats(), formats);
  QVERIFY(m_state->planSummary().startsWith(QStringLiteral("mixed plan: ")));

  QTemporaryDir dir;
  const QString target = dir.filePath(QStringLiteral("mixed.lattice"));
  ExportDialog dialog(m_session.get());
  dialog.setQuantizationPlan(m_state->plan(), m_state->planSummary());
  dialog.setTargetDirectory(target);
  Expected<ExportOptions> options = dialog.exportOptions();
  QVERIFY(options);
  QVERIFY(options->quantizationPlan != nullptr);
  QVERIFY(!options->quantizeBits);
  QSignalSpy exported(&dialog, &ExportDialog::artifactExported);
  QSignalSpy failed(&dialog, &ExportDialog::exportFailed);
  dialog.startExport();
  QVERIFY(waitFor([&] { return !exported.isEmpty() || !failed.isEmpty(); }, 300000));
  QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
  const std::map<QString, QString> packed = packings(QString::fromUtf8(readAll(target + QStringLiteral("/graph.mlir"))));
  QVERIFY(!packed.empty());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const QString key = QString::fromStdString(layers[i].storageKey);
    QVERIFY2(packed.count(key), qPrintable(key));
    QCOMPARE(packed.at(key), packingOf(formats[i]));
  }
  QVERIFY(waitFor([&] { return !m_state->isBusy(); }, 120000));
}

void TestQuantizationDock::savedPlanLoadsBack() {
  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("plan.json"));
  const std::vector<WeightFormat> saved = m_state->formats();
  QCOMPARE(m_state->savePlan(file), QString());
  Expected<QuantizationPlan> read = QuantizationPlan::readFile(file.toStdString());
  QVERIFY(read);
  for (std::size_t i = 0; i < saved.size(); ++i)
    QCOMPARE(read->formatFor(m_state->sensitivity()->layers[i].name), saved[i]);
  // Another plan, then the file again: one undo step back.
  m_state->setFormats(std::vector<WeightFormat>(saved.size()), QStringLiteral("all dense"));
  QCOMPARE(m_state->planBytes(), m_state->denseBytes());
  QCOMPARE(m_state->loadPlan(file), QString());
  QCOMPARE(m_state->formats(), saved);
  m_session->undoStack()->undo();
  QCOMPARE(m_state->planBytes(), m_state->denseBytes());
  // A file that is not a plan: an error naming it, the plan unchanged.
  const QString bad = dir.filePath(QStringLiteral("bad.json"));
  QFile f(bad);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("{\"format\": \"lattice-quantization-plan\", \"version\": 1, \"default\": \"int3\"}");
  f.close();
  const QString error = m_state->loadPlan(bad);
  QVERIFY(error.contains(QStringLiteral("bad.json")));
  QCOMPARE(m_state->planBytes(), m_state->denseBytes());
  QVERIFY(waitFor([&] { return !m_state->isBusy(); }, 120000));
}

void TestQuantizationDock::cancelLeavesTheDockUsable() {
  StudioSession session;
  NumericRun run(&session);
  auto* state = new QuantizationState(&session, &run);
  QuantizationPanel panel(state);
  QVERIFY(openAndWait(session, kModel));
  run.setInputChoice(randomChoice(500, 1));
  Latch latch;
  QuantizationState::setJobHook([&latch] { latch.hold(); });
  panel.analyzeButton()->click();
  QVERIFY(waitFor([&] { return latch.held() == 1; }));
  QVERIFY(state->isBusy());
  QVERIFY(!panel.analyzeButton()->isEnabled());
  panel.cancelButton()->click();
  latch.release();
  QuantizationState::setJobHook({});
  QVERIFY(waitFor([&] { return !state->isBusy(); }));
  QVERIFY(!latch.expired());
  QVERIFY(!state->hasPlan());
  QVERIFY(state->wasCancelled());
  QCOMPARE(state->lastError(), QString());
  QCOMPARE(panel.model()->rowCount(), 0);
  QVERIFY(panel.analyzeButton()->isEnabled());
  QVERIFY(!panel.cancelButton()->isEnabled());
  QVERIFY(panel.summaryLabel()->text().contains(QStringLiteral("cancelled")));
  // Still usable: an analysis after the cancel finishes.
  panel.analyzeButton()->click();
  QVERIFY(analysed(*state));
  QVERIFY(state->hasPlan());
  QVERIFY(panel.model()->rowCount() > 0);
}

void TestQuantizationDock::lateResultAfterAModelChangeIsDropped() {
  StudioSession session;
  NumericRun run(&session);
  auto* state = new QuantizationState(&session, &run);
  QVERIFY(openAndWait(session, kModel));
  run.setInputChoice(randomChoice(500, 1));
  Latch latch;
  QuantizationState::setJobHook([&latch] { latch.hold(); });
  QSignalSpy analysisChanged(state, &QuantizationState::analysisChanged);
  state->analyze();
  QVERIFY(waitFor([&] { return latch.held() == 1; }));
  // Another model while the analysis is held: its result is void.
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
  QVERIFY(!state->isBusy()); // the UI thread did not wait for the job
  latch.release();
  QuantizationState::setJobHook({});
  QTest::qWait(1500);
  QVERIFY(!latch.expired());
  QVERIFY(!state->hasPlan());
  QVERIFY(analysisChanged.isEmpty());
  QVERIFY(state->sensitivity() == nullptr);
}

void TestQuantizationDock::analysisStartedAsTheModelLoadsIsKept() {
  // A load emits graphChanged, inputSpecsChanged … after modelLoaded: they are the same
  // revision, so an analysis started on modelLoaded (as --quantize-analyze does) is not dropped.
  StudioSession session;
  NumericRun run(&session);
  auto* state = new QuantizationState(&session, &run);
  connect(&session, &StudioSession::modelLoaded, state, [state] { state->analyze(); }, Qt::SingleShotConnection);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
  QVERIFY(analysed(*state));
  QVERIFY2(state->lastError().isEmpty(), qPrintable(state->lastError()));
  QVERIFY(state->hasPlan());
  QVERIFY(!state->wasCancelled());
  // A real change afterwards (other run inputs) does drop it.
  run.setInputChoice(randomChoice(300, 5));
  QVERIFY(!state->hasPlan());
}

void TestQuantizationDock::budgetStepsAndSettingsPersist() {
  // The budget spin box walks 1, 2, 5 × 10^k.
  LogSpinBox spin;
  spin.setValue(0.01);
  spin.stepBy(1);
  QVERIFY(sameDouble(spin.value(), 0.02));
  spin.stepBy(1);
  QVERIFY(sameDouble(spin.value(), 0.05));
  spin.stepBy(1);
  QVERIFY(sameDouble(spin.value(), 0.1));
  spin.stepBy(-4);
  QVERIFY(sameDouble(spin.value(), 0.005));
  spin.setValue(0.03); // between rungs: down lands on 0.02, up on 0.05
  spin.stepBy(-1);
  QVERIFY(sameDouble(spin.value(), 0.02));
  spin.setValue(0.03);
  spin.stepBy(1);
  QVERIFY(sameDouble(spin.value(), 0.05));
  QCOMPARE(spin.textFromValue(0.001), QStringLiteral("0.001"));
  QVERIFY(sameDouble(spin.valueFromText(QStringLiteral("2e-3")), 0.002));

  // Budget, candidates and the export box are remembered for the next state.
  {
    StudioSession session;
    auto* state = new QuantizationState(&session, nullptr);
    state->setBudget(PlanBudget::maxBytes(123456));
    state->setCandidates({WeightFormat::quantized(4, 64)});
    state->setUseForExport(false);
  }
  StudioSession session;
  auto* state = new QuantizationState(&session, nullptr);
  QCOMPARE(state->budget().kind, PlanBudget::Kind::Bytes);
  QCOMPARE(state->budget().bytes, std::uint64_t(123456));
  QCOMPARE(int(state->candidates().size()), 1);
  QCOMPARE(state->candidates().front(), WeightFormat::quantized(4, 64));
  QVERIFY(!state->useForExport());
  QuantizationPanel panel(state);
  QVERIFY(!panel.useForExportBox()->isChecked());
}

QTEST_MAIN(TestQuantizationDock)
#include "tst_quantization_dock.moc"
