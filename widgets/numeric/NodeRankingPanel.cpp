// NodeRankingPanel: the sortable table of node times and errors, synchronised with the session's
// selection.

#include "numeric/NodeRankingPanel.h"

#include "StudioSession.h"
#include "artifactview/ArtifactStyle.h"
#include "numeric/NodeRankingModel.h"
#include "numeric/NumericRun.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace lattice::studio {

NodeRankingPanel::NodeRankingPanel(StudioSession* session, NumericRun* run, QWidget* parent)
    : QWidget(parent), m_session(session), m_run(run) {
  setObjectName(QStringLiteral("nodeRankingPanel"));
  m_model = new NodeRankingModel(run, this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(NodeRankingModel::SortRole);
  m_proxy->setDynamicSortFilter(true);

  m_table = makeTable(this, QAbstractItemView::SingleSelection);
  m_table->setObjectName(QStringLiteral("nodeRankingTable"));
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(NodeRankingModel::MsColumn, Qt::DescendingOrder); // slowest first
  QHeaderView* header = m_table->horizontalHeader();
  header->setStretchLastSection(false);
  header->setSectionResizeMode(NodeRankingModel::NodeColumn, QHeaderView::Stretch);
  header->setHighlightSections(false);
  // Fixed widths from the widest text a column holds (no per-row measuring on large models).
  const QFontMetrics fm = m_table->fontMetrics();
  const int pad = fm.horizontalAdvance(QStringLiteral("MM")) + 12; // margins and the sort arrow
  const std::pair<int, QString> widths[] = {{NodeRankingModel::OpsColumn, QStringLiteral("0000")},
                                            {NodeRankingModel::MsColumn, QStringLiteral("00,000.000")},
                                            {NodeRankingModel::ShareColumn, tr("% of run")},
                                            {NodeRankingModel::RelL2Column, tr("not compared")},
                                            {NodeRankingModel::PearsonColumn, tr("Pearson")}};
  for (const auto& [column, text] : widths) {
    header->setSectionResizeMode(column, QHeaderView::Interactive);
    header->resizeSection(
        column, std::max(fm.horizontalAdvance(text),
                         fm.horizontalAdvance(
                             m_model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString())) +
                    pad);
  }
  header->setMinimumSectionSize(fm.horizontalAdvance(QStringLiteral("M")) * 3);

  m_empty = new QLabel(this);
  m_empty->setObjectName(QStringLiteral("nodeRankingEmpty"));
  m_empty->setAlignment(Qt::AlignCenter);
  m_empty->setWordWrap(true);
  m_empty->setMargin(12);
  m_empty->setForegroundRole(QPalette::PlaceholderText);

  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("nodeRankingSummary"));
  m_summary->setWordWrap(true);
  m_summary->setContentsMargins(4, 2, 4, 2);

  auto* page = new QWidget(this);
  auto* pageLayout = new QVBoxLayout(page);
  pageLayout->setContentsMargins(0, 0, 0, 0);
  pageLayout->setSpacing(2);
  pageLayout->addWidget(m_table, 1);
  pageLayout->addWidget(m_summary);
  m_stack = new QStackedWidget(this);
  m_stack->addWidget(m_empty);
  m_stack->addWidget(page);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_stack);

  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &NodeRankingPanel::onRowSelected);
  connect(m_table, &QTableView::clicked, this, &NodeRankingPanel::onRowSelected);
  connect(session, &StudioSession::selectionChanged, this,
          [this](const QString& node) { showSelectedNode(node, true); });
  connect(m_model, &QAbstractItemModel::modelReset, this, &NodeRankingPanel::refresh);
  connect(m_model, &QAbstractItemModel::rowsInserted, this, &NodeRankingPanel::refresh);
  connect(m_model, &QAbstractItemModel::dataChanged, this, &NodeRankingPanel::refresh);
  connect(run, &NumericRun::stateChanged, this, &NodeRankingPanel::refresh);
  refresh();
}

QString NodeRankingPanel::emptyText() const {
  return m_stack->currentWidget() == m_empty ? m_empty->text() : QString();
}

QString NodeRankingPanel::summaryText() const {
  return m_summary->text();
}

void NodeRankingPanel::refresh() {
  const int rows = m_model->rowCount();
  if (rows == 0) {
    m_empty->setText(m_run->isWholeRun()
                         ? tr("Running on %1…").arg(m_run->describeInputs())
                         : tr("Run on inputs (Ctrl+R) to fill this table with each node's time, "
                              "and its error when there is a golden; numeric stepping fills it "
                              "node by node."));
    m_stack->setCurrentWidget(m_empty);
    return;
  }
  m_stack->setCurrentWidget(m_table->parentWidget());
  const bool golden = m_model->hasGolden();
  m_table->setColumnHidden(NodeRankingModel::RelL2Column, !golden);
  m_table->setColumnHidden(NodeRankingModel::PearsonColumn, !golden);
  const double ms = m_run->runMs();
  QString text = rows == 1 ? tr("1 node") : tr("%1 nodes").arg(QLocale().toString(rows));
  if (ms > 0.0) text += tr(" · run %1 ms").arg(QLocale().toString(ms, 'f', 1));
  if (golden) {
    text += tr(" · errors against %1 (threshold %2)")
                .arg(m_run->goldenDescription(), QLocale().toString(m_run->tolerance(), 'g', 2));
    m_summary->setToolTip(QString());
  } else {
    text += tr(" · errors need a golden (Debug ▸ Run Inputs…)");
    m_summary->setToolTip(
        tr("Each node's relative L2 error and Pearson correlation show once the run has a "
           "golden: an archive exported with recorded activations, run on its recorded inputs, "
           "or an expected-outputs file chosen in Debug ▸ Run Inputs…"));
  }
  m_summary->setText(text);
  showSelectedNode(m_session->selectedNode(), false);
}

void NodeRankingPanel::onRowSelected() {
  if (m_syncing) return;
  const QModelIndexList rows = m_table->selectionModel()->selectedRows();
  if (rows.isEmpty()) return;
  const QString node = rows.front().data(NodeRankingModel::NodeRole).toString();
  if (!node.isEmpty() && node != m_session->selectedNode()) m_session->selectNode(node);
}

void NodeRankingPanel::showSelectedNode(const QString& node, bool scroll) {
  const int row = m_model->rowOf(node);
  m_syncing = true;
  if (row < 0) {
    m_table->selectionModel()->clearSelection();
  } else {
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
    if (scroll) m_table->scrollTo(index);
  }
  m_syncing = false;
}

} // namespace lattice::studio
