#pragma once
/// \file LeafEdits: the document's undo stack (Edit ▸ Undo Ctrl+Z, Redo Ctrl+Shift+Z), with
/// the user's leaf decisions as its commands; input edits (SessionInputs) are commands on the
/// same stack, so one history holds every edit of the model. Views that change how a module is
/// traced (the module tree's Leaf checkbox and its context menu) call
/// LeafEdits::of(session)->set(...) instead of StudioSession::setLeafOverride. Doing, undoing or
/// redoing one selects the module first and then sets the override, so the tree, the inspector
/// and the graph (which centres on the selected module after the re-layout) show what changed.
/// The session empties the stack when another model loads; a reload of the same model keeps it.

#include <QString>
#include <QUndoStack>

#include <optional>

namespace lattice::studio {

class StudioSession;

class LeafEdits : public QUndoStack {
  Q_OBJECT

public:
  /// The session creates its stack (StudioSession::undoStack()) as one.
  explicit LeafEdits(StudioSession* session);

  /// The undo stack of `session` (its undoStack()).
  static LeafEdits* of(StudioSession* session);

  /// Sets (nullopt: clears, back to the tracer's own decision) the leaf override of the module
  /// at `path` as one undoable step. Nothing when no model is open or the override is already so.
  void set(const QString& path, std::optional<bool> leaf);

  /// The override `path` has now (nullopt: none, the tracer decides).
  std::optional<bool> overrideOf(const QString& path) const;

private:
  StudioSession* m_session;
};

} // namespace lattice::studio
