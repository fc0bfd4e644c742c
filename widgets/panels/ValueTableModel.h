#pragma once
/// \file ValueTableModel: the interpreter's environment as a table. One row per
/// executed node, in execution order, with its symbolic value (kind, channels, dtype, SSA name,
/// MLIR type), then one row for the node that runs next (or the node that failed), marked as
/// current. The first column holds the node's breakpoint (checkable). Rows are only appended
/// while the interpreter steps, so stepping through a 40k-node graph stays cheap. A value cell's
/// tooltip is valueToolTip (ValueText.h): the row's columns under their titles.

#include "ValueText.h"

#include <QAbstractTableModel>
#include <QString>
#include <QStringList>

#include <vector>

namespace lattice {
namespace fx {
class Node;
class Value;
} // namespace fx
} // namespace lattice

namespace lattice::studio {

class StudioSession;

class ValueTableModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column {
    BreakpointColumn,
    StepColumn,
    NodeColumn,
    KindColumn,
    ChannelsColumn,
    DTypeColumn,
    SsaColumn,
    TypeColumn,
    ColumnCount
  };
  enum Role {
    NodeNameRole = Qt::UserRole + 1, ///< the row's FX node name
    IsCurrentRole,                   ///< bool: the row is the next (or failed) node, not yet executed
  };

  explicit ValueTableModel(StudioSession* session, QObject* parent = nullptr);

  /// Number of executed-node rows (the current row, if any, follows them).
  int executedRows() const { return static_cast<int>(m_executed); }
  /// The row of `nodeName`; -1 when it is not listed.
  int rowOfNode(const QString& nodeName) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  void reset();
  /// Brings the rows in line with the session after steps: appends executed rows, moves the
  /// current row.
  void sync();
  void onBreakpointsChanged();
  /// The pending row's node: the next node while paused, the failed node after an error.
  QString pendingNode() const;
  const fx::Node* loweringNode(const QString& name) const;
  const fx::Value* valueOf(int row) const;

  StudioSession* m_session;
  QStringList m_names;                  ///< row → node name (executed rows, then the pending one)
  std::vector<const fx::Node*> m_nodes; ///< row → node of the lowering's graph (nullptr: direct path)
  std::size_t m_executed = 0;
  bool m_pendingFailed = false;
};

} // namespace lattice::studio
