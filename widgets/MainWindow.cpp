// MainWindow: the tabs and what the window does with them, the window's own actions and the
// menus the tabs' actions are merged into, the status bar, settings persistence, drag and drop.
// What acts on one kind of tab lives with the tab (ModelDocument, ArtifactView, CompareView);
// panels live in widgets/panels, the dock layout in PanelDocks, the changed-on-disk bar in
// ChangedOnDiskBar.

#include "MainWindow.h"

#include "ChangedOnDiskBar.h"
#include "LeafEdits.h"
#include "ModelDocument.h"
#include "OpenDialogs.h"
#include "PanelDocks.h"
#include "RecentFiles.h"
#include "StatusBarFit.h"
#include "StudioIcons.h"
#include "StudioSession.h"
#include "WeightsLoader.h"
#include "WindowFit.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactTabs.h"
#include "artifactview/ArtifactView.h"
#include "graph/GraphView.h"
#include "help/DocumentationWindow.h"
#include "help/HelpDialogs.h"
#include "numeric/NumericRun.h"

#include <QAction>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
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

/// `menu`'s named actions and those of its submenus.
void collectNamed(const QList<QAction*>& actions, QHash<QString, QAction*>& into) {
  for (QAction* a : actions) {
    if (!a->objectName().isEmpty()) into.insert(a->objectName(), a);
    if (QMenu* sub = a->menu()) collectNamed(sub->actions(), into);
  }
}

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
  connect(m_tabs, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
  // The changed-on-disk bar sits above the tabs and speaks for the current one.
  auto* central = new QWidget(this);
  auto* centralLayout = new QVBoxLayout(central);
  centralLayout->setContentsMargins(0, 0, 0, 0);
  centralLayout->setSpacing(0);
  m_changedBar = new ChangedOnDiskBar(this);
  connect(m_changedBar, &ChangedOnDiskBar::reloadRequested, this, [this] { reloadTab(m_tabs->currentWidget()); });
  centralLayout->addWidget(m_changedBar);
  centralLayout->addWidget(m_tabs, 1);
  setCentralWidget(central);
  m_numeric = new NumericRun(m_session, this);
  m_model = new ModelDocument(m_session, m_numeric, m_tabs);
  m_documents << m_model;
  m_tabs->addTab(m_model, m_model->title());
  m_tabs->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr); // the model tab stays
  m_tabs->tabBar()->setTabButton(0, QTabBar::LeftSide, nullptr);
  connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onCurrentTabChanged);
  m_changedBar->setCurrent(m_model);
  m_docks = new PanelDocks(this);
  m_artifacts = new ArtifactTabs(m_session, m_tabs, this);
  connect(m_artifacts, &ArtifactTabs::tabCreated, this, [this](StudioDocument* doc) {
    addDocument(doc);
    m_tabs->setCurrentWidget(doc);
    updateModelTabVisibility();
  });
  connect(m_artifacts, &ArtifactTabs::artifactValidated, this, [this](const QString& path) {
    m_recent->add(path);
    m_recent->setLastArtifact(path);
  });
  connect(m_artifacts, &ArtifactTabs::statusMessage, this,
          [this](const QString& text, int timeoutMs) { statusBar()->showMessage(text, timeoutMs); });
  createActions();
  createMenus();
  adoptDocument(m_model);
  createToolBar();
  // The model line is a normal widget: a message replaces it. The permanent widgets on the
  // right never widen the window and leave a message most of the bar (fitStatusBar).
  statusBar()->addWidget(m_model->modelLine(), 1);
  m_model->modelLine()->setMinimumWidth(0);
  m_model->modelLine()->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  new StatusBarFit(statusBar(), m_model->statusWidgets()); // a child of the bar
  connectSession();
  readSettings();
  // After readSettings: a dock takes its saved place when the layout has one.
  for (const auto& [dock, area] : m_model->createPanels(this))
    addPanel(dock, area);
  m_model->setCurrent(true);
  updateActions();
}

MainWindow::~MainWindow() {
  // Children outlive this part of the window (~QWidget deletes them afterwards, the session first,
  // whose undo stack emits indexChanged as it is cleared; docks report their visibility): none
  // of them reaches this window, its layout watcher or the model tab any more.
  m_docks->stop();
  m_model->detach();
  for (QObject* child : findChildren<QObject*>())
    disconnect(child, nullptr, this, nullptr);
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

GraphWidget* MainWindow::graphWidget() const {
  return m_model->graphWidget();
}

QString MainWindow::lastArtifact() const {
  return m_recent->lastArtifact();
}

QStringList MainWindow::recentFiles() const {
  return m_recent->references();
}

QFrame* MainWindow::changedOnDiskBar() const {
  return m_changedBar;
}

StudioDocument* MainWindow::document(const QWidget* tab) const {
  for (StudioDocument* doc : m_documents)
    if (doc == tab) return doc;
  return nullptr;
}

StudioDocument* MainWindow::currentDocument() const {
  return document(m_tabs->currentWidget());
}

void MainWindow::createActions() {
  // The window's actions: id, text, shortcut, what they do.
  const auto add = [this](const char* id, const QString& text, const QKeySequence& shortcut, auto slot) {
    QAction* a = makeAction(QString::fromLatin1(id), text, shortcut);
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  // File
  add("file.open", tr("&Open Model…"), QKeySequence::Open, [this] {
    ModelFileDialog dialog(this, m_recent->lastDirectory());
    if (dialog.exec() == QDialog::Accepted && !dialog.chosen().isEmpty()) openModel(dialog.chosen());
  });
  add("file.openArtifact", tr("Open &Artifact…"), QKeySequence(tr("Ctrl+Shift+O")),
      [this] { openArtifact(chooseArtifact(this, m_recent->lastArtifact(), m_recent->lastDirectory())); });
  // Reload: Ctrl+R is Run on Inputs and F5 Start; Ctrl+Shift+R reloads, as in browsers.
  add("file.reload", tr("&Reload"), QKeySequence(tr("Ctrl+Shift+R")), [this] { reloadTab(m_tabs->currentWidget()); });
  m_changedBar->setReloadShortcut(action(QStringLiteral("file.reload"))->shortcut());
  add("file.closeTab", tr("&Close Tab"), QKeySequence::Close, [this] { closeTab(m_tabs->currentIndex()); });
  add("file.quit", tr("&Quit"), QKeySequence::Quit, [this] { close(); })->setMenuRole(QAction::QuitRole);

  // Edit: the module tree's leaf decisions can be undone and redone.
  LeafEdits* edits = LeafEdits::of(m_session);
  const auto addEdit = [this](QAction* a, const char* id, const QKeySequence& shortcut) {
    a->setObjectName(QString::fromLatin1(id));
    a->setShortcut(shortcut);
    m_actions.insert(a->objectName(), a);
  };
  addEdit(edits->createUndoAction(this, tr("&Undo")), "edit.undo", QKeySequence::Undo);
  addEdit(edits->createRedoAction(this, tr("&Redo")), "edit.redo", QKeySequence(tr("Ctrl+Shift+Z")));
  // An undo from an artifact tab changes the model's graph: show it.
  connect(edits, &QUndoStack::indexChanged, this, [this] {
    if (!m_modelTabActive && m_tabs->isTabVisible(0)) m_tabs->setCurrentWidget(m_model);
  });

  // View: zoom, fit and find act on the current tab's graph.
  add("view.zoomIn", tr("Zoom &In"), QKeySequence::ZoomIn, [this] { currentGraphView()->zoomIn(); });
  add("view.zoomOut", tr("Zoom &Out"), QKeySequence::ZoomOut, [this] { currentGraphView()->zoomOut(); });
  add("view.fit", tr("&Fit to Window"), QKeySequence(tr("Ctrl+0")), [this] { currentGraphView()->fitToView(); });
  add("view.find", tr("&Find…"), QKeySequence::Find, [this] {
    StudioDocument* doc = currentDocument();
    if (doc && doc->can(StudioDocument::Capability::Find)) doc->find();
  });

  add("tools.compare", tr("&Compare Artifacts…"), QKeySequence(tr("Ctrl+Shift+D")),
      [this] { m_artifacts->chooseAndCompare(currentArtifact()); });
  add("tools.compareLast", tr("Compare with &Last Export"), QKeySequence(tr("Ctrl+Alt+D")),
      [this] { compareWithLastExport(); });

  add("help.shortcuts", tr("&Keyboard Shortcuts"), QKeySequence(tr("Ctrl+/")), [this] { showShortcuts(); });
  add("help.documentation", tr("&Documentation"), QKeySequence(Qt::Key_F1), [this] { openDocumentation(); });
  add("help.about", tr("&About Lattice Studio"), {}, [this] { showAboutDialog(this); });

  // Debug: what any tab may run (the model tab's interpreter actions are its own).
  // Run on Inputs: the model (lowered in memory), or the artifact whose tab is current.
  add("debug.runInputs", tr("Run on In&puts"), QKeySequence(tr("Ctrl+R")), [this] {
    if (StudioDocument* doc = currentDocument()) doc->run();
  });
  // The model's first node off the recorded golden, or Run Both's first op over the tolerance.
  add("debug.firstDivergent", tr("Go to First &Divergent Node"), QKeySequence(tr("Ctrl+Shift+G")), [this] {
    if (StudioDocument* doc = currentDocument()) doc->goToFirstDivergent();
  });
  // Esc interrupts the model's run and the current tab's; enabled only while one goes on, so
  // Esc keeps its other uses. Not in a menu: Debug ▸ Stop does the same while running.
  QAction* interrupt = add("debug.interrupt", tr("&Interrupt Run"), QKeySequence(Qt::Key_Escape), [this] {
    m_model->interrupt();
    StudioDocument* doc = currentDocument();
    if (doc && doc != m_model) doc->interrupt();
  });
  interrupt->setShortcutContext(Qt::WindowShortcut);
  addAction(interrupt);
}

void MainWindow::createMenus() {
  // Menus of the window's actions by id (nullptr: a separator); the tabs' go before `sections`.
  const auto add = [this](QMenu* menu, std::initializer_list<const char*> ids) {
    for (const char* id : ids)
      if (id)
        menu->addAction(action(QString::fromLatin1(id)));
      else
        menu->addSeparator();
  };
  using Section = StudioDocument::MenuSection;
  QMenu* file = menuBar()->addMenu(tr("&File"));
  add(file, {"file.open"});
  fillExamplesMenu(file->addMenu(tr("Open E&xample")), this,
                   [this](const QString& example) { openModel(example); });
  add(file, {"file.openArtifact"});
  m_recent = new RecentFiles(file->addMenu(tr("&Recent Files")), m_artifacts->rememberedExport(), this);
  connect(m_recent, &RecentFiles::openRequested, this, &MainWindow::open);
  add(file, {"file.reload", nullptr});
  m_sections.insert(int(Section::File), {file, file->addSeparator()});
  add(file, {"file.closeTab", "file.quit"});
  add(menuBar()->addMenu(tr("&Edit")), {"edit.undo", "edit.redo"});
  QMenu* view = menuBar()->addMenu(tr("&View"));
  add(view, {"view.zoomIn", "view.zoomOut", "view.fit", nullptr, "view.find", nullptr});
  m_panelsMenu = view->addMenu(tr("&Panels"));
  m_sections.insert(int(Section::View), {view, m_panelsMenu->menuAction()});
  add(menuBar()->addMenu(tr("&Tools")), {"tools.compare", "tools.compareLast"});
  QMenu* debug = menuBar()->addMenu(tr("&Debug"));
  add(debug, {"debug.runInputs", "debug.firstDivergent"});
  m_sections.insert(int(Section::Debug), {debug, action(QStringLiteral("debug.runInputs"))});
  m_sections.insert(int(Section::DebugRun), {debug, action(QStringLiteral("debug.firstDivergent"))});
  add(menuBar()->addMenu(tr("&Help")), {"help.shortcuts", "help.documentation", nullptr, "help.about"});
}

void MainWindow::adoptDocument(StudioDocument* doc) {
  using Section = StudioDocument::MenuSection;
  for (Section section : {Section::File, Section::View, Section::Debug, Section::DebugRun}) {
    const QList<QAction*> actions = doc->menuActions(section);
    const auto [menu, before] = m_sections.value(int(section));
    menu->insertActions(before, actions);
    collectNamed(actions, m_actions);
  }
  collectNamed(doc->toolBarActions(), m_actions);
  connect(doc, &StudioDocument::capabilitiesChanged, this, &MainWindow::updateActions);
  connect(doc, &StudioDocument::statusMessage, this,
          [this](const QString& text, int timeoutMs) { statusBar()->showMessage(text, timeoutMs); });
  connect(doc, &StudioDocument::filesRead, this, [this, doc] { m_changedBar->clear(doc); });
  connect(doc, &StudioDocument::filesChanged, this,
          [this, doc](const QStringList& files) { m_changedBar->setChanged(doc, files); });
  connect(doc, &StudioDocument::reloadFailed, this,
          [this, doc](const QString& message) { m_changedBar->setReloadFailed(doc, message); });
}

void MainWindow::addDocument(StudioDocument* doc) {
  m_documents << doc;
  const int index = m_tabs->addTab(doc, doc->title());
  m_tabs->setTabToolTip(index, doc->tabToolTip());
  adoptDocument(doc);
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

DocumentationWindow* MainWindow::documentationWindow() const {
  return m_documentation;
}

void MainWindow::openDocumentation() {
  const QString file = documentationFile();
  if (file.isEmpty()) {
    statusBar()->showMessage(tr("The documentation is not installed (README.md not found)"), 5000);
    return;
  }
  const QUrl url = QUrl::fromLocalFile(file);
  if (m_urlOpener ? m_urlOpener(url) : QDesktopServices::openUrl(url)) return;
  // No handler for local files (a bare X session, a container): the studio shows it.
  if (!m_documentation) {
    m_documentation = new DocumentationWindow(file, this);
    m_documentation->setAttribute(Qt::WA_DeleteOnClose);
  }
  m_documentation->show();
  m_documentation->raise();
  m_documentation->activateWindow();
}

void MainWindow::createToolBar() {
  const std::pair<const char*, QIcon> icons[] = {{"file.open", icons::open()},     {"view.zoomIn", icons::zoomIn()},
                                                 {"view.zoomOut", icons::zoomOut()}, {"view.fit", icons::zoomFit()},
                                                 {"view.find", icons::find()}};
  for (const auto& [id, icon] : icons)
    action(QString::fromLatin1(id))->setIcon(icon);
  action(QStringLiteral("file.open"))->setIconText(tr("Open"));
  nameShortcutsInToolTips(m_actions.values());

  const auto makeBar = [this](const QString& title, const char* name) {
    QToolBar* bar = addToolBar(title);
    bar->setObjectName(QString::fromLatin1(name));
    bar->setIconSize(QSize(20, 20));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setMovable(false);
    return bar;
  };
  QToolBar* bar = makeBar(tr("Main"), "mainToolBar");
  bar->addAction(action(QStringLiteral("file.open")));
  bar->addAction(action(QStringLiteral("file.export")));
  bar->addSeparator();
  for (const char* id : {"view.zoomIn", "view.zoomOut", "view.fit", "view.find"}) {
    bar->addAction(action(QString::fromLatin1(id)));
    if (auto* button = bar->widgetForAction(action(QString::fromLatin1(id))))
      static_cast<QToolButton*>(button)->setToolButtonStyle(Qt::ToolButtonIconOnly);
  }
  // The model tab's buttons: their own bar, hidden on artifact and compare tabs.
  m_debugBar = makeBar(tr("Debug"), "debugToolBar");
  m_debugBar->addActions(m_model->toolBarActions());
}

void MainWindow::addPanel(QDockWidget* dock, Qt::DockWidgetArea area) {
  m_panelsMenu->addAction(dock->toggleViewAction());
  m_docks->add(dock, area);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (m_docks->hasPendingSizes()) QTimer::singleShot(0, m_docks, &PanelDocks::applyDefaultSizes);
}

void MainWindow::connectSession() {
  // The model tab says what the session's signals mean for it; the window follows the model.
  StudioSession* s = m_session;
  connect(s, &StudioSession::modelLoadStarted, this, [this] {
    m_modelRequested = true;
    updateModelTabVisibility();
    m_tabs->setCurrentWidget(m_model); // show what is being opened
    updateActions();
  });
  connect(s, &StudioSession::modelLoaded, this, [this] {
    m_recent->add(m_session->modelReference());
    updateTitle();
  });
  connect(s, &StudioSession::weightsLoaded, this, &MainWindow::updateTitle);
  connect(m_model, &ModelDocument::artifactOpenRequested, this, &MainWindow::openArtifact);
  connect(s, &StudioSession::artifactExported, this, [this](const QString& directory) {
    m_artifacts->setRememberedExport(directory);
    m_recent->setLastArtifact(directory);
    // A tab showing what the studio just wrote shows the new artifact.
    if (ArtifactView* view = artifactView(directory)) reloadTab(view);
    updateActions();
  });
}

void MainWindow::updateActions() {
  using Capability = StudioDocument::Capability;
  StudioDocument* doc = currentDocument();
  const auto can = [doc](Capability c) { return doc && doc->can(c); };
  action(QStringLiteral("file.reload"))->setEnabled(can(Capability::Reload));
  action(QStringLiteral("tools.compareLast"))->setEnabled(!lastExportComparison().second.isEmpty());
  action(QStringLiteral("view.find"))->setEnabled(can(Capability::Find));
  action(QStringLiteral("debug.interrupt"))
      ->setEnabled(m_model->can(Capability::Interrupt) || (doc != m_model && can(Capability::Interrupt)));
  action(QStringLiteral("debug.runInputs"))->setEnabled(can(Capability::Run));
  action(QStringLiteral("debug.firstDivergent"))->setEnabled(can(Capability::FirstDivergent));
}

void MainWindow::onCurrentTabChanged(int index) {
  StudioDocument* current = document(m_tabs->widget(index));
  const bool model = index < 0 || current == m_model;
  if (model != m_modelTabActive) {
    m_modelTabActive = model;
    if (!model) {
      m_docks->hide();
      m_debugBar->hide();
    } else {
      m_docks->show(); // the layout kept shows the Debug tool bar again
    }
  }
  m_changedBar->setCurrent(current);
  for (StudioDocument* doc : std::as_const(m_documents))
    if (doc->isCurrent() != (doc == current)) doc->setCurrent(doc == current);
  updateTitle();
  updateActions();
}

void MainWindow::updateModelTabVisibility() {
  const bool visible = m_modelRequested || m_tabs->count() == 1;
  if (m_tabs->isTabVisible(0) == visible) return;
  m_tabs->setTabVisible(0, visible);
  if (!visible && m_tabs->currentIndex() == 0) m_tabs->setCurrentIndex(m_tabs->count() - 1);
}

// --- tabs ----------------------------------------------------------------------------------------

QList<ArtifactView*> MainWindow::artifactViews() const {
  return m_artifacts->artifactViews();
}

QList<CompareView*> MainWindow::compareViews() const {
  return m_artifacts->compareViews();
}

ArtifactView* MainWindow::artifactView(const QString& path) const {
  return m_artifacts->artifactView(path);
}

QString MainWindow::currentArtifact() const {
  StudioDocument* doc = currentDocument();
  return doc ? doc->artifactPath() : QString();
}

GraphView* MainWindow::currentGraphView() const {
  StudioDocument* doc = currentDocument();
  return (doc ? doc : m_model)->shownGraph();
}

FileChangeWatcher* MainWindow::fileWatcher(QWidget* tab) const {
  StudioDocument* doc = document(tab);
  return doc ? doc->fileWatcher() : nullptr;
}

void MainWindow::closeTab(int index) {
  if (index <= 0 || index >= m_tabs->count()) return; // the model tab stays
  QWidget* w = m_tabs->widget(index);
  StudioDocument* doc = document(w);
  m_changedBar->clear(doc);
  m_documents.removeAll(doc);
  m_artifacts->forget(w);
  m_tabs->removeTab(index);
  w->deleteLater();
  updateModelTabVisibility();
}

void MainWindow::reloadTab(QWidget* tab) {
  StudioDocument* doc = document(tab);
  if (!doc) return;
  doc->reload();
  updateActions();
}

void MainWindow::openArtifact(const QString& directory) {
  if (directory.isEmpty()) return;
  m_recent->setLastDirectory(QFileInfo(directory).absolutePath());
  if (m_artifactOpener) {
    m_artifactOpener(directory);
    m_recent->add(directory);
    return;
  }
  ArtifactView* view = artifactView(directory);
  if (view)
    reloadTab(view);
  else
    view = m_artifacts->openArtifact(directory);
  m_tabs->setCurrentWidget(view);
  updateModelTabVisibility();
  updateActions();
}

CompareView* MainWindow::compareArtifacts(const QString& a, const QString& b) {
  return m_artifacts->compare(a, b);
}

std::pair<QString, QString> MainWindow::lastExportComparison() const {
  return m_artifacts->lastExportComparison(currentArtifact());
}

CompareView* MainWindow::compareWithLastExport() {
  return m_artifacts->compareWithLastExport(currentArtifact());
}

// --- File ----------------------------------------------------------------------------------------

void MainWindow::openModel(const QString& reference) {
  if (reference.isEmpty()) return;
  if (!reference.startsWith(QStringLiteral("example:")))
    m_recent->setLastDirectory(QFileInfo(reference).absolutePath());
  m_session->openModel(reference);
}

void MainWindow::loadWeights(const QString& path) {
  m_model->weightsLoader()->load(path);
}

void MainWindow::updateTitle() {
  // The current tab's document, as editors name theirs.
  StudioDocument* doc = currentDocument();
  QString title = doc ? doc->sourceName() : QString();
  if (doc == m_model && !title.isEmpty() && !m_session->weightsSource().isEmpty())
    title += tr(" [weights: %1]").arg(QFileInfo(m_session->weightsSource()).fileName());
  setWindowTitle(title.isEmpty() ? tr("Lattice Studio") : tr("%1 — Lattice Studio").arg(title));
}

// --- settings --------------------------------------------------------------------------------------

void MainWindow::readSettings() {
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  m_docks->setRestoredLayout(restoreState(s.value(QStringLiteral("window/state")).toByteArray()));
  if (s.value(QStringLiteral("window/geometry")).isNull()) {
    // First start: most of the screen, never more than it.
    const QRect room = availableScreenRect(this);
    resize(std::min(1500, room.width() - 16), std::min(950, room.height() - 48));
  }
  m_model->readSettings(s);
}

void MainWindow::writeSettings() const {
  m_docks->saveLayout();
  m_artifacts->writeSettings();
  m_recent->save();
  QSettings s;
  m_model->writeSettings(s);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  writeSettings();
  m_session->cancelLoad();
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QMimeData* mime = event->mimeData();
  if (mime->hasUrls() && mime->urls().size() == 1 && mime->urls().front().isLocalFile())
    event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.isEmpty()) return;
  event->acceptProposedAction();
  open(droppedReference(urls.front().toLocalFile()));
}

void MainWindow::open(const QString& path) {
  if (isArtifactPath(path))
    openArtifact(path);
  else
    openModel(path);
}

} // namespace lattice::studio
