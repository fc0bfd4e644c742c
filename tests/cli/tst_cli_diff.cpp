// End-to-end tests of `lattice-cli diff A B [--json] [--no-values] [--tolerance X]`: exit codes
// (0 equal, 1 different, 2 usage or unreadable input), the `--json` shape, and the
// promise that a checkpoint swap changes an export's weights and nothing else — two exports of
// one archive, the second with `--weights` of a checkpoint that changes a few elements of two
// tensors, differ in exactly those two weights by exactly those elements.

#include "CliRunner.h"
#include "model/Archive.h"
#include "model/Examples.h"
#include "tensor/Safetensors.h"

#include <QtTest/QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cmath>
#include <cstring>
#include <map>

using namespace lattice;
using lattice::testing::CliRun;
using lattice::testing::runCli;

namespace {

const QString kModels = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/");

QString expectedArtifact(const char* name) {
  return kModels + QLatin1String(name) + QStringLiteral("/expected.lattice");
}

QJsonObject parseJson(const QString& text) {
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &error);
  if (error.error != QJsonParseError::NoError || !doc.isObject())
    qFatal("not a JSON object: %s", qPrintable(text));
  return doc.object();
}

} // namespace

class TestCliDiff : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void usageAndReadErrorsExitTwo_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    const QString a = expectedArtifact("sparse_classifier");
    QTest::newRow("no paths") << QStringList{QStringLiteral("diff")} << QStringLiteral("missing argument");
    QTest::newRow("one path") << QStringList{QStringLiteral("diff"), a} << QStringLiteral("missing argument");
    QTest::newRow("three paths") << QStringList{QStringLiteral("diff"), a, a, a} << QStringLiteral("diff");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("diff"), a, a, QStringLiteral("--values")}
                                    << QStringLiteral("'--values'");
    QTest::newRow("negative tolerance")
        << QStringList{QStringLiteral("diff"), a, a, QStringLiteral("--tolerance"), QStringLiteral("-1")}
        << QStringLiteral("'-1'");
    QTest::newRow("tolerance not a number")
        << QStringList{QStringLiteral("diff"), a, a, QStringLiteral("--tolerance=abc")}
        << QStringLiteral("'abc'");
    QTest::newRow("missing artifact")
        << QStringList{QStringLiteral("diff"), a, QStringLiteral("/nonexistent/b.lattice")}
        << QStringLiteral("'/nonexistent/b.lattice'");
    QTest::newRow("not a graph") << QStringList{QStringLiteral("diff"),
                                                kModels +
                                                    QStringLiteral("sparse_classifier/inputs.safetensors"),
                                                a}
                                 << QStringLiteral("cannot parse '");
  }
  void usageAndReadErrorsExitTwo() {
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const CliRun r = runCli(args);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
    QCOMPARE(r.out, QString());
  }

  void equalArtifactsExitZero() {
    const QString a = expectedArtifact("normalized_convolution");
    CliRun r = runCli({QStringLiteral("diff"), a, a});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QStringLiteral("artifacts are equal\n"));
    QCOMPARE(r.err, QString());
    // A lone graph file against its directory: the same graph.
    r = runCli({QStringLiteral("diff"), a + QStringLiteral("/graph.mlir"), a + QStringLiteral("/graph.mlir"),
                QStringLiteral("--json")});
    QCOMPARE(r.code, 0);
    QCOMPARE(parseJson(r.out).value(QStringLiteral("equal")).toBool(false), true);
  }

  // The int8 classifier against the dense one: different ops and weights, exit 1, and the JSON
  // carries every difference with the documented fields.
  void differentArtifactsExitOneWithJson() {
    const QString a = expectedArtifact("sparse_classifier"),
                  b = expectedArtifact("quantized_classifier_int8");
    const CliRun text = runCli({QStringLiteral("diff"), a, b});
    QCOMPARE(text.code, 1);
    QVERIFY(text.out.startsWith(QStringLiteral("--- ") + a + QStringLiteral("\n+++ ") + b +
                                QStringLiteral("\n")));
    QVERIFY(text.out.contains(QStringLiteral("\n- batch_norm %norm_features\n")));
    QVERIFY(text.out.contains(QStringLiteral(
        "\n~ weight stem.weight: form: F32 [4, 1, 1, 1, 3] -> int8 g32 f16 (U32 [1, 4, 8])\n")));

    const CliRun r = runCli({QStringLiteral("diff"), a, b, QStringLiteral("--json")});
    QCOMPARE(r.code, 1);
    const QJsonObject j = parseJson(r.out);
    QCOMPARE(j.value(QStringLiteral("equal")).toBool(true), false);
    QVERIFY(j.value(QStringLiteral("module_attributes")).isArray());
    QVERIFY(j.value(QStringLiteral("abi")).isArray());
    const QJsonArray ops = j.value(QStringLiteral("ops")).toArray();
    const QJsonArray weights = j.value(QStringLiteral("weights")).toArray();
    QVERIFY(!ops.isEmpty() && !weights.isEmpty());
    for (const QJsonValue& v : ops) {
      const QJsonObject op = v.toObject();
      for (const char* field :
           {"status", "op", "name_a", "name_b", "index_a", "index_b", "renamed", "changes"})
        QVERIFY2(op.contains(QLatin1String(field)), field);
      QVERIFY(op.value(QStringLiteral("status")).toString() != QStringLiteral("unchanged"));
      if (op.value(QStringLiteral("status")).toString() == QStringLiteral("removed"))
        QVERIFY(op.value(QStringLiteral("name_b")).isNull());
    }
    bool sawForm = false;
    for (const QJsonValue& v : weights) {
      const QJsonObject w = v.toObject();
      for (const char* field :
           {"status", "key", "form_a", "form_b", "shape_a", "shape_b", "form_changed", "values", "note"})
        QVERIFY2(w.contains(QLatin1String(field)), field);
      if (w.value(QStringLiteral("key")).toString() == QStringLiteral("stem.weight")) {
        sawForm = w.value(QStringLiteral("form_changed")).toBool();
        const QJsonObject values = w.value(QStringLiteral("values")).toObject();
        QCOMPARE(values.value(QStringLiteral("elements")).toInt(), 12); // 4 x 1 x 1 x 1 x 3
        for (const char* field : {"changed_elements", "max_abs_delta", "max_rel_delta"})
          QVERIFY2(values.contains(QLatin1String(field)), field);
      }
    }
    QVERIFY(sawForm);
    const QJsonObject summary = j.value(QStringLiteral("summary")).toObject();
    QCOMPARE(summary.value(QStringLiteral("ops")).toObject().value(QStringLiteral("removed")).toInt(), 8);
    QVERIFY(summary.value(QStringLiteral("weights")).toObject().contains(QStringLiteral("changed")));
  }

  // "A checkpoint swap changes an export's weights and nothing else".
  void checkpointSwapChangesOnlyTheSwappedWeights() {
    QTemporaryDir tmp;
    const QString archive = tmp.filePath(QStringLiteral("chain.ltfx"));
    const Model model = makeChain(2, 5);
    QVERIFY(writeArchive(model, archive.toStdString()).ok());
    const QString a = tmp.filePath(QStringLiteral("a.lattice"));
    CliRun r = runCli({QStringLiteral("lower"), archive, QStringLiteral("-o"), a});
    QVERIFY2(r.code == 0, qPrintable(r.err));

    // The checkpoint: every tensor of the model; two of the exported ones get +0.5 on some elements.
    Expected<SafetensorsFile> exported =
        SafetensorsFile::open(QString(a + QStringLiteral("/weights.safetensors")).toStdString());
    QVERIFY(exported.ok());
    std::map<std::string, std::size_t> changed; // key -> elements changed
    std::vector<NamedTensor> checkpoint;
    for (const auto& [key, tensor] : model.tensors()) {
      TensorData t = tensor;
      const bool pick =
          changed.size() < 2 && exported->find(key) && t.dtype() == DType::F32 && t.numel() >= 6;
      if (pick) {
        std::vector<float> v(static_cast<std::size_t>(t.numel()));
        std::memcpy(v.data(), t.data(), v.size() * sizeof(float));
        const std::size_t count = changed.empty() ? 3 : 1;
        for (std::size_t i = 0; i < count; ++i)
          v[i * 2] += 0.5f;
        std::vector<uint8_t> bytes(v.size() * sizeof(float));
        std::memcpy(bytes.data(), v.data(), bytes.size());
        t = TensorData::owning(DType::F32, t.shape(), std::move(bytes));
        changed[key] = count;
      }
      checkpoint.push_back({key, t});
    }
    QCOMPARE(changed.size(), std::size_t(2));
    const QString weights = tmp.filePath(QStringLiteral("swap.safetensors"));
    QVERIFY(writeSafetensors(weights.toStdString(), checkpoint, std::nullopt).ok());
    const QString b = tmp.filePath(QStringLiteral("b.lattice"));
    r = runCli(
        {QStringLiteral("lower"), archive, QStringLiteral("--weights"), weights, QStringLiteral("-o"), b});
    QVERIFY2(r.code == 0, qPrintable(r.err));

    r = runCli({QStringLiteral("diff"), a, b, QStringLiteral("--json")});
    QCOMPARE(r.code, 1);
    const QJsonObject j = parseJson(r.out);
    QCOMPARE(j.value(QStringLiteral("module_attributes")).toArray().size(), 0);
    QCOMPARE(j.value(QStringLiteral("abi")).toArray().size(), 0);
    QCOMPARE(j.value(QStringLiteral("ops")).toArray().size(), 0);
    const QJsonArray ws = j.value(QStringLiteral("weights")).toArray();
    QCOMPARE(ws.size(), 2);
    for (const QJsonValue& v : ws) {
      const QJsonObject w = v.toObject();
      const std::string key = w.value(QStringLiteral("key")).toString().toStdString();
      QVERIFY2(changed.count(key), key.c_str());
      QCOMPARE(w.value(QStringLiteral("status")).toString(), QStringLiteral("changed"));
      QCOMPARE(w.value(QStringLiteral("form_changed")).toBool(true), false);
      const QJsonObject values = w.value(QStringLiteral("values")).toObject();
      QCOMPARE(values.value(QStringLiteral("changed_elements")).toInt(), static_cast<int>(changed[key]));
      QVERIFY(std::fabs(values.value(QStringLiteral("max_abs_delta")).toDouble() - 0.5) < 1e-6);
    }
    const QJsonObject ops =
        j.value(QStringLiteral("summary")).toObject().value(QStringLiteral("ops")).toObject();
    QVERIFY(ops.value(QStringLiteral("unchanged")).toInt() > 0);
    QCOMPARE(ops.value(QStringLiteral("renamed")).toInt(), 0);

    // The text form: one values line per swapped key, then the summary.
    r = runCli({QStringLiteral("diff"), a, b});
    QCOMPARE(r.code, 1);
    const QStringList lines = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);
    for (const auto& [key, count] : changed)
      QVERIFY2(
          r.out.contains(QStringLiteral("\n~ weight %1: max |Δ| 0.5, ").arg(QString::fromStdString(key)) +
                         QStringLiteral("max rel ")),
          qPrintable(r.out));
    QVERIFY(lines.last().startsWith(QStringLiteral("summary: ops 0 changed, 0 added, 0 removed")));

    // A tolerance above the change makes them equal; --no-values still sees the bytes differ.
    QCOMPARE(
        runCli({QStringLiteral("diff"), a, b, QStringLiteral("--tolerance"), QStringLiteral("0.6")}).code, 0);
    QCOMPARE(runCli({QStringLiteral("diff"), a, b, QStringLiteral("--no-values")}).code, 1);
  }
};

QTEST_APPLESS_MAIN(TestCliDiff)
#include "tst_cli_diff.moc"
