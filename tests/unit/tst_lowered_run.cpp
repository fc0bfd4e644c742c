// LoweredRun (core/exec): a finished lowering executed without being written, every plan op
// mapped to the FX node that emitted it, and every node to the SSA value it became. Expectations
// come from lowering.md: example:chain:2 traces to x, blocks_{0,1}_{0,1,2} (SubmConv3d, BatchNorm,
// ReLU) and output; a placeholder emits its sparse.make (§6.1 step 8), a SubmConv3d a weight and
// the conv (§3.3), a BatchNorm and a ReLU the feature-op pattern of §3.2 (decompose, the op with
// its weights, with_features). The run's values are the values of a separately written and
// opened artifact run on the same inputs.

#include "exec/LoweredRun.h"
#include "model/LoadModel.h"
#include "runtime/RandomInputs.h"

#include <QtTest/QtTest>

#include <cstring>
#include <variant>

using namespace lattice;

class TestLoweredRun : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void opsMapToTheirNodes();
  void nodesMapToTheirValues();
  void runsLikeTheWrittenArtifact();
  void runUntilANodeExecutesItsOps();
  void budgetDropsOldValuesAndRecomputeGivesThemBack();
  void failuresNameTheirNodeFromTheErrorsData();
};

namespace {

struct Lowered {
  std::unique_ptr<Model> model;
  PreparedLowering lowering;
};

Lowered lowerChain(int blocks) {
  Lowered out;
  Expected<Model> model = loadModel("example:chain:" + std::to_string(blocks));
  if (!model) qFatal("%s", model.message().c_str());
  out.model = std::make_unique<Model>(std::move(*model));
  Expected<PreparedLowering> p = prepareLowering(*out.model, ExportOptions{});
  if (!p) qFatal("%s", p.message().c_str());
  out.lowering = std::move(*p);
  if (Status s = finishLowering(out.lowering); !s) qFatal("%s", s.message().c_str());
  return out;
}

std::vector<std::string> kindsOf(const LoweredRun& run, const std::string& node) {
  std::vector<std::string> kinds;
  for (int op : run.opsOf(node))
    kinds.emplace_back(opName(run.runtime.plan().ops[static_cast<std::size_t>(op)].kind));
  return kinds;
}

runtime::RuntimeInputs inputsFor(const runtime::Runtime& rt) {
  runtime::RandomInputOptions options;
  options.points = 300;
  options.seed = 3;
  Expected<std::vector<NamedTensor>> tensors = runtime::randomInputs(rt.plan(), options);
  if (!tensors) qFatal("%s", tensors.message().c_str());
  runtime::RuntimeInputs in;
  in.named = std::move(*tensors);
  return in;
}

} // namespace

void TestLoweredRun::opsMapToTheirNodes() {
  Lowered l = lowerChain(2);
  Expected<LoweredRun> run = runLowering(l.lowering, "chain");
  QVERIFY2(run, run ? "" : run.message().c_str());
  const std::size_t ops = run->runtime.plan().ops.size();
  QCOMPARE(run->opNodes.size(), ops);
  // 1 sparse.make + per block 2 (conv) + 7 (batch norm: 4 weights) + 3 (relu) = 1 + 2 * 12.
  QCOMPARE(ops, std::size_t(25));
  QCOMPARE(kindsOf(*run, "x"), (std::vector<std::string>{"sparse.make"}));
  QCOMPARE(kindsOf(*run, "blocks_0_0"), (std::vector<std::string>{"weight", "subm_conv3d"}));
  QCOMPARE(kindsOf(*run, "blocks_1_1"), (std::vector<std::string>{"sparse.decompose", "weight", "weight", "weight",
                                                                    "weight", "batch_norm", "sparse.with_features"}));
  QCOMPARE(kindsOf(*run, "blocks_1_2"),
           (std::vector<std::string>{"sparse.decompose", "activation", "sparse.with_features"}));
  QVERIFY(kindsOf(*run, "output").empty()); // the output node emits no op
  QCOMPARE(run->opEndOf("blocks_0_0"), 3);
  QCOMPARE(run->opEndOf("output"), -1);
  // Every op has its node, and the nodes come in graph order.
  std::vector<std::string> order;
  for (const std::string& node : run->opNodes) {
    QVERIFY(!node.empty());
    if (order.empty() || order.back() != node) order.push_back(node);
  }
  QCOMPARE(order, (std::vector<std::string>{"x", "blocks_0_0", "blocks_0_1", "blocks_0_2", "blocks_1_0",
                                            "blocks_1_1", "blocks_1_2"}));
}

void TestLoweredRun::nodesMapToTheirValues() {
  Lowered l = lowerChain(2);
  Expected<LoweredRun> run = runLowering(l.lowering, "chain");
  QVERIFY(run);
  std::vector<std::string> names, ssas;
  for (const NodeValueRef& ref : run->nodeValues) {
    names.push_back(ref.name);
    ssas.push_back(ref.ssa);
    QVERIFY(ref.sparse);
    QCOMPARE(ref.name, ref.node);
  }
  const std::vector<std::string> nodes{"x",          "blocks_0_0", "blocks_0_1", "blocks_0_2",
                                       "blocks_1_0", "blocks_1_1", "blocks_1_2", "output"};
  QCOMPARE(names, nodes);
  // Each module's value is the SSA value named after it (§2.5); the output is the last block's.
  std::vector<std::string> expected(nodes.begin(), nodes.end() - 1);
  expected.push_back("blocks_1_2");
  QCOMPARE(ssas, expected);
}

void TestLoweredRun::runsLikeTheWrittenArtifact() {
  Lowered l = lowerChain(2);
  Expected<LoweredRun> run = runLowering(l.lowering, "chain");
  QVERIFY(run);
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("chain.lattice")).toStdString();
  QVERIFY(l.lowering.builder->save(path));
  Expected<runtime::Runtime> written = runtime::Runtime::open(path);
  QVERIFY2(written, written ? "" : written.message().c_str());
  const runtime::RuntimeInputs inputs = inputsFor(*written);
  QVERIFY(run->runtime.start(inputs));
  QVERIFY(run->runtime.run());
  QVERIFY(written->start(inputs));
  QVERIFY(written->run());
  Expected<std::vector<NamedTensor>> a = run->runtime.outputs(), b = written->outputs();
  QVERIFY(a && b);
  QCOMPARE(a->size(), b->size());
  for (std::size_t i = 0; i < a->size(); ++i) {
    QCOMPARE((*a)[i].key, (*b)[i].key);
    QCOMPARE((*a)[i].tensor.shape(), (*b)[i].tensor.shape());
    QCOMPARE((*a)[i].tensor.byteSize(), (*b)[i].tensor.byteSize());
    QVERIFY(std::memcmp((*a)[i].tensor.data(), (*b)[i].tensor.data(), (*a)[i].tensor.byteSize()) == 0);
  }
}

void TestLoweredRun::runUntilANodeExecutesItsOps() {
  Lowered l = lowerChain(1);
  Expected<LoweredRun> run = runLowering(l.lowering, "chain");
  QVERIFY(run);
  runtime::RuntimeOptions keep;
  keep.keepValues = true;
  QVERIFY(run->runtime.start(inputsFor(run->runtime), keep));
  QVERIFY(run->runtime.runUntil(run->opEndOf("blocks_0_0")));
  const runtime::RuntimePlan& plan = run->runtime.plan();
  QVERIFY(std::holds_alternative<runtime::Sparse>(run->runtime.value(plan.slotOf("blocks_0_0"))));
  QVERIFY(std::holds_alternative<std::monostate>(run->runtime.value(plan.slotOf("blocks_0_1"))));
}

// A run that keeps values within a budget drops the oldest values past their last use; each
// dropped value computed again equals, byte for byte, the value a run that kept everything held.
void TestLoweredRun::budgetDropsOldValuesAndRecomputeGivesThemBack() {
  Lowered l = lowerChain(6);
  Expected<LoweredRun> all = runLowering(l.lowering, "chain");
  Expected<LoweredRun> budgeted = runLowering(l.lowering, "chain");
  QVERIFY(all && budgeted);
  const runtime::RuntimeInputs inputs = inputsFor(all->runtime);
  runtime::RuntimeOptions keepAll;
  keepAll.keepValues = true;
  QVERIFY(all->runtime.start(inputs, keepAll));
  QVERIFY(all->runtime.run());
  const runtime::RuntimePlan& plan = budgeted->runtime.plan();
  // The budget holds about two of the chain's feature values.
  const int first = plan.slotOf("blocks_0_0");
  const std::uint64_t one = runtime::valueBytes(all->runtime.value(first));
  QVERIFY(one > 0);
  runtime::RuntimeOptions keepSome = keepAll;
  keepSome.keepBudgetBytes = 2 * one + one / 2;
  int seen = 0;
  keepSome.afterOp = [&](int) { ++seen; };
  QVERIFY(budgeted->runtime.start(inputs, keepSome));
  QVERIFY(budgeted->runtime.run());
  QCOMPARE(seen, static_cast<int>(plan.ops.size()));
  QVERIFY(budgeted->runtime.keptBytes() < all->runtime.keptBytes());

  auto bytesOf = [](const runtime::RuntimeValue& v) {
    std::vector<NamedTensor> tensors;
    if (const auto* t = std::get_if<runtime::Tensor>(&v)) tensors.push_back({"t", runtime::toTensorData(*t)});
    if (const auto* s = std::get_if<runtime::Sparse>(&v)) tensors = runtime::sparseTensors("s", *s);
    std::vector<std::uint8_t> out;
    for (const NamedTensor& t : tensors) out.insert(out.end(), t.tensor.data(), t.tensor.data() + t.tensor.byteSize());
    return out;
  };
  int dropped = 0;
  for (const runtime::PlanOp& op : plan.ops)
    for (int slot : op.results) {
      const runtime::RuntimeValue& expected = all->runtime.value(slot);
      if (std::holds_alternative<runtime::WeightRef>(expected)) continue;
      if (!budgeted->runtime.evicted(slot)) {
        QVERIFY2(bytesOf(budgeted->runtime.value(slot)) == bytesOf(expected), plan.slotNames[std::size_t(slot)].c_str());
        continue;
      }
      ++dropped;
      QVERIFY(std::holds_alternative<std::monostate>(budgeted->runtime.value(slot)));
      Expected<runtime::RuntimeValue> again = budgeted->runtime.recompute(slot);
      QVERIFY2(again, again ? "" : again.message().c_str());
      QVERIFY2(bytesOf(*again) == bytesOf(expected), plan.slotNames[std::size_t(slot)].c_str());
    }
  QVERIFY2(dropped > 10, std::to_string(dropped).c_str());
  // The outputs are never dropped.
  QVERIFY(budgeted->runtime.outputs());
}

void TestLoweredRun::failuresNameTheirNodeFromTheErrorsData() {
  // failedNodeOf reads the line and the input an Error carries, never its text. The expected
  // node of a line is the node opNodes gives the op written there (a second path: SSA names).
  Lowered l = lowerChain(2);
  Expected<LoweredRun> run = runLowering(l.lowering, "chain");
  QVERIFY2(run, run ? "" : run.message().c_str());
  const runtime::RuntimePlan& plan = run->runtime.plan();
  int conv = -1;
  for (int i = 0; i < static_cast<int>(plan.ops.size()) && conv < 0; ++i)
    if (plan.ops[static_cast<std::size_t>(i)].kind == OpKind::SubmConv3d &&
        run->opNodes[static_cast<std::size_t>(i)] == "blocks_1_0")
      conv = i;
  QVERIFY(conv >= 0);
  const std::uint32_t line = plan.ops[static_cast<std::size_t>(conv)].loc().line;
  QVERIFY(line > 0);

  Error atLine = makeError("an error of that op");
  atLine.line = line;
  QCOMPARE(failedNodeOf(l.lowering, atLine), std::string("blocks_1_0"));
  // The same place written in the text only: nothing is read from it.
  const Error textOnly = makeError("chain/graph.mlir:" + std::to_string(line) +
                                   ":5: error: 'lattice.subm_conv3d' op %x: input 'x_features'");
  QCOMPARE(failedNodeOf(l.lowering, textOnly), std::string());
  // An error about an artifact input: the placeholder that owns it.
  Error aboutInput = makeError("an input error");
  aboutInput.input = plan.args.front().abiName;
  QCOMPARE(failedNodeOf(l.lowering, aboutInput), std::string("x"));
}

QTEST_APPLESS_MAIN(TestLoweredRun)
#include "tst_lowered_run.moc"
