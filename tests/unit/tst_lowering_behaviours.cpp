// Behaviours 1–23 of lowering.md §9 (the reference's tests/artifact/test_lattice_artifact.py),
// ported to models built with the Model API. Shared fixture: one sparse input `x` with 2 f32
// channels and batch size 2 (the reference infers it from batch_counts (2, 2); here it is the
// export option that stands for it).

#include "LoweringTestModels.h"

#include "lowering/Lowering.h"
#include "tensor/Safetensors.h"

#include <QtCore/QDir>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace lattice;
using namespace lattice::testmodels;

namespace {

/// The reference's CURRENT_DIALECT_VERSION and DIALECT_SCHEMA_DIGEST, as printed in the
/// conformance artifacts (tests/data/conformance/models/*/expected.lattice/graph.mlir).
const char* const kIrVersionLine = "lattice.ir_version = 2,";
const char* const kDigestLine =
    "lattice.schema_digest = \"1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad\"";

ExportOptions fixtureOptions(std::vector<InputSpec> inputs = {sparseInput("x", 2)}) {
  ExportOptions o;
  o.inputs = std::move(inputs);
  o.batchSize = 2;
  return o;
}

fx::Value ref(fx::Node* n) { return fx::Value::node(n); }

/// forward(x): stem Conv3d(2→3, k1, bias) → act ReLU → pool GlobalAvgPool → head Linear(3→2).
Model classifier() {
  Model m = customModel(positional({"x"}));
  ConvSpec stem;
  stem.bias = true;
  addConv(m, "stem", "Conv3d", stem);
  addActivation(m, "act", "ReLU", {{"inplace", fx::Value::boolean(false)}});
  addGlobalPool(m, "pool", "GlobalAvgPool");
  addLinear(m, "head", 3, 2);
  finishSequential(m);
  return m;
}

/// forward(x): left(x) and right(x) (Conv3d 2→leftOut / 2→rightOut, k1), combined by `fn`.
Model twoBranch(const std::string& fn, fx::Kwargs kwargs = {}, int64_t leftOut = 3, int64_t rightOut = 3,
                bool list = false, bool relu = false) {
  Model m = customModel(positional({"x"}));
  ConvSpec l, r;
  l.out = leftOut;
  r.out = rightOut;
  addConv(m, "left", "Conv3d", l);
  addConv(m, "right", "Conv3d", r);
  if (relu) addActivation(m, "relu", "ReLU", {{"inplace", fx::Value::boolean(false)}});
  auto g = std::make_shared<fx::Graph>();
  fx::Node* x = g->placeholder("x");
  fx::Node* a = g->callModule("left", {ref(x)});
  fx::Node* b = g->callModule("right", {ref(x)});
  fx::ValueList args = list ? fx::ValueList{fx::Value::list({ref(a), ref(b)})} : fx::ValueList{ref(a), ref(b)};
  fx::Node* out = g->callFunction(fn, std::move(args), std::move(kwargs));
  if (relu) out = g->callModule("relu", {ref(out)});
  g->output(ref(out));
  setRootGraph(m, g);
  return m;
}

/// The saved artifact of one export.
struct Export {
  Status status;
  QString dir;
  std::string graph;
};

Export exportTo(const QTemporaryDir& tmp, const Model& model, const ExportOptions& options,
                const QString& name = QStringLiteral("model.lattice")) {
  Export e;
  e.dir = tmp.path() + "/" + name;
  e.status = saveLatticeModelArtifact(model, e.dir.toStdString(), options);
  if (e.status) e.graph = readText(e.dir.toStdString() + "/graph.mlir");
  return e;
}

std::vector<int64_t> shapeOf(const SafetensorsFile& f, const std::string& key) {
  const TensorData* t = f.find(key);
  return t ? t->shape() : std::vector<int64_t>{-1};
}

#define VERIFY_OK(s) QVERIFY2((s).ok(), (s).ok() ? "" : (s).message().c_str())
#define VERIFY_HAS(text, needle) QVERIFY2((text).find(needle) != std::string::npos, (std::string("missing: ") + (needle)).c_str())
#define VERIFY_LACKS(text, needle) QVERIFY2((text).find(needle) == std::string::npos, (std::string("unexpected: ") + (needle)).c_str())

} // namespace

class TestLoweringBehaviours : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void classifierArtifact();          // 1–6
  void addEmitsOuterBinary();         // 7
  void catEmitsInnerCat();            // 8
  void sparseSubKeepsKeywords();      // 9
  void mulDefaultsToInner();          // 10
  void targetInputsAndOutputNames();  // 11, 12
  void reindexWithoutWeights();       // 13
  void validateOption();              // 14
  void rootModuleOps_data();          // 15–18
  void rootModuleOps();
  void rootConvWeightLayout();        // 19
  void rootSubmConvKeepsRowOrder();   // 20
  void explicitBuilderChain();        // 21
  void refusedNormalizations_data();  // 22, 23
  void refusedNormalizations();
};

void TestLoweringBehaviours::classifierArtifact() {
  QTemporaryDir tmp;
  Export e = exportTo(tmp, classifier(), fixtureOptions());
  VERIFY_OK(e.status);
  // 1: exactly the two artifact files, no manifest.json.
  QStringList files = QDir(e.dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
  files.sort();
  QCOMPARE(files, (QStringList{QStringLiteral("graph.mlir"), QStringLiteral("weights.safetensors")}));
  // 2: contract metadata.
  VERIFY_HAS(e.graph, kIrVersionLine);
  VERIFY_HAS(e.graph, kDigestLine);
  // 3: the sparse input's ABI names and the active-rows type.
  VERIFY_HAS(e.graph, "lattice.input_names = [\"x_coords\", \"x_features\", \"x_active\"]");
  VERIFY_HAS(e.graph, "%x_active: tensor<1xi32>");
  // 4: a single output is named `output`.
  VERIFY_HAS(e.graph, "lattice.output_names = [\"output\"]");
  // 5: the ops.
  for (const char* op : {"lattice.sparse.make", "lattice.conv3d", "lattice.activation", "lattice.global_pool", "lattice.linear"})
    VERIFY_HAS(e.graph, op);
  VERIFY_LACKS(e.graph, "lattice.subm_conv3d");
  // 6: the weights and their exported shapes.
  Expected<SafetensorsFile> w = SafetensorsFile::open(e.dir.toStdString() + "/weights.safetensors");
  VERIFY_OK(w);
  QCOMPARE(w->tensors().size(), std::size_t(4));
  QCOMPARE(shapeOf(*w, "stem.weight"), (std::vector<int64_t>{3, 1, 1, 1, 2}));
  QCOMPARE(shapeOf(*w, "stem.bias"), (std::vector<int64_t>{3}));
  QCOMPARE(shapeOf(*w, "head.weight"), (std::vector<int64_t>{2, 3}));
  QCOMPARE(shapeOf(*w, "head.bias"), (std::vector<int64_t>{2}));
}

void TestLoweringBehaviours::addEmitsOuterBinary() {
  QTemporaryDir tmp;
  Export e = exportTo(tmp, twoBranch("operator.add", {}, 3, 3, false, true), fixtureOptions());
  VERIFY_OK(e.status);
  VERIFY_HAS(e.graph, "lattice.sparse.binary");
  VERIFY_HAS(e.graph, "op = #lattice.binary_op<add>");
  VERIFY_HAS(e.graph, "join = #lattice.join<outer>");
  VERIFY_HAS(e.graph, "lattice.activation");
  VERIFY_HAS(e.graph, "%add = lattice.sparse.binary %left, %right");
}

void TestLoweringBehaviours::catEmitsInnerCat() {
  QTemporaryDir tmp;
  Export e = exportTo(tmp, twoBranch("torch_lattice.operators.cat", {}, 3, 4, true), fixtureOptions());
  VERIFY_OK(e.status);
  VERIFY_HAS(e.graph, "lattice.sparse.cat");
  VERIFY_HAS(e.graph, "join = #lattice.join<inner>");
  VERIFY_HAS(e.graph, "%cat_1 = lattice.sparse.cat %left, %right");
  Expected<SafetensorsFile> w = SafetensorsFile::open(e.dir.toStdString() + "/weights.safetensors");
  VERIFY_OK(w);
  QCOMPARE(shapeOf(*w, "left.weight"), (std::vector<int64_t>{3, 1, 1, 1, 2}));
  QCOMPARE(shapeOf(*w, "right.weight"), (std::vector<int64_t>{4, 1, 1, 1, 2}));
}

void TestLoweringBehaviours::sparseSubKeepsKeywords() {
  QTemporaryDir tmp;
  Export e = exportTo(tmp,
                      twoBranch("torch_lattice.operators.sparse_sub",
                                {{"join", fx::Value::string("left")}, {"rhs_fill", fx::Value::floating(1.5)}}),
                      fixtureOptions());
  VERIFY_OK(e.status);
  VERIFY_HAS(e.graph, "lattice.sparse.binary");
  VERIFY_HAS(e.graph, "op = #lattice.binary_op<sub>");
  VERIFY_HAS(e.graph, "join = #lattice.join<left>");
  VERIFY_HAS(e.graph, "lhs_fill = 0.0 : f32");
  VERIFY_HAS(e.graph, "rhs_fill = 1.5 : f32");
  VERIFY_HAS(e.graph, "%sub = lattice.sparse.binary"); // fixed stem, not `sparse_sub` (§2.5)
}

void TestLoweringBehaviours::mulDefaultsToInner() {
  QTemporaryDir tmp;
  Export e = exportTo(tmp, twoBranch("operator.mul"), fixtureOptions());
  VERIFY_OK(e.status);
  VERIFY_HAS(e.graph, "lattice.sparse.binary");
  VERIFY_HAS(e.graph, "op = #lattice.binary_op<mul>");
  VERIFY_HAS(e.graph, "join = #lattice.join<inner>");
}

void TestLoweringBehaviours::targetInputsAndOutputNames() {
  // forward(x, target): features = conv(x, coordinates=target); return (features, pool(features)).
  Model m = customModel(positional({"x", "target"}));
  addConv(m, "conv", "Conv3d", ConvSpec{});
  addGlobalPool(m, "pool", "GlobalSumPool");
  auto g = std::make_shared<fx::Graph>();
  fx::Node* x = g->placeholder("x");
  fx::Node* t = g->placeholder("target");
  fx::Node* f = g->callModule("conv", {ref(x)}, {{"coordinates", ref(t)}});
  fx::Node* s = g->callModule("pool", {ref(f)});
  g->output(fx::Value::tuple({ref(f), ref(s)}));
  setRootGraph(m, g);

  ExportOptions o = fixtureOptions({sparseInput("x", 2), sparseInput("target", 1)});
  o.outputNames = std::vector<std::string>{"features", "summary"};
  QTemporaryDir tmp;
  Export e = exportTo(tmp, m, o);
  VERIFY_OK(e.status);
  // 11
  VERIFY_HAS(e.graph, "lattice.input_names = [\"x_coords\", \"x_features\", \"x_active\", \"target_coords\", "
                      "\"target_features\", \"target_active\"]");
  VERIFY_HAS(e.graph, "lattice.output_names = [\"features\", \"summary\"]");
  VERIFY_HAS(e.graph, "lattice.output_roles = [\"sparse_tensor\", \"tensor\"]");
  // 12
  VERIFY_HAS(e.graph, "%conv = lattice.target_conv3d %x, %target, %conv_weight");
  VERIFY_HAS(e.graph, "lattice.global_pool");
  VERIFY_HAS(e.graph, "mode = #lattice.pool_mode<sum>, batch_size = 2");
}

void TestLoweringBehaviours::reindexWithoutWeights() {
  Model m = customModel(positional({"x", "target"}));
  auto g = std::make_shared<fx::Graph>();
  fx::Node* x = g->placeholder("x");
  fx::Node* t = g->placeholder("target");
  g->output(ref(g->callFunction("torch_lattice.operators.reindex_sparse", {ref(x), ref(t)},
                                {{"fill", fx::Value::floating(-1.25)}})));
  setRootGraph(m, g);
  QTemporaryDir tmp;
  Export e = exportTo(tmp, m, fixtureOptions({sparseInput("x", 2), sparseInput("target", 1)}));
  VERIFY_OK(e.status); // saved and validated (default options)
  VERIFY_HAS(e.graph, "%reindex = lattice.sparse.reindex %x, %target {fill = -1.25 : f32}");
  Expected<SafetensorsFile> w = SafetensorsFile::open(e.dir.toStdString() + "/weights.safetensors");
  VERIFY_OK(w);
  QCOMPARE(w->tensors().size(), std::size_t(0));
}

void TestLoweringBehaviours::validateOption() {
  // The reference counts calls of its validation hook; without one here, check that both
  // settings save the same artifact and that options.validate decides over save.validate.
  QTemporaryDir tmp;
  ExportOptions checked = fixtureOptions();
  Export a = exportTo(tmp, classifier(), checked, QStringLiteral("a.lattice"));
  VERIFY_OK(a.status);
  ExportOptions unchecked = fixtureOptions();
  unchecked.validate = false;
  unchecked.save.validate = true; // overridden by validate = false
  Export b = exportTo(tmp, classifier(), unchecked, QStringLiteral("b.lattice"));
  VERIFY_OK(b.status);
  QCOMPARE(a.graph, b.graph);
  QCOMPARE(readText(a.dir.toStdString() + "/weights.safetensors"), readText(b.dir.toStdString() + "/weights.safetensors"));
  // The saved payload passes the §6.4 checks.
  Expected<SafetensorsFile> w = SafetensorsFile::open(b.dir.toStdString() + "/weights.safetensors");
  VERIFY_OK(w);
  std::vector<std::string> keys;
  for (const NamedTensor& t : w->tensors()) keys.push_back(t.key);
  VERIFY_OK(validateArtifactPayload(b.graph, keys));
}

void TestLoweringBehaviours::rootModuleOps_data() {
  QTest::addColumn<QString>("cls");
  QTest::addColumn<int>("kernel");
  QTest::addColumn<int>("stride");
  QTest::addColumn<QString>("op");
  QTest::newRow("15 Conv3d") << QStringLiteral("Conv3d") << 1 << 1 << QStringLiteral("%conv3d = lattice.conv3d %input, %conv3d_weight");
  QTest::newRow("16 SubmConv3d") << QStringLiteral("SubmConv3d") << 3 << 1 << QStringLiteral("%submconv3d = lattice.subm_conv3d %input, %submconv3d_weight");
  QTest::newRow("17 ConvTranspose3d") << QStringLiteral("ConvTranspose3d") << 2 << 2
                                      << QStringLiteral("%convtranspose3d = lattice.conv_transpose3d %input, %convtranspose3d_weight");
  QTest::newRow("18 GenerativeConvTranspose3d")
      << QStringLiteral("GenerativeConvTranspose3d") << 2 << 2
      << QStringLiteral("%generativeconvtranspose3d = lattice.generative_conv_transpose3d %input, %generativeconvtranspose3d_weight");
}

void TestLoweringBehaviours::rootModuleOps() {
  QFETCH(QString, cls);
  QFETCH(int, kernel);
  QFETCH(int, stride);
  QFETCH(QString, op);
  ConvSpec s;
  s.kernel = {kernel, kernel, kernel};
  s.stride = {stride, stride, stride};
  Model m = rootModel([&](Model& model) { addConv(model, "", cls.toStdString(), s); });
  QTemporaryDir tmp;
  Export e = exportTo(tmp, m, fixtureOptions());
  VERIFY_OK(e.status);
  // The root's forward parameter is `input`, so the ABI names follow it; the module name is the
  // lowercased class name (§2.1 step 2).
  VERIFY_HAS(e.graph, "lattice.input_names = [\"input_coords\", \"input_features\", \"input_active\"]");
  VERIFY_HAS(e.graph, op.toStdString());
}

void TestLoweringBehaviours::rootConvWeightLayout() {
  // Conv3d(2→3, kernel (2,1,2), stride (2,1,2)) with arange weights (K=4, in=2, out=3).
  ConvSpec s;
  s.kernel = {2, 1, 2};
  s.stride = {2, 1, 2};
  s.weight = arange({4, 2, 3});
  Model m = rootModel([&](Model& model) { addConv(model, "", "Conv3d", s); });
  QTemporaryDir tmp;
  Export e = exportTo(tmp, m, fixtureOptions());
  VERIFY_OK(e.status);
  Expected<SafetensorsFile> w = SafetensorsFile::open(e.dir.toStdString() + "/weights.safetensors");
  VERIFY_OK(w);
  const TensorData* t = w->find("conv3d.weight");
  QVERIFY(t);
  // weight.reshape(2,1,2,2,3).permute(4,0,1,2,3): exported[o,x,y,z,i] = W[(x*1 + y)*2 + z, i, o].
  QCOMPARE(t->shape(), (std::vector<int64_t>{3, 2, 1, 2, 2}));
  const std::vector<float> got = floatsOf(*t);
  std::size_t n = 0;
  for (int o = 0; o < 3; ++o)
    for (int x = 0; x < 2; ++x)
      for (int z = 0; z < 2; ++z)
        for (int i = 0; i < 2; ++i, ++n) {
          const int row = x * 2 + z;
          QCOMPARE(got[n], float(row * 6 + i * 3 + o));
        }
}

void TestLoweringBehaviours::rootSubmConvKeepsRowOrder() {
  ConvSpec s;
  s.in = 1;
  s.out = 1;
  s.kernel = {3, 3, 3};
  s.weight = arange({27, 1, 1});
  Model m = rootModel([&](Model& model) { addConv(model, "", "SubmConv3d", s); });
  QTemporaryDir tmp;
  Export e = exportTo(tmp, m, fixtureOptions({sparseInput("x", 1)}));
  VERIFY_OK(e.status);
  Expected<SafetensorsFile> w = SafetensorsFile::open(e.dir.toStdString() + "/weights.safetensors");
  VERIFY_OK(w);
  const TensorData* t = w->find("submconv3d.weight");
  QVERIFY(t);
  QCOMPARE(t->shape(), (std::vector<int64_t>{1, 3, 3, 3, 1}));
  const std::vector<float> got = floatsOf(*t);
  for (int r = 0; r < 27; ++r) QCOMPARE(got[r], float(r)); // canonical rows, no reordering
}

void TestLoweringBehaviours::explicitBuilderChain() {
  const Model m = classifier();
  ArtifactBuilderOptions o;
  o.batchSize = 2;
  Expected<TorchLatticeArtifactBuilder> b = TorchLatticeArtifactBuilder::create(o);
  VERIFY_OK(b);
  for (const char* name : {"stem", "act", "pool", "head"}) {
    Expected<ArtifactValuePtr> v = b->module(name, *m.module(name), m);
    VERIFY_OK(v);
  }
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/explicit.lattice";
  VERIFY_OK(b->save(dir));
  const std::string graph = readText(dir + "/graph.mlir");
  VERIFY_HAS(graph, "lattice.global_pool");
  VERIFY_HAS(graph, "lattice.linear");
  QStringList files = QDir(QString::fromStdString(dir)).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
  QCOMPARE(files.size(), 2);
}

void TestLoweringBehaviours::refusedNormalizations_data() {
  QTest::addColumn<QString>("which");
  QTest::addColumn<QString>("message");
  QTest::newRow("22 InstanceNorm") << QStringLiteral("instance")
                                   << QStringLiteral("InstanceNorm artifact is not supported without a dedicated lattice normalization op.");
  QTest::newRow("23 GroupNorm") << QStringLiteral("group")
                                << QStringLiteral("GroupNorm artifact is not supported without a dedicated lattice normalization op.");
}

void TestLoweringBehaviours::refusedNormalizations() {
  QFETCH(QString, which);
  QFETCH(QString, message);
  Model m = sequentialModel();
  addConv(m, "0", "Conv3d", ConvSpec{});
  if (which == QLatin1String("instance")) addInstanceNorm(m, "1", 3);
  else addGroupNorm(m, "1", 1, 3);
  finishSequential(m);
  QTemporaryDir tmp;
  Export e = exportTo(tmp, m, fixtureOptions());
  QVERIFY(!e.status.ok());
  QVERIFY(e.status.message().find("not supported") != std::string::npos);
  QVERIFY2(e.status.message().rfind(message.toStdString(), 0) == 0, e.status.message().c_str());
  QVERIFY(!QDir(e.dir).exists()); // nothing written
}

QTEST_APPLESS_MAIN(TestLoweringBehaviours)
#include "tst_lowering_behaviours.moc"
