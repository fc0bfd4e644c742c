#pragma once
/// \file RecentFiles: File ▸ Recent Files. The references opened last (models that loaded,
/// artifacts that validated), newest first and at most ten, persisted in QSettings (recentFiles)
/// as soon as they change, and the menu that lists them with Clear Recent Files.

#include <QObject>
#include <QStringList>

class QMenu;

namespace lattice::studio {

class RecentFiles : public QObject {
  Q_OBJECT

public:
  /// Fills `menu` (owned by the caller) from the saved list.
  RecentFiles(QMenu* menu, QObject* parent);

  QStringList references() const { return m_recent; }
  /// Puts `reference` first (once).
  void add(const QString& reference);
  /// Writes the list again (the window's quit).
  void save() const;

Q_SIGNALS:
  /// The user chose `reference` in the menu.
  void openRequested(const QString& reference);

private:
  void rebuildMenu();

  QMenu* m_menu;
  QStringList m_recent;
};

} // namespace lattice::studio
