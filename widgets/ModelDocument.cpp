// ModelDocument: the model tab's actions and what enables them, its status bar widgets, and the
// numeric run's messages. The graph itself is GraphWidget's; the session does the work.

#include "ModelDocument.h"

#include "ElidedLabel.h"
#include "StudioIcons.h"
#include "StudioSession.h"
#include "WeightsLoader.h"
#include "graph/GraphScene.h"
#include "graph/GraphView.h"
#include "graph/GraphWidget.h"
#include "graph/NodeItem.h"
#include "numeric/NodeRankingPanel.h"
#include "numeric/NumericOverlay.h"
#include "numeric/NumericRun.h"
#include "numeric/ValuesPanel.h"
#include "panels/DiagnosticsModel.h"
#include "panels/InterpreterPanel.h"
#include "panels/InputSpecEditor.h"
#include "panels/ExportDialog.h"
#include "panels/Panels.h"
#include "quant/QuantOverlay.h"
#include "quant/QuantizationPanel.h"
#include "quant/QuantizationState.h"
#include "runtime/ValueSummary.h"
#include "session/StepTargets.h"

#include <QAction>
#include <QActionGroup>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>

namespace lattice::studio {

namespace {

/// Settings are written when they change, not only on a clean quit (a crash keeps them).
void saveSetting(const QString& key, const QVariant& value) {
  QSettings().setValue(key, value);
}

/// The interpreter's next node as a node of the graph's grouping; -1 when not paused on one.
int currentGroupedNode(const StudioSession* s, const GraphWidget* graph) {
  const GraphGrouping* grouping = graph->grouping();
  if (!grouping || s->isRunning() || s->interpreterState() != StudioSession::InterpreterState::Paused) return -1;
  return grouping->findNode(s->currentNode().toStdString());
}

/// The collapsed group the view draws for node `current`; -1 when the node has its own box.
int hidingGroup(const GraphWidget* graph, int current) {
  if (current < 0 || !graph->isHierarchical()) return -1;
  return collapsedGroupOf(*graph->grouping(), graph->expandedGroups(), current);
}

QString nodeName(const GraphGrouping& grouping, int node) {
  return node < 0 ? QString() : QString::fromStdString(grouping.nodes()[std::size_t(node)].name);
}

/// F10: one node, or the whole collapsed group the next node is in.
void stepOver(StudioSession* s, GraphWidget* graph) {
  const int current = currentGroupedNode(s, graph);
  if (hidingGroup(graph, current) < 0) {
    s->step(); // one node (on a fresh session: start, paused on the first node)
    return;
  }
  s->runUntil(nodeName(*graph->grouping(), stepOverTarget(*graph->grouping(), graph->expandedGroups(), current)));
}

/// F11: one node; when the next node is hidden in a collapsed group, enter the group instead:
/// expand it to show that node, which runs next, and run nothing yet.
void stepInto(StudioSession* s, GraphWidget* graph) {
  const int current = currentGroupedNode(s, graph);
  if (hidingGroup(graph, current) < 0) {
    s->step();
    return;
  }
  const GraphGrouping& grouping = *graph->grouping();
  graph->expandGroup(QString::fromStdString(grouping.groups()[std::size_t(grouping.nodes()[std::size_t(current)].group)].path));
}

/// Shift+F11: run to the first node after the current node's innermost module group.
void stepOut(StudioSession* s, GraphWidget* graph) {
  const int current = currentGroupedNode(s, graph);
  if (current < 0) return;
  s->runUntil(nodeName(*graph->grouping(), stepOutTarget(*graph->grouping(), current)));
}

} // namespace

ModelDocument::ModelDocument(StudioSession* session, NumericRun* numeric, QWidget* parent)
    : StudioDocument(parent), m_session(session), m_numeric(numeric), m_quant(QuantizationState::of(session)) {
  if (!m_quant) m_quant = new QuantizationState(session, numeric); // the session's child
  StudioDocument::setCurrent(true); // the window starts on the model tab
  m_graph = new GraphWidget(session, this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(m_graph);
  setFocusProxy(m_graph);
  m_weights = new WeightsLoader(session, this);
  connect(m_weights, &WeightsLoader::statusMessage, this, &StudioDocument::statusMessage);

  m_modelLabel = new QLabel(this);
  m_stateLabel = new ElidedLabel(this); // "…" and a tooltip when the status bar is narrow
  m_stateLabel->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred); // its width when there is room
  m_stateLabel->setTextFormat(Qt::RichText);
  m_zoomLabel = new QLabel(this);
  connect(m_graph->view(), &GraphView::zoomChanged, this,
          [this](qreal z) { m_zoomLabel->setText(QString::number(qRound(z * 100)) + QLatin1Char('%')); });

  createFileActions();
  createViewActions();
  createDebugActions();
  createNumericActions();
  connectSession();
  updateActions();
  updateStatus();
}

ModelDocument::~ModelDocument() = default;

void ModelDocument::detach() {
  disconnect(m_session, nullptr, this, nullptr);
  disconnect(m_session->modelWatcher(), nullptr, this, nullptr);
  disconnect(m_numeric, nullptr, this, nullptr);
}

QAction* ModelDocument::makeAction(const QString& id, const QString& text, const QKeySequence& shortcut) {
  auto* a = new QAction(text, this);
  a->setObjectName(id);
  if (!shortcut.isEmpty()) a->setShortcut(shortcut);
  m_named << a;
  return a;
}

QAction* ModelDocument::named(const char* id) const {
  for (QAction* a : m_named)
    if (a->objectName() == QLatin1String(id)) return a;
  Q_ASSERT(false);
  return nullptr;
}

QAction* ModelDocument::separator() {
  auto* a = new QAction(this);
  a->setSeparator(true);
  return a;
}

QString ModelDocument::title() const {
  return tr("Model");
}

QString ModelDocument::sourceName() const {
  return QFileInfo(QDir::cleanPath(m_session->modelReference())).fileName();
}

QString ModelDocument::staleNote() const {
  return tr("The model shown, stepped, run and exported is the one read before; Reload reads it again, keeping "
            "breakpoints, leaf overrides and inputs.");
}

GraphView* ModelDocument::shownGraph() const {
  return m_graph->view();
}

FileChangeWatcher* ModelDocument::fileWatcher() const {
  return m_session->modelWatcher();
}

QList<QAction*> ModelDocument::menuActions(MenuSection section) const {
  switch (section) {
  case MenuSection::File:
    return m_fileActions;
  case MenuSection::View:
    return m_viewActions;
  case MenuSection::Debug:
    return m_debugActions;
  case MenuSection::DebugRun:
    return m_debugRunActions;
  }
  return {};
}

QList<QAction*> ModelDocument::toolBarActions() const {
  return m_toolBar;
}

QList<QWidget*> ModelDocument::statusWidgets() const {
  return {m_overlayLegend, m_runProgress, m_stateLabel, m_zoomLabel};
}

bool ModelDocument::can(Capability capability) const {
  const bool hasModel = m_session->model() != nullptr;
  switch (capability) {
  case Capability::Find:
    return true;
  case Capability::Run:
    return hasModel && !m_numeric->isRunning();
  case Capability::Interrupt:
    return m_session->isRunning() || m_numeric->isRunning();
  case Capability::FirstDivergent:
    return !m_numeric->firstDivergentNode().isEmpty();
  case Capability::Reload:
    return hasModel && !m_session->isLoading() && !m_session->modelReference().isEmpty();
  }
  return false;
}

void ModelDocument::find() {
  m_graph->showSearch();
}

void ModelDocument::run() {
  m_numeric->run();
}

void ModelDocument::interrupt() {
  m_session->interruptRun();
  // Numeric stepping's ops go on: they are the interpreter's, which Esc pauses.
  if (m_numeric->isWholeRun()) m_numeric->cancel();
}

void ModelDocument::goToFirstDivergent() {
  const QString node = m_numeric->firstDivergentNode();
  if (!node.isEmpty()) m_session->selectNode(node);
}

void ModelDocument::reload() {
  if (!m_session->model() || m_session->modelReference().isEmpty()) return;
  m_session->reloadModel(); // filesRead when the load starts
}

void ModelDocument::setCurrent(bool current) {
  StudioDocument::setCurrent(current);
  m_stateLabel->setVisible(current);
  m_zoomLabel->setVisible(current);
  updateActions();
}

void ModelDocument::readSettings(const QSettings& s) {
  m_weights->setDirectory(
      s.value(QStringLiteral("paths/weightsDirectory"), s.value(QStringLiteral("paths/lastDirectory"), QDir::homePath()))
          .toString());
  named("view.minimap")->setChecked(s.value(QStringLiteral("options/minimap"), true).toBool());
  named("view.legend")->setChecked(s.value(QStringLiteral("options/legend"), true).toBool());
  const bool hierarchical = s.value(QStringLiteral("options/hierarchical"), true).toBool();
  named(hierarchical ? "view.hierarchical" : "view.flat")->setChecked(true);
  m_graph->setHierarchical(hierarchical);
}

void ModelDocument::writeSettings(QSettings& s) const {
  s.setValue(QStringLiteral("paths/weightsDirectory"), m_weights->directory());
  s.setValue(QStringLiteral("options/minimap"), named("view.minimap")->isChecked());
  s.setValue(QStringLiteral("options/legend"), named("view.legend")->isChecked());
  s.setValue(QStringLiteral("options/hierarchical"), named("view.hierarchical")->isChecked());
}

QList<std::pair<QDockWidget*, Qt::DockWidgetArea>> ModelDocument::createPanels(QWidget* window) const {
  QList<std::pair<QDockWidget*, Qt::DockWidgetArea>> out;
  for (QDockWidget* dock : lattice::studio::createPanels(m_session, window)) {
    out.push_back({dock, defaultPanelArea(dock)});
    // The interpreter's diagnostics list also shows the numeric run's errors.
    if (auto* interpreter = qobject_cast<InterpreterPanel*>(dock->widget()))
      interpreter->diagnosticsModel()->watchRun(m_numeric);
  }
  // The numeric debugger's values: the selected node's concrete value, time and error.
  auto* values = new QDockWidget(tr("Values"), window);
  values->setObjectName(QStringLiteral("valuesDock"));
  values->setWidget(new ValuesPanel(m_session, m_numeric, values));
  out.push_back({values, Qt::RightDockWidgetArea});
  // The slowest / worst nodes of the run, sortable; a row selects its node.
  auto* ranking = new QDockWidget(tr("Node Ranking"), window);
  ranking->setObjectName(QStringLiteral("rankingDock"));
  ranking->setWidget(new NodeRankingPanel(m_session, m_numeric, ranking));
  // Before the interpreter's dock, which is tabbed onto it and stays in front.
  auto interpreter = std::find_if(out.begin(), out.end(), [](const auto& entry) {
    return qobject_cast<InterpreterPanel*>(entry.first->widget()) != nullptr;
  });
  out.insert(interpreter, {ranking, Qt::BottomDockWidgetArea});
  // The mixed-precision planner: every layer's sensitivity, the plan, the budget.
  auto* quantization = new QDockWidget(tr("Quantization"), window);
  quantization->setObjectName(QStringLiteral("quantizationDock"));
  quantization->setWidget(new QuantizationPanel(m_quant, quantization));
  interpreter = std::find_if(out.begin(), out.end(), [](const auto& entry) {
    return qobject_cast<InterpreterPanel*>(entry.first->widget()) != nullptr;
  });
  out.insert(interpreter, {quantization, Qt::BottomDockWidgetArea});
  return out;
}

// --- actions -----------------------------------------------------------------------------------

void ModelDocument::createFileActions() {
  QAction* load = makeAction(QStringLiteral("file.loadWeights"), tr("Load &Weights…"), QKeySequence(tr("Ctrl+Shift+L")));
  connect(load, &QAction::triggered, m_weights, &WeightsLoader::chooseAndLoad);
  QAction* exportArtifact =
      makeAction(QStringLiteral("file.export"), tr("&Export Artifact…"), QKeySequence(tr("Ctrl+E")));
  exportArtifact->setIcon(icons::exportArtifact());
  exportArtifact->setIconText(tr("Export"));
  connect(exportArtifact, &QAction::triggered, this, &ModelDocument::exportArtifact);
  QAction* image = makeAction(QStringLiteral("file.exportImage"), tr("Export Graph &Image…"));
  connect(image, &QAction::triggered, this, &ModelDocument::exportImage);
  m_fileActions = {load, separator(), exportArtifact, image};
}

void ModelDocument::exportArtifact() {
  if (!m_session->model()) return;
  ExportDialog dialog(m_session, window());
  connect(&dialog, &ExportDialog::openArtifactRequested, this,
          [this](const QString& directory) { Q_EMIT artifactOpenRequested(directory); });
  if (m_quant->hasPlan() && m_quant->useForExport()) {
    dialog.setQuantizationPlan(m_quant->plan(), m_quant->planSummary());
    Q_EMIT statusMessage(tr("Export uses the Quantization dock's %1").arg(m_quant->planSummary()), 8000);
  }
  dialog.exec();
}

void ModelDocument::exportImage() {
  const QString lastDirectory = QSettings().value(QStringLiteral("paths/lastDirectory"), QDir::homePath()).toString();
  const QString path = QFileDialog::getSaveFileName(
      window(), tr("Export Graph Image"), QDir(lastDirectory).filePath(QStringLiteral("graph.svg")),
      tr("SVG image (*.svg);;PNG image (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  if (!m_graph->exportImage(path, &error))
    QMessageBox::critical(window(), tr("Export Graph Image"), error);
  else
    Q_EMIT statusMessage(tr("Graph written to %1").arg(path), 5000);
}

void ModelDocument::createViewActions() {
  auto* layoutMode = new QActionGroup(this);
  QAction* hierarchical = makeAction(QStringLiteral("view.hierarchical"), tr("&Hierarchical (module groups)"));
  QAction* flat = makeAction(QStringLiteral("view.flat"), tr("F&lat"));
  for (QAction* a : {hierarchical, flat}) {
    a->setCheckable(true);
    layoutMode->addAction(a);
  }
  hierarchical->setChecked(true);
  connect(hierarchical, &QAction::toggled, m_graph, &GraphWidget::setHierarchical);
  connect(hierarchical, &QAction::toggled, this, [](bool on) { saveSetting(QStringLiteral("options/hierarchical"), on); });
  // A refused flat view (too many nodes) goes back to module groups: so does the menu.
  connect(m_graph, &GraphWidget::hierarchicalChanged, this,
          [hierarchical, flat](bool on) { (on ? hierarchical : flat)->setChecked(true); });
  connect(m_graph, &GraphWidget::flatViewRefused, this, [this](const QString& message) {
    Q_EMIT statusMessage(tr("Flat view refused: %1. Showing module groups.").arg(message), 10000);
  });

  GraphView* view = m_graph->view();
  QAction* minimap = makeAction(QStringLiteral("view.minimap"), tr("&Minimap"));
  minimap->setCheckable(true);
  minimap->setChecked(true);
  connect(minimap, &QAction::toggled, view, &GraphView::setMinimapVisible);
  connect(minimap, &QAction::toggled, this, [](bool on) { saveSetting(QStringLiteral("options/minimap"), on); });
  QAction* legend = makeAction(QStringLiteral("view.legend"), tr("&Legend"));
  legend->setCheckable(true);
  legend->setChecked(true);
  connect(legend, &QAction::toggled, view, &GraphView::setLegendVisible);
  connect(legend, &QAction::toggled, this, [](bool on) { saveSetting(QStringLiteral("options/legend"), on); });

  // Overlay: colour the model graph by time or by error against the recorded golden.
  m_overlayMenu = new QMenu(tr("&Overlay"), this);
  auto* overlays = new QActionGroup(this);
  const std::pair<const char*, QString> modes[] = {{"view.overlayNone", tr("&None")},
                                                   {"view.overlayTime", tr("&Time")},
                                                   {"view.overlayAccuracy", tr("&Accuracy")},
                                                   {"view.overlayQuantization", tr("&Quantization (plan's format)")},
                                                   {"view.overlayQuantSensitivity", tr("Quantization &Sensitivity")}};
  for (const auto& [id, text] : modes) {
    QAction* a = makeAction(QString::fromLatin1(id), text);
    a->setCheckable(true);
    overlays->addAction(a);
    connect(a, &QAction::triggered, this, &ModelDocument::applyOverlay);
    m_overlayMenu->addAction(a);
  }
  overlays->actions().front()->setChecked(true);
  m_overlayMenu->addSeparator();
  QAction* threshold = makeAction(QStringLiteral("view.overlayThreshold"), tr("Accuracy &Threshold…"));
  connect(threshold, &QAction::triggered, this, [this] {
    bool ok = false;
    const double t = QInputDialog::getDouble(window(), tr("Accuracy Threshold"),
                                             tr("Relative L2 error above which a node diverges:"),
                                             m_numeric->tolerance(), 0.0, 1e6, 8, &ok, Qt::WindowFlags(), 1e-5);
    if (ok) m_numeric->setTolerance(t);
  });
  m_overlayMenu->addAction(threshold);

  // The module hierarchy (GraphWidget's actions): Expand All / Collapse All / to a depth, and
  // the keys of the focused graph, listed in a menu of their own so Help ▸ Keyboard Shortcuts
  // shows them.
  const auto graphAction = [this](const QString& id) {
    QAction* a = m_graph->graphAction(id);
    m_named << a;
    return a;
  };
  auto* depthMenu = new QMenu(tr("Expand to &Depth"), this);
  for (int depth = 1; depth <= GraphWidget::kDepthKeys; ++depth)
    depthMenu->addAction(graphAction(QStringLiteral("view.expandDepth%1").arg(depth)));
  depthMenu->addSeparator();
  depthMenu->addAction(graphAction(QStringLiteral("view.expandDepth")));
  auto* navigateMenu = new QMenu(tr("&Navigate Graph"), this);
  const char* const navigation[] = {"view.expandGroup", "view.collapseGroup", nullptr,           "view.goProducer",
                                    "view.goConsumer",  "view.previousSibling", "view.nextSibling"};
  for (const char* id : navigation) {
    if (id)
      navigateMenu->addAction(graphAction(QString::fromLatin1(id)));
    else
      navigateMenu->addSeparator();
  }
  connect(m_graph, &GraphWidget::hierarchicalChanged, this, &ModelDocument::updateActions);
  // Show in MLIR (the graph's context menu) selected the node: bring the MLIR panel forward.
  connect(m_graph, &GraphWidget::showInMlirRequested, this, [this] {
    if (auto* dock = window()->findChild<QDockWidget*>(QStringLiteral("mlirDock"))) {
      dock->show();
      dock->raise();
    }
  });
  m_viewActions = {hierarchical,
                   flat,
                   separator(),
                   graphAction(QStringLiteral("view.expandAll")),
                   graphAction(QStringLiteral("view.collapseAll")),
                   depthMenu->menuAction(),
                   navigateMenu->menuAction(),
                   separator(),
                   minimap,
                   legend,
                   m_overlayMenu->menuAction()};
}

void ModelDocument::createDebugActions() {
  StudioSession* s = m_session;
  // F5 as in every debugger: run from the start to the first breakpoint (or the end) when idle or
  // done, continue when paused.
  QAction* start = makeAction(QStringLiteral("debug.start"), tr("&Start / Continue"), QKeySequence(Qt::Key_F5));
  connect(start, &QAction::triggered, this, [s] {
    if (s->isRunning()) return;
    if (s->interpreterState() == StudioSession::InterpreterState::Paused)
      s->continueRun();
    else
      s->startAndRun();
  });
  QAction* restart =
      makeAction(QStringLiteral("debug.restart"), tr("R&estart"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
  connect(restart, &QAction::triggered, s, &StudioSession::startInterpreter);
  // F10 / F11 / Shift+F11 over the module groups the graph shows (session/StepTargets.h).
  QAction* step = makeAction(QStringLiteral("debug.step"), tr("Step &Over"), QKeySequence(Qt::Key_F10));
  step->setToolTip(tr("Execute the next node, or the whole collapsed group it is in"));
  connect(step, &QAction::triggered, this, [this] { lattice::studio::stepOver(m_session, m_graph); });
  QAction* stepInto = makeAction(QStringLiteral("debug.stepInto"), tr("Step &Into"), QKeySequence(Qt::Key_F11));
  stepInto->setToolTip(tr("Execute the next node; next to run in a collapsed group, expand it instead"));
  connect(stepInto, &QAction::triggered, this, [this] { lattice::studio::stepInto(m_session, m_graph); });
  QAction* stepOut =
      makeAction(QStringLiteral("debug.stepOut"), tr("Step O&ut"), QKeySequence(Qt::SHIFT | Qt::Key_F11));
  stepOut->setToolTip(tr("Run to the first node after the current node's module group"));
  connect(stepOut, &QAction::triggered, this, [this] { lattice::studio::stepOut(m_session, m_graph); });
  QAction* runTo = makeAction(QStringLiteral("debug.runToSelected"), tr("&Run to Selected Node"),
                              QKeySequence(Qt::CTRL | Qt::Key_F10));
  connect(runTo, &QAction::triggered, this, [s] { s->runToNode(s->selectedNode()); });
  QAction* cont = makeAction(QStringLiteral("debug.continue"), tr("&Continue"), QKeySequence(Qt::Key_F8));
  connect(cont, &QAction::triggered, s, &StudioSession::continueRun);
  QAction* breakpoint =
      makeAction(QStringLiteral("debug.breakpoint"), tr("Toggle &Breakpoint"), QKeySequence(Qt::Key_F9));
  connect(breakpoint, &QAction::triggered, this, [s] { s->toggleBreakpoint(s->selectedNode()); });
  QAction* stop = makeAction(QStringLiteral("debug.stop"), tr("St&op"), QKeySequence(Qt::SHIFT | Qt::Key_F5));
  connect(stop, &QAction::triggered, s, &StudioSession::stopInterpreter);
  // The Inputs table the interpreter and File ▸ Export share.
  QAction* inputs = makeAction(QStringLiteral("debug.inputs"), tr("Edit &Inputs…"), QKeySequence(tr("Ctrl+I")));
  connect(inputs, &QAction::triggered, this, [this] { showInputSpecDialog(m_session, window()); });

  const std::pair<QAction*, QIcon> icons[] = {{start, icons::start()},        {step, icons::step()},
                                              {cont, icons::continueRun()},   {runTo, icons::runToCursor()},
                                              {breakpoint, icons::breakpoint()}, {stop, icons::stop()}};
  for (const auto& [a, icon] : icons)
    a->setIcon(icon);
  start->setIconText(tr("Start"));
  runTo->setIconText(tr("Run to Node"));
  breakpoint->setIconText(tr("Breakpoint"));
  m_debugActions = {start,      restart, step, stepInto,    stepOut, runTo,  cont,
                    separator(), breakpoint, stop, separator(), inputs, separator()};
  m_toolBar = {start, step, cont, runTo, breakpoint, stop};
}

void ModelDocument::createNumericActions() {
  QAction* runInputs =
      makeAction(QStringLiteral("debug.numericInputs"), tr("Run Inp&uts…"), QKeySequence(tr("Ctrl+Shift+I")));
  connect(runInputs, &QAction::triggered, this, [this] { showInputSpecDialog(m_session, window(), true); });
  QAction* stepping = makeAction(QStringLiteral("debug.numericStepping"), tr("&Numeric Stepping"));
  stepping->setCheckable(true);
  stepping->setChecked(m_numeric->isStepping());
  stepping->setToolTip(tr("Also execute each node's ops on the run inputs as the interpreter steps"));
  connect(stepping, &QAction::toggled, m_numeric, &NumericRun::setStepping);
  QAction* analyze = makeAction(QStringLiteral("debug.quantAnalyze"), tr("Analyze &Quantization"));
  analyze->setToolTip(tr("Measure each layer's sensitivity to int8 / int4 on the run inputs and plan for the budget "
                         "(the Quantization dock)"));
  connect(analyze, &QAction::triggered, this, [this] {
    if (auto* dock = window()->findChild<QDockWidget*>(QStringLiteral("quantizationDock"))) {
      dock->show();
      dock->raise();
    }
    m_quant->analyze();
  });
  m_debugRunActions = {runInputs, stepping, analyze};
  for (auto signal : {&QuantizationState::planChanged, &QuantizationState::analysisChanged})
    connect(m_quant, signal, this, [this] {
      const OverlayMode mode = overlayMode();
      if (mode == OverlayMode::Quantization || mode == OverlayMode::QuantSensitivity) applyOverlay();
    });
  connect(m_quant, &QuantizationState::jobChanged, this, &ModelDocument::updateActions);

  m_overlayLegend = new ElidedLabel(this);
  m_overlayLegend->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  m_overlayLegend->setObjectName(QStringLiteral("overlayLegend"));
  m_overlayLegend->setTextFormat(Qt::RichText);
  m_overlayLegend->hide();
  connect(m_numeric, &NumericRun::valuesChanged, this, &ModelDocument::applyOverlay);
  connect(m_graph, &GraphWidget::layoutFinished, this, &ModelDocument::applyOverlay);

  m_runProgress = new QProgressBar(this);
  m_runProgress->setObjectName(QStringLiteral("numericRunProgress"));
  m_runProgress->setMaximumWidth(180);
  m_runProgress->setFormat(tr("ops %v / %m"));
  m_runProgress->hide();
  connect(m_numeric, &NumericRun::progressed, this, [this](int done, int total) {
    m_runProgress->setMaximum(std::max(total, 1));
    m_runProgress->setValue(done);
  });
  connect(m_numeric, &NumericRun::stateChanged, this, &ModelDocument::onNumericStateChanged);
  connect(m_numeric, &NumericRun::valuesChanged, this, &ModelDocument::updateActions);
  connect(m_numeric, &NumericRun::failed, this, [this](const QString& node, const QString& message) {
    // The user's own cancel is no failure: no node to show, nothing in red.
    if (m_numeric->wasCancelled()) {
      Q_EMIT statusMessage(tr("Run cancelled"), 8000);
      return;
    }
    if (!node.isEmpty()) m_session->selectNode(node);
    Q_EMIT statusMessage(tr("Run failed: %1").arg(message.section(QLatin1Char('\n'), 0, 0)), 15000);
  });
}

// --- the session's signals -----------------------------------------------------------------------

void ModelDocument::connectSession() {
  StudioSession* s = m_session;
  connect(s, &StudioSession::modelLoadStarted, this, [this](const QString& ref) {
    Q_EMIT statusMessage(m_session->isReloading() ? tr("Reloading %1…").arg(ref) : tr("Loading %1…").arg(ref), 0);
    Q_EMIT filesRead(); // what is read now is what the tab will show
    updateActions();
  });
  // The tab shows what was just read; a file written meanwhile is reported again.
  connect(s, &StudioSession::modelLoaded, this, [this] {
    Q_EMIT filesRead();
    Q_EMIT statusMessage(QString(), 0);
  });
  connect(s, &StudioSession::weightsLoaded, this, &ModelDocument::updateStatus);
  connect(s, &StudioSession::artifactExported, this, &ModelDocument::updateActions);
  connect(s, &StudioSession::modelLoadFailed, this, [this](const QString& message) {
    if (m_session->isReloading()) {
      // The model read before stays, whole (its weights are in memory): say so on the bar.
      Q_EMIT statusMessage(tr("Reload failed: %1").arg(message), 0);
      Q_EMIT reloadFailed(message);
    } else {
      Q_EMIT statusMessage(tr("Open failed: %1").arg(message), 0);
    }
    updateActions();
  });
  connect(s, &StudioSession::modelReloaded, this,
          [this](const QString& summary) { Q_EMIT statusMessage(summary, 15000); });
  connect(s->modelWatcher(), &FileChangeWatcher::changed, this, &StudioDocument::filesChanged);
  connect(s, &StudioSession::modelLoadCancelled, this, [this] {
    // A cancelled reload leaves the change it was to take in.
    if (m_session->modelWatcher()->hasPendingChange()) Q_EMIT filesChanged(m_session->modelWatcher()->changedFiles());
    Q_EMIT statusMessage(tr("Loading cancelled"), 4000);
    updateActions();
  });
  connect(s, &StudioSession::traceFailed, this,
          [this](const QString& message) { Q_EMIT statusMessage(tr("Trace failed: %1").arg(message), 0); });
  const auto refresh = [this] {
    updateActions();
    updateStatus();
  };
  for (auto signal : {&StudioSession::graphChanged, &StudioSession::interpreterReset,
                      &StudioSession::interpreterFinished, &StudioSession::breakpointsChanged})
    connect(s, signal, this, refresh);
  connect(s, &StudioSession::interpreterStepped, this, refresh);
  connect(s, &StudioSession::interpreterFailed, this, refresh);
  connect(s, &StudioSession::runningChanged, this, refresh);
  connect(s, &StudioSession::selectionChanged, this, &ModelDocument::updateActions);
}

void ModelDocument::updateActions() {
  const bool hasGraph = m_session->graph() != nullptr;
  const bool hasModel = m_session->model() != nullptr;
  const bool current = isCurrent(); // Debug and the graph's View actions act on this tab
  const auto state = m_session->interpreterState();
  const bool paused = state == StudioSession::InterpreterState::Paused;
  const bool running = m_session->isRunning();
  const bool canStep =
      current && hasModel && !running && (state == StudioSession::InterpreterState::NotStarted || paused);
  const bool selected = !m_session->selectedNode().isEmpty();
  const auto enable = [this](const char* id, bool on) { named(id)->setEnabled(on); };
  enable("file.export", hasModel);
  enable("file.loadWeights", hasModel);
  enable("file.exportImage", current && hasGraph);
  enable("view.hierarchical", current);
  enable("view.flat", current);
  const bool groups = current && hasGraph && m_graph->isHierarchical(); // the hierarchy's actions
  for (const char* id : {"view.expandAll", "view.collapseAll", "view.expandDepth", "view.expandGroup",
                         "view.collapseGroup"})
    enable(id, groups);
  for (int depth = 1; depth <= GraphWidget::kDepthKeys; ++depth)
    named(QStringLiteral("view.expandDepth%1").arg(depth).toLatin1().constData())->setEnabled(groups);
  for (const char* id : {"view.goProducer", "view.goConsumer", "view.previousSibling", "view.nextSibling"})
    enable(id, current && hasGraph);
  enable("debug.start", current && hasModel && !running);
  enable("debug.restart", current && hasModel && !running);
  enable("debug.inputs", current && hasModel);
  enable("debug.step", canStep);
  enable("debug.stepInto", canStep);
  enable("debug.stepOut", current && hasModel && !running && paused);
  enable("debug.continue", canStep);
  enable("debug.runToSelected", canStep && selected);
  enable("debug.breakpoint", current && hasGraph && selected);
  enable("debug.stop", current && state != StudioSession::InterpreterState::NotStarted);
  enable("debug.numericInputs", current && hasModel && !m_numeric->isRunning());
  enable("debug.quantAnalyze", current && hasModel && !m_quant->isBusy());
  QAction* stop = named("debug.stop");
  stop->setToolTip(running ? tr("Interrupt the run (Esc, %1)").arg(stop->shortcut().toString(QKeySequence::NativeText))
                           : tr("Stop (%1)").arg(stop->shortcut().toString(QKeySequence::NativeText)));
  Q_EMIT capabilitiesChanged();
}

void ModelDocument::updateStatus() {
  const fx::Graph* g = m_session->graph();
  QString model = m_session->modelReference();
  if (g) model += tr("  ·  %1 nodes").arg(g->size());
  if (!m_session->weightsSource().isEmpty())
    model += tr("  ·  weights: %1").arg(QFileInfo(m_session->weightsSource()).fileName());
  if (!m_session->breakpoints().isEmpty()) {
    model += m_session->breakpoints().size() == 1 ? tr("  ·  1 breakpoint")
                                                  : tr("  ·  %1 breakpoints").arg(m_session->breakpoints().size());
    if (!m_session->disabledBreakpoints().isEmpty())
      model += tr(" (%1 disabled)").arg(m_session->disabledBreakpoints().size());
  }
  m_modelLabel->setText(model);
  QString state;
  switch (m_session->interpreterState()) {
  case StudioSession::InterpreterState::NotStarted:
    state = tr("interpreter idle (F5 to run, F10 to step)");
    break;
  case StudioSession::InterpreterState::Paused:
    if (m_session->isRunning()) {
      const QLocale locale;
      state = tr("running… node %1 / %2 (Esc to interrupt)")
                  .arg(locale.toString(m_session->executedNodes().size()), locale.toString(m_session->totalNodes()));
      break;
    }
    state = tr("paused before <b>%1</b> · %2 executed")
                .arg(m_session->currentNode().toHtmlEscaped())
                .arg(m_session->executedNodes().size());
    break;
  case StudioSession::InterpreterState::Finished:
    state = tr("<span style='color:#2e7d32'>finished</span> · %1 executed").arg(m_session->executedNodes().size());
    break;
  case StudioSession::InterpreterState::Failed:
    state = tr("<span style='color:#c62828'>failed at <b>%1</b></span>")
                .arg(m_session->failedNode().isEmpty() ? tr("start") : m_session->failedNode().toHtmlEscaped());
    break;
  }
  m_stateLabel->setText(state);
}

// --- the numeric run -----------------------------------------------------------------------------

OverlayMode ModelDocument::overlayMode() const {
  if (named("view.overlayTime")->isChecked()) return OverlayMode::Time;
  if (named("view.overlayAccuracy")->isChecked()) return OverlayMode::Accuracy;
  if (named("view.overlayQuantization")->isChecked()) return OverlayMode::Quantization;
  if (named("view.overlayQuantSensitivity")->isChecked()) return OverlayMode::QuantSensitivity;
  return OverlayMode::None;
}

void ModelDocument::applyOverlay() {
  const OverlayMode mode = overlayMode();
  const bool quant = mode == OverlayMode::Quantization || mode == OverlayMode::QuantSensitivity;
  const QuantOverlayBy by = mode == OverlayMode::Quantization ? QuantOverlayBy::Format : QuantOverlayBy::Sensitivity;
  m_graph->scene()->setHeat(quant ? quantOverlayColours(by, *m_quant, m_graph->grouping())
                                  : overlayColours(mode, *m_numeric, m_graph->grouping()));
  // The figures behind the colours: on the boxes for the overlay, in every box's tooltip.
  QSet<QString> shown; // only the boxes in the scene: a large graph shows a few collapsed groups
  for (const NodeItem* item : m_graph->scene()->nodeItems())
    shown.insert(item->key());
  const QHash<QString, OverlayFigure> figures = overlayFigures(mode, *m_numeric, m_graph->grouping(), &shown);
  const QHash<QString, OverlayFigure> quantFigures = quant ? quantOverlayFigures(by, *m_quant) : QHash<QString, OverlayFigure>();
  for (NodeItem* item : m_graph->scene()->nodeItems()) {
    OverlayFigure figure = figures.value(item->key());
    if (const auto q = quantFigures.find(item->key()); q != quantFigures.end()) {
      figure.text = q->text;
      figure.detail = figure.detail.isEmpty() ? q->detail : q->detail + QLatin1Char('\n') + figure.detail;
    }
    item->setFigure(figure.text, figure.detail);
  }
  const QString legend = quant ? quantOverlayLegend(by, *m_quant) : overlayLegend(mode, *m_numeric);
  m_overlayLegend->setText(legend);
  m_overlayLegend->setVisible(!legend.isEmpty());
}

void ModelDocument::onNumericStateChanged() {
  const NumericRun::State state = m_numeric->state();
  // Numeric stepping's ops run quietly: the interpreter's own status stays.
  const bool wholeRun = m_numeric->isWholeRun();
  m_runProgress->setVisible(wholeRun);
  if (wholeRun) {
    Q_EMIT statusMessage(tr("Running on %1… (Esc cancels)").arg(m_numeric->describeInputs()), 0);
  } else if (state == NumericRun::State::Finished && m_numeric->lowered()) {
    double ms = 0.0;
    const runtime::Runtime& rt = m_numeric->lowered()->runtime;
    for (int op = 0; op < m_numeric->opsTotal(); ++op)
      ms += rt.stats(op).ms;
    QString text = tr("Ran %1 ops in %2 ms on %3")
                       .arg(m_numeric->opsTotal())
                       .arg(QLocale().toString(ms, 'f', 1))
                       .arg(m_numeric->describeInputs());
    if (const RecordingCheck* check = m_numeric->recordingCheck()) {
      if (check->nodes.empty() && !check->warnings.empty())
        text += tr("; no golden: %1").arg(QString::fromStdString(check->warnings.front()));
      else if (check->withinTolerance())
        text += tr("; every node checked against %1 within tolerance").arg(m_numeric->goldenDescription());
      else if (check->onlyKnownDifferences())
        text += tr("; differs from %1 only where torch-lattice and mlx-lattice differ by design (first at %2)")
                    .arg(m_numeric->goldenDescription(),
                         QString::fromStdString(check->nodes[std::size_t(check->firstDifference)].ref.node));
      else
        text += tr("; first divergent node: %1 (Ctrl+Shift+G)").arg(m_numeric->firstDivergentNode());
    }
    for (const std::string& warning : runtime::nonFiniteOutputs(rt)) // NaN or ±inf
      text += tr("; warning: %1").arg(QString::fromStdString(warning));
    Q_EMIT statusMessage(text, 15000);
  }
  updateActions();
}

} // namespace lattice::studio
