// RecentFiles: the list, its menu and its setting; the last places.

#include "RecentFiles.h"

#include <QDir>
#include <QMenu>
#include <QSettings>

namespace lattice::studio {

namespace {

constexpr int kMaxRecent = 10;

} // namespace

RecentFiles::RecentFiles(QMenu* menu, const QString& artifactFallback, QObject* parent)
    : QObject(parent), m_menu(menu) {
  const QSettings s;
  m_recent = s.value(QStringLiteral("recentFiles")).toStringList();
  m_lastDirectory = s.value(QStringLiteral("paths/lastDirectory"), QDir::homePath()).toString();
  m_lastArtifact = s.value(QStringLiteral("paths/lastArtifact"), artifactFallback).toString();
  rebuildMenu();
}

void RecentFiles::setLastDirectory(const QString& directory) {
  m_lastDirectory = directory;
  QSettings().setValue(QStringLiteral("paths/lastDirectory"), directory);
}

void RecentFiles::setLastArtifact(const QString& path) {
  m_lastArtifact = path;
  QSettings().setValue(QStringLiteral("paths/lastArtifact"), path);
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
  QSettings s;
  s.setValue(QStringLiteral("recentFiles"), m_recent);
  s.setValue(QStringLiteral("paths/lastDirectory"), m_lastDirectory);
  s.setValue(QStringLiteral("paths/lastArtifact"), m_lastArtifact);
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
