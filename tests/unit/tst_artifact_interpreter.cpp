// LatticeArtifactInterpreter (lowering.md §2.2–§2.6): stepping a conformance model node by node
// with provenance checked against the reference's graph.mlir, the node handlers' behaviours and
// messages, Python getitem, get_attr values, and FX's "While executing" wrapping.

#include "LoweringTestModels.h"

#include "lowering/LatticeArtifactInterpreter.h"
#include "lowering/Lowering.h"
#include "model/Archive.h"
#include "trace/Tracer.h"

#include <QtTest/QtTest>

#include <map>
#include <set>
#include <sstream>

using namespace lattice;
using namespace lattice::testmodels;

namespace {

std::string conformanceDir(const std::string& name) {
  return std::string(LATTICE_TEST_DATA_DIR) + "/conformance/models/" + name;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string trimmed(const std::string& s) {
  const std::size_t b = s.find_first_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b);
}

const fx::Node* nodeNamed(const fx::Graph& g, const std::string& name) { return g.findNode(name); }

TorchLatticeArtifactBuilder defaultBuilder(std::optional<int64_t> batch = std::nullopt) {
  ArtifactBuilderOptions o;
  o.batchSize = batch;
  Expected<TorchLatticeArtifactBuilder> b = TorchLatticeArtifactBuilder::create(o);
  if (!b) qFatal("builder: %s", b.message().c_str());
  return std::move(*b);
}

/// A root with one conv child "conv" (2→3, k1) and the graph built by `build`.
Model convModel(const std::function<void(fx::Graph&)>& build, std::vector<SignatureParam> signature = positional({"x"})) {
  Model m = customModel(std::move(signature));
  addConv(m, "conv", "Conv3d", ConvSpec{});
  auto g = std::make_shared<fx::Graph>();
  build(*g);
  setRootGraph(m, g);
  return m;
}

fx::Value ref(fx::Node* n) { return fx::Value::node(n); }

} // namespace

class TestArtifactInterpreter : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void stepsConformanceModelWithProvenance();
  void envHoldsSymbolicValues();
  void runUntilStopsBeforeNode();
  void lowersTheGraphItIsGiven();
  void callMethodIsRefusedAndWrapped();
  void unsupportedFunctionNamesTarget();
  void unsupportedModuleIsWrapped();
  void getItemIndexesRealContainers();
  void getItemOnArtifactValueIsRefused();
  void pythonGetItemFollowsPython_data();
  void pythonGetItemFollowsPython();
  void getAttrYieldsOpaqueTensor();
  void placeholderDefaultIsDropped();
  void missingInputIsTorchsError();
  void keywordNamesAreIgnoredForModules();
};

void TestArtifactInterpreter::stepsConformanceModelWithProvenance() {
  Expected<Model> model = readArchive(conformanceDir("sparse_classifier") + "/model.ltfx");
  QVERIFY2(model.ok(), model.ok() ? "" : model.message().c_str());
  Expected<PreparedLowering> p = prepareLowering(*model, ExportOptions{});
  QVERIFY2(p.ok(), p.ok() ? "" : p.message().c_str());
  QVERIFY(!p->direct());
  LatticeArtifactInterpreter& interp = *p->interpreter;
  TorchLatticeArtifactBuilder& builder = *p->builder;

  // Which FX node owns which line of the reference artifact (read off the expected graph.mlir:
  // each module's ops carry its path as their name stem).
  const std::map<std::string, std::vector<std::string>> owned = {
      {"x", {"%x_coords:", "%x_features:", "%x_active:", "%x = lattice.sparse.make"}},
      {"stem", {"%stem_weight = ", "%stem_bias = ", "%stem = lattice.conv3d"}},
      {"norm", {"%sparse_decompose, %norm_features_in, %norm_active = ", "%norm_weight = ", "%norm_bias = ",
                "%norm_running_mean = ", "%norm_running_var = ", "%norm_features = lattice.batch_norm",
                "%norm = lattice.sparse.with_features"}},
      {"act", {"%sparse_decompose1, %act_features_in, %act_active = ", "%act_features = lattice.activation",
               "%act = lattice.sparse.with_features"}},
      {"pool", {"%pool = lattice.pool3d"}},
      {"global_pool", {"%global_pool = lattice.global_pool"}},
      {"head", {"%head_weight = ", "%head_bias = ", "%head = lattice.linear"}},
      {"output", {}},
  };
  const std::vector<std::string> order = {"x", "stem", "norm", "act", "pool", "global_pool", "head", "output"};

  // Before any step the symbolic inputs already exist, owned by their placeholder.
  QVERIFY(interp.currentNode());
  QCOMPARE(interp.currentNode()->name(), std::string("x"));
  QCOMPARE(builder.provenanceOf("x").size(), std::size_t(4));
  QCOMPARE(builder.provenanceOf("stem").size(), std::size_t(0));

  std::size_t stepped = 0;
  for (const std::string& name : order) {
    QVERIFY(interp.currentNode());
    QCOMPARE(interp.currentNode()->name(), name);
    const std::size_t before = builder.provenance().size();
    Expected<bool> ran = interp.step();
    QVERIFY2(ran.ok(), ran.ok() ? "" : ran.message().c_str());
    QVERIFY(*ran);
    ++stepped;
    // Everything emitted by this step is owned by this node, and nothing by a later one.
    for (std::size_t i = before; i < builder.provenance().size(); ++i)
      QCOMPARE(builder.ownerOf(builder.provenance()[i]), name);
    if (name != "x") QCOMPARE(builder.provenanceOf(name).size(), owned.at(name).size());
  }
  QVERIFY(interp.finished());
  QCOMPARE(stepped, order.size());
  Expected<bool> again = interp.step();
  QVERIFY(again.ok() && !*again);

  Status done = finishLowering(*p);
  QVERIFY2(done.ok(), done.ok() ? "" : done.message().c_str());
  Expected<std::string> text = builder.toMlir();
  QVERIFY(text.ok());
  const std::vector<std::string> actual = lines(*text);
  const std::vector<std::string> expected = lines(readText(conformanceDir("sparse_classifier") + "/expected.lattice/graph.mlir"));
  QCOMPARE(actual.size(), expected.size());

  // Every record's line, found through lineOf, is the reference line its owner should own.
  for (const auto& [owner, prefixes] : owned) {
    const std::vector<const OpProvenance*> records = builder.provenanceOf(owner);
    QCOMPARE(records.size(), prefixes.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      const std::size_t line = builder.lineOf(*records[i]);
      QVERIFY(line >= 1 && line <= expected.size());
      const std::string& ref = trimmed(expected[line - 1]);
      QVERIFY2(ref.rfind(prefixes[i], 0) == 0, (owner + ": line " + std::to_string(line) + " is '" + ref +
                                                "', expected it to start with '" + prefixes[i] + "'").c_str());
    }
  }
  // Weight keys map back to the node that stored them.
  for (const auto& [key, owner] : std::map<std::string, std::string>{{"stem.weight", "stem"},
                                                                     {"stem.bias", "stem"},
                                                                     {"norm.running_var", "norm"},
                                                                     {"head.weight", "head"}}) {
    const std::string* o = builder.weightOwner(key);
    QVERIFY2(o, key.c_str());
    QCOMPARE(*o, owner);
  }
  QCOMPARE(builder.weightKeysOf(*builder.provenanceOf("stem")[0]), std::vector<std::string>{"stem.weight"});
}

void TestArtifactInterpreter::envHoldsSymbolicValues() {
  Expected<Model> model = readArchive(conformanceDir("sparse_classifier") + "/model.ltfx");
  QVERIFY(model.ok());
  Expected<PreparedLowering> p = prepareLowering(*model, ExportOptions{});
  QVERIFY(p.ok());
  LatticeArtifactInterpreter& interp = *p->interpreter;
  QVERIFY(interp.runToEnd().ok());
  auto valueNamed = [&](const std::string& name) {
    const fx::Value* v = interp.valueOf(nodeNamed(*p->graph, name));
    return v ? artifactValueOf(*v) : nullptr;
  };
  // Kinds and channels as the reference model declares them (stem: Conv3d 3→4; head: Linear 4→2).
  ArtifactValuePtr stem = valueNamed("stem"), pooled = valueNamed("global_pool"), head = valueNamed("head");
  QVERIFY(stem && pooled && head);
  QCOMPARE(stem->name(), std::string("stem"));
  QVERIFY(stem->isSparse());
  QCOMPARE(stem->channels(), std::optional<int64_t>(4));
  QVERIFY(pooled->isDense());
  QCOMPARE(pooled->channels(), std::optional<int64_t>(4));
  QCOMPARE(head->channels(), std::optional<int64_t>(2));
  QCOMPARE(head->type(), std::string("tensor<?x2xf32>"));
  // The output node's value is the head value itself.
  QCOMPARE(artifactValueOf(interp.result()), head);
}

void TestArtifactInterpreter::runUntilStopsBeforeNode() {
  Expected<Model> model = readArchive(conformanceDir("sparse_classifier") + "/model.ltfx");
  QVERIFY(model.ok());
  Expected<PreparedLowering> p = prepareLowering(*model, ExportOptions{});
  QVERIFY(p.ok());
  const fx::Node* pool = nodeNamed(*p->graph, "pool");
  QVERIFY(p->interpreter->runUntil(pool).ok());
  QCOMPARE(p->interpreter->currentNode(), pool);
  QVERIFY(p->interpreter->valueOf(nodeNamed(*p->graph, "act")));
  QVERIFY(!p->interpreter->valueOf(pool));
  QCOMPARE(p->builder->provenanceOf("pool").size(), std::size_t(0));
  // finishLowering continues from where the studio left it.
  QVERIFY(finishLowering(*p).ok());
  QCOMPARE(p->builder->provenanceOf("pool").size(), std::size_t(1));
}

void TestArtifactInterpreter::lowersTheGraphItIsGiven() {
  // A graph the caller traced is borrowed, not traced again: the interpreter runs its nodes, and
  // the artifact is the one a lowering that traces for itself writes.
  Expected<Model> model = readArchive(conformanceDir("sparse_classifier") + "/model.ltfx");
  QVERIFY(model.ok());
  Expected<std::unique_ptr<fx::Graph>> graph = LatticeTracer().trace(*model);
  QVERIFY(graph.ok());
  Expected<PreparedLowering> given = prepareLowering(*model, ExportOptions{}, graph->get());
  QVERIFY2(given.ok(), given.ok() ? "" : given.message().c_str());
  QCOMPARE(given->graph, static_cast<const fx::Graph*>(graph->get()));
  QVERIFY(!given->ownedGraph);
  QCOMPARE(given->interpreter->currentNode(), (*graph)->findNode("x"));
  QVERIFY(given->interpreter->runUntil((*graph)->findNode("pool")).ok());
  QVERIFY(given->interpreter->valueOf((*graph)->findNode("act")));
  QVERIFY(finishLowering(*given).ok());

  Expected<PreparedLowering> own = prepareLowering(*model, ExportOptions{});
  QVERIFY(own.ok());
  QVERIFY(own->ownedGraph);
  QCOMPARE(own->graph, static_cast<const fx::Graph*>(own->ownedGraph.get()));
  QVERIFY(finishLowering(*own).ok());
  QCOMPARE(given->builder->toMlir().value(), own->builder->toMlir().value());
  QCOMPARE(given->builder->weights().size(), own->builder->weights().size());

  // A root with a lowering of its own is lowered directly; a given graph is not used.
  Model conv = rootModel([](Model& m) { addConv(m, "", "Conv3d", ConvSpec{}); });
  ExportOptions o;
  o.inputs = std::vector<InputSpec>{sparseInput("x", 2)};
  Expected<PreparedLowering> direct = prepareLowering(conv, o, graph->get());
  QVERIFY2(direct.ok(), direct.ok() ? "" : direct.message().c_str());
  QVERIFY(direct->direct());
  QVERIFY(!direct->interpreter);
}

void TestArtifactInterpreter::callMethodIsRefusedAndWrapped() {
  Model m = convModel([](fx::Graph& g) {
    fx::Node* x = g.placeholder("x");
    fx::Node* r = g.callMethod("relu", {ref(x)});
    g.output(ref(r));
  });
  TorchLatticeArtifactBuilder b = defaultBuilder();
  Status s = lowerFxArtifact(b, m);
  QVERIFY(!s.ok());
  // §2.2 message, then FX's trailer with the node's format (§2.6).
  QCOMPARE(s.message(), std::string("unsupported FX method for lattice artifact: relu\n\nWhile executing "
                                    "%relu : [num_users=1] = call_method[target=relu](args = (%x,), kwargs = {})"));

  // The stepping view: the interpreter stays on the failed node.
  auto graph = m.root().graph;
  TorchLatticeArtifactBuilder b2 = defaultBuilder();
  LatticeArtifactInterpreter interp(m, *graph, b2);
  interp.start({toFxValue(*b2.current())});
  QVERIFY(interp.step().ok());
  Expected<bool> failed = interp.step();
  QVERIFY(!failed.ok());
  QVERIFY(interp.failedNode());
  QCOMPARE(interp.failedNode()->name(), std::string("relu"));
  Expected<bool> again = interp.step();
  QVERIFY(!again.ok());
  QCOMPARE(again.message(), failed.message());
}

void TestArtifactInterpreter::unsupportedFunctionNamesTarget() {
  for (const char* target : {"torch.relu", "torch_lattice.operators.sparse_cat", "builtins.getattr"}) {
    Model m = convModel([&](fx::Graph& g) {
      fx::Node* x = g.placeholder("x");
      fx::Node* r = g.callFunction(target, {ref(x)});
      g.output(ref(r));
    });
    TorchLatticeArtifactBuilder b = defaultBuilder();
    Status s = lowerFxArtifact(b, m);
    QVERIFY(!s.ok());
    const std::string first = s.message().substr(0, s.message().find('\n'));
    QCOMPARE(first, "unsupported FX function for lattice artifact: " + std::string(target));
    QVERIFY(s.message().find("\n\nWhile executing %") != std::string::npos);
  }
}

void TestArtifactInterpreter::unsupportedModuleIsWrapped() {
  // torch.nn.Conv3d is a torch.nn leaf without a lattice lowering (§1.1 consequence).
  Model m = customModel(positional({"x"}));
  attach(m, "dense", record("torch.nn.modules.conv.Conv3d", {"torch.nn.modules.conv._ConvNd"}));
  auto g = std::make_shared<fx::Graph>();
  fx::Node* x = g->placeholder("x");
  g->output(ref(g->callModule("dense", {ref(x)})));
  setRootGraph(m, g);
  TorchLatticeArtifactBuilder b = defaultBuilder();
  Status s = lowerFxArtifact(b, m);
  QVERIFY(!s.ok());
  QVERIFY2(s.message().rfind("unsupported module for lattice artifact: Conv3d\n\nWhile executing %dense", 0) == 0,
           s.message().c_str());
}

void TestArtifactInterpreter::getItemIndexesRealContainers() {
  // forward(pair): conv(pair[1]); the input is a real tuple of two symbolic values.
  Model m = convModel([](fx::Graph& g) {
    fx::Node* pair = g.placeholder("pair");
    fx::Node* second = g.callFunction("operator.getitem", {ref(pair), fx::Value::integer(-1)});
    g.output(ref(g.callModule("conv", {ref(second)})));
  });
  TorchLatticeArtifactBuilder b = defaultBuilder();
  Expected<ArtifactValuePtr> other = b.sparseArgument("other", std::nullopt, 2);
  QVERIFY(other.ok());
  auto graph = m.root().graph;
  LatticeArtifactInterpreter interp(m, *graph, b);
  Expected<fx::Value> result = interp.run({fx::Value::tuple({toFxValue(*b.current()), toFxValue(*other)})});
  QVERIFY2(result.ok(), result.ok() ? "" : result.message().c_str());
  Expected<std::string> text = b.toMlir();
  QVERIFY(text.ok());
  QVERIFY2(text->find("%conv = lattice.conv3d %other, %conv_weight") != std::string::npos, text->c_str());
}

void TestArtifactInterpreter::getItemOnArtifactValueIsRefused() {
  Model m = convModel([](fx::Graph& g) {
    fx::Node* x = g.placeholder("x");
    fx::Node* item = g.callFunction("operator.getitem", {ref(x), fx::Value::integer(0)});
    g.output(ref(item));
  });
  TorchLatticeArtifactBuilder b = defaultBuilder();
  Status s = lowerFxArtifact(b, m);
  QVERIFY(!s.ok());
  QVERIFY2(s.message().rfind("'ArtifactValue' object is not subscriptable\n\nWhile executing %getitem", 0) == 0,
           s.message().c_str());
}

void TestArtifactInterpreter::pythonGetItemFollowsPython_data() {
  QTest::addColumn<int>("which");
  QTest::addColumn<QString>("expected"); // the result's repr, or "error: <message>"
  QTest::newRow("tuple index") << 0 << QStringLiteral("2");
  QTest::newRow("negative index") << 1 << QStringLiteral("3");
  QTest::newRow("out of range") << 2 << QStringLiteral("error: tuple index out of range");
  QTest::newRow("list out of range") << 3 << QStringLiteral("error: list index out of range");
  QTest::newRow("slice") << 4 << QStringLiteral("(2, 3)");
  QTest::newRow("reverse slice") << 5 << QStringLiteral("[3, 2, 1]");
  QTest::newRow("str index") << 6 << QStringLiteral("error: tuple indices must be integers or slices, not str");
  QTest::newRow("dict key") << 7 << QStringLiteral("'v'");
  QTest::newRow("missing key") << 8 << QStringLiteral("error: 'nope'");
  QTest::newRow("int") << 9 << QStringLiteral("error: 'int' object is not subscriptable");
  QTest::newRow("none") << 10 << QStringLiteral("error: 'NoneType' object is not subscriptable");
  QTest::newRow("bool index") << 11 << QStringLiteral("2");
}

void TestArtifactInterpreter::pythonGetItemFollowsPython() {
  QFETCH(int, which);
  QFETCH(QString, expected);
  using V = fx::Value;
  const V tup = V::tuple({V::integer(1), V::integer(2), V::integer(3)});
  const V lst = V::list({V::integer(1), V::integer(2), V::integer(3)});
  const V dict = V::dict({{"k", V::string("v")}});
  const std::vector<std::pair<V, V>> cases = {
      {tup, V::integer(1)},
      {tup, V::integer(-1)},
      {tup, V::integer(3)},
      {lst, V::integer(-4)},
      {tup, V::slice(V::integer(1), V(), V())},
      {lst, V::slice(V(), V(), V::integer(-1))},
      {tup, V::string("a")},
      {dict, V::string("k")},
      {dict, V::string("nope")},
      {V::integer(3), V::integer(0)},
      {V(), V::integer(0)},
      {tup, V::boolean(true)},
  };
  std::string got;
  try {
    got = fx::pythonRepr(pythonGetItem(cases[which].first, cases[which].second), false);
  } catch (const Exception& e) {
    got = "error: " + e.message;
  }
  QCOMPARE(QString::fromStdString(got), expected);
}

void TestArtifactInterpreter::getAttrYieldsOpaqueTensor() {
  Model m = convModel([](fx::Graph& g) {
    g.placeholder("x");
    fx::Node* w = g.getAttr("conv.weight");
    g.output(ref(w));
  });
  auto graph = m.root().graph;
  TorchLatticeArtifactBuilder b = defaultBuilder();
  LatticeArtifactInterpreter interp(m, *graph, b);
  Expected<fx::Value> out = interp.run({toFxValue(*b.current())});
  QVERIFY(out.ok());
  QCOMPARE(out->kind(), fx::Value::Kind::Object);
  auto attr = std::dynamic_pointer_cast<const AttributeObject>(out->asObject());
  QVERIFY(attr);
  QCOMPARE(attr->typeName(), std::string("Parameter"));
  QVERIFY(attr->tensor());
  QCOMPARE(attr->tensor()->shape(), (std::vector<int64_t>{1, 2, 3}));
  // As an output it is refused by §2.4, after the interpretation (no FX trailer).
  TorchLatticeArtifactBuilder b2 = defaultBuilder();
  Status s = lowerFxArtifact(b2, m);
  QVERIFY(!s.ok());
  QCOMPARE(s.message(), std::string("lattice artifact outputs must all be tensors; unsupported: Parameter"));

  // A missing attribute is torch's fetch_attr error.
  Model bad = convModel([](fx::Graph& g) {
    g.placeholder("x");
    g.output(ref(g.getAttr("conv.nothing")));
  });
  TorchLatticeArtifactBuilder b3 = defaultBuilder();
  Status s3 = lowerFxArtifact(b3, bad);
  QVERIFY(!s3.ok());
  QVERIFY2(s3.message().rfind("Node referenced nonexistent target conv.nothing\n\n", 0) == 0, s3.message().c_str());
}

void TestArtifactInterpreter::placeholderDefaultIsDropped() {
  // forward(x, target=None) run with one input: the None default is dropped by §2.3, so the
  // conv sees arity 1 and emits plain conv3d (verified behaviour in §2.2).
  std::vector<SignatureParam> sig = positional({"x", "target"});
  sig[1].defaultValue = fx::Value::none();
  Model m = convModel(
      [](fx::Graph& g) {
        fx::Node* x = g.placeholder("x");
        fx::Node* t = g.placeholder("target", fx::Value::none());
        g.output(ref(g.callModule("conv", {ref(x)}, {{"coordinates", ref(t)}})));
      },
      sig);
  TorchLatticeArtifactBuilder b = defaultBuilder();
  Status s = lowerFxArtifact(b, m);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  const std::string text = *b.toMlir();
  QVERIFY(text.find("= lattice.conv3d %input, %conv_weight") != std::string::npos);
  QVERIFY(text.find("target_conv3d") == std::string::npos);
}

void TestArtifactInterpreter::missingInputIsTorchsError() {
  Model m = convModel([](fx::Graph& g) {
    fx::Node* x = g.placeholder("x");
    fx::Node* y = g.placeholder("y");
    g.output(fx::Value::tuple({ref(g.callModule("conv", {ref(x)})), ref(y)}));
  });
  TorchLatticeArtifactBuilder b = defaultBuilder();
  Status s = lowerFxArtifact(b, m);
  QVERIFY(!s.ok());
  QVERIFY2(s.message().rfind("Expected positional argument for parameter y, but one was not passed in!", 0) == 0,
           s.message().c_str());
}

void TestArtifactInterpreter::keywordNamesAreIgnoredForModules() {
  // §2.3: self.conv(coordinates=t, input=x) passes (t, x): t is the conv input, x the target.
  Model m = convModel(
      [](fx::Graph& g) {
        fx::Node* x = g.placeholder("x");
        fx::Node* t = g.placeholder("t");
        g.output(ref(g.callModule("conv", {}, {{"coordinates", ref(t)}, {"input", ref(x)}})));
      },
      positional({"x", "t"}));
  TorchLatticeArtifactBuilder b = defaultBuilder();
  Expected<ArtifactValuePtr> t = b.sparseArgument("t", std::nullopt, 1);
  QVERIFY(t.ok());
  Status s = lowerFxArtifact(b, m, {*b.current(), *t});
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  const std::string text = *b.toMlir();
  QVERIFY2(text.find("%conv = lattice.target_conv3d %t, %input, %conv_weight") != std::string::npos, text.c_str());
}

QTEST_APPLESS_MAIN(TestArtifactInterpreter)
#include "tst_artifact_interpreter.moc"
