// End-to-end tests of the numeric diff, `lattice-cli diff A B (--inputs IN | --random-inputs N)`:
// an artifact against itself is equal everywhere; changing one weight makes its consumer the first
// divergent op with every op before it exactly equal; a dense and an int4 export of
// SparseResNet21D list their ops in B's data-flow order (the order of graph.mlir) with the first
// divergence at the first op that reads a quantized weight.

#include "CliRunner.h"
#include "tensor/Safetensors.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <cstring>

using namespace lattice;
using lattice::testing::CliRun;
using lattice::testing::runCli;

namespace {

const QString kModels = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/");

QJsonObject parseJson(const QString& text) {
  const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8());
  if (!doc.isObject()) qFatal("not a JSON object: %s", qPrintable(text));
  return doc.object();
}

bool copyDir(const QString& from, const QString& to) {
  QDir().mkpath(to);
  for (const QString& f : QDir(from).entryList(QDir::Files))
    if (!QFile::copy(from + QLatin1Char('/') + f, to + QLatin1Char('/') + f)) return false;
  return true;
}

// The SSA names of the ops' first results in graph.mlir order.
QStringList resultOrder(const QString& graphPath) {
  QFile f(graphPath);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QStringList names;
  const QRegularExpression def(QStringLiteral("^\\s*%([A-Za-z0-9_]+)[ ,].*= lattice\\."));
  for (const QByteArray& line : f.readAll().split('\n')) {
    const QRegularExpressionMatch m = def.match(QString::fromUtf8(line));
    if (m.hasMatch()) names << m.captured(1);
  }
  return names;
}

} // namespace

class TestCliNumericDiff : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void anArtifactAgainstItselfIsEqual() {
    const QString a = kModels + QStringLiteral("transpose_convolution/expected.lattice");
    const CliRun r = runCli({QStringLiteral("diff"), a, a, QStringLiteral("--random-inputs"), QStringLiteral("300:3"),
                             QStringLiteral("--json")});
    QCOMPARE(r.code, 0);
    const QJsonObject j = parseJson(r.out);
    QVERIFY(j.value(QStringLiteral("first_divergent")).isNull());
    QVERIFY(j.value(QStringLiteral("within_tolerance")).toBool());
    const QJsonArray ops = j.value(QStringLiteral("ops")).toArray();
    QCOMPARE(ops.size(), 3); // x (sparse.make), down, up
    for (const QJsonValue& op : ops) QCOMPARE(op.toObject().value(QStringLiteral("rel_l2")).toDouble(), 0.0);
  }

  // up.weight and up.bias scaled by 2 (exact in f32): %down is untouched (relative L2 0), %up is the
  // first divergent op, and its output is exactly twice A's, so its relative L2 error is exactly 1.
  void aChangedWeightMakesItsConsumerTheFirstDivergentOp() {
    QTemporaryDir dir;
    const QString source = kModels + QStringLiteral("transpose_convolution/expected.lattice");
    const QString b = dir.path() + QStringLiteral("/b.lattice");
    QVERIFY(copyDir(source, b));
    Expected<SafetensorsFile> weights = SafetensorsFile::open(QString(source + QStringLiteral("/weights.safetensors")).toStdString());
    QVERIFY(weights);
    std::vector<NamedTensor> changed;
    for (const NamedTensor& t : weights->tensors()) {
      if (t.key != "up.weight" && t.key != "up.bias") {
        changed.push_back({t.key, TensorData::owning(t.tensor.dtype(), t.tensor.shape(),
                                                     std::vector<uint8_t>(t.tensor.data(), t.tensor.data() + t.tensor.byteSize()))});
        continue;
      }
      QCOMPARE(t.tensor.dtype(), DType::F32);
      std::vector<float> v(static_cast<std::size_t>(t.tensor.numel()));
      std::memcpy(v.data(), t.tensor.data(), v.size() * 4);
      for (float& x : v) x *= 2.0f;
      std::vector<uint8_t> bytes(v.size() * 4);
      std::memcpy(bytes.data(), v.data(), bytes.size());
      changed.push_back({t.key, TensorData::owning(DType::F32, t.tensor.shape(), std::move(bytes))});
    }
    QVERIFY(QFile::remove(b + QStringLiteral("/weights.safetensors")));
    QVERIFY(writeSafetensors(QString(b + QStringLiteral("/weights.safetensors")).toStdString(), changed, torchWeightsMetadata()));

    const CliRun r = runCli({QStringLiteral("diff"), source, b, QStringLiteral("--inputs"),
                             kModels + QStringLiteral("transpose_convolution/inputs.safetensors"), QStringLiteral("--json")});
    QCOMPARE(r.code, 1);
    const QJsonObject j = parseJson(r.out);
    const QJsonArray ops = j.value(QStringLiteral("ops")).toArray();
    QCOMPARE(ops.size(), 3);
    QCOMPARE(ops[1].toObject().value(QStringLiteral("name")).toString(), QStringLiteral("down"));
    QCOMPARE(ops[1].toObject().value(QStringLiteral("rel_l2")).toDouble(), 0.0);
    const QJsonObject up = ops[2].toObject();
    QCOMPARE(up.value(QStringLiteral("name")).toString(), QStringLiteral("up"));
    QVERIFY(qAbs(up.value(QStringLiteral("rel_l2")).toDouble() - 1.0) < 1e-6);
    QCOMPARE(j.value(QStringLiteral("first_divergent")).toObject().value(QStringLiteral("name")).toString(),
             QStringLiteral("up"));
  }

  void denseAgainstInt4FollowsTheDataFlow() {
    QTemporaryDir dir;
    const QString dense = dir.path() + QStringLiteral("/dense.lattice"), int4 = dir.path() + QStringLiteral("/int4.lattice");
    QCOMPARE(runCli({QStringLiteral("lower"), QStringLiteral("example:sparse_resnet21d"), QStringLiteral("-o"), dense}).code, 0);
    QCOMPARE(runCli({QStringLiteral("lower"), QStringLiteral("example:sparse_resnet21d"), QStringLiteral("-o"), int4,
                     QStringLiteral("--quantize"), QStringLiteral("4")})
                 .code,
             0);
    const CliRun r = runCli({QStringLiteral("diff"), dense, int4, QStringLiteral("--random-inputs"), QStringLiteral("2000"),
                             QStringLiteral("--json")});
    QCOMPARE(r.code, 1);
    const QJsonObject j = parseJson(r.out);
    const QJsonArray ops = j.value(QStringLiteral("ops")).toArray();
    QVERIFY(ops.size() > 50);
    // Listed ops appear in graph.mlir's order (B's data flow), each once.
    const QStringList order = resultOrder(int4 + QStringLiteral("/graph.mlir"));
    int last = -1;
    for (const QJsonValue& v : ops) {
      const int at = static_cast<int>(order.indexOf(v.toObject().value(QStringLiteral("name")).toString()));
      QVERIFY2(at > last, qPrintable(v.toObject().value(QStringLiteral("name")).toString()));
      last = at;
    }
    // The inputs are the same: the first op is exact; the first divergent op is the first conv,
    // the first reader of a quantized weight; it is the first listed op over the tolerance.
    QCOMPARE(ops[0].toObject().value(QStringLiteral("op")).toString(), QStringLiteral("sparse.make"));
    QCOMPARE(ops[0].toObject().value(QStringLiteral("rel_l2")).toDouble(), 0.0);
    QString firstConv;
    for (const QJsonValue& v : ops)
      if (v.toObject().value(QStringLiteral("op")).toString().contains(QStringLiteral("conv"))) {
        firstConv = v.toObject().value(QStringLiteral("name")).toString();
        break;
      }
    const QJsonObject first = j.value(QStringLiteral("first_divergent")).toObject();
    QCOMPARE(first.value(QStringLiteral("name")).toString(), firstConv);
    const double tolerance = j.value(QStringLiteral("tolerance")).toDouble();
    for (const QJsonValue& v : ops) {
      const QJsonObject o = v.toObject();
      if (o.value(QStringLiteral("name")).toString() == firstConv) break;
      QVERIFY(o.value(QStringLiteral("rel_l2")).toDouble() <= tolerance);
    }
    // int4 error is real but the outputs still follow the dense ones.
    for (const QJsonValue& v : j.value(QStringLiteral("outputs")).toArray()) {
      QVERIFY(v.toObject().value(QStringLiteral("rel_l2")).toDouble() > 0.0);
      QVERIFY(v.toObject().value(QStringLiteral("pearson")).toDouble() > 0.9);
    }
    // The text form names the first divergent op.
    const CliRun text = runCli({QStringLiteral("diff"), dense, int4, QStringLiteral("--random-inputs"), QStringLiteral("2000")});
    QCOMPARE(text.code, 1);
    QVERIFY2(text.out.contains(QStringLiteral("first op over the tolerance: %") + firstConv), qPrintable(text.out));
  }

  void inputsThatDoNotBindExitTwo() {
    const QString a = kModels + QStringLiteral("transpose_convolution/expected.lattice");
    const QString other = kModels + QStringLiteral("point_voxel/inputs.safetensors");
    const CliRun r = runCli({QStringLiteral("diff"), a, a, QStringLiteral("--inputs"), other});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(QStringLiteral("input")), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestCliNumericDiff)
#include "tst_cli_numeric_diff.moc"
