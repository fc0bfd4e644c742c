// The artifact verifier on the conformance data and on artifacts on disk: every
// dialect/valid file and every expected.lattice verifies; every dialect/invalid file is rejected
// for the reason its first line gives (the diagnostic the validation spec sec. 9.1 names for
// it, at the position read off the file); module-contract rules (sec. 6), MLIR's structural
// rules, the bundle rules (sec. 2) and the weight checks (IO6, X1-X5, X8) with their messages.
// Per-op rules are in tst_verifier_ops.cpp.

#include "dialect/MlirTypes.h"
#include "mlir/MlirParser.h"
#include "tensor/Safetensors.h"
#include "verify/ArtifactValidation.h"
#include "verify/ArtifactVerifier.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

using namespace lattice;

namespace {

const std::string kData = std::string(LATTICE_TEST_DATA_DIR) + "/conformance/";
const std::string kDigest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad";

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

QStringList messages(const std::vector<Diagnostic>& diagnostics) {
  QStringList out;
  for (const Diagnostic& d : diagnostics)
    out << QString::fromStdString(d.message);
  return out;
}

QString rendered(const std::vector<Diagnostic>& diagnostics) {
  return QString::fromStdString(renderDiagnostics(diagnostics));
}

// Parses and verifies `text`; a parse error is returned as the only diagnostic.
std::vector<Diagnostic> verifyText(const std::string& text) {
  ArtifactParseResult r = parseArtifactGraph(text, "t.mlir");
  if (!r.ok()) return {r.error};
  return verifyArtifactGraph(*r.graph);
}

// A valid graph: one sparse input triple, an activation on its features, one output.
const std::string kValid = R"(module attributes {
  lattice.ir_version = 2,
  lattice.schema_digest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad",
  lattice.input_names = ["input0", "input1", "input2"],
  lattice.input_roles = ["sparse_coords", "sparse_features", "sparse_active"],
  lattice.output_names = ["output0"],
  lattice.output_roles = ["tensor"],
  lattice.weight_file = "weights.safetensors"
} {
  func.func @forward(%c: tensor<?x4xi32>, %f: tensor<?x8xf32>, %a: tensor<1xi32>) -> tensor<?x8xf32> {
    %y = lattice.activation %f {kind = #lattice.activation<relu>, approximate = #lattice.gelu_approx<none>, alpha = 0.01 : f32, beta = 1.0 : f32, threshold = 20.0 : f32} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    return %y : tensor<?x8xf32>
  }
}
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) qFatal("test text does not contain '%s'", from.c_str());
  return text.replace(at, from.size(), to);
}

// An artifact directory holding `graph` and `tensors`.
std::string makeArtifact(const QTemporaryDir& dir, const std::string& graph,
                         const std::vector<NamedTensor>& tensors) {
  const std::string path = dir.filePath(QStringLiteral("a.lattice")).toStdString();
  QDir().mkpath(QString::fromStdString(path));
  writeFile(path + "/graph.mlir", graph);
  const Status s = writeSafetensors(path + "/weights.safetensors", tensors, torchWeightsMetadata());
  if (!s) qFatal("%s", s.message().c_str());
  return path;
}

std::vector<NamedTensor> expectedWeights(const std::string& model) {
  Expected<SafetensorsFile> f =
      SafetensorsFile::open(kData + "models/" + model + "/expected.lattice/weights.safetensors");
  if (!f) qFatal("%s", f.message().c_str());
  std::vector<NamedTensor> out;
  for (const NamedTensor& t : f->tensors())
    out.push_back({t.key, TensorData::owning(
                              t.tensor.dtype(), t.tensor.shape(),
                              std::vector<uint8_t>(t.tensor.data(), t.tensor.data() + t.tensor.byteSize()))});
  return out;
}

std::vector<NamedTensor> with(std::vector<NamedTensor> tensors, const std::string& key, DType dtype,
                              std::vector<int64_t> shape) {
  tensors.erase(
      std::remove_if(tensors.begin(), tensors.end(), [&](const NamedTensor& t) { return t.key == key; }),
      tensors.end());
  tensors.push_back({key, TensorData::zeros(dtype, std::move(shape))});
  return tensors;
}

std::vector<NamedTensor> without(std::vector<NamedTensor> tensors, const std::string& key) {
  tensors.erase(
      std::remove_if(tensors.begin(), tensors.end(), [&](const NamedTensor& t) { return t.key == key; }),
      tensors.end());
  return tensors;
}

} // namespace

class TestVerifier : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void validFixturesVerify_data() {
    QTest::addColumn<QString>("path");
    const QString dir = QString::fromStdString(kData + "dialect/valid/");
    const QStringList files = QDir(dir).entryList({QStringLiteral("*.mlir")}, QDir::Files);
    QVERIFY(files.size() >= 14);
    for (const QString& f : files)
      QTest::newRow(qPrintable(f)) << dir + f;
  }
  void validFixturesVerify() {
    QFETCH(QString, path);
    const ArtifactValidation v = validateArtifact(path.toStdString());
    QVERIFY2(v.ok(), qPrintable(rendered(v.diagnostics)));
    QVERIFY(v.diagnostics.empty());
    QVERIFY(v.graph.has_value());
    QVERIFY(!v.weightsChecked);
  }

  // Sec. 9.1: the intended rule of each file (its first line), with the diagnostic position
  // read off the file (the op's name, the attribute or the function name).
  void invalidFixturesReportTheirReason_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("diagnostic");
    const auto row = [](const char* file, const char* reason, const char* diagnostic) {
      QTest::newRow(file) << QString::fromLatin1(file) << QString::fromLatin1(reason)
                          << QString::fromLatin1(diagnostic);
    };
    row("activation_bad_kind", "activation kind is part of the stable ABI enum.",
        "12:12: error: 'lattice.activation' op activation must be relu, sigmoid, gelu, silu, leaky_relu, "
        "tanh, or softplus");
    row("activation_bad_rank", "feature activations operate on rank-2 feature tensors.",
        "12:12: error: 'lattice.activation' op input must have rank 2");
    row("conv_bad_weight_layout", "lattice.conv3d requires a conv3d-compatible weight layout.",
        "26:12: error: 'lattice.conv3d' op expected conv3d weight, got linear");
    row("devoxelize_bad_interpolation", "interpolation must be nearest or linear.",
        "24:17: error: 'lattice.devoxelize' op point interpolation must be nearest or linear");
    row("generative_with_padding", "generative transpose convolution must not carry padding/dilation.",
        "26:12: error: 'lattice.generative_conv_transpose3d' op must not carry padding or dilation");
    row("global_pool_bad_batch_size", "batch_size must be -1 for inferred size or non-negative.",
        "20:12: error: 'lattice.global_pool' op batch_size must be -1 or non-negative");
    row("missing_ir_version", "lattice artifact modules must declare the dialect ABI version.",
        "2:1: error: lattice artifact module requires lattice.ir_version = 2");
    row("missing_weight_file", "lattice artifact modules must declare the weight payload file.",
        "2:1: error: lattice artifact module requires lattice.weight_file = \"weights.safetensors\"");
    row("non_lattice_entry_op", "executable artifact bodies may only contain lattice ops and return.",
        "12:12: error: lattice artifact entry function may contain only lattice operations and func.return");
    row("norm_bad_eps", "normalization epsilon must be positive.",
        "14:12: error: 'lattice.rms_norm' op eps must be positive");
    row("normalized_conv_bad_eps", "normalized convolution epsilon must be positive.",
        "28:12: error: 'lattice.normalized_subm_conv3d' op eps must be positive");
    row("pool_bad_mode", "pooling mode must be sum, max, or avg.",
        "21:12: error: 'lattice.pool3d' op pool mode must be sum, max, or avg");
    row("quantized_conv_op_rejected", "quantized conv must be lattice.conv3d with quantized weight type.",
        "27:12: error: custom op 'lattice.quantized_conv3d' is unknown");
    row("sparse_binary_bad_op", "sparse binary op must be one of the supported elementwise modes.",
        "30:12: error: 'lattice.sparse.binary' op binary op must be add, sub, mul, maximum, or minimum");
    row("sparse_reindex_bad_result_dtype", "sparse reindex result features must keep the source dtype.",
        "30:12: error: 'lattice.sparse.reindex' op result dtype must match input feature dtype");
    row("subm_with_stride", "lattice.subm_conv3d must not carry stride or padding.",
        "26:12: error: 'lattice.subm_conv3d' op must not carry stride or padding");
    row("trilinear_upsample_bad_stride", "trilinear upsampling stride must be positive.",
        "18:12: error: 'lattice.trilinear_upsample3d' op stride values must be strictly positive");
    row("unsupported_ir_version", "only lattice.ir_version = 2 is currently accepted.",
        "3:3: error: unsupported lattice.ir_version: 1 (expected 2)");
    row("voxelize_bad_points", "point tensor must have trailing xyz dimension 3.",
        "17:15: error: 'lattice.voxelize' op points must have trailing dimension 3");
    row("wrong_entry_name", "the executable artifact entry point is named @forward.",
        "11:13: error: lattice artifact entry function must be named @forward");
  }
  void invalidFixturesReportTheirReason() {
    QFETCH(QString, file);
    QFETCH(QString, reason);
    QFETCH(QString, diagnostic);
    const std::string path = kData + "dialect/invalid/" + file.toStdString() + ".mlir";
    const std::string text = readFile(path);
    QCOMPARE(QString::fromStdString(text.substr(0, text.find('\n'))),
             QStringLiteral("// Invalid: ") + reason);
    const ArtifactValidation v = validateArtifact(path);
    QVERIFY(!v.ok());
    QVERIFY2(rendered(v.diagnostics).contains(QString::fromStdString(path) + ":" + diagnostic),
             qPrintable(rendered(v.diagnostics)));
  }
  void everyInvalidFixtureHasARow() {
    const QStringList files = QDir(QString::fromStdString(kData + "dialect/invalid/"))
                                  .entryList({QStringLiteral("*.mlir")}, QDir::Files);
    QCOMPARE(files.size(), 20);
  }

  // Sec. 9.1 "first failure in reference order": the six files without `accumulation` also
  // report the ODS error, and missing_weight_file the schema digest (M3) before M5.
  void referenceFirstFailuresAreReportedToo_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("diagnostic");
    QTest::newRow("conv") << "conv_bad_weight_layout"
                          << "26:12: error: 'lattice.conv3d' op requires attribute 'accumulation'";
    QTest::newRow("generative")
        << "generative_with_padding"
        << "26:12: error: 'lattice.generative_conv_transpose3d' op requires attribute 'accumulation'";
    QTest::newRow("subm") << "subm_with_stride"
                          << "26:12: error: 'lattice.subm_conv3d' op requires attribute 'accumulation'";
    QTest::newRow("normalized")
        << "normalized_conv_bad_eps"
        << "28:12: error: 'lattice.normalized_subm_conv3d' op requires attribute 'accumulation'";
    QTest::newRow("digest") << "missing_weight_file"
                            << QString::fromStdString(
                                   "2:1: error: lattice artifact module requires lattice.schema_digest = \"" +
                                   kDigest + "\"");
  }
  void referenceFirstFailuresAreReportedToo() {
    QFETCH(QString, file);
    QFETCH(QString, diagnostic);
    const std::string path = kData + "dialect/invalid/" + file.toStdString() + ".mlir";
    QVERIFY(rendered(validateArtifact(path).diagnostics)
                .contains(QString::fromStdString(path) + ":" + diagnostic));
  }

  void expectedArtifactsValidate_data() {
    QTest::addColumn<QString>("path");
    const QString dir = QString::fromStdString(kData + "models/");
    for (const QString& c : QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
      QTest::newRow(qPrintable(c)) << dir + c + QStringLiteral("/expected.lattice");
  }
  void expectedArtifactsValidate() {
    QFETCH(QString, path);
    const ArtifactValidation v = validateArtifact(path.toStdString());
    QVERIFY2(v.ok(), qPrintable(rendered(v.diagnostics)));
    QVERIFY(v.diagnostics.empty());
    QVERIFY(v.weightsChecked);
  }

  // Sec. 6, rules M1-M16, by editing the valid graph.
  void moduleRules_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("valid as is") << ""
                                 << "" << QStringList();
    QTest::newRow("M1 wrong kind") << "ir_version = 2"
                                   << "ir_version = \"2\""
                                   << QStringList{"lattice artifact module requires lattice.ir_version = 2"};
    QTest::newRow("M2") << "ir_version = 2"
                        << "ir_version = 3" << QStringList{"unsupported lattice.ir_version: 3 (expected 2)"};
    QTest::newRow("M4 IR v1 digest")
        << kDigest.c_str() << "eb5aaff9fc917038f49f4c62f9e19c2d78d2b3540035de55c270b9513d3156aa"
        << QStringList{
               QString::fromStdString("unsupported lattice.schema_digest: "
                                      "\"eb5aaff9fc917038f49f4c62f9e19c2d78d2b3540035de55c270b9513d3156aa\" "
                                      "(expected \"" +
                                      kDigest + "\")")};
    QTest::newRow("M6")
        << "\"weights.safetensors\""
        << "\"model.safetensors\""
        << QStringList{
               "unsupported lattice.weight_file: \"model.safetensors\" (expected \"weights.safetensors\")"};
    QTest::newRow("M5 missing")
        << ",\n  lattice.weight_file = \"weights.safetensors\""
        << ""
        << QStringList{"lattice artifact module requires lattice.weight_file = \"weights.safetensors\""};
    QTest::newRow("M13 not strings")
        << "[\"input0\", \"input1\", \"input2\"]"
        << "[\"input0\", 1, \"input2\"]"
        << QStringList{"lattice artifact module requires string array attribute lattice.input_names"};
    QTest::newRow("M13 not array")
        << "[\"output0\"]"
        << "\"output0\""
        << QStringList{"lattice artifact module requires string array attribute lattice.output_names"};
    QTest::newRow("M14 names") << "[\"input0\", \"input1\", \"input2\"]"
                               << "[\"input0\", \"input1\"]"
                               << QStringList{"lattice.input_names must contain 3 entries"};
    QTest::newRow("M14 roles") << "\"sparse_active\"]"
                               << "\"sparse_active\", \"tensor\"]"
                               << QStringList{"lattice.input_roles must contain 3 entries"};
    QTest::newRow("M15 empty") << "\"input1\""
                               << "\"\"" << QStringList{"lattice.input_names must not contain empty names"};
    QTest::newRow("M15 duplicate") << "\"input2\""
                                   << "\"input0\""
                                   << QStringList{"lattice.input_names contains duplicate name \"input0\""};
    QTest::newRow("M15 role") << "\"sparse_features\""
                              << "\"features\""
                              << QStringList{"lattice.input_roles contains unsupported role \"features\""};
    QTest::newRow("M16 role") << "output_roles = [\"tensor\"]"
                              << "output_roles = [\"sparse_coords\"]"
                              << QStringList{
                                     "lattice.output_roles contains unsupported role \"sparse_coords\""};
    QTest::newRow("M16 count") << "[\"output0\"]"
                               << "[\"output0\", \"output1\"]"
                               << QStringList{"lattice.output_names must contain 1 entries"};
    QTest::newRow("extra module attribute allowed")
        << "lattice.ir_version = 2,"
        << "lattice.ir_version = 2, producer = \"me\"," << QStringList();
    QTest::newRow("input and output names may coincide") << "[\"output0\"]"
                                                         << "[\"input0\"]" << QStringList();
    QTest::newRow("M8") << "  }\n}\n"
                        << "  }\n  func.func @aux() {\n    return\n  }\n}\n"
                        << QStringList{"lattice artifact module supports exactly one func.func entry"};
    QTest::newRow("M12") << "    return %y"
                         << "    return %y : tensor<?x8xf32>\n  ^bb1:\n    return %y"
                         << QStringList{"lattice artifact entry function must contain exactly one block"};
    QTest::newRow("M10 + return count")
        << "-> tensor<?x8xf32> {"
        << "{"
        << QStringList{"lattice artifact entry function must return at least one value",
                       "lattice.output_names must contain 0 entries",
                       "lattice.output_roles must contain 0 entries",
                       "'func.return' op has 1 operands, but enclosing function (@forward) returns 0"};
  }
  void moduleRules() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QStringList, expected);
    const std::string text = from.isEmpty() ? kValid : replaced(kValid, from.toStdString(), to.toStdString());
    const std::vector<Diagnostic> diagnostics = verifyText(text);
    QStringList got = messages(diagnostics);
    got.sort();
    expected.sort();
    QCOMPARE(got, expected);
  }

  void declarationHasNoBody() {
    const std::string text = kValid.substr(0, kValid.find(" {\n    %y")) + "\n}\n";
    QCOMPARE(messages(verifyText(text)), QStringList{"lattice artifact entry function must have a body"});
  }

  void moduleWithoutFunctions() {
    const std::string text = kValid.substr(0, kValid.find("} {") + 3) + "\n}\n";
    const std::vector<Diagnostic> d = verifyText(text);
    QVERIFY(
        messages(d).contains("lattice artifact module requires exactly one func.func entry named @forward"));
  }

  // MLIR's own rules: SSA values defined once, before use, with consistent types; return
  // against the function type. Reported where the value is used or defined.
  void structuralRules_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("undefined") << "activation %f"
                               << "activation %g" << QStringList{"use of undeclared SSA value name '%g'"};
    QTest::newRow("redefinition") << "%a: tensor<1xi32>"
                                  << "%c: tensor<1xi32>" << QStringList{"redefinition of SSA value '%c'"};
    QTest::newRow("use before definition")
        << "return %y"
        << "return %z" << QStringList{"use of undeclared SSA value name '%z'"};
    QTest::newRow("type of use") << "(tensor<?x8xf32>) -> tensor<?x8xf32>\n"
                                 << "(tensor<?x8xf16>) -> tensor<?x8xf32>\n"
                                 << QStringList{
                                        "use of value '%f' expects different type than prior uses: "
                                        "'tensor<?x8xf16>' vs 'tensor<?x8xf32>'",
                                        "'lattice.activation' op result dtype must match input dtype"};
    QTest::newRow("return type") << "return %y : tensor<?x8xf32>"
                                 << "return %f : tensor<?x8xf32>" << QStringList();
    QTest::newRow("return against function")
        << "-> tensor<?x8xf32> {"
        << "-> tensor<?x4xi32> {"
        << QStringList{
               "'func.return' op type of return operand 0 ('tensor<?x8xf32>') doesn't match function result "
               "type ('tensor<?x4xi32>') in function @forward"};
  }
  void structuralRules() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QStringList, expected);
    QStringList got = messages(verifyText(replaced(kValid, from.toStdString(), to.toStdString())));
    got.sort();
    expected.sort();
    QCOMPARE(got, expected);
  }

  // Stride propagation (sec. 10.1) makes X10, X11 and X14 checkable before running: %s1 has
  // stride 1, %s2 stride 2, %d = conv3d(%s1, stride 2) stride 2, %u = conv_transpose3d(%d,
  // stride 2) stride 1 again.
  void strideRules_data() {
    QTest::addColumn<QString>("body");
    QTest::addColumn<QStringList>("expected");
    const std::string conv =
        "{kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, "
        "dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"}";
    QTest::newRow("propagated strides agree")
        << QString::fromStdString(
               "%d = lattice.conv3d %s1, %w " + conv +
               " : (S, W) -> S\n"
               "    %u = lattice.conv_transpose3d %d, %w " +
               conv +
               " : (S, W) -> S\n"
               "    %o = lattice.sparse.binary %u, %s1 {op = #lattice.binary_op<add>, join = "
               "#lattice.join<inner>, "
               "lhs_fill = 0.0 : f32, rhs_fill = 0.0 : f32} : (S, S) -> S\n"
               "    %t = lattice.trilinear_upsample3d %s2, %u {stride = array<i64: 2, 2, 2>} : (S, S) -> S")
        << QStringList();
    QTest::newRow("X14 binary")
        << QString::fromStdString("%d = lattice.conv3d %s1, %w " + conv +
                                  " : (S, W) -> S\n"
                                  "    %o = lattice.sparse.binary %d, %s1 {op = #lattice.binary_op<add>, "
                                  "join = #lattice.join<inner>, "
                                  "lhs_fill = 0.0 : f32, rhs_fill = 0.0 : f32} : (S, S) -> S")
        << QStringList{
               "'lattice.sparse.binary' op sparse tensor strides must match ((2, 2, 2) vs (1, 1, 1))"};
    QTest::newRow("X14 cat")
        << "%o = lattice.sparse.cat %s1, %s2 {join = #lattice.join<outer>} : (S, S) -> S"
        << QStringList{"'lattice.sparse.cat' op sparse tensor strides must match ((1, 1, 1) vs (2, 2, 2))"};
    QTest::newRow("X14 reindex")
        << "%o = lattice.sparse.reindex %s2, %s1 {fill = 0.0 : f32} : (S, S) -> S"
        << QStringList{
               "'lattice.sparse.reindex' op sparse tensor strides must match ((2, 2, 2) vs (1, 1, 1))"};
    QTest::newRow("X10 generative") << "%o = lattice.generative_conv_transpose3d %s1, %w {kernel_size = "
                                       "array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, "
                                       "accumulation = \"canonical_f32\"} : (S, W) -> S"
                                    << QStringList{"'lattice.generative_conv_transpose3d' op transpose "
                                                   "stride must divide the input tensor stride (input "
                                                   "stride (1, 1, 1), op stride (2, 2, 2))"};
    QTest::newRow("X11 transposed target")
        << "%o = lattice.trilinear_upsample3d %s2, %s2 {stride = array<i64: 2, 1, 2>} : (S, S) -> S"
        << QStringList{"'lattice.trilinear_upsample3d' op target stride (2, 2, 2) does not match "
                       "transposed output stride (1, 2, 1)"};
    QTest::newRow("X11 target conv") << QString::fromStdString("%o = lattice.target_conv3d %s1, %s1, %w " +
                                                               conv + " : (S, S, W) -> S")
                                     << QStringList{"'lattice.target_conv3d' op target coordinates must use "
                                                    "the convolution output stride (target stride "
                                                    "(1, 1, 1))"};
  }
  void strideRules() {
    QFETCH(QString, body);
    QFETCH(QStringList, expected);
    const std::string s = sparseTensorType("f32");
    std::string text =
        replaced(kValid, "%a: tensor<1xi32>", "%a: tensor<1xi32>, %w: !lattice.weight<conv3d, f32>");
    text = replaced(text, "[\"input0\", \"input1\", \"input2\"]",
                    "[\"input0\", \"input1\", \"input2\", \"input3\"]");
    text = replaced(text, "\"sparse_active\"]", "\"sparse_active\", \"tensor\"]");
    const std::string make =
        "lattice.sparse.make %c, %f, %a {stride = array<i64: STRIDE>, coord_order = "
        "#lattice.coord<batch_x_y_z>} : (tensor<?x4xi32>, tensor<?x8xf32>, tensor<1xi32>) -> S\n";
    std::string ops = "%s1 = " + replaced(make, "STRIDE", "1, 1, 1") +
                      "    %s2 = " + replaced(make, "STRIDE", "2, 2, 2") + "    " + body.toStdString() +
                      "\n    %y";
    for (std::size_t at = ops.find(" S"); at != std::string::npos; at = ops.find(" S", at + s.size()))
      ops.replace(at + 1, 1, s);
    for (std::size_t at = ops.find("(S"); at != std::string::npos; at = ops.find("(S", at + s.size()))
      ops.replace(at + 1, 1, s);
    for (std::size_t at = ops.find(" W"); at != std::string::npos; at = ops.find(" W", at + 1))
      ops.replace(at + 1, 1, "!lattice.weight<conv3d, f32>");
    text = replaced(text, "%y", ops);
    QStringList got = messages(verifyText(text));
    got.sort();
    expected.sort();
    QCOMPARE(got, expected);
  }

  // All errors are reported, each once: first the one lattice-opt reports (validation spec
  // sec. 1: parse, then the op verifiers, then the artifact contract, each stopping at its first
  // failure; an undeclared value is a parse error in MLIR), then the rest in source order.
  void allErrorsReferenceFirstThenSourceOrder() {
    std::string text = replaced(kValid, "ir_version = 2", "ir_version = 7");
    text = replaced(text, "alpha = 0.01 : f32", "alpha = -1.0 : f32");
    text = replaced(text, "beta = 1.0 : f32", "beta = 0.0 : f32");
    const std::string withUndeclared = replaced(text, "return %y", "return %q");
    QCOMPARE(rendered(verifyText(withUndeclared)),
             QStringLiteral("t.mlir:12:12: error: use of undeclared SSA value name '%q'\n"
                            "t.mlir:2:3: error: unsupported lattice.ir_version: 7 (expected 2)\n"
                            "t.mlir:11:10: error: 'lattice.activation' op alpha must be non-negative\n"
                            "t.mlir:11:10: error: 'lattice.activation' op beta must be positive\n"));
    // The op verifiers run before the contract pass.
    QCOMPARE(rendered(verifyText(text)),
             QStringLiteral("t.mlir:11:10: error: 'lattice.activation' op alpha must be non-negative\n"
                            "t.mlir:2:3: error: unsupported lattice.ir_version: 7 (expected 2)\n"
                            "t.mlir:11:10: error: 'lattice.activation' op beta must be positive\n"));
    // Within the contract, rule order: the entry's name (M9) before the roles (M15) above it.
    std::string contract = replaced(kValid, "\"sparse_active\"]", "\"dense\"]");
    contract = replaced(contract, "@forward", "@predict");
    QCOMPARE(rendered(verifyText(contract)),
             QStringLiteral("t.mlir:10:13: error: lattice artifact entry function must be named @forward\n"
                            "t.mlir:5:62: error: lattice.input_roles contains unsupported role \"dense\"\n"));
  }

  // Sec. 2: the bundle checks.
  void bundleRules() {
    QTemporaryDir tmp;
    const std::string missing = tmp.filePath(QStringLiteral("nope")).toStdString();
    QCOMPARE(rendered(validateArtifact(missing).diagnostics),
             QString::fromStdString(missing +
                                    ": error: lattice artifact directory does not exist: " + missing + "\n"));
    const std::string empty = tmp.filePath(QStringLiteral("empty")).toStdString();
    QDir().mkpath(QString::fromStdString(empty));
    QCOMPARE(messages(validateArtifact(empty).diagnostics),
             (QStringList{"lattice artifact is missing graph.mlir",
                          "lattice artifact is missing weights.safetensors"}));
    writeFile(empty + "/graph.mlir", readFile(kData + "models/sparse_reindex/expected.lattice/graph.mlir"));
    writeFile(empty + "/weights.safetensors", "not a safetensors file");
    const ArtifactValidation v = validateArtifact(empty);
    QCOMPARE(v.diagnostics.size(), std::size_t(1));
    QVERIFY(v.diagnostics[0].message.rfind("weights.safetensors must load as a tensor mapping: ", 0) == 0);
    QCOMPARE(v.diagnostics[0].file, empty + "/weights.safetensors");
    QVERIFY(v.graph.has_value());
  }

  // IO6 and X1: storage keys present, nothing unreferenced.
  void weightKeys() {
    QTemporaryDir tmp;
    const std::string graph = readFile(kData + "models/sparse_classifier/expected.lattice/graph.mlir");
    std::vector<NamedTensor> tensors = without(expectedWeights("sparse_classifier"), "norm.bias");
    tensors = with(tensors, "extra.t", DType::F32, {2});
    tensors = with(tensors, "stem.weight.old", DType::F32, {2}); // referenced by prefix (IO6)
    tensors = with(tensors, "stemx", DType::F32, {2});
    const std::string dir = makeArtifact(tmp, graph, tensors);
    const ArtifactValidation v = validateArtifact(dir);
    // graph.mlir line 21 is %norm_bias.
    QCOMPARE(rendered(v.diagnostics),
             QString::fromStdString(
                 dir + "/graph.mlir:21:18: error: artifact weight is missing storage key 'norm.bias'\n" + dir +
                 "/weights.safetensors: error: artifact contains unreferenced weights: extra.t, stemx\n"));
  }

  // Dense weights: dtype (F32/F16, equal to the type), rank per layout (format sec. 11) and
  // shapes against the consumers (X8).
  void denseWeightShapes_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QList<qint64>>("shape");
    QTest::addColumn<QString>("diagnostic");
    QTest::newRow("dtype")
        << "stem.weight" << int(DType::F16) << QList<qint64>{4, 1, 1, 1, 3}
        << "16:20: error: weight 'stem.weight' is stored as F16 but its type declares 'f32'";
    QTest::newRow("integer dtype")
        << "head.bias" << int(DType::I32) << QList<qint64>{2}
        << "32:18: error: dense weight 'head.bias' must be stored as F32 or F16, found I32";
    QTest::newRow("rank") << "stem.weight" << int(DType::F32) << QList<qint64>{4, 1, 1, 3}
                          << "16:20: error: weight 'stem.weight' has shape [4, 1, 1, 3] but layout "
                             "'conv3d_o_xyz_i' needs rank 5";
    QTest::newRow("kernel")
        << "stem.weight" << int(DType::F32) << QList<qint64>{4, 3, 1, 1, 3}
        << "18:13: error: 'lattice.conv3d' op weight 'stem.weight' shape [4, 3, 1, 1, 3] does not match "
           "kernel_size [1, 1, 1] (layout conv3d_o_xyz_i)";
    QTest::newRow("conv bias")
        << "stem.bias" << int(DType::F32) << QList<qint64>{5}
        << "18:13: error: 'lattice.conv3d' op bias channels must match output channels: bias 'stem.bias' has "
           "5 channels, the output has 4";
    QTest::newRow("linear in")
        << "head.weight" << int(DType::F32) << QList<qint64>{2, 5}
        << "33:13: error: 'lattice.linear' op linear weight input channels 5 do not match the input's 4: weight "
           "'head.weight' is [2, 5]";
    QTest::newRow("linear out")
        << "head.weight" << int(DType::F32) << QList<qint64>{3, 4}
        << "33:13: error: 'lattice.linear' op weight 'head.weight' has 3 output channels but the result has "
           "2\n"
           "GRAPH:33:13: error: 'lattice.linear' op bias channels must match output channels: bias 'head.bias' "
           "has 2 channels, the output has 3";
    QTest::newRow("conv input channels")
        << "stem.weight" << int(DType::F32) << QList<qint64>{4, 1, 1, 1, 5}
        << "18:13: error: 'lattice.conv3d' op weight input channels must match x.channels: weight "
           "'stem.weight' has 5 input channels, x has 3";
    QTest::newRow("norm")
        << "norm.weight" << int(DType::F32) << QList<qint64>{3}
        << "24:22: error: 'lattice.batch_norm' op scale channels must match output channels: scale "
           "'norm.weight' has 3 channels, the input has 4";
  }
  void denseWeightShapes() {
    QFETCH(QString, key);
    QFETCH(int, dtype);
    QFETCH(QList<qint64>, shape);
    QFETCH(QString, diagnostic);
    QTemporaryDir tmp;
    const std::string graph = readFile(kData + "models/sparse_classifier/expected.lattice/graph.mlir");
    const std::vector<NamedTensor> tensors =
        with(expectedWeights("sparse_classifier"), key.toStdString(), DType(dtype),
             std::vector<int64_t>(shape.begin(), shape.end()));
    const std::string dir = makeArtifact(tmp, graph, tensors);
    const ArtifactValidation v = validateArtifact(dir);
    const QString graphPath = QString::fromStdString(dir + "/graph.mlir");
    QCOMPARE(rendered(v.diagnostics),
             graphPath + ":" + QString(diagnostic).replace(QStringLiteral("GRAPH"), graphPath) + "\n");
  }

  // A sparse input whose width the graph leaves open: nothing to contradict, and the first op
  // whose weight fixes it says what it must be (the stem's C_in, read from its stored shape).
  void openInputWidthGivesANeed() {
    QTemporaryDir tmp;
    const std::string graph = readFile(kData + "models/sparse_classifier/expected.lattice/graph.mlir");
    const std::string open = replaced(replaced(graph, "%x_features: tensor<?x3xf32>", "%x_features: tensor<?x?xf32>"),
                                      "(tensor<?x4xi32>, tensor<?x3xf32>, tensor<1xi32>)",
                                      "(tensor<?x4xi32>, tensor<?x?xf32>, tensor<1xi32>)");
    const std::vector<NamedTensor> tensors = expectedWeights("sparse_classifier");
    const std::string dir = makeArtifact(tmp, open, tensors);
    const ArtifactValidation v = validateArtifact(dir);
    QCOMPARE(rendered(v.diagnostics), QString());
    const auto stored = std::find_if(tensors.begin(), tensors.end(),
                                     [](const NamedTensor& t) { return t.key == "stem.weight"; });
    QVERIFY(stored != tensors.end());
    const std::vector<ArgumentChannelNeed> needs =
        argumentChannelNeeds(*v.graph, [&](const std::string& key) { return v.weights->find(key); });
    QCOMPARE(needs.size(), std::size_t(1));
    QCOMPARE(needs[0].argument, std::size_t(1)); // %x_features
    QCOMPARE(needs[0].channels, stored->tensor.shape().back());
    QCOMPARE(needs[0].op, std::string("lattice.conv3d"));
    QCOMPARE(needs[0].weightKey, std::string("stem.weight"));
    QCOMPARE(needs[0].result, std::string("stem"));
  }

  // Quantized weights (X2-X5, format sec. 13.2-13.3) on the int8 classifier: stem is a 1x1x1
  // conv (4 out, 3 in), head a linear (2 out, 4 in), both int8 with group_size 32 and f16 scales.
  void quantizedWeights_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QList<qint64>>("shape");
    QTest::addColumn<QString>("diagnostic");
    QTest::newRow("missing scales")
        << "-stem.weight.scales" << 0 << QList<qint64>{}
        << "graph.mlir:16:20: error: quantized artifact weight requires stem.weight.weight, "
           "stem.weight.scales, and stem.weight.biases tensors (missing 'stem.weight.scales')";
    QTest::newRow("all missing")
        << "-head.weight.weight,head.weight.scales,head.weight.biases" << 0 << QList<qint64>{}
        << "graph.mlir:23:20: error: artifact weight is missing storage key 'head.weight'";
    QTest::newRow("scales dtype")
        << "stem.weight.scales,stem.weight.biases" << int(DType::F32) << QList<qint64>{1, 4, 1}
        << "graph.mlir:16:20: error: quantized artifact scales dtype mismatch: expected F16, found F32 "
           "('stem.weight.scales')";
    QTest::newRow("packed dtype")
        << "stem.weight.weight" << int(DType::I32) << QList<qint64>{1, 4, 8}
        << "graph.mlir:16:20: error: quantized weight 'stem.weight.weight' must be a rank-3 U32 tensor, "
           "found I32 [1, 4, 8]";
    QTest::newRow("group count")
        << "stem.weight.weight" << int(DType::U32) << QList<qint64>{1, 4, 16}
        << "graph.mlir:16:20: error: quantized weight 'stem.weight' packs 64 storage channels per row but "
           "its scales hold 1 groups of 32";
    QTest::newRow("kernel rows")
        << "stem.weight.weight" << int(DType::U32) << QList<qint64>{3, 8, 4}
        << "graph.mlir:16:20: error: quantized scales 'stem.weight.scales' shape [1, 4, 1] does not "
           "match the packed weight shape [3, 8, 4]";
    QTest::newRow("biases")
        << "head.weight.biases" << int(DType::F16) << QList<qint64>{1, 3, 1}
        << "graph.mlir:23:20: error: quantized biases 'head.weight.biases' must match the scales' dtype and "
           "shape (F16 [1, 3, 1] vs F16 [1, 2, 1])";
  }
  void quantizedWeights() {
    QFETCH(QString, key);
    QFETCH(int, dtype);
    QFETCH(QList<qint64>, shape);
    QFETCH(QString, diagnostic);
    QTemporaryDir tmp;
    const std::string graph =
        readFile(kData + "models/quantized_classifier_int8/expected.lattice/graph.mlir");
    std::vector<NamedTensor> tensors = expectedWeights("quantized_classifier_int8");
    if (key.startsWith('-')) {
      for (const QString& k : key.mid(1).split(','))
        tensors = without(tensors, k.toStdString());
    } else {
      for (const QString& k : key.split(','))
        tensors =
            with(tensors, k.toStdString(), DType(dtype), std::vector<int64_t>(shape.begin(), shape.end()));
    }
    const std::string dir = makeArtifact(tmp, graph, tensors);
    const ArtifactValidation v = validateArtifact(dir);
    QCOMPARE(rendered(v.diagnostics), QString::fromStdString(dir + "/") + diagnostic + "\n");
  }

  // X4: packed kernel rows against a 1x1x1 conv, with consistent packed shapes (K = 3).
  void quantizedKernelRows() {
    QTemporaryDir tmp;
    const std::string graph =
        readFile(kData + "models/quantized_classifier_int8/expected.lattice/graph.mlir");
    std::vector<NamedTensor> tensors = expectedWeights("quantized_classifier_int8");
    tensors = with(tensors, "stem.weight.weight", DType::U32, {3, 8, 4});
    tensors = with(tensors, "stem.weight.scales", DType::F16, {3, 1, 4});
    tensors = with(tensors, "stem.weight.biases", DType::F16, {3, 1, 4});
    const std::string dir = makeArtifact(tmp, graph, tensors);
    QCOMPARE(rendered(validateArtifact(dir).diagnostics),
             QString::fromStdString(
                 dir + "/graph.mlir:18:13: error: 'lattice.conv3d' op packed artifact weight kernel rows "
                       "do not match consumer kernel_size ('stem.weight' has 3, kernel_size [1, 1, 1])\n"));
  }
};

QTEST_APPLESS_MAIN(TestVerifier)
#include "tst_verifier.moc"
