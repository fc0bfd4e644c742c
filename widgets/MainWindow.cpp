// MainWindow: actions and menus (File / View / Tools / Debug as issues #4 and #5 list them), the
// status bar, settings persistence, drag and drop. The File actions' bodies (open, export,
// image) are in MainWindowFile.cpp; artifact and compare tabs and Load Weights… in
// MainWindowArtifacts.cpp; the dock panels and what the current tab shows of them in
// MainWindowDocks.cpp. Panels themselves live in widgets/panels.

#include "MainWindow.h"

#include "LeafEdits.h"
#include "StudioIcons.h"
#include "StudioSession.h"
#include "numeric/NumericRun.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactRun.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/CompareView.h"
#include "graph/GraphView.h"
#include "graph/GraphWidget.h"
#include "help/HelpDialogs.h"
#include "model/Examples.h"
#include "panels/InputSpecEditor.h"

#include <QAction>
#include <QActionGroup>
#include <QChildEvent>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMimeData>
#include <QPointer>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace lattice::studio {

namespace {

constexpr int kMaxRecent = 10;

/// The settings store: organisation "Lattice", application "Lattice Studio" (set in main()).
QSettings settings() {
  return QSettings();
}

/// Settings are written when they change, not only on a clean quit (a crash keeps them).
void saveSetting(const QString& key, const QVariant& value) {
  QSettings s = settings();
  s.setValue(key, value);
}

/// How long the window's geometry and dock layout settle before they are saved.
constexpr int kLayoutSaveDelayMs = 300;

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("LatticeStudioMainWindow"));
  setWindowTitle(tr("Lattice Studio"));
  setAcceptDrops(true);
  setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
  // Side panels run the full height, as in IDEs: the bottom panel sits under the graph only.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  m_session = new StudioSession(this);
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("centralTabs"));
  m_tabs->setDocumentMode(true);
  m_tabs->setTabsClosable(true);
  m_tabs->setMovable(true);
  m_tabs->setTabBarAutoHide(true); // just the model graph: no tab bar, as before artifacts open
  m_graph = new GraphWidget(m_session, m_tabs);
  m_tabs->addTab(m_graph, tr("Model"));
  m_tabs->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr); // the model tab stays
  m_tabs->tabBar()->setTabButton(0, QTabBar::LeftSide, nullptr);
  connect(m_tabs, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
  connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onCurrentTabChanged);
  // The changed-on-disk bar sits above the tabs and speaks for the current one.
  auto* central = new QWidget(this);
  auto* centralLayout = new QVBoxLayout(central);
  centralLayout->setContentsMargins(0, 0, 0, 0);
  centralLayout->setSpacing(0);
  createChangedBar();
  centralLayout->addWidget(m_changedBar);
  centralLayout->addWidget(m_tabs, 1);
  setCentralWidget(central);
  m_layoutSave = new QTimer(this);
  m_layoutSave->setSingleShot(true);
  m_layoutSave->setInterval(kLayoutSaveDelayMs);
  connect(m_layoutSave, &QTimer::timeout, this, &MainWindow::writeLayoutSettings);
  createActions();
  createMenus();
  createToolBar();
  createStatusBar();
  connectSession();
  readSettings();
  createDocks(); // after readSettings: a dock takes its saved place when the layout has one
  updateActions();
  updateStatus();
}

MainWindow::~MainWindow() {
  // Every child outlives this part of the window while it is destroyed (~QWidget deletes them
  // afterwards, the session first, whose undo stack emits indexChanged as it is cleared; docks
  // report their visibility): none of them reaches this window's slots or event filter any more.
  m_layoutSave->stop();
  for (QObject* child : findChildren<QObject*>())
    disconnect(child, nullptr, this, nullptr);
  for (QDockWidget* dock : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly))
    dock->removeEventFilter(this);
}

QAction* MainWindow::makeAction(const QString& id, const QString& text, const QKeySequence& shortcut) {
  auto* a = new QAction(text, this);
  a->setObjectName(id);
  if (!shortcut.isEmpty()) a->setShortcut(shortcut);
  m_actions.insert(id, a);
  return a;
}

QAction* MainWindow::action(const QString& id) const {
  return m_actions.value(id);
}

void MainWindow::createActions() {
  // File
  connect(makeAction(QStringLiteral("file.open"), tr("&Open Model…"), QKeySequence::Open),
          &QAction::triggered, this, &MainWindow::onOpenModel);
  connect(makeAction(QStringLiteral("file.openArtifact"), tr("Open &Artifact…"),
                     QKeySequence(tr("Ctrl+Shift+O"))),
          &QAction::triggered, this, &MainWindow::onOpenArtifact);
  connect(
      makeAction(QStringLiteral("file.loadWeights"), tr("Load &Weights…"), QKeySequence(tr("Ctrl+Shift+L"))),
      &QAction::triggered, this, &MainWindow::onLoadWeights);
  // Reload: Ctrl+R is Run on Inputs and F5 Start; Ctrl+Shift+R reloads, as in browsers.
  connect(makeAction(QStringLiteral("file.reload"), tr("&Reload"), QKeySequence(tr("Ctrl+Shift+R"))),
          &QAction::triggered, this, [this] { reloadTab(m_tabs->currentWidget()); });
  connect(makeAction(QStringLiteral("file.closeTab"), tr("&Close Tab"), QKeySequence::Close),
          &QAction::triggered, this, [this] { closeTab(m_tabs->currentIndex()); });
  connect(makeAction(QStringLiteral("file.export"), tr("&Export Artifact…"), QKeySequence(tr("Ctrl+E"))),
          &QAction::triggered, this, &MainWindow::onExportArtifact);
  connect(makeAction(QStringLiteral("file.exportImage"), tr("Export Graph &Image…")), &QAction::triggered,
          this, &MainWindow::onExportImage);
  QAction* quit = makeAction(QStringLiteral("file.quit"), tr("&Quit"), QKeySequence::Quit);
  quit->setMenuRole(QAction::QuitRole);
  connect(quit, &QAction::triggered, this, &QWidget::close);

  // Edit: the module tree's leaf decisions can be undone and redone.
  LeafEdits* edits = LeafEdits::of(m_session);
  QAction* undo = edits->createUndoAction(this, tr("&Undo"));
  undo->setObjectName(QStringLiteral("edit.undo"));
  undo->setShortcut(QKeySequence::Undo);
  m_actions.insert(undo->objectName(), undo);
  QAction* redo = edits->createRedoAction(this, tr("&Redo"));
  redo->setObjectName(QStringLiteral("edit.redo"));
  redo->setShortcut(QKeySequence(tr("Ctrl+Shift+Z")));
  m_actions.insert(redo->objectName(), redo);
  // An undo from an artifact tab changes the model's graph: show it.
  connect(edits, &QUndoStack::indexChanged, this, [this] {
    if (!m_modelTabActive && m_tabs->isTabVisible(0)) m_tabs->setCurrentWidget(m_graph);
  });

  // View: zoom and fit act on the current tab's graph.
  GraphView* view = m_graph->view();
  connect(makeAction(QStringLiteral("view.zoomIn"), tr("Zoom &In"), QKeySequence::ZoomIn),
          &QAction::triggered, this, [this] { currentGraphView()->zoomIn(); });
  connect(makeAction(QStringLiteral("view.zoomOut"), tr("Zoom &Out"), QKeySequence::ZoomOut),
          &QAction::triggered, this, [this] { currentGraphView()->zoomOut(); });
  connect(makeAction(QStringLiteral("view.fit"), tr("&Fit to Window"), QKeySequence(tr("Ctrl+0"))),
          &QAction::triggered, this, [this] { currentGraphView()->fitToView(); });
  // Find: the model graph's nodes, or an artifact tab's ops.
  connect(makeAction(QStringLiteral("view.find"), tr("&Find…"), QKeySequence::Find), &QAction::triggered,
          this, [this] {
            if (auto* artifact = qobject_cast<ArtifactView*>(m_tabs->currentWidget()))
              artifact->showSearch();
            else if (m_modelTabActive)
              m_graph->showSearch();
          });
  QAction* minimap = makeAction(QStringLiteral("view.minimap"), tr("&Minimap"));
  minimap->setCheckable(true);
  minimap->setChecked(true);
  connect(minimap, &QAction::toggled, view, &GraphView::setMinimapVisible);
  connect(minimap, &QAction::toggled, this,
          [](bool on) { saveSetting(QStringLiteral("options/minimap"), on); });
  QAction* legend = makeAction(QStringLiteral("view.legend"), tr("&Legend"));
  legend->setCheckable(true);
  legend->setChecked(true);
  connect(legend, &QAction::toggled, view, &GraphView::setLegendVisible);
  connect(legend, &QAction::toggled, this,
          [](bool on) { saveSetting(QStringLiteral("options/legend"), on); });
  m_layoutModeGroup = new QActionGroup(this);
  QAction* hierarchical =
      makeAction(QStringLiteral("view.hierarchical"), tr("&Hierarchical (module groups)"));
  QAction* flat = makeAction(QStringLiteral("view.flat"), tr("F&lat"));
  for (QAction* a : {hierarchical, flat}) {
    a->setCheckable(true);
    m_layoutModeGroup->addAction(a);
  }
  hierarchical->setChecked(true);
  connect(hierarchical, &QAction::toggled, m_graph, &GraphWidget::setHierarchical);
  connect(hierarchical, &QAction::toggled, this,
          [](bool on) { saveSetting(QStringLiteral("options/hierarchical"), on); });
  // A refused flat view (too many nodes) goes back to module groups: so does the menu.
  connect(m_graph, &GraphWidget::hierarchicalChanged, this, [this](bool on) {
    action(on ? QStringLiteral("view.hierarchical") : QStringLiteral("view.flat"))->setChecked(true);
  });
  connect(m_graph, &GraphWidget::flatViewRefused, this, [this](const QString& message) {
    statusBar()->showMessage(tr("Flat view refused: %1. Showing module groups.").arg(message), 10000);
  });

  // Tools
  connect(makeAction(QStringLiteral("tools.compare"), tr("&Compare Artifacts…"),
                     QKeySequence(tr("Ctrl+Shift+D"))),
          &QAction::triggered, this, &MainWindow::onCompareArtifacts);
  connect(makeAction(QStringLiteral("tools.compareLast"), tr("Compare with &Last Export"),
                     QKeySequence(tr("Ctrl+Alt+D"))),
          &QAction::triggered, this, [this] { compareWithLastExport(); });

  // Help
  connect(makeAction(QStringLiteral("help.shortcuts"), tr("&Keyboard Shortcuts"), QKeySequence(tr("Ctrl+/"))),
          &QAction::triggered, this, &MainWindow::showShortcuts);
  connect(makeAction(QStringLiteral("help.documentation"), tr("&Documentation"), QKeySequence(Qt::Key_F1)),
          &QAction::triggered, this, &MainWindow::openDocumentation);
  connect(makeAction(QStringLiteral("help.about"), tr("&About Lattice Studio")), &QAction::triggered, this,
          [this] { showAboutDialog(this); });

  // Debug
  // F5 as in every debugger: start when idle or done, continue when paused.
  connect(makeAction(QStringLiteral("debug.start"), tr("&Start / Continue"), QKeySequence(Qt::Key_F5)),
          &QAction::triggered, this, [this] {
            if (m_session->isRunning()) return;
            if (m_session->interpreterState() == StudioSession::InterpreterState::Paused)
              m_session->continueRun();
            else
              m_session->startInterpreter();
          });
  connect(makeAction(QStringLiteral("debug.restart"), tr("R&estart"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5)),
          &QAction::triggered, m_session, &StudioSession::startInterpreter);
  connect(makeAction(QStringLiteral("debug.step"), tr("S&tep"), QKeySequence(Qt::Key_F10)),
          &QAction::triggered, m_session, &StudioSession::step);
  connect(makeAction(QStringLiteral("debug.runToSelected"), tr("&Run to Selected Node"),
                     QKeySequence(Qt::CTRL | Qt::Key_F10)),
          &QAction::triggered, this, [this] { m_session->runToNode(m_session->selectedNode()); });
  connect(makeAction(QStringLiteral("debug.continue"), tr("&Continue"), QKeySequence(Qt::Key_F8)),
          &QAction::triggered, m_session, &StudioSession::continueRun);
  connect(makeAction(QStringLiteral("debug.breakpoint"), tr("Toggle &Breakpoint"), QKeySequence(Qt::Key_F9)),
          &QAction::triggered, this, [this] { m_session->toggleBreakpoint(m_session->selectedNode()); });
  connect(makeAction(QStringLiteral("debug.stop"), tr("St&op"), QKeySequence(Qt::SHIFT | Qt::Key_F5)),
          &QAction::triggered, m_session, &StudioSession::stopInterpreter);
  // The Inputs table the interpreter and File ▸ Export share.
  connect(makeAction(QStringLiteral("debug.inputs"), tr("Edit &Inputs…"), QKeySequence(tr("Ctrl+I"))),
          &QAction::triggered, this, [this] { showInputSpecDialog(m_session, this); });
  // Esc interrupts a run; enabled only while one goes on, so Esc keeps its other uses.
  QAction* interrupt =
      makeAction(QStringLiteral("debug.interrupt"), tr("&Interrupt Run"), QKeySequence(Qt::Key_Escape));
  interrupt->setShortcutContext(Qt::WindowShortcut);
  addAction(interrupt); // not in a menu: Debug ▸ Stop does the same while running
  connect(interrupt, &QAction::triggered, m_session, &StudioSession::interruptRun);
  createNumericActions();
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(action(QStringLiteral("file.open")));
  QMenu* examples = file->addMenu(tr("Open E&xample"));
  for (const std::string& name : exampleNames()) {
    const QString n = QString::fromStdString(name);
    if (n.startsWith(QStringLiteral("chain:"))) {
      connect(examples->addAction(tr("chain:N (synthetic)…")), &QAction::triggered, this,
              &MainWindow::onOpenChain);
    } else {
      connect(examples->addAction(n), &QAction::triggered, this, [this, n] { onOpenExample(n); });
    }
  }
  file->addAction(action(QStringLiteral("file.openArtifact")));
  m_recentMenu = file->addMenu(tr("&Recent Files"));
  file->addAction(action(QStringLiteral("file.reload")));
  file->addSeparator();
  file->addAction(action(QStringLiteral("file.loadWeights")));
  file->addSeparator();
  file->addAction(action(QStringLiteral("file.export")));
  file->addAction(action(QStringLiteral("file.exportImage")));
  file->addSeparator();
  file->addAction(action(QStringLiteral("file.closeTab")));
  file->addAction(action(QStringLiteral("file.quit")));

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(action(QStringLiteral("edit.undo")));
  edit->addAction(action(QStringLiteral("edit.redo")));

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(action(QStringLiteral("view.zoomIn")));
  view->addAction(action(QStringLiteral("view.zoomOut")));
  view->addAction(action(QStringLiteral("view.fit")));
  view->addSeparator();
  view->addAction(action(QStringLiteral("view.find")));
  view->addSeparator();
  view->addAction(action(QStringLiteral("view.hierarchical")));
  view->addAction(action(QStringLiteral("view.flat")));
  view->addSeparator();
  view->addAction(action(QStringLiteral("view.minimap")));
  view->addAction(action(QStringLiteral("view.legend")));
  QMenu* overlay = view->addMenu(tr("&Overlay"));
  for (const char* id : {"view.overlayNone", "view.overlayTime", "view.overlayAccuracy"})
    overlay->addAction(action(QString::fromLatin1(id)));
  overlay->addSeparator();
  overlay->addAction(action(QStringLiteral("view.overlayThreshold")));
  m_panelsMenu = view->addMenu(tr("&Panels"));

  QMenu* tools = menuBar()->addMenu(tr("&Tools"));
  tools->addAction(action(QStringLiteral("tools.compare")));
  tools->addAction(action(QStringLiteral("tools.compareLast")));

  QMenu* debug = menuBar()->addMenu(tr("&Debug"));
  debug->addAction(action(QStringLiteral("debug.start")));
  debug->addAction(action(QStringLiteral("debug.restart")));
  debug->addAction(action(QStringLiteral("debug.step")));
  debug->addAction(action(QStringLiteral("debug.runToSelected")));
  debug->addAction(action(QStringLiteral("debug.continue")));
  debug->addSeparator();
  debug->addAction(action(QStringLiteral("debug.breakpoint")));
  debug->addAction(action(QStringLiteral("debug.stop")));
  debug->addSeparator();
  debug->addAction(action(QStringLiteral("debug.inputs")));
  debug->addSeparator();
  for (const char* id : {"debug.runInputs", "debug.numericInputs", "debug.numericStepping", "debug.firstDivergent"})
    debug->addAction(action(QString::fromLatin1(id)));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(action(QStringLiteral("help.shortcuts")));
  help->addAction(action(QStringLiteral("help.documentation")));
  help->addSeparator();
  help->addAction(action(QStringLiteral("help.about")));
}

QList<QAction*> MainWindow::shortcutActions() const {
  QList<QAction*> all = m_actions.values();
  for (QAction* a : actions()) // the window's own, such as the panels' toggles
    if (!all.contains(a)) all << a;
  if (m_panelsMenu)
    for (QAction* a : m_panelsMenu->actions())
      if (!all.contains(a) && !a->isSeparator()) all << a;
  return all;
}

void MainWindow::showShortcuts() {
  if (!m_shortcuts) m_shortcuts = new ShortcutsDialog(shortcutActions(), this);
  m_shortcuts->show();
  m_shortcuts->raise();
  m_shortcuts->activateWindow();
}

void MainWindow::openDocumentation() {
  // The installed copy first, then the source tree's (a build run from its tree).
  const QString appDir = QCoreApplication::applicationDirPath();
  const QStringList candidates = {appDir + QStringLiteral("/../share/doc/lattice-studio/README.md"),
                                  QStringLiteral(LATTICE_SOURCE_DIR "/README.md")};
  for (const QString& path : candidates) {
    if (QFileInfo::exists(path)) {
      QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(path).canonicalFilePath()));
      return;
    }
  }
  statusBar()->showMessage(tr("The documentation is not installed (README.md not found)"), 5000);
}

void MainWindow::createToolBar() {
  const std::pair<const char*, QIcon> icons[] = {
      {"file.open", icons::open()},
      {"file.export", icons::exportArtifact()},
      {"view.zoomIn", icons::zoomIn()},
      {"view.zoomOut", icons::zoomOut()},
      {"view.fit", icons::zoomFit()},
      {"view.find", icons::find()},
      {"debug.start", icons::start()},
      {"debug.step", icons::step()},
      {"debug.continue", icons::continueRun()},
      {"debug.runToSelected", icons::runToCursor()},
      {"debug.breakpoint", icons::breakpoint()},
      {"debug.stop", icons::stop()},
  };
  for (const auto& [id, icon] : icons)
    action(QString::fromLatin1(id))->setIcon(icon);
  action(QStringLiteral("file.open"))->setIconText(tr("Open"));
  action(QStringLiteral("file.export"))->setIconText(tr("Export"));
  action(QStringLiteral("debug.start"))->setIconText(tr("Start"));
  action(QStringLiteral("debug.runToSelected"))->setIconText(tr("Run to Node"));
  action(QStringLiteral("debug.breakpoint"))->setIconText(tr("Breakpoint"));
  // Tooltips name the shortcut, as debuggers do.
  for (QAction* a : std::as_const(m_actions))
    if (!a->shortcut().isEmpty())
      a->setToolTip(a->text().remove(QLatin1Char('&')).remove(QStringLiteral("…")) + QStringLiteral(" (") +
                    a->shortcut().toString(QKeySequence::NativeText) + QLatin1Char(')'));

  QToolBar* bar = addToolBar(tr("Main"));
  bar->setObjectName(QStringLiteral("mainToolBar"));
  bar->setIconSize(QSize(20, 20));
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  bar->setMovable(false);
  bar->addAction(action(QStringLiteral("file.open")));
  bar->addAction(action(QStringLiteral("file.export")));
  bar->addSeparator();
  for (const char* id : {"view.zoomIn", "view.zoomOut", "view.fit", "view.find"}) {
    bar->addAction(action(QString::fromLatin1(id)));
    if (auto* button = bar->widgetForAction(action(QString::fromLatin1(id))))
      static_cast<QToolButton*>(button)->setToolButtonStyle(Qt::ToolButtonIconOnly);
  }
  // The Debug buttons act on the model tab: their own bar, hidden on artifact and compare tabs.
  m_debugBar = addToolBar(tr("Debug"));
  m_debugBar->setObjectName(QStringLiteral("debugToolBar"));
  m_debugBar->setIconSize(QSize(20, 20));
  m_debugBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  m_debugBar->setMovable(false);
  for (const char* id : {"debug.start", "debug.step", "debug.continue", "debug.runToSelected",
                         "debug.breakpoint", "debug.stop"})
    m_debugBar->addAction(action(QString::fromLatin1(id)));
}

void MainWindow::createStatusBar() {
  m_modelLabel = new QLabel(this);
  m_stateLabel = new QLabel(this);
  m_zoomLabel = new QLabel(this);
  m_stateLabel->setTextFormat(Qt::RichText);
  statusBar()->addWidget(m_modelLabel, 1);
  statusBar()->addPermanentWidget(m_stateLabel);
  statusBar()->addPermanentWidget(m_zoomLabel);
  connect(m_graph->view(), &GraphView::zoomChanged, this,
          [this](qreal z) { m_zoomLabel->setText(QString::number(qRound(z * 100)) + QLatin1Char('%')); });
}

void MainWindow::connectSession() {
  StudioSession* s = m_session;
  connect(s, &StudioSession::modelLoadStarted, this, [this](const QString& ref) {
    statusBar()->showMessage(m_session->isReloading() ? tr("Reloading %1…").arg(ref) : tr("Loading %1…").arg(ref));
    m_diskChanges.remove(m_graph); // what is read now is what the tab will show
    updateChangedBar();
    m_modelRequested = true;
    updateModelTabVisibility();
    m_tabs->setCurrentWidget(m_graph); // show what is being opened
    updateActions();
  });
  connect(s, &StudioSession::modelLoaded, this, [this] {
    // The tab shows what was just read; a file written meanwhile is reported again.
    m_diskChanges.remove(m_graph);
    updateChangedBar();
    statusBar()->clearMessage();
    addRecent(m_session->modelReference());
    updateTitle();
  });
  connect(s, &StudioSession::weightsLoaded, this, [this] {
    updateTitle();
    updateStatus();
  });
  connect(s, &StudioSession::artifactExported, this, [this](const QString& directory) {
    m_rememberedExport = directory;
    saveSetting(QStringLiteral("paths/lastExport"), directory);
    setLastArtifact(directory);
    // A tab showing what the studio just wrote shows the new artifact.
    if (ArtifactView* view = artifactView(directory)) reloadTab(view);
    updateActions();
  });
  connect(s, &StudioSession::modelLoadFailed, this, [this](const QString& message) {
    if (m_session->isReloading()) {
      // The model read before stays, whole (its weights are in memory): say so on the bar.
      statusBar()->showMessage(tr("Reload failed: %1").arg(message));
      m_diskChanges[m_graph].reloadError = message;
      updateChangedBar();
    } else {
      statusBar()->showMessage(tr("Open failed: %1").arg(message));
    }
    updateActions();
  });
  connect(s, &StudioSession::modelReloaded, this,
          [this](const QString& summary) { statusBar()->showMessage(summary, 15000); });
  connect(s->modelWatcher(), &FileChangeWatcher::changed, this,
          [this](const QStringList& files) { onFilesChanged(m_graph, files); });
  connect(s, &StudioSession::modelLoadCancelled, this, [this] {
    // A cancelled reload leaves the change it was to take in.
    if (m_session->modelWatcher()->hasPendingChange())
      onFilesChanged(m_graph, m_session->modelWatcher()->changedFiles());
    statusBar()->showMessage(tr("Loading cancelled"), 4000);
    updateActions();
  });
  connect(s, &StudioSession::traceFailed, this,
          [this](const QString& message) { statusBar()->showMessage(tr("Trace failed: %1").arg(message)); });
  for (auto signal : {&StudioSession::graphChanged, &StudioSession::interpreterReset,
                      &StudioSession::interpreterFinished, &StudioSession::breakpointsChanged})
    connect(s, signal, this, [this] {
      updateActions();
      updateStatus();
    });
  connect(s, &StudioSession::interpreterStepped, this, [this] {
    updateActions();
    updateStatus();
  });
  connect(s, &StudioSession::interpreterFailed, this, [this] {
    updateActions();
    updateStatus();
  });
  connect(s, &StudioSession::selectionChanged, this, [this] { updateActions(); });
  connect(s, &StudioSession::runningChanged, this, [this] {
    updateActions();
    updateStatus();
  });
}

void MainWindow::updateActions() {
  const bool hasGraph = m_session->graph() != nullptr;
  const bool hasModel = m_session->model() != nullptr;
  const bool modelTab = m_modelTabActive; // Debug and the model-graph View actions act on it
  const auto state = m_session->interpreterState();
  const bool paused = state == StudioSession::InterpreterState::Paused;
  const bool running = m_session->isRunning();
  const bool canRun =
      modelTab && hasModel && !running && (state == StudioSession::InterpreterState::NotStarted || paused);
  action(QStringLiteral("file.export"))->setEnabled(hasModel);
  QWidget* current = m_tabs->currentWidget();
  bool reloadable = false;
  if (current == m_graph)
    reloadable = hasModel && !m_session->isLoading() && !m_session->modelReference().isEmpty();
  else if (auto* artifactTab = qobject_cast<ArtifactView*>(current))
    reloadable = !artifactTab->path().isEmpty();
  else
    reloadable = qobject_cast<CompareView*>(current) != nullptr;
  action(QStringLiteral("file.reload"))->setEnabled(reloadable);
  action(QStringLiteral("file.loadWeights"))->setEnabled(hasModel);
  action(QStringLiteral("tools.compareLast"))->setEnabled(!lastExportComparison().second.isEmpty());
  action(QStringLiteral("file.exportImage"))->setEnabled(modelTab && hasGraph);
  action(QStringLiteral("view.find"))
      ->setEnabled(modelTab || qobject_cast<ArtifactView*>(m_tabs->currentWidget()) != nullptr);
  action(QStringLiteral("view.hierarchical"))->setEnabled(modelTab);
  action(QStringLiteral("view.flat"))->setEnabled(modelTab);
  action(QStringLiteral("debug.start"))->setEnabled(modelTab && hasModel && !running);
  action(QStringLiteral("debug.restart"))->setEnabled(modelTab && hasModel && !running);
  action(QStringLiteral("debug.inputs"))->setEnabled(modelTab && hasModel);
  action(QStringLiteral("debug.step"))->setEnabled(canRun);
  action(QStringLiteral("debug.continue"))->setEnabled(canRun);
  action(QStringLiteral("debug.runToSelected"))->setEnabled(canRun && !m_session->selectedNode().isEmpty());
  action(QStringLiteral("debug.breakpoint"))
      ->setEnabled(modelTab && hasGraph && !m_session->selectedNode().isEmpty());
  QAction* stop = action(QStringLiteral("debug.stop"));
  stop->setEnabled(modelTab && state != StudioSession::InterpreterState::NotStarted);
  stop->setToolTip(
      running ? tr("Interrupt the run (Esc, %1)").arg(stop->shortcut().toString(QKeySequence::NativeText))
              : tr("Stop (%1)").arg(stop->shortcut().toString(QKeySequence::NativeText)));
  auto* artifact = qobject_cast<ArtifactView*>(m_tabs->currentWidget());
  const bool artifactRunning = artifact && artifact->runBar()->isRunning();
  action(QStringLiteral("debug.interrupt"))->setEnabled(running || m_numeric->isRunning() || artifactRunning);
  action(QStringLiteral("debug.runInputs"))
      ->setEnabled((modelTab && hasModel && !m_numeric->isRunning()) ||
                   (artifact && !artifactRunning && !artifact->path().isEmpty()));
  action(QStringLiteral("debug.numericInputs"))->setEnabled(modelTab && hasModel && !m_numeric->isRunning());
  auto* compare = qobject_cast<CompareView*>(m_tabs->currentWidget());
  action(QStringLiteral("debug.firstDivergent"))
      ->setEnabled((modelTab && !m_numeric->firstDivergentNode().isEmpty()) ||
                   (compare && compare->numericDiff() && compare->numericDiff()->firstDivergent >= 0));
}

void MainWindow::updateStatus() {
  const fx::Graph* g = m_session->graph();
  QString model = m_session->modelReference();
  if (g) model += tr("  ·  %1 nodes").arg(g->size());
  if (!m_session->weightsSource().isEmpty())
    model += tr("  ·  weights: %1").arg(QFileInfo(m_session->weightsSource()).fileName());
  if (!m_session->breakpoints().isEmpty())
    model += m_session->breakpoints().size() == 1
                 ? tr("  ·  1 breakpoint")
                 : tr("  ·  %1 breakpoints").arg(m_session->breakpoints().size());
  m_modelLabel->setText(model);
  QString state;
  switch (m_session->interpreterState()) {
  case StudioSession::InterpreterState::NotStarted:
    state = tr("interpreter idle (F5 to start, F10 to step)");
    break;
  case StudioSession::InterpreterState::Paused:
    if (m_session->isRunning()) {
      const QLocale locale;
      state = tr("running… node %1 / %2 (Esc to interrupt)")
                  .arg(locale.toString(m_session->executedNodes().size()),
                       locale.toString(m_session->totalNodes()));
      break;
    }
    state = tr("paused before <b>%1</b> · %2 executed")
                .arg(m_session->currentNode().toHtmlEscaped())
                .arg(m_session->executedNodes().size());
    break;
  case StudioSession::InterpreterState::Finished:
    state = tr("<span style='color:#2e7d32'>finished</span> · %1 executed")
                .arg(m_session->executedNodes().size());
    break;
  case StudioSession::InterpreterState::Failed:
    state =
        tr("<span style='color:#c62828'>failed at <b>%1</b></span>")
            .arg(m_session->failedNode().isEmpty() ? tr("start") : m_session->failedNode().toHtmlEscaped());
    break;
  }
  m_stateLabel->setText(state);
}

void MainWindow::readSettings() {
  QSettings s = settings();
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  m_restoredLayout = restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  if (s.value(QStringLiteral("window/geometry")).isNull()) resize(1500, 950);
  m_recent = s.value(QStringLiteral("recentFiles")).toStringList();
  m_lastDirectory = s.value(QStringLiteral("paths/lastDirectory"), QDir::homePath()).toString();
  m_weightsDirectory = s.value(QStringLiteral("paths/weightsDirectory"), m_lastDirectory).toString();
  m_rememberedExport = s.value(QStringLiteral("paths/lastExport")).toString();
  m_lastArtifact = s.value(QStringLiteral("paths/lastArtifact"), m_rememberedExport).toString();
  m_compareA = s.value(QStringLiteral("paths/compareA")).toString();
  m_compareB = s.value(QStringLiteral("paths/compareB")).toString();
  action(QStringLiteral("view.minimap"))
      ->setChecked(s.value(QStringLiteral("options/minimap"), true).toBool());
  action(QStringLiteral("view.legend"))->setChecked(s.value(QStringLiteral("options/legend"), true).toBool());
  const bool hierarchical = s.value(QStringLiteral("options/hierarchical"), true).toBool();
  action(hierarchical ? QStringLiteral("view.hierarchical") : QStringLiteral("view.flat"))->setChecked(true);
  m_graph->setHierarchical(hierarchical);
  rebuildRecentMenu();
}

void MainWindow::writeLayoutSettings() const {
  QSettings s = settings();
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  // Panels hidden for an artifact tab are the model tab's layout, not the user's choice.
  s.setValue(QStringLiteral("window/state"), m_modelTabActive ? saveState() : m_modelDockLayout);
}

void MainWindow::scheduleLayoutSave() {
  // Only a window on screen has a layout of the user's (not one being built or torn down).
  if (isVisible()) m_layoutSave->start();
}

void MainWindow::setLastDirectory(const QString& directory) {
  m_lastDirectory = directory;
  saveSetting(QStringLiteral("paths/lastDirectory"), directory);
}

void MainWindow::setLastArtifact(const QString& path) {
  m_lastArtifact = path;
  saveSetting(QStringLiteral("paths/lastArtifact"), path);
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  scheduleLayoutSave();
}

void MainWindow::moveEvent(QMoveEvent* event) {
  QMainWindow::moveEvent(event);
  scheduleLayoutSave();
}

void MainWindow::childEvent(QChildEvent* event) {
  QMainWindow::childEvent(event);
  // Panels save the layout when they are docked elsewhere, floated, resized, shown or hidden.
  if (event->type() != QEvent::ChildAdded && event->type() != QEvent::ChildPolished) return;
  auto* dock = qobject_cast<QDockWidget*>(event->child());
  if (!dock || dock->property("latticeLayoutWatched").toBool()) return;
  dock->setProperty("latticeLayoutWatched", true);
  dock->installEventFilter(this);
  connect(dock, &QDockWidget::dockLocationChanged, this, &MainWindow::scheduleLayoutSave);
  connect(dock, &QDockWidget::topLevelChanged, this, &MainWindow::scheduleLayoutSave);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  switch (event->type()) {
  case QEvent::Resize:
  case QEvent::Move:
  case QEvent::Show:
  case QEvent::Hide:
    if (qobject_cast<QDockWidget*>(watched)) scheduleLayoutSave();
    break;
  default:
    break;
  }
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::writeSettings() const {
  writeLayoutSettings();
  QSettings s = settings();
  s.setValue(QStringLiteral("recentFiles"), m_recent);
  s.setValue(QStringLiteral("paths/lastDirectory"), m_lastDirectory);
  s.setValue(QStringLiteral("paths/weightsDirectory"), m_weightsDirectory);
  s.setValue(QStringLiteral("paths/compareA"), m_compareA);
  s.setValue(QStringLiteral("paths/compareB"), m_compareB);
  s.setValue(QStringLiteral("paths/lastArtifact"), m_lastArtifact);
  s.setValue(QStringLiteral("options/minimap"), action(QStringLiteral("view.minimap"))->isChecked());
  s.setValue(QStringLiteral("options/legend"), action(QStringLiteral("view.legend"))->isChecked());
  s.setValue(QStringLiteral("options/hierarchical"),
             action(QStringLiteral("view.hierarchical"))->isChecked());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  m_layoutSave->stop();
  writeSettings();
  m_session->cancelLoad();
  event->accept();
}

void MainWindow::addRecent(const QString& reference) {
  if (reference.isEmpty()) return;
  m_recent.removeAll(reference);
  m_recent.prepend(reference);
  while (m_recent.size() > kMaxRecent)
    m_recent.removeLast();
  rebuildRecentMenu();
  saveSetting(QStringLiteral("recentFiles"), m_recent);
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  for (const QString& ref : std::as_const(m_recent)) {
    QAction* a = m_recentMenu->addAction(ref);
    connect(a, &QAction::triggered, this, [this, ref] {
      if (isArtifactPath(ref))
        openArtifact(ref);
      else
        openModel(ref);
    });
  }
  m_recentMenu->setEnabled(!m_recent.isEmpty());
  if (!m_recent.isEmpty()) {
    m_recentMenu->addSeparator();
    connect(m_recentMenu->addAction(tr("Clear Recent Files")), &QAction::triggered, this, [this] {
      m_recent.clear();
      rebuildRecentMenu();
      saveSetting(QStringLiteral("recentFiles"), m_recent);
    });
  }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QMimeData* mime = event->mimeData();
  if (mime->hasUrls() && mime->urls().size() == 1 && mime->urls().front().isLocalFile())
    event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.isEmpty()) return;
  QString path = urls.front().toLocalFile();
  // A file dropped from inside an archive or artifact stands for its directory; a lone .mlir
  // is an artifact of its own.
  QFileInfo info(path);
  const bool loneMlir =
      info.isFile() && info.suffix() == QLatin1String("mlir") && !isArtifactPath(info.absolutePath());
  if (info.isFile() && !loneMlir) path = info.absolutePath();
  event->acceptProposedAction();
  if (isArtifactPath(path))
    openArtifact(path);
  else
    openModel(path);
}

} // namespace lattice::studio
