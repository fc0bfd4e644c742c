#pragma once
/// \file DiagnosticsModel: the errors of the current session as a list: the
/// node an error stopped at (empty when none) and its message. Interpreter errors come from
/// StudioSession::interpreterFailed (the latest replaces an earlier one: the interpreter holds at
/// most one), trace errors from traceFailed, load errors from modelLoadFailed, and, once
/// watchRun() is called, runtime errors from NumericRun::failed (the op's FX node and the
/// runtime's message; the next run, or new inputs, clears it). A restart of the interpreter or a
/// new model clears the list.

#include <QAbstractTableModel>
#include <QString>
#include <QVector>

namespace lattice::studio {

class NumericRun;
class StudioSession;

class DiagnosticsModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { NodeColumn, MessageColumn, ColumnCount };
  enum Role { NodeNameRole = Qt::UserRole + 1 };

  /// One error.
  struct Diagnostic {
    enum class Source : unsigned char { Load, Trace, Interpreter, Run };
    Source source = Source::Interpreter;
    QString node;    ///< the failing FX node; empty when the error has no node
    QString message; ///< the full message (may span lines)
  };

  explicit DiagnosticsModel(StudioSession* session, QObject* parent = nullptr);

  const QVector<Diagnostic>& diagnostics() const { return m_items; }
  /// Also lists `run`'s errors (Debug ▸ Run on Inputs, numeric stepping): one at a time, removed
  /// when the run leaves its failed state.
  void watchRun(NumericRun* run);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  void add(Diagnostic diagnostic);
  void clear();
  void removeSource(Diagnostic::Source source);

  QVector<Diagnostic> m_items;
};

} // namespace lattice::studio
