// TorchLatticeArtifactBuilder naming and bookkeeping (lowering.md §5): the §5.6 sanitiser table and
// the names derived from module paths, constructor validation (§5.1), the default input and
// argument helpers (§5.2–§5.4), weight registration and the duplicate-key error (§5.7), output
// naming and roles (§5.10), and the provenance that maps arguments, ops and weight keys back to
// the owner (FX node) that produced them.

#include "BuilderTestSupport.h"
#include "LoweringTestModels.h"
#include "lowering/Names.h"

#include <QtTest/QtTest>

using namespace lattice;
using namespace lattice::testmodels;
using namespace lattice::buildertest;

namespace {

std::string mlir(TorchLatticeArtifactBuilder& b) {
  Expected<std::string> text = b.toMlir();
  if (!text) qFatal("to_mlir: %s", text.message().c_str());
  return *text;
}

} // namespace

class TestBuilderNames : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void sanitisers_data();
  void sanitisers();
  void derivedNames();
  void optionValidation_data();
  void optionValidation();
  void defaultInput();
  void arguments();
  void duplicateWeightKeys();
  void weightSymbolsFollowTheSanitiser();
  void quantizedWeights();
  void outputs();
  void provenance();
};

void TestBuilderNames::sanitisers_data() {
  QTest::addColumn<QString>("input");
  QTest::addColumn<QString>("key");
  QTest::addColumn<QString>("value");
  // The §5.6 table, row by row.
  const char* rows[][3] = {{"stem", "stem", "stem"},
                           {"0", "0", "v_0"},
                           {"0.1.main.0", "0.1.main.0", "v_0_1_main_0"},
                           {"decoders.0.upsample.0", "decoders.0.upsample.0", "decoders_0_upsample_0"},
                           {"stem.weight", "stem.weight", "stem_weight"},
                           {"0.weight", "0.weight", "v_0_weight"},
                           {"my-layer/conv", "my_layer_conv", "my_layer_conv"},
                           {".a..b.", "a..b", "a_b"},
                           {"__init__", "init", "init"},
                           {"_private.x_", "private.x", "private_x"},
                           {"", "layer", "value"},
                           {"...", "layer", "value"},
                           {"1abc", "1abc", "v_1abc"},
                           {"h\xc3\xa9llo", "h_llo", "h_llo"},
                           {"A.B-C", "A.B_C", "A_B_C"}};
  for (const auto& r : rows)
    QTest::newRow(r[0][0] ? r[0] : "empty")
        << QString::fromUtf8(r[0]) << QString::fromLatin1(r[1]) << QString::fromLatin1(r[2]);
}

void TestBuilderNames::sanitisers() {
  QFETCH(QString, input);
  QFETCH(QString, key);
  QFETCH(QString, value);
  const std::string in = input.toStdString();
  QCOMPARE(QString::fromStdString(safeKey(in)), key);
  QCOMPARE(QString::fromStdString(safeValueName(in)), value);
}

void TestBuilderNames::derivedNames() {
  // §5.6 "names derived from a module name N": module `0.1.main.0` → result `v_0_1_main_0`,
  // storage key `0.1.main.0.weight`, weight op `%v_0_1_main_0_weight = lattice.weight @v_0_1_main_0_weight`;
  // a feature op on `0.1.main.1` gives `v_0_1_main_1_features_in` / `_active` / `_features`.
  QCOMPARE(weightStorageKey("0.1.main.0", "weight"), std::string("0.1.main.0.weight"));
  QCOMPARE(weightStorageKey("my-layer/conv", "bias"), std::string("my_layer_conv.bias"));
  Model m = customModel(positional({"x"}));
  // The lowering name (the FX call_module target) is what names derive from.
  addConv(m, "conv", "SubmConv3d", spec(2, 2, {3, 3, 3}));
  addBatchNorm(m, "bn", 2);
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(b, "x", 2);
  Expected<ArtifactValuePtr> c = b.lowerModule("0.1.main.0", *m.module("conv"), m, {x});
  QVERIFY(c.ok());
  QCOMPARE((*c)->name(), std::string("v_0_1_main_0"));
  Expected<ArtifactValuePtr> n = b.lowerModule("0.1.main.1", *m.module("bn"), m, {*c});
  QVERIFY(n.ok());
  QVERIFY(b.weight("0.1.main.0.weight"));
  QVERIFY(b.weight("0.1.main.1.running_var"));
  b.setCurrent(*n);
  const std::string text = mlir(b);
  QVERIFY(
      rawLineWith(
          text,
          "%v_0_1_main_0_weight = lattice.weight @v_0_1_main_0_weight {storage_key = \"0.1.main.0.weight\"")
          .size());
  QVERIFY(rawLineWith(text, "%sparse_decompose, %v_0_1_main_1_features_in, %v_0_1_main_1_active = "
                            "lattice.sparse.decompose %v_0_1_main_0 :")
              .size());
  QVERIFY(rawLineWith(
              text,
              "%v_0_1_main_1_features = lattice.batch_norm %v_0_1_main_1_features_in, %v_0_1_main_1_weight,")
              .size());
  QVERIFY(
      rawLineWith(text, "%v_0_1_main_1 = lattice.sparse.with_features %v_0_1_main_0, %v_0_1_main_1_features")
          .size());
}

void TestBuilderNames::optionValidation_data() {
  QTest::addColumn<int>("which");
  QTest::addColumn<QString>("message");
  QTest::newRow("input_dtype") << 0 << "input_dtype must be 'f16' or 'f32'.";
  QTest::newRow("batch_size") << 1 << "batch_size must be non-negative or None.";
  QTest::newRow("quantize_bits") << 2 << "quantize_bits must be None, 4, or 8.";
  QTest::newRow("quantize_group_size") << 3 << "quantize_group_size must be positive.";
  QTest::newRow("quantize_scale_dtype") << 4 << "quantize_scale_dtype must be 'f16' or 'f32'.";
  QTest::newRow("input_stride pair") << 5 << "expected an int or length-3 tuple, got (1, 2).";
  QTest::newRow("input_stride float") << 6 << "expected an int or length-3 tuple, got 2.0.";
  QTest::newRow("first failing check wins") << 7 << "input_dtype must be 'f16' or 'f32'.";
}

void TestBuilderNames::optionValidation() {
  QFETCH(int, which);
  QFETCH(QString, message);
  ArtifactBuilderOptions o;
  switch (which) {
  case 0:
    o.inputDtype = "i32";
    break;
  case 1:
    o.batchSize = -1;
    break;
  case 2:
    o.quantizeBits = 2;
    break;
  case 3:
    o.quantizeGroupSize = 0;
    break;
  case 4:
    o.quantizeScaleDtype = "bf16";
    break;
  case 5:
    o.inputStride = fx::Value::list({fx::Value::integer(1), fx::Value::integer(2)});
    break;
  case 6:
    o.inputStride = fx::Value::floating(2.0);
    break;
  case 7:
    o.inputDtype = "f64";
    o.batchSize = -3;
    o.quantizeBits = 3;
    break;
  }
  Expected<TorchLatticeArtifactBuilder> b = TorchLatticeArtifactBuilder::create(o);
  QVERIFY(!b.ok());
  QCOMPARE(QString::fromStdString(b.message()), message);
}

void TestBuilderNames::defaultInput() {
  // §5.2 with input_dtype f16, a custom input name and stride (2,1,2).
  ArtifactBuilderOptions o;
  o.inputDtype = "f16";
  o.inputName = "source";
  o.inputStride = fx::Value::tuple({fx::Value::integer(2), fx::Value::integer(1), fx::Value::integer(2)});
  o.batchSize = 0;
  TorchLatticeArtifactBuilder b = makeBuilder(o);
  QCOMPARE(b.inputStride(), (std::array<int64_t, 3>{2, 1, 2}));
  const std::string SP16 =
      "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f16>";
  const std::vector<std::string> expected = {
      "module attributes {",
      "  lattice.ir_version = 2,",
      "  lattice.schema_digest = \"1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad\",",
      "  lattice.input_names = [\"coords\", \"features\", \"active\"],",
      "  lattice.input_roles = [\"sparse_coords\", \"sparse_features\", \"sparse_active\"],",
      "  lattice.output_names = [\"output\"],",
      "  lattice.output_roles = [\"sparse_tensor\"],",
      "  lattice.weight_file = \"weights.safetensors\"",
      "} {",
      "  func.func @forward(",
      "    %coords: tensor<?x4xi32>,",
      "    %features: tensor<?x?xf16>,",
      "    %active: tensor<1xi32>",
      "  ) -> " + SP16 + " {",
      "    %source = lattice.sparse.make %coords, %features, %active {stride = array<i64: 2, 1, 2>, "
      "coord_order = "
      "#lattice.coord<batch_x_y_z>} : (tensor<?x4xi32>, tensor<?x?xf16>, tensor<1xi32>) -> " +
          SP16,
      "    return %source : " + SP16,
      "  }",
      "}"};
  QCOMPARE(lines(mlir(b)), expected); // to_mlir() outputs the current value when not finalized
  QVERIFY(b.finalized());

  TorchLatticeArtifactBuilder none = makeBuilder(noDefaultInput());
  QCOMPARE(
      none.current().message(),
      std::string("builder has no current value; pass explicit inputs or create a default sparse input."));
  QCOMPARE(
      none.toMlir().message(),
      std::string("builder has no current value; pass explicit inputs or create a default sparse input."));
}

void TestBuilderNames::arguments() {
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  // §5.3: the name is sanitised, the dtype is not validated, stride is the argument's own.
  Expected<ArtifactValuePtr> s = b.sparseArgument("my-x", "i32", 5, {2, 2, 1});
  QVERIFY(s.ok());
  QCOMPARE((*s)->name(), std::string("my_x"));
  QCOMPARE((*s)->channels(), std::optional<int64_t>(5));
  // §5.4: dense arguments keep their exact name and have role `tensor`.
  Expected<ArtifactValuePtr> d = b.denseArgument("points", "tensor<?x3xf32>", 3);
  QVERIFY(d.ok());
  QVERIFY((*d)->isDense());
  QVERIFY(b.currentOrNull() == nullptr); // neither changes current
  QVERIFY(b.output({*d}).ok());
  const std::string text = mlir(b);
  QCOMPARE(rawLineWith(text, "lattice.input_names"),
           std::string(
               "  lattice.input_names = [\"my_x_coords\", \"my_x_features\", \"my_x_active\", \"points\"],"));
  QCOMPARE(rawLineWith(text, "lattice.input_roles"),
           std::string("  lattice.input_roles = [\"sparse_coords\", \"sparse_features\", \"sparse_active\", "
                       "\"tensor\"],"));
  QCOMPARE(rawLineWith(text, "%my_x_features:"), std::string("    %my_x_features: tensor<?x5xi32>,"));
  QCOMPARE(
      rawLineWith(text, "%my_x = "),
      "    %my_x = lattice.sparse.make %my_x_coords, %my_x_features, %my_x_active {stride = array<i64: 2, 2, "
      "1>, "
      "coord_order = #lattice.coord<batch_x_y_z>} : (tensor<?x4xi32>, tensor<?x5xi32>, tensor<1xi32>) -> "
      "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = i32>");
}

void TestBuilderNames::duplicateWeightKeys() {
  // §2.5: a parameterised module called twice registers its key twice.
  Model m = customModel(positional({"x"}));
  addConv(m, "stem", "Conv3d", spec(2, 3, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, true));
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(b, "x", 2);
  QVERIFY(b.lowerModule("stem", *m.module("stem"), m, {x}).ok());
  QCOMPARE(b.lowerModule("stem", *m.module("stem"), m, {x}).message(),
           std::string("duplicate exported weight key: stem.weight"));
  // The key is the sanitised module name plus the parameter: `stem/` collides with `stem`.
  QCOMPARE(b.registerWeight("stem/", "bias", filled({3}, 0.0f), "bias", "bias_c").message(),
           std::string("duplicate exported weight key: stem.bias"));
  // Non-float weights are refused.
  QCOMPARE(b.registerWeight("other", "weight", TensorData::zeros(DType::I64, {3}), "channel", "channel_c")
               .message(),
           std::string("unsupported tensor dtype for lattice artifact: torch.int64"));
  // Two names that sanitise to the same SSA name get distinct keys (nothing checks SSA names).
  Expected<ValueId> w1 = b.registerWeight("a.b", "weight", filled({2}, 1.0f), "channel", "channel_c");
  Expected<ValueId> w2 = b.registerWeight("a_b", "weight", filled({2}, 1.0f), "channel", "channel_c");
  QVERIFY(w1.ok() && w2.ok());
  QCOMPARE(std::string(b.writer().name(*w1)), std::string("a_b_weight"));
  QCOMPARE(std::string(b.writer().name(*w2)), std::string("a_b_weight1"));
  std::vector<std::string> keys;
  for (const NamedTensor& t : b.weights())
    keys.push_back(t.key);
  QCOMPARE(keys, (std::vector<std::string>{"stem.weight", "stem.bias", "a.b.weight", "a_b.weight"}));
}

void TestBuilderNames::weightSymbolsFollowTheSanitiser() {
  // Whatever the names, a weight's symbol (and its SSA stem) is §5.6's
  // safeValueName(safeKey(module) + "." + parameter), and its storage key weightStorageKey's.
  const std::vector<std::string> modules = {"stem", "0", "0.1.main.0", "my-layer/conv", ".a..b.", "__init__",
                                            "_private.x_", "", "...", "1abc", "h\xc3\xa9llo", "A.B-C"};
  const std::vector<std::string> parameters = {"weight", "bias", "running_mean", "w_", "_x", "a.b",
                                               "",       "x-y",  "9",            "__", "b2"};
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  std::size_t checked = 0;
  for (std::size_t m = 0; m < modules.size(); ++m) {
    for (const std::string& parameter : parameters) {
      // A distinct module per case keeps storage keys apart; the suffix is a plain path part.
      const std::string module = modules[m] + ".m" + std::to_string(checked);
      Expected<ValueId> w = b.registerWeight(module, parameter, filled({2}, 1.0f), "channel", "channel_c");
      QVERIFY2(w.ok(), w.ok() ? "" : w.message().c_str());
      const std::string key = weightStorageKey(module, parameter);
      const std::string symbol = safeValueName(key);
      const std::string line(b.writer().ops().back().text);
      QVERIFY2(line.find(" = lattice.weight @" + symbol + " {storage_key = \"" + key + "\"") != std::string::npos,
               line.c_str());
      QVERIFY(b.writer().name(*w).substr(0, symbol.size()) == symbol);
      QCOMPARE(b.weights().back().key, key);
      ++checked;
    }
  }
  // The same module twice in a row, then another, then the first again.
  for (const char* module : {"x.y", "x.y", "z-z", "x.y"}) {
    const std::string parameter = "p" + std::to_string(checked++);
    Expected<ValueId> w = b.registerWeight(module, parameter, filled({2}, 1.0f), "channel", "channel_c");
    QVERIFY(w.ok());
    QCOMPARE(std::string(b.writer().name(*w)), safeValueName(weightStorageKey(module, parameter)));
  }
}

void TestBuilderNames::quantizedWeights() {
  // Test 29: quantize_bits=8 stores key.weight / .scales / .biases and the graph keeps `key`.
  Model m = customModel(positional({"x"}));
  addConv(m, "0", "Conv3d", spec(2, 3));
  ArtifactBuilderOptions o;
  o.quantizeBits = 8;
  TorchLatticeArtifactBuilder b = makeBuilder(o);
  Expected<ArtifactValuePtr> v = b.module("0", *m.module("0"), m);
  QVERIFY(v.ok());
  std::vector<std::string> keys;
  for (const NamedTensor& t : b.weights())
    keys.push_back(t.key);
  QCOMPARE(keys, (std::vector<std::string>{"0.weight.weight", "0.weight.scales", "0.weight.biases"}));
  QCOMPARE(b.weight("0.weight.weight")->dtype(), DType::U32);
  QCOMPARE(b.weight("0.weight.weight")->shape(), (std::vector<int64_t>{1, 3, 8})); // §5.7 example
  QCOMPARE(b.weight("0.weight.scales")->shape(), (std::vector<int64_t>{1, 3, 1}));
  QCOMPARE(rawLineWith(mlir(b), "%v_0_weight = "),
           "    %v_0_weight = lattice.weight @v_0_weight {storage_key = \"0.weight\", layout = "
           "#lattice.weight_layout<conv3d_o_xyz_i>, packing = #lattice.packing<int8, group_size = 32, "
           "scale_dtype = f16, "
           "mode = affine>} : !lattice.weight<conv3d, f32>");
  // The quantised entry blocks the plain key too.
  QCOMPARE(b.registerWeight("0", "weight", filled({3}, 0.0f), "bias", "bias_c").message(),
           std::string("duplicate exported weight key: 0.weight"));
}

void TestBuilderNames::outputs() {
  ArtifactBuilderOptions o = noDefaultInput();
  o.batchSize = 1;
  o.outputName = "result";
  TorchLatticeArtifactBuilder b = makeBuilder(o);
  ArtifactValuePtr x = sparseArg(b, "x", 2);
  Expected<ArtifactValuePtr> pooled = b.globalPool("gp", "avg", x);
  QVERIFY(pooled.ok());
  // Several values: `{output_name}_{i}`; roles by kind.
  QVERIFY(b.output({x, *pooled}).ok());
  std::string text = mlir(b);
  QCOMPARE(rawLineWith(text, "lattice.output_names"),
           std::string("  lattice.output_names = [\"result_0\", \"result_1\"],"));
  QCOMPARE(rawLineWith(text, "lattice.output_roles"),
           std::string("  lattice.output_roles = [\"sparse_tensor\", \"tensor\"],"));
  QCOMPARE(rawLineWith(text, "return "), "    return %x, %gp : " + SP + ", tensor<?x2xf32>");
  QCOMPARE(rawLineWith(text, ") -> "), "  ) -> (" + SP + ", tensor<?x2xf32>) {");
  // Explicit names (not sanitised); calling output again replaces the return.
  QVERIFY(b.output({*pooled, x}, std::vector<std::string>{"features", "sum-mary"}).ok());
  text = mlir(b);
  QCOMPARE(rawLineWith(text, "lattice.output_names"),
           std::string("  lattice.output_names = [\"features\", \"sum-mary\"],"));
  QCOMPARE(b.output({x}, std::vector<std::string>{"a", "b"}).message(),
           std::string("output names must match the number of artifact outputs"));
  // One value: `output_name` itself.
  QVERIFY(b.output({x}).ok());
  QCOMPARE(rawLineWith(mlir(b), "lattice.output_names"),
           std::string("  lattice.output_names = [\"result\"],"));
}

void TestBuilderNames::provenance() {
  Model m = customModel(positional({"x"}));
  addConv(m, "stem", "Conv3d", spec(2, 3, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, true));
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  b.setCurrentNode("x");
  ArtifactValuePtr x = sparseArg(b, "x", 2);
  b.setCurrentNode("stem");
  Expected<ArtifactValuePtr> stem = b.lowerModule("stem", *m.module("stem"), m, {x});
  QVERIFY(stem.ok());
  b.setCurrentNode("add");
  Expected<ArtifactValuePtr> add = b.lowerFunction("operator.add", {toFxValue(*stem), toFxValue(*stem)}, {});
  QVERIFY(add.ok());
  b.setCurrentNode("act");
  QVERIFY(b.activation("act", "relu", *add).ok());
  QVERIFY(b.output({*add}).ok());
  const std::string text = mlir(b);
  const std::vector<std::string> all = lines(text);

  QCOMPARE(b.provenanceOf("x").size(), std::size_t(4)); // three arguments and the sparse.make
  const std::vector<const OpProvenance*> stemRecords = b.provenanceOf("stem");
  QCOMPARE(stemRecords.size(), std::size_t(3));
  QCOMPARE(stemRecords[0]->op, std::string("weight"));
  QCOMPARE(b.weightKeysOf(*stemRecords[0]), std::vector<std::string>{"stem.weight"});
  QCOMPARE(b.weightKeysOf(*stemRecords[1]), std::vector<std::string>{"stem.bias"});
  QCOMPARE(b.weightKeysOf(*stemRecords[2]), std::vector<std::string>{});
  QCOMPARE(stemRecords[2]->op, std::string("conv3d"));
  QCOMPARE(b.resultsOf(*stemRecords[2]), std::vector<std::string>{"stem"});
  QCOMPARE(b.resultsOf(*b.provenanceOf("x")[0]), std::vector<std::string>{"x_coords"});
  for (const OpProvenance* p : stemRecords)
    QCOMPARE(b.ownerOf(*p), std::string("stem"));
  // A three-result op: the decompose of the activation's feature pattern.
  const std::vector<const OpProvenance*> actRecords = b.provenanceOf("act");
  QCOMPARE(actRecords.size(), std::size_t(3));
  QCOMPARE(actRecords[0]->op, std::string_view("sparse.decompose"));
  QCOMPARE(b.resultsOf(*actRecords[0]),
           (std::vector<std::string>{"sparse_decompose", "act_features_in", "act_active"}));
  QCOMPARE(*b.weightOwner("stem.bias"), std::string("stem"));
  QVERIFY(!b.weightOwner("nope"));
  // Lines: every record points at the line that defines its results.
  for (const OpProvenance& p : b.provenance()) {
    const std::size_t line = b.lineOf(p);
    QVERIFY(line >= 1 && line <= all.size());
    const std::string expectedStart =
        p.kind == OpProvenance::Kind::Argument ? "    %" + b.resultsOf(p)[0] + ":" : "    %" + b.resultsOf(p)[0];
    QVERIFY2(all[line - 1].rfind(expectedStart, 0) == 0, all[line - 1].c_str());
  }
  QCOMPARE(b.lineOf(*b.provenanceOf("add")[0]),
           std::size_t(19)); // 9 header + 2 + 3 args + ") ->" + make + 2 weights + conv + add
}

QTEST_APPLESS_MAIN(TestBuilderNames)
#include "tst_builder_names.moc"
