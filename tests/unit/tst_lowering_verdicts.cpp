// checkLowering: the lowering's verdict per node, from a dry run of the lowering itself. The
// expectation for each graph is the lowering's own outcome on it: finishLowering of the same
// model either succeeds (every call Lowered) or fails on a node with a message, and the verdict on
// that node is Refused with that message. A dense `operator.add` is refused ("sparse add lhs
// expects sparse_tensor, got dense_tensor."), a sparse one lowers; `x * 1.0` is refused ("lattice
// mul artifact requires exactly two sparse values."); a refused node does not stop the verdicts
// of the nodes that do not depend on it, and the nodes that do are NotReached.

#include "LoweringTestModels.h"

#include "lowering/LoweringVerdicts.h"

#include <QtTest/QtTest>

using namespace lattice;
using namespace lattice::testmodels;

namespace {

struct Case {
  Model model;
  std::shared_ptr<fx::Graph> graph;
  ExportOptions options;
};

// points (dense, ?x3) -> fc: Linear(3, 3) -> `op(points, fc)` -> output.
Case denseCase(const char* op) {
  Case c{customModel(positional({"points"})), std::make_shared<fx::Graph>(), {}};
  addLinear(c.model, "fc", 3, 3);
  fx::Node* p = c.graph->placeholder("points");
  fx::Node* fc = c.graph->callModule("fc", {fx::Value::node(p)});
  fx::Node* add = c.graph->callFunction(op, {fx::Value::node(p), fx::Value::node(fc)});
  c.graph->output(fx::Value::node(add));
  setRootGraph(c.model, c.graph);
  c.options.inputs = std::vector<InputSpec>{denseInput("points", "tensor<?x3xf32>", 3)};
  return c;
}

// x (sparse, 2 channels) -> conv: SubmConv3d(2, 2) -> `operator.add(x, conv)` -> output.
Case sparseCase() {
  Case c{customModel(positional({"x"})), std::make_shared<fx::Graph>(), {}};
  ConvSpec s;
  s.in = 2;
  s.out = 2;
  addConv(c.model, "conv", "SubmConv3d", s);
  fx::Node* x = c.graph->placeholder("x");
  fx::Node* conv = c.graph->callModule("conv", {fx::Value::node(x)});
  fx::Node* add = c.graph->callFunction("operator.add", {fx::Value::node(x), fx::Value::node(conv)});
  c.graph->output(fx::Value::node(add));
  setRootGraph(c.model, c.graph);
  c.options.inputs = std::vector<InputSpec>{sparseInput("x", 2)};
  return c;
}

// The lowering's own outcome: empty when it lowers, else the first line of its error.
std::string lowered(const Case& c) {
  Expected<PreparedLowering> p = prepareLowering(c.model, c.options, c.graph.get());
  if (!p) return p.message();
  Status s = finishLowering(*p);
  if (s) return {};
  const std::string m = s.message();
  return m.substr(0, m.find('\n'));
}

} // namespace

class TestLoweringVerdicts : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void denseAddIsRefused() {
    const Case c = denseCase("operator.add");
    const std::string refusal = lowered(c);
    QVERIFY2(!refusal.empty(), "the lowering lowers a dense add");
    Expected<LoweringVerdicts> v = checkLowering(c.model, c.options, *c.graph);
    QVERIFY2(v, v ? "" : v.message().c_str());
    QCOMPARE(v->of("points").state, NodeVerdict::State::Lowered);
    QCOMPARE(v->of("fc").state, NodeVerdict::State::Lowered);
    QCOMPARE(v->of("add").state, NodeVerdict::State::Refused);
    QCOMPARE(v->of("add").message, refusal);
    QCOMPARE(v->of("output").state, NodeVerdict::State::NotReached);
  }

  void productWithANumberIsRefused() {
    Case c = denseCase("operator.mul");
    // fc(points) * 1.0: one symbolic value.
    c.graph = std::make_shared<fx::Graph>();
    fx::Node* p = c.graph->placeholder("points");
    fx::Node* fc = c.graph->callModule("fc", {fx::Value::node(p)});
    fx::Node* mul = c.graph->callFunction("operator.mul", {fx::Value::node(fc), fx::Value::floating(1.0)});
    c.graph->output(fx::Value::node(mul));
    setRootGraph(c.model, c.graph);
    const std::string refusal = lowered(c);
    QVERIFY(!refusal.empty());
    Expected<LoweringVerdicts> v = checkLowering(c.model, c.options, *c.graph);
    QVERIFY(v);
    QCOMPARE(v->of("mul").state, NodeVerdict::State::Refused);
    QCOMPARE(v->of("mul").message, refusal);
  }

  void sparseAddLowers() {
    const Case c = sparseCase();
    QCOMPARE(lowered(c), std::string()); // the lowering lowers it
    Expected<LoweringVerdicts> v = checkLowering(c.model, c.options, *c.graph);
    QVERIFY2(v, v ? "" : v.message().c_str());
    for (const fx::Node& node : c.graph->nodes())
      QVERIFY2(v->of(node.name()).state == NodeVerdict::State::Lowered, node.name().c_str());
  }

  // A refused node leaves independent branches checked: `torch.sin(x)` is refused, the conv
  // beside it still lowers, and what uses the sine is not reached.
  void independentNodesStillGetTheirVerdict() {
    Case c = sparseCase();
    c.graph = std::make_shared<fx::Graph>();
    fx::Node* x = c.graph->placeholder("x");
    fx::Node* sin = c.graph->callFunction("torch.sin", {fx::Value::node(x)});
    fx::Node* conv = c.graph->callModule("conv", {fx::Value::node(x)});
    fx::Node* add = c.graph->callFunction("operator.add", {fx::Value::node(sin), fx::Value::node(conv)});
    c.graph->output(fx::Value::node(add));
    setRootGraph(c.model, c.graph);
    Expected<LoweringVerdicts> v = checkLowering(c.model, c.options, *c.graph);
    QVERIFY(v);
    QCOMPARE(v->of("sin").state, NodeVerdict::State::Refused);
    QCOMPARE(v->of("sin").message, lowered(c)); // the lowering stops there with this message
    QCOMPARE(v->of("conv").state, NodeVerdict::State::Lowered);
    QCOMPARE(v->of("add").state, NodeVerdict::State::NotReached);
  }

  void withoutInputsThereIsNoDryRun() {
    Case c = sparseCase();
    c.options.inputs = std::vector<InputSpec>{};
    const Expected<LoweringVerdicts> v = checkLowering(c.model, c.options, *c.graph);
    QVERIFY(!v);
    QCOMPARE(v.message(), lowered(c));
  }
};

QTEST_APPLESS_MAIN(TestLoweringVerdicts)
#include "tst_lowering_verdicts.moc"
