#pragma once
/// \file RecentFiles: File ▸ Recent Files. The references opened last (models that loaded,
/// artifacts that validated), newest first and at most ten, persisted in QSettings (recentFiles)
/// as soon as they change, and the menu that lists them with Clear Recent Files. Beside them, the
/// places the open dialogs start from: the last directory and the last artifact (paths/...),
/// saved as soon as they change too, so a crash keeps them.

#include <QObject>
#include <QStringList>

class QMenu;

namespace lattice::studio {

class RecentFiles : public QObject {
  Q_OBJECT

public:
  /// Fills `menu` (owned by the caller) from the saved list. `artifactFallback`: the last
  /// artifact when none was saved (an export remembered elsewhere).
  RecentFiles(QMenu* menu, const QString& artifactFallback, QObject* parent);

  QStringList references() const { return m_recent; }
  /// Puts `reference` first (once).
  void add(const QString& reference);
  /// Writes the list and the places again (the window's quit).
  void save() const;

  /// Where the next file dialog starts (the home directory at first).
  QString lastDirectory() const { return m_lastDirectory; }
  void setLastDirectory(const QString& directory);
  /// The last artifact exported or opened: where File ▸ Open Artifact… starts.
  QString lastArtifact() const { return m_lastArtifact; }
  void setLastArtifact(const QString& path);

Q_SIGNALS:
  /// The user chose `reference` in the menu.
  void openRequested(const QString& reference);

private:
  void rebuildMenu();

  QMenu* m_menu;
  QStringList m_recent;
  QString m_lastDirectory;
  QString m_lastArtifact;
};

} // namespace lattice::studio
