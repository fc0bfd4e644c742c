// ArtifactTabs: making and finding the artifact and compare tabs, and the choice of what to
// compare. The views do the reading and diffing; the window adds the tabs.

#include "artifactview/ArtifactTabs.h"

#include "StudioSession.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/CompareArtifactsDialog.h"
#include "artifactview/CompareView.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>
#include <QTabWidget>

#include <algorithm>

namespace lattice::studio {

namespace {

QString absolute(const QString& path) {
  return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

/// `views` in the order of their tabs (tabs can be moved).
template <class View>
QList<View*> inTabOrder(const QTabWidget* tabs, QList<View*> views) {
  std::sort(views.begin(), views.end(), [tabs](View* a, View* b) { return tabs->indexOf(a) < tabs->indexOf(b); });
  return views;
}

} // namespace

ArtifactTabs::ArtifactTabs(StudioSession* session, QTabWidget* tabs, QWidget* window)
    : QObject(window), m_session(session), m_tabs(tabs), m_window(window) {
  const QSettings s;
  m_rememberedExport = s.value(QStringLiteral("paths/lastExport")).toString();
  m_compareA = s.value(QStringLiteral("paths/compareA")).toString();
  m_compareB = s.value(QStringLiteral("paths/compareB")).toString();
}

QList<ArtifactView*> ArtifactTabs::artifactViews() const {
  return inTabOrder(m_tabs, m_artifacts);
}

QList<CompareView*> ArtifactTabs::compareViews() const {
  return inTabOrder(m_tabs, m_compares);
}

ArtifactView* ArtifactTabs::artifactView(const QString& path) const {
  const QString wanted = absolute(path);
  for (ArtifactView* v : artifactViews())
    if (absolute(v->path()) == wanted) return v;
  return nullptr;
}

ArtifactView* ArtifactTabs::openArtifact(const QString& path) {
  auto* view = new ArtifactView(m_tabs);
  view->open(path);
  // Recent Files and Open Artifact… remember an artifact that validated, not a mistake.
  connect(view, &ArtifactView::documentLoaded, this, [this, view] {
    if (view->document() && view->document()->valid()) Q_EMIT artifactValidated(view->path());
  });
  m_artifacts << view;
  Q_EMIT tabCreated(view);
  return view;
}

CompareView* ArtifactTabs::compare(const QString& a, const QString& b) {
  auto* view = new CompareView(m_tabs);
  std::shared_ptr<const LoadedArtifact> loadedA;
  std::shared_ptr<const LoadedArtifact> loadedB;
  if (ArtifactView* v = artifactView(a); v && v->document() && !v->isLoading()) loadedA = v->document()->artifact;
  if (ArtifactView* v = artifactView(b); v && v->document() && !v->isLoading()) loadedB = v->document()->artifact;
  view->compare(a, loadedA, b, loadedB);
  m_compares << view;
  Q_EMIT tabCreated(view);
  m_compareA = a;
  m_compareB = b;
  QSettings s;
  s.setValue(QStringLiteral("paths/compareA"), a);
  s.setValue(QStringLiteral("paths/compareB"), b);
  return view;
}

void ArtifactTabs::chooseAndCompare(const QString& currentArtifact) {
  CompareArtifactsDialog dialog(m_window);
  // The current artifact tab is a natural A.
  dialog.setPaths(currentArtifact.isEmpty() ? m_compareA : currentArtifact, m_compareB);
  if (dialog.exec() != QDialog::Accepted) return;
  compare(dialog.pathA(), dialog.pathB());
}

std::pair<QString, QString> ArtifactTabs::lastExportComparison(const QString& currentArtifact) const {
  QString b = m_session->lastExport();
  if (b.isEmpty() && isArtifactPath(m_rememberedExport)) b = m_rememberedExport;
  if (b.isEmpty()) return {};
  const QString bAbs = absolute(b);
  if (!currentArtifact.isEmpty() && absolute(currentArtifact) != bAbs) return {currentArtifact, b};
  for (const QString& previous : m_session->exportedArtifacts())
    if (absolute(previous) != bAbs && isArtifactPath(previous)) return {previous, b};
  const QList<ArtifactView*> views = artifactViews();
  for (auto it = views.rbegin(); it != views.rend(); ++it)
    if (absolute((*it)->path()) != bAbs) return {(*it)->path(), b};
  return {QString(), b};
}

CompareView* ArtifactTabs::compareWithLastExport(const QString& currentArtifact) {
  auto [a, b] = lastExportComparison(currentArtifact);
  if (b.isEmpty()) {
    Q_EMIT statusMessage(tr("Nothing exported yet: export an artifact first (Ctrl+E)"), 6000);
    return nullptr;
  }
  if (a.isEmpty()) {
    a = QFileDialog::getExistingDirectory(m_window, tr("Compare with Last Export: choose artifact A (before)"),
                                          QFileInfo(b).absolutePath());
    if (a.isEmpty()) return nullptr;
  }
  return compare(a, b);
}

void ArtifactTabs::setRememberedExport(const QString& directory) {
  m_rememberedExport = directory;
  QSettings().setValue(QStringLiteral("paths/lastExport"), directory);
}

void ArtifactTabs::forget(const QWidget* tab) {
  m_artifacts.removeIf([tab](const ArtifactView* v) { return v == tab; });
  m_compares.removeIf([tab](const CompareView* v) { return v == tab; });
}

void ArtifactTabs::writeSettings() const {
  QSettings s;
  s.setValue(QStringLiteral("paths/compareA"), m_compareA);
  s.setValue(QStringLiteral("paths/compareB"), m_compareB);
}

} // namespace lattice::studio
