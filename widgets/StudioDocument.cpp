// StudioDocument: the defaults of a tab: no actions of its own, and its files watched by a
// FileChangeWatcher it makes on first use.

#include "StudioDocument.h"

#include "StudioSession.h"

namespace lattice::studio {

StudioDocument::StudioDocument(QWidget* parent) : QWidget(parent) {}

StudioDocument::~StudioDocument() = default;

QList<QAction*> StudioDocument::menuActions(MenuSection) const {
  return {};
}

QList<QAction*> StudioDocument::toolBarActions() const {
  return {};
}

void StudioDocument::setCurrent(bool current) {
  m_current = current;
}

QString StudioDocument::staleNote() const {
  return tr("The tab shows what was read before; Reload reads it again.");
}

void StudioDocument::watchFiles(const QStringList& files) {
  if (!m_watcher) {
    m_watcher = new FileChangeWatcher(this);
    m_watcher->setObjectName(QStringLiteral("tabFileWatcher"));
    connect(m_watcher, &FileChangeWatcher::changed, this, &StudioDocument::filesChanged);
  }
  m_watcher->watch(files);
  Q_EMIT filesRead();
}

} // namespace lattice::studio
