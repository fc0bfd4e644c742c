// Tests for MlirModuleWriter: SSA naming (format spec sec. 9), module layout edge cases (sec. 3),
// op line forms, attribute order and defaults (sec. 6, 8), errors (sec. 16), line provenance and
// linear-time building. Value texts are in tst_mlir_attributes; the byte-exact conformance
// rebuilds are in tst_mlir_writer_conformance.

#include "dialect/MlirTypes.h"
#include "dialect/MlirWriter.h"

#include <QtTest/QtTest>

#include <cmath>
#include <random>
#include <regex>
#include <limits>
#include <tuple>

using namespace lattice;

namespace {

QString q(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// A dense f32 weight record named like the torch producer names it (lowering spec sec. 5.6-5.7).
OpRecord weightRecord(const std::string& key, const std::string& layout, const std::string& family) {
  std::string safe = key;
  std::replace(safe.begin(), safe.end(), '.', '_');
  OpRecord r;
  r.op = "weight";
  r.symbol = safe;
  r.attributes = {{"storage_key", key}, {"layout", layout}, {"packing", PackingAttr::dense()}};
  r.resultStems = {safe};
  r.resultTypes = {weightType(family, "f32")};
  return r;
}

OpRecord activationRecord(const MlirModuleWriter& w, ValueId input, const std::string& stem) {
  OpRecord r;
  r.op = "activation";
  r.operands = {input};
  r.attributes = {
      {"kind", "relu"}, {"approximate", "none"}, {"alpha", 0.01}, {"beta", 1.0}, {"threshold", 20.0}};
  r.resultStems = {stem};
  r.resultTypes = {w.type(input)};
  return r;
}

} // namespace

class TestMlirWriter : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void uniqueNames();
  void decomposeNaming();
  void layoutOneArgumentNoOps();
  void layoutNoArguments();
  void layoutSeveralResults();
  void attributeOrderAndDefaults();
  void noAttributesLeavesDoubleSpace();
  void optionalOperands();
  void opErrors();
  void returnErrors();
  void errorDoesNotAdvanceNames();
  void weightOps();
  void nameGrammarsMatchRegex();
  void typeChecksAreRememberedPerText();
  void partialTextBeforeTheReturn();
  void manyOps();
};

void TestMlirWriter::uniqueNames() {
  // Sec. 9 and lowering spec sec. 2.5: the counter is appended directly.
  MlirModuleWriter w;
  const auto uniqueName = [&w](const char* stem) { return q(w.name(*w.addArgument(stem, "tensor<?xf32>"))); };
  QCOMPARE(uniqueName("add"), QStringLiteral("add"));
  QCOMPARE(uniqueName("add"), QStringLiteral("add1"));
  QCOMPARE(uniqueName("add"), QStringLiteral("add2"));
  QCOMPARE(uniqueName("cat_1"), QStringLiteral("cat_1"));
  QCOMPARE(uniqueName("cat_1"), QStringLiteral("cat_11"));
  QCOMPARE(uniqueName("cat_2"), QStringLiteral("cat_2"));
  QCOMPARE(uniqueName("cat_1"), QStringLiteral("cat_12"));
  QCOMPARE(uniqueName("global_pool"), QStringLiteral("global_pool"));
  QCOMPARE(uniqueName("global.pool"), QStringLiteral("global_pool1"));
  // H4: a literal digit-suffixed stem is not checked against earlier uniqued names.
  QCOMPARE(uniqueName("add1"), QStringLiteral("add1"));

  // Arguments and op results share the counter.
  MlirModuleWriter shared;
  Expected<ValueId> x = shared.addArgument("x", std::string(kCoordsTensorType));
  QVERIFY(x.ok());
  Expected<ValueId> x1 = shared.addArgument("x", std::string(kCoordsTensorType));
  QCOMPARE(q(shared.name(*x1)), QStringLiteral("x1"));
  Expected<ValueId> dotted = shared.addArgument("a.b", std::string(kActiveTensorType));
  QCOMPARE(q(shared.name(*dotted)), QStringLiteral("a_b"));
  Expected<OpResults> w1 = shared.addOp(weightRecord("x", "channel_c", "channel"));
  QVERIFY(w1.ok());
  QCOMPARE(q(shared.name(w1->front())), QStringLiteral("x2"));
  OpRecord defaultStem = weightRecord("k", "channel_c", "channel");
  defaultStem.resultStems.clear();
  Expected<OpResults> w2 = shared.addOp(defaultStem);
  Expected<OpResults> w3 = shared.addOp(defaultStem);
  QCOMPARE(q(shared.name(w2->front())), QStringLiteral("weight"));
  QCOMPARE(q(shared.name(w3->front())), QStringLiteral("weight1"));
  // Ids are handed out in definition order, an op's results one after another.
  QCOMPARE(x->index, 0u);
  QCOMPARE(w3->front().index, 5u);
  QCOMPARE(shared.valueCount(), std::size_t(6));
}

void TestMlirWriter::decomposeNaming() {
  // Sec. 9 verified examples.
  MlirModuleWriter w;
  const std::string sp = sparseTensorType("f32");
  Expected<ValueId> in = w.addArgument("up", sp);
  QVERIFY(in.ok());
  OpRecord d;
  d.op = "sparse.decompose";
  d.operands = {*in};
  d.resultTypes = {std::string(kCoordsTensorType), "tensor<?x3xf32>", std::string(kActiveTensorType)};
  d.resultStems = {"", "act_features_in", "act_active"};
  Expected<OpResults> first = w.addOp(d);
  QVERIFY(first.ok());
  QCOMPARE(first->size(), std::size_t(3));
  QCOMPARE(q(w.name((*first)[2])), QStringLiteral("act_active"));
  QCOMPARE(q(w.ops().back().text),
           q("%sparse_decompose, %act_features_in, %act_active = lattice.sparse.decompose %up : " + sp +
             " -> (tensor<?x4xi32>, tensor<?x3xf32>, tensor<1xi32>)"));
  Expected<OpResults> second = w.addOp(d);
  QCOMPARE(q(w.name((*second)[0])), QStringLiteral("sparse_decompose1"));
  QCOMPARE(q(w.name((*second)[1])), QStringLiteral("act_features_in1"));
  d.resultStems = {"parts", "parts", "parts"};
  Expected<OpResults> parts = w.addOp(d);
  QCOMPARE(q(w.name((*parts)[0])), QStringLiteral("parts"));
  QCOMPARE(q(w.name((*parts)[1])), QStringLiteral("parts1"));
  QCOMPARE(q(w.name((*parts)[2])), QStringLiteral("parts2"));
}

void TestMlirWriter::layoutOneArgumentNoOps() {
  // Sec. 3: zero ops leave an empty body line.
  MlirModuleWriter w;
  Expected<ValueId> x = w.addArgument("x", "tensor<?x3xf32>");
  QVERIFY(w.setReturn({*x}).ok());
  Expected<std::string> text = w.str();
  QVERIFY(text.ok());
  QCOMPARE(
      q(*text),
      QStringLiteral(
          "module attributes {\n"
          "  lattice.ir_version = 2,\n"
          "  lattice.schema_digest = \"1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad\",\n"
          "  lattice.input_names = [\"x\"],\n"
          "  lattice.input_roles = [\"tensor\"],\n"
          "  lattice.output_names = [\"x\"],\n"
          "  lattice.output_roles = [\"tensor\"],\n"
          "  lattice.weight_file = \"weights.safetensors\"\n"
          "} {\n"
          "  func.func @forward(\n"
          "    %x: tensor<?x3xf32>\n"
          "  ) -> tensor<?x3xf32> {\n"
          "\n"
          "    return %x : tensor<?x3xf32>\n"
          "  }\n"
          "}\n"));
  QCOMPARE(w.argumentLine(0), std::size_t(11));
  QCOMPARE(w.returnLine(), std::size_t(14));
}

void TestMlirWriter::layoutNoArguments() {
  // Sec. 3: zero arguments leave a line of exactly four spaces.
  MlirModuleWriter w;
  Expected<OpResults> weight = w.addOp(weightRecord("scale", "channel_c", "channel"));
  QVERIFY(weight.ok());
  QVERIFY(w.setReturn({weight->front()}, {"s"}, {"weight"}).ok());
  Expected<std::string> text = w.str();
  QVERIFY(text.ok());
  const QString expectedTail = QStringLiteral("  lattice.input_names = [],\n"
                                              "  lattice.input_roles = [],\n"
                                              "  lattice.output_names = [\"s\"],\n"
                                              "  lattice.output_roles = [\"weight\"],\n"
                                              "  lattice.weight_file = \"weights.safetensors\"\n"
                                              "} {\n"
                                              "  func.func @forward(\n"
                                              "    \n"
                                              "  ) -> !lattice.weight<channel, f32> {\n"
                                              "    %scale = lattice.weight @scale {storage_key = \"scale\", "
                                              "layout = #lattice.weight_layout<channel_c>, packing = "
                                              "#lattice.packing<dense>} : !lattice.weight<channel, f32>\n"
                                              "    return %scale : !lattice.weight<channel, f32>\n"
                                              "  }\n"
                                              "}\n");
  QVERIFY2(q(*text).endsWith(expectedTail), text->c_str());
  QCOMPARE(w.opLine(0), std::size_t(13));
  QCOMPARE(q(text->substr(0, text->size() - 1)).split(QLatin1Char('\n')).at(12),
           QStringLiteral("    ") + q(w.ops()[0].text));
}

void TestMlirWriter::layoutSeveralResults() {
  // Sec. 3: result types in parentheses after `->`, bare in the return; roles by type.
  MlirModuleWriter w;
  Expected<ValueId> dense = w.addArgument("d", "tensor<?x2xf32>");
  Expected<ValueId> sparse = w.addArgument("s", sparseTensorType("f32"));
  QVERIFY(w.setReturn({*sparse, *dense}, {"output_0", "output_1"}).ok());
  Expected<std::string> text = w.str();
  QVERIFY(text.ok());
  const std::string sp = sparseTensorType("f32");
  QVERIFY(q(*text).contains(QStringLiteral("  lattice.output_names = [\"output_0\", \"output_1\"],\n"
                                           "  lattice.output_roles = [\"sparse_tensor\", \"tensor\"],\n")));
  QVERIFY(q(*text).contains(
      q("    %d: tensor<?x2xf32>,\n    %s: " + sp + "\n  ) -> (" + sp + ", tensor<?x2xf32>) {\n")));
  QVERIFY(q(*text).endsWith(q("    return %s, %d : " + sp + ", tensor<?x2xf32>\n  }\n}\n")));
}

void TestMlirWriter::attributeOrderAndDefaults() {
  // Sec. 8: schema order whatever the given order; accumulation defaults; extras are ignored.
  MlirModuleWriter w;
  const std::string sp = sparseTensorType("f32");
  Expected<ValueId> in = w.addArgument("in", sp);
  Expected<OpResults> weight = w.addOp(weightRecord("up.weight", "conv3d_o_xyz_i", "conv3d"));
  OpRecord r;
  r.op = "normalized_conv_transpose3d";
  r.operands = {*in, weight->front()};
  r.attributes = {{"eps", 1e-8},
                  {"dilation", std::int64_t(1)},
                  {"padding", std::int64_t(0)},
                  {"stride", I64Array{2, 1, 1}},
                  {"kernel_size", I64Array{2, 1, 1}},
                  {"output_padding", std::int64_t(0)}};
  r.resultStems = {"up"};
  r.resultTypes = {sp};
  QVERIFY(w.addOp(r).ok());
  QCOMPARE(q(w.ops().back().text),
           q("%up = lattice.normalized_conv_transpose3d %in, %up_weight {kernel_size = array<i64: 2, 1, 1>, "
             "stride = array<i64: 2, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, "
             "accumulation = \"canonical_f32\", eps = 0.00000001 : f32} : (" +
             sp + ", !lattice.weight<conv3d, f32>) -> " + sp));

  // A supplied accumulation is printed as a str at its schema position.
  OpRecord subm;
  subm.op = "subm_conv3d";
  subm.operands = {*in, weight->front()};
  subm.attributes = {{"accumulation", "canonical_f32"},
                     {"kernel_size", std::int64_t(3)},
                     {"dilation", std::int64_t(1)},
                     {"stride", std::int64_t(2)}};
  subm.resultTypes = {sp};
  QVERIFY(w.addOp(subm).ok());
  QCOMPARE(q(w.ops().back().text),
           q("%subm_conv3d = lattice.subm_conv3d %in, %up_weight {kernel_size = array<i64: 3, 3, 3>, "
             "dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"} : (" +
             sp + ", !lattice.weight<conv3d, f32>) -> " + sp));

  // Lowering spec sec. 5.11: sparse.binary attribute texts.
  OpRecord binary;
  binary.op = "sparse.binary";
  binary.operands = {*in, *in};
  binary.attributes = {{"rhs_fill", 1.5}, {"lhs_fill", 0.0}, {"join", "outer"}, {"op", "add"}};
  binary.resultStems = {"add"};
  binary.resultTypes = {sp};
  QVERIFY(w.addOp(binary).ok());
  QCOMPARE(
      q(w.ops().back().text),
      q("%add = lattice.sparse.binary %in, %in {op = #lattice.binary_op<add>, join = #lattice.join<outer>, "
        "lhs_fill = 0.0 : f32, rhs_fill = 1.5 : f32} : (" +
        sp + ", " + sp + ") -> " + sp));
}

void TestMlirWriter::noAttributesLeavesDoubleSpace() {
  // Sec. 6.1: ops without schema attributes print an empty dict, i.e. two spaces before ':'.
  MlirModuleWriter w;
  Expected<ValueId> idx = w.addArgument("idx", "tensor<?xi32>");
  Expected<OpResults> table = w.addOp(weightRecord("emb.weight", "embedding_n_c", "embedding"));
  OpRecord r;
  r.op = "embedding_lookup";
  r.operands = {*idx, table->front()};
  r.resultStems = {"emb"};
  r.resultTypes = {"tensor<?x8xf32>"};
  QVERIFY(w.addOp(r).ok());
  QCOMPARE(q(w.ops().back().text),
           QStringLiteral("%emb = lattice.embedding_lookup %idx, %emb_weight  : (tensor<?xi32>, "
                          "!lattice.weight<embedding, f32>) -> tensor<?x8xf32>"));
}

void TestMlirWriter::optionalOperands() {
  // Sec. 6.1: an absent optional operand is simply omitted.
  MlirModuleWriter w;
  const std::string sp = sparseTensorType("f32");
  Expected<ValueId> in = w.addArgument("in", sp);
  Expected<ValueId> target = w.addArgument("target", sp);
  OpRecord r;
  r.op = "trilinear_upsample3d";
  r.operands = {*in};
  r.attributes = {{"stride", I64Array{2, 1, 1}}};
  r.resultTypes = {sp};
  QVERIFY(w.addOp(r).ok());
  QCOMPARE(q(w.ops().back().text),
           q("%trilinear_upsample3d = lattice.trilinear_upsample3d %in {stride = array<i64: 2, 1, 1>} : (" +
             sp + ") -> " + sp));
  r.operands = {*in, *target};
  QVERIFY(w.addOp(r).ok());
  QCOMPARE(q(w.ops().back().text), q("%trilinear_upsample3d1 = lattice.trilinear_upsample3d %in, %target "
                                     "{stride = array<i64: 2, 1, 1>} : (" +
                                     sp + ", " + sp + ") -> " + sp));
}

void TestMlirWriter::opErrors() {
  MlirModuleWriter w;
  const std::string sp = sparseTensorType("f32");
  Expected<ValueId> in = w.addArgument("in", sp);
  Expected<ValueId> dense = w.addArgument("dense", "tensor<?x4xf32>");
  auto expectError = [&](const OpRecord& r, const QString& part) {
    Expected<OpResults> result = w.addOp(r);
    if (result.ok()) return QStringLiteral("no error");
    return q(result.message()).contains(part) ? QString() : q(result.message());
  };

  OpRecord pool;
  pool.op = "pool3d";
  pool.operands = {*in};
  pool.attributes = {{"mode", "avg"},
                     {"kernel_size", std::int64_t(2)},
                     {"stride", std::int64_t(2)},
                     {"padding", std::int64_t(0)}};
  pool.resultStems = {"down"};
  pool.resultTypes = {sp};
  QCOMPARE(expectError(pool, QStringLiteral("lattice.pool3d 'down': missing required attribute 'dilation'")),
           QString());

  OpRecord unknown = pool;
  unknown.op = "quantized_conv3d";
  QCOMPARE(expectError(unknown, QStringLiteral("unknown lattice op 'quantized_conv3d'")), QString());

  OpRecord layerNorm;
  layerNorm.op = "layer_norm";
  layerNorm.operands = {*dense};
  layerNorm.attributes = {{"eps", 1e-5}};
  layerNorm.resultTypes = {"tensor<?x4xf32>"};
  QCOMPARE(expectError(layerNorm, QStringLiteral("expected 3 operands, got 1")), QString());

  OpRecord conv;
  conv.op = "conv3d";
  conv.operands = {*in};
  conv.resultTypes = {sp};
  QCOMPARE(expectError(conv, QStringLiteral("expected 2 to 3 operands, got 1")), QString());

  OpRecord softmax;
  softmax.op = "softmax";
  softmax.operands = {*in};
  softmax.attributes = {{"axis", std::int64_t(-1)}};
  softmax.resultTypes = {"tensor<?x4xf32>"};
  QCOMPARE(expectError(softmax, QStringLiteral("operand 'input' expects a tensor value")), QString());
  // An id this writer did not hand out (two values are defined: ids 0 and 1).
  softmax.operands = {ValueId{2}};
  QCOMPARE(expectError(softmax, QStringLiteral("operand 'input' uses undefined value #2")), QString());
  softmax.operands = {ValueId{}};
  QCOMPARE(expectError(softmax, QStringLiteral("uses undefined value #4294967295")), QString());
  softmax.operands = {*dense};
  softmax.resultTypes = {sp};
  QCOMPARE(expectError(softmax, QStringLiteral("result 'result' expects a tensor type")), QString());
  softmax.resultTypes = {"tensor<?x4xf32>"};
  softmax.attributes = {{"axis", std::int64_t(-1)}, {"axis", std::int64_t(0)}};
  QCOMPARE(expectError(softmax, QStringLiteral("duplicate attribute 'axis'")), QString());
  softmax.attributes = {{"axis", 1.5}};
  softmax.resultStems = {"bad name"};
  QCOMPARE(expectError(softmax, QStringLiteral("invalid ssa name 'bad name'")), QString());

  OpRecord act = activationRecord(w, *dense, "act");
  act.attributes[1].value = std::string("erf");
  QCOMPARE(expectError(act, QStringLiteral("attribute 'approximate': unknown gelu_approx value 'erf'")),
           QString());
  act = activationRecord(w, *dense, "act");
  act.attributes[2].value = std::numeric_limits<double>::quiet_NaN();
  QCOMPARE(expectError(act, QStringLiteral("attribute 'alpha': non-finite float nan")), QString());

  OpRecord weight = weightRecord("stem.weight", "conv3d_o_xyz_i", "conv3d");
  weight.symbol = "0bad";
  QCOMPARE(expectError(weight, QStringLiteral("invalid weight symbol '0bad'")), QString());
  weight = weightRecord("stem.weight", "conv3d_o_zyx_i", "conv3d");
  QCOMPARE(expectError(weight, QStringLiteral("unknown weight_layout value 'conv3d_o_zyx_i'")), QString());
  weight = weightRecord("stem\"weight", "conv3d_o_xyz_i", "conv3d");
  weight.symbol = "stem_weight";
  weight.resultStems = {"stem_weight"};
  QCOMPARE(expectError(weight, QStringLiteral("attribute 'storage_key'")), QString());

  QCOMPARE(w.opCount(), std::size_t(0));
  QVERIFY(!w.addArgument("x y", "tensor<?xf32>").ok());
  QVERIFY(!w.addArgument("x", "tensor<?xf32>", "points").ok());
  QVERIFY(!w.addArgument("x", "f32").ok());
}

void TestMlirWriter::returnErrors() {
  MlirModuleWriter w;
  Expected<std::string> empty = w.str();
  QVERIFY(!empty.ok());
  QCOMPARE(q(empty.message()), QStringLiteral("mlir module has no return values"));
  Expected<ValueId> x = w.addArgument("x", "tensor<?xf32>");
  QVERIFY(!w.setReturn({}).ok());
  Status mismatch = w.setReturn({*x}, {"a", "b"});
  QVERIFY(!mismatch.ok());
  QCOMPARE(q(mismatch.message()), QStringLiteral("output names must match the number of artifact outputs"));
  Status undefined = w.setReturn({ValueId{1}});
  QVERIFY(!undefined.ok());
  QCOMPARE(q(undefined.message()), QStringLiteral("return uses undefined value #1"));
  QVERIFY(!w.setReturn({*x}, {"bad\nname"}).ok());
  // A later setReturn replaces the earlier one.
  QVERIFY(w.setReturn({*x}, {"first"}).ok());
  QVERIFY(w.setReturn({*x}, {"second"}).ok());
  QVERIFY(q(*w.str()).contains(QStringLiteral("lattice.output_names = [\"second\"]")));
}

void TestMlirWriter::errorDoesNotAdvanceNames() {
  MlirModuleWriter w;
  Expected<ValueId> dense = w.addArgument("dense", "tensor<?x4xf32>");
  OpRecord act = activationRecord(w, *dense, "act");
  act.attributes.pop_back(); // no threshold
  QVERIFY(!w.addOp(act).ok());
  QCOMPARE(w.valueCount(), std::size_t(1));
  Expected<OpResults> ok = w.addOp(activationRecord(w, *dense, "act"));
  QVERIFY(ok.ok());
  QCOMPARE(q(w.name(ok->front())), QStringLiteral("act"));
  QCOMPARE(w.opCount(), std::size_t(1));
}

void TestMlirWriter::manyOps() {
  // 40 000 ops must build and print quickly; a quadratic writer takes minutes here.
  QElapsedTimer timer;
  timer.start();
  MlirModuleWriter w;
  const std::string sp = sparseTensorType("f32");
  Expected<ValueId> x = w.addArgument("x", sp);
  ValueId current = *x;
  constexpr int kOps = 40000;
  for (int i = 0; i < kOps; ++i) {
    OpRecord add;
    add.op = "sparse.binary";
    add.operands = {current, *x};
    add.attributes = {{"op", "add"}, {"join", "inner"}, {"lhs_fill", 0.0}, {"rhs_fill", 0.0}};
    add.resultStems = {"add"};
    add.resultTypes = {sp};
    Expected<OpResults> result = w.addOp(add);
    QVERIFY(result.ok());
    current = result->front();
  }
  QCOMPARE(q(w.name(current)), QStringLiteral("add39999"));
  QVERIFY(w.setReturn({current}).ok());
  Expected<std::string> text = w.str();
  QVERIFY(text.ok());
  qInfo("built and printed %d ops in %lld ms", kOps, static_cast<long long>(timer.elapsed()));

  // Line provenance: op i sits on line opLine(i).
  const QStringList lines = q(*text).split(QLatin1Char('\n'));
  for (std::size_t i : {std::size_t(0), std::size_t(1), std::size_t(12345), std::size_t(kOps - 1)})
    QCOMPARE(lines.at(int(w.opLine(i)) - 1), QStringLiteral("    ") + q(w.ops()[i].text));
  QCOMPARE(lines.at(int(w.returnLine()) - 1), q("    return %add39999 : " + sp));
}

void TestMlirWriter::weightOps() {
  // Weight ops: lines in the format spec's weight form (sec. 6.2), names and errors.
  struct Case {
    std::string symbol, key, layout;
    PackingAttr packing;
    std::string type;
    QString expected; // the line, or a part of the error
  };
  const std::vector<Case> cases = {
      {"stem_weight", "stem.weight", "conv3d_o_xyz_i", PackingAttr::dense(), weightType("conv3d", "f32"),
       "%stem_weight = lattice.weight @stem_weight {storage_key = \"stem.weight\", layout = "
       "#lattice.weight_layout<conv3d_o_xyz_i>, packing = #lattice.packing<dense>} : !lattice.weight<conv3d, f32>"},
      {"stem_weight", "stem.weight2", "linear_o_i", PackingAttr::affine(4, 32, "f16"), weightType("linear", "u32"),
       "%stem_weight1 = lattice.weight @stem_weight {storage_key = \"stem.weight2\", layout = "
       "#lattice.weight_layout<linear_o_i>, packing = #lattice.packing<int4, group_size = 32, scale_dtype = f16, "
       "mode = affine>} : !lattice.weight<linear, u32>"},
      {"1bad", "k", "bias_c", PackingAttr::dense(), weightType("bias", "f32"), "invalid ssa name '1bad'"},
      {"", "k", "bias_c", PackingAttr::dense(), weightType("bias", "f32"), "invalid weight symbol ''"},
      {"w", "a\"b", "bias_c", PackingAttr::dense(), weightType("bias", "f32"),
       "attribute 'storage_key': string 'a\"b' must be printable ascii"},
      {"w", "k", "sideways", PackingAttr::dense(), weightType("bias", "f32"),
       "attribute 'layout': unknown weight_layout value 'sideways'"},
      {"w", "k", "bias_c", PackingAttr{"int3", 32, "f16", "affine"}, weightType("bias", "f32"),
       "attribute 'packing': unknown packing kind 'int3'"},
      {"w", "k", "bias_c", PackingAttr::dense(), "tensor<3xf32>", "result 'result' expects a weight type"},
      {"bad-name", "k", "bias_c", PackingAttr::dense(), weightType("bias", "f32"), "invalid weight symbol"},
      // A dotted symbol names its result by the normalized stem (`.` → `_`), which shares its
      // counter with the undotted spelling.
      {"enc.w", "enc.w", "bias_c", PackingAttr::dense(), weightType("bias", "f32"),
       "%enc_w = lattice.weight @enc.w {storage_key = \"enc.w\", layout = #lattice.weight_layout<bias_c>, "
       "packing = #lattice.packing<dense>} : !lattice.weight<bias, f32>"},
      {"enc_w", "enc_w", "bias_c", PackingAttr::dense(), weightType("bias", "f32"),
       "%enc_w1 = lattice.weight @enc_w {storage_key = \"enc_w\", layout = #lattice.weight_layout<bias_c>, "
       "packing = #lattice.packing<dense>} : !lattice.weight<bias, f32>"},
  };
  MlirModuleWriter w;
  for (const Case& c : cases) {
    OpRecord r;
    r.op = "weight";
    r.symbol = c.symbol;
    r.attributes = {{"storage_key", c.key}, {"layout", c.layout}, {"packing", c.packing}};
    r.resultStems = {c.symbol};
    r.resultTypes = {c.type};
    const std::size_t ops = w.opCount();
    Expected<OpResults> a = w.addOp(r);
    if (!a.ok()) {
      QVERIFY2(q(a.message()).contains(c.expected), a.message().c_str());
      QCOMPARE(w.opCount(), ops);
      continue;
    }
    QCOMPARE(q(w.type(a->front())), q(c.type));
    QCOMPARE(q(w.ops().back().text), c.expected);
    QCOMPARE(w.ops().back().op, std::string_view("weight"));
  }
  QCOMPARE(w.opCount(), std::size_t(4));
  Expected<ValueId> after = w.addArgument("stem_weight", "tensor<?xf32>");
  QCOMPARE(q(w.name(*after)), QStringLiteral("stem_weight2"));
}

QTEST_APPLESS_MAIN(TestMlirWriter)
// isValidSsaName / isValidSymbolName against the spec's grammars written as regular expressions,
// over every string of up to two characters from an alphabet of each class and its edges, and
// random longer strings.
void TestMlirWriter::nameGrammarsMatchRegex() {
  const std::regex ssa("[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*");
  const std::regex symbol("[A-Za-z_][A-Za-z0-9_$.]*");
  const std::string alphabet = std::string("09azAZ$._-/ @[`{:") + '\x7f' + '\x80' + '\0';
  std::vector<std::string> samples{""};
  for (char a : alphabet) {
    samples.push_back(std::string(1, a));
    for (char b : alphabet)
      samples.push_back(std::string{a, b});
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string s(1 + rng() % 24, ' ');
    for (char& c : s)
      c = alphabet[rng() % alphabet.size()];
    samples.push_back(s);
  }
  // Long names of name characters (the checks go 8 characters at a time), half of them with one
  // character from the whole alphabet at a random place.
  const std::string nameChars = "09azAZ$._-";
  for (int i = 0; i < 3000; ++i) {
    std::string s(1 + rng() % 40, ' ');
    for (char& c : s)
      c = nameChars[rng() % nameChars.size()];
    if (rng() % 2) s[rng() % s.size()] = alphabet[rng() % alphabet.size()];
    samples.push_back(s);
  }
  for (const std::string& s : samples) {
    QVERIFY2(isValidSsaName(s) == std::regex_match(s, ssa), s.c_str());
    QVERIFY2(isValidSymbolName(s) == std::regex_match(s, symbol), s.c_str());
  }
}

// The writer remembers which type texts it checked; a text with a control character must still
// be refused after valid types filled that memory, and a valid one accepted after a refusal.
void TestMlirWriter::typeChecksAreRememberedPerText() {
  MlirModuleWriter w;
  for (int c = 1; c <= 40; ++c)
    QVERIFY(w.addArgument("x", featureTensorType(c, "f32")));
  const Expected<ValueId> bad = w.addArgument("y", std::string("tensor<?x4xf32>\n"));
  QVERIFY(!bad);
  QVERIFY(bad.message().find("expected a tensor or lattice type") != std::string::npos);
  QVERIFY(!w.addArgument("y", std::string("tensor<?x4xf32>\n")));
  QVERIFY(!w.addArgument("y", "memref<4xf32>"));
  QVERIFY(w.addArgument("y", featureTensorType(3, "f32")));
  QCOMPARE(w.arguments().size(), std::size_t(41));
}

void TestMlirWriter::partialTextBeforeTheReturn() {
  // MlirWriter.h: before setReturn() the text ends on the last op's line (or on the `) -> ? {`
  // line) without a newline; afterwards partialText() equals str().
  MlirModuleWriter w;
  Expected<ValueId> x = w.addArgument("x", "tensor<?x4xf32>");
  QVERIFY(x);
  std::string text = w.partialText();
  QVERIFY(text.size() >= 8 && text.substr(text.size() - 8) == ") -> ? {");
  Expected<OpResults> a = w.addOp(activationRecord(w, *x, "a"));
  QVERIFY(a);
  Expected<OpResults> b = w.addOp(activationRecord(w, a->front(), "b"));
  QVERIFY(a && b);
  text = w.partialText();
  const std::string last = "    " + std::string(w.ops().back().text);
  QVERIFY(text.size() > last.size());
  QCOMPARE(q(text.substr(text.size() - last.size())), q(last));
  QCOMPARE(q(text.substr(text.size() - last.size() - 1, 1)), QStringLiteral("\n"));
  QVERIFY(text.find("    " + std::string(w.ops().front().text) + "\n" + last) != std::string::npos);
  QVERIFY(w.setReturn({b->front()}).ok());
  QCOMPARE(q(w.partialText()), q(*w.str()));
  QVERIFY(w.str()->find(last + "\n    return %b : tensor<?x4xf32>\n  }\n}\n") != std::string::npos);
}

#include "tst_mlir_writer.moc"
