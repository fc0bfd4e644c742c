// The overlays' figures: each node's time and error on its box (when the zoom lets it be read)
// and in its tooltip, and the Node Ranking dock's sortable table of them.
// Independent expectations: the runtime's per-op stats read op by op through the run's op → node
// list (not the node → ops index the studio uses), the recorded-golden check's own numbers, and
// the session's selection.

#include "ArtifactViewTestSupport.h"
#include "MainWindow.h"
#include "StudioSession.h"
#include "WidgetTestSupport.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactNodeItem.h"
#include "artifactview/ArtifactRun.h"
#include "artifactview/ArtifactView.h"
#include "graph/FigureBadge.h"
#include "graph/GraphScene.h"
#include "graph/GraphView.h"
#include "graph/GraphWidget.h"
#include "graph/NodeItem.h"
#include "numeric/NodeRankingModel.h"
#include "numeric/NodeRankingPanel.h"
#include "numeric/NumericOverlay.h"
#include "numeric/NumericRun.h"
#include "runtime/Runtime.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QGraphicsScene>
#include <QHeaderView>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest/QtTest>

#include <algorithm>
#include <map>
#include <memory>

using namespace lattice;
using namespace lattice::studio;
using namespace lattice::widgettest;

class TestOverlayFigures : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void tooltipCarriesTheRuntimeTime();
  void rankingModelSortsAndSelects();
  void newRunEmptiesTheTable();
  void steppingAppendsRows();
  void accuracyFiguresFromTheGolden();
  void figureTextFollowsTheZoom();
  void artifactOpsCarryTheirFigures();
};

namespace {

const QString kModel = QStringLiteral("example:chain:3");

/// Each node's time, summed op by op from the runtime's stats over the run's op → node list,
/// for the nodes with an op that ran.
std::map<QString, double> runtimeMsByNode(const NumericRun& run) {
  std::map<QString, double> ms;
  const LoweredRun* lowered = run.lowered();
  for (std::size_t op = 0; op < lowered->opNodes.size(); ++op) {
    const runtime::OpStats& stats = lowered->runtime.stats(static_cast<int>(op));
    if (lowered->opNodes[op].empty() || !stats.ran) continue;
    ms[QString::fromStdString(lowered->opNodes[op])] += stats.ms;
  }
  return ms;
}

/// The number after `label` in `text` ("Time: 1.234 ms" → 1.234), NaN when absent.
double numberAfter(const QString& text, const QString& label) {
  const QRegularExpression re(QRegularExpression::escape(label) + QStringLiteral("\\s*([-+0-9.eE]+)"));
  const QRegularExpressionMatch m = re.match(text);
  if (!m.hasMatch()) return qQNaN();
  bool ok = false;
  const double v = QLocale().toDouble(m.captured(1), &ok);
  return ok ? v : qQNaN();
}

/// A window with kModel laid out and run to the end on random points.
struct RunFixture {
  MainWindow window;
  NumericRun* run = window.numericRun();

  bool open(const QString& reference = kModel) {
    window.resize(1400, 900);
    window.show();
    QSignalSpy laidOut(window.graphWidget(), &GraphWidget::layoutFinished);
    if (!openAndWait(*window.session(), reference)) return false;
    return waitFor([&] { return !laidOut.isEmpty() && !window.graphWidget()->isLayoutRunning(); });
  }
  bool runToEnd() {
    run->run();
    return waitFor([&] { return !run->isRunning(); }) && run->state() == NumericRun::State::Finished;
  }
  NodeRankingPanel* panel() const {
    return window.findChild<NodeRankingPanel*>(QStringLiteral("nodeRankingPanel"));
  }
};

NumericRun::InputChoice randomPoints(qint64 points, quint64 seed) {
  NumericRun::InputChoice c;
  c.points = points;
  c.seed = seed;
  return c;
}

/// `item` alone in a scene, painted at `scale` into an image.
QImage paintAt(NodeItem* item, qreal scale) {
  QGraphicsScene scene;
  scene.addItem(item);
  const QRectF source = item->sceneBoundingRect().adjusted(-4, -4, 4, 4);
  QImage image((source.size() * scale).toSize() + QSize(2, 2), QImage::Format_ARGB32);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    scene.render(&painter, QRectF(QPointF(0, 0), source.size() * scale), source);
  }
  scene.removeItem(item);
  return image;
}

} // namespace

void TestOverlayFigures::initTestCase() {
  isolateSettings(QStringLiteral("tst_overlay_figures"));
}

void TestOverlayFigures::tooltipCarriesTheRuntimeTime() {
  RunFixture f;
  QVERIFY(f.open());
  f.run->setInputChoice(randomPoints(4000, 3));
  QVERIFY(f.runToEnd());
  f.window.action(QStringLiteral("view.overlayTime"))->trigger();

  const std::map<QString, double> expected = runtimeMsByNode(*f.run);
  QVERIFY(expected.size() >= 9); // three blocks of conv, norm, activation
  GraphWidget* graph = f.window.graphWidget();
  int checked = 0;
  for (const auto& [node, ms] : expected) {
    NodeItem* item = graph->scene()->nodeItem(node);
    QVERIFY2(item, qPrintable(node));
    const QString tip = graph->toolTipFor(item);     // what the view shows on hover
    QVERIFY2(tip.startsWith(node), qPrintable(tip)); // the label stays first
    const double shown = numberAfter(tip, QStringLiteral("Time:"));
    QVERIFY2(std::abs(shown - ms) <= 0.0005 + 1e-9,
             qPrintable(QStringLiteral("%1: tooltip %2, runtime %3").arg(node, tip).arg(ms)));
    // The box shows the same time under the time overlay.
    QVERIFY2(item->figureText().contains(QStringLiteral(" ms")), qPrintable(item->figureText()));
    ++checked;
  }
  QCOMPARE(checked, int(expected.size()));
  // A node that emitted no op (the output) has no figure.
  NodeItem* output = graph->scene()->nodeItem(QStringLiteral("output"));
  QVERIFY(output);
  QVERIFY(output->figureText().isEmpty());

  // A module group stands for the total time of its nodes.
  const QHash<QString, OverlayFigure> figures = overlayFigures(OverlayMode::Time, *f.run, graph->grouping());
  double block0 = 0.0;
  for (const auto& [name, ms] : expected)
    if (name.startsWith(QStringLiteral("blocks_0_"))) block0 += ms;
  const OverlayFigure group = figures.value(QStringLiteral("blocks.0"));
  QVERIFY2(std::abs(numberAfter(group.detail, QStringLiteral("Time:")) - block0) <= 0.0005 + 1e-9,
           qPrintable(group.detail));
  QVERIFY2(group.text.contains(QStringLiteral(" ms")), qPrintable(group.text));

  // Without an overlay the boxes show no figure, and the tooltip still carries the time.
  f.window.action(QStringLiteral("view.overlayNone"))->trigger();
  const QString node = expected.begin()->first;
  NodeItem* item = graph->scene()->nodeItem(node);
  QVERIFY(item->figureText().isEmpty());
  QVERIFY(std::abs(numberAfter(graph->toolTipFor(item), QStringLiteral("Time:")) -
                   expected.begin()->second) <= 0.0005 + 1e-9);
}

void TestOverlayFigures::rankingModelSortsAndSelects() {
  RunFixture f;
  QVERIFY(f.open());
  NodeRankingPanel* panel = f.panel();
  QVERIFY(panel);
  QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester proxyTester(panel->proxy(),
                                       QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY2(panel->emptyText().contains(QStringLiteral("Ctrl+R")), qPrintable(panel->emptyText()));
  f.run->setInputChoice(randomPoints(4000, 5));
  QVERIFY(f.runToEnd());
  QVERIFY(panel->emptyText().isEmpty());

  // One row per node whose ops ran, with the runtime's time.
  const std::map<QString, double> expected = runtimeMsByNode(*f.run);
  NodeRankingModel* model = panel->model();
  QCOMPARE(model->rowCount(), int(expected.size()));
  double total = 0.0;
  for (const auto& entry : expected)
    total += entry.second;
  for (int row = 0; row < model->rowCount(); ++row) {
    const QString node = model->index(row, 0).data(NodeRankingModel::NodeRole).toString();
    QVERIFY2(expected.count(node), qPrintable(node));
    QCOMPARE(model->index(row, NodeRankingModel::MsColumn).data(NodeRankingModel::SortRole).toDouble(),
             expected.at(node));
    QVERIFY(
        qAbs(model->index(row, NodeRankingModel::ShareColumn).data(NodeRankingModel::SortRole).toDouble() -
             expected.at(node) / total) < 1e-9);
  }
  QVERIFY(!panel->table()->isColumnHidden(NodeRankingModel::MsColumn));
  QVERIFY(panel->table()->isColumnHidden(NodeRankingModel::RelL2Column)); // no golden for an example

  // Clicking the Ops header sorts by it; clicking ms (twice if need be) puts the slowest first.
  QTableView* table = panel->table();
  QHeaderView* header = table->horizontalHeader();
  auto clickHeader = [&](int column) {
    const int x = header->sectionViewportPosition(column) + header->sectionSize(column) / 2;
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, header->height() / 2));
  };
  clickHeader(NodeRankingModel::OpsColumn);
  QCOMPARE(header->sortIndicatorSection(), int(NodeRankingModel::OpsColumn));
  clickHeader(NodeRankingModel::MsColumn);
  if (header->sortIndicatorOrder() != Qt::DescendingOrder) clickHeader(NodeRankingModel::MsColumn);
  QCOMPARE(header->sortIndicatorSection(), int(NodeRankingModel::MsColumn));
  QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
  QSortFilterProxyModel* proxy = panel->proxy();
  const auto slowest = std::max_element(expected.begin(), expected.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  QCOMPARE(proxy->index(0, NodeRankingModel::MsColumn).data(NodeRankingModel::SortRole).toDouble(),
           slowest->second);
  double previous = slowest->second;
  for (int row = 0; row < proxy->rowCount(); ++row) {
    const QString node = proxy->index(row, 0).data(NodeRankingModel::NodeRole).toString();
    QVERIFY(expected.at(node) <= previous);
    previous = expected.at(node);
  }

  // Selecting a row selects its node in the session and on the graph; selecting a node
  // elsewhere selects its row.
  const QModelIndex third = proxy->index(2, NodeRankingModel::NodeColumn);
  const QString node = third.data(NodeRankingModel::NodeRole).toString();
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(third).center());
  QCOMPARE(f.window.session()->selectedNode(), node);
  QVERIFY(f.window.graphWidget()->scene()->nodeItem(node)->isSelected());
  const QString other = proxy->index(0, 0).data(NodeRankingModel::NodeRole).toString();
  f.window.session()->selectNode(other);
  const QModelIndexList selected = table->selectionModel()->selectedRows();
  QCOMPARE(selected.size(), 1);
  QCOMPARE(selected.front().data(NodeRankingModel::NodeRole).toString(), other);
}

void TestOverlayFigures::newRunEmptiesTheTable() {
  RunFixture f;
  QVERIFY(f.open());
  NodeRankingPanel* panel = f.panel();
  QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  f.run->setInputChoice(randomPoints(2000, 1));
  QVERIFY(f.runToEnd());
  const int rows = panel->model()->rowCount();
  QVERIFY(rows > 0);
  QSignalSpy reset(panel->model(), &QAbstractItemModel::modelReset);
  f.run->run(); // a new run drops the old values: the rows go at once
  QCOMPARE(panel->model()->rowCount(), 0);
  QVERIFY(!reset.isEmpty());
  QVERIFY(!panel->emptyText().isEmpty());
  QVERIFY(waitFor([&] { return !f.run->isRunning(); }));
  QCOMPARE(panel->model()->rowCount(), rows);
}

void TestOverlayFigures::steppingAppendsRows() {
  // Numeric stepping runs each stepped node's ops: its row is appended, the others kept.
  RunFixture f;
  QVERIFY(f.open());
  NodeRankingPanel* panel = f.panel();
  NodeRankingModel* model = panel->model();
  QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  f.run->setInputChoice(randomPoints(2000, 1));
  f.run->setStepping(true);
  StudioSession* session = f.window.session();
  session->startInterpreter();
  QList<int> counts;
  std::unique_ptr<QSignalSpy> reset;
  for (int i = 0; i < 5; ++i) {
    session->step();
    QVERIFY(waitFor([&] { return !f.run->isRunning() && !f.run->hasJobsInFlight(); }));
    counts << model->rowCount();
    if (!reset && model->rowCount() > 0)
      reset = std::make_unique<QSignalSpy>(model, &QAbstractItemModel::modelReset);
  }
  QVERIFY(reset);
  QVERIFY2(reset->isEmpty(), "rows were rebuilt instead of appended");
  QVERIFY2(counts.back() > counts.front() && std::is_sorted(counts.begin(), counts.end()),
           qPrintable(QString::number(counts.back())));
  // Each row is a node the interpreter executed.
  for (int row = 0; row < model->rowCount(); ++row)
    QVERIFY(
        session->executedNodes().contains(model->index(row, 0).data(NodeRankingModel::NodeRole).toString()));
}

void TestOverlayFigures::accuracyFiguresFromTheGolden() {
  // An archive the real torch-lattice recorded: every node checked against its activation.
  RunFixture f;
  QVERIFY(f.open(QStringLiteral(LATTICE_TEST_DATA_DIR "/real-torch-lattice/transposed.ltfx")));
  QCOMPARE(f.run->inputChoice().source, NumericRun::InputSource::Recorded);
  QVERIFY(f.runToEnd());
  const RecordingCheck* check = f.run->recordingCheck();
  QVERIFY(check && !check->nodes.empty());
  f.window.action(QStringLiteral("view.overlayAccuracy"))->trigger();
  GraphWidget* graph = f.window.graphWidget();
  NodeRankingPanel* panel = f.panel();
  QVERIFY(!panel->table()->isColumnHidden(NodeRankingModel::RelL2Column));
  int compared = 0;
  for (const NodeCheck& c : check->nodes) {
    if (!c.compared()) continue;
    const QString node = QString::fromStdString(c.ref.node);
    NodeItem* item = graph->scene()->itemForNode(node);
    QVERIFY2(item, qPrintable(node));
    if (item->key() != node) continue; // hidden in a collapsed group
    const QString tip = graph->toolTipFor(item);
    const double relL2 = numberAfter(tip, QStringLiteral("recorded activations:"));
    const double pearson = numberAfter(tip, QStringLiteral("Pearson"));
    // Shown to 3 significant digits and 4 decimals.
    QVERIFY2(std::abs(relL2 - c.divergence.relL2) <= 0.005 * std::abs(c.divergence.relL2) + 1e-300,
             qPrintable(QStringLiteral("%1 vs %2").arg(tip).arg(c.divergence.relL2)));
    QVERIFY2(std::abs(pearson - c.divergence.pearson) <= 5e-5, qPrintable(tip));
    QVERIFY2(item->figureText().startsWith(QStringLiteral("L2 ")), qPrintable(item->figureText()));
    const int row = panel->model()->rowOf(node);
    QVERIFY(row >= 0);
    QCOMPARE(
        panel->model()->index(row, NodeRankingModel::RelL2Column).data(NodeRankingModel::SortRole).toDouble(),
        c.shownError());
    ++compared;
  }
  QVERIFY(compared > 0);
}

void TestOverlayFigures::figureTextFollowsTheZoom() {
  const NodeLabel label{QStringLiteral("blocks_0_0"), QStringLiteral("SubmConv3d")};
  auto makeItem = [&](const QString& figure) {
    auto* item = new NodeItem(QStringLiteral("blocks_0_0"), NodeRole::LatticeModule, label,
                              NodeItem::preferredSize(label));
    item->setHeat(heatColor(0.8));
    item->setFigure(figure, QStringLiteral("Time: 1.000 ms"));
    return item;
  };
  std::unique_ptr<NodeItem> none(makeItem(QString()));
  std::unique_ptr<NodeItem> a(makeItem(QStringLiteral("1.23 ms · 45%")));
  std::unique_ptr<NodeItem> b(makeItem(QStringLiteral("9.87 ms · 12%")));
  // The badge reaches beyond the box: the item's bounds grow with it.
  QVERIFY(a->boundingRect().bottom() > none->boundingRect().bottom());
  // At 100% the two figures paint differently (the text is there).
  QVERIFY(figureReadable(1.0));
  QVERIFY(paintAt(a.get(), 1.0) != paintAt(b.get(), 1.0));
  // Far out the text would be unreadable: no badge, the box paints as without a figure.
  const qreal tiny = 0.2;
  QVERIFY(!figureReadable(tiny));
  const QImage withoutFigure = paintAt(none.get(), tiny);
  const QImage smallA = paintAt(a.get(), tiny);
  // Same box, larger bounds: compare the box's area, which sits at the same place in both.
  const QRect boxArea(QPoint(0, 0), QSize(withoutFigure.width(), withoutFigure.height()));
  QCOMPARE(smallA.copy(boxArea), withoutFigure);
  QCOMPARE(paintAt(b.get(), tiny), smallA);
  // The tooltip carries the figure at any zoom.
  QVERIFY(a->toolTip().endsWith(QStringLiteral("Time: 1.000 ms")));
  QVERIFY(a->toolTip().startsWith(QStringLiteral("blocks_0_0\nSubmConv3d")));
}

void TestOverlayFigures::artifactOpsCarryTheirFigures() {
  // A conformance case run by the artifact tab's run bar against its expected outputs.
  ArtifactView view;
  QVERIFY(openAndSettle(view, expectedDir(QStringLiteral("sparse_classifier"))));
  ArtifactRunBar* bar = view.runBar();
  bar->setOverlay(ArtifactOverlay::Time);
  bar->run();
  QVERIFY(waitFor([&] { return !bar->isRunning(); }));
  const ArtifactRunResult* result = bar->result();
  QVERIFY(result && result->error.empty() && result->hasGolden());
  const ArtifactOpGraph& graph = *view.document()->opGraph;
  int timed = 0;
  for (std::size_t op = 0; op < result->opMs.size(); ++op) {
    ArtifactNodeItem* item = view.graphView()->nodeItem(graph.nodeOfOp(int(op)));
    QVERIFY(item);
    const double shown = numberAfter(item->toolTip(), QStringLiteral("Time:"));
    QVERIFY2(std::abs(shown - result->opMs[op]) <= 0.0005 + 1e-9, qPrintable(item->toolTip()));
    QVERIFY2(item->style().figure.contains(QStringLiteral(" ms")), qPrintable(item->style().figure));
    ++timed;
  }
  QVERIFY(timed > 0);
  // Accuracy: the ops that make the outputs show their error against the expected file.
  bar->setOverlay(ArtifactOverlay::Accuracy);
  for (std::size_t i = 0; i < result->checks.size(); ++i) {
    if (result->checkOps[i] < 0) continue;
    ArtifactNodeItem* item = view.graphView()->nodeItem(graph.nodeOfOp(result->checkOps[i]));
    const double relL2 = numberAfter(item->toolTip(), QStringLiteral("relative L2"));
    const double expected = result->checks[i].divergence.relL2;
    QVERIFY2(std::abs(relL2 - expected) <= 0.005 * std::abs(expected), qPrintable(item->toolTip()));
    QVERIFY2(item->style().figure.startsWith(QStringLiteral("L2 ")), qPrintable(item->style().figure));
  }
  // Op categories: no figure on the boxes, the time still in the tooltip.
  bar->setOverlay(ArtifactOverlay::Categories);
  ArtifactNodeItem* first = view.graphView()->nodeItem(graph.nodeOfOp(0));
  QVERIFY(first->style().figure.isEmpty());
  QVERIFY(first->toolTip().contains(QStringLiteral("Time: ")));
}

QTEST_MAIN(TestOverlayFigures)
#include "tst_overlay_figures.moc"
