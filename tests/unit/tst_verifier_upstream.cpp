// Our first diagnostic on every invalid fixture of mlx-lattice (mlir/test/Dialect/Lattice/invalid,
// copied verbatim into data/lattice-opt/invalid/) against the first error upstream lattice-opt
// gives for it (`lattice-opt --lattice-verify-artifact`, recorded in
// data/lattice-opt/expected-first-errors.txt by the tool itself; see that folder's README). The
// message must be the same; so must the position, except where ours deliberately points at what
// is wrong rather than where MLIR anchors the error (a module attribute's value rather than
// `module`, the extra function rather than `module`, the entry's name rather than `func.func`):
// there the position must be that construct's, read off the fixture.

#include "verify/ArtifactValidation.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QFile>

#include <map>

using namespace lattice;

namespace {

const QString kDir = QStringLiteral(LATTICE_TEST_DATA_DIR "/lattice-opt/");

struct UpstreamError {
  int line = 0, column = 0;
  QString message;
};

// `FILE:LINE:COL: error: MESSAGE` lines of lattice-opt's stderr, by file.
std::map<QString, UpstreamError> upstreamFirstErrors() {
  std::map<QString, UpstreamError> out;
  QFile f(kDir + QStringLiteral("expected-first-errors.txt"));
  if (!f.open(QIODevice::ReadOnly)) return out;
  const QRegularExpression re(QStringLiteral("^([^:]+):(\\d+):(\\d+): error: (.*)$"));
  for (const QByteArray& raw : f.readAll().split('\n')) {
    const QRegularExpressionMatch m = re.match(QString::fromUtf8(raw));
    if (m.hasMatch())
      out[m.captured(1)] = {m.captured(2).toInt(), m.captured(3).toInt(), m.captured(4)};
  }
  return out;
}

// Where our diagnostic points instead of lattice-opt's anchor: the first occurrence of this text.
const std::map<QString, QString> kOurAnchor = {
    {QStringLiteral("unsupported_ir_version.mlir"), QStringLiteral("lattice.ir_version = 1")},
    {QStringLiteral("unsupported_weight_file.mlir"), QStringLiteral("lattice.weight_file")},
    {QStringLiteral("multiple_entry_functions.mlir"), QStringLiteral("func.func @aux")},
    {QStringLiteral("wrong_entry_name.mlir"), QStringLiteral("@predict")},
};

// 1-based line and column of the first `needle` in `text`.
std::pair<int, int> positionOf(const QString& text, const QString& needle) {
  const int at = text.indexOf(needle);
  if (at < 0) return {0, 0};
  const int lineStart = text.lastIndexOf(QLatin1Char('\n'), at) + 1;
  return {int(text.left(at).count(QLatin1Char('\n'))) + 1, at - lineStart + 1};
}

} // namespace

class TestVerifierUpstream : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void firstErrorIsLatticeOpts_data() {
    QTest::addColumn<QString>("file");
    const std::map<QString, UpstreamError> expected = upstreamFirstErrors();
    const QStringList files = QDir(kDir + QStringLiteral("invalid/")).entryList({QStringLiteral("*.mlir")});
    QCOMPARE(files.size(), 29);
    QCOMPARE(expected.size(), std::size_t(29));
    for (const QString& f : files)
      QTest::newRow(qPrintable(f)) << f;
  }
  void firstErrorIsLatticeOpts() {
    QFETCH(QString, file);
    const std::map<QString, UpstreamError> all = upstreamFirstErrors();
    QVERIFY2(all.count(file), "no lattice-opt error recorded for this fixture");
    const UpstreamError& want = all.at(file);
    const QString path = kDir + QStringLiteral("invalid/") + file;
    const ArtifactValidation v = validateArtifact(path.toStdString());
    QVERIFY(!v.ok());
    const Diagnostic& first = v.diagnostics.front();
    QCOMPARE(first.severity, Severity::Error);
    QCOMPARE(QString::fromStdString(first.message), want.message);
    int line = want.line, column = want.column;
    if (kOurAnchor.count(file)) {
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      std::tie(line, column) = positionOf(QString::fromUtf8(f.readAll()), kOurAnchor.at(file));
      QVERIFY(line > 0);
      QVERIFY(line != want.line || column != want.column);
    }
    QCOMPARE(int(first.loc.line), line);
    QCOMPARE(int(first.loc.column), column);
  }
};

QTEST_APPLESS_MAIN(TestVerifierUpstream)
#include "tst_verifier_upstream.moc"
