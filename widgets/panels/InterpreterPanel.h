#pragma once
/// \file InterpreterPanel: the step-through debugger panel. A tool bar drives
/// the session (Start/Restart, Step, Continue, Run to Selected, Stop, Toggle Breakpoint, and
/// Inputs…, which opens the Inputs table the interpreter starts from), a
/// table (ValueTableModel) lists every executed node with its symbolic value and marks the node
/// that runs next, and a diagnostics list (DiagnosticsModel) shows errors; clicking a row in
/// either selects its node in every panel.

#include <QWidget>

class QAction;
class QLabel;
class QTableView;

namespace lattice::studio {

class DiagnosticsModel;
class StudioSession;
class ValueTableModel;

class InterpreterPanel : public QWidget {
  Q_OBJECT

public:
  explicit InterpreterPanel(StudioSession* session, QWidget* parent = nullptr);

  ValueTableModel* valueModel() const { return m_values; }
  DiagnosticsModel* diagnosticsModel() const { return m_diagnostics; }
  QTableView* valueView() const { return m_valueView; }
  QTableView* diagnosticsView() const { return m_diagnosticsView; }
  /// The state line ("paused before 'x' (3 executed)", "could not start: …").
  QString stateText() const;
  /// The panel's actions: "start", "step", "continue", "runToSelected", "stop", "breakpoint",
  /// "inputs" (showInputSpecDialog).
  QAction* action(const QString& id) const;

private:
  QAction* makeAction(const QString& id, const QString& text, const QString& tip);
  void updateState();
  void followSelection(const QString& node);
  void scrollToCurrent();

  StudioSession* m_session;
  ValueTableModel* m_values;
  DiagnosticsModel* m_diagnostics;
  QTableView* m_valueView;
  QTableView* m_diagnosticsView;
  QLabel* m_state;
  QList<QAction*> m_actions;
  bool m_syncing = false;
};

} // namespace lattice::studio
