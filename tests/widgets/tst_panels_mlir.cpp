// MLIR panel: the text grows step by step and, once the lowering finished, equals each
// conformance archive's expected.lattice/graph.mlir byte for byte; mid-way it is that file's
// prefix except for the lines only known at the end (output names and roles, the result type).
// Highlights and clicks use sparse_classifier's expected graph.mlir: `x` owns the three
// arguments (lines 11-13) and the sparse.make (line 15); `stem` owns %stem_weight, %stem_bias
// and %stem (lines 16-18); `norm` owns lines 19-25 (decompose, four weights, batch_norm,
// with_features).

#include "StudioSession.h"
#include "panels/MlirPanel.h"

#include "WidgetTestSupport.h"

#include <QDir>
#include <QFile>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextDocument>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using lattice::studio::MlirPanel;
using lattice::studio::StudioSession;
using State = StudioSession::InterpreterState;

using namespace lattice::widgettest;

namespace {

QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QStringList linesOf(const QString& text) {
  return text.split(QLatin1Char('\n'));
}

} // namespace

class TestPanelsMlir : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void growsToExpectedMlir_data();
  void growsToExpectedMlir();
  void partialTextIsExpectedPrefix();
  void highlightsFollowProvenance();
  void clickingALineSelectsItsNode();
  void restartAndBatchRuns();
  void largeChainStaysIncremental();
};

void TestPanelsMlir::growsToExpectedMlir_data() {
  QTest::addColumn<QString>("dir");
  const QStringList cases = QDir(conformanceDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
  QVERIFY(!cases.isEmpty());
  for (const QString& c : cases)
    QTest::newRow(qPrintable(c)) << QDir(conformanceDir()).filePath(c);
}

void TestPanelsMlir::growsToExpectedMlir() {
  QFETCH(QString, dir);
  StudioSession session;
  MlirPanel panel(&session);
  QVERIFY(openAndWait(session, dir + QStringLiteral("/model.ltfx")));
  QVERIFY(panel.text().isEmpty());
  session.startInterpreter();
  QVERIFY(!panel.text().isEmpty());
  int previousLines = linesOf(panel.text()).size();
  while (session.interpreterState() == State::Paused) {
    session.step();
    const int lines = linesOf(panel.text()).size();
    QVERIFY(lines >= previousLines); // appended, never rebuilt shorter
    previousLines = lines;
  }
  QVERIFY2(session.interpreterState() == State::Finished, qPrintable(session.lastError()));
  const QString expected = readText(dir + QStringLiteral("/expected.lattice/graph.mlir"));
  QVERIFY(!expected.isEmpty());
  QCOMPARE(panel.text(), expected);
}

void TestPanelsMlir::partialTextIsExpectedPrefix() {
  StudioSession session;
  MlirPanel panel(&session);
  QVERIFY(openAndWait(session, conformanceDir() + QStringLiteral("/sparse_classifier/model.ltfx")));
  const QStringList expected =
      linesOf(readText(conformanceDir() + QStringLiteral("/sparse_classifier/expected.lattice/graph.mlir")));
  session.startInterpreter();
  // Header (10 lines), three arguments, the `) -> ... {` line, and the sparse.make the export
  // inputs already emitted for `x` (lowering.md §6.1 step 8, before any node runs): 15 lines.
  QStringList shown = linesOf(panel.text());
  QCOMPARE(shown.size(), 15);
  for (int i = 0; i < 15; ++i) {
    if (i == 5 || i == 6 || i == 13) continue; // output names, roles and result type: known at the end
    QCOMPARE(shown[i], expected[i]);
  }
  QCOMPARE(shown[5], QStringLiteral("  lattice.output_names = [],"));
  QCOMPARE(shown[6], QStringLiteral("  lattice.output_roles = [],"));
  QCOMPARE(shown[13], QStringLiteral("  ) -> ? {"));
  session.step(); // x: a placeholder emits nothing more
  QCOMPARE(linesOf(panel.text()).size(), 15);
  session.step(); // stem: two weights and the conv
  shown = linesOf(panel.text());
  QCOMPARE(shown.size(), 18);
  QCOMPARE(shown.mid(15, 3), expected.mid(15, 3));
}

void TestPanelsMlir::highlightsFollowProvenance() {
  StudioSession session;
  MlirPanel panel(&session);
  QVERIFY(openAndWait(session, conformanceDir() + QStringLiteral("/sparse_classifier/model.ltfx")));
  const QStringList expected =
      linesOf(readText(conformanceDir() + QStringLiteral("/sparse_classifier/expected.lattice/graph.mlir")));
  session.selectNode(QStringLiteral("stem"));
  QVERIFY(panel.highlightedLines().isEmpty()); // nothing built yet
  session.startInterpreter();
  QCOMPARE(panel.highlightedLines(), (QList<int>{})); // stem has not run
  session.step();
  session.step(); // stem ran: its lines appear highlighted
  QCOMPARE(panel.highlightedLines(), (QList<int>{16, 17, 18}));
  QVERIFY(expected[15].startsWith(QStringLiteral("    %stem_weight = lattice.weight")));
  QVERIFY(expected[17].startsWith(QStringLiteral("    %stem = lattice.conv3d")));
  session.selectNode(QStringLiteral("x"));
  QCOMPARE(panel.highlightedLines(), (QList<int>{11, 12, 13, 15}));
  // The extra selections cover exactly those lines (plus the last executed node's, tinted).
  QList<int> selected;
  for (const QTextEdit::ExtraSelection& s : panel.editor()->extraSelections())
    selected << s.cursor.blockNumber() + 1;
  for (int line : {11, 12, 13, 15})
    QVERIFY(selected.contains(line));
  session.continueRun();
  session.selectNode(QStringLiteral("norm"));
  QCOMPARE(panel.highlightedLines(), (QList<int>{19, 20, 21, 22, 23, 24, 25}));
  session.selectNode(QStringLiteral("output")); // emits nothing itself
  QVERIFY(panel.highlightedLines().isEmpty());
}

void TestPanelsMlir::clickingALineSelectsItsNode() {
  StudioSession session;
  MlirPanel panel(&session);
  QVERIFY(openAndWait(session, conformanceDir() + QStringLiteral("/sparse_classifier/model.ltfx")));
  session.continueRun();
  QCOMPARE(session.interpreterState(), State::Finished);
  QCOMPARE(panel.nodeAtLine(12), QStringLiteral("x")); // %x_features
  QCOMPARE(panel.nodeAtLine(18), QStringLiteral("stem"));
  QCOMPARE(panel.nodeAtLine(33), QStringLiteral("head")); // %head = lattice.linear
  QCOMPARE(panel.nodeAtLine(1), QString());               // header
  QCOMPARE(panel.nodeAtLine(34), QString());              // return
  panel.selectNodeAtLine(21);
  QCOMPARE(session.selectedNode(), QStringLiteral("norm"));

  // A real click on line 29 (%pool).
  panel.resize(900, 700);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  QPlainTextEdit* editor = panel.editor();
  QTextCursor cursor(editor->document()->findBlockByNumber(28));
  editor->setTextCursor(cursor);
  editor->ensureCursorVisible();
  const QPoint point = editor->cursorRect(cursor).center() + QPoint(40, 0);
  QTest::mouseClick(editor->viewport(), Qt::LeftButton, {}, point);
  QCOMPARE(session.selectedNode(), QStringLiteral("pool"));
}

void TestPanelsMlir::restartAndBatchRuns() {
  StudioSession session;
  MlirPanel panel(&session);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:3")));
  session.runToNode(QStringLiteral("blocks_1_0"));
  // x's make (emitted with the inputs), then block 0: conv (weight + subm_conv3d; no bias),
  // norm (decompose, 4 weights, batch_norm, with_features), relu (decompose, activation,
  // with_features) = 1 + 12 ops.
  const int header = 10 + 3 + 1;
  QCOMPARE(linesOf(panel.text()).size(), header + 13);
  session.continueRun();
  QCOMPARE(session.interpreterState(), State::Finished);
  auto full = session.lowering()->builder->toMlir();
  QVERIFY(full.ok());
  QCOMPARE(panel.text(), QString::fromStdString(*full));
  QCOMPARE(linesOf(panel.text()).size(), header + 1 + 3 * 12 + 3 + 1); // + return, "  }", "}", ""
  session.startInterpreter();
  QCOMPARE(linesOf(panel.text()).size(), header + 1);
  session.stopInterpreter();
  QVERIFY(panel.text().isEmpty());
}

void TestPanelsMlir::largeChainStaysIncremental() {
  // 400 blocks stepped one node at a time: 1202 steps, 4800+ lines. The document's own change
  // reports count the characters written into it: appending writes each character about once
  // (the header is patched once at the end), while rebuilding the text per step would write
  // about steps / 2 times the final text.
  StudioSession session;
  MlirPanel panel(&session);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:400")));
  qint64 written = 0;
  qint64 erased = 0;
  connect(panel.editor()->document(), &QTextDocument::contentsChange, this, [&](int, int removed, int added) {
    written += added;
    erased += removed;
  });
  session.startInterpreter();
  int steps = 0;
  while (session.interpreterState() == State::Paused) {
    session.step();
    ++steps;
  }
  QCOMPARE(steps, 1 + 3 * 400 + 1);
  auto full = session.lowering()->builder->toMlir();
  QVERIFY(full.ok());
  QCOMPARE(panel.text(), QString::fromStdString(*full));
  const qint64 length = panel.text().size();
  QVERIFY2(written <= 2 * length,
           qPrintable(QStringLiteral("%1 characters written for a text of %2").arg(written).arg(length)));
  QVERIFY2(erased <= length, qPrintable(QStringLiteral("%1 characters erased").arg(erased)));
}

QTEST_MAIN(TestPanelsMlir)
#include "tst_panels_mlir.moc"
