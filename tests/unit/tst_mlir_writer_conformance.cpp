// Rebuilds the reference exporter's graph.mlir files of the conformance models by hand, with the
// op records the lowering emits (lowering spec sec. 3, 5), and compares them byte for byte with
// tests/data/conformance/models/<case>/expected.lattice/graph.mlir. Also checks that the line
// provenance (opLine) points at each op in the real file.

#include "dialect/MlirTypes.h"
#include "dialect/MlirWriter.h"

#include <QtTest/QtTest>

#include <fstream>
#include <sstream>

using namespace lattice;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string expectedGraph(const char* name) {
  return readFile(std::string(LATTICE_TEST_DATA_DIR) + "/conformance/models/" + name +
                  "/expected.lattice/graph.mlir");
}

const std::string kSparse = sparseTensorType("f32");
const std::string kCoords(kCoordsTensorType);
const std::string kActive(kActiveTensorType);

// Collects the first error so helpers can return plain values.
class Rebuild {
public:
  MlirModuleWriter writer;
  std::string error;

  ValueId argument(const std::string& name, const std::string& type, const std::string& role) {
    Expected<ValueId> value = writer.addArgument(name, type, role);
    if (!value.ok()) {
      fail(value.message());
      return {};
    }
    return *value;
  }

  std::vector<ValueId> op(const OpRecord& record) {
    Expected<OpResults> results = writer.addOp(record);
    if (!results.ok()) {
      fail(results.message());
      return std::vector<ValueId>(3);
    }
    std::vector<ValueId> out;
    for (std::size_t i = 0; i < results->size(); ++i)
      out.push_back((*results)[i]);
    return out;
  }

  // Lowering spec sec. 5.3: {s}_coords, {s}_features, {s}_active, then sparse.make named s.
  ValueId sparseArgument(const std::string& name, int channels) {
    const ValueId coords = argument(name + "_coords", kCoords, "sparse_coords");
    const ValueId features =
        argument(name + "_features", featureTensorType(channels, "f32"), "sparse_features");
    const ValueId active = argument(name + "_active", kActive, "sparse_active");
    OpRecord make;
    make.op = "sparse.make";
    make.operands = {coords, features, active};
    make.attributes = {{"stride", I64Array{1, 1, 1}}, {"coord_order", "batch_x_y_z"}};
    make.resultStems = {name};
    make.resultTypes = {kSparse};
    return op(make)[0];
  }

  // Lowering spec sec. 5.7: storage key skey(module).param, SSA name and symbol safe(key).
  ValueId weight(const std::string& key, const std::string& layout, const std::string& family,
                   PackingAttr packing = PackingAttr::dense()) {
    std::string safe = key;
    std::replace(safe.begin(), safe.end(), '.', '_');
    OpRecord r;
    r.op = "weight";
    r.symbol = safe;
    r.attributes = {{"storage_key", key}, {"layout", layout}, {"packing", packing}};
    r.resultStems = {safe};
    r.resultTypes = {weightType(family, "f32")};
    return op(r)[0];
  }

  // Lowering spec sec. 3.2: decompose with {n}_features_in / {n}_active.
  std::vector<ValueId> decompose(const ValueId& input, const std::string& module, int channels) {
    OpRecord r;
    r.op = "sparse.decompose";
    r.operands = {input};
    r.resultStems = {"", module + "_features_in", module + "_active"};
    r.resultTypes = {kCoords, featureTensorType(channels, "f32"), kActive};
    return op(r);
  }

  ValueId withFeatures(const ValueId& input, const ValueId& features, const std::string& module) {
    OpRecord r;
    r.op = "sparse.with_features";
    r.operands = {input, features};
    r.resultStems = {module};
    r.resultTypes = {kSparse};
    return op(r)[0];
  }

  void output(const ValueId& value) {
    Status status = writer.setReturn({value}, {"output"});
    if (!status.ok()) fail(status.message());
  }

private:
  void fail(const std::string& message) {
    if (error.empty()) error = message;
  }
};

std::vector<NamedAttr> convAttrs(I64Array kernel, I64Array stride) {
  return {{"kernel_size", std::move(kernel)},
          {"stride", std::move(stride)},
          {"padding", I64Array{0, 0, 0}},
          {"dilation", I64Array{1, 1, 1}}};
}

} // namespace

class TestMlirWriterConformance : public QObject {
  Q_OBJECT

private:
  void compareWithExpected(const Rebuild& rebuilt, const char* caseName);

private Q_SLOTS:
  void sparseClassifier();
  void quantizedClassifierInt8();
  void transposeConvolution();
  void canonicalKernelLayout();
  void normalizedConvolution();
  void sparseReindex();
  void pointVoxel();
};

void TestMlirWriterConformance::compareWithExpected(const Rebuild& rebuilt, const char* caseName) {
  QVERIFY2(rebuilt.error.empty(), rebuilt.error.c_str());
  const std::string expected = expectedGraph(caseName);
  QVERIFY2(!expected.empty(), caseName);
  Expected<std::string> actual = rebuilt.writer.str();
  QVERIFY2(actual.ok(), actual.ok() ? "" : actual.message().c_str());
  const QStringList actualLines = QString::fromStdString(*actual).split(QLatin1Char('\n'));
  const QStringList expectedLines = QString::fromStdString(expected).split(QLatin1Char('\n'));
  for (int i = 0; i < std::min(actualLines.size(), expectedLines.size()); ++i)
    QCOMPARE(actualLines.at(i), expectedLines.at(i)); // first differing line, readable
  QCOMPARE(actualLines.size(), expectedLines.size());
  QVERIFY(*actual == expected); // and byte for byte

  for (std::size_t i = 0; i < rebuilt.writer.opCount(); ++i) {
    QCOMPARE(expectedLines.at(int(rebuilt.writer.opLine(i)) - 1),
             QStringLiteral("    ") + QString::fromStdString(std::string(rebuilt.writer.ops()[i].text)));
  }
  for (std::size_t i = 0; i < rebuilt.writer.arguments().size(); ++i) {
    QVERIFY(expectedLines.at(int(rebuilt.writer.argumentLine(i)) - 1)
                .startsWith(QStringLiteral("    %") +
                            QString::fromStdString(std::string(rebuilt.writer.name(rebuilt.writer.arguments()[i].value)))));
  }
  QVERIFY(expectedLines.at(int(rebuilt.writer.returnLine()) - 1).startsWith(QStringLiteral("    return ")));
}

void TestMlirWriterConformance::sparseClassifier() {
  // stem: Conv3d(3, 4, 1, bias) → norm: BatchNorm(4) → act: ReLU → pool: AvgPool(1)
  // → global average pool → head: Linear(4, 2).
  Rebuild r;
  const ValueId x = r.sparseArgument("x", 3);

  const ValueId stemWeight = r.weight("stem.weight", "conv3d_o_xyz_i", "conv3d");
  const ValueId stemBias = r.weight("stem.bias", "bias_c", "bias");
  OpRecord stem;
  stem.op = "conv3d";
  stem.operands = {x, stemWeight, stemBias};
  stem.attributes = convAttrs({1, 1, 1}, {1, 1, 1});
  stem.resultStems = {"stem"};
  stem.resultTypes = {kSparse};
  const ValueId stemOut = r.op(stem)[0];

  const std::vector<ValueId> normParts = r.decompose(stemOut, "norm", 4);
  const ValueId normWeight = r.weight("norm.weight", "channel_c", "channel");
  const ValueId normBias = r.weight("norm.bias", "bias_c", "bias");
  const ValueId normMean = r.weight("norm.running_mean", "channel_c", "channel");
  const ValueId normVar = r.weight("norm.running_var", "channel_c", "channel");
  OpRecord bn;
  bn.op = "batch_norm";
  bn.operands = {normParts[1], normWeight, normBias, normMean, normVar};
  bn.attributes = {{"eps", 1e-5}};
  bn.resultStems = {"norm_features"};
  bn.resultTypes = {"tensor<?x4xf32>"};
  const ValueId norm = r.withFeatures(stemOut, r.op(bn)[0], "norm");

  const std::vector<ValueId> actParts = r.decompose(norm, "act", 4);
  OpRecord relu;
  relu.op = "activation";
  relu.operands = {actParts[1]};
  relu.attributes = {
      {"kind", "relu"}, {"approximate", "none"}, {"alpha", 0.01}, {"beta", 1.0}, {"threshold", 20.0}};
  relu.resultStems = {"act_features"};
  relu.resultTypes = {"tensor<?x4xf32>"};
  const ValueId act = r.withFeatures(norm, r.op(relu)[0], "act");

  OpRecord pool;
  pool.op = "pool3d";
  pool.operands = {act};
  pool.attributes = {{"mode", "avg"},
                     {"kernel_size", std::int64_t(1)},
                     {"stride", std::int64_t(1)},
                     {"padding", std::int64_t(0)},
                     {"dilation", std::int64_t(1)}};
  pool.resultStems = {"pool"};
  pool.resultTypes = {kSparse};
  const ValueId pooled = r.op(pool)[0];

  OpRecord global;
  global.op = "global_pool";
  global.operands = {pooled};
  global.attributes = {{"mode", "avg"}, {"batch_size", std::int64_t(2)}};
  global.resultTypes = {"tensor<?x4xf32>"};
  const ValueId globalOut = r.op(global)[0];

  const ValueId headWeight = r.weight("head.weight", "linear_o_i", "linear");
  const ValueId headBias = r.weight("head.bias", "bias_c", "bias");
  OpRecord head;
  head.op = "linear";
  head.operands = {globalOut, headWeight, headBias};
  head.resultStems = {"head"};
  head.resultTypes = {"tensor<?x2xf32>"};
  r.output(r.op(head)[0]);

  compareWithExpected(r, "sparse_classifier");
}

void TestMlirWriterConformance::quantizedClassifierInt8() {
  // stem: Conv3d(3, 4, 1) int8 → act: SiLU → global average pool → head: Linear(4, 2) int8.
  Rebuild r;
  const ValueId x = r.sparseArgument("x", 3);
  const PackingAttr int8 = PackingAttr::affine(8, 32, "f16");
  const ValueId stemWeight = r.weight("stem.weight", "conv3d_o_xyz_i", "conv3d", int8);
  const ValueId stemBias = r.weight("stem.bias", "bias_c", "bias");
  OpRecord stem;
  stem.op = "conv3d";
  stem.operands = {x, stemWeight, stemBias};
  stem.attributes = convAttrs({1, 1, 1}, {1, 1, 1});
  stem.resultStems = {"stem"};
  stem.resultTypes = {kSparse};
  const ValueId stemOut = r.op(stem)[0];

  const std::vector<ValueId> actParts = r.decompose(stemOut, "act", 4);
  OpRecord silu;
  silu.op = "activation";
  silu.operands = {actParts[1]};
  silu.attributes = {
      {"kind", "silu"}, {"approximate", "none"}, {"alpha", 0.01}, {"beta", 1.0}, {"threshold", 20.0}};
  silu.resultStems = {"act_features"};
  silu.resultTypes = {"tensor<?x4xf32>"};
  const ValueId act = r.withFeatures(stemOut, r.op(silu)[0], "act");

  OpRecord global;
  global.op = "global_pool";
  global.operands = {act};
  global.attributes = {{"mode", "avg"}, {"batch_size", std::int64_t(2)}};
  global.resultTypes = {"tensor<?x4xf32>"};
  const ValueId globalOut = r.op(global)[0];

  const ValueId headWeight = r.weight("head.weight", "linear_o_i", "linear", int8);
  const ValueId headBias = r.weight("head.bias", "bias_c", "bias");
  OpRecord head;
  head.op = "linear";
  head.operands = {globalOut, headWeight, headBias};
  head.resultStems = {"head"};
  head.resultTypes = {"tensor<?x2xf32>"};
  r.output(r.op(head)[0]);

  compareWithExpected(r, "quantized_classifier_int8");
}

void TestMlirWriterConformance::transposeConvolution() {
  // down: Conv3d(2, 2, (2,1,1), stride (2,1,1), no bias) → up: ConvTranspose3d(same, bias).
  Rebuild r;
  const ValueId x = r.sparseArgument("x", 2);
  const ValueId downWeight = r.weight("down.weight", "conv3d_o_xyz_i", "conv3d");
  OpRecord down;
  down.op = "conv3d";
  down.operands = {x, downWeight};
  down.attributes = convAttrs({2, 1, 1}, {2, 1, 1});
  down.resultStems = {"down"};
  down.resultTypes = {kSparse};
  const ValueId downOut = r.op(down)[0];

  const ValueId upWeight = r.weight("up.weight", "conv3d_o_xyz_i", "conv3d");
  const ValueId upBias = r.weight("up.bias", "bias_c", "bias");
  OpRecord up;
  up.op = "conv_transpose3d";
  up.operands = {downOut, upWeight, upBias};
  up.attributes = convAttrs({2, 1, 1}, {2, 1, 1});
  up.resultStems = {"up"};
  up.resultTypes = {kSparse};
  r.output(r.op(up)[0]);

  compareWithExpected(r, "transpose_convolution");
}

void TestMlirWriterConformance::canonicalKernelLayout() {
  // conv: SubMConv3d(1, ?, (3,1,5), no bias).
  Rebuild r;
  const ValueId x = r.sparseArgument("x", 1);
  const ValueId weight = r.weight("conv.weight", "conv3d_o_xyz_i", "conv3d");
  OpRecord conv;
  conv.op = "subm_conv3d";
  conv.operands = {x, weight};
  conv.attributes = {{"kernel_size", I64Array{3, 1, 5}}, {"dilation", I64Array{1, 1, 1}}};
  conv.resultStems = {"conv"};
  conv.resultTypes = {kSparse};
  r.output(r.op(conv)[0]);

  compareWithExpected(r, "canonical_kernel_layout");
}

void TestMlirWriterConformance::normalizedConvolution() {
  // conv: normalized SubMConv3d(2, ?, (3,1,1), bias, eps 1e-8).
  Rebuild r;
  const ValueId x = r.sparseArgument("x", 2);
  const ValueId weight = r.weight("conv.weight", "conv3d_o_xyz_i", "conv3d");
  const ValueId bias = r.weight("conv.bias", "bias_c", "bias");
  OpRecord conv;
  conv.op = "normalized_subm_conv3d";
  conv.operands = {x, weight, bias};
  conv.attributes = {{"kernel_size", I64Array{3, 1, 1}}, {"dilation", I64Array{1, 1, 1}}, {"eps", 1e-8}};
  conv.resultStems = {"conv"};
  conv.resultTypes = {kSparse};
  r.output(r.op(conv)[0]);

  compareWithExpected(r, "normalized_convolution");
}

void TestMlirWriterConformance::sparseReindex() {
  // reindex_sparse(source, target, fill=-0.75) with its fixed result stem `reindex`.
  Rebuild r;
  const ValueId source = r.sparseArgument("source", 2);
  const ValueId target = r.sparseArgument("target", 1);
  OpRecord reindex;
  reindex.op = "sparse.reindex";
  reindex.operands = {source, target};
  reindex.attributes = {{"fill", -0.75}};
  reindex.resultStems = {"reindex"};
  reindex.resultTypes = {kSparse};
  r.output(r.op(reindex)[0]);

  compareWithExpected(r, "sparse_reindex");
}

void TestMlirWriterConformance::pointVoxel() {
  // Dense arguments (not sanitised, role tensor), voxelize then devoxelize with f64 triples.
  Rebuild r;
  const ValueId points = r.argument("points", "tensor<?x3xf32>", "tensor");
  const ValueId features = r.argument("features", "tensor<?x2xf32>", "tensor");
  const ValueId batch = r.argument("batch_indices", "tensor<?xi32>", "tensor");
  const ValueId active = r.argument("active_rows", kActive, "tensor");
  OpRecord voxelize;
  voxelize.op = "voxelize";
  voxelize.operands = {points, features, batch, active};
  voxelize.attributes = {{"voxel_size", 1.0},
                         {"origin", F64Array{0.0, 0.0, 0.0}},
                         {"reduction", "mean"},
                         {"stride", std::int64_t(1)}};
  voxelize.resultStems = {"voxelize"};
  voxelize.resultTypes = {kSparse};
  const ValueId voxels = r.op(voxelize)[0];

  OpRecord devoxelize;
  devoxelize.op = "devoxelize";
  devoxelize.operands = {points, voxels, batch, active};
  devoxelize.attributes = {
      {"voxel_size", F64Array{1.0, 1.0, 1.0}}, {"origin", std::int64_t(0)}, {"interpolation", "nearest"}};
  devoxelize.resultStems = {"devoxelize"};
  devoxelize.resultTypes = {"tensor<?x2xf32>"};
  r.output(r.op(devoxelize)[0]);

  compareWithExpected(r, "point_voxel");
}

QTEST_APPLESS_MAIN(TestMlirWriterConformance)
#include "tst_mlir_writer_conformance.moc"
