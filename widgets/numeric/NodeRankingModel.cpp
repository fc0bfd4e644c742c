// NodeRankingModel: the numeric run's per-node figures as a sortable table.

#include "numeric/NodeRankingModel.h"

#include "numeric/NumericRun.h"

#include <QColor>
#include <QLocale>
#include <QStringList>

#include <cmath>
#include <limits>

namespace lattice::studio {

namespace {

constexpr double kMissing = -std::numeric_limits<double>::max();

bool sameNodes(const std::vector<NodeFigures>& a, const std::vector<NodeFigures>& b, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    if (a[i].node != b[i].node) return false;
  return true;
}

} // namespace

NodeRankingModel::NodeRankingModel(NumericRun* run, QObject* parent)
    : QAbstractTableModel(parent), m_run(run) {
  connect(run, &NumericRun::valuesChanged, this, &NodeRankingModel::refresh);
  // A new run (its prepare job) takes the old values away: the rows go with them.
  connect(run, &NumericRun::stateChanged, this, [this] {
    if (!m_run->lowered() && !m_rows.empty()) refresh();
  });
  refresh();
}

int NodeRankingModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int NodeRankingModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

int NodeRankingModel::rowOf(const QString& node) const {
  for (std::size_t i = 0; i < m_rows.size(); ++i)
    if (m_rows[i].node == node) return static_cast<int>(i);
  return -1;
}

void NodeRankingModel::refresh() {
  std::vector<NodeFigures> rows = nodeFigures(*m_run);
  bool golden = false;
  for (const NodeFigures& f : rows)
    golden = golden || f.checked;
  m_hasGolden = golden;
  const std::size_t old = m_rows.size();
  if (old > 0 && rows.size() >= old && sameNodes(rows, m_rows, old)) {
    // Numeric stepping: the nodes already listed keep their rows, new ones are appended.
    for (std::size_t i = 0; i < old; ++i)
      m_rows[i] = std::move(rows[i]);
    Q_EMIT dataChanged(index(0, 0), index(int(old) - 1, ColumnCount - 1));
    if (rows.size() > old) {
      beginInsertRows({}, int(old), int(rows.size()) - 1);
      for (std::size_t i = old; i < rows.size(); ++i)
        m_rows.push_back(std::move(rows[i]));
      endInsertRows();
    }
    return;
  }
  if (old == 0 && rows.empty()) return;
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant NodeRankingModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const NodeFigures& f = m_rows[std::size_t(index.row())];
  const int column = index.column();
  const bool timed = f.ms >= 0.0;
  switch (role) {
  case NodeRole:
    return f.node;
  case SortRole:
    switch (column) {
    case NodeColumn:
      return f.node;
    case OpsColumn:
      return f.ops;
    case MsColumn:
      return timed ? f.ms : kMissing;
    case ShareColumn:
      return f.share >= 0.0 ? f.share : kMissing;
    case RelL2Column:
      // Not comparable is the worst; NaN sorts as infinity.
      return f.checked ? (std::isnan(f.relL2) ? std::numeric_limits<double>::infinity() : f.relL2) : kMissing;
    case PearsonColumn:
      // Smaller is worse: a missing figure sorts after every value (ascending, worst first).
      return f.checked && std::isfinite(f.pearson) ? f.pearson : std::numeric_limits<double>::max();
    }
    return {};
  case Qt::DisplayRole:
    switch (column) {
    case NodeColumn:
      return f.node;
    case OpsColumn:
      return f.ops;
    case MsColumn:
      return timed ? QLocale().toString(f.ms, 'f', 3) : QStringLiteral("—");
    case ShareColumn:
      return f.share >= 0.0 ? formatShare(f.share) : QStringLiteral("—");
    case RelL2Column:
      return f.checked ? (std::isfinite(f.relL2) ? formatFigure(f.relL2) : tr("not compared"))
                       : QStringLiteral("—");
    case PearsonColumn:
      return f.checked && std::isfinite(f.relL2) ? QLocale().toString(f.pearson, 'f', 4)
                                                 : QStringLiteral("—");
    }
    return {};
  case Qt::TextAlignmentRole:
    return column == NodeColumn ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
  case Qt::ForegroundRole:
    if ((column == RelL2Column || column == PearsonColumn) && f.exceeds) return QColor(0xc6, 0x28, 0x28);
    if ((column == RelL2Column || column == PearsonColumn) && f.byDesign)
      return knownDifferenceColor().darker(160);
    return {};
  case Qt::ToolTipRole: {
    QStringList tip{f.node};
    if (f.exceeds)
      tip << tr("Over the threshold (relative L2 %1)").arg(QLocale().toString(m_run->tolerance(), 'g', 2));
    else if (f.byDesign)
      tip << tr("Differs where torch-lattice and mlx-lattice compute different things by design");
    if (!f.problem.isEmpty()) tip << f.problem;
    return tip.join(QLatin1Char('\n'));
  }
  }
  return {};
}

QVariant NodeRankingModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
    case NodeColumn:
      return tr("Node");
    case OpsColumn:
      return tr("Ops");
    case MsColumn:
      return tr("ms");
    case ShareColumn:
      return tr("% of run");
    case RelL2Column:
      return tr("Rel. L2");
    case PearsonColumn:
      return tr("Pearson");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
    case NodeColumn:
      return tr("The FX node");
    case OpsColumn:
      return tr("Ops of the artifact the node emitted");
    case MsColumn:
      return tr("Wall time of the node's ops in the run (ms)");
    case ShareColumn:
      return tr("The node's share of the run's time");
    case RelL2Column:
      return tr("Relative L2 error of the node's value against the golden (its worst value's)");
    case PearsonColumn:
      return tr("Pearson correlation of the node's value with the golden");
    }
  }
  if (role == Qt::TextAlignmentRole)
    return section == NodeColumn ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                 : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
  return {};
}

} // namespace lattice::studio
