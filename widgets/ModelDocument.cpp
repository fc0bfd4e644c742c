// ModelDocument: the model tab's panels, what enables its actions, its status bar widgets, and
// the numeric run's messages. Its actions are made in ModelDocumentActions.cpp; the graph itself
// is GraphWidget's; the session does the work.

#include "ModelDocument.h"

#include "ElidedLabel.h"
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
#include "panels/Panels.h"
#include "quant/QuantOverlay.h"
#include "quant/QuantizationPanel.h"
#include "quant/QuantizationState.h"
#include "runtime/ValueSummary.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>

namespace lattice::studio {

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
