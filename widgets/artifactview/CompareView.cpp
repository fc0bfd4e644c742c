// CompareView: the background read + diff, the node status/match tables derived from the diff
// (ops through OpDiff's indices, arguments by name with ABI changes marking them changed), and
// the selection/scroll synchronisation between the two graphs and the list. It does not diff
// anything itself: core/diff does.

#include "artifactview/CompareView.h"

#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactOpGraph.h"
#include "artifactview/ArtifactStyle.h"
#include "artifactview/DiffListModel.h"
#include "charts/DataFlowChart.h"
#include "charts/DeltaHistogram.h"
#include "graph/GraphView.h"

#include <QCheckBox>
#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <unordered_map>

namespace lattice::studio {

struct CompareView::Result {
  std::shared_ptr<const LoadedArtifact> a;
  std::shared_ptr<const LoadedArtifact> b;
  std::shared_ptr<const ArtifactDiff> diff;
  std::shared_ptr<const ArtifactOpGraph> graphA;
  std::shared_ptr<const ArtifactOpGraph> graphB;
  std::vector<DiffStatus> statusA, statusB;
  std::vector<int> matchAB, matchBA, opDiffOfA, opDiffOfB;
  QString error;
};

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

std::shared_ptr<const LoadedArtifact> load(const QString& path, std::shared_ptr<const LoadedArtifact> given,
                                           QString* error) {
  if (given) return given;
  Expected<LoadedArtifact> loaded = loadArtifact(path.toStdString());
  if (!loaded) {
    *error = qs(loaded.message());
    return nullptr;
  }
  return std::make_shared<LoadedArtifact>(std::move(*loaded));
}

/// Statuses and matches of every node of both op graphs.
void matchNodes(CompareView::Result& r) {
  const ArtifactOpGraph& ga = *r.graphA;
  const ArtifactOpGraph& gb = *r.graphB;
  const auto na = ga.nodes().size();
  const auto nb = gb.nodes().size();
  r.statusA.assign(na, DiffStatus::Removed);
  r.statusB.assign(nb, DiffStatus::Added);
  r.matchAB.assign(na, -1);
  r.matchBA.assign(nb, -1);
  r.opDiffOfA.assign(na, -1);
  r.opDiffOfB.assign(nb, -1);
  for (std::size_t i = 0; i < r.diff->ops.size(); ++i) {
    const OpDiff& op = r.diff->ops[i];
    const int a = ga.nodeOfOp(op.indexA);
    const int b = gb.nodeOfOp(op.indexB);
    if (a >= 0) {
      r.statusA[static_cast<std::size_t>(a)] = op.status;
      r.opDiffOfA[static_cast<std::size_t>(a)] = static_cast<int>(i);
    }
    if (b >= 0) {
      r.statusB[static_cast<std::size_t>(b)] = op.status;
      r.opDiffOfB[static_cast<std::size_t>(b)] = static_cast<int>(i);
    }
    if (a >= 0 && b >= 0) {
      r.matchAB[static_cast<std::size_t>(a)] = b;
      r.matchBA[static_cast<std::size_t>(b)] = a;
    }
  }
  // Arguments: matched by name; an ABI change naming the input marks both sides changed.
  const ArtifactFunction* fa = r.a->graph.entry();
  const ArtifactFunction* fb = r.b->graph.entry();
  if (!fa || !fb) return;
  std::unordered_map<std::string, int> argsB;
  for (std::size_t j = 0; j < fb->arguments.size(); ++j)
    argsB.emplace(fb->arguments[j].name, static_cast<int>(j));
  for (std::size_t i = 0; i < fa->arguments.size(); ++i) {
    const std::string& name = fa->arguments[i].name;
    const auto found = argsB.find(name);
    if (found == argsB.end()) continue;
    bool changed = false;
    for (const FieldChange& c : r.diff->abi)
      if (c.field.find("'" + name + "'") != std::string::npos) changed = true;
    const int a = ga.nodeOfArgument(static_cast<int>(i));
    const int b = gb.nodeOfArgument(found->second);
    const DiffStatus s = changed ? DiffStatus::Changed : DiffStatus::Unchanged;
    r.statusA[static_cast<std::size_t>(a)] = s;
    r.statusB[static_cast<std::size_t>(b)] = s;
    r.matchAB[static_cast<std::size_t>(a)] = b;
    r.matchBA[static_cast<std::size_t>(b)] = a;
  }
}

QVector<ArtifactNodeStyle> stylesOf(const std::vector<DiffStatus>& statuses) {
  QVector<ArtifactNodeStyle> out;
  out.reserve(static_cast<int>(statuses.size()));
  for (DiffStatus s : statuses)
    out << statusStyle(s);
  return out;
}

} // namespace

CompareView::CompareView(QWidget* parent) : StudioDocument(parent) {
  m_header = new QLabel(this);
  m_header->setTextFormat(Qt::RichText);
  m_header->setContentsMargins(8, 4, 8, 2);
  m_header->setWordWrap(true);
  m_legend = new ArtifactLegend(this);
  QVector<ArtifactNodeStyle> entries;
  for (DiffStatus s : legendStatuses())
    entries << statusStyle(s);
  m_legend->setEntries(entries);
  m_legend->setContentsMargins(8, 0, 8, 0);

  m_graphA = new ArtifactGraphView(this);
  m_graphA->setObjectName(QStringLiteral("compareGraphA"));
  m_graphB = new ArtifactGraphView(this);
  m_graphB->setObjectName(QStringLiteral("compareGraphB"));
  m_graphs = makeSplitPair(Qt::Horizontal, QStringLiteral("compareGraphs"), m_graphA, m_graphB, this, false);

  m_list = new DiffListModel(this);
  m_table = makeTable(this, QAbstractItemView::SingleSelection);
  m_table->setModel(m_list);
  m_details = new QPlainTextEdit(this);
  m_details->setReadOnly(true);
  m_details->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  m_details->setPlaceholderText(tr("Select a difference or an op"));
  m_histogram = new DeltaHistogram(this);
  m_logScale = new QCheckBox(tr("Logarithmic counts"), this);
  auto* side = new QWidget(this);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  sideLayout->addWidget(m_details, 1);
  sideLayout->addWidget(m_histogram, 2);
  sideLayout->addWidget(m_logScale);
  m_bottom = makeSplitPair(Qt::Horizontal, QStringLiteral("compareBottom"), m_table, side, this);
  m_vertical = makeSplitPair(Qt::Vertical, QStringLiteral("compareVertical"), m_graphs, m_bottom, this);

  m_runBoth = new QPushButton(tr("Run Both"), this);
  m_runBoth->setObjectName(QStringLiteral("runBoth"));
  m_runBoth->setToolTip(tr("Run A and B on the same 2 000 random points and colour every op by B's error"));
  connect(m_runBoth, &QPushButton::clicked, this, [this] { runBoth(); });
  m_errorChart = new DataFlowChart(this);
  m_errorChart->setTitle(tr("B's error against A, along the data flow"));
  m_errorChart->hide();
  connect(m_errorChart, &DataFlowChart::pointClicked, this, [this](int i) {
    if (!m_numeric || i < 0 || i >= int(m_numeric->ops.size()) || !m_opGraphB) return;
    selectNode(true, m_opGraphB->nodeOfOp(m_numeric->ops[std::size_t(i)].indexB));
  });
  sideLayout->addWidget(m_errorChart, 2);
  auto* top = new QHBoxLayout;
  top->addWidget(m_header, 1);
  top->addWidget(m_runBoth);
  top->setContentsMargins(0, 0, 8, 0);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(top);
  layout->addWidget(m_legend);
  layout->addWidget(m_vertical, 1);

  // Without a saved layout: graphs get most of the height, the list most of the bottom width.
  persistSplitter(m_graphs, QStringLiteral("compareView/graphs"), {500, 500});
  persistSplitter(m_bottom, QStringLiteral("compareView/bottom"), {600, 400});
  persistSplitter(m_vertical, QStringLiteral("compareView/vertical"), {700, 300});
  m_logScale->setChecked(QSettings().value(QStringLiteral("compareView/logCounts"), true).toBool());
  m_histogram->setLogScale(m_logScale->isChecked());
  connect(m_logScale, &QCheckBox::toggled, this, [this](bool on) {
    m_histogram->setLogScale(on);
    QSettings().setValue(QStringLiteral("compareView/logCounts"), on);
  });

  connect(m_graphA, &ArtifactGraphView::nodeSelected, this, [this](int n) {
    if (!m_syncing) selectNode(false, n);
  });
  connect(m_graphB, &ArtifactGraphView::nodeSelected, this, [this](int n) {
    if (!m_syncing) selectNode(true, n);
  });
  connect(m_graphA, &ArtifactGraphView::viewportMoved, this, [this] { syncScroll(false); });
  connect(m_graphB, &ArtifactGraphView::viewportMoved, this, [this] { syncScroll(true); });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (!m_syncing && current.isValid()) onRowSelected(current.row());
          });
  // As a tab: its failures on the window's status bar; Go to First Divergent Node follows Run Both.
  connect(this, &CompareView::compareFailed, this,
          [this](const QString& message) { Q_EMIT statusMessage(tr("Compare failed: %1").arg(message), 8000); });
  connect(this, &CompareView::runBothFinished, this, &StudioDocument::capabilitiesChanged);
  connect(this, &CompareView::runBothFailed, this,
          [this](const QString& message) { Q_EMIT statusMessage(tr("Run Both failed: %1").arg(message), 8000); });
  updateHeader();
}

CompareView::~CompareView() {
  // Children die one after the other; the survivor must not hear of the first one's end.
  m_syncing = true;
  disconnect(m_graphA, nullptr, this, nullptr);
  disconnect(m_graphB, nullptr, this, nullptr);
}

QString CompareView::title() const {
  return tr("Compare: %1 ↔ %2").arg(QFileInfo(QDir::cleanPath(m_pathA)).fileName(),
                                    QFileInfo(QDir::cleanPath(m_pathB)).fileName());
}

QString CompareView::tabToolTip() const {
  return tr("A (before): %1\nB (after): %2").arg(m_pathA, m_pathB);
}

QString CompareView::sourceName() const {
  return tr("%1 ↔ %2").arg(QFileInfo(QDir::cleanPath(m_pathA)).fileName(),
                           QFileInfo(QDir::cleanPath(m_pathB)).fileName());
}

GraphView* CompareView::shownGraph() const {
  return m_graphA->view();
}

bool CompareView::can(Capability capability) const {
  switch (capability) {
  case Capability::FirstDivergent:
    return m_numeric && m_numeric->firstDivergent >= 0;
  case Capability::Reload:
    return true;
  case Capability::Find:
  case Capability::Run:
  case Capability::Interrupt:
    return false;
  }
  return false;
}

void CompareView::reload() {
  compare(m_pathA, m_pathB);
}

void CompareView::compare(const QString& pathA, const QString& pathB) {
  compare(pathA, nullptr, pathB, nullptr);
}

void CompareView::compare(const QString& pathA, std::shared_ptr<const LoadedArtifact> a, const QString& pathB,
                          std::shared_ptr<const LoadedArtifact> b) {
  watchFiles(artifactSourceFiles(pathA) + artifactSourceFiles(pathB)); // before they are read
  m_pathA = pathA;
  m_pathB = pathB;
  m_running = true;
  m_error.clear();
  const quint64 generation = ++m_generation;
  updateHeader();
  auto* watcher = new QFutureWatcher<std::shared_ptr<Result>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    applyResult(generation, watcher->result());
  });
  watcher->setFuture(QtConcurrent::run([pathA, pathB, a, b] {
    auto r = std::make_shared<Result>();
    QString error;
    r->a = load(pathA, a, &error);
    if (r->a) r->b = load(pathB, b, &error);
    if (!r->a || !r->b) {
      r->error = error;
      return r;
    }
    r->diff = std::make_shared<ArtifactDiff>(diffArtifacts(*r->a, *r->b));
    r->graphA = std::make_shared<ArtifactOpGraph>(r->a->graph);
    r->graphB = std::make_shared<ArtifactOpGraph>(r->b->graph);
    matchNodes(*r);
    return r;
  }));
}

void CompareView::applyResult(quint64 generation, const std::shared_ptr<Result>& r) {
  if (generation != m_generation || !r) return;
  m_running = false;
  m_histogram->setMessage(QString());
  m_details->clear();
  ++m_histogramGeneration;
  m_histogramRunning = false;
  if (!r->error.isEmpty()) {
    m_error = r->error;
    m_diff.reset();
    m_list->setDiff(nullptr);
    m_graphA->clear();
    m_graphB->clear();
    updateHeader();
    Q_EMIT compareFailed(m_error);
    return;
  }
  m_a = r->a;
  m_b = r->b;
  m_diff = r->diff;
  m_opGraphA = r->graphA;
  m_opGraphB = r->graphB;
  m_statusA = std::move(r->statusA);
  m_statusB = std::move(r->statusB);
  m_matchAB = std::move(r->matchAB);
  m_matchBA = std::move(r->matchBA);
  m_opDiffOfA = std::move(r->opDiffOfA);
  m_opDiffOfB = std::move(r->opDiffOfB);
  m_syncing = true;
  m_list->setDiff(m_diff);
  m_table->resizeColumnToContents(DiffListModel::KindColumn);
  m_table->resizeColumnToContents(DiffListModel::StatusColumn);
  m_table->resizeColumnToContents(DiffListModel::NameColumn);
  m_graphA->setCaption(tr("A (before): %1").arg(QFileInfo(m_pathA).fileName()));
  m_graphB->setCaption(tr("B (after): %1").arg(QFileInfo(m_pathB).fileName()));
  m_graphA->setGraph(m_opGraphA, stylesOf(m_statusA));
  m_graphB->setGraph(m_opGraphB, stylesOf(m_statusB));
  m_syncing = false;
  updateHeader();
  Q_EMIT compareFinished();
}

void CompareView::updateHeader() {
  const QString a = QFileInfo(m_pathA).fileName().toHtmlEscaped();
  const QString b = QFileInfo(m_pathB).fileName().toHtmlEscaped();
  QString text = tr("<b>A</b> %1 &nbsp;→&nbsp; <b>B</b> %2").arg(a, b);
  setToolTip(tr("A: %1\nB: %2").arg(m_pathA, m_pathB));
  if (m_running) {
    text += tr(" &nbsp;·&nbsp; comparing…");
  } else if (!m_error.isEmpty()) {
    text +=
        QStringLiteral(" &nbsp;·&nbsp; <span style='color:#c62828'>%1</span>").arg(m_error.toHtmlEscaped());
  } else if (m_diff) {
    if (m_diff->equal()) {
      text += tr(" &nbsp;·&nbsp; <span style='color:#2e7d32'>the artifacts are equal</span>");
    } else {
      text += tr(" &nbsp;·&nbsp; ops: %1 changed, %2 added, %3 removed; weights: %4 changed, %5 added, %6 "
                 "removed; %7 module attribute and %8 ABI changes")
                  .arg(m_diff->count(DiffStatus::Changed))
                  .arg(m_diff->count(DiffStatus::Added))
                  .arg(m_diff->count(DiffStatus::Removed))
                  .arg(m_diff->weightCount(DiffStatus::Changed))
                  .arg(m_diff->weightCount(DiffStatus::Added))
                  .arg(m_diff->weightCount(DiffStatus::Removed))
                  .arg(m_diff->moduleAttributes.size())
                  .arg(m_diff->abi.size());
    }
  }
  if (m_runningBoth) {
    text += tr(" &nbsp;·&nbsp; running both…");
  } else if (!m_numericError.isEmpty()) {
    text += QStringLiteral(" &nbsp;·&nbsp; <span style='color:#c62828'>Run Both: %1</span>")
                .arg(m_numericError.toHtmlEscaped());
  } else if (m_numeric) {
    if (m_numeric->firstDivergent >= 0) {
      const NumericValueDiff& f = m_numeric->ops[std::size_t(m_numeric->firstDivergent)];
      text += tr(" &nbsp;·&nbsp; ran both: first op over relative L2 %1: <b>%%2</b> (%3, %4; Ctrl+Shift+G)")
                  .arg(m_numeric->tolerance)
                  .arg(QString::fromStdString(f.name).toHtmlEscaped(), QString::fromStdString(f.opName))
                  .arg(f.divergence.relL2, 0, 'g', 3);
    } else {
      text += tr(" &nbsp;·&nbsp; ran both: every op within relative L2 %1").arg(m_numeric->tolerance);
    }
  }
  m_header->setText(text);
}

DiffStatus CompareView::statusOfNodeA(int node) const {
  return node >= 0 && node < static_cast<int>(m_statusA.size()) ? m_statusA[static_cast<std::size_t>(node)]
                                                                : DiffStatus::Unchanged;
}

DiffStatus CompareView::statusOfNodeB(int node) const {
  return node >= 0 && node < static_cast<int>(m_statusB.size()) ? m_statusB[static_cast<std::size_t>(node)]
                                                                : DiffStatus::Unchanged;
}

int CompareView::matchInB(int nodeA) const {
  return nodeA >= 0 && nodeA < static_cast<int>(m_matchAB.size()) ? m_matchAB[static_cast<std::size_t>(nodeA)]
                                                                  : -1;
}

int CompareView::matchInA(int nodeB) const {
  return nodeB >= 0 && nodeB < static_cast<int>(m_matchBA.size()) ? m_matchBA[static_cast<std::size_t>(nodeB)]
                                                                  : -1;
}

void CompareView::selectNode(bool sideB, int node) {
  if (!m_diff) return;
  const int a = sideB ? matchInA(node) : node;
  const int b = sideB ? node : matchInB(node);
  m_syncing = true;
  m_graphA->selectNode(a);
  m_graphB->selectNode(b);
  // The op's row in the list (when it differs), else clear the list's selection.
  const std::vector<int>& opOf = sideB ? m_opDiffOfB : m_opDiffOfA;
  const int opIndex =
      node >= 0 && node < static_cast<int>(opOf.size()) ? opOf[static_cast<std::size_t>(node)] : -1;
  const int row = opIndex >= 0 ? m_list->rowOfOp(opIndex) : -1;
  if (row >= 0) {
    m_table->selectRow(row);
    m_table->scrollTo(m_list->index(row, 0));
  } else {
    m_table->clearSelection();
  }
  m_syncing = false;
  if (opIndex >= 0)
    showOpDetails(opIndex);
  else if (node >= 0)
    m_details->setPlainText(
        tr("argument %1: %2")
            .arg(sideB ? m_opGraphB->nodes()[static_cast<std::size_t>(node)].title
                       : m_opGraphA->nodes()[static_cast<std::size_t>(node)].title,
                 QString::fromLatin1(diffStatusName(sideB ? statusOfNodeB(node) : statusOfNodeA(node)))));
}

void CompareView::showOpDetails(int opIndex) {
  const OpDiff& op = m_diff->ops[static_cast<std::size_t>(opIndex)];
  QStringList lines;
  lines << QStringLiteral("%1 (%2)").arg(DiffListModel::opText(op),
                                         QString::fromLatin1(diffStatusName(op.status)));
  if (op.renamed) lines << tr("matched along the data flow under a new name");
  for (const FieldChange& c : op.changes)
    lines << QStringLiteral("  ") + DiffListModel::changeText(c);
  m_details->setPlainText(lines.join(QLatin1Char('\n')));
}

void CompareView::selectDifference(int row) {
  if (row < 0 || row >= m_list->rowCount()) return;
  m_table->selectRow(row); // currentRowChanged → onRowSelected
  if (m_table->currentIndex().row() == row) onRowSelected(row);
}

void CompareView::onRowSelected(int row) {
  if (!m_diff || row < 0 || row >= m_list->rows().size()) return;
  const DiffListModel::Row& r = m_list->rows()[row];
  m_syncing = true;
  switch (r.kind) {
  case DiffListModel::Kind::Op: {
    const OpDiff& op = m_diff->ops[static_cast<std::size_t>(r.index)];
    m_graphA->selectNode(m_opGraphA->nodeOfOp(op.indexA));
    m_graphB->selectNode(m_opGraphB->nodeOfOp(op.indexB));
    m_syncing = false;
    showOpDetails(r.index);
    return;
  }
  case DiffListModel::Kind::Weight:
    m_syncing = false;
    showWeight(r.index);
    return;
  case DiffListModel::Kind::ModuleAttribute:
  case DiffListModel::Kind::Abi:
    m_details->setPlainText(r.detail);
    break;
  }
  m_syncing = false;
}

void CompareView::showWeight(int weightIndex) {
  const WeightDiff& w = m_diff->weights[static_cast<std::size_t>(weightIndex)];
  const QString key = qs(w.key);
  const std::string storage = w.key;
  m_syncing = true;
  m_graphA->selectNode(m_opGraphA->nodeOfStorageKey(storage));
  m_graphB->selectNode(m_opGraphB->nodeOfStorageKey(storage));
  m_syncing = false;
  QStringList lines{tr("weight '%1' (%2)").arg(key, QString::fromLatin1(diffStatusName(w.status)))};
  if (!w.formA.empty()) lines << tr("  A: %1").arg(qs(w.formA));
  if (!w.formB.empty()) lines << tr("  B: %1").arg(qs(w.formB));
  const QString summary = DiffListModel::weightText(w);
  if (!summary.isEmpty()) lines << QStringLiteral("  ") + summary;
  m_details->setPlainText(lines.join(QLatin1Char('\n')));

  const quint64 generation = ++m_histogramGeneration;
  if (!w.values) {
    m_histogramRunning = false;
    m_histogram->setMessage(w.note.empty()
                                ? tr("No Δ: the weight is not on both sides with the same element count")
                                : tr("No Δ: %1").arg(qs(w.note)));
    Q_EMIT histogramUpdated();
    return;
  }
  m_histogramRunning = true;
  m_histogram->setMessage(tr("Computing Δ of '%1'…").arg(key));
  struct Deltas {
    std::vector<float> values;
    QString error;
  };
  auto* watcher = new QFutureWatcher<std::shared_ptr<Deltas>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, key] {
    watcher->deleteLater();
    if (generation != m_histogramGeneration) return; // another weight was selected meanwhile
    m_histogramRunning = false;
    const std::shared_ptr<Deltas> deltas = watcher->result();
    if (deltas->error.isEmpty())
      m_histogram->setDeltas(key, deltas->values);
    else
      m_histogram->setMessage(deltas->error);
    Q_EMIT histogramUpdated();
  });
  std::shared_ptr<const LoadedArtifact> a = m_a;
  std::shared_ptr<const LoadedArtifact> b = m_b;
  watcher->setFuture(QtConcurrent::run([a, b, storage] {
    auto out = std::make_shared<Deltas>();
    Expected<std::vector<float>> deltas = weightDeltas(*a, *b, storage);
    if (deltas)
      out->values = std::move(*deltas);
    else
      out->error = qs(deltas.message());
    return out;
  }));
}

void CompareView::syncScroll(bool fromB) {
  if (m_syncing || !m_diff) return;
  ArtifactGraphView* source = fromB ? m_graphB : m_graphA;
  ArtifactGraphView* target = fromB ? m_graphA : m_graphB;
  const int node = source->nodeNearestCenter();
  const int match = fromB ? matchInA(node) : matchInB(node);
  m_syncing = true;
  const qreal zoom = source->view()->zoom();
  if (qAbs(target->view()->zoom() - zoom) > 0.01 * zoom) target->view()->setZoom(zoom);
  if (match >= 0) target->centerOnNode(match);
  m_syncing = false;
}

} // namespace lattice::studio
