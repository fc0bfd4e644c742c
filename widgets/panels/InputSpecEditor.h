#pragma once
/// \file InputSpecEditor: the Inputs table (issue 18 item 5), the one place where a model's
/// input specs are edited. The same widget sits in File ▸ Export Artifact… and in the Inputs
/// dialog (Debug ▸ Edit Inputs…, Inputs… in the Interpreter panel); both edit the session's one
/// list (StudioSession::inputSpecs), which the interpreter's F5 and the export use and which is
/// remembered per model.
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

/// The Inputs dialog: an InputSpecEditor and a Close button. Edits apply at once.
class InputSpecDialog : public QDialog {
  Q_OBJECT

public:
  explicit InputSpecDialog(StudioSession* session, QWidget* parent = nullptr);
  InputSpecEditor* editor() const { return m_editor; }

private:
  InputSpecEditor* m_editor;
};

/// Shows the Inputs dialog of `parent`'s window for the session (modeless; one per window,
/// raised when it is already open) and returns it.
InputSpecDialog* showInputSpecDialog(StudioSession* session, QWidget* parent);

} // namespace lattice::studio
