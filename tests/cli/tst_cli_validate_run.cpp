// `lattice-cli validate` and `lattice-cli run` agree: what the runtime refuses for a shape reason
// that the artifact alone decides, validate refuses too, at the same op and in the runtime's words.
// The expectation is the runtime's own refusal: the same model lowered with the input's width left
// open validates (nothing in it contradicts), and running it on inputs of the declared width makes
// the runtime name the op and the rule; validate of the artifact that declares that width must
// then report that rule at that op. Every conformance artifact stays valid and runs on its inputs.

#include "CliRunner.h"

#include "tensor/Safetensors.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>

using lattice::testing::CliRun;
using lattice::testing::runCli;
using namespace lattice;

namespace {

const QString kConformance = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/");

// A diagnostic `.../graph.mlir:L:C: error: 'lattice.X' op [%name: ]message`.
struct OpDiagnostic {
  QString where; ///< L:C
  QString op;
  QString message;
};

OpDiagnostic firstOpDiagnostic(const QString& text) {
  static const QRegularExpression re(
      QStringLiteral("graph\\.mlir:(\\d+:\\d+): error: '([^']+)' op (?:%[A-Za-z0-9_]+: )?([^\\n]*)"));
  const QRegularExpressionMatch m = re.match(text);
  if (!m.hasMatch()) return {};
  return {m.captured(1), m.captured(2), m.captured(3)};
}

// A sparse input `x` of `rows` points on a line with `channels` features each, as inputs.safetensors
// names it.
QString writeSparseInputs(const QTemporaryDir& dir, int rows, int channels) {
  std::vector<std::int32_t> coords;
  for (int r = 0; r < rows; ++r) coords.insert(coords.end(), {0, r, r % 3, 0});
  std::vector<float> features(static_cast<std::size_t>(rows * channels), 0.5f);
  const std::vector<std::int32_t> active{rows};
  const auto bytes = [](const auto& v) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
    return std::vector<std::uint8_t>(p, p + v.size() * sizeof(v[0]));
  };
  const std::vector<NamedTensor> tensors = {
      {"x_coords", TensorData::owning(DType::I32, {rows, 4}, bytes(coords))},
      {"x_features", TensorData::owning(DType::F32, {rows, channels}, bytes(features))},
      {"x_active", TensorData::owning(DType::I32, {1}, bytes(active))},
  };
  const QString path = dir.filePath(QStringLiteral("inputs.safetensors"));
  const Status s = writeSafetensors(path.toStdString(), tensors, std::nullopt);
  if (!s) qFatal("%s", s.message().c_str());
  return path;
}

} // namespace

class TestCliValidateRun : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // The case: SparseResNet21D lowered for 8 input channels.
  void validateRefusesWhatRunRefuses_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("channels");
    QTest::newRow("sparse_resnet21d x 8") << "example:sparse_resnet21d" << 8;
    QTest::newRow("sparse_resunet42 x 1") << "example:sparse_resunet42" << 1;
  }
  void validateRefusesWhatRunRefuses() {
    QFETCH(QString, model);
    QFETCH(int, channels);
    QTemporaryDir tmp;
    const QString declared = tmp.filePath(QStringLiteral("declared.lattice"));
    const QString open = tmp.filePath(QStringLiteral("open.lattice"));
    CliRun r = runCli({"lower", model, "-o", declared, "--input", QStringLiteral("x:sparse:f32:%1").arg(channels)});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = runCli({"lower", model, "-o", open, "--input", "x:sparse:f32:?"});
    QVERIFY2(r.code == 0, qPrintable(r.err));

    // The runtime's refusal, on the artifact that leaves the width open.
    r = runCli({"validate", open});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    r = runCli({"run", open, "--inputs", writeSparseInputs(tmp, 50, channels)});
    QCOMPARE(r.code, 1);
    const OpDiagnostic runtime = firstOpDiagnostic(r.err);
    QVERIFY2(!runtime.op.isEmpty(), qPrintable(r.err));
    QVERIFY2(runtime.message.endsWith(QLatin1Char('.')), qPrintable(runtime.message));
    const QString words = runtime.message.chopped(1);

    // validate refuses the declared artifact for the same rule at the same op, naming the weight.
    r = runCli({"validate", declared});
    QCOMPARE(r.code, 1);
    const OpDiagnostic verifier = firstOpDiagnostic(r.err);
    QVERIFY2(!verifier.op.isEmpty(), qPrintable(r.err));
    QCOMPARE(verifier.where, runtime.where);
    QCOMPARE(verifier.op, runtime.op);
    QVERIFY2(verifier.message.startsWith(words), qPrintable(verifier.message + " / " + words));
    QVERIFY2(QRegularExpression(QStringLiteral("weight '[^']+'")).match(verifier.message).hasMatch(),
             qPrintable(verifier.message));

    // And run refuses it up front with the same diagnostic.
    r = runCli({"run", declared, "--random-inputs", "500"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(words), qPrintable(r.err));
  }

  // Every conformance artifact is valid, and runs on its own inputs: validate and run agree.
  void conformanceArtifactsValidateAndRun_data() {
    QTest::addColumn<QString>("dir");
    const QString models = kConformance + QStringLiteral("models/");
    for (const QString& m : QDir(models).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
      QTest::newRow(qPrintable(m)) << models + m;
  }
  void conformanceArtifactsValidateAndRun() {
    QFETCH(QString, dir);
    const CliRun v = runCli({"validate", dir + "/expected.lattice"});
    QVERIFY2(v.code == 0, qPrintable(v.err));
    QVERIFY2(v.out.contains(QStringLiteral("weights checked")), qPrintable(v.out));
    const CliRun r = runCli({"run", dir + "/expected.lattice", "--inputs", dir + "/inputs.safetensors"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
  }
};

QTEST_APPLESS_MAIN(TestCliValidateRun)
#include "tst_cli_validate_run.moc"
