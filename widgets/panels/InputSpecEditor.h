#pragma once
/// \file InputSpecEditor: the Inputs table, the one place where a model's
/// input specs are edited. The same widget sits in File ▸ Export Artifact… and in the Inputs
/// dialog (Debug ▸ Edit Inputs… and Run Inputs…, Inputs… in the Interpreter panel), which also
/// holds the run's input values; both edit the session's one list
/// (StudioSession::inputSpecs), which the interpreter's F5, the export and the numeric run's
/// lowering use and which is remembered per model.
///
/// A tool row over the table: Add (Insert), Remove (Delete), Move Up / Move Down (Alt+Up /
/// Alt+Down), Undo / Redo (Ctrl+Z / Ctrl+Shift+Z, while the editor has the focus) and Reset to
/// the archive's inputs. Below the table, what to do when the model has no inputs, else the
/// list as lattice-cli's `--input` arguments.

#include <QDialog>
#include <QWidget>

class QAction;
class QLabel;
class QTableView;

namespace lattice::studio {

class InputSpecModel;
class NumericRun;
class RunInputsEditor;
class StudioSession;

class InputSpecEditor : public QWidget {
  Q_OBJECT

public:
  explicit InputSpecEditor(StudioSession* session, QWidget* parent = nullptr);

  InputSpecModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }
  /// "add", "remove", "up", "down", "undo", "redo", "reset".
  QAction* action(const QString& id) const;
  /// The line under the table (the hint for a model without inputs, or the CLI arguments).
  QString hintText() const;
  /// The selected row, or -1.
  int currentRow() const;
  void setCurrentRow(int row);

private:
  QAction* makeAction(const QString& id, const QString& text, const QKeySequence& key, const QString& tip);
  void updateState();

  StudioSession* m_session;
  InputSpecModel* m_model;
  QTableView* m_view;
  QLabel* m_hint;
  QList<QAction*> m_actions;
};

/// The Inputs dialog, the one place for a model's inputs: the specs (an InputSpecEditor: what
/// the interpreter, the export and the run's lowering take) and, when the window has a numeric
/// debugger, the values Run on Inputs and numeric stepping use (a RunInputsEditor). Edits apply
/// at once; a Close button.
class InputSpecDialog : public QDialog {
  Q_OBJECT

public:
  InputSpecDialog(StudioSession* session, NumericRun* run, QWidget* parent = nullptr);
  InputSpecEditor* editor() const { return m_editor; }
  /// The values half; nullptr without a NumericRun.
  RunInputsEditor* runInputs() const { return m_runInputs; }

protected:
  /// The size it was left at is where it opens next time.
  void hideEvent(QHideEvent* event) override;

private:
  InputSpecEditor* m_editor;
  RunInputsEditor* m_runInputs = nullptr;
};

/// Shows the Inputs dialog of `parent`'s window for the session (modeless; one per window,
/// raised when it is already open; its values half serves the window's NumericRun) and returns
/// it. `values`: focus the values half (Debug ▸ Run Inputs…) rather than the specs.
InputSpecDialog* showInputSpecDialog(StudioSession* session, QWidget* parent, bool values = false);

} // namespace lattice::studio
