// ArtifactView: the layout of the artifact view, its background load, and selection shared
// between the graph, the text, the weights and the diagnostics. It draws nothing itself.

#include "artifactview/ArtifactView.h"

#include "ElidedLabel.h"

#include "artifactview/ArtifactDiagnosticsModel.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactRun.h"
#include "artifactview/ArtifactStyle.h"
#include "artifactview/MlirTextView.h"
#include "artifactview/WeightsTableModel.h"
#include "diff/ArtifactDiff.h"
#include "graph/GraphSearchBar.h"
#include "graph/GraphView.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace lattice::studio {

namespace {

/// The storage key a safetensors key belongs to: itself, or without a packed suffix.
QStringList storageKeyCandidates(const QString& key) {
  QStringList out{key};
  for (const char* suffix : {".weight", ".scales", ".biases"})
    if (key.endsWith(QLatin1String(suffix))) out << key.left(key.size() - int(qstrlen(suffix)));
  return out;
}

} // namespace

ArtifactView::ArtifactView(QWidget* parent) : StudioDocument(parent) {
  m_header = new ElidedLabel(this); // a long path never widens the window
  m_header->setTextFormat(Qt::RichText);
  m_header->setContentsMargins(8, 4, 8, 4);
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* graphSide = new QWidget(this);
  m_graph = new ArtifactGraphView(graphSide);
  m_graph->setObjectName(QStringLiteral("artifactGraph"));
  m_legend = new ArtifactLegend(graphSide);
  QVector<ArtifactNodeStyle> entries;
  for (OpCategory c : legendCategories())
    entries << categoryStyle(c);
  m_legend->setEntries(entries);
  m_runBar = new ArtifactRunBar(graphSide);
  m_overlayLegend = new QLabel(graphSide);
  m_overlayLegend->setObjectName(QStringLiteral("artifactOverlayLegend"));
  m_overlayLegend->setTextFormat(Qt::RichText);
  m_overlayLegend->setContentsMargins(6, 0, 6, 0);
  m_overlayLegend->setWordWrap(true);
  m_overlayLegend->hide();
  m_searchBar = new GraphSearchBar(graphSide);
  m_searchBar->setPlaceholderText(tr("op, SSA value, type or attribute"));
  m_searchBar->hide();
  auto* graphLayout = new QVBoxLayout(graphSide);
  graphLayout->setContentsMargins(0, 0, 0, 0);
  graphLayout->setSpacing(2);
  graphLayout->addWidget(m_runBar);
  graphLayout->addWidget(m_searchBar);
  graphLayout->addWidget(m_graph, 1);
  graphLayout->addWidget(m_overlayLegend);
  graphLayout->addWidget(m_legend);

  m_mlir = new MlirTextView(this);
  m_weights = new WeightsTableModel(this);
  m_weightsProxy = new QSortFilterProxyModel(this);
  m_weightsProxy->setSourceModel(m_weights);
  m_weightsProxy->setSortRole(WeightsTableModel::SortRole);
  m_weightsTable = makeTable(this, QAbstractItemView::ExtendedSelection);
  m_weightsTable->setModel(m_weightsProxy);
  m_weightsTable->setSortingEnabled(true);
  m_weightsTable->sortByColumn(-1, Qt::AscendingOrder); // file order until the user sorts
  m_diagnostics = new ArtifactDiagnosticsModel(this);
  m_diagnosticsTable = makeTable(this, QAbstractItemView::SingleSelection);
  m_diagnosticsTable->setModel(m_diagnostics);

  m_tabs = new QTabWidget(this);
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(m_weightsTable, tr("Weights"));
  m_tabs->addTab(m_diagnosticsTable, tr("Diagnostics"));

  m_sideSplit = makeSplitPair(Qt::Vertical, QStringLiteral("artifactSideSplit"), m_mlir, m_tabs, this);
  m_split = makeSplitPair(Qt::Horizontal, QStringLiteral("artifactSplit"), graphSide, m_sideSplit, this);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(m_header);
  layout->addWidget(m_split, 1);

  persistSplitter(m_split, QStringLiteral("artifactView/split"), {650, 400});
  persistSplitter(m_sideSplit, QStringLiteral("artifactView/sideSplit"), {500, 300});

  connect(m_graph, &ArtifactGraphView::nodeSelected, this, [this](int node) {
    if (!m_syncing) selectNode(node);
  });
  connect(m_runBar, &ArtifactRunBar::finished, this, &ArtifactView::applyStyles);
  connect(m_runBar, &ArtifactRunBar::overlayChanged, this, &ArtifactView::applyStyles);
  connect(m_mlir, &MlirTextView::lineActivated, this, &ArtifactView::onLineActivated);
  connect(m_weightsTable, &QAbstractItemView::activated, this, &ArtifactView::onWeightActivated);
  connect(m_weightsTable, &QAbstractItemView::clicked, this, &ArtifactView::onWeightActivated);
  connect(m_diagnosticsTable, &QAbstractItemView::activated, this, &ArtifactView::onDiagnosticActivated);
  connect(m_diagnosticsTable, &QAbstractItemView::clicked, this, &ArtifactView::onDiagnosticActivated);
  connect(m_searchBar, &GraphSearchBar::textEdited, this, &ArtifactView::setSearchText);
  connect(m_searchBar, &GraphSearchBar::nextRequested, this, &ArtifactView::findNext);
  connect(m_searchBar, &GraphSearchBar::previousRequested, this, &ArtifactView::findPrevious);
  connect(m_searchBar, &GraphSearchBar::closed, this, [this] {
    m_searchText.clear();
    m_hits.clear();
    m_hitIndex = -1;
    m_graph->setSearchHits({});
    m_graph->view()->setFocus();
  });
  // As a tab: the window's Run on Inputs and Interrupt follow the run bar.
  connect(m_runBar, &ArtifactRunBar::runningChanged, this, &StudioDocument::capabilitiesChanged);
  connect(m_runBar, &ArtifactRunBar::finished, this, [this] {
    const ArtifactRunResult* r = m_runBar->result();
    if (r && r->cancelled)
      Q_EMIT statusMessage(tr("Run cancelled"), 15000);
    else if (r && !r->error.empty())
      Q_EMIT statusMessage(
          tr("Run failed: %1").arg(QString::fromStdString(r->error).section(QLatin1Char('\n'), 0, 0)), 15000);
  });
  connect(this, &ArtifactView::documentLoaded, this, [this] {
    if (m_document && !m_document->loadError.isEmpty())
      Q_EMIT statusMessage(tr("Artifact: %1").arg(m_document->loadError), 8000);
    Q_EMIT capabilitiesChanged();
  });
  updateHeader();
}

QString ArtifactView::title() const {
  return tr("Artifact: %1").arg(sourceName());
}

QString ArtifactView::sourceName() const {
  return QFileInfo(QDir::cleanPath(m_path)).fileName();
}

GraphView* ArtifactView::shownGraph() const {
  return m_graph->view();
}

bool ArtifactView::can(Capability capability) const {
  switch (capability) {
  case Capability::Find:
    return true;
  case Capability::Run:
    return !m_runBar->isRunning() && !m_path.isEmpty();
  case Capability::Interrupt:
    return m_runBar->isRunning();
  case Capability::Reload:
    return !m_path.isEmpty();
  case Capability::FirstDivergent:
    return false;
  }
  return false;
}

void ArtifactView::run() {
  m_runBar->run();
}

void ArtifactView::interrupt() {
  m_runBar->cancel();
}

void ArtifactView::showSearch() {
  m_searchBar->activate();
  setSearchText(m_searchBar->text());
}

void ArtifactView::setSearchText(const QString& text) {
  m_searchText = text;
  const ArtifactOpGraph* graph = m_document ? m_document->opGraph.get() : nullptr;
  m_hits = graph ? graph->search(text) : std::vector<int>();
  m_hitIndex = -1;
  m_graph->setSearchHits(m_hits);
  m_searchBar->setResult(m_hitIndex, static_cast<int>(m_hits.size()));
}

void ArtifactView::findNext() {
  if (m_hits.empty()) return;
  const int count = static_cast<int>(m_hits.size());
  m_hitIndex = (m_hitIndex + 1) % count;
  m_searchBar->setResult(m_hitIndex, count);
  selectNode(m_hits[static_cast<std::size_t>(m_hitIndex)]);
}

void ArtifactView::findPrevious() {
  if (m_hits.empty()) return;
  const int count = static_cast<int>(m_hits.size());
  m_hitIndex = (m_hitIndex - 1 + count) % count;
  m_searchBar->setResult(m_hitIndex, count);
  selectNode(m_hits[static_cast<std::size_t>(m_hitIndex)]);
}

ArtifactView::~ArtifactView() {
  m_syncing = true;
  disconnect(m_graph, nullptr, this, nullptr);
  disconnect(m_mlir, nullptr, this, nullptr);
}

void ArtifactView::open(const QString& path) {
  if (path != m_path) m_runBar->setArtifact(path); // a reload keeps the run's choices and result
  m_path = path;
  watchFiles(artifactSourceFiles(path)); // before the worker reads them
  m_loading = true;
  const quint64 generation = ++m_generation;
  updateHeader();
  auto* watcher = new QFutureWatcher<std::shared_ptr<ArtifactDocument>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    applyDocument(generation, watcher->result());
  });
  watcher->setFuture(QtConcurrent::run([path] { return readArtifactDocument(path); }));
}

void ArtifactView::reload() {
  if (m_path.isEmpty()) return;
  open(m_path);
  Q_EMIT statusMessage(tr("Reloading %1…").arg(m_path), 4000);
}

void ArtifactView::applyDocument(quint64 generation, std::shared_ptr<ArtifactDocument> document) {
  if (generation != m_generation || !document) return; // superseded
  m_loading = false;
  m_document = std::move(document);
  m_selected = -1;
  m_syncing = true;
  m_mlir->setText(m_document->mlirText);
  m_mlir->highlightLines(0, 0);
  QList<int> lines;
  for (const Diagnostic& d : m_document->diagnostics)
    if (d.loc.valid() && d.severity == Severity::Error &&
        QFileInfo(QString::fromStdString(d.file)).fileName() == QFileInfo(m_document->graphFile).fileName())
      lines << static_cast<int>(d.loc.line);
  m_mlir->setDiagnosticLines(lines);
  m_weights->setArtifact(m_document->artifact);
  m_diagnostics->setDiagnostics(m_document->diagnostics);
  m_weightsTable->resizeColumnsToContents();
  m_diagnosticsTable->resizeColumnToContents(ArtifactDiagnosticsModel::LocationColumn);
  m_diagnosticsTable->resizeColumnToContents(ArtifactDiagnosticsModel::SeverityColumn);
  m_tabs->setTabText(0, tr("Weights (%1)").arg(m_weights->rowCount()));
  const int errors = m_diagnostics->errorCount();
  m_tabs->setTabText(1, errors ? tr("Diagnostics (%1)").arg(errors) : tr("Diagnostics"));
  if (errors && !m_document->artifact) m_tabs->setCurrentIndex(1);
  if (m_document->opGraph) {
    m_graph->setGraph(m_document->opGraph, {});
    applyStyles();
  } else {
    m_graph->clear();
  }
  m_syncing = false;
  if (!m_searchText.isEmpty()) setSearchText(m_searchText); // a reload: find again
  updateHeader();
  Q_EMIT documentLoaded();
}

void ArtifactView::applyStyles() {
  const ArtifactRunResult* result = m_runBar->result();
  const ArtifactOverlay overlay = m_runBar->overlay();
  const QString legend = artifactOverlayLegend(overlay, result);
  m_overlayLegend->setText(legend);
  m_overlayLegend->setVisible(!legend.isEmpty());
  if (!m_document || !m_document->opGraph) return;
  QVector<ArtifactNodeStyle> styles;
  styles.reserve(static_cast<int>(m_document->opGraph->nodes().size()));
  for (const OpGraphNode& n : m_document->opGraph->nodes()) {
    ArtifactNodeStyle style = categoryStyle(n.category);
    const QColor heat =
        result && !n.isArgument() ? artifactOverlayColour(overlay, *result, n.index) : QColor();
    if (heat.isValid()) {
      style.fill = heat;
      style.text = Qt::black;
    }
    if (result && !n.isArgument()) setRunFigures(style, overlay, *result, n.index);
    styles << style;
  }
  m_graph->setStyles(styles);
}

void ArtifactView::updateHeader() {
  const QString name = QFileInfo(m_path).fileName().toHtmlEscaped();
  if (m_path.isEmpty()) {
    m_header->setText(tr("No artifact"));
    return;
  }
  if (m_loading || !m_document) {
    m_header->setText(tr("<b>%1</b> — reading…").arg(name));
    return;
  }
  QString verdict;
  const int errors = m_diagnostics->errorCount();
  if (!m_document->verified)
    verdict = tr("not verified");
  else if (errors == 0)
    verdict = tr("<span style='color:#2e7d32'>valid</span>");
  else
    verdict = tr("<span style='color:#c62828'>%n error(s)</span>", nullptr, errors);
  QString text = tr("<b>%1</b> &nbsp;·&nbsp; %2").arg(name, verdict);
  if (!m_document->loadError.isEmpty())
    text += QStringLiteral(" &nbsp;·&nbsp; ") + m_document->loadError.toHtmlEscaped();
  m_header->setText(text);
  m_header->setToolTip(m_path);
}

void ArtifactView::selectNode(int node) {
  const ArtifactOpGraph* graph = m_document ? m_document->opGraph.get() : nullptr;
  if (!graph || node < 0 || node >= static_cast<int>(graph->nodes().size())) node = -1;
  m_selected = node;
  m_syncing = true;
  m_graph->selectNode(node);
  if (node < 0) {
    m_mlir->highlightLines(0, 0);
    m_weightsTable->clearSelection();
  } else {
    const OpGraphNode& n = graph->nodes()[static_cast<std::size_t>(node)];
    m_mlir->highlightLines(n.firstLine, n.lastLine);
    // A weight op selects its tensors (the key, or the packed .weight/.scales/.biases).
    m_weightsTable->clearSelection();
    if (n.category == OpCategory::Weight && m_document->artifact) {
      const ArtifactOp& op = m_document->artifact->graph.entry()->ops[static_cast<std::size_t>(n.index)];
      if (const ArtifactAttribute* key = op.attribute("storage_key"); key && key->value.isString()) {
        const QString k = QString::fromStdString(key->value.text);
        QItemSelection selection;
        for (int row = 0; row < m_weights->rowCount(); ++row)
          if (storageKeyCandidates(m_weights->key(row)).contains(k)) {
            const QModelIndex left = m_weightsProxy->mapFromSource(m_weights->index(row, 0));
            const QModelIndex right =
                m_weightsProxy->mapFromSource(m_weights->index(row, WeightsTableModel::ColumnCount - 1));
            selection.select(left, right);
          }
        m_weightsTable->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
        if (!selection.isEmpty()) m_weightsTable->scrollTo(selection.indexes().front());
      }
    }
  }
  m_syncing = false;
  Q_EMIT nodeSelected(node);
}

void ArtifactView::onLineActivated(int line) {
  if (m_syncing || !m_document || !m_document->opGraph) return;
  const int node = m_document->opGraph->nodeAtLine(line);
  if (node >= 0 && node != m_selected) selectNode(node);
}

void ArtifactView::onWeightActivated(const QModelIndex& index) {
  if (m_syncing || !index.isValid() || !m_document || !m_document->opGraph) return;
  const QString key = m_weights->key(m_weightsProxy->mapToSource(index).row());
  for (const QString& candidate : storageKeyCandidates(key)) {
    const int node = m_document->opGraph->nodeOfStorageKey(candidate.toStdString());
    if (node >= 0) {
      selectNode(node);
      return;
    }
  }
}

void ArtifactView::onDiagnosticActivated(const QModelIndex& index) {
  if (m_syncing || !index.isValid()) return;
  const int line = index.data(ArtifactDiagnosticsModel::LineRole).toInt();
  if (line <= 0) return;
  const int node = m_document && m_document->opGraph ? m_document->opGraph->nodeAtLine(line) : -1;
  if (node >= 0) selectNode(node);
  m_mlir->highlightLines(line, line); // the diagnostic's own line, even inside a longer op
}

} // namespace lattice::studio
