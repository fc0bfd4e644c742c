#pragma once
/// \file StudioDocument: what a tab of the main window is and what it can do. MainWindow knows
/// its tabs only through this interface: its generic commands (View ▸ Find, zoom, Debug ▸ Run on
/// Inputs, Interrupt Run, Go to First Divergent Node, File ▸ Reload) act on the current tab and
/// are enabled from what the tab says (can()); a tab's own actions (menuActions, toolBarActions)
/// are merged into the window's menus and tool bars when the tab is added, and the tab enables
/// them itself. Implemented by the model tab (ModelDocument), an artifact tab (ArtifactView) and a
/// compare tab (CompareView).
///
/// A tab that is read from files watches them (fileWatcher); the window's changed-on-disk bar
/// speaks for the current tab from the tab's signals.

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

class QAction;

namespace lattice::studio {

class FileChangeWatcher;
class GraphView;

class StudioDocument : public QWidget {
  Q_OBJECT

public:
  /// What a tab may be asked to do; can() says whether it can now.
  enum class Capability {
    Find,           ///< find() shows its search bar
    Run,            ///< run() executes what the tab shows on its inputs
    Interrupt,      ///< interrupt() stops a run of the tab's
    FirstDivergent, ///< goToFirstDivergent() selects where a run first left the tolerance
    Reload,         ///< reload() reads the tab's files again
  };
  /// Where a tab's own actions go in the window's menus.
  enum class MenuSection {
    File,     ///< File, between Reload and Close Tab
    View,     ///< View, between Find and Panels
    Debug,    ///< the top of Debug
    DebugRun, ///< Debug, after Run on Inputs
  };

  explicit StudioDocument(QWidget* parent = nullptr);
  ~StudioDocument() override;

  /// The tab's title and its tooltip.
  virtual QString title() const = 0;
  virtual QString tabToolTip() const { return title(); }
  /// What the tab shows, named for the changed-on-disk bar ("model.ltfx", "a ↔ b").
  virtual QString sourceName() const = 0;
  /// The one artifact the tab shows (Compare Artifacts' natural A), else empty.
  virtual QString artifactPath() const { return {}; }
  /// The graph the window's zoom acts on.
  virtual GraphView* shownGraph() const = 0;

  virtual bool can(Capability capability) const = 0;
  virtual void find() {}
  virtual void run() {}
  virtual void interrupt() {}
  virtual void goToFirstDivergent() {}
  virtual void reload() {}

  /// The tab's own actions for `section` (separators and submenus included), in menu order.
  virtual QList<QAction*> menuActions(MenuSection section) const;
  /// The tab's own tool bar buttons.
  virtual QList<QAction*> toolBarActions() const;
  /// The window made the tab current (true) or another one (false).
  virtual void setCurrent(bool current);
  bool isCurrent() const { return m_current; }

  /// Watches the tab's files (null: none yet).
  virtual FileChangeWatcher* fileWatcher() const { return m_watcher; }
  /// What the changed-on-disk bar adds about the files read before.
  virtual QString staleNote() const;

Q_SIGNALS:
  /// can() may answer differently, or the tab's own actions changed state.
  void capabilitiesChanged();
  /// A line for the window's status bar (timeout in ms, 0: until replaced).
  void statusMessage(const QString& text, int timeoutMs);
  /// The files were read anew (or are being): an earlier change on disk no longer applies.
  void filesRead();
  /// The files differ from what was read (`files`; empty: back to what was read).
  void filesChanged(const QStringList& files);
  /// Reading the files again failed; what is shown is what was read before.
  void reloadFailed(const QString& message);

protected:
  /// Watches `files` from now on (call it before they are read); emits filesRead.
  void watchFiles(const QStringList& files);

private:
  FileChangeWatcher* m_watcher = nullptr;
  bool m_current = false;
};

} // namespace lattice::studio
