// RecentFiles: the list, its menu and its setting.

#include "RecentFiles.h"

#include <QMenu>
#include <QSettings>

namespace lattice::studio {

namespace {

constexpr int kMaxRecent = 10;

} // namespace

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), m_menu(menu) {
  m_recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  rebuildMenu();
}

void RecentFiles::add(const QString& reference) {
  if (reference.isEmpty()) return;
  m_recent.removeAll(reference);
  m_recent.prepend(reference);
  while (m_recent.size() > kMaxRecent)
    m_recent.removeLast();
  rebuildMenu();
  save();
}

void RecentFiles::save() const {
  QSettings().setValue(QStringLiteral("recentFiles"), m_recent);
}

void RecentFiles::rebuildMenu() {
  m_menu->clear();
  for (const QString& ref : std::as_const(m_recent))
    connect(m_menu->addAction(ref), &QAction::triggered, this, [this, ref] { Q_EMIT openRequested(ref); });
  m_menu->setEnabled(!m_recent.isEmpty());
  if (!m_recent.isEmpty()) {
    m_menu->addSeparator();
    connect(m_menu->addAction(tr("Clear Recent Files")), &QAction::triggered, this, [this] {
      m_recent.clear();
      rebuildMenu();
      save();
    });
  }
}

} // namespace lattice::studio
