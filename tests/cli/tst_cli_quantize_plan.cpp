// End-to-end tests of `lattice-cli lower --quantize-plan / --keep-dense`: a uniform plan gives
// the bytes `--quantize` gives (and a conformance case's expected artifact); a mixed plan's
// artifact validates, every weight is packed as the plan says, and its exact run equals the dense
// artifact's with exactly those weights quantized and dequantized; bad plans exit 1 naming the
// entry, a plan with --quantize is a usage error.

#include "CliRunner.h"

#include "../unit/LoweringTestModels.h"

#include "lowering/WeightPacking.h"
#include "model/Archive.h"
#include "tensor/Safetensors.h"
#include "tensor/TensorConvert.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <cmath>
#include <map>

using lattice::testing::CliRun;
using lattice::testing::runCli;
using namespace lattice;

namespace {

const QString kModels = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/");
const QString kResNet = QStringLiteral("example:sparse_resnet21d");

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
  f.write(text);
  return path;
}

/// One conv or linear weight op of a graph.mlir: its layer (storage key without `.weight`) and
/// its packing attribute's text.
struct WeightOp {
  QString layer;
  QString packing;
};

std::vector<WeightOp> quantizableWeightOps(const QByteArray& mlir) {
  static const QRegularExpression op(
      QStringLiteral("lattice\\.weight @\\S+ \\{storage_key = \"([^\"]+)\\.weight\", layout = "
                     "#lattice\\.weight_layout<(conv3d|linear)[^>]*>, packing = (#lattice\\.packing<[^>]*>)\\}"));
  std::vector<WeightOp> out;
  auto it = op.globalMatch(QString::fromUtf8(mlir));
  while (it.hasNext()) {
    const QRegularExpressionMatch m = it.next();
    out.push_back({m.captured(1), m.captured(3)});
  }
  return out;
}

/// The packing attribute text of a format (bits 0: dense), as the artifact spells it.
QString packingText(int bits, int group = 32, const QString& scale = QStringLiteral("f16")) {
  if (bits == 0) return QStringLiteral("#lattice.packing<dense>");
  return QStringLiteral("#lattice.packing<int%1, group_size = %2, scale_dtype = %3, mode = affine>")
      .arg(bits)
      .arg(group)
      .arg(scale);
}

struct Format {
  int bits = 0;
  int group = 32;
  QString scale = QStringLiteral("f16");
};

// The mixed plan the tests write, and the format each layer of SparseResNet21D must get under it,
// worked out from the plan's rules by hand: "0.0.0" exact dense; "1.*" int4 g64; "2.?.main.3"
// int4 g32 f32; "3.2.main.0" int8 g128; every other layer the default int8.
const QByteArray kMixedPlan = R"({
  "format": "lattice-quantization-plan",
  "version": 1,
  "default": "int8",
  "layers": {
    "0.0.0": "dense",
    "1.*": {"kind": "int4", "group_size": 64},
    "2.?.main.3": {"kind": "int4", "group_size": 32, "scale_dtype": "f32"},
    "3.2.main.0": {"kind": "int8", "group_size": 128}
  }
})";

Format mixedFormatOf(const QString& layer) {
  if (layer == QStringLiteral("0.0.0")) return {0};
  if (layer == QStringLiteral("3.2.main.0")) return {8, 128};
  if (layer == QStringLiteral("2.1.main.3") || layer == QStringLiteral("2.2.main.3")) return {4, 32, QStringLiteral("f32")};
  if (layer.startsWith(QStringLiteral("1."))) return {4, 64};
  return {8, 32};
}

std::map<std::string, std::vector<float>> outputsOf(const QString& path) {
  Expected<SafetensorsFile> f = SafetensorsFile::open(path.toStdString());
  if (!f) qFatal("%s", f.message().c_str());
  std::map<std::string, std::vector<float>> out;
  for (const NamedTensor& t : f->tensors()) {
    Expected<std::vector<float>> v = toFloatVector(t.tensor);
    if (!v) qFatal("%s", v.message().c_str());
    out[t.key] = std::move(*v);
  }
  return out;
}

double relativeL2(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    den += double(b[i]) * b[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// A Sequential of a SubmConv3d "0" and a NormalizedSubmConv3d "1", written as an archive.
QString writeNormalizedModel(const QTemporaryDir& dir) {
  using namespace lattice::testmodels;
  Model m = sequentialModel();
  ConvSpec a;
  a.in = 2;
  a.out = 3;
  a.kernel = {3, 3, 3};
  addConv(m, "0", "SubmConv3d", a);
  ConvSpec b;
  b.in = 3;
  b.out = 4;
  b.kernel = {3, 3, 3};
  addConv(m, "1", "NormalizedSubmConv3d", b);
  finishSequential(m);
  m.exampleInputs = {sparseInput("input", 2)};
  const QString path = dir.filePath(QStringLiteral("normalized.ltfx"));
  Status s = writeArchive(m, path.toStdString());
  if (!s) qFatal("%s", s.message().c_str());
  return path;
}

} // namespace

class TestCliQuantizePlan : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void uniformPlansAreByteIdentical_data() {
    QTest::addColumn<QStringList>("quantize");
    QTest::addColumn<QByteArray>("plan");
    QTest::newRow("int4 g64") << QStringList{"--quantize", "4", "--group-size", "64"}
                              << QByteArray(R"({"default": {"kind": "int4", "group_size": 64}})");
    QTest::newRow("int8") << QStringList{"--quantize", "8"} << QByteArray(R"({"default": "int8"})");
    QTest::newRow("int8 g128 f32") << QStringList{"--quantize", "8", "--group-size", "128", "--scale-dtype", "f32"}
                                   << QByteArray(R"({"default": "int8/g128/f32"})");
    QTest::newRow("dense") << QStringList{} << QByteArray(R"({"default": "dense"})");
  }
  void uniformPlansAreByteIdentical() {
    QFETCH(QStringList, quantize);
    QFETCH(QByteArray, plan);
    QTemporaryDir tmp;
    const QString planPath = writeFile(tmp, QStringLiteral("plan.json"), plan);
    const QString a = tmp.filePath(QStringLiteral("a")), b = tmp.filePath(QStringLiteral("b"));
    CliRun r = runCli(QStringList{"lower", kResNet, "-o", a} + quantize);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = runCli({"lower", kResNet, "-o", b, "--quantize-plan", planPath});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QByteArray mlir = readAll(a + QStringLiteral("/graph.mlir"));
    QVERIFY(!mlir.isEmpty());
    QCOMPARE(readAll(b + QStringLiteral("/graph.mlir")), mlir);
    QCOMPARE(readAll(b + QStringLiteral("/weights.safetensors")), readAll(a + QStringLiteral("/weights.safetensors")));
    // The plan was really applied: the packing of the uniform options is there.
    QVERIFY(mlir.contains(quantize.isEmpty() ? "#lattice.packing<dense>" : "mode = affine"));
  }

  // The conformance case exported by the reference with quantize_bits 8: the plan replaces the
  // archive's hints and gives the reference's bytes.
  void uniformPlanMatchesTheReferenceInt8Case() {
    QTemporaryDir tmp;
    const QString planPath = writeFile(tmp, QStringLiteral("plan.json"), R"({"default": "int8"})");
    const QString out = tmp.filePath(QStringLiteral("out"));
    const QString c = kModels + QStringLiteral("quantized_classifier_int8/");
    const CliRun r = runCli({"lower", c + QStringLiteral("model.ltfx"), "-o", out, "--quantize-plan", planPath});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(readAll(out + QStringLiteral("/graph.mlir")), readAll(c + QStringLiteral("expected.lattice/graph.mlir")));
    QCOMPARE(readAll(out + QStringLiteral("/weights.safetensors")),
             readAll(c + QStringLiteral("expected.lattice/weights.safetensors")));
    // A dense plan overrides the archive's quantize_bits.
    const QString densePlan = writeFile(tmp, QStringLiteral("dense.json"), R"({"default": "dense"})");
    const QString dense = tmp.filePath(QStringLiteral("dense"));
    QCOMPARE(runCli({"lower", c + QStringLiteral("model.ltfx"), "-o", dense, "--quantize-plan", densePlan}).code, 0);
    QVERIFY(!readAll(dense + QStringLiteral("/graph.mlir")).contains("mode = affine"));
  }

  void mixedPlanPacksAsPlannedAndRunsAsDequantized() {
    QTemporaryDir tmp;
    const QString planPath = writeFile(tmp, QStringLiteral("plan.json"), kMixedPlan);
    const QString mixed = tmp.filePath(QStringLiteral("mixed")), dense = tmp.filePath(QStringLiteral("dense"));
    CliRun r = runCli({"lower", kResNet, "-o", mixed, "--quantize-plan", planPath});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = runCli({"lower", kResNet, "-o", dense});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = runCli({"validate", mixed});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));

    // Every conv weight's packing is the plan's.
    const std::vector<WeightOp> ops = quantizableWeightOps(readAll(mixed + QStringLiteral("/graph.mlir")));
    QCOMPARE(ops.size(), std::size_t(21));
    std::map<int, int> kinds;
    for (const WeightOp& op : ops) {
      const Format f = mixedFormatOf(op.layer);
      QCOMPARE(op.packing, packingText(f.bits, f.group, f.scale));
      ++kinds[f.bits];
    }
    QVERIFY(kinds[0] == 1 && kinds[4] >= 3 && kinds[8] >= 3); // really mixed

    // The oracle: the dense artifact with exactly those weights quantized and dequantized.
    const QString oracle = tmp.filePath(QStringLiteral("oracle"));
    QVERIFY(QDir().mkpath(oracle));
    QVERIFY(QFile::copy(dense + QStringLiteral("/graph.mlir"), oracle + QStringLiteral("/graph.mlir")));
    Expected<SafetensorsFile> weights = SafetensorsFile::open(QString(dense + QStringLiteral("/weights.safetensors")).toStdString());
    QVERIFY2(weights.ok(), weights.ok() ? "" : weights.message().c_str());
    std::vector<NamedTensor> rewritten;
    int replaced = 0;
    for (const NamedTensor& t : weights->tensors()) {
      NamedTensor copy = t;
      const QString key = QString::fromStdString(t.key);
      const bool conv = key.endsWith(QStringLiteral(".weight")) && t.tensor.shape().size() == 5;
      if (conv) {
        const Format f = mixedFormatOf(key.chopped(7));
        if (f.bits) {
          Expected<QuantizedWeight> q =
              quantizeAffine(t.tensor, f.bits, f.group, f.scale == QStringLiteral("f16") ? DType::F16 : DType::F32);
          QVERIFY(q.ok());
          Expected<TensorData> back = dequantizeAffine(*q, f.bits, f.group, t.tensor.shape());
          QVERIFY(back.ok());
          copy.tensor = *back;
          ++replaced;
        }
      }
      rewritten.push_back(std::move(copy));
    }
    QCOMPARE(replaced, 20);
    Status written = writeSafetensors(QString(oracle + QStringLiteral("/weights.safetensors")).toStdString(), rewritten,
                                      torchWeightsMetadata());
    QVERIFY2(written.ok(), written.ok() ? "" : written.message().c_str());

    const QString mixedOut = tmp.filePath(QStringLiteral("mixed.safetensors"));
    const QString oracleOut = tmp.filePath(QStringLiteral("oracle.safetensors"));
    const QString denseOut = tmp.filePath(QStringLiteral("dense.safetensors"));
    for (const auto& [dir, out] : {std::pair{mixed, mixedOut}, std::pair{oracle, oracleOut}, std::pair{dense, denseOut}}) {
      r = runCli({"run", dir, "--random-inputs", "3000:7", "--exact", "-o", out});
      QVERIFY2(r.code == 0, qPrintable(r.err));
    }
    const auto a = outputsOf(mixedOut), b = outputsOf(oracleOut), d = outputsOf(denseOut);
    QVERIFY(!a.empty());
    QCOMPARE(a.size(), b.size());
    double quantizationError = 0;
    for (const auto& [key, values] : a) {
      QVERIFY(b.count(key));
      QCOMPARE(values.size(), b.at(key).size());
      const double rel = relativeL2(values, b.at(key));
      QVERIFY2(rel <= 1e-6, qPrintable(QStringLiteral("%1: rel L2 %2").arg(QString::fromStdString(key)).arg(rel)));
      quantizationError = std::max(quantizationError, relativeL2(values, d.at(key)));
    }
    // ... and the quantization did change the outputs (the comparison above can fail).
    QVERIFY2(quantizationError > 1e-4, qPrintable(QString::number(quantizationError)));
  }

  void keepDenseOnTopOfQuantize() {
    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("out"));
    const CliRun r = runCli({"lower", kResNet, "-o", out, "--quantize", "8", "--keep-dense", "0.*", "--keep-dense", "4.0.0"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const std::vector<WeightOp> ops = quantizableWeightOps(readAll(out + QStringLiteral("/graph.mlir")));
    QCOMPARE(ops.size(), std::size_t(21));
    int denseCount = 0;
    for (const WeightOp& op : ops) {
      const bool keep = op.layer.startsWith(QStringLiteral("0.")) || op.layer == QStringLiteral("4.0.0");
      QCOMPARE(op.packing, packingText(keep ? 0 : 8));
      denseCount += keep;
    }
    QCOMPARE(denseCount, 6);
    QCOMPARE(runCli({"validate", out}).code, 0);
  }

  void badPlansNameTheEntry_data() {
    QTest::addColumn<QByteArray>("plan");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown path") << QByteArray(R"({"default": "int8", "layers": {"0.0.0": "dense", "stem.*": "int4"}})")
                                  << QStringLiteral("quantization plan entry 'stem.*' matches no conv or linear layer of the model (its layers: 0.0.0, ");
    QTest::newRow("group size") << QByteArray(R"({"layers": {"1.0.0": {"kind": "int4", "group_size": 16}}})")
                                << QStringLiteral("plan.json: layers.\"1.0.0\": group_size must be 32, 64 or 128 (the sizes mlx-lattice accepts), got 16");
    QTest::newRow("kind") << QByteArray(R"({"layers": {"1.0.0": {"kind": "int3"}}})")
                          << QStringLiteral("plan.json: layers.\"1.0.0\": unknown kind 'int3'");
    QTest::newRow("syntax") << QByteArray("{\"layers\": {\"1.0.0\": \"int8\",}}")
                            << QStringLiteral("plan.json: parse error at line 1, column");
  }
  void badPlansNameTheEntry() {
    QFETCH(QByteArray, plan);
    QFETCH(QString, expected);
    QTemporaryDir tmp;
    const QString planPath = writeFile(tmp, QStringLiteral("plan.json"), plan);
    const QString out = tmp.filePath(QStringLiteral("out"));
    const CliRun r = runCli({"lower", kResNet, "-o", out, "--quantize-plan", planPath});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QVERIFY2(!r.err.contains(QStringLiteral("usage:")), qPrintable(r.err));
    QVERIFY(!QDir(out).exists());
  }

  void normalizedConvAskedToPack() {
    QTemporaryDir tmp;
    const QString model = writeNormalizedModel(tmp);
    const QString planPath = writeFile(tmp, QStringLiteral("plan.json"), R"({"default": "int8", "layers": {"1": "int8"}})");
    const QString out = tmp.filePath(QStringLiteral("out"));
    CliRun r = runCli({"lower", model, "-o", out, "--quantize-plan", planPath});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(QStringLiteral("quantization plan entry '1' asks int8 for '1', a NormalizedSubmConv3d: its "
                                           "weights stay dense because normalization depends on weight squares")),
             qPrintable(r.err));
    // The default alone leaves it dense and packs the plain conv.
    const QString defaultPlan = writeFile(tmp, QStringLiteral("default.json"), R"({"default": "int8"})");
    r = runCli({"lower", model, "-o", out, "--quantize-plan", defaultPlan});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const std::vector<WeightOp> ops = quantizableWeightOps(readAll(out + QStringLiteral("/graph.mlir")));
    QCOMPARE(ops.size(), std::size_t(2));
    QCOMPARE(ops[0].packing, packingText(8));
    QCOMPARE(ops[1].packing, packingText(0));
    // Without a plan, --quantize keeps the reference's refusal.
    r = runCli({"lower", model, "-o", tmp.filePath(QStringLiteral("q")), "--quantize", "8"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(QStringLiteral("NormalizedSubmConv3d artifact export does not support packed weights")),
             qPrintable(r.err));
  }

  void keepDenseNeedsQuantization() {
    QTemporaryDir tmp;
    const CliRun r = runCli({"lower", kResNet, "-o", tmp.filePath(QStringLiteral("out")), "--keep-dense", "0.*"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(QStringLiteral("--keep-dense needs quantization (--quantize or the archive's quantize_bits)")),
             qPrintable(r.err));
  }

  void planWithUniformOptionsIsAUsageError() {
    QTemporaryDir tmp;
    const QString planPath = writeFile(tmp, QStringLiteral("plan.json"), R"({"default": "int8"})");
    for (const QStringList& extra : {QStringList{"--quantize", "4"}, QStringList{"--group-size", "64"}}) {
      const CliRun r = runCli(QStringList{"lower", kResNet, "-o", tmp.filePath(QStringLiteral("out")), "--quantize-plan", planPath} + extra);
      QCOMPARE(r.code, 2);
      QVERIFY2(r.err.contains(QStringLiteral("--quantize-plan gives every layer's format: drop ") + extra.first()), qPrintable(r.err));
      QVERIFY2(r.err.contains(QStringLiteral("usage: lattice-cli lower")), qPrintable(r.err));
    }
    // A missing plan file is bad input, named.
    const CliRun missing = runCli({"lower", kResNet, "-o", tmp.filePath(QStringLiteral("out")), "--quantize-plan",
                                   tmp.filePath(QStringLiteral("none.json"))});
    QCOMPARE(missing.code, 1);
    QVERIFY2(missing.err.contains(QStringLiteral("none.json: cannot read file")), qPrintable(missing.err));
  }

  // `run MODEL` takes the lower options: a mixed plan runs in memory like the lowered artifact.
  void runModelTakesThePlan() {
    QTemporaryDir tmp;
    const QString planPath = writeFile(tmp, QStringLiteral("plan.json"), kMixedPlan);
    const QString artifact = tmp.filePath(QStringLiteral("mixed"));
    QCOMPARE(runCli({"lower", kResNet, "-o", artifact, "--quantize-plan", planPath}).code, 0);
    const QString fromModel = tmp.filePath(QStringLiteral("m.safetensors")), fromArtifact = tmp.filePath(QStringLiteral("a.safetensors"));
    CliRun r = runCli({"run", kResNet, "--quantize-plan", planPath, "--random-inputs", "500:3", "--exact", "-o", fromModel});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = runCli({"run", artifact, "--random-inputs", "500:3", "--exact", "-o", fromArtifact});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(readAll(fromModel), readAll(fromArtifact));
  }
};

QTEST_GUILESS_MAIN(TestCliQuantizePlan)
#include "tst_cli_quantize_plan.moc"
