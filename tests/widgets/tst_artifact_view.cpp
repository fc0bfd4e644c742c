// The artifact view on the conformance artifacts. Expectations come from the
// files, never from the view: op-graph nodes and edges are counted from graph.mlir's text (one
// op per ` = lattice.` line, operands as the `%` names between the op name and its attribute
// dictionary or type), weight keys from the safetensors JSON header, and min/max/mean worked
// out by hand from the stored values listed below. Selection is checked against the line
// numbers of the ops in the text. A large exported chain (lattice-cli lower example:chain:N)
// takes the layered layout and keeps the event loop turning while it loads
// (lattice-studio-bench --artifact times a huge one).

#include "MainWindow.h"
#include "artifactview/ArtifactDiagnosticsModel.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactNodeItem.h"
#include "artifactview/ArtifactOpGraph.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/MlirTextView.h"
#include "artifactview/WeightStats.h"
#include "artifactview/WeightsTableModel.h"
#include "diff/ArtifactDiff.h"
#include "graph/EdgeItem.h"
#include "graph/GraphSearchBar.h"
#include "graph/GraphView.h"
#include "layout/ArtifactLayout.h"

#include "ArtifactViewTestSupport.h"

#include <QAbstractItemModelTester>
#include <QGraphicsScene>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

#include <algorithm>

using namespace lattice;
using namespace lattice::studio;

using namespace lattice::widgettest;

namespace {

/// First name of an op-graph node (argument name or first result).
QString firstName(const ArtifactGraph& graph, const ArtifactOpGraph& opGraph, int node) {
  const OpGraphNode& n = opGraph.nodes()[static_cast<std::size_t>(node)];
  const ArtifactFunction& fn = *graph.entry();
  if (n.isArgument()) return QString::fromStdString(fn.arguments[static_cast<std::size_t>(n.index)].name);
  return QString::fromStdString(fn.ops[static_cast<std::size_t>(n.index)].results.front().name);
}

/// Safetensors keys from the JSON header, in header order (without __metadata__).
QStringList headerKeys(const QString& file) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QByteArray bytes = f.readAll();
  quint64 length = 0;
  for (int i = 7; i >= 0; --i)
    length = (length << 8) | static_cast<unsigned char>(bytes[i]);
  const QJsonObject header = QJsonDocument::fromJson(bytes.mid(8, static_cast<int>(length))).object();
  QStringList keys = header.keys();
  keys.removeAll(QStringLiteral("__metadata__"));
  return keys;
}

int rowOfKey(const WeightsTableModel& model, const QString& key) {
  for (int r = 0; r < model.rowCount(); ++r)
    if (model.key(r) == key) return r;
  return -1;
}

} // namespace

class TestArtifactView : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void opGraphMatchesText_data();
  void opGraphMatchesText();
  void weightsTableRowsAreTheSafetensorsKeys_data();
  void weightsTableRowsAreTheSafetensorsKeys();
  void weightKeysSortNaturally();
  void weightStatisticsByHand();
  void packedWeightIsSummarisedDequantized();
  void selectionFollowsTextAndBack();
  void weightOpSelectsItsRows();
  void diagnosticsOfInvalidFile();
  void validArtifactHasNoErrors();
  void unreadableArtifactDoesNotCrash();
  void truncatedWeightsStillShowTheGraph();
  void findMarksAndWalksOps();
  void largeArtifactUsesLayeredLayout();
  void layeredLayoutRespectsRanks();
  void mainWindowOpensArtifactTabs();
};

void TestArtifactView::initTestCase() {
  isolateSettings(QStringLiteral("tst_artifact_view"));
}

void TestArtifactView::opGraphMatchesText_data() {
  QTest::addColumn<QString>("dir");
  const QStringList cases = QDir(modelsDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
  QVERIFY(!cases.isEmpty());
  for (const QString& c : cases)
    QTest::newRow(qPrintable(c)) << expectedDir(c);
}

void TestArtifactView::opGraphMatchesText() {
  QFETCH(QString, dir);
  ArtifactView view;
  view.resize(1200, 800);
  QVERIFY(openAndSettle(view, dir));
  const auto doc = view.document();
  QVERIFY2(doc->artifact, qPrintable(doc->loadError));
  const TextGraph expected = readTextGraph(readText(dir + QStringLiteral("/graph.mlir")));
  QVERIFY(!expected.ops.isEmpty());

  const ArtifactOpGraph& g = *doc->opGraph;
  QCOMPARE(g.argumentCount(), expected.arguments.size());
  QCOMPARE(g.opCount(), expected.ops.size());
  QCOMPARE(static_cast<int>(g.nodes().size()), expected.arguments.size() + expected.ops.size());
  QCOMPARE(static_cast<int>(g.edges().size()), expected.edges.size());

  QStringList actualEdges;
  for (const OpGraphEdge& e : g.edges())
    actualEdges << firstName(doc->artifact->graph, g, e.from) + QStringLiteral(" -> ") +
                       firstName(doc->artifact->graph, g, e.to);
  QStringList expectedEdges = expected.edges;
  actualEdges.sort();
  expectedEdges.sort();
  QCOMPARE(actualEdges, expectedEdges);

  // The scene shows one box per node and one curve per edge.
  int boxes = 0;
  int curves = 0;
  for (QGraphicsItem* item : view.graphView()->scene()->items()) {
    if (item->type() == ArtifactNodeItem::Type) ++boxes;
    if (item->type() == EdgeItem::Type) ++curves;
  }
  QCOMPARE(boxes, expected.arguments.size() + expected.ops.size());
  QCOMPARE(curves, expected.edges.size());
  QCOMPARE(view.graphView()->layoutMethod(), ArtifactLayoutMethod::Graphviz);
}

void TestArtifactView::weightsTableRowsAreTheSafetensorsKeys_data() {
  opGraphMatchesText_data();
}

void TestArtifactView::weightsTableRowsAreTheSafetensorsKeys() {
  QFETCH(QString, dir);
  ArtifactView view;
  QAbstractItemModelTester weightsTester(view.weightsModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester diagnosticsTester(view.diagnosticsModel(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester proxyTester(view.weightsTable()->model(),
                                       QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndSettle(view, dir));
  QStringList rows;
  for (int r = 0; r < view.weightsModel()->rowCount(); ++r)
    rows << view.weightsModel()->key(r);
  QStringList keys = headerKeys(dir + QStringLiteral("/weights.safetensors"));
  rows.sort();
  keys.sort();
  QCOMPARE(rows, keys);
  // Sorting by a column keeps every row.
  view.weightsTable()->sortByColumn(WeightsTableModel::Bytes, Qt::DescendingOrder);
  QCOMPARE(view.weightsTable()->model()->rowCount(), keys.size());
}

// Keys sort naturally, index by index.
void TestArtifactView::weightKeysSortNaturally() {
  QStringList keys{"blocks.10.weight", "blocks.2.weight", "blocks.1.bias", "blocks.1.weight", "a9", "a10", "stem"};
  std::sort(keys.begin(), keys.end(), [](const QString& a, const QString& b) {
    return WeightsTableModel::naturalSortKey(a) < WeightsTableModel::naturalSortKey(b);
  });
  QCOMPARE(keys, (QStringList{"a9", "a10", "blocks.1.bias", "blocks.1.weight", "blocks.2.weight",
                              "blocks.10.weight", "stem"}));
}

void TestArtifactView::weightStatisticsByHand() {
  ArtifactView view;
  QVERIFY(openAndSettle(view, expectedDir(QStringLiteral("sparse_classifier"))));
  const WeightsTableModel& m = *view.weightsModel();
  // stem.bias (F32 [4]) holds -0.2461371123790741, -0.33911314606666565, -0.06340440362691879,
  // -0.16248257458209991: min is the second, max the third, mean their sum / 4.
  const int row = rowOfKey(m, QStringLiteral("stem.bias"));
  QVERIFY(row >= 0);
  const std::optional<WeightStats> s = m.stats(row);
  QVERIFY(s);
  QCOMPARE(s->count, 4u);
  QCOMPARE(s->min, static_cast<double>(-0.33911314606666565f));
  QCOMPARE(s->max, static_cast<double>(-0.06340440362691879f));
  const double mean =
      (static_cast<double>(-0.2461371123790741f) + static_cast<double>(-0.33911314606666565f) +
       static_cast<double>(-0.06340440362691879f) + static_cast<double>(-0.16248257458209991f)) /
      4.0;
  QVERIFY(qAbs(s->mean - mean) < 1e-12);
  QVERIFY(!s->dequantized);
  QCOMPARE(m.data(m.index(row, WeightsTableModel::DTypeColumn)).toString(), QStringLiteral("F32"));
  QCOMPARE(m.data(m.index(row, WeightsTableModel::Shape)).toString(), QStringLiteral("[4]"));
  QCOMPARE(m.data(m.index(row, WeightsTableModel::Bytes)).toString(), QLocale().toString(16));
  QCOMPARE(m.data(m.index(row, WeightsTableModel::Min)).toString(), QStringLiteral("-0.339113"));

  // F16 decoding: stem.weight.biases of the int8 artifact is [0.39990234375, 0.300048828125,
  // 0.1500244140625, 0.25] (exact in half precision): mean 1.0999755859375 / 4.
  ArtifactView quantized;
  QVERIFY(openAndSettle(quantized, expectedDir(QStringLiteral("quantized_classifier_int8"))));
  const int biases = rowOfKey(*quantized.weightsModel(), QStringLiteral("stem.weight.biases"));
  const std::optional<WeightStats> h = quantized.weightsModel()->stats(biases);
  QVERIFY(h);
  QCOMPARE(h->min, 0.1500244140625);
  QCOMPARE(h->max, 0.39990234375);
  QCOMPARE(h->mean, 1.0999755859375 / 4);
}

void TestArtifactView::packedWeightIsSummarisedDequantized() {
  ArtifactView view;
  const QString dir = expectedDir(QStringLiteral("quantized_classifier_int8"));
  QVERIFY(openAndSettle(view, dir));
  const WeightsTableModel& m = *view.weightsModel();
  const int row = rowOfKey(m, QStringLiteral("stem.weight.weight"));
  QVERIFY(row >= 0);
  const std::optional<WeightStats> s = m.stats(row);
  QVERIFY(s);
  QVERIFY(s->dequantized);
  // The summary is of the logical weight the diff library dequantizes, not the U32 words.
  const Expected<std::vector<float>> values = weightValues(*view.document()->artifact, "stem.weight");
  QVERIFY2(values, values ? "" : values.message().c_str());
  QCOMPARE(s->count, static_cast<std::uint64_t>(values->size()));
  QCOMPARE(s->min, static_cast<double>(*std::min_element(values->begin(), values->end())));
  QVERIFY(s->max < 4.0); // a U32 word would be in the billions
  QVERIFY(m.data(m.index(row, WeightsTableModel::Min)).toString().startsWith(QStringLiteral("≈")));
}

void TestArtifactView::selectionFollowsTextAndBack() {
  ArtifactView view;
  view.resize(1200, 800);
  const QString dir = expectedDir(QStringLiteral("sparse_classifier"));
  QVERIFY(openAndSettle(view, dir));
  const TextGraph text = readTextGraph(readText(dir + QStringLiteral("/graph.mlir")));
  const auto& g = *view.document()->opGraph;
  const auto& graph = view.document()->artifact->graph;

  // Selecting the op defining %stem highlights exactly its line.
  const int stemOp = static_cast<int>(text.ops.indexOf(QStringLiteral("stem")));
  QVERIFY(stemOp >= 0);
  int stemNode = -1;
  for (int n = 0; n < static_cast<int>(g.nodes().size()); ++n)
    if (firstName(graph, g, n) == QStringLiteral("stem")) stemNode = n;
  QVERIFY(stemNode >= 0);
  view.selectNode(stemNode);
  QCOMPARE(view.mlirView()->highlightedLines(), std::make_pair(text.opLines[stemOp], text.opLines[stemOp]));
  QVERIFY(view.graphView()->nodeItem(stemNode)->isSelected());

  // Putting the cursor on the line of %head selects the linear op.
  const int headOp = static_cast<int>(text.ops.indexOf(QStringLiteral("head")));
  QSignalSpy selected(&view, &ArtifactView::nodeSelected);
  QTextCursor cursor(view.mlirView()->document()->findBlockByNumber(text.opLines[headOp] - 1));
  cursor.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, 6);
  view.mlirView()->setTextCursor(cursor);
  QCOMPARE(selected.size(), 1);
  QCOMPARE(firstName(graph, g, view.selectedNode()), QStringLiteral("head"));
  QCOMPARE(view.graphView()->selectedNode(), view.selectedNode());
  QCOMPARE(view.mlirView()->highlightedLines().first, text.opLines[headOp]);

  // Clicking a graph box selects it in the view (and its line).
  const int argNode = g.nodeOfArgument(0);
  view.graphView()->scene()->clearSelection();
  QCOMPARE(view.selectedNode(), -1);
  view.graphView()->nodeItem(argNode)->setSelected(true);
  QCOMPARE(view.selectedNode(), argNode);
  QVERIFY(view.mlirView()->highlightedLines().first > 0);
  QCOMPARE(view.mlirView()
               ->document()
               ->findBlockByNumber(view.mlirView()->highlightedLines().first - 1)
               .text()
               .trimmed()
               .section(QLatin1Char(':'), 0, 0),
           QLatin1Char('%') + text.arguments.front());

  // Arrow keys: Down from the argument goes to its consumer (sparse.make, defining %x).
  view.graphView()->view()->setFocus();
  QTest::keyClick(view.graphView()->view(), Qt::Key_Down);
  QCOMPARE(firstName(graph, g, view.selectedNode()), QStringLiteral("x"));
}

void TestArtifactView::weightOpSelectsItsRows() {
  ArtifactView view;
  QVERIFY(openAndSettle(view, expectedDir(QStringLiteral("quantized_classifier_int8"))));
  const int node = view.document()->opGraph->nodeOfStorageKey("stem.weight");
  QVERIFY(node >= 0);
  view.selectNode(node);
  QStringList selectedKeys;
  const auto* proxy = qobject_cast<QSortFilterProxyModel*>(view.weightsTable()->model());
  QVERIFY(proxy);
  for (const QModelIndex& index : view.weightsTable()->selectionModel()->selectedRows())
    selectedKeys << view.weightsModel()->key(proxy->mapToSource(index).row());
  selectedKeys.sort();
  // The packed weight is stored as three tensors (lattice-artifact-format.md sec. 13).
  QCOMPARE(selectedKeys,
           (QStringList{QStringLiteral("stem.weight.biases"), QStringLiteral("stem.weight.scales"),
                        QStringLiteral("stem.weight.weight")}));
  // And a row selects its op back.
  view.selectNode(-1);
  const int row = proxy
                      ->mapFromSource(view.weightsModel()->index(
                          rowOfKey(*view.weightsModel(), QStringLiteral("stem.weight.scales")), 0))
                      .row();
  QTest::mouseClick(view.weightsTable()->viewport(), Qt::LeftButton, {},
                    view.weightsTable()->visualRect(proxy->index(row, 0)).center());
  QCOMPARE(view.selectedNode(), node);
}

void TestArtifactView::diagnosticsOfInvalidFile() {
  // A lone .mlir from dialect/invalid: its first line says why; the view lists at least one
  // error, at a line inside the file, and underlines it.
  const QString file = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/dialect/invalid/norm_bad_eps.mlir");
  ArtifactView view;
  QAbstractItemModelTester tester(view.diagnosticsModel(),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndSettle(view, file));
  QVERIFY(view.document()->verified);
  QVERIFY(!view.document()->valid());
  QVERIFY(view.diagnosticsModel()->errorCount() >= 1);
  const int line = view.diagnosticsModel()->index(0, 0).data(ArtifactDiagnosticsModel::LineRole).toInt();
  const int lines = readText(file).count(QLatin1Char('\n'));
  QVERIFY(line >= 2 && line <= lines);
  // The line of the error names `eps` (the rule broken).
  QVERIFY(view.diagnosticsModel()
              ->index(0, ArtifactDiagnosticsModel::MessageColumn)
              .data()
              .toString()
              .contains(QStringLiteral("eps")));
  // Activating the diagnostic highlights its line.
  Q_EMIT view.diagnosticsTable()->activated(view.diagnosticsModel()->index(0, 0));
  QCOMPARE(view.mlirView()->highlightedLines(), std::make_pair(line, line));
  QCOMPARE(view.weightsModel()->rowCount(), 0); // a lone .mlir has no weights
}

void TestArtifactView::validArtifactHasNoErrors() {
  ArtifactView view;
  QVERIFY(openAndSettle(view, expectedDir(QStringLiteral("transpose_convolution"))));
  QVERIFY(view.document()->verified);
  QCOMPARE(view.diagnosticsModel()->errorCount(), 0);
  QVERIFY(view.document()->valid());
}

void TestArtifactView::unreadableArtifactDoesNotCrash() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  {
    QFile f(tmp.filePath(QStringLiteral("graph.mlir")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("module attributes { lattice.ir_version = 2 } {\n  func.func @forward( {{{\n");
  }
  ArtifactView view;
  QSignalSpy loaded(&view, &ArtifactView::documentLoaded);
  view.open(tmp.path());
  QVERIFY(waitFor([&] { return !loaded.isEmpty(); }));
  QVERIFY(!view.document()->artifact);
  QVERIFY(view.document()->loadError.contains(QStringLiteral("graph.mlir")));
  QVERIFY(view.diagnosticsModel()->errorCount() >= 1);
  QVERIFY(!view.mlirView()->toPlainText().isEmpty());
  QVERIFY(view.graphView()->scene()->items().isEmpty());

  ArtifactView missing;
  QSignalSpy missingLoaded(&missing, &ArtifactView::documentLoaded);
  missing.open(tmp.filePath(QStringLiteral("nope.lattice")));
  QVERIFY(waitFor([&] { return !missingLoaded.isEmpty(); }));
  QVERIFY(!missing.document()->artifact);
  QVERIFY(missing.diagnosticsModel()->errorCount() >= 1);
}

// An artifact whose weights.safetensors is cut short still shows its op graph (every
// argument and op of graph.mlir, counted from the text), with the weights error among the
// diagnostics (shown) and in the header, and no weights.
void TestArtifactView::truncatedWeightsStillShowTheGraph() {
  QTemporaryDir tmp;
  const QString source = expectedDir(QStringLiteral("sparse_classifier"));
  const QString dir = tmp.filePath(QStringLiteral("cut.lattice"));
  QVERIFY(QDir().mkpath(dir));
  QVERIFY(QFile::copy(source + QStringLiteral("/graph.mlir"), dir + QStringLiteral("/graph.mlir")));
  const QByteArray weights = readAll(source + QStringLiteral("/weights.safetensors"));
  QVERIFY(weights.size() > 100);
  {
    QFile f(dir + QStringLiteral("/weights.safetensors"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(weights.left(weights.size() / 2));
  }
  ArtifactView view;
  view.resize(1200, 800);
  view.show();
  QVERIFY(openAndSettle(view, dir));
  const ArtifactDocument& doc = *view.document();
  QVERIFY(!doc.artifact);
  QVERIFY2(doc.loadError.contains(QStringLiteral("weights.safetensors")), qPrintable(doc.loadError));
  QVERIFY(doc.opGraph);
  const TextGraph text = readTextGraph(readText(dir + QStringLiteral("/graph.mlir")));
  QCOMPARE(doc.opGraph->argumentCount(), int(text.arguments.size()));
  QCOMPARE(doc.opGraph->opCount(), int(text.ops.size()));
  for (int n = 0; n < int(doc.opGraph->nodes().size()); ++n)
    QVERIFY(view.graphView()->nodeItem(n));
  QCOMPARE(view.weightsModel()->rowCount(), 0);
  bool weightsError = false;
  for (int r = 0; r < view.diagnosticsModel()->rowCount(); ++r)
    for (int c = 0; c < view.diagnosticsModel()->columnCount(); ++c)
      weightsError |= view.diagnosticsModel()->index(r, c).data().toString().contains(
          QStringLiteral("weights.safetensors"));
  QVERIFY(weightsError);
  QVERIFY2(doc.loadError.contains(QStringLiteral("truncated")), qPrintable(doc.loadError));
  QVERIFY(view.diagnosticsModel()->errorCount() >= 1);
  QVERIFY(view.diagnosticsTable()->isVisibleTo(&view)); // the diagnostics tab is the one shown
  // Selecting an op still highlights its text.
  view.selectNode(doc.opGraph->nodeOfOp(0));
  QCOMPARE(view.mlirView()->highlightedLines().first, text.opLines.front());

  // graph.mlir cut in half: no graph, and the error says the file is truncated.
  const QString cutGraph = tmp.filePath(QStringLiteral("cut-graph.lattice"));
  QVERIFY(QDir().mkpath(cutGraph));
  QVERIFY(QFile::copy(source + QStringLiteral("/weights.safetensors"),
                      cutGraph + QStringLiteral("/weights.safetensors")));
  const QByteArray mlir = readAll(source + QStringLiteral("/graph.mlir"));
  {
    QFile f(cutGraph + QStringLiteral("/graph.mlir"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(mlir.left(mlir.size() / 2));
  }
  ArtifactView cut;
  QSignalSpy loaded(&cut, &ArtifactView::documentLoaded);
  cut.open(cutGraph);
  QVERIFY(waitFor([&] { return !loaded.isEmpty(); }));
  QVERIFY(!cut.document()->opGraph);
  QVERIFY2(cut.document()->loadError.contains(QStringLiteral("truncated")),
           qPrintable(cut.document()->loadError));
}

// Find in an artifact tab: the matches of a text are the nodes whose name, op or
// attributes hold it (ignoring case), marked in the graph; Enter walks them, selecting each
// everywhere; a blank text matches nothing; a reload keeps the search.
void TestArtifactView::findMarksAndWalksOps() {
  const QString dir = expectedDir(QStringLiteral("sparse_classifier"));
  ArtifactView view;
  view.resize(1200, 800);
  view.show();
  QVERIFY(openAndSettle(view, dir));
  const TextGraph text = readTextGraph(readText(dir + QStringLiteral("/graph.mlir")));
  const QStringList lines = readText(dir + QStringLiteral("/graph.mlir")).split(QLatin1Char('\n'));
  QList<int> weightLines; // every `lattice.weight` op: its line names the op
  for (int line : text.opLines)
    if (lines[line - 1].contains(QStringLiteral("= lattice.weight "))) weightLines << line;
  QVERIFY(weightLines.size() >= 2);

  view.showSearch();
  QVERIFY(view.searchBar()->isVisible());
  view.setSearchText(QStringLiteral("LATTICE.WEIGHT @")); // the op name and its symbol, any case
  QCOMPARE(int(view.searchHits().size()), weightLines.size());
  for (int i = 0; i < int(weightLines.size()); ++i) {
    view.findNext();
    QCOMPARE(view.searchIndex(), i);
    QCOMPARE(view.document()->opGraph->nodes()[std::size_t(view.selectedNode())].firstLine, weightLines[i]);
    QVERIFY(view.graphView()->nodeItem(view.selectedNode())->isSearchHit());
  }
  view.findNext(); // wraps
  QCOMPARE(view.searchIndex(), 0);
  view.findPrevious();
  QCOMPARE(view.searchIndex(), int(weightLines.size()) - 1);
  // An SSA name finds its op.
  const QString last = QLatin1Char('%') + text.ops.back();
  view.setSearchText(last);
  bool found = false;
  for (int hit : view.searchHits()) {
    const OpGraphNode& node = view.document()->opGraph->nodes()[std::size_t(hit)];
    found |= node.firstLine == text.opLines.back();
    QVERIFY(node.title.contains(last) || node.tooltip.contains(last));
  }
  QVERIFY(found);
  // A reload finds again; a blank text finds nothing and marks nothing.
  QSignalSpy loaded(&view, &ArtifactView::documentLoaded);
  view.setSearchText(QStringLiteral("lattice.weight @"));
  view.reload();
  QVERIFY(waitFor([&] { return !loaded.isEmpty(); }));
  QCOMPARE(int(view.searchHits().size()), weightLines.size());
  view.setSearchText(QStringLiteral("  "));
  QVERIFY(view.searchHits().empty());
}

void TestArtifactView::largeArtifactUsesLayeredLayout() {
  // example:chain:100 lowers to more than 800 ops: the layered layout. Reading the artifact and
  // laying it out run on workers, so the UI thread is free meanwhile: open() returns before the
  // document is read, and the document arrives before its layout is done (each result comes back
  // through the event loop, so neither can be there when the call that started it returns).
  QTemporaryDir tmp;
  const QString dir = tmp.filePath(QStringLiteral("chain.lattice"));
  QProcess cli;
  cli.start(QStringLiteral(LATTICE_CLI),
            {QStringLiteral("lower"), QStringLiteral("example:chain:100"), QStringLiteral("-o"), dir});
  QVERIFY(cli.waitForFinished(120000));
  QCOMPARE(cli.exitCode(), 0);
  const TextGraph text = readTextGraph(readText(dir + QStringLiteral("/graph.mlir")));
  QVERIFY(static_cast<std::size_t>(text.ops.size()) > kMaxGraphvizNodes);

  ArtifactView view;
  view.resize(1200, 800);
  view.show();
  QSignalSpy loaded(&view, &ArtifactView::documentLoaded);
  QSignalSpy laid(view.graphView(), &ArtifactGraphView::layoutFinished);
  bool laidOutWhenLoaded = true;
  QObject::connect(&view, &ArtifactView::documentLoaded, [&] { laidOutWhenLoaded = !laid.isEmpty(); });
  view.open(dir);
  QVERIFY(view.isLoading());
  QVERIFY(loaded.isEmpty());
  QVERIFY(waitFor([&] { return !loaded.isEmpty(); }));
  QVERIFY(!laidOutWhenLoaded);
  QVERIFY(waitFor([&] { return !laid.isEmpty(); }));
  QVERIFY(waitFor([&] { return !view.weightsModel()->isComputing(); }));
  QCOMPARE(view.graphView()->layoutMethod(), ArtifactLayoutMethod::Layered);
  QCOMPARE(view.document()->opGraph->opCount(), text.ops.size());
  QCOMPARE(static_cast<int>(view.document()->opGraph->edges().size()), text.edges.size());
  QCOMPARE(view.graphView()->edgeItemCount(), text.edges.size());
}

void TestArtifactView::layeredLayoutRespectsRanks() {
  // On sparse_classifier, forced layered: every edge points downwards within a band (consumers
  // below producers) and no two boxes overlap.
  const QString dir = expectedDir(QStringLiteral("sparse_classifier"));
  Expected<LoadedArtifact> artifact = loadArtifact(dir.toStdString());
  QVERIFY(artifact);
  const ArtifactOpGraph g(artifact->graph);
  std::vector<LayoutSize> sizes(g.nodes().size(), LayoutSize{80, 30});
  const LayoutResult r = layeredLayout(layoutGraphOf(g), sizes);
  QCOMPARE(r.nodes.size(), g.nodes().size());
  for (const OpGraphEdge& e : g.edges())
    QVERIFY(r.nodes[static_cast<std::size_t>(e.from)].cy < r.nodes[static_cast<std::size_t>(e.to)].cy);
  for (std::size_t i = 0; i < r.nodes.size(); ++i)
    for (std::size_t j = i + 1; j < r.nodes.size(); ++j)
      QVERIFY2(!r.nodes[i].rect().intersects(r.nodes[j].rect(), 0.5),
               qPrintable(QStringLiteral("nodes %1 and %2 overlap").arg(i).arg(j)));
  for (const NodeBox& n : r.nodes)
    QVERIFY(r.bounds.contains(n.rect(), 0.5));
}

void TestArtifactView::mainWindowOpensArtifactTabs() {
  MainWindow window;
  const QString dir = expectedDir(QStringLiteral("sparse_classifier"));
  QCOMPARE(window.tabs()->count(), 1);
  window.openArtifact(dir);
  QCOMPARE(window.tabs()->count(), 2);
  ArtifactView* view = window.artifactView(dir);
  QVERIFY(view);
  QCOMPARE(window.tabs()->currentWidget(), view);
  QVERIFY(waitFor([&] { return view->document() && !view->isLoading(); }));
  QVERIFY(window.recentFiles().contains(dir)); // once it validated
  window.openArtifact(dir + QLatin1Char('/')); // the same artifact: the tab is reused
  QCOMPARE(window.tabs()->count(), 2);
  QVERIFY(waitFor([&] { return view->document() && !view->isLoading(); }));
  QCOMPARE(window.currentGraphView(), view->graphView()->view());
  window.closeTab(0); // the model tab stays
  QCOMPARE(window.tabs()->count(), 2);
  window.closeTab(1);
  QCOMPARE(window.tabs()->count(), 1);
  QVERIFY(window.action(QStringLiteral("file.openArtifact"))->shortcut() ==
          QKeySequence(QStringLiteral("Ctrl+Shift+O")));
}

QTEST_MAIN(TestArtifactView)
#include "tst_artifact_view.moc"
