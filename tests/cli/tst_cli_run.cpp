// End-to-end tests of `lattice-cli run` and `lattice-cli check`: every case of
// tests/data/conformance/manifest.json checks within its manifest tolerance (exit 0); a perturbed
// expected file fails and names the output (exit 1); unreadable inputs or expected files and
// usage errors exit 2; `run -o` writes outputs named as expected.safetensors names them, with
// values within tolerance of the expected ones; `--values` writes every op result by SSA name;
// `--random-inputs N:SEED --save-inputs F` is repeatable byte for byte and `run --inputs F`
// reproduces the run; a model reference (`example:sparse_resnet21d`) is lowered in memory and run.

#include "CliRunner.h"

#include "mlir/MlirParser.h"
#include "tensor/Safetensors.h"
#include "tensor/TensorConvert.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cmath>
#include <cstring>
#include <map>
#include <set>

using lattice::testing::CliRun;
using lattice::testing::runCli;
using namespace lattice;

namespace {

const QString kConformance = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/");

struct Case {
  QString name, artifact, inputs, expected;
  double rtol = 0, atol = 0;
  bool sparse = false;
};

std::vector<Case> manifestCases() {
  QFile f(kConformance + "manifest.json");
  if (!f.open(QIODevice::ReadOnly)) return {};
  std::vector<Case> out;
  for (const QJsonValue& v : QJsonDocument::fromJson(f.readAll()).object().value("cases").toArray()) {
    const QJsonObject o = v.toObject();
    out.push_back({o.value("name").toString(), kConformance + o.value("expected_artifact").toString(),
                   kConformance + o.value("inputs").toString(), kConformance + o.value("expected_outputs").toString(),
                   o.value("rtol").toDouble(), o.value("atol").toDouble(),
                   o.value("output_kind").toString() == "sparse"});
  }
  return out;
}

Case caseNamed(const QString& name) {
  for (const Case& c : manifestCases())
    if (c.name == name) return c;
  qFatal("no conformance case %s", qPrintable(name));
}

QString num(double v) { return QString::number(v, 'g', 17); }

QByteArray fileBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::map<std::string, TensorData> tensorsOf(const QString& path) {
  std::map<std::string, TensorData> out;
  Expected<SafetensorsFile> f = SafetensorsFile::open(path.toStdString());
  if (!f) return out;
  for (const NamedTensor& t : f->tensors()) { // an owning copy outlives the mapping
    std::vector<std::uint8_t> bytes(t.tensor.data(), t.tensor.data() + t.tensor.byteSize());
    out.emplace(t.key, TensorData::owning(t.tensor.dtype(), t.tensor.shape(), std::move(bytes)));
  }
  return out;
}

std::vector<float> floats(const TensorData& t) {
  Expected<std::vector<float>> v = toFloatVector(t);
  return v ? *v : std::vector<float>{};
}

std::vector<std::int64_t> ints(const TensorData& t) {
  Expected<std::vector<std::int64_t>> v = toIntVector(t);
  return v ? *v : std::vector<std::int64_t>{};
}

/// `expected` with feature (or dense) value `index` of `key` moved by `delta`, written to `path`.
bool writePerturbed(const QString& expected, const QString& path, const std::string& key, std::size_t index,
                    float delta) {
  std::vector<NamedTensor> tensors;
  for (auto& [k, t] : tensorsOf(expected)) {
    if (k == key) {
      std::vector<float> v = floats(t);
      if (index >= v.size()) return false;
      v[index] += delta;
      std::vector<std::uint8_t> bytes(v.size() * 4);
      std::memcpy(bytes.data(), v.data(), bytes.size());
      tensors.push_back({k, TensorData::owning(DType::F32, t.shape(), std::move(bytes))});
    } else {
      tensors.push_back({k, t});
    }
  }
  return static_cast<bool>(writeSafetensors(path.toStdString(), tensors, std::nullopt));
}

/// "" when `actual` matches `expected` (same keys and shapes; sparse rows matched by
/// coordinate; |a − e| ≤ atol + rtol·|e|), else the first difference.
std::string compareOutputFiles(const QString& actualPath, const QString& expectedPath, double rtol, double atol) {
  const auto a = tensorsOf(actualPath), e = tensorsOf(expectedPath);
  std::set<std::string> ka, ke;
  for (const auto& kv : a) ka.insert(kv.first);
  for (const auto& kv : e) ke.insert(kv.first);
  if (ka != ke) return "the keys differ";
  for (const auto& [key, t] : e)
    if (a.at(key).shape() != t.shape()) return "the shape of " + key + " differs";
  auto close = [&](float x, float y) { return std::fabs(x - y) <= atol + rtol * std::fabs(y); };
  if (e.count("output")) {
    const std::vector<float> av = floats(a.at("output")), ev = floats(e.at("output"));
    for (std::size_t i = 0; i < ev.size(); ++i)
      if (!close(av[i], ev[i])) return "output value " + std::to_string(i) + " differs";
    return "";
  }
  if (ints(a.at("output.active")) != ints(e.at("output.active"))) return "active rows differ";
  const std::vector<std::int64_t> ac = ints(a.at("output.coords")), ec = ints(e.at("output.coords"));
  const std::vector<float> af = floats(a.at("output.features")), ef = floats(e.at("output.features"));
  const std::size_t rows = ec.size() / 4, C = rows ? ef.size() / rows : 0;
  std::map<std::vector<std::int64_t>, std::size_t> rowOf;
  for (std::size_t r = 0; r < rows; ++r) rowOf[std::vector<std::int64_t>(ac.begin() + 4 * r, ac.begin() + 4 * r + 4)] = r;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto it = rowOf.find(std::vector<std::int64_t>(ec.begin() + 4 * r, ec.begin() + 4 * r + 4));
    if (it == rowOf.end()) return "expected row " + std::to_string(r) + " is missing";
    for (std::size_t c = 0; c < C; ++c)
      if (!close(af[it->second * C + c], ef[r * C + c])) return "row " + std::to_string(r) + " differs";
  }
  return "";
}

} // namespace

class TestCliRun : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void everyConformanceCaseChecks_data() {
    QTest::addColumn<int>("index");
    const std::vector<Case> cases = manifestCases();
    QVERIFY(cases.size() >= 7);
    for (std::size_t i = 0; i < cases.size(); ++i) QTest::newRow(qPrintable(cases[i].name)) << static_cast<int>(i);
  }
  void everyConformanceCaseChecks() {
    QFETCH(int, index);
    const Case c = manifestCases()[static_cast<std::size_t>(index)];
    const CliRun r = runCli({"check", c.artifact, "--inputs", c.inputs, "--expected", c.expected, "--rtol", num(c.rtol),
                             "--atol", num(c.atol)});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.startsWith("output: ok: "), qPrintable(r.out));
    // The exact mode (f64 accumulation) is within the same tolerance.
    const CliRun exact = runCli({"check", c.artifact, "--inputs", c.inputs, "--expected", c.expected, "--rtol",
                                 num(c.rtol), "--atol", num(c.atol), "--exact"});
    QVERIFY2(exact.code == 0, qPrintable(exact.out + exact.err));
  }

  // --profile: after the summary line, a header and one line per op, slowest first.
  void profileListsEveryOpSlowestFirst() {
    const Case c = caseNamed("sparse_classifier");
    const CliRun r = runCli({"run", c.artifact, "--inputs", c.inputs, "--profile"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
    QVERIFY(lines.size() > 2);
    QVERIFY2(lines[0].contains(" ops in ") && lines[1].contains("GFLOP/s"), qPrintable(r.out));
    lines = lines.mid(2);
    QCOMPARE(lines.size(), 19); // the ops of graph.mlir (weights included)
    double previous = 1e300;
    for (const QString& line : lines) {
      const double ms = line.section(' ', 0, 0, QString::SectionSkipEmpty).toDouble();
      QVERIFY2(ms <= previous, qPrintable(r.out));
      previous = ms;
    }
    QVERIFY(r.out.contains("%head (linear)") && r.out.contains("%stem (conv3d)"));
  }

  // One value moved far beyond the tolerance: exit 1 and the failing output named.
  void perturbedExpectedFails_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("key");
    QTest::newRow("dense output") << "sparse_classifier" << "output";
    QTest::newRow("sparse output") << "canonical_kernel_layout" << "output.features";
  }
  void perturbedExpectedFails() {
    QFETCH(QString, name);
    QFETCH(QString, key);
    const Case c = caseNamed(name);
    QTemporaryDir dir;
    const QString perturbed = dir.filePath("expected.safetensors");
    QVERIFY(writePerturbed(c.expected, perturbed, key.toStdString(), 1, 0.5f));
    const CliRun r = runCli({"check", c.artifact, "--inputs", c.inputs, "--expected", perturbed, "--rtol", num(c.rtol),
                             "--atol", num(c.atol)});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.startsWith("output: FAIL"), qPrintable(r.out));
    QVERIFY2(r.out.contains("; 1 of "), qPrintable(r.out)); // exactly the one value
  }

  // What cannot be read exits 2: inputs or expected missing or not safetensors.
  void unreadableFilesExit2() {
    const Case c = caseNamed("canonical_kernel_layout");
    QTemporaryDir dir;
    const QString garbage = dir.filePath("garbage.safetensors");
    QFile g(garbage);
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write("not a safetensors file at all");
    g.close();
    for (const QStringList& args :
         {QStringList{"check", c.artifact, "--inputs", dir.filePath("missing.safetensors"), "--expected", c.expected},
          QStringList{"check", c.artifact, "--inputs", garbage, "--expected", c.expected},
          QStringList{"check", c.artifact, "--inputs", c.inputs, "--expected", garbage},
          QStringList{"check", dir.filePath("no.lattice"), "--inputs", c.inputs, "--expected", c.expected}}) {
      const CliRun r = runCli(args);
      QVERIFY2(r.code == 2, qPrintable(args.join(' ') + " -> " + QString::number(r.code) + r.err));
      QVERIFY(!r.err.isEmpty());
    }
    // `run` refuses unreadable inputs too (exit 1 there: a bad input, not a usage error).
    const CliRun r = runCli({"run", c.artifact, "--inputs", garbage});
    QVERIFY2(r.code != 0 && !r.err.isEmpty(), qPrintable(r.err));
  }

  // Inputs the runtime refuses (a coordinate outside its range): the op's error on stderr.
  void runtimeErrorIsReported() {
    const Case c = caseNamed("canonical_kernel_layout");
    QTemporaryDir dir;
    auto tensors = tensorsOf(c.inputs);
    std::vector<std::int64_t> coords = ints(tensors.at("x_coords"));
    std::vector<std::int32_t> bad(coords.begin(), coords.end());
    bad[1] = 70000;
    std::vector<std::uint8_t> bytes(bad.size() * 4);
    std::memcpy(bytes.data(), bad.data(), bytes.size());
    tensors.at("x_coords") = TensorData::owning(DType::I32, tensors.at("x_coords").shape(), std::move(bytes));
    std::vector<NamedTensor> list;
    for (auto& [k, t] : tensors) list.push_back({k, t});
    const QString inputs = dir.filePath("inputs.safetensors");
    QVERIFY(writeSafetensors(inputs.toStdString(), list, std::nullopt));
    const CliRun r = runCli({"run", c.artifact, "--inputs", inputs});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("graph.mlir:") && r.err.contains("'lattice.sparse.make' op %x:") &&
                 r.err.contains("outside the runtime's range"),
             qPrintable(r.err));
  }

  // run -o writes the outputs as expected.safetensors names them (a sparse one as
  // output.coords / .features / .active), within tolerance of the expected values; checking
  // the artifact against that file with zero tolerance passes (the run is deterministic).
  void runWritesOutputsLikeExpected_data() {
    QTest::addColumn<QString>("name");
    for (const Case& c : manifestCases()) QTest::newRow(qPrintable(c.name)) << c.name;
  }
  void runWritesOutputsLikeExpected() {
    QFETCH(QString, name);
    const Case c = caseNamed(name);
    QTemporaryDir dir;
    const QString out = dir.filePath("out.safetensors");
    const CliRun r = runCli({"run", c.artifact, "--inputs", c.inputs, "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const std::string problem = compareOutputFiles(out, c.expected, c.rtol, c.atol);
    QVERIFY2(problem.empty(), problem.c_str());
    const auto written = tensorsOf(out);
    QCOMPARE(written.count("output.coords") == 1, c.sparse);
    if (c.sparse) QCOMPARE(written.at("output.coords").dtype(), DType::I32);
    const CliRun again =
        runCli({"check", c.artifact, "--inputs", c.inputs, "--expected", out, "--rtol", "0", "--atol", "0"});
    QVERIFY2(again.code == 0, qPrintable(again.out + again.err));
  }

  // --values: every op result by SSA name (sparse values as NAME.coords / .features / .active,
  // no weights), as the graph declares them; the last one is the output.
  void valuesWritesEveryOpResult() {
    const Case c = caseNamed("sparse_classifier");
    QTemporaryDir dir;
    const QString values = dir.filePath("values.safetensors"), out = dir.filePath("out.safetensors");
    const CliRun r = runCli({"run", c.artifact, "--inputs", c.inputs, "-o", out, "--values", values});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    ArtifactParseResult graph = readArtifactGraphFile(c.artifact.toStdString() + "/graph.mlir");
    QVERIFY(graph.ok());
    std::set<std::string> expectedKeys;
    for (const ArtifactOp& op : graph.graph->functions.front().ops)
      for (const ArtifactValueDef& def : op.results) {
        if (def.type.isWeight()) continue;
        if (def.type.isSparse())
          for (const char* part : {".coords", ".features", ".active"}) expectedKeys.insert(def.name + part);
        else
          expectedKeys.insert(def.name);
      }
    const auto written = tensorsOf(values);
    std::set<std::string> keys;
    for (const auto& kv : written) keys.insert(kv.first);
    QCOMPARE(keys, expectedKeys);
    QCOMPARE(floats(written.at("head")), floats(tensorsOf(out).at("output")));
  }

  // --random-inputs N:SEED --save-inputs F: the same seed writes the same bytes, another seed
  // others; the file holds the ABI's inputs (N rows, unique coordinates) and `run --inputs F`
  // gives the same outputs as the random run.
  void randomInputsAreRepeatable() {
    const Case c = caseNamed("normalized_convolution");
    QTemporaryDir dir;
    auto save = [&](const QString& spec, const QString& inputs, const QString& out) {
      return runCli({"run", c.artifact, "--random-inputs", spec, "--save-inputs", inputs, "-o", out});
    };
    QCOMPARE(save("300:7", dir.filePath("a.safetensors"), dir.filePath("oa.safetensors")).code, 0);
    QCOMPARE(save("300:7", dir.filePath("b.safetensors"), dir.filePath("ob.safetensors")).code, 0);
    QCOMPARE(save("300:8", dir.filePath("c.safetensors"), dir.filePath("oc.safetensors")).code, 0);
    const QByteArray a = fileBytes(dir.filePath("a.safetensors"));
    QVERIFY(!a.isEmpty());
    QCOMPARE(fileBytes(dir.filePath("b.safetensors")), a);
    QVERIFY(fileBytes(dir.filePath("c.safetensors")) != a);
    QCOMPARE(fileBytes(dir.filePath("ob.safetensors")), fileBytes(dir.filePath("oa.safetensors")));

    const auto inputs = tensorsOf(dir.filePath("a.safetensors"));
    std::set<std::string> keys;
    for (const auto& kv : inputs) keys.insert(kv.first);
    QCOMPARE(keys, (std::set<std::string>{"x_active", "x_coords", "x_features"}));
    QCOMPARE(inputs.at("x_coords").shape(), (std::vector<std::int64_t>{300, 4}));
    QCOMPARE(ints(inputs.at("x_active")), (std::vector<std::int64_t>{300}));
    const std::vector<std::int64_t> coords = ints(inputs.at("x_coords"));
    std::set<std::vector<std::int64_t>> unique;
    for (std::size_t r = 0; r < 300; ++r) unique.insert(std::vector<std::int64_t>(coords.begin() + 4 * r, coords.begin() + 4 * r + 4));
    QCOMPARE(unique.size(), std::size_t(300));

    const CliRun replay = runCli({"run", c.artifact, "--inputs", dir.filePath("a.safetensors"), "-o", dir.filePath("or.safetensors")});
    QVERIFY2(replay.code == 0, qPrintable(replay.err));
    QCOMPARE(fileBytes(dir.filePath("or.safetensors")), fileBytes(dir.filePath("oa.safetensors")));
  }

  // A model reference is lowered in memory and run (nothing written but the outputs).
  void runsAModelLoweredInMemory() {
    QTemporaryDir dir;
    const QString out = dir.filePath("out.safetensors");
    const CliRun r = runCli({"run", "example:sparse_resnet21d", "--random-inputs", "1000", "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith("example:sparse_resnet21d: "), qPrintable(r.out));
    const auto written = tensorsOf(out);
    QCOMPARE(written.size(), std::size_t(15)); // five sparse stage outputs
    for (const auto& [key, t] : written)
      if (key.size() > 7 && key.compare(key.size() - 7, 7, ".active") == 0) QVERIFY(ints(t).at(0) > 0);
    QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{"out.safetensors"});
  }

  void usageErrorsExit2_data() {
    QTest::addColumn<QStringList>("args");
    const Case c = caseNamed("canonical_kernel_layout");
    QTest::newRow("run without arguments") << QStringList{"run"};
    QTest::newRow("run without inputs") << QStringList{"run", c.artifact};
    QTest::newRow("run with both inputs") << QStringList{"run", c.artifact, "--inputs", c.inputs, "--random-inputs", "5"};
    QTest::newRow("run with zero random points") << QStringList{"run", c.artifact, "--random-inputs", "0"};
    QTest::newRow("run with a bad seed") << QStringList{"run", c.artifact, "--random-inputs", "10:x"};
    QTest::newRow("run with zero threads")
        << QStringList{"run", c.artifact, "--inputs", c.inputs, "--threads", "0"};
    QTest::newRow("run with an unknown option") << QStringList{"run", c.artifact, "--inputs", c.inputs, "--bogus"};
    QTest::newRow("check without arguments") << QStringList{"check"};
    QTest::newRow("check without expected") << QStringList{"check", c.artifact, "--inputs", c.inputs};
    QTest::newRow("check with a negative rtol")
        << QStringList{"check", c.artifact, "--inputs", c.inputs, "--expected", c.expected, "--rtol", "-1"};
    QTest::newRow("check with a non-numeric atol")
        << QStringList{"check", c.artifact, "--inputs", c.inputs, "--expected", c.expected, "--atol", "tiny"};
  }
  void usageErrorsExit2() {
    QFETCH(QStringList, args);
    const CliRun r = runCli(args);
    QVERIFY2(r.code == 2, qPrintable(QString::number(r.code) + ": " + r.err));
    QVERIFY(!r.err.isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestCliRun)
#include "tst_cli_run.moc"
