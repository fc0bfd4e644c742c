#pragma once
/// \file MainWindow: the studio's shell. The central widget is a tab bar
/// (hidden while only the model graph shows): the model's graph view first, then one tab per
/// opened artifact (ArtifactView) and per comparison (CompareView). The window creates
/// its panels (module tree, inspector, MLIR, interpreter: panels/Panels.h) as dock widgets, each
/// with a toggle in the View menu; addPanel() adds more. Menus File / View /
/// Tools / Debug drive the StudioSession; window layout, recent files and options persist in
/// QSettings; dropping a model or an artifact on the window opens it. The files of the model and
/// of every artifact and compare tab are watched: when they change on disk, a bar above the tabs
/// offers Reload / Ignore for the current tab, and File ▸ Reload (Ctrl+Shift+R) reads it again.

#include <QDockWidget>
#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include <functional>
#include <memory>
#include <utility>

class QAction;
class QActionGroup;
class QFrame;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QTimer;
class QToolBar;

namespace lattice {
struct Checkpoint;
}

namespace lattice::studio {

class ArtifactView;
class CompareView;
class FileChangeWatcher;
class GraphView;
class GraphWidget;
class NumericRun;
enum class OverlayMode;
class ShortcutsDialog;
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
  GraphWidget* graphWidget() const { return m_graph; }

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
  /// Help ▸ Documentation: opens the README (installed copy, else the source tree's).
  void openDocumentation();
  /// Replaces the built-in File ▸ Open Artifact… viewer (an ArtifactView tab).
  void setArtifactOpener(std::function<void(const QString& directory)> opener) {
    m_artifactOpener = std::move(opener);
  }

  /// Named actions for panels and tests: "file.open", "file.export", "view.fit", "debug.step", ...
  QAction* action(const QString& id) const;
  /// Recently opened references (models that loaded, artifacts that validated), newest first.
  QStringList recentFiles() const { return m_recent; }
  /// The last artifact exported or opened (persisted): where File ▸ Open Artifact… starts.
  QString lastArtifact() const { return m_lastArtifact; }

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
  QFrame* changedOnDiskBar() const { return m_changedBar; }
  /// The watcher of `tab`'s files (the session's for the model tab); nullptr for none.
  FileChangeWatcher* fileWatcher(QWidget* tab) const;

protected:
  void closeEvent(QCloseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void moveEvent(QMoveEvent* event) override;
  void childEvent(QChildEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

private:
  void createActions();
  /// Debug ▸ Run on Inputs, Run Inputs…, Numeric Stepping, Go to First Divergent Node, and the
  /// run's progress in the status bar (MainWindowNumeric.cpp).
  void createNumericActions();
  void onNumericStateChanged();
  /// The View ▸ Overlay choice.
  OverlayMode overlayMode() const;
  /// Colours the model graph by the overlay (and shows its legend).
  void applyOverlay();
  void createMenus();
  void createToolBar();
  void createStatusBar();
  /// The studio's panels as docks at their default areas (or their saved places).
  void createDocks();
  void connectSession();
  void readSettings();
  void writeSettings() const;
  /// The window geometry and dock layout (saved a moment after they change, and on quit).
  void writeLayoutSettings() const;
  void scheduleLayoutSave();
  /// Where the next file dialog starts; saved at once.
  void setLastDirectory(const QString& directory);
  void setLastArtifact(const QString& path);
  void addRecent(const QString& reference);
  void rebuildRecentMenu();
  void updateActions();
  void updateStatus();
  void applyDefaultDockSizes();
  /// addPanel's end: default sizes when shown, hidden while an artifact tab is current.
  void finishAddPanel(QDockWidget* dock);
  /// Hides the panels when the current tab is not the model's (remembering the dock layout) and
  /// restores them when it is again; updates the actions that act on the model tab.
  void onCurrentTabChanged(int index);
  /// The model tab is hidden while no model was ever opened and other tabs exist (a window
  /// started on an artifact), so it does not offer an empty graph and empty panels.
  void updateModelTabVisibility();
  QAction* makeAction(const QString& id, const QString& text, const QKeySequence& shortcut = {});

  void onOpenModel();
  void onOpenExample(const QString& name);
  void onOpenChain();
  void onOpenArtifact();
  void onExportArtifact();
  void onExportImage();
  void onLoadWeights();
  void onCompareArtifacts();
  void applyCheckpointInteractively(const QString& path, const std::shared_ptr<Checkpoint>& checkpoint);
  void updateTitle();
  /// The changed-on-disk bar above the tabs (MainWindowFile.cpp).
  void createChangedBar();
  /// The files an artifact path is read from: graph.mlir and weights.safetensors of a folder,
  /// or the lone .mlir file (absolute).
  static QStringList artifactFiles(const QString& path);
  /// Watches `files` for an artifact or compare tab from now on (call it before they are read).
  void watchTabFiles(QWidget* tab, const QStringList& files);
  /// `tab`'s watcher reported `files` (empty: back to what was read).
  void onFilesChanged(QWidget* tab, const QStringList& files);
  /// Shows the bar for the current tab's change or failed reload, or hides it.
  void updateChangedBar();
  /// Ignore: the current tab's files as they are now count as read.
  void ignoreChange();

  StudioSession* m_session = nullptr;
  NumericRun* m_numeric = nullptr;
  QProgressBar* m_runProgress = nullptr;
  QLabel* m_overlayLegend = nullptr;
  GraphWidget* m_graph = nullptr;
  QTabWidget* m_tabs = nullptr;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_panelsMenu = nullptr;
  ShortcutsDialog* m_shortcuts = nullptr;
  QToolBar* m_debugBar = nullptr; ///< the Debug buttons (hidden off the model tab)
  QActionGroup* m_layoutModeGroup = nullptr;
  QLabel* m_modelLabel = nullptr;
  QLabel* m_stateLabel = nullptr;
  QLabel* m_zoomLabel = nullptr;
  QStringList m_recent;
  bool m_restoredLayout = false; ///< a saved dock layout was restored
  bool m_modelTabActive = true;
  bool m_modelRequested = false; ///< a model was opened (or tried) in this window
  QByteArray m_modelDockLayout;  ///< saveState() when the model tab was left
  QList<QPointer<QDockWidget>> m_modelDocks;
  /// Panels added without a saved place: sized for their area once the window is shown.
  QList<std::pair<QPointer<QDockWidget>, Qt::DockWidgetArea>> m_defaultDockAreas;
  QString m_lastDirectory;
  QString m_lastArtifact;         ///< the last artifact exported or opened (Open Artifact… starts there)
  QTimer* m_layoutSave = nullptr; ///< debounces writeLayoutSettings
  QString m_weightsDirectory;     ///< where Load Weights… last looked
  QString m_rememberedExport;     ///< last export of a previous run (settings)
  QString m_compareA;             ///< Compare Artifacts… fields, persisted
  QString m_compareB;
  QHash<QString, QAction*> m_actions;
  std::function<void(const QString&)> m_artifactOpener;
  /// A tab whose files changed on disk: the changed files, or why its reload failed.
  struct DiskChange {
    QStringList files;
    QString reloadError;
  };
  QHash<QWidget*, DiskChange> m_diskChanges;
  QFrame* m_changedBar = nullptr;
  QLabel* m_changedText = nullptr;
};

} // namespace lattice::studio
