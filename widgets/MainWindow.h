#pragma once
/// \file MainWindow: the studio's shell. The central widget is a tab bar (hidden while only
/// the model graph shows) of StudioDocuments: the model tab (ModelDocument) first, then one tab
/// per opened artifact (ArtifactView) and per comparison (CompareView). The window's own commands
/// (File ▸ Reload, View ▸ zoom and Find, Debug ▸ Run on Inputs, Interrupt Run, Go to First
/// Divergent Node) act on the current tab and are enabled from what it says it can do; a tab's
/// own actions are merged into the menus (the model tab's File, View and Debug entries, and its
/// Debug tool bar). The window creates its panels (module tree, inspector, MLIR, interpreter:
/// panels/Panels.h) as dock widgets, each with a toggle in the View menu; addPanel() adds more.
/// Window layout, recent files and options persist in QSettings; dropping a model or an artifact
/// on the window opens it. When a tab's files change on disk, a bar above the tabs offers
/// Reload / Ignore for the current tab (ChangedOnDiskBar), and File ▸ Reload (Ctrl+Shift+R)
/// reads it again.

#include <QDockWidget>
#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include <functional>
#include <memory>
#include <utility>

class QAction;
class QFrame;
class QMenu;
class QTabWidget;
class QToolBar;
class QUrl;

namespace lattice::studio {

class ArtifactTabs;
class ArtifactView;
class ChangedOnDiskBar;
class DocumentationWindow;
class CompareView;
class FileChangeWatcher;
class GraphView;
class GraphWidget;
class ModelDocument;
class NumericRun;
class PanelDocks;
class RecentFiles;
class ShortcutsDialog;
class StudioDocument;
class StudioSession;

class MainWindow : public QMainWindow {
  Q_OBJECT

public:
  /// Creates its own StudioSession (a child of the window).
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  StudioSession* session() const { return m_session; }
  /// The numeric debugger: run inputs, execution, concrete values.
  NumericRun* numericRun() const { return m_numeric; }
  GraphWidget* graphWidget() const;

  /// Adds a panel: docks it in `area` (tabified with a panel already there), puts its
  /// toggleViewAction() in View ▸ Panels and restores its saved place. `dock` needs a unique
  /// objectName (the saved layout is keyed by it). Panels belong to the model tab: they are
  /// hidden while an artifact or compare tab is current, and the dock layout the user had is
  /// restored when the model tab is current again.
  void addPanel(QDockWidget* dock, Qt::DockWidgetArea area);
  /// The View ▸ Panels menu (panels add their toggles through addPanel).
  QMenu* panelsMenu() const { return m_panelsMenu; }
  /// Every action Help ▸ Keyboard Shortcuts lists: the window's own, the panels' toggles.
  QList<QAction*> shortcutActions() const;
  /// Help ▸ Keyboard Shortcuts (one window, shown again on the next call).
  void showShortcuts();
  /// The Help ▸ Keyboard Shortcuts window once shown, else null.
  ShortcutsDialog* shortcutsDialog() const { return m_shortcuts; }
  /// Help ▸ Documentation: opens the README (installed copy, else the source tree's) with the
  /// desktop's handler, or in a DocumentationWindow when there is none.
  void openDocumentation();
  /// How openDocumentation hands a file to the desktop (QDesktopServices::openUrl); false: it
  /// could not, the window shows it. A seam for tests.
  void setUrlOpener(std::function<bool(const QUrl&)> opener) { m_urlOpener = std::move(opener); }
  /// The documentation window once shown, else null.
  DocumentationWindow* documentationWindow() const;
  /// Replaces the built-in File ▸ Open Artifact… viewer (an ArtifactView tab).
  void setArtifactOpener(std::function<void(const QString& directory)> opener) {
    m_artifactOpener = std::move(opener);
  }

  /// Named actions for panels and tests: "file.open", "file.export", "view.fit", "debug.step", ...
  QAction* action(const QString& id) const;
  /// Recently opened references (models that loaded, artifacts that validated), newest first.
  QStringList recentFiles() const;
  /// The last artifact exported or opened (persisted): where File ▸ Open Artifact… starts.
  QString lastArtifact() const;

  /// The central tabs: the model graph (index 0, never closed), then artifact and compare views.
  QTabWidget* tabs() const { return m_tabs; }
  /// The artifact tab showing `path` (compared as absolute paths); nullptr when none.
  ArtifactView* artifactView(const QString& path) const;
  /// Every artifact / compare tab, in tab order.
  QList<ArtifactView*> artifactViews() const;
  QList<CompareView*> compareViews() const;
  /// The graph view of the current tab (the model's, an artifact's, or side A of a comparison).
  GraphView* currentGraphView() const;
  /// True while the model tab is current (the panels are shown, Debug acts).
  bool isModelTabActive() const { return m_modelTabActive; }

  /// Opens a compare tab of `a` (before) against `b` (after) and starts the diff.
  CompareView* compareArtifacts(const QString& a, const QString& b);
  /// Tools ▸ Compare with Last Export: B is the session's last export (or the one remembered
  /// from the previous run); A is the artifact of the current tab when it is another one, else
  /// the export before the last, else another open artifact tab, else the user picks a
  /// directory. nullptr when there is no last export or the user cancelled.
  CompareView* compareWithLastExport();
  /// What compareWithLastExport would compare without asking: {A, B}; A empty when it would
  /// ask, both empty without a last export.
  std::pair<QString, QString> lastExportComparison() const;

public Q_SLOTS:
  /// Opens a model reference (path or example:NAME) and records it in Recent Files.
  void openModel(const QString& reference);
  /// Opens an artifact directory (graph.mlir + weights.safetensors) or a lone .mlir in an
  /// artifact tab (an existing tab of the same path is reloaded and shown).
  void openArtifact(const QString& directory);
  /// File ▸ Load Weights… for `path`: reads the checkpoint on a worker, shows the report, asks
  /// whether to apply a checkpoint with missing, unexpected or mismatched keys partially, and
  /// applies it to the session's model. Errors are message boxes naming the file.
  void loadWeights(const QString& path);
  /// Closes tab `index` (the model tab stays).
  void closeTab(int index);
  /// File ▸ Reload for `tab` (the model graph, an artifact or a compare tab): reads its files
  /// again; the model keeps what still applies (StudioSession::reloadModel), an artifact tab its
  /// run bar's choices. Its changed-on-disk bar goes.
  void reloadTab(QWidget* tab);

public:
  /// The bar above the tabs that says the current tab's files changed on disk (Reload /
  /// Ignore); hidden while they did not.
  QFrame* changedOnDiskBar() const;
  /// The watcher of `tab`'s files (the session's for the model tab); nullptr for none.
  FileChangeWatcher* fileWatcher(QWidget* tab) const;

protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

private:
  void createActions();
  void createMenus();
  void createToolBar();
  void connectSession();
  /// Adds `doc` as a tab (its title and tooltip) and adopts it.
  void addDocument(StudioDocument* doc);
  /// Registers `doc`'s named actions, merges its menu actions into the menus and listens to it.
  void adoptDocument(StudioDocument* doc);
  /// The document of tab page `tab` (null: not one of the window's tabs).
  StudioDocument* document(const QWidget* tab) const;
  StudioDocument* currentDocument() const;
  void readSettings();
  void writeSettings() const;
  /// Opens an artifact or a model, whichever `reference` is.
  void open(const QString& reference);
  /// The artifact the current tab shows, else empty.
  QString currentArtifact() const;
  /// Enables the window's own actions from the current tab.
  void updateActions();
  /// Hides the panels and the Debug tool bar when the current tab is not the model's
  /// (remembering the dock layout) and restores them when it is again; tells the tabs.
  void onCurrentTabChanged(int index);
  /// The model tab is hidden while no model was ever opened and other tabs exist (a window
  /// started on an artifact), so it does not offer an empty graph and empty panels.
  void updateModelTabVisibility();
  QAction* makeAction(const QString& id, const QString& text, const QKeySequence& shortcut = {});
  void updateTitle();

  StudioSession* m_session = nullptr;
  NumericRun* m_numeric = nullptr;
  ModelDocument* m_model = nullptr;
  QTabWidget* m_tabs = nullptr;
  /// Every tab's document, and the artifact and compare tabs among them (creation order).
  QList<StudioDocument*> m_documents;
  ArtifactTabs* m_artifacts = nullptr;
  /// Where a document's menu actions go: the menu and the action they go before, by section.
  QHash<int, std::pair<QMenu*, QAction*>> m_sections;
  RecentFiles* m_recent = nullptr;
  QMenu* m_panelsMenu = nullptr;
  ShortcutsDialog* m_shortcuts = nullptr;
  QPointer<DocumentationWindow> m_documentation;
  std::function<bool(const QUrl&)> m_urlOpener;
  QToolBar* m_debugBar = nullptr; ///< the model tab's tool bar (hidden off the model tab)
  PanelDocks* m_docks = nullptr;
  bool m_modelTabActive = true;
  bool m_modelRequested = false; ///< a model was opened (or tried) in this window
  QHash<QString, QAction*> m_actions;
  std::function<void(const QString&)> m_artifactOpener;
  ChangedOnDiskBar* m_changedBar = nullptr;
};

} // namespace lattice::studio
