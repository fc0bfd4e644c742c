// core/exec: a run's inputs from each source (RunInputs) and an artifact on disk run with a golden
// (ArtifactRun). Expectations are independent of the code under test: the `--random-inputs N[:SEED]`
// grammar of lattice-cli's usage worked by hand, the conformance inputs file read as plain
// safetensors, the conformance manifest's tolerances read with Qt's JSON reader, and the
// conformance cases' expected outputs (the reference exporter's), which a run must match within
// the manifest's tolerances.

#include "exec/ArtifactRun.h"
#include "exec/RunInputs.h"
#include "runtime/Runtime.h"

#include <QtTest/QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <atomic>

using namespace lattice;

class TestExecRunInputs : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void randomInputsGrammar_data();
  void randomInputsGrammar();
  void fileInputsAreTheFilesTensors();
  void randomInputsFollowTheAbi();
  void recordedInputsNeedRecordings();
  void missingFileNamesIt();
  void conformanceCasesMatchTheirExpectedOutputs_data();
  void conformanceCasesMatchTheirExpectedOutputs();
  void cancelledRunSaysSo();
};

namespace {

const std::string kModels = LATTICE_TEST_DATA_DIR "/conformance/models";

std::string artifactOf(const std::string& name) { return kModels + "/" + name + "/expected.lattice"; }

} // namespace

void TestExecRunInputs::randomInputsGrammar_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<bool>("ok");
  QTest::addColumn<qint64>("points");
  QTest::addColumn<quint64>("seed");
  QTest::newRow("points") << "1000" << true << qint64(1000) << quint64(0);
  QTest::newRow("points and seed") << "250:7" << true << qint64(250) << quint64(7);
  QTest::newRow("seed zero") << "1:0" << true << qint64(1) << quint64(0);
  QTest::newRow("no points") << "0" << false << qint64(0) << quint64(0);
  QTest::newRow("negative") << "-5" << false << qint64(0) << quint64(0);
  QTest::newRow("plus sign") << "+5" << false << qint64(0) << quint64(0);
  QTest::newRow("empty seed") << "10:" << false << qint64(0) << quint64(0);
  QTest::newRow("negative seed") << "10:-1" << false << qint64(0) << quint64(0);
  QTest::newRow("words") << "ten" << false << qint64(0) << quint64(0);
  QTest::newRow("trailing") << "10x" << false << qint64(0) << quint64(0);
  QTest::newRow("space") << " 10" << false << qint64(0) << quint64(0);
  QTest::newRow("beyond int64") << "99999999999999999999" << false << qint64(0) << quint64(0);
  QTest::newRow("empty") << "" << false << qint64(0) << quint64(0);
}

void TestExecRunInputs::randomInputsGrammar() {
  QFETCH(QString, text);
  QFETCH(bool, ok);
  QFETCH(qint64, points);
  QFETCH(quint64, seed);
  runtime::RandomInputOptions base;
  base.batchSize = 3;
  const std::optional<runtime::RandomInputOptions> parsed = parseRandomInputs(text.toStdString(), base);
  QCOMPARE(parsed.has_value(), ok);
  if (!ok) return;
  QCOMPARE(parsed->points, points);
  QCOMPARE(parsed->seed, seed);
  QCOMPARE(parsed->batchSize, std::int64_t(3)); // left as given
}

void TestExecRunInputs::fileInputsAreTheFilesTensors() {
  Expected<runtime::Runtime> rt = runtime::Runtime::open(artifactOf("sparse_classifier"));
  QVERIFY2(rt, rt ? "" : rt.message().c_str());
  const std::string path = kModels + "/sparse_classifier/inputs.safetensors";
  Expected<RunInputs> inputs = makeRunInputs(RunInputSpec::fromFile(path), rt->plan());
  QVERIFY2(inputs, inputs ? "" : inputs.message().c_str());
  Expected<SafetensorsFile> file = SafetensorsFile::open(path);
  QVERIFY(file);
  QCOMPARE(inputs->tensors.size(), file->tensors().size());
  for (const NamedTensor& t : inputs->tensors) {
    const TensorData* expected = file->find(t.key);
    QVERIFY2(expected, t.key.c_str());
    QCOMPARE(t.tensor.shape(), expected->shape());
    QCOMPARE(t.tensor.byteSize(), expected->byteSize());
    QVERIFY(std::memcmp(t.tensor.data(), expected->data(), t.tensor.byteSize()) == 0);
  }
  // Bound as the runtime binds them: the run starts.
  QVERIFY(bool(rt->start(inputs->bound)));
}

void TestExecRunInputs::randomInputsFollowTheAbi() {
  Expected<runtime::Runtime> rt = runtime::Runtime::open(artifactOf("sparse_classifier"));
  QVERIFY2(rt, rt ? "" : rt.message().c_str());
  runtime::RandomInputOptions options;
  options.points = 37;
  options.seed = 5;
  Expected<RunInputs> inputs = makeRunInputs(RunInputSpec::randomPoints(options), rt->plan());
  QVERIFY2(inputs, inputs ? "" : inputs.message().c_str());
  // One tensor per entry argument, named by the ABI, 37 rows for the sparse ones' coordinates.
  QCOMPARE(inputs->tensors.size(), rt->plan().args.size());
  QCOMPARE(inputs->bound.named.size(), inputs->tensors.size());
  bool sawCoords = false;
  for (const NamedTensor& t : inputs->tensors)
    if (t.tensor.shape().size() == 2 && t.tensor.shape()[1] == 4) {
      sawCoords = true;
      QCOMPARE(t.tensor.shape()[0], std::int64_t(37));
    }
  QVERIFY(sawCoords);
  QVERIFY(bool(rt->start(inputs->bound)));
  QVERIFY(bool(rt->run()));
  // The same spec gives the same inputs (a seed means the same everywhere).
  Expected<RunInputs> again = makeRunInputs(RunInputSpec::randomPoints(options), rt->plan());
  QVERIFY(again);
  for (std::size_t i = 0; i < inputs->tensors.size(); ++i)
    QVERIFY(std::memcmp(again->tensors[i].tensor.data(), inputs->tensors[i].tensor.data(),
                        inputs->tensors[i].tensor.byteSize()) == 0);
}

void TestExecRunInputs::recordedInputsNeedRecordings() {
  Expected<runtime::Runtime> rt = runtime::Runtime::open(artifactOf("sparse_classifier"));
  QVERIFY(rt);
  Expected<RunInputs> inputs = makeRunInputs(RunInputSpec::recorded(), rt->plan(), nullptr);
  QVERIFY(!inputs);
  QVERIFY2(inputs.message().find("no recorded inputs") != std::string::npos, inputs.message().c_str());
}

void TestExecRunInputs::missingFileNamesIt() {
  Expected<runtime::Runtime> rt = runtime::Runtime::open(artifactOf("sparse_classifier"));
  QVERIFY(rt);
  const std::string path = kModels + "/no-such-inputs.safetensors";
  Expected<RunInputs> inputs = makeRunInputs(RunInputSpec::fromFile(path), rt->plan());
  QVERIFY(!inputs);
  QVERIFY2(inputs.message().find("no-such-inputs.safetensors") != std::string::npos, inputs.message().c_str());
}

void TestExecRunInputs::conformanceCasesMatchTheirExpectedOutputs_data() {
  QTest::addColumn<QString>("artifact");
  QTest::addColumn<double>("rtol");
  QTest::addColumn<double>("atol");
  QFile manifest(QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/manifest.json"));
  QVERIFY(manifest.open(QIODevice::ReadOnly));
  const QJsonArray cases = QJsonDocument::fromJson(manifest.readAll()).object().value(QStringLiteral("cases")).toArray();
  QVERIFY(!cases.isEmpty());
  for (const QJsonValue& v : cases) {
    const QJsonObject c = v.toObject();
    const QString artifact = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/") + c.value(QStringLiteral("expected_artifact")).toString();
    QTest::newRow(qPrintable(c.value(QStringLiteral("expected_artifact")).toString()))
        << artifact << c.value(QStringLiteral("rtol")).toDouble() << c.value(QStringLiteral("atol")).toDouble();
  }
}

void TestExecRunInputs::conformanceCasesMatchTheirExpectedOutputs() {
  QFETCH(QString, artifact);
  QFETCH(double, rtol);
  QFETCH(double, atol);
  // The case's files and the manifest's tolerances, found from the artifact alone.
  const ConformanceFiles files = conformanceFilesNextTo(artifact.toStdString());
  QVERIFY(files.fromManifest);
  QCOMPARE(files.rtol, rtol);
  QCOMPARE(files.atol, atol);
  const QString caseDir = QFileInfo(artifact).absolutePath();
  QCOMPARE(QFileInfo(QString::fromStdString(files.inputs)).canonicalFilePath(),
           QFileInfo(caseDir + QStringLiteral("/inputs.safetensors")).canonicalFilePath());
  QCOMPARE(QFileInfo(QString::fromStdString(files.expected)).canonicalFilePath(),
           QFileInfo(caseDir + QStringLiteral("/expected.safetensors")).canonicalFilePath());

  ArtifactRunRequest request;
  request.artifact = artifact.toStdString();
  request.inputs = RunInputSpec::fromFile(files.inputs);
  request.expectedFile = files.expected;
  request.rtol = files.rtol;
  request.atol = files.atol;
  std::atomic<bool> cancel{false};
  std::atomic<int> progress{0}, total{0};
  const ArtifactRunResult result = runArtifact(request, cancel, progress, total);
  QVERIFY2(result.error.empty(), result.error.c_str());
  QVERIFY(!result.cancelled);
  QCOMPARE(progress.load(), total.load());
  QCOMPARE(int(result.opMs.size()), total.load());
  QVERIFY(result.hasGolden());
  for (const runtime::OutputCheck& c : result.checks) QVERIFY2(c.ok, (c.name + ": " + c.problem).c_str());
  QVERIFY(result.allOk());
  QCOMPARE(result.checkOps.size(), result.checks.size());
}

void TestExecRunInputs::cancelledRunSaysSo() {
  ArtifactRunRequest request;
  request.artifact = artifactOf("sparse_classifier");
  std::atomic<bool> cancel{true};
  std::atomic<int> progress{0}, total{0};
  const ArtifactRunResult result = runArtifact(request, cancel, progress, total);
  QVERIFY(result.cancelled);
  QCOMPARE(result.error, std::string("cancelled"));
  QCOMPARE(progress.load(), 0);
  QVERIFY(!result.hasGolden());
}

QTEST_GUILESS_MAIN(TestExecRunInputs)
#include "tst_exec_run_inputs.moc"
