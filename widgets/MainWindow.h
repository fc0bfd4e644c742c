#pragma once
/// \file MainWindow: the studio's shell (issue #4 item 1). The graph view is the central
/// widget; panels are dock widgets added through addPanel(), each with a toggle in the View
/// menu. Menus File / View / Debug drive the StudioSession; window layout, recent files and
/// options persist in QSettings; dropping a model or an artifact on the window opens it.

#include <QDockWidget>
#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include <functional>

class QAction;
class QActionGroup;
class QLabel;
class QMenu;

namespace lattice::studio {

class GraphWidget;
class StudioSession;

class MainWindow : public QMainWindow {
  Q_OBJECT

public:
  /// Creates its own StudioSession (a child of the window).
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  StudioSession* session() const { return m_session; }
  GraphWidget* graphWidget() const { return m_graph; }

  /// Adds a panel: docks it in `area` (tabified with a panel already there), puts its
  /// toggleViewAction() in View ▸ Panels and restores its saved place. `dock` needs a unique
  /// objectName (the saved layout is keyed by it).
  void addPanel(QDockWidget* dock, Qt::DockWidgetArea area);
  /// The View ▸ Panels menu (panels add their toggles through addPanel).
  QMenu* panelsMenu() const { return m_panelsMenu; }
  /// Replaces the built-in File ▸ Export Artifact… (a directory chooser and a plain export) by
  /// the export dialog's handler.
  void setExportHandler(std::function<void()> handler) { m_exportHandler = std::move(handler); }
  /// Replaces the built-in File ▸ Open Artifact… viewer (graph.mlir in a read-only dock).
  void setArtifactOpener(std::function<void(const QString& directory)> opener) {
    m_artifactOpener = std::move(opener);
  }

  /// Named actions for panels and tests: "file.open", "file.export", "view.fit", "debug.step", ...
  QAction* action(const QString& id) const;
  /// Recently opened references, newest first.
  QStringList recentFiles() const { return m_recent; }

public Q_SLOTS:
  /// Opens a model reference (path or example:NAME) and records it in Recent Files.
  void openModel(const QString& reference);
  /// Opens an artifact directory (graph.mlir + weights.safetensors).
  void openArtifact(const QString& directory);

protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

private:
  void createActions();
  void createMenus();
  void createToolBar();
  void createStatusBar();
  void connectSession();
  void readSettings();
  void writeSettings() const;
  void addRecent(const QString& reference);
  void rebuildRecentMenu();
  void updateActions();
  void updateStatus();
  void applyDefaultDockSizes();
  QAction* makeAction(const QString& id, const QString& text, const QKeySequence& shortcut = {});

  void onOpenModel();
  void onOpenExample(const QString& name);
  void onOpenChain();
  void onOpenArtifact();
  void onExportArtifact();
  void onExportImage();

  StudioSession* m_session = nullptr;
  GraphWidget* m_graph = nullptr;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_panelsMenu = nullptr;
  QActionGroup* m_layoutModeGroup = nullptr;
  QLabel* m_modelLabel = nullptr;
  QLabel* m_stateLabel = nullptr;
  QLabel* m_zoomLabel = nullptr;
  QStringList m_recent;
  bool m_restoredLayout = false; ///< a saved dock layout was restored
  /// Panels added without a saved place: sized for their area once the window is shown.
  QList<std::pair<QPointer<QDockWidget>, Qt::DockWidgetArea>> m_defaultDockAreas;
  QString m_lastDirectory;
  QHash<QString, QAction*> m_actions;
  std::function<void()> m_exportHandler;
  std::function<void(const QString&)> m_artifactOpener;
};

} // namespace lattice::studio
