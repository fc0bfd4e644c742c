// StudioSession: the facade over the session's parts (widgets/session/). It owns them, runs the
// load on a worker and applies its result to every part, keeps the selection and the exports,
// hands snapshots to jobs, and emits the signals the panels observe, in one order. The parts do
// the work: tracing (ModelTrace), inputs and their persistence (SessionInputs), stepping
// (SteppingDriver). It holds no widgets and draws nothing.

#include "StudioSession.h"

#include "LeafEdits.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace lattice::studio {

struct StudioSession::ReloadState {
  quint64 generation = 0;
  int nodes = 0; ///< the graph's size before
  std::map<std::string, bool> overrides;
  QSet<QString> breakpoints;
  QSet<QString> disabledBreakpoints;
  QString selectedNode;
  QString selectedModule;
  bool moduleSelected = false;
  QString checkpoint;
  bool checkpointPartial = false;
};

StudioSession::StudioSession(QObject* parent)
    : QObject(parent), m_undo(new LeafEdits(this)), m_inputs(new SessionInputs(m_undo, this)),
      m_driver(new SteppingDriver([this] { startInterpreter(); }, this)), m_watcher(new FileChangeWatcher(this)) {
  m_watcher->setObjectName(QStringLiteral("modelFileWatcher"));
  connect(m_inputs, &SessionInputs::specsApplied, this, &StudioSession::onInputSpecsApplied);
  connect(m_driver, &SteppingDriver::interpreterReset, this, &StudioSession::interpreterReset);
  connect(m_driver, &SteppingDriver::interpreterStepped, this, &StudioSession::interpreterStepped);
  connect(m_driver, &SteppingDriver::interpreterFinished, this, &StudioSession::interpreterFinished);
  connect(m_driver, &SteppingDriver::interpreterFailed, this, &StudioSession::interpreterFailed);
  connect(m_driver, &SteppingDriver::breakpointsChanged, this, &StudioSession::breakpointsChanged);
  connect(m_driver, &SteppingDriver::runningChanged, this, &StudioSession::runningChanged);
}

StudioSession::~StudioSession() {
  delete m_driver; // its lowering borrows the graph m_trace holds
  m_driver = nullptr;
}

std::shared_ptr<const ModelSnapshot> StudioSession::snapshot() const {
  if (m_snapshot) return m_snapshot;
  auto snapshot = std::make_shared<ModelSnapshot>();
  snapshot->revision = m_revision;
  snapshot->reference = m_trace.reference();
  snapshot->model = m_trace.sharedModel();
  snapshot->graph = m_trace.sharedGraph();
  snapshot->tracer = std::make_shared<const LatticeTracer>(m_trace.tracer());
  snapshot->options = exportOptions();
  snapshot->options.tracer = snapshot->tracer.get();
  m_snapshot = std::move(snapshot);
  return m_snapshot;
}

void StudioSession::setLeafOverride(const QString& modulePath, std::optional<bool> leaf) {
  if (!model()) return;
  resetInterpreter(false);
  retrace(m_trace.setLeafOverride(modulePath, leaf));
}

void StudioSession::retrace(const QString& error) {
  bumpRevision();
  if (!graph()) {
    Q_EMIT interpreterReset();
    Q_EMIT traceFailed(error);
    return;
  }
  if (!m_selectedNode.isEmpty() && !graph()->findNode(m_selectedNode.toStdString())) {
    m_selectedNode.clear();
    Q_EMIT selectionChanged(QString());
  }
  Q_EMIT interpreterReset();
  Q_EMIT graphChanged();
}

// --- inputs ----------------------------------------------------------------------------------

void StudioSession::setExportOptions(const ExportOptions& options) {
  if (options.inputs) setInputSpecs(*options.inputs, QStringLiteral("Set Inputs"));
  m_inputs->setOptions(options);
  bumpRevision();
  resetInterpreter(true);
  Q_EMIT exportOptionsChanged();
}

void StudioSession::setInputSpecs(std::vector<InputSpec> specs, const QString& description) {
  m_inputs->setSpecs(std::move(specs), description);
}

void StudioSession::resetInputSpecs() {
  setInputSpecs(archiveInputSpecs(), QStringLiteral("Reset Inputs"));
}

void StudioSession::onInputSpecsApplied() {
  bumpRevision();
  resetInterpreter(true);
  Q_EMIT inputSpecsChanged();
}

// --- loading ---------------------------------------------------------------------------------

QStringList StudioSession::modelFiles() const {
  return m_trace.files();
}

void StudioSession::openModel(const QString& reference) {
  m_reload.reset(); // a reload still running is superseded
  ModelTrace::LoadRequest request;
  request.reference = reference;
  startLoad(request);
}

void StudioSession::reloadModel() {
  if (!model() || modelReference().isEmpty()) return;
  auto state = std::make_unique<ReloadState>();
  state->nodes = graph() ? static_cast<int>(graph()->size()) : 0;
  state->overrides = tracer().leafOverrides();
  state->breakpoints = breakpoints();
  state->disabledBreakpoints = disabledBreakpoints();
  state->selectedNode = m_selectedNode;
  state->selectedModule = m_selectedModule;
  state->moduleSelected = m_moduleSelected;
  state->checkpoint = m_trace.weightsSource();
  state->checkpointPartial = m_trace.weightsPartial();
  ModelTrace::LoadRequest request;
  request.reference = modelReference();
  request.overrides = state->overrides;
  request.checkpoint = state->checkpoint;
  request.checkpointPartial = state->checkpointPartial;
  m_reload = std::move(state);
  startLoad(request);
}

void StudioSession::startLoad(const ModelTrace::LoadRequest& request) {
  const quint64 generation = ++m_loadGeneration;
  if (m_reload) m_reload->generation = generation;
  m_loading = true;
  // Before the worker reads them: a write while it reads shows as a change afterwards.
  m_loadSnapshot = FileChangeWatcher::snapshot(ModelTrace::filesOf(request.reference, request.checkpoint));
  Q_EMIT modelLoadStarted(request.reference);
  auto* watcher = new QFutureWatcher<std::shared_ptr<ModelTrace::LoadResult>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    applyLoad(generation, watcher->result());
  });
  watcher->setFuture(QtConcurrent::run([request] { return ModelTrace::loadAndTrace(request); }));
}

void StudioSession::cancelLoad() {
  if (!m_loading) return;
  ++m_loadGeneration; // the running load's result will be dropped
  m_loading = false;
  m_reload.reset();
  Q_EMIT modelLoadCancelled(modelReference());
}

namespace {

QString nodesText(int nodes) {
  return nodes == 1 ? StudioSession::tr("1 node") : StudioSession::tr("%1 nodes").arg(nodes);
}

/// "breakpoints: kept 1 of 2".
QString keptText(const QString& what, int kept, int before) {
  return StudioSession::tr("%1: kept %2 of %3").arg(what).arg(kept).arg(before);
}

} // namespace

void StudioSession::applyLoad(quint64 generation, const std::shared_ptr<ModelTrace::LoadResult>& result) {
  if (generation != m_loadGeneration || !result) return; // superseded or cancelled
  m_loading = false;
  // A reload's state when this is its result; m_reload stays set (isReloading()) while the
  // result's signals go out, and is cleared after them unless a slot started another load.
  std::optional<ReloadState> reload;
  if (m_reload && m_reload->generation == generation) reload = *m_reload;
  const auto reloadDone = [this, generation] {
    if (m_reload && m_reload->generation == generation) m_reload.reset();
  };
  if (!result->model) {
    Q_EMIT modelLoadFailed(result->loadError);
    reloadDone();
    return;
  }
  resetInterpreter(false);
  m_trace.take(*result);
  bumpRevision();
  if (!reload) m_undo->clear(); // its edits are the old model's
  m_inputs->open(modelReference(), *model());
  m_driver->setBreakpoints({});
  m_selectedNode.clear();
  m_selectedModule.clear();
  m_moduleSelected = false;
  QString summary;
  if (reload) {
    const auto exists = [this](const QString& node) { return graph() && graph()->findNode(node.toStdString()); };
    QSet<QString> kept;
    for (const QString& node : std::as_const(reload->breakpoints))
      if (exists(node)) kept.insert(node);
    m_driver->setBreakpoints(std::move(kept), reload->disabledBreakpoints);
    if (exists(reload->selectedNode)) m_selectedNode = reload->selectedNode;
    if (reload->moduleSelected && model()->module(reload->selectedModule.toStdString())) {
      m_selectedModule = reload->selectedModule;
      m_moduleSelected = true;
    }
    if (result->checkpointReport)
      m_trace.setWeights(reload->checkpoint, *result->checkpointReport, reload->checkpointPartial);
    summary = reloadSummary(*reload, *result);
  }
  m_watcher->watch(m_loadSnapshot);
  Q_EMIT modelLoaded();
  Q_EMIT breakpointsChanged();
  if (!reload) {
    Q_EMIT selectionChanged(QString());
    Q_EMIT moduleSelectionChanged(QString());
  }
  Q_EMIT interpreterReset();
  Q_EMIT inputSpecsChanged();
  if (graph())
    Q_EMIT graphChanged();
  else
    Q_EMIT traceFailed(result->traceError);
  if (reload) { // a kept selection once the views have the new graph
    Q_EMIT selectionChanged(m_selectedNode);
    Q_EMIT moduleSelectionChanged(m_selectedModule);
  }
  if (!weightsSource().isEmpty()) Q_EMIT weightsLoaded(weightsSource());
  if (reload && m_reload && m_reload->generation == generation) Q_EMIT modelReloaded(summary);
  reloadDone();
}

QString StudioSession::reloadSummary(const ReloadState& reload, const ModelTrace::LoadResult& result) const {
  QStringList kept;
  const int nodes = graph() ? static_cast<int>(graph()->size()) : 0;
  kept << (nodes == reload.nodes ? nodesText(nodes) : tr("%1 (were %2)").arg(nodesText(nodes)).arg(reload.nodes));
  if (!reload.breakpoints.isEmpty())
    kept << keptText(tr("breakpoints"), breakpoints().size(), reload.breakpoints.size());
  if (!reload.overrides.empty())
    kept << keptText(tr("leaf overrides"), static_cast<int>(tracer().leafOverrides().size()),
                     static_cast<int>(reload.overrides.size()));
  if (!reload.checkpoint.isEmpty())
    kept << (result.checkpointReport
                 ? tr("weights from %1 applied again").arg(QFileInfo(reload.checkpoint).fileName())
                 : tr("weights from %1 not applied: %2")
                       .arg(QFileInfo(reload.checkpoint).fileName(), result.checkpointError));
  return tr("Reloaded %1: %2")
      .arg(QFileInfo(QDir::cleanPath(modelReference())).fileName(), kept.join(QStringLiteral("; ")));
}

// --- interpreter -----------------------------------------------------------------------------

void StudioSession::startInterpreter() {
  resetInterpreter(false);
  if (!model()) {
    m_driver->fail(QString(), QStringLiteral("no model is open"));
    return;
  }
  if (inputSpecs().empty()) { // not the reference's "example_inputs must be a non-empty tuple"
    m_driver->fail(QString(), m_inputs->noInputsMessage());
    return;
  }
  ExportOptions options = exportOptions();
  // The graph the user sees, its nodes the view's. Without one (its trace failed) the lowering
  // traces with the same overrides and reports the same error.
  options.tracer = &tracer();
  m_driver->startOn(*model(), options, graph());
}

void StudioSession::step() {
  m_driver->step();
}

void StudioSession::continueRun() {
  m_driver->continueRun();
}

void StudioSession::startAndRun() {
  m_driver->startAndRun();
}

void StudioSession::runUntil(const QString& nodeName) {
  if (!nodeName.isEmpty() && (!graph() || !graph()->findNode(nodeName.toStdString()))) return;
  m_driver->runUntil(nodeName);
}

void StudioSession::runToNode(const QString& nodeName) {
  if (!model() || !graph() || !graph()->findNode(nodeName.toStdString())) return;
  m_driver->runToNode(nodeName);
}

void StudioSession::interruptRun() {
  m_driver->interruptRun();
}

void StudioSession::stopInterpreter() {
  m_driver->stop();
}

void StudioSession::toggleBreakpoint(const QString& nodeName) {
  m_driver->toggleBreakpoint(nodeName);
}

void StudioSession::setBreakpointEnabled(const QString& nodeName, bool enabled) {
  m_driver->setBreakpointEnabled(nodeName, enabled);
}

void StudioSession::removeBreakpoint(const QString& nodeName) {
  m_driver->removeBreakpoint(nodeName);
}

void StudioSession::clearBreakpoints() {
  m_driver->clearBreakpoints();
}

// --- weights and exports ---------------------------------------------------------------------

CheckpointReport StudioSession::compareWeights(const Checkpoint& checkpoint) const {
  if (!model()) return CheckpointReport();
  return compareCheckpoint(*model(), checkpoint);
}

Expected<CheckpointReport> StudioSession::applyWeights(const Checkpoint& checkpoint, bool allowPartial) {
  if (!model()) return makeError("no model is open to load '" + checkpoint.source + "' into");
  m_snapshot.reset(); // not a holder of the model: only workers' snapshots make it copy
  Expected<CheckpointReport> report = m_trace.applyWeights(checkpoint, allowPartial);
  if (!report) return report;
  bumpRevision();
  if (!weightsSource().isEmpty())
    m_watcher->addFile(QDir::cleanPath(QFileInfo(weightsSource()).absoluteFilePath()));
  // The prepared lowering captured the old tensors: the next start uses the new ones.
  resetInterpreter(true);
  Q_EMIT weightsLoaded(weightsSource());
  return report;
}

Expected<CheckpointReport> StudioSession::loadWeights(const QString& path, bool allowPartial) {
  if (!model()) return makeError("no model is open to load '" + path.toStdString() + "' into");
  Expected<Checkpoint> checkpoint = readCheckpoint(path.toStdString());
  if (!checkpoint) return checkpoint.error();
  return applyWeights(*checkpoint, allowPartial);
}

void StudioSession::recordExport(const QString& directory) {
  if (directory.isEmpty()) return;
  m_exports.removeAll(directory);
  m_exports.prepend(directory);
  Q_EMIT artifactExported(directory);
}

// --- selection -------------------------------------------------------------------------------

void StudioSession::selectNode(const QString& nodeName) {
  if (nodeName == m_selectedNode) return;
  m_selectedNode = nodeName;
  Q_EMIT selectionChanged(nodeName);
}

void StudioSession::selectModule(const QString& modulePath) {
  if (m_moduleSelected && modulePath == m_selectedModule) return;
  m_selectedModule = modulePath;
  m_moduleSelected = true;
  Q_EMIT moduleSelectionChanged(modulePath);
}

void StudioSession::clearModuleSelection() {
  if (!m_moduleSelected) return;
  m_selectedModule.clear();
  m_moduleSelected = false;
  Q_EMIT moduleSelectionChanged(QString());
}

} // namespace lattice::studio
