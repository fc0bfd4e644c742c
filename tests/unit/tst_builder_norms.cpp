// TorchLatticeArtifactBuilder module lowerings built on the feature pattern (lowering.md §3.2) and
// the dense heads (§3.3): BatchNorm, LayerNorm, RMSNorm, the activations, global pools, Linear and
// the pass-through modules, with op lines written out by hand from the spec and the conformance
// graph.mlir files, and every error message of those rows.

#include "BuilderTestSupport.h"
#include "LoweringTestModels.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cstring>

using namespace lattice;
using namespace lattice::testmodels;
using namespace lattice::buildertest;

namespace {

const std::string kNoCurrent =
    "builder has no current value; pass explicit inputs or create a default sparse input.";

std::string weightLine(const std::string& key, const std::string& layout, const std::string& type) {
  std::string sym = key;
  std::replace(sym.begin(), sym.end(), '.', '_');
  return "%" + sym + " = lattice.weight @" + sym + " {storage_key = \"" + key +
         "\", layout = #lattice.weight_layout<" + layout + ">, packing = #lattice.packing<dense>} : " + type;
}

std::string activationAttrs(const std::string& kind, const std::string& approximate = "none",
                            const std::string& alpha = "0.01", const std::string& beta = "1.0",
                            const std::string& threshold = "20.0") {
  return "{kind = #lattice.activation<" + kind + ">, approximate = #lattice.gelu_approx<" + approximate +
         ">, alpha = " + alpha + " : f32, beta = " + beta + " : f32, threshold = " + threshold + " : f32}";
}

} // namespace

class TestBuilderNorms : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void batchNorm();
  void batchNormErrorsAndConstants();
  void layerNorm();
  void rmsNorm();
  void activations_data();
  void activations();
  void denseFeatureOps();
  void globalPools();
  void linear();
  void passThrough();
};

void TestBuilderNorms::batchNorm() {
  // The feature pattern exactly as conformance sparse_classifier prints it for `norm`.
  Model m = customModel(positional({"x"}));
  addBatchNorm(m, "norm", 4);
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  Expected<ArtifactValuePtr> v = lower(b, m, "norm", {sparseArg(b, "stem", 4)});
  QVERIFY(v.ok());
  QVERIFY((*v)->isSparse());
  QCOMPARE((*v)->channels(), std::optional<int64_t>(4));
  const std::string text = textWith(b, *v);
  QCOMPARE(lineWith(text, "lattice.sparse.decompose"),
           "%sparse_decompose, %norm_features_in, %norm_active = lattice.sparse.decompose %stem : " + SP +
               " -> (tensor<?x4xi32>, tensor<?x4xf32>, tensor<1xi32>)");
  QCOMPARE(lineWith(text, "%norm_weight = "), weightLine("norm.weight", "channel_c", WCH));
  QCOMPARE(lineWith(text, "%norm_bias = "), weightLine("norm.bias", "bias_c", WBIAS));
  QCOMPARE(lineWith(text, "%norm_running_mean = "), weightLine("norm.running_mean", "channel_c", WCH));
  QCOMPARE(lineWith(text, "%norm_running_var = "), weightLine("norm.running_var", "channel_c", WCH));
  QCOMPARE(
      lineWith(text, "%norm_features = "),
      "%norm_features = lattice.batch_norm %norm_features_in, %norm_weight, %norm_bias, %norm_running_mean, "
      "%norm_running_var {eps = 0.00001 : f32} : (tensor<?x4xf32>, " +
          WCH + ", " + WBIAS + ", " + WCH + ", " + WCH + ") -> tensor<?x4xf32>");
  QCOMPARE(lineWith(text, "%norm = "), "%norm = lattice.sparse.with_features %stem, %norm_features  : (" +
                                           SP + ", tensor<?x4xf32>) -> " + SP);
  QCOMPARE(emittedOps(b),
           (std::vector<std::string>{"sparse.make", "sparse.decompose", "weight", "weight", "weight",
                                     "weight", "batch_norm", "sparse.with_features"}));
  // Weights in registration order: weight, bias, running_mean, running_var.
  std::vector<std::string> keys;
  for (const NamedTensor& t : b.weights())
    keys.push_back(t.key);
  QCOMPARE(keys,
           (std::vector<std::string>{"norm.weight", "norm.bias", "norm.running_mean", "norm.running_var"}));
}

void TestBuilderNorms::batchNormErrorsAndConstants() {
  Model m = customModel(positional({"x"}));
  addBatchNorm(m, "bn", 3);
  addBatchNorm(m, "free", 3, /*affine=*/true, /*trackRunningStats=*/false);
  addBatchNorm(m, "plain", 3, /*affine=*/false);
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(b, "x", 3);
  QCOMPARE(lower(b, m, "bn", {denseArg(b, "d", "tensor<?x3xf32>", 3)}).message(),
           std::string("BatchNorm expects sparse_tensor, got dense_tensor."));
  QCOMPARE(lower(b, m, "bn", {x, x}).message(),
           std::string("BatchNorm artifact expects 1 symbolic lattice values."));
  QCOMPARE(lower(b, m, "bn", {nullptr}).message(), kNoCurrent);
  // Missing running stats are reported after the decompose and the scale/bias weight ops.
  QCOMPARE(lower(b, m, "free", {x}).message(),
           std::string("BatchNorm artifact requires frozen running_mean and running_var."));
  QCOMPARE(emittedOps(b), (std::vector<std::string>{"sparse.make", "sparse.decompose", "weight", "weight"}));

  // affine=False: constant ones/zeros under the module's own keys, f32 for an f32 builder.
  TorchLatticeArtifactBuilder p = makeBuilder(noDefaultInput());
  QVERIFY(lower(p, m, "plain", {sparseArg(p, "x", 3)}).ok());
  QCOMPARE(floatsOf(*p.weight("plain.weight")), (std::vector<float>{1.0f, 1.0f, 1.0f}));
  QCOMPARE(floatsOf(*p.weight("plain.bias")), (std::vector<float>{0.0f, 0.0f, 0.0f}));

  // Without parameters the module dtype is the builder's input dtype: f16 constants (1.0 = 0x3C00).
  TorchLatticeArtifactBuilder h = makeBuilder(noDefaultInput(std::nullopt, "f16"));
  Expected<ArtifactValuePtr> hv = lower(h, m, "plain", {sparseArg(h, "x", 3)});
  QVERIFY(hv.ok());
  const TensorData* ones = h.weight("plain.weight");
  QCOMPARE(ones->dtype(), DType::F16);
  std::vector<uint16_t> bits(3);
  std::memcpy(bits.data(), ones->data(), 6);
  QCOMPARE(bits, (std::vector<uint16_t>{0x3C00, 0x3C00, 0x3C00}));
  QCOMPARE(h.weight("plain.bias")->dtype(), DType::F16);
  QCOMPARE(lineWith(textWith(h, *hv), "%plain_weight = "),
           weightLine("plain.weight", "channel_c", "!lattice.weight<channel, f16>"));
}

void TestBuilderNorms::layerNorm() {
  Model m = customModel(positional({"x"}));
  addLayerNorm(m, "ln", 4);
  addLayerNorm(m, "tln", 4, /*torchLattice=*/false);
  ModuleInfo& wide = addLayerNorm(m, "wide", 4);
  wide.attributes[0].second = fx::Value::tuple({fx::Value::integer(4), fx::Value::integer(3)});
  ModuleInfo& bare = addLayerNorm(m, "bare", 4, false);
  bare.parameters = {{"weight", std::nullopt}, {"bias", std::nullopt}}; // elementwise_affine=False
  bare.attributes[0].second = fx::Value::integer(4);                    // an int is accepted

  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(b, "x", 4);
  Expected<ArtifactValuePtr> v = lower(b, m, "ln", {x});
  QVERIFY(v.ok());
  QVERIFY((*v)->isSparse());
  // torch.nn.LayerNorm on a dense value: no decompose, the result is `<name>_features` (dense).
  Expected<ArtifactValuePtr> d = lower(b, m, "tln", {denseArg(b, "rows", "tensor<?x4xf32>", 4)});
  QVERIFY(d.ok());
  QVERIFY((*d)->isDense());
  QCOMPARE((*d)->name(), std::string("tln_features"));
  Expected<ArtifactValuePtr> c = lower(b, m, "bare", {*d});
  QVERIFY(c.ok());
  QCOMPARE(floatsOf(*b.weight("bare.weight")), (std::vector<float>{1, 1, 1, 1}));
  QCOMPARE(floatsOf(*b.weight("bare.bias")), (std::vector<float>{0, 0, 0, 0}));
  const std::string text = textWith(b, *c);
  QCOMPARE(lineWith(text, "%ln_features = "),
           "%ln_features = lattice.layer_norm %ln_features_in, %ln_weight, %ln_bias {eps = 0.00001 : f32} : "
           "(tensor<?x4xf32>, " +
               WCH + ", " + WBIAS + ") -> tensor<?x4xf32>");
  QCOMPARE(lineWith(text, "%ln = "),
           "%ln = lattice.sparse.with_features %x, %ln_features  : (" + SP + ", tensor<?x4xf32>) -> " + SP);
  QCOMPARE(lineWith(text, "%tln_features = "),
           "%tln_features = lattice.layer_norm %rows, %tln_weight, %tln_bias {eps = 0.00001 : f32} : "
           "(tensor<?x4xf32>, " +
               WCH + ", " + WBIAS + ") -> tensor<?x4xf32>");
  QVERIFY(lineWith(text, "tln_features_in").empty());

  // More than one normalized dimension: raised after the decompose was emitted.
  TorchLatticeArtifactBuilder e = makeBuilder(noDefaultInput());
  QCOMPARE(lower(e, m, "wide", {sparseArg(e, "x", 4)}).message(),
           std::string("LayerNorm artifact expects one normalized feature dimension."));
  QCOMPARE(emittedOps(e).back(), std::string("sparse.decompose"));
}

void TestBuilderNorms::rmsNorm() {
  Model m = customModel(positional({"x"}));
  addRmsNorm(m, "rms", 4);
  ModuleInfo& torchRms = attach(m, "trms", record("torch.nn.modules.normalization.RMSNorm", {}));
  torchRms.attributes = {{"normalized_shape", fx::Value::tuple({fx::Value::integer(4)})},
                         {"eps", fx::Value::none()},
                         {"elementwise_affine", fx::Value::boolean(false)}};
  torchRms.parameters = {{"weight", std::nullopt}};
  ModuleInfo& wide = addRmsNorm(m, "wide", 4);
  wide.attributes[0].second = fx::Value::tuple({fx::Value::integer(2), fx::Value::integer(2)});

  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  Expected<ArtifactValuePtr> v = lower(b, m, "rms", {sparseArg(b, "x", 4)});
  QVERIFY(v.ok());
  const std::string text = textWith(b, *v);
  QCOMPARE(lineWith(text, "%rms_features = "), "%rms_features = lattice.rms_norm %rms_features_in, "
                                               "%rms_weight {eps = 0.000001 : f32} : (tensor<?x4xf32>, " +
                                                   WCH + ") -> tensor<?x4xf32>");
  // torch.nn.RMSNorm's default eps=None: float(None) raises TypeError.
  TorchLatticeArtifactBuilder e = makeBuilder(noDefaultInput());
  QCOMPARE(lower(e, m, "trms", {sparseArg(e, "x", 4)}).message(),
           std::string("float() argument must be a string or a real number, not 'NoneType'"));
  QCOMPARE(lower(e, m, "wide", {sparseArg(e, "y", 4)}).message(),
           std::string("RMSNorm artifact expects one normalized feature dimension."));
  // weight None → ones(C).
  m.module("trms")->attributes[1].second = fx::Value::floating(1e-6);
  TorchLatticeArtifactBuilder o = makeBuilder(noDefaultInput());
  QVERIFY(lower(o, m, "trms", {sparseArg(o, "x", 4)}).ok());
  QCOMPARE(floatsOf(*o.weight("trms.weight")), (std::vector<float>{1, 1, 1, 1}));
}

void TestBuilderNorms::activations_data() {
  QTest::addColumn<QString>("cls");
  QTest::addColumn<bool>("torchLattice");
  QTest::addColumn<QString>("attrs");
  auto row = [](const char* name, const char* cls, bool tl, const std::string& attrs) {
    QTest::newRow(name) << QString::fromLatin1(cls) << tl << QString::fromStdString(attrs);
  };
  row("ReLU", "ReLU", true, activationAttrs("relu"));
  row("nn.ReLU", "ReLU", false, activationAttrs("relu"));
  row("LeakyReLU", "LeakyReLU", true, activationAttrs("leaky_relu", "none", "0.2"));
  row("SiLU", "SiLU", true, activationAttrs("silu"));
  row("GELU tanh", "GELU", true, activationAttrs("gelu", "tanh"));
  row("nn.GELU", "GELU", false, activationAttrs("gelu"));
  row("Sigmoid", "Sigmoid", true, activationAttrs("sigmoid"));
  row("Tanh", "Tanh", false, activationAttrs("tanh"));
  row("Softplus", "Softplus", true, activationAttrs("softplus", "none", "0.01", "2.0", "10.0"));
}

void TestBuilderNorms::activations() {
  QFETCH(QString, cls);
  QFETCH(bool, torchLattice);
  QFETCH(QString, attrs);
  fx::Kwargs a = {{"inplace", fx::Value::boolean(false)}};
  if (cls == "LeakyReLU")
    a = {{"negative_slope", fx::Value::floating(0.2)}, {"inplace", fx::Value::boolean(false)}};
  if (cls == "GELU")
    a = {{"approximate",
          fx::Value::string(QTest::currentDataTag() == QLatin1String("GELU tanh") ? "tanh" : "none")}};
  if (cls == "Softplus") a = {{"beta", fx::Value::floating(2.0)}, {"threshold", fx::Value::floating(10.0)}};
  Model m = customModel(positional({"x"}));
  addActivation(m, "act", cls.toStdString(), a, torchLattice);
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  Expected<ArtifactValuePtr> v = lower(b, m, "act", {sparseArg(b, "x", 4)});
  QVERIFY(v.ok());
  QCOMPARE((*v)->channels(), std::optional<int64_t>(4));
  QCOMPARE(QString::fromStdString(lineWith(textWith(b, *v), "%act_features = ")),
           QString::fromStdString("%act_features = lattice.activation %act_features_in ") + attrs +
               QString::fromStdString(" : (tensor<?x4xf32>) -> tensor<?x4xf32>"));
}

void TestBuilderNorms::denseFeatureOps() {
  // Test 34's head: activations on a dense value emit the bare op named `<name>_features`.
  Model m = customModel(positional({"x"}));
  addActivation(m, "act", "Sigmoid", {}, false);
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput(2));
  ArtifactValuePtr rows = denseArg(b, "rows", "tensor<?x4xf32>", 4);
  Expected<ArtifactValuePtr> v = lower(b, m, "act", {rows});
  QVERIFY(v.ok());
  QVERIFY((*v)->isDense());
  QCOMPARE(emittedOps(b), std::vector<std::string>{"activation"});
  QCOMPARE(lineWith(textWith(b, *v), "%act_features = "), "%act_features = lattice.activation %rows " +
                                                              activationAttrs("sigmoid") +
                                                              " : (tensor<?x4xf32>) -> tensor<?x4xf32>");
  // The activation helper on no input uses the current value, and there is none.
  TorchLatticeArtifactBuilder e = makeBuilder(noDefaultInput());
  QCOMPARE(e.activation("a", "relu").message(), kNoCurrent);
}

void TestBuilderNorms::globalPools() {
  Model m = customModel(positional({"x"}));
  addGlobalPool(m, "avgp", "GlobalAvgPool");
  addGlobalPool(m, "maxp", "GlobalMaxPool");
  addGlobalPool(m, "sump", "GlobalSumPool");
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput(0)); // batch_size 0 is accepted
  ArtifactValuePtr x = sparseArg(b, "x", 4);
  for (const char* path : {"avgp", "maxp", "sump"}) {
    Expected<ArtifactValuePtr> v = lower(b, m, path, {x});
    QVERIFY(v.ok());
    QVERIFY((*v)->isDense());
    QCOMPARE((*v)->channels(), std::optional<int64_t>(4));
  }
  QCOMPARE(lower(b, m, "avgp", {denseArg(b, "d", "tensor<?x4xf32>", 4)}).message(),
           std::string("GlobalPool expects sparse_tensor, got dense_tensor."));
  const std::string text = textWith(b, x);
  QCOMPARE(lineWith(text, "%maxp = "),
           "%maxp = lattice.global_pool %x {mode = #lattice.pool_mode<max>, batch_size = 0} : (" + SP +
               ") -> tensor<?x4xf32>");
  QVERIFY(lineWith(text, "%sump = lattice.global_pool %x {mode = #lattice.pool_mode<sum>, batch_size = 0}")
              .size());
  QVERIFY(lineWith(text, "%avgp = lattice.global_pool %x {mode = #lattice.pool_mode<avg>, batch_size = 0}")
              .size());

  TorchLatticeArtifactBuilder n = makeBuilder(noDefaultInput(std::nullopt));
  QCOMPARE(lower(n, m, "avgp", {sparseArg(n, "x", 4)}).message(),
           std::string("global_pool artifact requires a static batch_size."));
}

void TestBuilderNorms::linear() {
  Model m = customModel(positional({"x"}));
  addLinear(m, "head", 4, 2);
  addLinear(m, "nobias", 4, 3, false);
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput(2));
  ArtifactValuePtr x = sparseArg(b, "x", 4);
  QCOMPARE(lower(b, m, "head", {x}).message(),
           std::string("Linear expects dense_tensor, got sparse_tensor."));
  ArtifactValuePtr rows = denseArg(b, "rows", "tensor<?x4xf32>", 4);
  Expected<ArtifactValuePtr> v = lower(b, m, "nobias", {rows});
  QVERIFY(v.ok());
  QCOMPARE((*v)->channels(), std::optional<int64_t>(3));
  QCOMPARE(b.weight("nobias.weight")->shape(), (std::vector<int64_t>{3, 4})); // (out, in) unchanged
  QCOMPARE(
      lineWith(textWith(b, *v), "%nobias = "),
      "%nobias = lattice.linear %rows, %nobias_weight  : (tensor<?x4xf32>, !lattice.weight<linear, f32>) -> "
      "tensor<?x3xf32>");
}

void TestBuilderNorms::passThrough() {
  Model m = customModel(positional({"x"}));
  addDropout(m, "drop", 0.5, false);
  addDropout(m, "train", 0.5, true);
  addFlatten(m, "flat");
  addFlatten(m, "flat0", 0);
  addIdentity(m, "id");
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput(1));
  ArtifactValuePtr x = sparseArg(b, "x", 2);
  ArtifactValuePtr rows = denseArg(b, "rows", "tensor<?x2xf32>", 2);
  const std::size_t ops = b.writer().opCount();
  QCOMPARE(*lower(b, m, "drop", {x}), x);
  QCOMPARE(*lower(b, m, "flat", {rows}), rows);
  QCOMPARE(*lower(b, m, "id", {x}), x);
  QCOMPARE(b.writer().opCount(), ops); // nothing emitted, nothing renamed
  const std::string text = textWith(b, rows);
  QString lower_ = QString::fromStdString(text).toLower();
  QVERIFY(!lower_.contains(QLatin1String("dropout")) && !lower_.contains(QLatin1String("flat")));

  TorchLatticeArtifactBuilder e = makeBuilder(noDefaultInput(1));
  ArtifactValuePtr ex = sparseArg(e, "x", 2);
  ArtifactValuePtr er = denseArg(e, "rows", "tensor<?x2xf32>", 2);
  QCOMPARE(lower(e, m, "train", {ex}).message(),
           std::string("Dropout artifact is only supported in eval mode."));
  const std::string flatten =
      "Flatten artifact only supports dense classifier heads with start_dim=1 and end_dim=-1.";
  QCOMPARE(lower(e, m, "flat", {ex}).message(), flatten);
  QCOMPARE(lower(e, m, "flat0", {er}).message(), flatten);
  QCOMPARE(lower(e, m, "flat", {nullptr}).message(),
           std::string("'NoneType' object has no attribute 'kind'"));
  QCOMPARE(lower(e, m, "id", {ex, ex}).message(),
           std::string("Identity artifact expects 1 symbolic lattice values."));
  // Dropout and Identity hand a None input back (module() with no current value).
  Expected<ArtifactValuePtr> none = e.module("drop", *m.module("drop"), m);
  QVERIFY(none.ok() && !*none);
  none = e.module("id", *m.module("id"), m);
  QVERIFY(none.ok() && !*none);
}

QTEST_APPLESS_MAIN(TestBuilderNorms)
#include "tst_builder_norms.moc"
