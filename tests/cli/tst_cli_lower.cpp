// End-to-end tests of `lattice-cli lower`: byte-identical conformance output, option parsing,
// errors naming the node, and the previous artifact surviving a failed export.
#include "CliRunner.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

using lattice::testing::CliRun;
using lattice::testing::runCli;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

const QString kModels = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/");

} // namespace

class TestCliLower : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void conformanceCasesAreByteIdentical_data() {
    QTest::addColumn<QString>("name");
    const QStringList cases = QDir(kModels).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QVERIFY(cases.size() >= 7);
    for (const QString& c : cases) QTest::newRow(qPrintable(c)) << c;
  }
  void conformanceCasesAreByteIdentical() {
    QFETCH(QString, name);
    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("out.lattice"));
    const CliRun r = runCli({QStringLiteral("lower"), kModels + name + QStringLiteral("/model.ltfx"), QStringLiteral("-o"), out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains(QStringLiteral(" ops, ")));
    const QString expected = kModels + name + QStringLiteral("/expected.lattice/");
    QCOMPARE(readAll(out + QStringLiteral("/graph.mlir")), readAll(expected + QStringLiteral("graph.mlir")));
    QCOMPARE(readAll(out + QStringLiteral("/weights.safetensors")), readAll(expected + QStringLiteral("weights.safetensors")));
    QCOMPARE(QDir(out).entryList(QDir::Files).size(), 2);
  }

  void unetLowersToAValidArtifact() {
    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("out.lattice"));
    const CliRun r = runCli({QStringLiteral("lower"), QStringLiteral("example:sparse_resunet42"), QStringLiteral("-o"), out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QByteArray mlir = readAll(out + QStringLiteral("/graph.mlir"));
    // lowering.md §8.3: 16 adds, 4 cats and 9 outputs.
    QCOMPARE(mlir.count("= lattice.sparse.binary "), 16);
    QCOMPARE(mlir.count("= lattice.sparse.cat "), 4);
    QVERIFY(mlir.contains("lattice.output_names = [\"output_0\", \"output_1\", \"output_2\", \"output_3\", "
                          "\"output_4\", \"output_5\", \"output_6\", \"output_7\", \"output_8\"]"));
  }

  void optionsOverrideTheArchiveDefaults() {
    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("q.lattice"));
    const CliRun r = runCli({QStringLiteral("lower"), kModels + QStringLiteral("sparse_classifier/model.ltfx"), QStringLiteral("-o"), out,
                       QStringLiteral("--quantize"), QStringLiteral("4"), QStringLiteral("--output-name"), QStringLiteral("logits"),
                       QStringLiteral("--input"), QStringLiteral("x:sparse:f32:3")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QByteArray mlir = readAll(out + QStringLiteral("/graph.mlir"));
    QVERIFY(mlir.contains("lattice.output_names = [\"logits\"]"));
    QVERIFY(mlir.contains("#lattice.packing<int4, group_size = 32, scale_dtype = f16, mode = affine>"));
  }

  void usageErrors_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("no -o") << QStringList{};
    QTest::newRow("bad quantize") << QStringList{QStringLiteral("-o"), QStringLiteral("x"), QStringLiteral("--quantize"), QStringLiteral("3")};
    QTest::newRow("bad input spec") << QStringList{QStringLiteral("-o"), QStringLiteral("x"), QStringLiteral("--input"), QStringLiteral("x:cloud:f32")};
    QTest::newRow("bad batch") << QStringList{QStringLiteral("-o"), QStringLiteral("x"), QStringLiteral("--batch-size"), QStringLiteral("-1")};
  }
  void usageErrors() {
    QFETCH(QStringList, extra);
    const CliRun r = runCli(QStringList{QStringLiteral("lower"), QStringLiteral("example:chain:1")} + extra);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(QStringLiteral("usage: lattice-cli lower MODEL -o DIR")), qPrintable(r.err));
  }

  // `lower` alone prints its usage and an example.
  void noModelPrintsTheUsage() {
    const CliRun r = runCli({QStringLiteral("lower")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.startsWith(QStringLiteral("lattice-cli lower: missing MODEL\nusage: lattice-cli lower MODEL -o DIR")),
             qPrintable(r.err));
    QVERIFY(r.err.contains(QStringLiteral("example: lattice-cli lower example:sparse_resnet21d -o resnet.lattice")));
  }

  void failedExportKeepsThePreviousArtifact() {
    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("a.lattice"));
    QCOMPARE(runCli({QStringLiteral("lower"), kModels + QStringLiteral("sparse_classifier/model.ltfx"), QStringLiteral("-o"), out}).code, 0);
    const QByteArray before = readAll(out + QStringLiteral("/graph.mlir"));
    // A dense input where the conv expects a sparse one: lowering fails at node 'stem'.
    const CliRun r = runCli({QStringLiteral("lower"), kModels + QStringLiteral("sparse_classifier/model.ltfx"), QStringLiteral("-o"), out,
                       QStringLiteral("--input"), QStringLiteral("x:dense:tensor<?x3xf32>")});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(QStringLiteral("Conv3d expects sparse_tensor, got dense_tensor.")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("while executing %stem (call_module stem)")), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
    QCOMPARE(readAll(out + QStringLiteral("/graph.mlir")), before);
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).size(), 1);
  }

  // A folder that holds anything but an artifact is never replaced without --force,
  // and the refusal comes before the lowering.
  void refusesAFolderThatIsNotAnArtifact() {
    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("mine"));
    QVERIFY(QDir().mkpath(out + QStringLiteral("/sub")));
    writeFile(out + QStringLiteral("/readme.txt"), "my notes");
    writeFile(out + QStringLiteral("/sub/important.csv"), "a,b\n1,2\n");
    const CliRun r = runCli({QStringLiteral("lower"), QStringLiteral("example:chain:1"), QStringLiteral("-o"), out});
    QCOMPARE(r.code, 1);
    QCOMPARE(r.err.trimmed(), QStringLiteral("lattice-cli: ") + out + QStringLiteral(": not replaced: it holds files that are not part of a lattice "
                                                   "artifact: readme.txt, sub/ (pass --force to replace it)"));
    QCOMPARE(readAll(out + QStringLiteral("/readme.txt")), QByteArray("my notes"));
    QCOMPARE(readAll(out + QStringLiteral("/sub/important.csv")), QByteArray("a,b\n1,2\n"));
    QCOMPARE(QDir(out).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).size(), 2);
    // Nothing was left beside it either.
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList{QStringLiteral("mine")});

    const CliRun forced = runCli({QStringLiteral("lower"), QStringLiteral("example:chain:1"), QStringLiteral("-o"), out, QStringLiteral("--force")});
    QVERIFY2(forced.code == 0, qPrintable(forced.err));
    QCOMPARE(QDir(out).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             (QStringList{QStringLiteral("graph.mlir"), QStringLiteral("weights.safetensors")}));
  }

  void replacesAnEmptyFolderOrAnArtifact() {
    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("empty"));
    QVERIFY(QDir().mkpath(out));
    QCOMPARE(runCli({QStringLiteral("lower"), QStringLiteral("example:chain:1"), QStringLiteral("-o"), out}).code, 0);
    const QByteArray chain1 = readAll(out + QStringLiteral("/graph.mlir"));
    const CliRun again = runCli({QStringLiteral("lower"), QStringLiteral("example:chain:2"), QStringLiteral("-o"), out});
    QVERIFY2(again.code == 0, qPrintable(again.err));
    QVERIFY(readAll(out + QStringLiteral("/graph.mlir")) != chain1);
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList{QStringLiteral("empty")});
  }

  // A user's folder named like the previous artifact a killed save moves aside is left alone,
  // with or without --force: the artifact is written, the folder is named in a warning
  // (tests/data/repro/force_deletes_previous_named_dir.sh).
  void userFolderNamedLikeALeftoverIsLeftAlone_data() {
    QTest::addColumn<bool>("force");
    QTest::newRow("without --force") << false;
    QTest::newRow("with --force") << true;
  }
  void userFolderNamedLikeALeftoverIsLeftAlone() {
    QFETCH(bool, force);
    QTemporaryDir tmp;
    const QString mine = tmp.filePath(QStringLiteral(".T-qwerty.previous"));
    QVERIFY(QDir().mkpath(mine + QStringLiteral("/photos")));
    writeFile(mine + QStringLiteral("/notes.txt"), "user data\n");
    writeFile(mine + QStringLiteral("/photos/1.jpg"), "jpg\n");
    QStringList args{QStringLiteral("lower"), QStringLiteral("example:chain:3"), QStringLiteral("-o"), tmp.filePath(QStringLiteral("T"))};
    if (force) args << QStringLiteral("--force");
    const CliRun r = runCli(args);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(readAll(mine + QStringLiteral("/notes.txt")), QByteArray("user data\n"));
    QCOMPARE(readAll(mine + QStringLiteral("/photos/1.jpg")), QByteArray("jpg\n"));
    QCOMPARE(QDir(mine).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             (QStringList{QStringLiteral("notes.txt"), QStringLiteral("photos")}));
    QCOMPARE(QDir(tmp.filePath(QStringLiteral("T"))).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             (QStringList{QStringLiteral("graph.mlir"), QStringLiteral("weights.safetensors")}));
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             (QStringList{QStringLiteral(".T-qwerty.previous"), QStringLiteral("T")}));
    QVERIFY2(r.err.startsWith(QStringLiteral("lattice-cli lower: warning: ") + mine + QStringLiteral(": left alone: ")),
             qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
  }

private:
  static void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
  }
};

QTEST_GUILESS_MAIN(TestCliLower)
#include "tst_cli_lower.moc"
