#pragma once
/// \file NodeRankingModel: every FX node of the numeric run with its figures, one row per node
/// (the studio's `lattice-cli run --profile` and `lattice-cli check` tables, by node): name, ops
/// emitted, time, share of the run, relative L2 error, Pearson correlation. Rows come from
/// nodeFigures() (NumericOverlay.h), the numbers the overlay colours and labels the graph with.
/// It follows the run: a new run empties it, new values refresh it (rows appended as numeric
/// stepping executes nodes, the table rebuilt otherwise). Sort through a QSortFilterProxyModel
/// on SortRole: missing figures sort after every value, in either order of the column's worst.

#include "numeric/NumericOverlay.h"

#include <QAbstractTableModel>

#include <vector>

namespace lattice::studio {

class NumericRun;

class NodeRankingModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { NodeColumn, OpsColumn, MsColumn, ShareColumn, RelL2Column, PearsonColumn, ColumnCount };
  enum Role {
    /// A number to sort by (the node's name in the first column): larger is slower / worse for
    /// every column but Pearson, where smaller is worse.
    SortRole = Qt::UserRole,
    NodeRole, ///< the row's FX node name
  };

  explicit NodeRankingModel(NumericRun* run, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  /// The row of `node`, -1 when it has none.
  int rowOf(const QString& node) const;
  const NodeFigures& figures(int row) const { return m_rows[std::size_t(row)]; }
  /// True when some row was compared with a golden (the error columns have values).
  bool hasGolden() const { return m_hasGolden; }

  /// Reads the run's figures again (what the run's signals call).
  void refresh();

private:
  NumericRun* m_run;
  std::vector<NodeFigures> m_rows;
  bool m_hasGolden = false;
};

} // namespace lattice::studio
