// The compare view. An artifact against itself: every node unchanged, each
// node matched with itself, no differences. Against a copy edited by hand (one attribute of one
// op, one value of one weight): exactly that op is coloured changed on both sides, the list
// holds exactly those differences, and the weight's histogram of Δ holds the edit made (worked
// out from the values written). Also: selection and scroll synchronisation, two different
// artifacts (statuses only on their own side), the histogram's binning by hand, the compare
// dialog's check, and the main window's Compare with Last Export choice.

#include "MainWindow.h"
#include "StudioSession.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactNodeItem.h"
#include "artifactview/ArtifactOpGraph.h"
#include "artifactview/ArtifactStyle.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/CompareArtifactsDialog.h"
#include "artifactview/CompareView.h"
#include "artifactview/DiffListModel.h"
#include "charts/DataFlowChart.h"
#include "charts/DeltaHistogram.h"
#include "graph/GraphView.h"
#include "numeric/NumericOverlay.h"

#include "WidgetTestSupport.h"

#include <QAbstractItemModelTester>
#include <QDialogButtonBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

#include <cstring>

using namespace lattice;
using namespace lattice::studio;
using lattice::runtime::computeHistogram;
using lattice::runtime::Histogram;

using namespace lattice::widgettest;

namespace {

QString expectedDir(const QString& name) {
  return QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/") + name +
         QStringLiteral("/expected.lattice");
}

/// Compares and waits for the diff and both layouts.
bool compareAndSettle(CompareView& view, const QString& a, const QString& b) {
  QSignalSpy finished(&view, &CompareView::compareFinished);
  QSignalSpy failed(&view, &CompareView::compareFailed);
  QSignalSpy laidA(view.graphA(), &ArtifactGraphView::layoutFinished);
  QSignalSpy laidB(view.graphB(), &ArtifactGraphView::layoutFinished);
  view.compare(a, b);
  if (!waitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); })) return false;
  if (!failed.isEmpty()) {
    qWarning("compare failed: %s", qPrintable(failed.front().front().toString()));
    return false;
  }
  return waitFor([&] { return !laidA.isEmpty() && !laidB.isEmpty(); });
}

bool copyDir(const QString& from, const QString& to) {
  QDir().mkpath(to);
  for (const QString& f : QDir(from).entryList(QDir::Files))
    if (!QFile::copy(from + QLatin1Char('/') + f, to + QLatin1Char('/') + f)) return false;
  return true;
}

bool replaceInFile(const QString& path, const QByteArray& before, const QByteArray& after) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return false;
  QByteArray bytes = f.readAll();
  f.close();
  if (bytes.count(before) != 1) return false;
  bytes.replace(before, after);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(bytes) == bytes.size();
}

/// Overwrites element `index` of F32 tensor `key` in a safetensors file with `value`.
bool setF32(const QString& path, const QString& key, int index, float value) {
  QFile f(path);
  if (!f.open(QIODevice::ReadWrite)) return false;
  const QByteArray head = f.read(8);
  quint64 length = 0;
  for (int i = 7; i >= 0; --i)
    length = (length << 8) | static_cast<unsigned char>(head[i]);
  const QJsonObject header = QJsonDocument::fromJson(f.read(static_cast<qint64>(length))).object();
  const QJsonObject entry = header.value(key).toObject();
  if (entry.value(QStringLiteral("dtype")).toString() != QStringLiteral("F32")) return false;
  const qint64 offset =
      8 + static_cast<qint64>(length) +
      static_cast<qint64>(entry.value(QStringLiteral("data_offsets")).toArray().at(0).toDouble()) + 4 * index;
  char bytes[4];
  std::memcpy(bytes, &value, 4);
  return f.seek(offset) && f.write(bytes, 4) == 4;
}

/// Nodes of a side whose status is `status`, and whose box is painted in that status's colours.
QList<int> nodesWithStatus(const CompareView& view, bool sideB, DiffStatus status) {
  QList<int> out;
  ArtifactGraphView* g = sideB ? view.graphB() : view.graphA();
  for (int n = 0; n < static_cast<int>(g->graph()->nodes().size()); ++n) {
    const DiffStatus s = sideB ? view.statusOfNodeB(n) : view.statusOfNodeA(n);
    const bool painted = g->nodeItem(n)->style().fill == statusStyle(status).fill;
    if (s == status) {
      if (!painted) qWarning("node %d has status %s but another colour", n, diffStatusName(status));
      out << n;
    } else if (painted) {
      out << -1 - n; // coloured like a status it does not have: shows up as a mismatch
    }
  }
  return out;
}

} // namespace

class TestCompareView : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void artifactAgainstItself_data();
  void artifactAgainstItself();
  void oneAttributeChanged();
  void oneWeightValueChanged();
  void differentArtifacts();
  void selectionAndScrollFollow();
  void histogramByHand();
  void missingSideFails();
  void compareDialogChecksPaths();
  void compareWithLastExport();
  void runBothDenseAgainstInt4();
};

void TestCompareView::initTestCase() {
  isolateSettings(QStringLiteral("tst_compare_view"));
}

void TestCompareView::artifactAgainstItself_data() {
  QTest::addColumn<QString>("dir");
  const QDir models(QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models"));
  for (const QString& c : models.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
    QTest::newRow(qPrintable(c)) << expectedDir(c);
}

void TestCompareView::artifactAgainstItself() {
  QFETCH(QString, dir);
  CompareView view;
  QAbstractItemModelTester tester(view.differences(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(compareAndSettle(view, dir, dir));
  QVERIFY(view.diff()->equal());
  QCOMPARE(view.differences()->rowCount(), 0);
  const int nodes = static_cast<int>(view.graphA()->graph()->nodes().size());
  QCOMPARE(static_cast<int>(view.graphB()->graph()->nodes().size()), nodes);
  QList<int> all;
  for (int n = 0; n < nodes; ++n)
    all << n;
  QCOMPARE(nodesWithStatus(view, false, DiffStatus::Unchanged), all);
  QCOMPARE(nodesWithStatus(view, true, DiffStatus::Unchanged), all);
  for (int n = 0; n < nodes; ++n) {
    QCOMPARE(view.matchInB(n), n);
    QCOMPARE(view.matchInA(n), n);
  }
}

void TestCompareView::oneAttributeChanged() {
  // sparse_classifier's batch_norm (%norm_features) gets eps 0.001 instead of 0.00001.
  QTemporaryDir tmp;
  const QString copy = tmp.filePath(QStringLiteral("edited.lattice"));
  const QString original = expectedDir(QStringLiteral("sparse_classifier"));
  QVERIFY(copyDir(original, copy));
  QVERIFY(
      replaceInFile(copy + QStringLiteral("/graph.mlir"), "{eps = 0.00001 : f32}", "{eps = 0.001 : f32}"));

  CompareView view;
  QAbstractItemModelTester tester(view.differences(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(compareAndSettle(view, original, copy));
  QVERIFY(!view.diff()->equal());

  // Exactly one node changed on each side, the batch_norm, matched with each other.
  const QList<int> changedA = nodesWithStatus(view, false, DiffStatus::Changed);
  const QList<int> changedB = nodesWithStatus(view, true, DiffStatus::Changed);
  QCOMPARE(changedA.size(), 1);
  QCOMPARE(changedB.size(), 1);
  QVERIFY(changedA.front() >= 0 && changedB.front() >= 0);
  QCOMPARE(view.matchInB(changedA.front()), changedB.front());
  const OpGraphNode& node = view.graphB()->graph()->nodes()[static_cast<std::size_t>(changedB.front())];
  QCOMPARE(node.subtitle, QStringLiteral("batch_norm"));
  QCOMPARE(node.title, QStringLiteral("%norm_features"));
  QCOMPARE(nodesWithStatus(view, false, DiffStatus::Added), QList<int>());
  QCOMPARE(nodesWithStatus(view, true, DiffStatus::Removed), QList<int>());

  // The list: one op row naming eps with both values.
  QCOMPARE(view.differences()->rowCount(), 1);
  const DiffListModel::Row& row = view.differences()->rows().front();
  QCOMPARE(row.kind, DiffListModel::Kind::Op);
  QCOMPARE(row.status, DiffStatus::Changed);
  QVERIFY2(row.detail.startsWith(QStringLiteral("eps: ")), qPrintable(row.detail));
  QVERIFY(row.detail.contains(QStringLiteral("0.00001")) && row.detail.contains(QStringLiteral("0.001")));

  // Selecting the row selects the op on both sides and details it.
  view.selectDifference(0);
  QCOMPARE(view.graphA()->selectedNode(), changedA.front());
  QCOMPARE(view.graphB()->selectedNode(), changedB.front());
  QVERIFY(view.details()->toPlainText().contains(QStringLiteral("eps")));
}

void TestCompareView::oneWeightValueChanged() {
  // head.bias[0] of sparse_classifier is 0.04041541740298271 (F32); the copy stores 1.25 there.
  // Δ = [1.25 - 0.04041541740298271f, 0]: two elements, one zero, one changed.
  QTemporaryDir tmp;
  const QString copy = tmp.filePath(QStringLiteral("weights.lattice"));
  const QString original = expectedDir(QStringLiteral("sparse_classifier"));
  QVERIFY(copyDir(original, copy));
  QVERIFY(setF32(copy + QStringLiteral("/weights.safetensors"), QStringLiteral("head.bias"), 0, 1.25f));

  CompareView view;
  QVERIFY(compareAndSettle(view, original, copy));
  QCOMPARE(nodesWithStatus(view, true, DiffStatus::Changed), QList<int>()); // the graph is the same
  QCOMPARE(view.differences()->rowCount(), 1);
  const DiffListModel::Row& row = view.differences()->rows().front();
  QCOMPARE(row.kind, DiffListModel::Kind::Weight);
  QCOMPARE(row.name, QStringLiteral("head.bias"));
  const WeightDiff& w = view.diff()->weights[static_cast<std::size_t>(row.index)];
  QVERIFY(w.values);
  QCOMPARE(w.values->changedElements, 1u);

  QSignalSpy histogram(&view, &CompareView::histogramUpdated);
  view.selectDifference(0);
  QVERIFY(waitFor([&] { return !histogram.isEmpty(); }));
  const Histogram& h = view.histogram()->histogram();
  QCOMPARE(view.histogram()->key(), QStringLiteral("head.bias"));
  QCOMPARE(h.total, 2u);
  QCOMPARE(h.zeros, 1u);
  QCOMPARE(h.min, 0.0);
  QCOMPARE(h.max, static_cast<double>(1.25f - 0.04041541740298271f));
  QCOMPARE(h.counts.front(), 1u);
  QCOMPARE(h.counts.back(), 1u);
  // The weight op is selected on both sides.
  const int weightNode = view.graphB()->graph()->nodeOfStorageKey("head.bias");
  QCOMPARE(view.graphB()->selectedNode(), weightNode);
  QCOMPARE(view.graphA()->selectedNode(), view.matchInA(weightNode));
}

void TestCompareView::differentArtifacts() {
  // Two unrelated artifacts: side A only knows unchanged/changed/removed, side B only
  // unchanged/changed/added, and matches go both ways.
  CompareView view;
  QAbstractItemModelTester tester(view.differences(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(compareAndSettle(view, expectedDir(QStringLiteral("sparse_classifier")),
                           expectedDir(QStringLiteral("transpose_convolution"))));
  QVERIFY(!view.diff()->equal());
  QVERIFY(view.differences()->rowCount() > 0);
  const int na = static_cast<int>(view.graphA()->graph()->nodes().size());
  const int nb = static_cast<int>(view.graphB()->graph()->nodes().size());
  for (int n = 0; n < na; ++n) {
    QVERIFY(view.statusOfNodeA(n) != DiffStatus::Added);
    const int m = view.matchInB(n);
    QCOMPARE(m < 0, view.statusOfNodeA(n) == DiffStatus::Removed);
    if (m >= 0) QCOMPARE(view.matchInA(m), n);
  }
  for (int n = 0; n < nb; ++n) {
    QVERIFY(view.statusOfNodeB(n) != DiffStatus::Removed);
    QCOMPARE(view.matchInA(n) < 0, view.statusOfNodeB(n) == DiffStatus::Added);
  }
  // Every op row of the list selects something on its side(s).
  for (int r = 0; r < view.differences()->rowCount(); ++r) {
    const DiffListModel::Row& row = view.differences()->rows()[r];
    if (row.kind != DiffListModel::Kind::Op) continue;
    view.selectDifference(r);
    const OpDiff& op = view.diff()->ops[static_cast<std::size_t>(row.index)];
    QCOMPARE(view.graphA()->selectedNode(), view.graphA()->graph()->nodeOfOp(op.indexA));
    QCOMPARE(view.graphB()->selectedNode(), view.graphB()->graph()->nodeOfOp(op.indexB));
  }
}

void TestCompareView::selectionAndScrollFollow() {
  const QString dir = expectedDir(QStringLiteral("sparse_classifier"));
  CompareView view;
  view.resize(1400, 900);
  view.show();
  QVERIFY(compareAndSettle(view, dir, dir));
  // Clicking a box on side B selects its match on side A.
  const int last = static_cast<int>(view.graphB()->graph()->nodes().size()) - 1;
  view.graphB()->nodeItem(last)->setSelected(true);
  QCOMPARE(view.graphA()->selectedNode(), view.matchInA(last));

  // Scrolling side A (user zoom to 200% then a scroll) centres side B on the same op.
  GraphView* a = view.graphA()->view();
  GraphView* b = view.graphB()->view();
  a->setZoom(2.0);
  QCOMPARE(b->zoom(), 2.0);
  a->verticalScrollBar()->setValue(a->verticalScrollBar()->maximum());
  const int centreA = view.graphA()->nodeNearestCenter();
  QCOMPARE(view.graphB()->nodeNearestCenter(), view.matchInB(centreA));
}

void TestCompareView::histogramByHand() {
  // The binning itself is tested by hand in tst_value_summary (runtime::computeHistogram); the
  // widget shows it. All equal: one bin.
  DeltaHistogram one;
  one.setDeltas(QStringLiteral("k"), {0.0f, 0.0f, 0.0f});
  QCOMPARE(one.histogram().counts, (std::vector<std::uint64_t>{3}));
  QCOMPARE(one.histogram().zeros, 3u);
  // Nothing finite: no bins, nothing painted, no crash.
  DeltaHistogram widget;
  widget.resize(300, 150);
  widget.setDeltas(QStringLiteral("k"), {std::numeric_limits<float>::infinity()});
  QVERIFY(widget.histogram().counts.empty());
  QVERIFY(!widget.grab().isNull());
}

void TestCompareView::missingSideFails() {
  QTemporaryDir tmp;
  CompareView view;
  QSignalSpy failed(&view, &CompareView::compareFailed);
  view.compare(expectedDir(QStringLiteral("sparse_classifier")),
               tmp.filePath(QStringLiteral("absent.lattice")));
  QVERIFY(waitFor([&] { return !failed.isEmpty(); }));
  QVERIFY(failed.front().front().toString().contains(QStringLiteral("absent.lattice")));
  QVERIFY(!view.diff());
  QCOMPARE(view.differences()->rowCount(), 0);
}

void TestCompareView::compareDialogChecksPaths() {
  CompareArtifactsDialog dialog;
  QVERIFY(isArtifactPath(expectedDir(QStringLiteral("sparse_classifier"))));
  QVERIFY(!isArtifactPath(QStringLiteral(LATTICE_TEST_DATA_DIR)));
  QVERIFY(isArtifactPath(
      QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/dialect/invalid/norm_bad_eps.mlir")));
  dialog.setPaths(expectedDir(QStringLiteral("sparse_classifier")), QStringLiteral("/nowhere"));
  auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
  QVERIFY(!ok->isEnabled());
  dialog.setPaths(expectedDir(QStringLiteral("sparse_classifier")),
                  expectedDir(QStringLiteral("point_voxel")));
  QVERIFY(ok->isEnabled());
}

void TestCompareView::compareWithLastExport() {
  MainWindow window;
  QVERIFY(!window.action(QStringLiteral("tools.compareLast"))->isEnabled());
  QCOMPARE(window.lastExportComparison(), std::make_pair(QString(), QString()));
  const QString first = expectedDir(QStringLiteral("sparse_classifier"));
  const QString second = expectedDir(QStringLiteral("transpose_convolution"));
  // One export: B is it, A must be chosen.
  window.session()->recordExport(first);
  QVERIFY(window.action(QStringLiteral("tools.compareLast"))->isEnabled());
  QCOMPARE(window.lastExportComparison(), std::make_pair(QString(), first));
  // Two exports: the previous is A, the last B.
  window.session()->recordExport(second);
  QCOMPARE(window.lastExportComparison(), std::make_pair(first, second));
  // An artifact open in the current tab is A.
  const QString third = expectedDir(QStringLiteral("point_voxel"));
  window.openArtifact(third);
  QCOMPARE(window.lastExportComparison(), std::make_pair(third, second));
  CompareView* view = window.compareWithLastExport();
  QVERIFY(view);
  QCOMPARE(window.tabs()->currentWidget(), view);
  QCOMPARE(view->pathA(), third);
  QCOMPARE(view->pathB(), second);
  QSignalSpy finished(view, &CompareView::compareFinished);
  QVERIFY(waitFor([&] { return !finished.isEmpty(); }));
  QCOMPARE(window.compareViews().size(), 1);
}

void TestCompareView::runBothDenseAgainstInt4() {
  // A dense and an int4 export of SparseResNet21D, run on the same 2 000 random points.
  // Expectations: `lattice-cli diff A B --random-inputs 2000 --json` (the ops over the tolerance
  // and the first of them), and the spec: every op before the first quantized weight is used
  // computes exactly what A computes (relative L2 0), and the first divergent op is a conv.
  QTemporaryDir dir;
  const QString a = dir.filePath(QStringLiteral("dense.lattice")), b = dir.filePath(QStringLiteral("int4.lattice"));
  for (const auto& [out, extra] : {std::pair(a, QStringList()), std::pair(b, QStringList{"--quantize", "4"})}) {
    QProcess p;
    p.start(QStringLiteral(LATTICE_CLI),
            QStringList{QStringLiteral("lower"), QStringLiteral("example:sparse_resnet21d"), QStringLiteral("-o"), out} + extra);
    QVERIFY(p.waitForFinished(120000) && p.exitCode() == 0);
  }
  QProcess cli;
  cli.start(QStringLiteral(LATTICE_CLI), {QStringLiteral("diff"), a, b, QStringLiteral("--random-inputs"),
                                          QStringLiteral("2000"), QStringLiteral("--json")});
  QVERIFY(cli.waitForFinished(300000));
  const QJsonObject report = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
  QStringList cliExceeding;
  for (const QJsonValue& op : report.value(QStringLiteral("ops")).toArray())
    if (op.toObject().value(QStringLiteral("exceeds")).toBool()) cliExceeding << op.toObject().value(QStringLiteral("name")).toString();
  QVERIFY(!cliExceeding.isEmpty());

  CompareView view;
  QVERIFY(compareAndSettle(view, a, b));
  QSignalSpy ran(&view, &CompareView::runBothFinished);
  view.findChild<QPushButton*>(QStringLiteral("runBoth"))->click();
  QVERIFY(waitFor([&] { return !ran.isEmpty(); }, 300000));
  const NumericDiff* diff = view.numericDiff();
  QVERIFY(diff);
  QStringList exceeding;
  for (const NumericValueDiff& d : diff->ops)
    if (d.exceeds) exceeding << QString::fromStdString(d.name);
  QCOMPARE(exceeding, cliExceeding);
  const QJsonObject first = report.value(QStringLiteral("first_divergent")).toObject();
  QVERIFY(diff->firstDivergent >= 0);
  const NumericValueDiff& f = diff->ops[std::size_t(diff->firstDivergent)];
  QCOMPARE(QString::fromStdString(f.name), first.value(QStringLiteral("name")).toString());
  QVERIFY2(f.opName.find("conv") != std::string::npos, f.opName.c_str());
  for (int i = 0; i < diff->firstDivergent; ++i) QCOMPARE(diff->ops[std::size_t(i)].divergence.relL2, 0.0);

  // B's graph marks exactly the ops over the tolerance (heat above one half), the chart has them all.
  for (const NumericValueDiff& d : diff->ops) {
    const int node = view.graphB()->graph()->nodeOfOp(d.indexB);
    const QColor fill = view.graphB()->nodeItem(node)->style().fill;
    const double heat = errorHeat(d.problem.empty() ? d.divergence.relL2 : 1e300, diff->tolerance);
    QCOMPARE(fill, heatColor(heat));
    QCOMPARE(heat > 0.5, d.exceeds);
  }
  QCOMPARE(int(view.errorChart()->values().size()), int(diff->ops.size()));
  // First divergent op: selected in B, ringed on the chart.
  QVERIFY(view.selectFirstDivergent());
  QCOMPARE(view.graphB()->selectedNode(), view.graphB()->graph()->nodeOfOp(f.indexB));
  QCOMPARE(view.errorChart()->currentIndex(), diff->firstDivergent);
}

QTEST_MAIN(TestCompareView)
#include "tst_compare_view.moc"
