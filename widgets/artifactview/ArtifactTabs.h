#pragma once
/// \file ArtifactTabs: the main window's artifact and compare tabs. It makes them (an
/// ArtifactView per opened artifact, a CompareView per comparison; the window adds them as tabs
/// on tabCreated), finds them by path, and decides what Tools ▸ Compare Artifacts… and Compare
/// with Last Export compare: B is the session's last export (or the one remembered from the
/// previous run); A is the current tab's artifact when it is another one, else the export before
/// the last, else another open artifact tab, else the user picks a directory. The Compare
/// Artifacts… fields and the last export persist in QSettings.

#include <QList>
#include <QObject>
#include <QString>

#include <utility>

class QTabWidget;
class QWidget;

namespace lattice::studio {

class ArtifactView;
class CompareView;
class StudioDocument;
class StudioSession;

class ArtifactTabs : public QObject {
  Q_OBJECT

public:
  /// Tabs live in `tabs`; dialogs open over `window`.
  ArtifactTabs(StudioSession* session, QTabWidget* tabs, QWidget* window);

  /// Every artifact / compare tab, in tab order.
  QList<ArtifactView*> artifactViews() const;
  QList<CompareView*> compareViews() const;
  /// The artifact tab showing `path` (compared as absolute paths); nullptr when none.
  ArtifactView* artifactView(const QString& path) const;

  /// A new artifact tab reading `path`.
  ArtifactView* openArtifact(const QString& path);
  /// A new compare tab of `a` (before) against `b` (after), the diff started; an artifact open
  /// in a tab is not read again.
  CompareView* compare(const QString& a, const QString& b);
  /// Compare Artifacts…: the dialog, A preset to `currentArtifact` when there is one.
  void chooseAndCompare(const QString& currentArtifact);
  /// What Compare with Last Export compares without asking, seen from a tab showing
  /// `currentArtifact`: {A, B}; A empty when it would ask, both empty without a last export.
  std::pair<QString, QString> lastExportComparison(const QString& currentArtifact) const;
  /// Compare with Last Export; nullptr when there is no last export or the user cancelled.
  CompareView* compareWithLastExport(const QString& currentArtifact);
  /// The last export of a previous run (settings), kept up to date with the session's exports.
  QString rememberedExport() const { return m_rememberedExport; }
  void setRememberedExport(const QString& directory);
  /// `tab` is closing.
  void forget(const QWidget* tab);
  /// Writes the persisted fields again (the window's quit).
  void writeSettings() const;

Q_SIGNALS:
  /// A tab was made: the window adds and shows it.
  void tabCreated(lattice::studio::StudioDocument* tab);
  /// An artifact tab read an artifact that validated (Recent Files remember it).
  void artifactValidated(const QString& path);
  void statusMessage(const QString& text, int timeoutMs);

private:
  StudioSession* m_session;
  QTabWidget* m_tabs;
  QWidget* m_window;
  QList<ArtifactView*> m_artifacts;
  QList<CompareView*> m_compares;
  QString m_rememberedExport;
  QString m_compareA; ///< Compare Artifacts… fields
  QString m_compareB;
};

} // namespace lattice::studio
