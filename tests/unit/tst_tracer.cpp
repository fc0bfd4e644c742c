// Tests for the generic Tracer (fx-archive.md "Tracing an archive"): inlining of one-level graphs with Python
// argument binding, re-rooted targets, naming in emission order, leaf overrides, policy subclasses and every
// error the walk reports. Models are built by hand through the Model API; expectations are worked out from
// the spec by hand.

#include "trace/Tracer.h"

#include <QtTest/QtTest>

#include <string>
#include <vector>

namespace QTest {
template <> char* toString(const std::string& s) {
  return qstrdup(s.c_str());
}
template <> char* toString(const std::vector<std::string>& v) {
  std::string joined;
  for (const std::string& s : v)
    joined += (joined.empty() ? "" : ", ") + s;
  return qstrdup(("[" + joined + "]").c_str());
}
} // namespace QTest

using namespace lattice;
using fx::Op;
using fx::Value;

namespace {

constexpr const char* kModule = "torch.nn.modules.module.Module";
constexpr const char* kSequential = "torch.nn.modules.container.Sequential";
constexpr const char* kLinear = "torch.nn.modules.linear.Linear";
constexpr const char* kReLU = "torch.nn.modules.activation.ReLU";

ModuleInfo makeModule(std::string path, std::string type, std::vector<std::string> bases = {kModule}) {
  ModuleInfo m;
  m.path = std::move(path);
  m.type = std::move(type);
  m.bases = std::move(bases);
  return m;
}

SignatureParam param(std::string name, ParamKind kind = ParamKind::PositionalOrKeyword,
                     std::optional<Value> defaultValue = std::nullopt) {
  return SignatureParam{std::move(name), kind, std::move(defaultValue)};
}

/// A graph `placeholder(input) → call_module(c0) → call_module(c1) … → output`.
std::shared_ptr<fx::Graph> chainGraph(const std::string& input, const std::vector<std::string>& calls) {
  auto g = std::make_shared<fx::Graph>();
  fx::Node* last = g->placeholder(input);
  for (const std::string& c : calls)
    last = g->callModule(c, {Value::node(last)});
  g->output(Value::node(last));
  return g;
}

/// Root `test.Net` whose forward(x) calls `seq`, a Sequential of Linear and ReLU.
Model sequentialModel() {
  Model model;
  ModuleInfo root = makeModule("", "test.Net");
  root.children = {"seq"};
  root.signature = {param("x")};
  root.graph = chainGraph("x", {"seq"});
  model.addModule(std::move(root));
  ModuleInfo seq = makeModule("seq", kSequential);
  seq.children = {"0", "1"};
  seq.signature = {param("input")};
  seq.graph = chainGraph("input", {"0", "1"});
  model.addModule(std::move(seq));
  model.addModule(makeModule("seq.0", kLinear));
  model.addModule(makeModule("seq.1", kReLU));
  return model;
}

/// Root(x) → blk(<args>) → output, where blk.forward(x, y=2.0, *, scale=None) returns
/// `operator.mul(operator.add(x, y), scale)`. `args`/`kwargs` tokens: "x" is the root input,
/// anything else a float.
Model bindingModel(const QStringList& args, const QStringList& kwargs) {
  Model model;
  ModuleInfo root = makeModule("", "test.Net");
  root.children = {"blk"};
  root.signature = {param("x")};
  auto g = std::make_shared<fx::Graph>();
  fx::Node* x = g->placeholder("x");
  auto token = [&](const QString& t) {
    return t == QLatin1String("x") ? Value::node(x) : Value::floating(t.toDouble());
  };
  fx::ValueList callArgs;
  for (const QString& a : args)
    callArgs.push_back(token(a));
  fx::Kwargs callKwargs;
  for (const QString& kv : kwargs) {
    const QStringList parts = kv.split(QLatin1Char('='));
    callKwargs.emplace_back(parts[0].toStdString(), token(parts[1]));
  }
  g->output(Value::node(g->callModule("blk", callArgs, callKwargs)));
  root.graph = g;
  model.addModule(std::move(root));

  ModuleInfo blk = makeModule("blk", "test.Block");
  blk.signature = {param("x"), param("y", ParamKind::PositionalOrKeyword, Value::floating(2.0)),
                   param("scale", ParamKind::KeywordOnly, Value::none())};
  auto bg = std::make_shared<fx::Graph>();
  fx::Node* bx = bg->placeholder("x");
  fx::Node* by = bg->placeholder("y", Value::floating(2.0));
  fx::Node* bs = bg->placeholder("scale", Value::none());
  fx::Node* add = bg->callFunction("operator.add", {Value::node(bx), Value::node(by)});
  fx::Node* mul = bg->callFunction("operator.mul", {Value::node(add), Value::node(bs)});
  bg->output(Value::node(mul));
  blk.graph = bg;
  model.addModule(std::move(blk));
  return model;
}

std::vector<std::string> names(const fx::Graph& g) {
  std::vector<std::string> out;
  for (const fx::Node& n : g.nodes())
    out.push_back(n.name());
  return out;
}

std::vector<std::string> targets(const fx::Graph& g) {
  std::vector<std::string> out;
  for (const fx::Node& n : g.nodes())
    out.push_back(n.target());
  return out;
}

std::unique_ptr<fx::Graph> traceOk(const Tracer& tracer, const Model& model) {
  auto traced = tracer.trace(model);
  if (!traced) qWarning("trace failed: %s", traced.message().c_str());
  if (!traced) return nullptr;
  const Status lint = (*traced)->lint();
  if (!lint) qWarning("lint failed: %s", lint.message().c_str());
  return lint ? std::move(*traced) : nullptr;
}

class NoLeafTracer : public Tracer {
public:
  bool isLeafModule(const ModuleInfo&, const std::string&) const override { return false; }
};

class AllLeafTracer : public Tracer {
public:
  bool isLeafModule(const ModuleInfo&, const std::string& qualifiedName) const override {
    asked.push_back(qualifiedName);
    return true;
  }
  mutable std::vector<std::string> asked;
};

} // namespace

class TestTracer : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void inlinesSequential();
  void rootIsNeverALeaf();
  void argumentBinding_data();
  void argumentBinding();
  void varPositionalAndVarKeyword();
  void placeholderDefaultBeatsSignatureDefault();
  void graphWithoutSignatureBindsPlaceholders();
  void targetsAreReRooted();
  void reusedModuleIsInlinedTwice();
  void namesFollowTorchFx();
  void getItemOnInlinedTupleIsFolded();
  void getItemOnLeafResultStaysANode();
  void collapseOverride();
  void expandOverride();
  void expandLibraryLeafWithoutGraphFails();
  void noLeafPolicyFailsOnLibraryModule();
  void allLeafPolicy();
  void errors_data();
  void errors();
};

void TestTracer::inlinesSequential() {
  Tracer tracer;
  auto g = traceOk(tracer, sequentialModel());
  QVERIFY(g);
  const std::string expected =
      "graph():\n"
      "    %x : [num_users=1] = placeholder[target=x]\n"
      "    %seq_0 : [num_users=1] = call_module[target=seq.0](args = (%x,), kwargs = {})\n"
      "    %seq_1 : [num_users=1] = call_module[target=seq.1](args = (%seq_0,), kwargs = {})\n"
      "    return seq_1\n";
  QCOMPARE(QString::fromStdString(g->print()), QString::fromStdString(expected));
}

void TestTracer::rootIsNeverALeaf() {
  Model model = sequentialModel();
  Tracer tracer;
  tracer.setLeafOverride("", true);
  QVERIFY(!tracer.isLeaf(model.root()));
  AllLeafTracer all;
  QVERIFY(!all.isLeaf(model.root()));
  auto g = traceOk(tracer, model);
  QVERIFY(g);
  QCOMPARE(g->size(), std::size_t(4));
}

void TestTracer::argumentBinding_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QStringList>("kwargs");
  QTest::addColumn<QString>("addRhs"); // second argument of the inlined operator.add
  QTest::addColumn<QString>("mulRhs"); // second argument of the inlined operator.mul
  QTest::addColumn<QString>("error");
  QTest::newRow("defaults") << QStringList{"x"} << QStringList{} << "2.0"
                            << "None"
                            << "";
  QTest::newRow("positional") << QStringList{"x", "3.5"} << QStringList{} << "3.5"
                              << "None"
                              << "";
  QTest::newRow("keywords") << QStringList{"x"} << QStringList{"scale=x", "y=4.0"} << "4.0"
                            << "x"
                            << "";
  QTest::newRow("first by keyword") << QStringList{} << QStringList{"x=x"} << "2.0"
                                    << "None"
                                    << "";
  QTest::newRow("too many positional") << QStringList{"x", "1.0", "2.0"} << QStringList{} << ""
                                       << ""
                                       << "module 'blk' takes 2 positional arguments but 3 were given";
  QTest::newRow("missing argument") << QStringList{} << QStringList{"y=1.0"} << ""
                                    << ""
                                    << "module 'blk' is missing required argument 'x'";
  QTest::newRow("unknown keyword") << QStringList{"x"} << QStringList{"z=1.0"} << ""
                                   << ""
                                   << "module 'blk' got an unexpected keyword argument 'z'";
  QTest::newRow("multiple values") << QStringList{"x", "1.0"} << QStringList{"y=2.0"} << ""
                                   << ""
                                   << "module 'blk' got multiple values for argument 'y'";
}

void TestTracer::argumentBinding() {
  QFETCH(QStringList, args);
  QFETCH(QStringList, kwargs);
  QFETCH(QString, addRhs);
  QFETCH(QString, mulRhs);
  QFETCH(QString, error);
  Model model = bindingModel(args, kwargs);
  Tracer tracer;
  auto traced = tracer.trace(model);
  if (!error.isEmpty()) {
    QVERIFY(!traced);
    QCOMPARE(QString::fromStdString(traced.message()), error);
    return;
  }
  QVERIFY2(traced, traced ? "" : traced.message().c_str());
  const fx::Graph& g = **traced;
  QCOMPARE(names(g), (std::vector<std::string>{"x", "add", "mul", "output"}));
  fx::Node* x = g.findNode("x");
  auto expect = [&](const QString& t) {
    if (t == QLatin1String("x")) return Value::node(x);
    if (t == QLatin1String("None")) return Value::none();
    return Value::floating(t.toDouble());
  };
  fx::Node* add = g.findNode("add");
  fx::Node* mul = g.findNode("mul");
  QCOMPARE(add->target(), std::string("operator.add"));
  QVERIFY(add->args() == (fx::ValueList{Value::node(x), expect(addRhs)}));
  QVERIFY(mul->args() == (fx::ValueList{Value::node(add), expect(mulRhs)}));
  QVERIFY(g.outputNode()->args() == fx::ValueList{Value::node(mul)});
}

void TestTracer::varPositionalAndVarKeyword() {
  // pack.forward(a, *rest, **opts) returns (a, rest, opts).
  auto build = [](fx::ValueList extraArgs, fx::Kwargs kwargs) {
    Model model;
    ModuleInfo root = makeModule("", "test.Net");
    root.children = {"pack"};
    root.signature = {param("x")};
    auto g = std::make_shared<fx::Graph>();
    fx::Node* x = g->placeholder("x");
    fx::ValueList args{Value::node(x)};
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    g->output(Value::node(g->callModule("pack", args, std::move(kwargs))));
    root.graph = g;
    model.addModule(std::move(root));
    ModuleInfo pack = makeModule("pack", "test.Pack");
    pack.signature = {param("a"), param("rest", ParamKind::VarPositional),
                      param("opts", ParamKind::VarKeyword)};
    auto pg = std::make_shared<fx::Graph>();
    fx::Node* a = pg->placeholder("a");
    fx::Node* rest = pg->createNode(Op::Placeholder, "*rest");
    fx::Node* opts = pg->createNode(Op::Placeholder, "**opts");
    pg->output(Value::tuple({Value::node(a), Value::node(rest), Value::node(opts)}));
    pack.graph = pg;
    model.addModule(std::move(pack));
    return model;
  };
  Tracer tracer;
  {
    auto g = traceOk(tracer, build({Value::integer(1), Value::integer(2)}, {{"k", Value::integer(3)}}));
    QVERIFY(g);
    QCOMPARE(names(*g), (std::vector<std::string>{"x", "output"}));
    const Value expected =
        Value::tuple({Value::node(g->findNode("x")), Value::tuple({Value::integer(1), Value::integer(2)}),
                      Value::dict({{"k", Value::integer(3)}})});
    QVERIFY(g->outputNode()->args().front() == expected);
  }
  {
    auto g = traceOk(tracer, build({}, {}));
    QVERIFY(g);
    const Value expected = Value::tuple({Value::node(g->findNode("x")), Value::tuple({}), Value::dict({})});
    QVERIFY(g->outputNode()->args().front() == expected);
  }
}

void TestTracer::placeholderDefaultBeatsSignatureDefault() {
  Model model = bindingModel({"x"}, {});
  ModuleInfo* blk = model.module("blk");
  // The signature says y=2.0 but the recorded placeholder carries 5.0: the graph wins.
  blk->graph->findNode("y")->setArgs({Value::floating(5.0)});
  // Without any default a missing argument is an error; with only the signature's it binds.
  blk->graph->findNode("scale")->setArgs({});
  Tracer tracer;
  auto g = traceOk(tracer, model);
  QVERIFY(g);
  QVERIFY(g->findNode("add")->args()[1] == Value::floating(5.0));
  QVERIFY(g->findNode("mul")->args()[1] == Value::none());
  blk->signature[2].defaultValue.reset();
  auto failed = tracer.trace(model);
  QVERIFY(!failed);
  QCOMPARE(failed.message(), std::string("module 'blk' is missing required argument 'scale'"));
}

void TestTracer::graphWithoutSignatureBindsPlaceholders() {
  Model model = bindingModel({"x", "1.5"}, {"scale=x"});
  model.module("blk")->signature.clear();
  Tracer tracer;
  auto g = traceOk(tracer, model);
  QVERIFY(g);
  fx::Node* x = g->findNode("x");
  QVERIFY(g->findNode("add")->args() == (fx::ValueList{Value::node(x), Value::floating(1.5)}));
  QVERIFY(g->findNode("mul")->args()[1] == Value::node(x));
}

void TestTracer::targetsAreReRooted() {
  // root → a (user) → a's graph: get_attr w, get_attr b.bias, call_module b.c (Linear)
  Model model;
  ModuleInfo root = makeModule("", "test.Net");
  root.children = {"a"};
  root.signature = {param("x")};
  root.graph = chainGraph("x", {"a"});
  model.addModule(std::move(root));
  ModuleInfo a = makeModule("a", "test.A");
  a.children = {"b"};
  a.signature = {param("x")};
  auto g = std::make_shared<fx::Graph>();
  fx::Node* x = g->placeholder("x");
  fx::Node* w = g->getAttr("w");
  fx::Node* bias = g->getAttr("b.bias");
  fx::Node* lin = g->callModule("b.c", {Value::node(x)});
  fx::Node* add = g->callFunction("operator.add", {Value::node(lin), Value::node(w)});
  fx::Node* meth = g->callMethod("view", {Value::node(add), Value::integer(-1)});
  g->output(Value::list({Value::node(meth), Value::node(bias)}));
  a.graph = g;
  model.addModule(std::move(a));
  model.addModule(makeModule("a.b", "test.B"));
  model.addModule(makeModule("a.b.c", kLinear));

  Tracer tracer;
  auto traced = traceOk(tracer, model);
  QVERIFY(traced);
  QCOMPARE(names(*traced),
           (std::vector<std::string>{"x", "a_w", "a_b_bias", "a_b_c", "add", "view", "output"}));
  QCOMPARE(targets(*traced),
           (std::vector<std::string>{"x", "a.w", "a.b.bias", "a.b.c", "operator.add", "view", "output"}));
  QVERIFY(traced->findNode("view")->args() ==
          (fx::ValueList{Value::node(traced->findNode("add")), Value::integer(-1)}));
  QVERIFY(traced->outputNode()->args().front() ==
          Value::list({Value::node(traced->findNode("view")), Value::node(traced->findNode("a_b_bias"))}));
}

void TestTracer::reusedModuleIsInlinedTwice() {
  // The same user module called twice: each call gets its own copy with its own bindings.
  Model model = bindingModel({"x"}, {});
  auto g = model.module("")->graph;
  fx::Node* first = g->findNode("blk");
  {
    fx::Graph::InsertGuard guard(*g, g->outputNode());
    fx::Node* second = g->callModule("blk", {Value::node(first)}, {{"scale", Value::floating(0.5)}});
    g->outputNode()->setArgs({Value::tuple({Value::node(first), Value::node(second)})});
  }
  Tracer tracer;
  auto traced = traceOk(tracer, model);
  QVERIFY(traced);
  QCOMPARE(names(*traced), (std::vector<std::string>{"x", "add", "mul", "add_1", "mul_1", "output"}));
  QVERIFY(traced->findNode("add_1")->args() ==
          (fx::ValueList{Value::node(traced->findNode("mul")), Value::floating(2.0)}));
  QVERIFY(traced->findNode("mul_1")->args()[1] == Value::floating(0.5));
  QVERIFY(traced->outputNode()->args().front() ==
          Value::tuple({Value::node(traced->findNode("mul")), Value::node(traced->findNode("mul_1"))}));
}

void TestTracer::namesFollowTorchFx() {
  // fx-archive.md step 4 examples: `input` → `input_1`, `layer1.0.conv1` → `layer1_0_conv1`, a
  // module at path `output` takes `output` and the output node becomes `output_1`; a leading
  // digit gets `_`.
  Model model;
  ModuleInfo root = makeModule("", "test.Net");
  root.children = {"layer1", "output", "0"};
  root.signature = {param("input")};
  root.graph = chainGraph("input", {"layer1", "output", "0"});
  model.addModule(std::move(root));
  ModuleInfo layer1 = makeModule("layer1", kSequential);
  layer1.children = {"0"};
  layer1.signature = {param("input")};
  layer1.graph = chainGraph("input", {"0"});
  model.addModule(std::move(layer1));
  ModuleInfo block = makeModule("layer1.0", "test.Block");
  block.children = {"conv1"};
  block.signature = {param("x")};
  block.graph = chainGraph("x", {"conv1"});
  model.addModule(std::move(block));
  model.addModule(makeModule("layer1.0.conv1", "torch.nn.modules.conv.Conv2d"));
  model.addModule(makeModule("output", kReLU));
  model.addModule(makeModule("0", kReLU));
  Tracer tracer;
  auto g = traceOk(tracer, model);
  QVERIFY(g);
  QCOMPARE(names(*g), (std::vector<std::string>{"input_1", "layer1_0_conv1", "output", "_0", "output_1"}));
  QCOMPARE(targets(*g), (std::vector<std::string>{"input", "layer1.0.conv1", "output", "0", "output"}));
}

void TestTracer::getItemOnInlinedTupleIsFolded() {
  // pair.forward(x) returns (relu(x), x); root does `pair(x)[0]` and `pair(x)[-1]`: a one-pass
  // trace indexes the Python tuple, so no getitem node is recorded.
  Model model;
  ModuleInfo root = makeModule("", "test.Net");
  root.children = {"pair"};
  root.signature = {param("x")};
  auto g = std::make_shared<fx::Graph>();
  fx::Node* x = g->placeholder("x");
  fx::Node* call = g->callModule("pair", {Value::node(x)});
  fx::Node* first = g->callFunction("operator.getitem", {Value::node(call), Value::integer(0)});
  fx::Node* last = g->callFunction("operator.getitem", {Value::node(call), Value::integer(-1)});
  g->output(Value::tuple({Value::node(first), Value::node(last)}));
  root.graph = g;
  model.addModule(std::move(root));
  ModuleInfo pair = makeModule("pair", "test.Pair");
  pair.children = {"act"};
  pair.signature = {param("x")};
  auto pg = std::make_shared<fx::Graph>();
  fx::Node* px = pg->placeholder("x");
  fx::Node* act = pg->callModule("act", {Value::node(px)});
  pg->output(Value::tuple({Value::node(act), Value::node(px)}));
  pair.graph = pg;
  model.addModule(std::move(pair));
  model.addModule(makeModule("pair.act", kReLU));
  Tracer tracer;
  auto traced = traceOk(tracer, model);
  QVERIFY(traced);
  QCOMPARE(names(*traced), (std::vector<std::string>{"x", "pair_act", "output"}));
  QVERIFY(traced->outputNode()->args().front() ==
          Value::tuple({Value::node(traced->findNode("pair_act")), Value::node(traced->findNode("x"))}));

  // An index past the end names the module and node.
  first->setArgs({Value::node(call), Value::integer(2)});
  auto failed = tracer.trace(model);
  QVERIFY(!failed);
  QCOMPARE(failed.message(),
           std::string("root module node 'getitem': index 2 out of range for a tuple of 2 items"));
}

void TestTracer::getItemOnLeafResultStaysANode() {
  Model model = sequentialModel();
  auto g = model.module("")->graph;
  fx::Node* seq = g->findNode("seq");
  fx::Node* item;
  {
    fx::Graph::InsertGuard guard(*g, g->outputNode());
    item = g->callFunction("operator.getitem", {Value::node(seq), Value::integer(0)});
  }
  g->outputNode()->setArgs({Value::node(item)});
  Tracer tracer;
  tracer.setLeafOverride("seq", true);
  auto traced = traceOk(tracer, model);
  QVERIFY(traced);
  QCOMPARE(names(*traced), (std::vector<std::string>{"x", "seq", "getitem", "output"}));
  QVERIFY(traced->findNode("getitem")->args() ==
          (fx::ValueList{Value::node(traced->findNode("seq")), Value::integer(0)}));
}

void TestTracer::collapseOverride() {
  Model model = sequentialModel();
  Tracer tracer;
  tracer.setLeafOverride("seq", true);
  QCOMPARE(tracer.leafOverrides().size(), std::size_t(1));
  QVERIFY(tracer.isLeaf(*model.module("seq")));
  auto g = traceOk(tracer, model);
  QVERIFY(g);
  QCOMPARE(names(*g), (std::vector<std::string>{"x", "seq", "output"}));
  QCOMPARE(g->findNode("seq")->op(), Op::CallModule);
  QCOMPARE(g->findNode("seq")->target(), std::string("seq"));

  tracer.clearLeafOverride("seq");
  QVERIFY(tracer.leafOverrides().empty());
  auto back = traceOk(tracer, model);
  QVERIFY(back);
  QCOMPARE(names(*back), (std::vector<std::string>{"x", "seq_0", "seq_1", "output"}));
}

void TestTracer::expandOverride() {
  // A torch.nn leaf whose forward was recorded anyway can be expanded.
  Model model = sequentialModel();
  ModuleInfo* relu = model.module("seq.1");
  relu->signature = {param("input")};
  auto g = std::make_shared<fx::Graph>();
  fx::Node* in = g->placeholder("input");
  g->output(Value::node(
      g->callFunction("torch.nn.functional.relu", {Value::node(in)}, {{"inplace", Value::boolean(false)}})));
  relu->graph = g;
  Tracer tracer;
  tracer.setLeafOverride("seq.1", false);
  auto traced = traceOk(tracer, model);
  QVERIFY(traced);
  QCOMPARE(names(*traced), (std::vector<std::string>{"x", "seq_0", "relu", "output"}));
  QVERIFY(traced->findNode("relu")->args() == fx::ValueList{Value::node(traced->findNode("seq_0"))});
  QVERIFY(traced->findNode("relu")->kwargs() == (fx::Kwargs{{"inplace", Value::boolean(false)}}));
}

void TestTracer::expandLibraryLeafWithoutGraphFails() {
  Tracer tracer;
  tracer.setLeafOverride("seq.0", false);
  auto traced = tracer.trace(sequentialModel());
  QVERIFY(!traced);
  QCOMPARE(
      traced.message(),
      std::string(
          "module 'seq.0' (torch.nn.modules.linear.Linear) is traced through but has no recorded graph"));
}

void TestTracer::noLeafPolicyFailsOnLibraryModule() {
  NoLeafTracer tracer;
  auto traced = tracer.trace(sequentialModel());
  QVERIFY(!traced);
  QVERIFY2(QString::fromStdString(traced.message()).startsWith(QLatin1String("module 'seq.0'")),
           traced.message().c_str());
  // An override still beats the policy.
  tracer.setLeafOverride("seq.0", true);
  tracer.setLeafOverride("seq.1", true);
  auto g = traceOk(tracer, sequentialModel());
  QVERIFY(g);
  QCOMPARE(names(*g), (std::vector<std::string>{"x", "seq_0", "seq_1", "output"}));
}

void TestTracer::allLeafPolicy() {
  AllLeafTracer tracer;
  auto g = traceOk(tracer, sequentialModel());
  QVERIFY(g);
  QCOMPARE(names(*g), (std::vector<std::string>{"x", "seq", "output"}));
  // The policy was asked about `seq` with its qualified name, never about the root.
  QCOMPARE(tracer.asked, std::vector<std::string>{"seq"});
}

void TestTracer::errors_data() {
  QTest::addColumn<QString>("scenario");
  QTest::addColumn<QString>("message");
  QTest::newRow("empty model") << "empty"
                               << "model has no modules";
  QTest::newRow("root without graph") << "rootNoGraph"
                                      << "root module (test.Net) has no recorded graph";
  QTest::newRow("missing submodule of root") << "missingRoot"
                                             << "root module calls missing submodule 'nope' (node 'nope')";
  QTest::newRow("missing nested submodule") << "missingNested"
                                            << "module 'seq' calls missing submodule '2' (node '_2')";
  QTest::newRow("user module without graph")
      << "noGraph"
      << "module 'seq.0' (test.Opaque) is traced through but has no recorded graph";
  QTest::newRow("self recursion") << "recursion"
                                  << "recursive call of module 'seq': root -> 'seq' -> 'seq'";
  QTest::newRow("nested recursion")
      << "nestedRecursion"
      << "recursive call of module 'seq.0': root -> 'seq' -> 'seq.0' -> 'seq.0'";
  QTest::newRow("no output node") << "noOutput"
                                  << "module 'seq' graph has no output node";
  QTest::newRow("placeholder not a parameter")
      << "strayPlaceholder"
      << "module 'seq' graph placeholder 'extra' does not match a forward parameter";
}

void TestTracer::errors() {
  QFETCH(QString, scenario);
  QFETCH(QString, message);
  Model model = scenario == QLatin1String("empty") ? Model() : sequentialModel();
  auto seqGraph = [&] { return model.module("seq")->graph; };
  if (scenario == QLatin1String("rootNoGraph")) {
    model.modules().front().graph.reset();
  } else if (scenario == QLatin1String("missingRoot")) {
    model.module("")->graph = chainGraph("x", {"nope"});
  } else if (scenario == QLatin1String("missingNested")) {
    model.module("seq")->graph = chainGraph("input", {"0", "2"});
  } else if (scenario == QLatin1String("noGraph")) {
    model.module("seq.0")->type = "test.Opaque";
  } else if (scenario == QLatin1String("recursion")) {
    model.module("seq")->graph = chainGraph("input", {"0", ""});
  } else if (scenario == QLatin1String("nestedRecursion")) {
    ModuleInfo* inner = model.module("seq.0");
    inner->type = "test.Inner";
    inner->signature = {param("x")};
    inner->graph = chainGraph("x", {""});
  } else if (scenario == QLatin1String("noOutput")) {
    auto g = std::make_shared<fx::Graph>();
    g->placeholder("input");
    model.module("seq")->graph = g;
  } else if (scenario == QLatin1String("strayPlaceholder")) {
    auto g = seqGraph();
    fx::Graph::InsertGuard guard(*g, g->findNode("_0"));
    g->placeholder("extra", Value::none());
  }
  Tracer tracer;
  auto traced = tracer.trace(model);
  QVERIFY(!traced);
  QCOMPARE(QString::fromStdString(traced.message()), message);
}

QTEST_APPLESS_MAIN(TestTracer)
#include "tst_tracer.moc"
