// ModelDocument's actions: File (weights, export), View (layout, overlays, panels), Debug (the
// interpreter's stepping and breakpoints) and the numeric run's; what enables them is
// ModelDocument::updateActions.

#include "ModelDocument.h"

#include "ElidedLabel.h"
#include "StudioIcons.h"
#include "StudioSession.h"
#include "WeightsLoader.h"
#include "graph/GraphView.h"
#include "graph/GraphWidget.h"
#include "numeric/NumericOverlay.h"
#include "numeric/NumericRun.h"
#include "panels/ExportDialog.h"
#include "panels/InputSpecEditor.h"
#include "quant/QuantOverlay.h"
#include "quant/QuantizationState.h"
#include "session/StepTargets.h"

#include <QAction>
#include <QActionGroup>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>

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
  if (!grouping || s->isRunning() || s->interpreterState() != StudioSession::InterpreterState::Paused)
    return -1;
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
  s->runUntil(
      nodeName(*graph->grouping(), stepOverTarget(*graph->grouping(), graph->expandedGroups(), current)));
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
  graph->expandGroup(QString::fromStdString(
      grouping.groups()[std::size_t(grouping.nodes()[std::size_t(current)].group)].path));
}

/// Shift+F11: run to the first node after the current node's innermost module group.
void stepOut(StudioSession* s, GraphWidget* graph) {
  const int current = currentGroupedNode(s, graph);
  if (current < 0) return;
  s->runUntil(nodeName(*graph->grouping(), stepOutTarget(*graph->grouping(), current)));
}

} // namespace

// --- actions -----------------------------------------------------------------------------------

void ModelDocument::createFileActions() {
  QAction* load =
      makeAction(QStringLiteral("file.loadWeights"), tr("Load &Weights…"), QKeySequence(tr("Ctrl+Shift+L")));
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
  const QString lastDirectory =
      QSettings().value(QStringLiteral("paths/lastDirectory"), QDir::homePath()).toString();
  const QString path = QFileDialog::getSaveFileName(window(), tr("Export Graph Image"),
                                                    QDir(lastDirectory).filePath(QStringLiteral("graph.svg")),
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
  QAction* hierarchical =
      makeAction(QStringLiteral("view.hierarchical"), tr("&Hierarchical (module groups)"));
  QAction* flat = makeAction(QStringLiteral("view.flat"), tr("F&lat"));
  for (QAction* a : {hierarchical, flat}) {
    a->setCheckable(true);
    layoutMode->addAction(a);
  }
  hierarchical->setChecked(true);
  connect(hierarchical, &QAction::toggled, m_graph, &GraphWidget::setHierarchical);
  connect(hierarchical, &QAction::toggled, this,
          [](bool on) { saveSetting(QStringLiteral("options/hierarchical"), on); });
  // A refused flat view (too many nodes) goes back to module groups: so does the menu.
  connect(m_graph, &GraphWidget::hierarchicalChanged, this,
          [hierarchical, flat](bool on) { (on ? hierarchical : flat)->setChecked(true); });
  connect(m_graph, &GraphWidget::flatViewRefused, this, [this](const QString& message) {
    Q_EMIT statusMessage(tr("Flat view refused: %1. Showing module groups.").arg(message), 10000);
  });

  // A shown-by-default part of the graph view, its choice saved as options/<name>.
  GraphView* view = m_graph->view();
  const auto viewToggle = [this, view](const QString& name, const QString& text, void (GraphView::*show)(bool)) {
    QAction* a = makeAction(QStringLiteral("view.") + name, text);
    a->setCheckable(true);
    a->setChecked(true);
    connect(a, &QAction::toggled, view, show);
    connect(a, &QAction::toggled, this, [name](bool on) { saveSetting(QStringLiteral("options/") + name, on); });
    return a;
  };
  QAction* minimap = viewToggle(QStringLiteral("minimap"), tr("&Minimap"), &GraphView::setMinimapVisible);
  QAction* legend = viewToggle(QStringLiteral("legend"), tr("&Legend"), &GraphView::setLegendVisible);

  // Overlay: colour the model graph by time or by error against the recorded golden.
  m_overlayMenu = new QMenu(tr("&Overlay"), this);
  auto* overlays = new QActionGroup(this);
  const std::pair<const char*, QString> modes[] = {
      {"view.overlayNone", tr("&None")},
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
    const double t = QInputDialog::getDouble(
        window(), tr("Accuracy Threshold"), tr("Relative L2 error above which a node diverges:"),
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
  const char* const navigation[] = {"view.expandGroup", "view.collapseGroup", nullptr,
                                    "view.goProducer",  "view.goConsumer",    "view.previousSibling",
                                    "view.nextSibling"};
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
  QAction* start =
      makeAction(QStringLiteral("debug.start"), tr("&Start / Continue"), QKeySequence(Qt::Key_F5));
  connect(start, &QAction::triggered, this, [s] {
    if (s->isRunning()) return;
    if (s->interpreterState() == StudioSession::InterpreterState::Paused)
      s->continueRun();
    else
      s->startAndRun();
  });
  QAction* restart = makeAction(QStringLiteral("debug.restart"), tr("R&estart"),
                                QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5));
  connect(restart, &QAction::triggered, s, &StudioSession::startInterpreter);
  // F10 / F11 / Shift+F11 over the module groups the graph shows (session/StepTargets.h).
  QAction* step = makeAction(QStringLiteral("debug.step"), tr("Step &Over"), QKeySequence(Qt::Key_F10));
  step->setToolTip(tr("Execute the next node, or the whole collapsed group it is in"));
  connect(step, &QAction::triggered, this, [this] { lattice::studio::stepOver(m_session, m_graph); });
  QAction* stepInto =
      makeAction(QStringLiteral("debug.stepInto"), tr("Step &Into"), QKeySequence(Qt::Key_F11));
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
  QAction* inputs =
      makeAction(QStringLiteral("debug.inputs"), tr("Edit &Inputs…"), QKeySequence(tr("Ctrl+I")));
  connect(inputs, &QAction::triggered, this, [this] { showInputSpecDialog(m_session, window()); });

  const std::pair<QAction*, QIcon> icons[] = {
      {start, icons::start()},           {step, icons::step()},
      {cont, icons::continueRun()},      {runTo, icons::runToCursor()},
      {breakpoint, icons::breakpoint()}, {stop, icons::stop()}};
  for (const auto& [a, icon] : icons)
    a->setIcon(icon);
  start->setIconText(tr("Start"));
  runTo->setIconText(tr("Run to Node"));
  breakpoint->setIconText(tr("Breakpoint"));
  m_debugActions = {start,       restart,    step, stepInto,    stepOut, runTo,      cont,
                    separator(), breakpoint, stop, separator(), inputs,  separator()};
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
  analyze->setToolTip(
      tr("Measure each layer's sensitivity to int8 / int4 on the run inputs and plan for the budget "
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

} // namespace lattice::studio
