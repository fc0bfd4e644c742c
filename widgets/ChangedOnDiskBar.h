#pragma once
/// \file ChangedOnDiskBar: the information bar above the main window's tabs that says the current
/// tab's files changed on disk, or that reading them again failed, with Reload and Ignore. It
/// keeps each tab's pending change and shows the current tab's; Ignore takes the files as they
/// are now for what was read (the tab's FileChangeWatcher), Reload asks the window.

#include <QFrame>
#include <QHash>
#include <QKeySequence>
#include <QStringList>

class QLabel;
class QPushButton;

namespace lattice::studio {

class StudioDocument;

class ChangedOnDiskBar : public QFrame {
  Q_OBJECT

public:
  explicit ChangedOnDiskBar(QWidget* parent = nullptr);

  /// The tab whose change the bar shows (null: hidden).
  void setCurrent(StudioDocument* tab);
  /// `tab`'s files differ from what was read (empty: back to what was read).
  void setChanged(StudioDocument* tab, const QStringList& files);
  /// Reading `tab`'s files again failed with `message`.
  void setReloadFailed(StudioDocument* tab, const QString& message);
  /// `tab` shows what is read now: its change no longer applies (also when it closes).
  void clear(StudioDocument* tab);
  /// The shortcut the Reload button's tooltip names.
  void setReloadShortcut(const QKeySequence& shortcut) { m_reloadShortcut = shortcut; }

Q_SIGNALS:
  /// Reload was clicked for the current tab.
  void reloadRequested();

private:
  void ignore();
  void refresh();

  struct DiskChange {
    QStringList files;
    QString reloadError;
  };
  QHash<StudioDocument*, DiskChange> m_changes;
  StudioDocument* m_current = nullptr;
  QKeySequence m_reloadShortcut;
  QLabel* m_text;
  QPushButton* m_reload;
};

} // namespace lattice::studio
