// The quantization planner (core/quant) and the runtime's rerun it is built on. Expectations are
// independent of the planner's own arithmetic:
// - a rerun equals a full run of the artifact lowered with the same plan (a second lowering, a
//   second runtime, every op executed), on a small model and on example:sparse_resnet21d;
// - on a model built so that one layer is far more sensitive than the others (a tiny-magnitude
//   stem feeding a large gain: its f16 quantization scales are subnormal), that layer ranks
//   first and the budget plan keeps it dense while quantizing the others;
// - the chosen plan's measured error is within the budget and equals the error a full run of
//   the lowered mixed artifact shows.

#include "LoweringTestModels.h"

#include "exec/LoweredRun.h"
#include "exec/RunInputs.h"
#include "model/LoadModel.h"
#include "quant/QuantPlanner.h"
#include "runtime/Compare.h"

#include <QtTest/QtTest>

#include <cmath>
#include <random>

using namespace lattice;
using namespace lattice::testmodels;

class TestQuantPlanner : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void illConditionedLayerRanksFirstAndStaysDense();
  void rerunsEqualFullRunsOfTheLoweredPlan();
  void resnetRerunEqualsFullRun();
  void cancelStopsTheAnalysis();
  void planFileLowersToThePlannedFormats();
};

namespace {

// x (8 channels) → "0" SubmConv3d 8→16 with tiny weights (±1e-6) → "1" SubmConv3d 16→8 with a
// large gain (±1000) → "2" SubmConv3d 8→8 with ordinary weights (±1). Quantized with f16 scales,
// the stem's scale and zero point fall among f16's subnormals, whose steps are a large part of
// them: whatever the bits, its dequantized weights are far off, while the other layers lose only
// what 4 or 8 bits lose.
Model illConditionedModel() {
  Model model = sequentialModel();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const auto weights = [&](int64_t in, int64_t out, float scale) {
    std::vector<float> w(static_cast<std::size_t>(in * out));
    for (float& v : w) v = scale * u(rng);
    ConvSpec s;
    s.in = in;
    s.out = out;
    s.weight = f32({1, in, out}, w);
    return s;
  };
  addConv(model, "0", "SubmConv3d", weights(8, 16, 1e-6f));
  addConv(model, "1", "SubmConv3d", weights(16, 8, 1000.0f));
  addConv(model, "2", "SubmConv3d", weights(8, 8, 1.0f));
  finishSequential(model);
  return model;
}

QuantPlannerOptions optionsFor(std::int64_t points, std::vector<InputSpec> inputs = {}) {
  QuantPlannerOptions o;
  if (!inputs.empty()) o.exportOptions.inputs = std::move(inputs);
  runtime::RandomInputOptions r;
  r.points = points;
  r.seed = 11;
  o.inputs = RunInputSpec::randomPoints(r);
  return o;
}

std::unique_ptr<QuantPlanner> plannerFor(const Model& model, const QuantPlannerOptions& o) {
  Expected<std::unique_ptr<QuantPlanner>> p = QuantPlanner::create(model, o);
  if (!p) qFatal("planner: %s", p.message().c_str());
  return std::move(*p);
}

// The output error of `model` lowered with `plan` and run in full on the planner's inputs,
// against the dense lowering run in full: the second method.
runtime::Divergence fullRunError(const Model& model, const QuantPlannerOptions& o, const QuantizationPlan& plan) {
  const auto runOutputs = [&](std::shared_ptr<const QuantizationPlan> p) {
    ExportOptions e = o.exportOptions;
    e.quantizationPlan = std::move(p);
    Expected<PreparedLowering> lowering = prepareLowering(model, e);
    if (!lowering) qFatal("lower: %s", lowering.message().c_str());
    if (Status s = finishLowering(*lowering); !s) qFatal("lower: %s", s.message().c_str());
    Expected<LoweredRun> run = runLowering(*lowering, "m");
    if (!run) qFatal("run: %s", run.message().c_str());
    Expected<RunInputs> inputs = makeRunInputs(o.inputs, run->runtime.plan());
    if (!inputs) qFatal("inputs: %s", inputs.message().c_str());
    if (Status s = run->runtime.start(inputs->bound); !s) qFatal("start: %s", s.message().c_str());
    if (Status s = run->runtime.run(); !s) qFatal("run: %s", s.message().c_str());
    std::vector<runtime::RuntimeValue> out;
    for (const runtime::PlanOutput& po : run->runtime.plan().outputs) out.push_back(run->runtime.value(po.slot));
    return out;
  };
  const std::vector<runtime::RuntimeValue> dense =
      runOutputs(std::make_shared<const QuantizationPlan>(QuantizationPlan::uniform(WeightFormat::denseFormat())));
  const std::vector<runtime::RuntimeValue> mixed = runOutputs(std::make_shared<const QuantizationPlan>(plan));
  runtime::Divergence worst;
  worst.pearson = 1.0;
  for (std::size_t i = 0; i < dense.size(); ++i) {
    std::string problem;
    const runtime::Divergence d = runtime::compareValues(mixed[i], dense[i], &problem);
    if (!problem.empty()) qFatal("compare: %s", problem.c_str());
    worst.relL2 = std::max(worst.relL2, d.relL2);
    worst.pearson = std::min(worst.pearson, d.pearson);
  }
  return worst;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max({1e-12, std::abs(a), std::abs(b)}); }

} // namespace

void TestQuantPlanner::illConditionedLayerRanksFirstAndStaysDense() {
  const Model model = illConditionedModel();
  const QuantPlannerOptions o = optionsFor(300, {sparseInput("input", 8)});
  auto planner = plannerFor(model, o);
  QCOMPARE(planner->layers().size(), std::size_t(3));
  Expected<QuantSensitivity> s = planner->analyze();
  QVERIFY2(s, s ? "" : s.message().c_str());
  QVERIFY(s->randomInputs);
  const std::vector<int> ranking = s->ranking();
  QCOMPARE(s->layers[static_cast<std::size_t>(ranking.front())].name, std::string("0"));
  // Far more sensitive: either format on the stem hurts more than any format elsewhere.
  double othersWorst = 0.0;
  for (std::size_t i = 1; i < 3; ++i)
    for (const LayerCandidate& c : s->perLayer[i]) othersWorst = std::max(othersWorst, c.error.relL2);
  for (const LayerCandidate& c : s->perLayer[0])
    QVERIFY2(c.error.relL2 > 2 * othersWorst,
             qPrintable(QString("stem %1 vs others' worst %2").arg(c.error.relL2).arg(othersWorst)));

  Expected<PlanSearch> found = planner->search(*s, PlanBudget::relativeL2(5e-2));
  QVERIFY2(found, found ? "" : found.message().c_str());
  QVERIFY(found->met);
  QVERIFY(found->chosen.formats[0].dense());
  QVERIFY(!found->chosen.formats[1].dense() || !found->chosen.formats[2].dense());
  QVERIFY(found->chosen.error.relL2 <= 5e-2);
  QVERIFY(found->chosen.bytes < s->bytesOf(std::vector<WeightFormat>(3)));
  // The chosen plan's error as a full run of the lowered mixed artifact shows it.
  const runtime::Divergence full = fullRunError(model, o, planner->toPlan(found->chosen.formats));
  QVERIFY2(close(full.relL2, found->chosen.error.relL2),
           qPrintable(QString("full %1 vs planner %2").arg(full.relL2).arg(found->chosen.error.relL2)));
  // The Pareto front is ordered by bytes with falling error.
  for (std::size_t i = 1; i < found->pareto.size(); ++i) {
    const PlanMeasurement& a = found->visited[static_cast<std::size_t>(found->pareto[i - 1])];
    const PlanMeasurement& b = found->visited[static_cast<std::size_t>(found->pareto[i])];
    QVERIFY(a.bytes < b.bytes);
    QVERIFY(a.error.relL2 > b.error.relL2);
  }
}

void TestQuantPlanner::rerunsEqualFullRunsOfTheLoweredPlan() {
  const Model model = illConditionedModel();
  QuantPlannerOptions o = optionsFor(200, {sparseInput("input", 8)});
  o.candidates = {WeightFormat::quantized(4, 32), WeightFormat::quantized(8, 64, "f32")};
  auto planner = plannerFor(model, o);
  Expected<QuantSensitivity> s = planner->analyze();
  QVERIFY2(s, s ? "" : s.message().c_str());
  for (std::size_t i = 0; i < s->layers.size(); ++i)
    for (const LayerCandidate& c : s->perLayer[i]) {
      std::vector<WeightFormat> formats(s->layers.size());
      formats[i] = c.format;
      const runtime::Divergence full = fullRunError(model, o, planner->toPlan(formats));
      QVERIFY2(close(full.relL2, c.error.relL2), qPrintable(QString("layer %1 %2: full %3 vs rerun %4")
                                                               .arg(QString::fromStdString(s->layers[i].name))
                                                               .arg(QString::fromStdString(c.format.name()))
                                                               .arg(full.relL2)
                                                               .arg(c.error.relL2)));
      QVERIFY(close(full.pearson, c.error.pearson));
    }
  // A plan with every layer changed: measure() against the full run.
  const std::vector<WeightFormat> mixed = {WeightFormat::quantized(8), WeightFormat::quantized(4, 64),
                                           WeightFormat::quantized(4)};
  Expected<PlanMeasurement> m = planner->measure(mixed);
  QVERIFY2(m, m ? "" : m.message().c_str());
  QVERIFY(close(fullRunError(model, o, planner->toPlan(mixed)).relL2, m->error.relL2));
  // Bytes: what the lowered plan stores, counted from its weight table.
  ExportOptions e = o.exportOptions;
  e.quantizationPlan = std::make_shared<const QuantizationPlan>(planner->toPlan(mixed));
  Expected<PreparedLowering> lowering = prepareLowering(model, e);
  QVERIFY(lowering);
  QVERIFY(finishLowering(*lowering));
  std::uint64_t stored = 0;
  for (const NamedTensor& t : lowering->builder->weights()) stored += t.tensor.byteSize();
  QCOMPARE(m->bytes, stored);
}

void TestQuantPlanner::resnetRerunEqualsFullRun() {
  Expected<Model> model = loadModel("example:sparse_resnet21d");
  QVERIFY(model);
  QuantPlannerOptions o = optionsFor(1500);
  o.candidates = {WeightFormat::quantized(4)};
  auto planner = plannerFor(*model, o);
  QVERIFY(planner->layers().size() > 10);
  // A layer in the middle, the first and the last: each rerun against a full run.
  const std::size_t n = planner->layers().size();
  for (std::size_t i : {std::size_t(0), n / 2, n - 1}) {
    std::vector<WeightFormat> formats(n);
    formats[i] = WeightFormat::quantized(4);
    Expected<PlanMeasurement> m = planner->measure(formats);
    QVERIFY2(m, m ? "" : m.message().c_str());
    QVERIFY(m->error.relL2 > 0.0);
    QVERIFY(close(fullRunError(*model, o, planner->toPlan(formats)).relL2, m->error.relL2));
  }
}

void TestQuantPlanner::cancelStopsTheAnalysis() {
  const Model model = illConditionedModel();
  auto planner = plannerFor(model, optionsFor(100, {sparseInput("input", 8)}));
  std::atomic<bool> cancel{false};
  int calls = 0;
  Expected<QuantSensitivity> s = planner->analyze(
      [&](int, int) {
        ++calls;
        cancel = true;
      },
      &cancel);
  QVERIFY(!s);
  QCOMPARE(s.code(), ErrorCode::Cancelled);
  QCOMPARE(calls, 1);
  // Still usable afterwards.
  cancel = false;
  QVERIFY(planner->analyze({}, &cancel));
}

void TestQuantPlanner::planFileLowersToThePlannedFormats() {
  const Model model = illConditionedModel();
  auto planner = plannerFor(model, optionsFor(100, {sparseInput("input", 8)}));
  const std::vector<WeightFormat> formats = {WeightFormat::denseFormat(), WeightFormat::quantized(4, 64),
                                             WeightFormat::quantized(8, 32, "f32")};
  Expected<QuantizationPlan> back = QuantizationPlan::parse(planner->toPlan(formats).toJson(), "plan.json");
  QVERIFY2(back, back ? "" : back.message().c_str());
  for (std::size_t i = 0; i < formats.size(); ++i)
    QVERIFY(back->formatFor(planner->layers()[i].name) == formats[i]);
}

QTEST_GUILESS_MAIN(TestQuantPlanner)
#include "tst_quant_planner.moc"
