// `lattice-cli validate` and `lattice-cli run` on artifacts whose graph.mlir went through MLIR
// tools: upstream lattice-opt's printed form of each conformance model and of the lowered
// example:sparse_resnet21d (data/lattice-opt/printed/, written by lattice-opt itself; see its
// README), beside the original weights. Each validates, and its run on 200 random input points
// writes the same outputs file, byte for byte, as the original artifact's run on the same inputs
// (the second method).

#include "CliRunner.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

using lattice::testing::CliRun;
using lattice::testing::runCli;

namespace {

const QString kData = QStringLiteral(LATTICE_TEST_DATA_DIR);
const QString kPrinted = kData + QStringLiteral("/lattice-opt/printed/");

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// `dir/name`: the printed graph beside the original's weights.
bool makePrintedArtifact(const QString& printedGraph, const QString& original, const QString& dir) {
  return QDir().mkpath(dir) && QFile::copy(printedGraph, dir + QStringLiteral("/graph.mlir")) &&
         QFile::copy(original + QStringLiteral("/weights.safetensors"), dir + QStringLiteral("/weights.safetensors"));
}

// Validates the printed artifact, runs the original on 200 random points (saving the inputs)
// and the printed one on the same inputs; both outputs files must be equal.
void checkRunsLikeOriginal(const QString& original, const QString& printed, const QTemporaryDir& tmp) {
  const CliRun valid = runCli({QStringLiteral("validate"), printed});
  QVERIFY2(valid.code == 0, qPrintable(valid.err));
  QVERIFY2(valid.out.startsWith(printed + QStringLiteral(": valid (")), qPrintable(valid.out));

  const QString inputs = tmp.filePath(QStringLiteral("inputs.safetensors"));
  const QString want = tmp.filePath(QStringLiteral("original.safetensors"));
  const QString got = tmp.filePath(QStringLiteral("printed.safetensors"));
  const CliRun a = runCli({QStringLiteral("run"), original, QStringLiteral("--random-inputs"), QStringLiteral("200"),
                           QStringLiteral("--save-inputs"), inputs, QStringLiteral("-o"), want});
  QVERIFY2(a.code == 0, qPrintable(a.err));
  const CliRun b = runCli({QStringLiteral("run"), printed, QStringLiteral("--random-inputs"), QStringLiteral("200"),
                           QStringLiteral("-o"), got});
  QVERIFY2(b.code == 0, qPrintable(b.err));
  // The same random inputs (they are made from the ABI, which the printed form keeps) ...
  const QString again = tmp.filePath(QStringLiteral("inputs-printed.safetensors"));
  const CliRun c = runCli({QStringLiteral("run"), printed, QStringLiteral("--inputs"), inputs, QStringLiteral("-o"),
                           again});
  QVERIFY2(c.code == 0, qPrintable(c.err));
  // ... and the same outputs.
  QVERIFY(!readAll(want).isEmpty());
  QVERIFY(readAll(got) == readAll(want));
  QVERIFY(readAll(again) == readAll(want));
}

} // namespace

class TestCliPrintedForm : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void printedModels_data() {
    QTest::addColumn<QString>("name");
    const QStringList files = QDir(kPrinted + QStringLiteral("models/")).entryList({QStringLiteral("*.mlir")});
    QVERIFY(files.size() >= 7);
    for (const QString& f : files)
      QTest::newRow(qPrintable(f)) << QFileInfo(f).completeBaseName();
  }
  void printedModels() {
    QFETCH(QString, name);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString original = kData + QStringLiteral("/conformance/models/") + name + QStringLiteral("/expected.lattice");
    const QString printed = tmp.filePath(QStringLiteral("printed.lattice"));
    QVERIFY(makePrintedArtifact(kPrinted + QStringLiteral("models/") + name + QStringLiteral(".mlir"), original,
                                printed));
    checkRunsLikeOriginal(original, printed, tmp);
  }

  // The example is lowered afresh; its printed graph was made from the same lowering.
  void printedLoweredExample() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString original = tmp.filePath(QStringLiteral("sparse_resnet21d.lattice"));
    const CliRun lower = runCli({QStringLiteral("lower"), QStringLiteral("example:sparse_resnet21d"),
                                 QStringLiteral("-o"), original});
    QVERIFY2(lower.code == 0, qPrintable(lower.err));
    const QString printed = tmp.filePath(QStringLiteral("printed.lattice"));
    QVERIFY(makePrintedArtifact(kPrinted + QStringLiteral("examples/sparse_resnet21d.mlir"), original, printed));
    checkRunsLikeOriginal(original, printed, tmp);
  }
};

QTEST_APPLESS_MAIN(TestCliPrintedForm)
#include "tst_cli_printed_form.moc"
