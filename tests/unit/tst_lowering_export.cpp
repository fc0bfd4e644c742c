// saveLatticeModelArtifact's ABI and option resolution (lowering.md §6.1, §6.2, fx-archive.md
// "Input specs and lowering hints"), lowerFxArtifact's errors and naming (§2.1, §2.4, §2.5), the
// built-in backbones (§8.2, §8.3, with the reference's observed counts and names), int4 export,
// and linear lowering time on a long chain.

#include "LoweringTestModels.h"

#include "lowering/Lowering.h"
#include "model/Examples.h"
#include "model/LoadModel.h"
#include "tensor/Safetensors.h"

#include <QtCore/QDir>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>


using namespace lattice;
using namespace lattice::testmodels;

namespace {

fx::Value ref(fx::Node* n) { return fx::Value::node(n); }

#define VERIFY_OK(s) QVERIFY2((s).ok(), (s).ok() ? "" : (s).message().c_str())
#define VERIFY_HAS(text, needle) QVERIFY2((text).find(needle) != std::string::npos, (std::string("missing: ") + (needle)).c_str())

/// Lowers in memory (no save); the builder's text, or the error.
Expected<std::string> lowerText(const Model& m, const ExportOptions& o, PreparedLowering* keep = nullptr) {
  Expected<PreparedLowering> p = prepareLowering(m, o);
  if (!p) return p.error();
  Status s = finishLowering(*p);
  if (!s) return s.error();
  Expected<std::string> text = p->builder->toMlir();
  if (keep) *keep = std::move(*p);
  return text;
}

std::string errorOf(const Model& m, const ExportOptions& o) {
  Expected<std::string> t = lowerText(m, o);
  return t ? std::string("<no error>") : t.message();
}

ExportOptions withInputs(std::vector<InputSpec> inputs, std::optional<int64_t> batch = 1) {
  ExportOptions o;
  o.inputs = std::move(inputs);
  o.batchSize = batch;
  return o;
}

/// forward(x): conv (Conv3d 2→3, k1) → pool (GlobalAvgPool).
Model convPool() {
  Model m = customModel(positional({"x"}));
  addConv(m, "conv", "Conv3d", ConvSpec{});
  addGlobalPool(m, "pool", "GlobalAvgPool");
  finishSequential(m);
  return m;
}

int64_t totalElements(const TorchLatticeArtifactBuilder& b) {
  int64_t n = 0;
  for (const NamedTensor& t : b.weights()) n += t.tensor.numel();
  return n;
}

} // namespace

class TestLoweringExport : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void resolutionErrors_data();
  void resolutionErrors();
  void inputNamesComeFromSignature();
  void keywordOnlyAndVarKeywordAreIgnored();
  void inputDtypeFollowsSparseInputs();
  void denseInputAbi();
  void archiveHintsAreDefaults();
  void outputErrors();
  void noCurrentValue();
  void directPathErrorsAreNotWrapped();
  void reusedModules();
  void failedExportWritesNothing();
  void resnet21d();
  void resunet42();
  void resunet42Int4();
};

void TestLoweringExport::resolutionErrors_data() {
  QTest::addColumn<int>("which");
  QTest::addColumn<QString>("message");
  QTest::newRow("no inputs") << 0 << QStringLiteral("example_inputs must be a non-empty tuple");
  QTest::newRow("empty inputs") << 1 << QStringLiteral("example_inputs must be a non-empty tuple");
  QTest::newRow("variadic") << 2 << QStringLiteral("variadic model inputs are not exportable");
  QTest::newRow("too many") << 3 << QStringLiteral("model forward accepts 1..2 positional inputs, got 3");
  QTest::newRow("too few") << 4 << QStringLiteral("model forward accepts 2..2 positional inputs, got 1");
  QTest::newRow("mixed dtypes") << 5 << QStringLiteral("all sparse inputs must use one feature dtype");
  QTest::newRow("integer features") << 6 << QStringLiteral("input_dtype must be 'f16' or 'f32'.");
  QTest::newRow("f64 features") << 7 << QStringLiteral("unsupported artifact tensor dtype: f64");
  QTest::newRow("bits") << 8 << QStringLiteral("quantize_bits must be None, 4, or 8.");
  QTest::newRow("batch") << 9 << QStringLiteral("batch_size must be non-negative or None.");
  QTest::newRow("group") << 10 << QStringLiteral("quantize_group_size must be positive.");
  QTest::newRow("scale") << 11 << QStringLiteral("quantize_scale_dtype must be 'f16' or 'f32'.");
  QTest::newRow("training root") << 12
                                 << QStringLiteral("artifact export requires eval mode via model.eval() so "
                                                   "normalization and dropout semantics are deterministic");
  QTest::newRow("dense without type") << 13
                                      << QStringLiteral("unsupported artifact input 'x': dense input without a tensor type");
}

void TestLoweringExport::resolutionErrors() {
  QFETCH(int, which);
  QFETCH(QString, message);
  Model m = convPool();
  ExportOptions o = withInputs({sparseInput("x", 2)});
  o.batchSize = 1;
  switch (which) {
  case 0: o.inputs.reset(); break; // the model has no example_inputs either
  case 1: o.inputs = std::vector<InputSpec>{}; break;
  case 2: m.module("")->signature.push_back({"rest", ParamKind::VarPositional, std::nullopt}); break;
  case 3: {
    ConvSpec s;
    m = rootModel([&](Model& model) { addConv(model, "", "Conv3d", s); }); // forward(input, coordinates=None)
    o.inputs = std::vector<InputSpec>{sparseInput("a", 2), sparseInput("b", 2), sparseInput("c", 2)};
    break;
  }
  case 4: m.module("")->signature = positional({"x", "y"}); break;
  case 5:
    m.module("")->signature = positional({"x", "y"});
    o.inputs = std::vector<InputSpec>{sparseInput("x", 2, "f16"), sparseInput("y", 2, "f32")};
    break;
  case 6: o.inputs = std::vector<InputSpec>{sparseInput("x", 2, "i32")}; break;
  case 7: o.inputs = std::vector<InputSpec>{sparseInput("x", 2, "f64")}; break;
  case 8: o.quantizeBits = 3; break;
  case 9: o.batchSize = -1; break;
  case 10: o.groupSize = 0; break;
  case 11: o.scaleDtype = "bf16"; break;
  case 12: m.module("")->training = true; break;
  case 13: {
    InputSpec dense;
    dense.name = "x";
    dense.kind = InputSpec::Kind::Dense;
    o.inputs = std::vector<InputSpec>{dense};
    break;
  }
  }
  QCOMPARE(QString::fromStdString(errorOf(m, o)), message);
  // The missing inputs and a count the forward does not take carry their own codes: the CLI and
  // the studio add their hints on them.
  const Expected<std::string> text = lowerText(m, o);
  QVERIFY(!text);
  const ErrorCode expected = which <= 1 ? ErrorCode::NoInputs
                             : which == 3 || which == 4 ? ErrorCode::InputCount
                                                        : ErrorCode::Failed;
  QVERIFY(text.code() == expected);
}

void TestLoweringExport::inputNamesComeFromSignature() {
  // The spec's own name is informative; the ABI names are the forward parameters' (§6.1 step 4).
  Expected<std::string> text = lowerText(convPool(), withInputs({sparseInput("features of x", 2)}));
  VERIFY_OK(text);
  VERIFY_HAS(*text, "lattice.input_names = [\"x_coords\", \"x_features\", \"x_active\"]");
  VERIFY_HAS(*text, "%x_features: tensor<?x2xf32>");
  VERIFY_HAS(*text, "%x = lattice.sparse.make %x_coords, %x_features, %x_active");
}

void TestLoweringExport::keywordOnlyAndVarKeywordAreIgnored() {
  Model m = convPool();
  m.module("")->signature.push_back({"scale", ParamKind::KeywordOnly, fx::Value::floating(1.0)});
  m.module("")->signature.push_back({"extra", ParamKind::VarKeyword, std::nullopt});
  Expected<std::string> text = lowerText(m, withInputs({sparseInput("x", 2)}));
  VERIFY_OK(text);
  // A second input is still refused: only `x` is positional.
  m.module("")->signature.insert(m.module("")->signature.begin() + 1,
                                 {"target", ParamKind::PositionalOrKeyword, fx::Value::none()});
  QCOMPARE(errorOf(m, withInputs({sparseInput("x", 2), sparseInput("t", 1), sparseInput("u", 1)})),
           std::string("model forward accepts 1..2 positional inputs, got 3"));
}

void TestLoweringExport::inputDtypeFollowsSparseInputs() {
  // No explicit dtype: the sparse inputs' dtype (f16) becomes the builder's input dtype, which
  // types the decompose features (§3.2) and the global pool's result.
  Model m = customModel(positional({"x"}));
  addActivation(m, "act", "ReLU", {{"inplace", fx::Value::boolean(false)}});
  finishSequential(m);
  Expected<std::string> text = lowerText(m, withInputs({sparseInput("x", 2, "f16")}));
  VERIFY_OK(text);
  VERIFY_HAS(*text, "%x_features: tensor<?x2xf16>");
  VERIFY_HAS(*text, "-> (tensor<?x4xi32>, tensor<?x2xf16>, tensor<1xi32>)");
  VERIFY_HAS(*text, "dtype = f16>");
  // An explicit dtype wins over the inputs'.
  ExportOptions o = withInputs({sparseInput("x", 2, "f16")});
  o.inputDtype = "f32";
  Expected<std::string> explicitText = lowerText(m, o);
  VERIFY_OK(explicitText);
  VERIFY_HAS(*explicitText, "%x_features: tensor<?x2xf16>"); // the argument keeps its own dtype
  VERIFY_HAS(*explicitText, "-> (tensor<?x4xi32>, tensor<?x2xf32>, tensor<1xi32>)");
}

void TestLoweringExport::denseInputAbi() {
  // forward(points, features, batch_indices, active_rows): voxelize then devoxelize (Appendix A).
  Model m = customModel(positional({"points", "features", "batch_indices", "active_rows"}));
  auto g = std::make_shared<fx::Graph>();
  fx::Node* p = g->placeholder("points");
  fx::Node* f = g->placeholder("features");
  fx::Node* b = g->placeholder("batch_indices");
  fx::Node* a = g->placeholder("active_rows");
  fx::Node* v = g->callFunction("torch_lattice.nn.functional.voxelize.voxelize", {ref(p), ref(f)},
                                {{"batch_indices", ref(b)}, {"active_rows", ref(a)}});
  g->output(ref(g->callFunction("torch_lattice.nn.functional.devoxelize.devoxelize", {ref(p), ref(v)},
                                {{"batch_indices", ref(b)}, {"point_active_rows", ref(a)}})));
  setRootGraph(m, g);
  Expected<std::string> text = lowerText(m, withInputs({denseInput("points", "tensor<?x3xf32>", std::nullopt),
                                                        denseInput("features", "tensor<?x2xf32>", 2),
                                                        denseInput("batch_indices", "tensor<?xi32>", std::nullopt),
                                                        denseInput("active_rows", "tensor<1xi32>", std::nullopt)}));
  VERIFY_OK(text);
  VERIFY_HAS(*text, "lattice.input_names = [\"points\", \"features\", \"batch_indices\", \"active_rows\"]");
  VERIFY_HAS(*text, "lattice.input_roles = [\"tensor\", \"tensor\", \"tensor\", \"tensor\"]");
  VERIFY_HAS(*text, "%voxelize = lattice.voxelize %points, %features, %batch_indices, %active_rows");
  VERIFY_HAS(*text, "return %devoxelize : tensor<?x2xf32>");
}

void TestLoweringExport::archiveHintsAreDefaults() {
  Model m = convPool();
  m.exampleInputs = {sparseInput("x", 2)};
  LoweringOptions hints;
  hints.batchSize = 3;
  hints.outputNames = std::vector<std::string>{"logits"};
  m.lowering = hints;
  Expected<std::string> text = lowerText(m, ExportOptions{});
  VERIFY_OK(text);
  VERIFY_HAS(*text, "batch_size = 3}");
  VERIFY_HAS(*text, "lattice.output_names = [\"logits\"]");
  ExportOptions o;
  o.batchSize = 5;
  o.outputNames = std::vector<std::string>{"pooled"};
  Expected<std::string> overridden = lowerText(m, o);
  VERIFY_OK(overridden);
  VERIFY_HAS(*overridden, "batch_size = 5}");
  VERIFY_HAS(*overridden, "lattice.output_names = [\"pooled\"]");
  // Without a batch size anywhere the global pool refuses (§3.3).
  m.lowering.reset();
  QVERIFY(errorOf(m, ExportOptions{}).rfind("global_pool artifact requires a static batch_size.", 0) == 0);
}

void TestLoweringExport::outputErrors() {
  auto withOutput = [](fx::Value (*make)(fx::Node*)) {
    Model m = customModel(positional({"x"}));
    auto g = std::make_shared<fx::Graph>();
    fx::Node* x = g->placeholder("x");
    g->output(make(x));
    setRootGraph(m, g);
    return m;
  };
  const ExportOptions o = withInputs({sparseInput("x", 2)});
  QCOMPARE(errorOf(withOutput([](fx::Node*) { return fx::Value::tuple({}); }), o),
           std::string("lattice artifact model produced no tensor outputs"));
  QCOMPARE(errorOf(withOutput([](fx::Node* x) {
                     return fx::Value::tuple({ref(x), fx::Value::integer(1), fx::Value::string("s"), fx::Value::integer(2)});
                   }),
                   o),
           std::string("lattice artifact outputs must all be tensors; unsupported: int, str"));
  QCOMPARE(errorOf(withOutput([](fx::Node* x) { return fx::Value::list({ref(x), fx::Value()}); }), o),
           std::string("lattice artifact outputs must all be tensors; unsupported: NoneType"));
  // Nested containers flatten depth first, dict values in insertion order (§2.4).
  Expected<std::string> nested = lowerText(
      withOutput([](fx::Node* x) {
        return fx::Value::dict({{"b", fx::Value::tuple({ref(x)})}, {"a", fx::Value::list({ref(x), ref(x)})}});
      }),
      o);
  VERIFY_OK(nested);
  VERIFY_HAS(*nested, "lattice.output_names = [\"output_0\", \"output_1\", \"output_2\"]");
  ExportOptions named = o;
  named.outputNames = std::vector<std::string>{"a", "b"};
  QCOMPARE(errorOf(withOutput([](fx::Node* x) { return ref(x); }), named),
           std::string("output names must match the number of artifact outputs"));
}

void TestLoweringExport::noCurrentValue() {
  ArtifactBuilderOptions o;
  o.createDefaultInput = false;
  Expected<TorchLatticeArtifactBuilder> b = TorchLatticeArtifactBuilder::create(o);
  VERIFY_OK(b);
  Status s = lowerFxArtifact(*b, convPool());
  QVERIFY(!s.ok());
  QCOMPARE(s.message(), std::string("builder has no current value; pass explicit inputs or create a default sparse input."));
}

void TestLoweringExport::directPathErrorsAreNotWrapped() {
  ConvSpec s;
  s.kernel = {3, 3, 3};
  Model m = rootModel([&](Model& model) { addConv(model, "", "SubmConv3d", s); });
  // forward(input, coordinates=None) accepts two inputs, but SubmConv3d lowers one (§3.3, B.5).
  Expected<std::string> text = lowerText(m, withInputs({sparseInput("x", 2), sparseInput("t", 1)}));
  QVERIFY(!text.ok());
  QCOMPARE(text.message(), std::string("SubmConv3d artifact expects 1 symbolic lattice values."));
}

void TestLoweringExport::reusedModules() {
  // A ReLU called twice: names made unique by the writer's counter (§2.5).
  Model relu = customModel(positional({"x"}));
  addActivation(relu, "relu", "ReLU", {{"inplace", fx::Value::boolean(false)}});
  auto g = std::make_shared<fx::Graph>();
  fx::Node* x = g->placeholder("x");
  fx::Node* once = g->callModule("relu", {ref(x)});
  g->output(ref(g->callModule("relu", {ref(once)})));
  setRootGraph(relu, g);
  Expected<std::string> text = lowerText(relu, withInputs({sparseInput("x", 2)}));
  VERIFY_OK(text);
  VERIFY_HAS(*text, "%relu = lattice.sparse.with_features %x, %relu_features ");
  VERIFY_HAS(*text, "%relu1 = lattice.sparse.with_features %relu, %relu_features1 ");
  // A parameterised module called twice repeats its weight key; the error names the second node.
  Model conv = customModel(positional({"x"}));
  addConv(conv, "conv", "Conv3d", ConvSpec{});
  auto h = std::make_shared<fx::Graph>();
  fx::Node* y = h->placeholder("x");
  fx::Node* first = h->callModule("conv", {ref(y)});
  h->output(ref(h->callModule("conv", {ref(first)})));
  setRootGraph(conv, h);
  const std::string error = errorOf(conv, withInputs({sparseInput("x", 2)}));
  QVERIFY2(error.rfind("duplicate exported weight key: conv.weight\n\nWhile executing %conv_1 ", 0) == 0, error.c_str());
}

void TestLoweringExport::failedExportWritesNothing() {
  Model m = convPool(); // no batch size: the global pool fails during lowering
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/never.lattice";
  Status s = saveLatticeModelArtifact(m, dir, withInputs({sparseInput("x", 2)}, std::nullopt));
  QVERIFY(!s.ok());
  QVERIFY(!QDir(QString::fromStdString(dir)).exists());
  QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).size(), 0);
}

void TestLoweringExport::resnet21d() {
  Expected<Model> m = loadModel("example:sparse_resnet21d");
  VERIFY_OK(m);
  PreparedLowering p;
  Expected<std::string> text = lowerText(*m, ExportOptions{}, &p);
  VERIFY_OK(text);
  // §8.2: 105 weight entries with 2,696,576 elements, 8 adds all named from `add`, 5 outputs.
  QCOMPARE(p.builder->weights().size(), std::size_t(105));
  QCOMPARE(totalElements(*p.builder), int64_t(2696576));
  QCOMPARE(countOf(*text, " = lattice.sparse.binary "), std::size_t(8));
  VERIFY_HAS(*text, "%add = lattice.sparse.binary");
  for (int i = 1; i < 8; ++i) VERIFY_HAS(*text, "%add" + std::to_string(i) + " = lattice.sparse.binary");
  VERIFY_HAS(*text, "lattice.output_names = [\"output_0\", \"output_1\", \"output_2\", \"output_3\", \"output_4\"]");
  VERIFY_HAS(*text, "lattice.input_names = [\"x_coords\", \"x_features\", \"x_active\"]");
}

void TestLoweringExport::resunet42() {
  Expected<Model> m = loadModel("example:sparse_resunet42");
  VERIFY_OK(m);
  PreparedLowering p;
  Expected<std::string> text = lowerText(*m, ExportOptions{}, &p);
  VERIFY_OK(text);
  // §8.3: 245 weight entries with 21,733,760 elements, 16 adds %add..%add15, 4 cats
  // %cat_1, %cat_11, %cat_12, %cat_13 (§2.5), 9 outputs.
  QCOMPARE(p.builder->weights().size(), std::size_t(245));
  QCOMPARE(totalElements(*p.builder), int64_t(21733760));
  QCOMPARE(countOf(*text, " = lattice.sparse.binary "), std::size_t(16));
  VERIFY_HAS(*text, "%add = lattice.sparse.binary");
  for (int i = 1; i < 16; ++i) VERIFY_HAS(*text, "%add" + std::to_string(i) + " = lattice.sparse.binary");
  QCOMPARE(countOf(*text, " = lattice.sparse.cat "), std::size_t(4));
  for (const char* cat : {"%cat_1 = ", "%cat_11 = ", "%cat_12 = ", "%cat_13 = "}) VERIFY_HAS(*text, cat);
  std::string outputs = "lattice.output_names = [";
  for (int i = 0; i < 9; ++i) outputs += (i ? ", \"output_" : "\"output_") + std::to_string(i) + "\"";
  VERIFY_HAS(*text, outputs + "]");
  // decoders.0 pairs with encoders.3: the first cat joins the upsampled value (lhs) and x3.
  VERIFY_HAS(*text, "%cat_1 = lattice.sparse.cat %decoders_0_upsample_2, %encoders_2_2_relu");
}

void TestLoweringExport::resunet42Int4() {
  Expected<Model> m = loadModel("example:sparse_resunet42");
  VERIFY_OK(m);
  ExportOptions o;
  o.quantizeBits = 4;
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/unet.lattice";
  VERIFY_OK(saveLatticeModelArtifact(*m, dir, o)); // validated (default)
  const std::string text = readText(dir + "/graph.mlir");
  QCOMPARE(countOf(text, "#lattice.packing<int4, group_size = 32, scale_dtype = f16, mode = affine>"), std::size_t(49));
  Expected<SafetensorsFile> w = SafetensorsFile::open(dir + "/weights.safetensors");
  VERIFY_OK(w);
  // 49 conv weights become three tensors each; the 49 BatchNorms keep 4 dense tensors each.
  QCOMPARE(w->tensors().size(), std::size_t(49 * 3 + 49 * 4));
  const TensorData* stem = w->find("stem.0.weight.weight");
  QVERIFY(stem);
  QCOMPARE(stem->dtype(), DType::U32);
  // SubmConv3d 4→32 k3: K = 27 rows, in = 4 padded to 32 → 4 words of 8 int4 codes; (K, words, out).
  QCOMPARE(stem->shape(), (std::vector<int64_t>{27, 4, 32}));
  QCOMPARE(w->find("stem.0.weight.scales")->shape(), (std::vector<int64_t>{27, 1, 32}));
}

QTEST_APPLESS_MAIN(TestLoweringExport)
#include "tst_lowering_export.moc"
