#pragma once
/// \file BreakpointsModel: the session's breakpoints as a table, in graph order: the node (with a
/// check box: enabled or disabled), its operation (opcode and target; a module call leads with
/// the module's class) and the module it belongs to, as the graph groups it.
/// Checking a box calls StudioSession::setBreakpointEnabled; the model follows breakpointsChanged
/// and the graph (a re-trace, a load), and marks the breakpoint the interpreter is paused on.

#include <QAbstractTableModel>
#include <QString>
#include <QStringList>

namespace lattice::studio {

class StudioSession;

class BreakpointsModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { NodeColumn, OperationColumn, ModuleColumn, ColumnCount };
  enum Role { NodeNameRole = Qt::UserRole + 1 };

  explicit BreakpointsModel(StudioSession* session, QObject* parent = nullptr);

  /// The node of each row, in row order.
  const QStringList& nodes() const { return m_rows; }
  /// The row of `nodeName`'s breakpoint, or -1.
  int rowOf(const QString& nodeName) const { return static_cast<int>(m_rows.indexOf(nodeName)); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  /// The rows again from the session: a reset when the list changed, else dataChanged.
  void refresh();
  /// The row the interpreter is paused on changed (its font).
  void updateCurrent();
  QStringList sortedBreakpoints() const;

  StudioSession* m_session;
  QStringList m_rows;
  QString m_current; ///< the breakpoint's node the interpreter is paused before, if any
};

} // namespace lattice::studio
