// Conformance of the whole export pipeline against the reference exporter's real outputs
// (tests/data/conformance): every case's model.ltfx is saved with the archive's own defaults and
// must reproduce expected.lattice/graph.mlir byte for byte and expected.lattice/weights.safetensors
// tensor for tensor and byte for byte.

#include "lowering/Lowering.h"
#include "model/Archive.h"
#include "tensor/Safetensors.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <sstream>

using namespace lattice;

namespace {

QString dataDir() { return QStringLiteral(LATTICE_TEST_DATA_DIR) + QStringLiteral("/conformance"); }

QByteArray readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

std::vector<std::string> splitLines(const QByteArray& bytes) {
  std::vector<std::string> lines;
  std::istringstream in(bytes.toStdString());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// "line N differs:\n- expected\n+ actual" with one line of context either side.
std::string firstDifference(const QByteArray& expected, const QByteArray& actual) {
  const std::vector<std::string> e = splitLines(expected), a = splitLines(actual);
  std::size_t i = 0;
  while (i < e.size() && i < a.size() && e[i] == a[i]) ++i;
  std::ostringstream out;
  out << "first difference at line " << (i + 1) << ":\n";
  if (i > 0) out << "  " << e[i - 1] << "\n";
  out << "- " << (i < e.size() ? e[i] : std::string("<end of expected>")) << "\n";
  out << "+ " << (i < a.size() ? a[i] : std::string("<end of actual>")) << "\n";
  if (i + 1 < e.size()) out << "  " << e[i + 1] << "\n";
  if (e.size() == a.size() && i == e.size()) out << "(lines equal; the files differ in line endings or a final newline)\n";
  return out.str();
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

} // namespace

class TestLoweringConformance : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void manifestListsEveryCase();
  void reproducesReference_data();
  void reproducesReference();
};

void TestLoweringConformance::manifestListsEveryCase() {
  // Every model directory is covered by a manifest row, so no case can be skipped silently.
  const QJsonObject manifest = QJsonDocument::fromJson(readAll(QString(dataDir() + "/manifest.json"))).object();
  QStringList listed;
  for (const QJsonValue& c : manifest.value(QStringLiteral("cases")).toArray())
    listed << c.toObject().value(QStringLiteral("name")).toString();
  QStringList dirs = QDir(QString(dataDir() + "/models")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
  listed.sort();
  dirs.sort();
  QCOMPARE(listed, dirs);
  QCOMPARE(listed.size(), 7);
}

void TestLoweringConformance::reproducesReference_data() {
  QTest::addColumn<QString>("model");
  QTest::addColumn<QString>("expected");
  const QJsonObject manifest = QJsonDocument::fromJson(readAll(QString(dataDir() + "/manifest.json"))).object();
  for (const QJsonValue& c : manifest.value(QStringLiteral("cases")).toArray()) {
    const QJsonObject row = c.toObject();
    QTest::newRow(row.value(QStringLiteral("name")).toString().toUtf8().constData())
        << QString(dataDir() + "/" + row.value(QStringLiteral("model")).toString())
        << QString(dataDir() + "/" + row.value(QStringLiteral("expected_artifact")).toString());
  }
}

void TestLoweringConformance::reproducesReference() {
  QFETCH(QString, model);
  QFETCH(QString, expected);

  Expected<Model> m = readArchive(model.toStdString());
  QVERIFY2(m.ok(), m.ok() ? "" : m.message().c_str());

  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const QString out = tmp.path() + "/case.lattice";
  Status saved = saveLatticeModelArtifact(*m, out.toStdString(), ExportOptions{});
  QVERIFY2(saved.ok(), saved.ok() ? "" : saved.message().c_str());

  QStringList files = QDir(out).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
  files.sort();
  QCOMPARE(files, (QStringList{QStringLiteral("graph.mlir"), QStringLiteral("weights.safetensors")}));

  // graph.mlir: byte for byte.
  const QByteArray expectedGraph = readAll(expected + "/graph.mlir");
  const QByteArray actualGraph = readAll(out + "/graph.mlir");
  QVERIFY(!expectedGraph.isEmpty());
  QVERIFY2(expectedGraph == actualGraph, firstDifference(expectedGraph, actualGraph).c_str());

  // weights.safetensors: tensor for tensor (a readable report), then the whole file.
  Expected<SafetensorsFile> ew = SafetensorsFile::open(QString(expected + "/weights.safetensors").toStdString());
  Expected<SafetensorsFile> aw = SafetensorsFile::open(QString(out + "/weights.safetensors").toStdString());
  QVERIFY2(ew.ok(), ew.ok() ? "" : ew.message().c_str());
  QVERIFY2(aw.ok(), aw.ok() ? "" : aw.message().c_str());
  std::vector<std::string> expectedKeys, actualKeys;
  for (const NamedTensor& t : ew->tensors()) expectedKeys.push_back(t.key);
  for (const NamedTensor& t : aw->tensors()) actualKeys.push_back(t.key);
  QCOMPARE(actualKeys, expectedKeys); // same keys in the same (reference) header order
  for (const NamedTensor& t : ew->tensors()) {
    const TensorData* a = aw->find(t.key);
    QVERIFY(a);
    const std::string where = "tensor '" + t.key + "'";
    QVERIFY2(a->dtype() == t.tensor.dtype(),
             (where + ": dtype " + std::string(dtypeName(a->dtype())) + " != " +
              std::string(dtypeName(t.tensor.dtype()))).c_str());
    QVERIFY2(a->shape() == t.tensor.shape(),
             (where + ": shape " + shapeText(a->shape()) + " != " + shapeText(t.tensor.shape())).c_str());
    QVERIFY2(*a == t.tensor, (where + ": bytes differ").c_str());
  }
  QCOMPARE(aw->metadata(), ew->metadata());
  QVERIFY2(readAll(out + "/weights.safetensors") == readAll(expected + "/weights.safetensors"),
           "weights.safetensors differs in bytes (header layout or padding)");
}

QTEST_APPLESS_MAIN(TestLoweringConformance)
#include "tst_lowering_conformance.moc"
