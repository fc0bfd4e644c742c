// TorchLatticeArtifactBuilder module lowerings (lowering.md §3): every row of the §3.3 table,
// checked against op lines written out by hand from the spec and from the conformance graph.mlir
// files (five conformance models are rebuilt through the Model API and must reproduce
// expected.lattice byte for byte, weights included), every §3 error message, dispatch along
// bases, and the registry's agreement with the lattice tracer's supported types.

#include "BuilderTestSupport.h"
#include "LoweringTestModels.h"
#include "tensor/Safetensors.h"
#include "trace/Tracer.h"

#include <QtTest/QtTest>

#include <algorithm>

using namespace lattice;
using namespace lattice::testmodels;
using namespace lattice::buildertest;

namespace {

const ModuleInfo& at(const Model& m, const std::string& path) {
  return *m.module(path);
}

// --- conformance models rebuilt through the Model API (compare model.json) ------------------

struct ConformanceCase {
  Model model;
  int64_t channels = 0;
  std::optional<int64_t> batch;
  std::optional<int64_t> quantizeBits;
};

ConformanceCase conformanceCase(const std::string& name) {
  ConformanceCase c;
  c.model = customModel(positional({"x"}));
  Model& m = c.model;
  if (name == "sparse_classifier" || name == "quantized_classifier_int8") {
    const bool quantized = name != "sparse_classifier";
    c.channels = 3;
    c.batch = 2;
    if (quantized) c.quantizeBits = 8;
    addConv(m, "stem", "Conv3d", spec(3, 4, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, true));
    if (!quantized) addBatchNorm(m, "norm", 4);
    addActivation(m, "act", quantized ? "SiLU" : "ReLU", {{"inplace", fx::Value::boolean(false)}});
    if (!quantized) addPool3d(m, "pool", "AvgPool3d", "avg", fx::Value::integer(1), fx::Value::integer(1));
    addGlobalPool(m, "global_pool", "GlobalAvgPool");
    addLinear(m, "head", 4, 2);
  } else if (name == "canonical_kernel_layout") {
    c.channels = 1;
    addConv(m, "conv", "SubmConv3d", spec(1, 1, {3, 1, 5}));
  } else if (name == "normalized_convolution") {
    c.channels = 2;
    addConv(m, "conv", "NormalizedSubmConv3d", spec(2, 3, {3, 1, 1}, {1, 1, 1}, {0, 0, 0}, true));
  } else if (name == "transpose_convolution") {
    c.channels = 2;
    addConv(m, "down", "Conv3d", spec(2, 3, {2, 1, 1}, {2, 1, 1}));
    addConv(m, "up", "ConvTranspose3d", spec(3, 2, {2, 1, 1}, {2, 1, 1}, {0, 0, 0}, true));
  }
  // The recorded weights replace the helpers' placeholder values.
  Expected<SafetensorsFile> weights =
      SafetensorsFile::open(kModels + name + "/model.ltfx/weights.safetensors");
  if (!weights) qFatal("%s", weights.message().c_str());
  for (const NamedTensor& t : weights->tensors())
    m.setTensor(t.key, t.tensor);
  return c;
}

} // namespace

class TestBuilderModules : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void registryAgreesWithTracer();
  void conformanceModels_data();
  void conformanceModels();
  void convWithTarget_data();
  void convWithTarget();
  void convSingleInput_data();
  void convSingleInput();
  void convErrors();
  void convWeightRelayoutAndDtype();
  void pools();
  void poolErrors();
  void dispatchWalksBases();
  void unsupportedAndRefused_data();
  void unsupportedAndRefused();
  void chainApi();
};

void TestBuilderModules::registryAgreesWithTracer() {
  QCOMPARE(TorchLatticeArtifactBuilder::moduleLoweringTypes(), latticeSupportedModuleTypes());
  // §1.1: 39 rows, starting with Conv3d and ending with SparseCrop.
  QCOMPARE(TorchLatticeArtifactBuilder::moduleLoweringTypes().size(), std::size_t(39));
  QCOMPARE(TorchLatticeArtifactBuilder::moduleLoweringTypes()[15],
           std::string("torch_lattice.nn.modules.activation.ReLU"));
  QCOMPARE(TorchLatticeArtifactBuilder::moduleLoweringTypes()[16],
           std::string("torch.nn.modules.activation.ReLU"));
}

void TestBuilderModules::conformanceModels_data() {
  QTest::addColumn<QString>("name");
  for (const char* n : {"sparse_classifier", "quantized_classifier_int8", "canonical_kernel_layout",
                        "normalized_convolution", "transpose_convolution"})
    QTest::newRow(n) << QString::fromLatin1(n);
}

void TestBuilderModules::conformanceModels() {
  QFETCH(QString, name);
  ConformanceCase c = conformanceCase(name.toStdString());
  ArtifactBuilderOptions o = noDefaultInput(c.batch);
  o.quantizeBits = c.quantizeBits;
  TorchLatticeArtifactBuilder b = makeBuilder(o);
  b.setCurrent(sparseArg(b, "x", c.channels));
  for (const std::string& child : c.model.root().children) {
    Expected<ArtifactValuePtr> v = b.module(child, at(c.model, child), c.model);
    QVERIFY2(v.ok(), v.ok() ? "" : v.message().c_str());
  }
  Expected<std::string> text = b.toMlir();
  QVERIFY(text.ok());
  const std::string dir = kModels + name.toStdString() + "/expected.lattice/";
  QCOMPARE(*text, readText(dir + "graph.mlir"));

  Expected<SafetensorsFile> expected = SafetensorsFile::open(dir + "weights.safetensors");
  QVERIFY(expected.ok());
  QCOMPARE(b.weights().size(), expected->tensors().size());
  for (const NamedTensor& t : expected->tensors()) {
    const TensorData* got = b.weight(t.key);
    QVERIFY2(got, t.key.c_str());
    QVERIFY2(*got == t.tensor, t.key.c_str());
  }
}

void TestBuilderModules::convWithTarget_data() {
  QTest::addColumn<QString>("cls");
  QTest::addColumn<QString>("line");
  const std::string head =
      " %source, %target, %up_weight {kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, "
      "padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"";
  const std::string tail = "} : (" + SP + ", " + SP + ", " + WCONV + ") -> " + SP;
  auto row = [&](const char* cls, const std::string& op, const std::string& extra) {
    QTest::newRow(cls) << QString::fromLatin1(cls)
                       << QString::fromStdString("%up = lattice." + op + head + extra + tail);
  };
  // §3.3 and tests 42-45: a generative conv with a target uses the plain target transpose op.
  row("Conv3d", "target_conv3d", "");
  row("ConvTranspose3d", "target_conv_transpose3d", "");
  row("NormalizedConvTranspose3d", "target_normalized_conv_transpose3d", ", eps = 0.00000001 : f32");
  row("GenerativeConvTranspose3d", "target_conv_transpose3d", "");
  row("NormalizedGenerativeConvTranspose3d", "target_normalized_conv_transpose3d",
      ", eps = 0.00000001 : f32");
}

void TestBuilderModules::convWithTarget() {
  QFETCH(QString, cls);
  QFETCH(QString, line);
  Model m = customModel(positional({"x"}));
  addConv(m, "up", cls.toStdString(), spec(2, 3, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}));
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr source = sparseArg(b, "source", 2), target = sparseArg(b, "target", 1);
  Expected<ArtifactValuePtr> v = lower(b, m, "up", {source, target});
  QVERIFY2(v.ok(), v.ok() ? "" : v.message().c_str());
  QCOMPARE((*v)->channels(), std::optional<int64_t>(3));
  QVERIFY((*v)->isSparse());
  QCOMPARE(QString::fromStdString(lineWith(textWith(b, *v), "%up = ")), line);
}

void TestBuilderModules::convSingleInput_data() {
  QTest::addColumn<QString>("cls");
  QTest::addColumn<QString>("line");
  const std::string k = "kernel_size = array<i64: 2, 2, 2>", s = "stride = array<i64: 2, 2, 2>",
                    p = "padding = array<i64: 0, 0, 0>", d = "dilation = array<i64: 1, 1, 1>",
                    acc = "accumulation = \"canonical_f32\"", eps = "eps = 0.00000001 : f32";
  auto row = [&](const char* cls, const std::string& op, const std::string& attrs) {
    QTest::newRow(cls) << QString::fromLatin1(cls)
                       << QString::fromStdString("%c = lattice." + op + " %input, %c_weight {" + attrs +
                                                 "} : (" + SP + ", " + WCONV + ") -> " + SP);
  };
  // Attribute sets and schema order from §3.3 / format spec §8.2 (tests 38-40).
  row("Conv3d", "conv3d", k + ", " + s + ", " + p + ", " + d + ", " + acc);
  row("ConvTranspose3d", "conv_transpose3d", k + ", " + s + ", " + p + ", " + d + ", " + acc);
  row("NormalizedConvTranspose3d", "normalized_conv_transpose3d",
      k + ", " + s + ", " + p + ", " + d + ", " + acc + ", " + eps);
  row("GenerativeConvTranspose3d", "generative_conv_transpose3d", k + ", " + s + ", " + acc);
  row("NormalizedGenerativeConvTranspose3d", "normalized_generative_conv_transpose3d",
      k + ", " + s + ", " + eps + ", " + acc);
}

void TestBuilderModules::convSingleInput() {
  QFETCH(QString, cls);
  QFETCH(QString, line);
  Model m = customModel(positional({"x"}));
  addConv(m, "c", cls.toStdString(), spec(2, 3, {2, 2, 2}, {2, 2, 2}));
  ArtifactBuilderOptions o;
  o.inputStride = fx::Value::integer(2);
  TorchLatticeArtifactBuilder b = makeBuilder(o);
  Expected<ArtifactValuePtr> v = b.module("c", at(m, "c"), m);
  QVERIFY2(v.ok(), v.ok() ? "" : v.message().c_str());
  const std::string text = textWith(b, *v);
  QCOMPARE(QString::fromStdString(lineWith(text, "%c = ")), line);
  // The weight op comes right before its user; the default input has the builder's stride.
  QCOMPARE(lineWith(text, "%c_weight = "), "%c_weight = lattice.weight @c_weight {storage_key = "
                                           "\"c.weight\", layout = #lattice.weight_layout<conv3d_o_xyz_i>, "
                                           "packing = #lattice.packing<dense>} : " +
                                               WCONV);
  QVERIFY(
      lineWith(text, "%input = lattice.sparse.make %coords, %features, %active {stride = array<i64: 2, 2, 2>")
          .size());
}

void TestBuilderModules::convErrors() {
  Model m = customModel(positional({"x"}));
  addConv(m, "conv", "Conv3d", ConvSpec{});
  addConv(m, "subm", "SubmConv3d", spec(2, 3, {3, 3, 3}));
  for (const char* cls :
       {"NormalizedSubmConv3d", "NormalizedConvTranspose3d", "NormalizedGenerativeConvTranspose3d"})
    addConv(m, cls, cls, spec(2, 3, {3, 3, 3}));
  addConv(m, "bad", "Conv3d",
          ConvSpec{2, 3, {3, 1, 3}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, false, 1e-8, arange({15, 2, 3})});

  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(b, "x", 2);
  ArtifactValuePtr dense = denseArg(b, "d", "tensor<?x2xf32>", 2);

  QCOMPARE(lower(b, m, "conv", {x, x, x}).message(),
           std::string("Conv3d artifact expects 1 or 2 symbolic lattice values."));
  QCOMPARE(lower(b, m, "subm", {x, x}).message(),
           std::string("SubmConv3d artifact expects 1 symbolic lattice values."));
  QCOMPARE(lower(b, m, "conv", {}).message(),
           std::string("Conv3d artifact expects 1 or 2 symbolic lattice values."));
  QCOMPARE(lower(b, m, "conv", {dense}).message(),
           std::string("Conv3d expects sparse_tensor, got dense_tensor."));
  QCOMPARE(b.writer().opCount(), std::size_t(1)); // only x's sparse.make: the kind check comes first
  // A None primary input is replaced by the current value, and there is none.
  QCOMPARE(
      lower(b, m, "conv", {nullptr}).message(),
      std::string("builder has no current value; pass explicit inputs or create a default sparse input."));
  QCOMPARE(lower(b, m, "bad", {x}).message(),
           std::string("Conv3d kernel shape (15, 2, 3) does not match kernel_size=(3, 1, 3)."));

  // The target is checked after the weight op was emitted.
  QCOMPARE(lower(b, m, "conv", {x, dense}).message(),
           std::string("Conv3d expects sparse_tensor, got dense_tensor."));
  QCOMPARE(emittedOps(b).back(), std::string("weight"));

  ArtifactBuilderOptions q = noDefaultInput();
  q.quantizeBits = 8;
  TorchLatticeArtifactBuilder qb = makeBuilder(q);
  ArtifactValuePtr qx = sparseArg(qb, "x", 2);
  for (const char* cls :
       {"NormalizedSubmConv3d", "NormalizedConvTranspose3d", "NormalizedGenerativeConvTranspose3d"}) {
    QCOMPARE(lower(qb, m, cls, {qx}).message(),
             std::string(cls) + " artifact export does not support packed weights because normalization "
                                "depends on weight squares.");
  }
  QCOMPARE(qb.writer().opCount(), std::size_t(1)); // refused before any op
  QVERIFY(qb.weights().empty());

  // _triple on a malformed kernel_size.
  m.module("conv")->attributes[2].second = fx::Value::tuple({fx::Value::integer(1), fx::Value::integer(2)});
  QCOMPARE(lower(b, m, "conv", {x}).message(), std::string("expected an int or length-3 tuple, got (1, 2)."));
}

void TestBuilderModules::convWeightRelayoutAndDtype() {
  // Test 19: a root Conv3d(2→3, kernel (2,1,2)) with arange weights exports `conv3d.weight` equal
  // to weight.reshape(2,1,2,2,3).permute(4,0,1,2,3): out[o,x,y,z,i] = w[(x*1+y)*2+z, i, o].
  Model m = rootModel([](Model& model) {
    addConv(model, "", "Conv3d",
            ConvSpec{2, 3, {2, 1, 2}, {2, 1, 2}, {0, 0, 0}, {1, 1, 1}, false, 1e-8, arange({4, 2, 3})});
  });
  TorchLatticeArtifactBuilder b = makeBuilder();
  Expected<ArtifactValuePtr> v = b.module("conv3d", m.root(), m);
  QVERIFY(v.ok());
  const TensorData* w = b.weight("conv3d.weight");
  QVERIFY(w);
  QCOMPARE(w->shape(), (std::vector<int64_t>{3, 2, 1, 2, 2}));
  const std::vector<float> got = floatsOf(*w);
  for (int o = 0; o < 3; ++o)
    for (int x = 0; x < 2; ++x)
      for (int z = 0; z < 2; ++z)
        for (int i = 0; i < 2; ++i) {
          const int row = x * 2 + z;
          QCOMPARE(got[static_cast<std::size_t>(((o * 2 + x) * 2 + z) * 2 + i)],
                   static_cast<float>((row * 2 + i) * 3 + o));
        }

  // Module dtype: the first parameter's dtype (f16 → f16 results and weight types).
  Model h = customModel(positional({"x"}));
  const TensorData half = TensorData::zeros(DType::F16, {1, 2, 3});
  addConv(h, "half", "Conv3d", ConvSpec{2, 3, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, false, 1e-8, half});
  const TensorData ints = TensorData::zeros(DType::I32, {1, 2, 3});
  addConv(h, "ints", "Conv3d", ConvSpec{2, 3, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, false, 1e-8, ints});
  TorchLatticeArtifactBuilder hb = makeBuilder();
  Expected<ArtifactValuePtr> hv = hb.module("half", at(h, "half"), h);
  QVERIFY(hv.ok());
  QCOMPARE((*hv)->dtype(), std::string("f16"));
  const std::string SP16 =
      "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f16>";
  QCOMPARE((*hv)->type(), SP16);
  QCOMPARE(hb.lowerModule("ints", at(h, "ints"), h, {*hv}).message(),
           std::string("unsupported tensor dtype for lattice artifact: torch.int32"));
  QVERIFY(lineWith(textWith(hb, *hv), "%half_weight = ").find(": !lattice.weight<conv3d, f16>") !=
          std::string::npos);
}

void TestBuilderModules::pools() {
  Model m = customModel(positional({"x"}));
  addPool3d(m, "maxp", "MaxPool3d", "max", fx::Value::integer(2), fx::Value::integer(2));
  addPoolTranspose3d(m, "up", 2, 2);
  addTrilinearUpsample3d(m, "tri", 2);

  // Raw attributes go through _triple; the result keeps the input's channels (SP(input_dtype)).
  TorchLatticeArtifactBuilder b = makeBuilder();
  Expected<ArtifactValuePtr> p = b.module("maxp", at(m, "maxp"), m);
  QVERIFY(p.ok());
  QCOMPARE(
      lineWith(textWith(b, *p), "%maxp = "),
      "%maxp = lattice.pool3d %input {mode = #lattice.pool_mode<max>, kernel_size = array<i64: 2, 2, 2>, "
      "stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : (" +
          SP + ") -> " + SP);

  // Tests 46 and 48: explicit source and target.
  TorchLatticeArtifactBuilder t = makeBuilder(noDefaultInput());
  ArtifactValuePtr source = sparseArg(t, "source", 2), target = sparseArg(t, "target", 1);
  Expected<ArtifactValuePtr> up = lower(t, m, "up", {source, target});
  QVERIFY(up.ok());
  QCOMPARE((*up)->channels(), std::optional<int64_t>(2));
  Expected<ArtifactValuePtr> tri = lower(t, m, "tri", {source, target});
  QVERIFY(tri.ok());
  const std::string text = textWith(t, *tri);
  QCOMPARE(lineWith(text, "%up = "), "%up = lattice.pool_transpose3d %source, %target {kernel_size = "
                                     "array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, "
                                     "padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : (" +
                                         SP + ", " + SP + ") -> " + SP);
  QCOMPARE(lineWith(text, "%tri = "),
           "%tri = lattice.trilinear_upsample3d %source, %target {stride = array<i64: 2, 2, 2>} : (" + SP +
               ", " + SP + ") -> " + SP);

  // Test 47: one input omits the target operand.
  ArtifactBuilderOptions o;
  o.inputStride = fx::Value::integer(2);
  TorchLatticeArtifactBuilder one = makeBuilder(o);
  Expected<ArtifactValuePtr> single = one.module("up", at(m, "up"), m);
  QVERIFY(single.ok());
  QVERIFY(lineWith(textWith(one, *single), "%up = ")
              .rfind("%up = lattice.pool_transpose3d %input {kernel_size", 0) == 0);
}

void TestBuilderModules::poolErrors() {
  Model m = customModel(positional({"x"}));
  addPool3d(m, "avg", "AvgPool3d", "avg", fx::Value::integer(1), fx::Value::integer(1));
  addPoolTranspose3d(m, "up", 2, 2);
  addTrilinearUpsample3d(m, "tri", 2);
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(b, "x", 2);
  ArtifactValuePtr dense = denseArg(b, "d", "tensor<?x2xf32>", 2);
  // The label is the concrete class name.
  QCOMPARE(lower(b, m, "avg", {dense}).message(),
           std::string("AvgPool3d expects sparse_tensor, got dense_tensor."));
  QCOMPARE(lower(b, m, "up", {x, dense}).message(),
           std::string("PoolTranspose3d expects sparse_tensor, got dense_tensor."));
  QCOMPARE(lower(b, m, "tri", {dense}).message(),
           std::string("TrilinearUpsample3d expects sparse_tensor, got dense_tensor."));
  QCOMPARE(lower(b, m, "avg", {x, x}).message(),
           std::string("AvgPool3d artifact expects 1 symbolic lattice values."));
  QCOMPARE(lower(b, m, "up", {x, x, x}).message(),
           std::string("PoolTranspose3d artifact expects 1 or 2 symbolic lattice values."));
  // §3.1: PoolTranspose3d and TrilinearUpsample3d do not fall back to the current value.
  QCOMPARE(b.module("up", at(m, "up"), m).message(),
           std::string("'NoneType' object has no attribute 'kind'"));
  QCOMPARE(b.module("tri", at(m, "tri"), m).message(),
           std::string("'NoneType' object has no attribute 'kind'"));
  QCOMPARE(
      b.module("avg", at(m, "avg"), m).message(),
      std::string("builder has no current value; pass explicit inputs or create a default sparse input."));
}

void TestBuilderModules::dispatchWalksBases() {
  Model m = customModel(positional({"x"}));
  // A user subclass of nn.ReLU is lowered as ReLU (its own forward is ignored).
  attach(m, "act", record("user.blocks.MyReLU", {"torch.nn.modules.activation.ReLU"}));
  // A user subclass of SubmConv3d: lowered as SubmConv3d, messages use the concrete class name.
  ModuleInfo& conv = addConv(m, "conv", "SubmConv3d", spec(2, 3, {3, 3, 3}));
  conv.bases.insert(conv.bases.begin(), conv.type);
  conv.type = "user.blocks.MyConv";

  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(b, "x", 2);
  QVERIFY(TorchLatticeArtifactBuilder::hasModuleLowering(at(m, "act")));
  QCOMPARE(lower(b, m, "conv", {x, x}).message(),
           std::string("MyConv artifact expects 1 symbolic lattice values."));
  Expected<ArtifactValuePtr> c = lower(b, m, "conv", {x});
  QVERIFY(c.ok());
  Expected<ArtifactValuePtr> a = lower(b, m, "act", {*c});
  QVERIFY(a.ok());
  const std::string text = textWith(b, *a);
  QVERIFY(lineWith(text, "%conv = lattice.subm_conv3d %x, %conv_weight {").size());
  QCOMPARE(
      lineWith(text, "%act_features = "),
      "%act_features = lattice.activation %act_features_in {kind = #lattice.activation<relu>, approximate = "
      "#lattice.gelu_approx<none>, alpha = 0.01 : f32, beta = 1.0 : f32, threshold = 20.0 : f32} : "
      "(tensor<?x3xf32>) -> tensor<?x3xf32>");
}

void TestBuilderModules::unsupportedAndRefused_data() {
  QTest::addColumn<QString>("type");
  QTest::addColumn<QStringList>("bases");
  QTest::addColumn<QString>("message");
  auto row = [](const char* tag, const char* type, QStringList bases, const char* message) {
    QTest::newRow(tag) << QString::fromLatin1(type) << bases << QString::fromLatin1(message);
  };
  row("torch GroupNorm", "torch.nn.modules.normalization.GroupNorm", {},
      "unsupported module for lattice artifact: GroupNorm");
  row("torch Conv3d", "torch.nn.modules.conv.Conv3d", {QStringLiteral("torch.nn.modules.conv._ConvNd")},
      "unsupported module for lattice artifact: Conv3d");
  row("BatchNorm1d", "torch.nn.modules.batchnorm.BatchNorm1d",
      {QStringLiteral("torch.nn.modules.batchnorm._BatchNorm")},
      "unsupported module for lattice artifact: BatchNorm1d");
  row("Dropout2d", "torch.nn.modules.dropout.Dropout2d",
      {QStringLiteral("torch.nn.modules.dropout._DropoutNd")},
      "unsupported module for lattice artifact: Dropout2d");
  row("ReLU6", "torch.nn.modules.activation.ReLU6", {QStringLiteral("torch.nn.modules.activation.Hardtanh")},
      "unsupported module for lattice artifact: ReLU6");
  row("InstanceNorm", "torch_lattice.nn.modules.norm.InstanceNorm",
      {QStringLiteral("torch.nn.modules.instancenorm.InstanceNorm1d")},
      "InstanceNorm artifact is not supported without a dedicated lattice normalization op.");
  row("GroupNorm", "torch_lattice.nn.modules.norm.GroupNorm",
      {QStringLiteral("torch.nn.modules.normalization.GroupNorm")},
      "GroupNorm artifact is not supported without a dedicated lattice normalization op.");
  row("SparseCrop", "torch_lattice.nn.modules.crop.SparseCrop", {},
      "SparseCrop artifact is not supported until the lattice dialect defines a sparse crop op.");
}

void TestBuilderModules::unsupportedAndRefused() {
  QFETCH(QString, type);
  QFETCH(QStringList, bases);
  QFETCH(QString, message);
  std::vector<std::string> b;
  for (const QString& s : bases)
    b.push_back(s.toStdString());
  Model m = customModel(positional({"x"}));
  attach(m, "mod", record(type.toStdString(), b));
  TorchLatticeArtifactBuilder builder = makeBuilder();
  Expected<ArtifactValuePtr> v = builder.module("mod", at(m, "mod"), m);
  QVERIFY(!v.ok());
  QCOMPARE(QString::fromStdString(v.message()), message);
  QCOMPARE(builder.writer().opCount(), std::size_t(1)); // nothing but the default input
  if (message.contains(QLatin1String("not supported"))) {
    // The refusal comes after the arity check.
    QCOMPARE(QString::fromStdString(builder.lowerModule("mod", at(m, "mod"), m, {}).message()),
             type.section(QLatin1Char('.'), -1) +
                 QStringLiteral(" artifact expects 1 symbolic lattice values."));
  }
}

void TestBuilderModules::chainApi() {
  Model m = customModel(positional({"x"}));
  addConv(m, "stem", "Conv3d", ConvSpec{});
  addIdentity(m, "id");
  addActivation(m, "act", "ReLU");
  TorchLatticeArtifactBuilder b = makeBuilder();
  ArtifactValuePtr input = b.currentOrNull();
  QVERIFY(input);
  QCOMPARE(input->name(), std::string("input"));
  QCOMPARE(input->channels(), std::optional<int64_t>());
  Expected<ArtifactValuePtr> stem = b.module("stem", at(m, "stem"), m);
  QVERIFY(stem.ok());
  QCOMPARE(b.currentOrNull(), *stem); // module() stores the result as the current value
  Expected<ArtifactValuePtr> id = b.module("id", at(m, "id"), m);
  QCOMPARE(*id, *stem); // pass-through returns the value itself
  // lowerModule does not touch current.
  Expected<ArtifactValuePtr> act = b.lowerModule("act", at(m, "act"), m, {*stem});
  QVERIFY(act.ok());
  QCOMPARE(b.currentOrNull(), *stem);
  // A reused parameter-free module: its names are uniqued by the text builder's counter.
  Expected<ArtifactValuePtr> act2 = b.lowerModule("act", at(m, "act"), m, {*act});
  QVERIFY(act2.ok());
  QCOMPARE((*act2)->name(), std::string("act1"));
  const std::string text = textWith(b, *act2);
  QVERIFY(
      lineWith(text, "%sparse_decompose1, %act_features_in1, %act_active1 = lattice.sparse.decompose %act :")
          .size());
  QCOMPARE(lineWith(text, "%act1 = "), "%act1 = lattice.sparse.with_features %act, %act_features1  : (" + SP +
                                           ", tensor<?x3xf32>) -> " + SP);
}

QTEST_APPLESS_MAIN(TestBuilderModules)
#include "tst_builder_modules.moc"
