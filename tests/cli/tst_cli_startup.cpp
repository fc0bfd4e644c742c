// lattice-cli loads LibTorch only for what reads a PyTorch archive: --version, validate, run,
// check and diff run without it (the dynamic loader's own log, LD_DEBUG=libs, names every
// library it initialises), a TorchScript file loads it through the TorchScript plugin, and a
// missing plugin is one clear error. The BLAS is loaded by the commands that multiply, not by
// --version and validate.

#include <QtTest/QtTest>

#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

class TestCliStartup : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void withoutLibTorch_data();
  void withoutLibTorch();
  void torchScriptLoadsLibTorch();
  void missingPlugin();
};

namespace {

const QString kArtifact =
    QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/sparse_classifier/expected.lattice");
const QString kInputs = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/sparse_classifier/inputs.safetensors");
const QString kExpected =
    QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/sparse_classifier/expected.safetensors");
// A TorchScript archive whose code record is cut short: the importer reads it with LibTorch and
// refuses it.
const QString kTorchScript = QStringLiteral(LATTICE_TEST_DATA_DIR "/repro/pt_code_truncated.pt");

struct Run {
  int code = -1;
  QString err;
};

Run runCli(const QStringList& args, const QProcessEnvironment& env) {
  QProcess p;
  p.setProcessEnvironment(env);
  p.setStandardOutputFile(QProcess::nullDevice());
  p.start(QStringLiteral(LATTICE_CLI), args);
  Run r;
  if (!p.waitForStarted() || !p.waitForFinished(600000)) {
    p.kill();
    p.waitForFinished();
    return r;
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

QProcessEnvironment loaderLog() {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("LD_DEBUG"), QStringLiteral("libs"));
  return env;
}

// The libraries the loader initialised ("calling init: /path/libfoo.so"), by file name.
QStringList initialised(const QString& log) {
  QStringList libs;
  static const QRegularExpression init(QStringLiteral("calling init: (\\S+)"));
  for (auto it = init.globalMatch(log); it.hasNext();) libs << QFileInfo(it.next().captured(1)).fileName();
  return libs;
}

} // namespace

void TestCliStartup::withoutLibTorch_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<bool>("blas");
  QTest::newRow("--version") << QStringList{"--version"} << false;
  QTest::newRow("validate") << QStringList{"validate", kArtifact} << false;
  QTest::newRow("run") << QStringList{"run", kArtifact, "--random-inputs", "200:3"} << true;
  QTest::newRow("check") << QStringList{"check", kArtifact, "--inputs", kInputs, "--expected", kExpected} << true;
  QTest::newRow("diff --inputs") << QStringList{"diff", kArtifact, kArtifact, "--inputs", kInputs} << true;
}

void TestCliStartup::withoutLibTorch() {
  QFETCH(QStringList, args);
  QFETCH(bool, blas);
  const Run r = runCli(args, loaderLog());
  const QStringList libs = initialised(r.err);
  QVERIFY2(r.code == 0, qPrintable(QString("exit %1\n%2").arg(r.code).arg(r.err.right(2000))));
  QVERIFY2(!libs.isEmpty(), "LD_DEBUG=libs logged no library initialisation");
  QVERIFY2(libs.filter(QStringLiteral("libtorch")).isEmpty() && libs.filter(QStringLiteral("libc10")).isEmpty(),
           qPrintable(libs.join(' ')));
  QVERIFY2(libs.filter(QStringLiteral("lattice-torchscript")).isEmpty(), qPrintable(libs.join(' ')));
  QVERIFY2(libs.filter(QStringLiteral("blas")).isEmpty() != blas, qPrintable(libs.join(' ')));
}

void TestCliStartup::torchScriptLoadsLibTorch() {
  const Run r = runCli({"info", kTorchScript}, loaderLog());
  QCOMPARE(r.code, 1); // refused by the importer, after LibTorch was loaded to read it
  const QStringList libs = initialised(r.err);
  QVERIFY2(!libs.filter(QStringLiteral("lattice-torchscript")).isEmpty(), qPrintable(libs.join(' ')));
  QVERIFY2(!libs.filter(QStringLiteral("libtorch_cpu")).isEmpty(), qPrintable(libs.join(' ')));
  QVERIFY2(r.err.contains(kTorchScript + QStringLiteral(": not a TorchScript archive")), qPrintable(r.err.right(2000)));
}

void TestCliStartup::missingPlugin() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString plugin = dir.filePath(QStringLiteral("lattice-torchscript.so"));
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("LATTICE_TORCHSCRIPT_PLUGIN"), plugin);
  const Run r = runCli({"info", kTorchScript}, env);
  QCOMPARE(r.code, 1);
  QVERIFY2(r.err.contains(kTorchScript + QStringLiteral(": reading TorchScript needs LibTorch: cannot load the "
                                                         "TorchScript plugin ") +
                          plugin + QStringLiteral(": ")),
           qPrintable(r.err));
  QVERIFY2(r.err.contains(QStringLiteral("No such file or directory")), qPrintable(r.err));
}

QTEST_APPLESS_MAIN(TestCliStartup)
#include "tst_cli_startup.moc"
