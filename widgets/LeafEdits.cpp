// LeafEdits: the document's undo stack, and its leaf-override commands (the session re-traces).

#include "LeafEdits.h"

#include "StudioSession.h"

#include <QUndoCommand>

namespace lattice::studio {

namespace {

QString describe(const QString& path, std::optional<bool> leaf) {
  if (!leaf) return QObject::tr("Use Tracer Default for %1").arg(path);
  return *leaf ? QObject::tr("Keep %1 as Leaf").arg(path) : QObject::tr("Inline %1").arg(path);
}

class LeafOverrideCommand : public QUndoCommand {
public:
  LeafOverrideCommand(StudioSession* session, QString path, std::optional<bool> before,
                      std::optional<bool> after)
      : QUndoCommand(describe(path, after)), m_session(session), m_path(std::move(path)), m_before(before),
        m_after(after) {}

  void redo() override { apply(m_after); }
  void undo() override { apply(m_before); }

private:
  void apply(std::optional<bool> leaf) {
    // Selected first: the graph keeps the selected module in view across the re-layout.
    m_session->selectModule(m_path);
    m_session->setLeafOverride(m_path, leaf);
  }

  StudioSession* m_session;
  QString m_path;
  std::optional<bool> m_before;
  std::optional<bool> m_after;
};

} // namespace

LeafEdits::LeafEdits(StudioSession* session) : QUndoStack(session), m_session(session) {
  setObjectName(QStringLiteral("leafEdits"));
}

LeafEdits* LeafEdits::of(StudioSession* session) {
  return static_cast<LeafEdits*>(session->undoStack());
}

std::optional<bool> LeafEdits::overrideOf(const QString& path) const {
  const auto& overrides = m_session->tracer().leafOverrides();
  const auto it = overrides.find(path.toStdString());
  return it == overrides.end() ? std::nullopt : std::optional<bool>(it->second);
}

void LeafEdits::set(const QString& path, std::optional<bool> leaf) {
  if (!m_session->model()) return;
  const std::optional<bool> before = overrideOf(path);
  if (before == leaf) return;
  push(new LeafOverrideCommand(m_session, path, before, leaf));
}

} // namespace lattice::studio
