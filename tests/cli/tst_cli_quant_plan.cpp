// End-to-end tests of `lattice-cli quant-plan`: the plan it writes lowers (`lower
// --quantize-plan`) to an artifact that validates, is smaller than the all-int8 export, and whose
// output error measured by another command (`diff dense mixed --random-inputs`, which runs both
// artifacts in full) is within the budget and equal to the error quant-plan reported for it; the
// layers' formats in graph.mlir are the plan's; a byte budget is met; usage errors exit 2.

#include "CliRunner.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>

using lattice::testing::CliRun;
using lattice::testing::runCli;

namespace {

const QString kModel = QStringLiteral("example:sparse_resnet21d");
const QString kInputs = QStringLiteral("1500:5");

QJsonObject parseJson(const QString& text) {
  const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8());
  if (!doc.isObject()) qFatal("not a JSON object: %s", qPrintable(text.left(400)));
  return doc.object();
}

QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// storage key → packing kind ("dense", "int4", "int8") of every weight op in graph.mlir.
QMap<QString, QString> packings(const QString& graphPath) {
  QMap<QString, QString> out;
  const QRegularExpression weight(
      QStringLiteral("storage_key = \"([^\"]+)\".*packing = #lattice\\.packing<(dense|int4|int8)"));
  for (const QString& line : readText(graphPath).split(QLatin1Char('\n'))) {
    const QRegularExpressionMatch m = weight.match(line);
    if (m.hasMatch()) out.insert(m.captured(1), m.captured(2));
  }
  return out;
}

} // namespace

class TestCliQuantPlan : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void budgetPlanLowersSmallerThanInt8AndWithinBudget();
  void byteBudgetIsMet();
  void usageErrors();
};

void TestCliQuantPlan::budgetPlanLowersSmallerThanInt8AndWithinBudget() {
  QTemporaryDir dir;
  const QString plan = dir.filePath(QStringLiteral("plan.json"));
  const double budget = 1e-2;
  const CliRun qp = runCli({QStringLiteral("quant-plan"), kModel, QStringLiteral("--random-inputs"), kInputs,
                            QStringLiteral("--budget"), QString::number(budget), QStringLiteral("-o"), plan,
                            QStringLiteral("--json")});
  QVERIFY2(qp.code == 0, qPrintable(qp.err));
  const QJsonObject report = parseJson(qp.out);
  QVERIFY(report.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("random")).toBool());
  const QJsonObject chosen = report.value(QStringLiteral("plan")).toObject();
  QVERIFY(chosen.value(QStringLiteral("met")).toBool());
  const double reported = chosen.value(QStringLiteral("rel_l2")).toDouble();
  QVERIFY(reported <= budget);

  const QString mixed = dir.filePath(QStringLiteral("mixed")), dense = dir.filePath(QStringLiteral("dense")),
                int8 = dir.filePath(QStringLiteral("int8"));
  QCOMPARE(runCli({QStringLiteral("lower"), kModel, QStringLiteral("--quantize-plan"), plan, QStringLiteral("-o"), mixed}).code, 0);
  QCOMPARE(runCli({QStringLiteral("lower"), kModel, QStringLiteral("-o"), dense}).code, 0);
  QCOMPARE(runCli({QStringLiteral("lower"), kModel, QStringLiteral("--quantize"), QStringLiteral("8"), QStringLiteral("-o"), int8}).code, 0);
  const CliRun validate = runCli({QStringLiteral("validate"), mixed});
  QVERIFY2(validate.code == 0, qPrintable(validate.out + validate.err));

  const qint64 mixedBytes = QFileInfo(mixed + QStringLiteral("/weights.safetensors")).size();
  QVERIFY(mixedBytes < QFileInfo(int8 + QStringLiteral("/weights.safetensors")).size());

  // Every weight's packing is the plan's format for its layer (the storage key is the layer's
  // path with `.weight`).
  const QJsonObject formats = chosen.value(QStringLiteral("formats")).toObject();
  const QMap<QString, QString> written = packings(mixed + QStringLiteral("/graph.mlir"));
  QVERIFY(!formats.isEmpty());
  for (auto it = formats.begin(); it != formats.end(); ++it) {
    const QString key = it.key() + QStringLiteral(".weight");
    QVERIFY2(written.contains(key), qPrintable(key));
    QCOMPARE(written.value(key), it.value().toString().section(QLatin1Char('/'), 0, 0));
  }

  // The error as the numeric diff measures it, both artifacts run in full.
  const CliRun diff = runCli({QStringLiteral("diff"), dense, mixed, QStringLiteral("--random-inputs"), kInputs,
                              QStringLiteral("--json")});
  QVERIFY2(diff.code == 0 || diff.code == 1, qPrintable(diff.err));
  const QJsonObject numeric = parseJson(diff.out);
  const QJsonArray outputs = numeric.contains(QStringLiteral("outputs"))
                                 ? numeric.value(QStringLiteral("outputs")).toArray()
                                 : numeric.value(QStringLiteral("numeric")).toObject().value(QStringLiteral("outputs")).toArray();
  QVERIFY(!outputs.isEmpty());
  double worst = 0.0;
  for (const QJsonValue& o : outputs) worst = std::max(worst, o.toObject().value(QStringLiteral("rel_l2")).toDouble());
  QVERIFY2(worst <= budget, qPrintable(QString::number(worst)));
  QVERIFY2(std::abs(worst - reported) <= 1e-6 * reported, qPrintable(QString("diff %1, quant-plan %2").arg(worst).arg(reported)));
}

void TestCliQuantPlan::byteBudgetIsMet() {
  QTemporaryDir dir;
  const qint64 maxBytes = 2'500'000;
  const CliRun qp = runCli({QStringLiteral("quant-plan"), kModel, QStringLiteral("--random-inputs"), kInputs,
                            QStringLiteral("--candidates"), QStringLiteral("int4,int8"), QStringLiteral("--max-bytes"),
                            QString::number(maxBytes), QStringLiteral("-o"), dir.filePath(QStringLiteral("plan.json")),
                            QStringLiteral("--json")});
  QVERIFY2(qp.code == 0, qPrintable(qp.err));
  const QJsonObject chosen = parseJson(qp.out).value(QStringLiteral("plan")).toObject();
  QVERIFY(chosen.value(QStringLiteral("met")).toBool());
  QVERIFY(chosen.value(QStringLiteral("bytes")).toDouble() <= maxBytes);
  // The bytes are the weights the lowered plan stores (the file adds only its header).
  const QString mixed = dir.filePath(QStringLiteral("mixed"));
  QCOMPARE(runCli({QStringLiteral("lower"), kModel, QStringLiteral("--quantize-plan"), dir.filePath(QStringLiteral("plan.json")),
                   QStringLiteral("-o"), mixed})
               .code,
           0);
  const qint64 file = QFileInfo(mixed + QStringLiteral("/weights.safetensors")).size();
  const qint64 payload = static_cast<qint64>(chosen.value(QStringLiteral("bytes")).toDouble());
  QVERIFY2(file >= payload && file - payload < 64 * 1024, qPrintable(QString("%1 vs %2").arg(file).arg(payload)));
}

void TestCliQuantPlan::usageErrors() {
  const CliRun both = runCli({QStringLiteral("quant-plan"), kModel, QStringLiteral("--random-inputs"), kInputs,
                              QStringLiteral("--budget"), QStringLiteral("0.01"), QStringLiteral("--max-bytes"), QStringLiteral("10")});
  QCOMPARE(both.code, 2);
  QVERIFY(both.err.contains(QStringLiteral("--budget or --max-bytes")));
  const CliRun group = runCli({QStringLiteral("quant-plan"), kModel, QStringLiteral("--random-inputs"), kInputs,
                               QStringLiteral("--group-sizes"), QStringLiteral("16")});
  QCOMPARE(group.code, 2);
  QVERIFY(group.err.contains(QStringLiteral("'16'")));
  const CliRun noInputs = runCli({QStringLiteral("quant-plan"), kModel});
  QCOMPARE(noInputs.code, 2);
  QVERIFY(noInputs.err.contains(QStringLiteral("--random-inputs")));
  const CliRun kind = runCli({QStringLiteral("quant-plan"), kModel, QStringLiteral("--random-inputs"), kInputs,
                              QStringLiteral("--candidates"), QStringLiteral("int3")});
  QCOMPARE(kind.code, 2);
  QVERIFY(kind.err.contains(QStringLiteral("int3")));
}

QTEST_GUILESS_MAIN(TestCliQuantPlan)
#include "tst_cli_quant_plan.moc"
