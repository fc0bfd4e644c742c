#pragma once
/// \file LeafEdits: the user's leaf decisions as undoable edits (Edit ▸ Undo Ctrl+Z, Redo
/// Ctrl+Shift+Z). Views that change how a module is traced (the module tree's Leaf checkbox and
/// its context menu) call LeafEdits::of(session)->set(...) instead of
/// StudioSession::setLeafOverride: the change becomes a command on the session's leaf undo stack.
/// Doing, undoing or redoing one selects the module first and then sets the override, so the
/// tree, the inspector and the graph (which centres on the selected module after the re-layout)
/// show what changed. The stack is emptied when another model loads (its paths belong to the old
/// one); a reload of the same model keeps it.

#include <QString>
#include <QUndoStack>

#include <optional>

namespace lattice::studio {

class StudioSession;

class LeafEdits : public QUndoStack {
  Q_OBJECT

public:
  /// The leaf undo stack of `session`, created on first use as the session's child.
  static LeafEdits* of(StudioSession* session);

  /// Sets (nullopt: clears, back to the tracer's own decision) the leaf override of the module
  /// at `path` as one undoable step. Nothing when no model is open or the override is already so.
  void set(const QString& path, std::optional<bool> leaf);

  /// The override `path` has now (nullopt: none, the tracer decides).
  std::optional<bool> overrideOf(const QString& path) const;

private:
  explicit LeafEdits(StudioSession* session);

  StudioSession* m_session;
};

} // namespace lattice::studio
