// StudioSession: loading (on a worker thread), tracing with the user's leaf overrides, and the
// steppable lowering driven from the UI thread: single steps, and runs cut into time-boxed
// slices, each posted as a queued call behind the events the previous one caused (repaints,
// input), so a 30 000-node run never blocks the event loop for more than a slice and a refresh. It holds no
// widgets and draws nothing; the graph layout is the graph view's business (LayoutController),
// not the session's. The interpreter itself is not thread-safe and never leaves the UI thread.

#include "StudioSession.h"

#include "model/ArchiveRecordings.h"
#include "model/LoadModel.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QFutureWatcher>
#include <QSettings>
#include <QTimer>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

#include <sys/stat.h>

namespace lattice::studio {

/// What the worker thread hands back: the model (with the checkpoint applied), the tracer it was
/// traced with, and its trace or the trace error.
struct StudioSession::LoadResult {
  QString reference;
  std::unique_ptr<Model> model;
  std::unique_ptr<fx::Graph> graph;
  LatticeTracer tracer;
  QString loadError;
  QString traceError;
  /// The checkpoint of the request: its report when it applied, else why not.
  std::optional<CheckpointReport> checkpointReport;
  QString checkpointError;
};

struct StudioSession::ReloadState {
  quint64 generation = 0;
  int nodes = 0; ///< the graph's size before
  std::map<std::string, bool> overrides;
  QSet<QString> breakpoints;
  QString selectedNode;
  QString selectedModule;
  bool moduleSelected = false;
  QString checkpoint;
  bool checkpointPartial = false;
};

namespace {

QString toQString(const std::string& s) {
  return QString::fromStdString(s);
}

bool sameSpec(const InputSpec& a, const InputSpec& b) {
  return a.name == b.name && a.kind == b.kind && a.dtype == b.dtype && a.channels == b.channels &&
         a.stride == b.stride && a.type == b.type;
}

bool sameSpecs(const std::vector<InputSpec>& a, const std::vector<InputSpec>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!sameSpec(a[i], b[i])) return false;
  return true;
}

/// "example:chain:3" as it is; a path made absolute and canonical (symlinks resolved when it
/// exists), so `model.pt` and `./dir/../model.pt` are one model.
QString canonicalReference(const QString& reference) {
  if (reference.startsWith(QStringLiteral("example:"))) return reference;
  const QFileInfo info(reference);
  const QString canonical = info.canonicalFilePath();
  return canonical.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : canonical;
}

/// InputSpec ↔ QVariantMap, for QSettings (the form ExportDialog kept them in before).
QVariantMap specToMap(const InputSpec& spec) {
  QVariantMap m;
  m[QStringLiteral("name")] = toQString(spec.name);
  m[QStringLiteral("kind")] =
      spec.kind == InputSpec::Kind::Sparse ? QStringLiteral("sparse") : QStringLiteral("dense");
  m[QStringLiteral("dtype")] = toQString(spec.dtype);
  m[QStringLiteral("channels")] = spec.channels ? QVariant(qlonglong(*spec.channels)) : QVariant();
  m[QStringLiteral("stride")] =
      QStringLiteral("%1,%2,%3").arg(spec.stride[0]).arg(spec.stride[1]).arg(spec.stride[2]);
  m[QStringLiteral("type")] = toQString(spec.type);
  return m;
}

/// nullopt when the entry is not a usable spec (edited by hand, or from another version).
std::optional<InputSpec> specFromMap(const QVariantMap& m) {
  InputSpec spec;
  spec.name = m.value(QStringLiteral("name")).toString().toStdString();
  if (spec.name.empty()) return std::nullopt;
  const QString kind = m.value(QStringLiteral("kind")).toString();
  if (kind != QStringLiteral("sparse") && kind != QStringLiteral("dense")) return std::nullopt;
  spec.kind = kind == QStringLiteral("dense") ? InputSpec::Kind::Dense : InputSpec::Kind::Sparse;
  spec.dtype = m.value(QStringLiteral("dtype")).toString().toStdString();
  const QVariant channels = m.value(QStringLiteral("channels"));
  if (channels.isValid() && !channels.isNull() && !channels.toString().isEmpty()) {
    bool ok = false;
    const qlonglong value = channels.toLongLong(&ok);
    if (!ok || value < 0) return std::nullopt;
    spec.channels = value;
  }
  const QStringList stride =
      m.value(QStringLiteral("stride")).toString().split(QLatin1Char(','), Qt::SkipEmptyParts);
  if (stride.size() == 3) {
    for (int i = 0; i < 3; ++i) {
      bool ok = false;
      const qlonglong v = stride[i].trimmed().toLongLong(&ok);
      if (!ok || v <= 0) return std::nullopt;
      spec.stride[static_cast<std::size_t>(i)] = v;
    }
  }
  spec.type = m.value(QStringLiteral("type")).toString().toStdString();
  if (spec.kind == InputSpec::Kind::Sparse && spec.dtype != "f32" && spec.dtype != "f16") return std::nullopt;
  if (spec.kind == InputSpec::Kind::Dense && spec.type.rfind("tensor<", 0) != 0) return std::nullopt;
  return spec;
}

const std::vector<InputSpec> kNoInputs;

} // namespace

/// One edit of the input list: the lists before and after (a few specs; cheap to keep whole).
class InputSpecsCommand : public QUndoCommand {
public:
  InputSpecsCommand(StudioSession* session, std::vector<InputSpec> before, std::vector<InputSpec> after,
                    const QString& text)
      : QUndoCommand(text), m_session(session), m_before(std::move(before)), m_after(std::move(after)) {}
  void undo() override { m_session->applyInputSpecs(m_before); }
  void redo() override { m_session->applyInputSpecs(m_after); }

private:
  StudioSession* m_session;
  std::vector<InputSpec> m_before;
  std::vector<InputSpec> m_after;
};

StudioSession::StudioSession(QObject* parent)
    : QObject(parent), m_inputUndo(new QUndoStack(this)), m_watcher(new FileChangeWatcher(this)) {
  m_watcher->setObjectName(QStringLiteral("modelFileWatcher"));
  m_exportOptions.inputs = m_inputs;
}

StudioSession::~StudioSession() { Q_EMIT aboutToChange(); }

bool StudioSession::isLeaf(const QString& modulePath) const {
  if (!m_model) return false;
  const ModuleInfo* module = m_model->module(modulePath.toStdString());
  return module && m_tracer.isLeaf(*module);
}

void StudioSession::setLeafOverride(const QString& modulePath, std::optional<bool> leaf) {
  if (!m_model) return;
  Q_EMIT aboutToChange();
  const std::string path = modulePath.toStdString();
  if (leaf)
    m_tracer.setLeafOverride(path, *leaf);
  else
    m_tracer.clearLeafOverride(path);
  retrace();
}

void StudioSession::setExportOptions(const ExportOptions& options) {
  if (options.inputs) setInputSpecs(*options.inputs, QStringLiteral("Set Inputs"));
  m_exportOptions = options;
  m_exportOptions.inputs = m_inputs;
  resetInterpreter(true);
  Q_EMIT exportOptionsChanged();
}

// --- inputs ----------------------------------------------------------------------------------

const std::vector<InputSpec>& StudioSession::archiveInputSpecs() const {
  return m_model ? m_model->exampleInputs : kNoInputs;
}

bool StudioSession::inputSpecsEdited() const {
  return !sameSpecs(m_inputs, archiveInputSpecs());
}

QStringList StudioSession::forwardInputNames() const {
  QStringList names;
  if (!m_model || m_model->modules().empty()) return names;
  for (const SignatureParam& p : m_model->root().signature)
    if (p.kind == ParamKind::PositionalOnly || p.kind == ParamKind::PositionalOrKeyword)
      names << toQString(p.name);
  return names;
}

void StudioSession::setInputSpecs(std::vector<InputSpec> specs, const QString& description) {
  if (sameSpecs(specs, m_inputs)) return;
  m_inputUndo->push(new InputSpecsCommand(
      this, m_inputs, std::move(specs), description.isEmpty() ? QStringLiteral("Edit Inputs") : description));
}

void StudioSession::resetInputSpecs() {
  setInputSpecs(archiveInputSpecs(), QStringLiteral("Reset Inputs"));
}

void StudioSession::applyInputSpecs(std::vector<InputSpec> specs) {
  m_inputs = std::move(specs);
  m_exportOptions.inputs = m_inputs;
  rememberInputSpecs();
  resetInterpreter(true);
  Q_EMIT inputSpecsChanged();
}

QString StudioSession::inputSettingsGroup(const QString& reference) {
  const QByteArray hash =
      QCryptographicHash::hash(canonicalReference(reference).toUtf8(), QCryptographicHash::Sha1)
          .toHex()
          .left(16);
  return QStringLiteral("inputs/") + QString::fromLatin1(hash);
}

void StudioSession::rememberInputSpecs() const {
  if (m_reference.isEmpty() || !m_model) return;
  QSettings settings;
  const QString group = inputSettingsGroup(m_reference);
  if (!inputSpecsEdited()) { // the archive's own: nothing to remember
    settings.remove(group);
    return;
  }
  settings.beginGroup(group);
  settings.setValue(QStringLiteral("reference"), canonicalReference(m_reference));
  QVariantList specs;
  for (const InputSpec& spec : m_inputs)
    specs << specToMap(spec);
  settings.setValue(QStringLiteral("specs"), specs);
  settings.endGroup();
}

std::vector<InputSpec> StudioSession::restoredInputSpecs() const {
  const std::vector<InputSpec>& archive = archiveInputSpecs();
  auto decode = [](const QVariantList& list, std::vector<InputSpec>& out) {
    out.clear();
    for (const QVariant& v : list) {
      std::optional<InputSpec> spec = specFromMap(v.toMap());
      if (!spec) return false;
      out.push_back(std::move(*spec));
    }
    return true;
  };
  QSettings settings;
  std::vector<InputSpec> specs;
  settings.beginGroup(inputSettingsGroup(m_reference));
  const bool remembered =
      settings.value(QStringLiteral("reference")).toString() == canonicalReference(m_reference) &&
      settings.contains(QStringLiteral("specs"));
  const QVariantList list = settings.value(QStringLiteral("specs")).toList();
  settings.endGroup();
  if (remembered) return decode(list, specs) ? specs : archive;
  // What an older studio wrote: the export dialog's own edited inputs (as many as the archive
  // has).
  const QByteArray legacy =
      QCryptographicHash::hash(m_reference.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
  settings.beginGroup(QStringLiteral("export/models/") + QString::fromLatin1(legacy));
  if (settings.value(QStringLiteral("reference")).toString() == m_reference) {
    const QVariantList old = settings.value(QStringLiteral("inputs")).toList();
    if (!old.isEmpty() && static_cast<std::size_t>(old.size()) == archive.size() && decode(old, specs))
      return specs;
  }
  return archive;
}

QString StudioSession::noInputsMessage() const {
  const QString name = m_reference.startsWith(QStringLiteral("example:"))
                           ? m_reference
                           : QFileInfo(QDir::cleanPath(m_reference)).fileName();
  const QStringList forward = forwardInputNames();
  return QStringLiteral("%1 has no example inputs (a TorchScript file carries none): add one row per forward "
                        "input%2 in the Inputs table (Debug ▸ Edit Inputs…, or Inputs… in the Interpreter "
                        "panel), then start again")
      .arg(name,
           forward.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(forward.join(QStringLiteral(", "))));
}

QString StudioSession::currentNode() const {
  if (!m_lowering || m_state == InterpreterState::NotStarted || m_state == InterpreterState::Finished)
    return {};
  if (m_lowering->direct())
    return m_state == InterpreterState::Paused ? toQString(m_lowering->directName()) : QString();
  const fx::Node* node = m_lowering->interpreter->currentNode();
  return node ? toQString(node->name()) : QString();
}

// --- loading ---------------------------------------------------------------------------------

std::shared_ptr<StudioSession::LoadResult> StudioSession::loadAndTrace(const LoadRequest& request) {
  auto result = std::make_shared<StudioSession::LoadResult>();
  result->reference = request.reference;
  Expected<Model> model = loadModel(request.reference.toStdString());
  if (!model) {
    result->loadError = toQString(model.message());
    return result;
  }
  result->model = std::make_unique<Model>(std::move(*model));
  if (!request.checkpoint.isEmpty()) {
    Expected<Checkpoint> checkpoint = readCheckpoint(request.checkpoint.toStdString());
    CheckpointOptions options;
    options.allowPartial = request.checkpointPartial;
    Expected<CheckpointReport> report =
        checkpoint ? applyCheckpoint(*result->model, *checkpoint, options) : Expected<CheckpointReport>(checkpoint.error());
    if (report)
      result->checkpointReport = *report;
    else
      result->checkpointError = toQString(report.message());
  }
  for (const auto& [path, leaf] : request.overrides)
    if (result->model->module(path)) result->tracer.setLeafOverride(path, leaf);
  Expected<std::unique_ptr<fx::Graph>> graph = result->tracer.trace(*result->model);
  if (graph)
    result->graph = std::move(*graph);
  else
    result->traceError = toQString(graph.message());
  return result;
}

QStringList StudioSession::filesOf(const QString& reference, const QString& checkpoint) {
  QStringList files;
  if (!reference.isEmpty() && !reference.startsWith(QStringLiteral("example:"))) {
    const QFileInfo info(reference);
    if (info.isDir()) {
      const QDir dir(info.absoluteFilePath());
      for (const char* name : {"model.json", "weights.safetensors", kArchiveInputsFile, kArchiveActivationsFile})
        files << QDir::cleanPath(dir.filePath(QString::fromLatin1(name)));
    } else {
      files << QDir::cleanPath(info.absoluteFilePath());
    }
  }
  if (!checkpoint.isEmpty()) files << QDir::cleanPath(QFileInfo(checkpoint).absoluteFilePath());
  return files;
}

QStringList StudioSession::modelFiles() const {
  return m_model ? filesOf(m_reference, m_weightsSource) : QStringList();
}

void StudioSession::openModel(const QString& reference) {
  m_reload.reset(); // a reload still running is superseded
  LoadRequest request;
  request.reference = reference;
  startLoad(request);
}

void StudioSession::reloadModel() {
  if (!m_model || m_reference.isEmpty()) return;
  auto state = std::make_unique<ReloadState>();
  state->nodes = m_graph ? static_cast<int>(m_graph->size()) : 0;
  state->overrides = m_tracer.leafOverrides();
  state->breakpoints = m_breakpoints;
  state->selectedNode = m_selectedNode;
  state->selectedModule = m_selectedModule;
  state->moduleSelected = m_moduleSelected;
  state->checkpoint = m_weightsSource;
  state->checkpointPartial = m_weightsPartial;
  LoadRequest request;
  request.reference = m_reference;
  request.overrides = state->overrides;
  request.checkpoint = m_weightsSource;
  request.checkpointPartial = m_weightsPartial;
  m_reload = std::move(state);
  startLoad(request);
}

void StudioSession::startLoad(const LoadRequest& request) {
  const quint64 generation = ++m_loadGeneration;
  if (m_reload) m_reload->generation = generation;
  m_loading = true;
  // Before the worker reads them: a write while it reads shows as a change afterwards.
  m_loadSnapshot = FileChangeWatcher::snapshot(filesOf(request.reference, request.checkpoint));
  Q_EMIT modelLoadStarted(request.reference);
  auto* watcher = new QFutureWatcher<std::shared_ptr<LoadResult>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    applyLoad(generation, watcher->result());
  });
  watcher->setFuture(QtConcurrent::run([request] { return loadAndTrace(request); }));
}

void StudioSession::cancelLoad() {
  if (!m_loading) return;
  ++m_loadGeneration; // the running load's result will be dropped
  m_loading = false;
  m_reload.reset();
  Q_EMIT modelLoadCancelled(m_reference);
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

void StudioSession::applyLoad(quint64 generation, const std::shared_ptr<LoadResult>& result) {
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
  Q_EMIT aboutToChange();
  resetInterpreter(false);
  m_reference = result->reference;
  m_model = std::move(result->model);
  m_graph = std::move(result->graph);
  m_tracer = std::move(result->tracer);
  m_exportOptions = ExportOptions();
  if (!reload) m_inputUndo->clear();
  m_inputs = restoredInputSpecs();
  m_exportOptions.inputs = m_inputs;
  if (inputSpecsEdited()) rememberInputSpecs(); // a list taken over from the export dialog's old place
  m_breakpoints.clear();
  m_selectedNode.clear();
  m_selectedModule.clear();
  m_moduleSelected = false;
  m_weightsSource.clear();
  m_weightsReport = CheckpointReport();
  m_weightsPartial = false;
  QStringList kept;
  if (reload) {
    const auto exists = [this](const QString& node) { return m_graph && m_graph->findNode(node.toStdString()); };
    for (const QString& node : std::as_const(reload->breakpoints))
      if (exists(node)) m_breakpoints.insert(node);
    if (exists(reload->selectedNode)) m_selectedNode = reload->selectedNode;
    if (reload->moduleSelected && m_model->module(reload->selectedModule.toStdString())) {
      m_selectedModule = reload->selectedModule;
      m_moduleSelected = true;
    }
    if (result->checkpointReport) {
      m_weightsSource = reload->checkpoint;
      m_weightsReport = *result->checkpointReport;
      m_weightsPartial = reload->checkpointPartial;
    }
    const int nodes = m_graph ? static_cast<int>(m_graph->size()) : 0;
    kept << (nodes == reload->nodes ? nodesText(nodes)
                                    : tr("%1 (were %2)").arg(nodesText(nodes)).arg(reload->nodes));
    if (!reload->breakpoints.isEmpty())
      kept << keptText(tr("breakpoints"), m_breakpoints.size(), reload->breakpoints.size());
    if (!reload->overrides.empty())
      kept << keptText(tr("leaf overrides"), static_cast<int>(m_tracer.leafOverrides().size()),
                       static_cast<int>(reload->overrides.size()));
    if (!reload->checkpoint.isEmpty())
      kept << (result->checkpointReport
                   ? tr("weights from %1 applied again").arg(QFileInfo(reload->checkpoint).fileName())
                   : tr("weights from %1 not applied: %2")
                         .arg(QFileInfo(reload->checkpoint).fileName(), result->checkpointError));
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
  if (m_graph)
    Q_EMIT graphChanged();
  else
    Q_EMIT traceFailed(result->traceError);
  if (reload) { // a kept selection once the views have the new graph
    Q_EMIT selectionChanged(m_selectedNode);
    Q_EMIT moduleSelectionChanged(m_selectedModule);
  }
  if (!m_weightsSource.isEmpty()) Q_EMIT weightsLoaded(m_weightsSource);
  if (reload && m_reload && m_reload->generation == generation)
    Q_EMIT modelReloaded(tr("Reloaded %1: %2").arg(QFileInfo(QDir::cleanPath(m_reference)).fileName(),
                                                   kept.join(QStringLiteral("; "))));
  reloadDone();
}

void StudioSession::retrace() {
  resetInterpreter(false);
  Expected<std::unique_ptr<fx::Graph>> graph = m_tracer.trace(*m_model);
  if (!graph) {
    m_graph.reset();
    Q_EMIT interpreterReset();
    Q_EMIT traceFailed(toQString(graph.message()));
    return;
  }
  m_graph = std::move(*graph);
  if (!m_selectedNode.isEmpty() && !m_graph->findNode(m_selectedNode.toStdString())) {
    m_selectedNode.clear();
    Q_EMIT selectionChanged(QString());
  }
  Q_EMIT interpreterReset();
  Q_EMIT graphChanged();
}

// --- interpreter -----------------------------------------------------------------------------

void StudioSession::resetInterpreter(bool notify) {
  cancelRun();
  m_lowering.reset();
  m_state = InterpreterState::NotStarted;
  m_failedNode.clear();
  m_lastError.clear();
  m_executed.clear();
  if (notify) Q_EMIT interpreterReset();
}

void StudioSession::startInterpreter() {
  resetInterpreter(false);
  if (!m_model) {
    fail(QString(), QStringLiteral("no model is open"));
    return;
  }
  if (m_inputs.empty()) { // not the reference's "example_inputs must be a non-empty tuple"
    fail(QString(), noInputsMessage());
    return;
  }
  ExportOptions options = m_exportOptions;
  options.inputs = m_inputs;
  // The graph the user sees, its nodes the view's. Without one (its trace failed) the lowering
  // traces with the same overrides and reports the same error.
  options.tracer = &m_tracer;
  Expected<PreparedLowering> prepared = prepareLowering(*m_model, options, m_graph.get());
  if (!prepared) {
    QString message = toQString(prepared.message());
    // The input count does not fit the forward: the Inputs table is where to fix it.
    if (message.startsWith(QStringLiteral("model forward accepts")))
      message += QStringLiteral(" (edit the Inputs table: Debug ▸ Edit Inputs…)");
    fail(QString(), message);
    return;
  }
  m_lowering = std::make_unique<PreparedLowering>(std::move(*prepared));
  m_state = InterpreterState::Paused;
  Q_EMIT interpreterReset();
}

bool StudioSession::ensureStarted() {
  if (m_state == InterpreterState::NotStarted) startInterpreter();
  return m_state == InterpreterState::Paused;
}

void StudioSession::fail(const QString& nodeName, const QString& message) {
  m_state = InterpreterState::Failed;
  m_failedNode = nodeName;
  m_lastError = message;
  Q_EMIT interpreterFailed(nodeName, message);
}

bool StudioSession::stepOnce() {
  if (m_state != InterpreterState::Paused) return false;
  PreparedLowering& p = *m_lowering;
  if (p.direct()) {
    const QString name = toQString(p.directName());
    Status done = finishLowering(p);
    if (!done) {
      m_failedNode = name;
      m_lastError = toQString(done.message());
      m_state = InterpreterState::Failed;
      return false;
    }
    m_executed << name;
    m_state = InterpreterState::Finished;
    return false;
  }
  const fx::Node* node = p.interpreter->currentNode();
  if (!node) { // started on an empty graph
    m_state = InterpreterState::Finished;
    return false;
  }
  const QString name = toQString(node->name());
  Expected<bool> stepped = p.interpreter->step();
  if (!stepped) {
    const fx::Node* failed = p.interpreter->failedNode();
    m_failedNode = failed ? toQString(failed->name()) : name;
    m_lastError = toQString(stepped.message());
    m_state = InterpreterState::Failed;
    return false;
  }
  m_executed << name;
  if (p.interpreter->currentNode()) return true;
  // The graph ran to its end: flatten the result and set the artifact's outputs (§2.4), so
  // the builder holds the complete graph.mlir.
  Status done = finishLowering(p);
  if (!done) {
    m_failedNode = name;
    m_lastError = toQString(done.message());
    m_state = InterpreterState::Failed;
    return false;
  }
  m_state = InterpreterState::Finished;
  return false;
}

void StudioSession::finishStep(const QString& executed) {
  if (!executed.isEmpty()) Q_EMIT interpreterStepped(executed);
  if (m_state == InterpreterState::Finished)
    Q_EMIT interpreterFinished();
  else if (m_state == InterpreterState::Failed)
    Q_EMIT interpreterFailed(m_failedNode, m_lastError);
}

void StudioSession::step() {
  if (m_state == InterpreterState::NotStarted) {
    startInterpreter(); // F10 on a fresh session stops on the first node
    return;
  }
  if (m_state != InterpreterState::Paused) return;
  const int before = m_executed.size();
  stepOnce();
  finishStep(m_executed.size() > before ? m_executed.constLast() : QString());
}

int StudioSession::totalNodes() const {
  if (!m_lowering) return 0;
  return m_lowering->direct() ? 1 : static_cast<int>(m_lowering->graph->size());
}

void StudioSession::continueRun() {
  if (m_running) return;
  if (!ensureStarted()) return;
  beginRun(QString());
}

void StudioSession::runToNode(const QString& nodeName) {
  if (!m_model || !m_graph || !m_graph->findNode(nodeName.toStdString())) return;
  cancelRun(); // a new target replaces the running one
  // A node that already ran is reached again by restarting.
  if (m_state != InterpreterState::NotStarted && m_executed.contains(nodeName)) startInterpreter();
  if (!ensureStarted()) return;
  beginRun(nodeName);
}

void StudioSession::beginRun(const QString& target) {
  m_runTarget = target;
  const int before = m_executed.size();
  if (runSlice()) {
    finishStep(m_executed.size() > before ? m_executed.constLast() : QString());
    return;
  }
  m_running = true;
  const quint64 generation = m_runGeneration;
  Q_EMIT runningChanged(true);
  if (!m_executed.isEmpty()) Q_EMIT interpreterStepped(m_executed.constLast());
  if (m_running && generation == m_runGeneration) scheduleSlice(); // a slot may have ended it
}

void StudioSession::scheduleSlice() {
  // A queued call, not a zero timer: it runs after the events already posted (the repaints the
  // last slice caused), once per event-loop turn. A stale call (the run ended) does nothing.
  const quint64 generation = m_runGeneration;
  QMetaObject::invokeMethod(
      this,
      [this, generation] {
        if (m_running && generation == m_runGeneration) onRunSlice();
      },
      Qt::QueuedConnection);
}

bool StudioSession::runSlice() {
  QElapsedTimer clock;
  clock.start();
  for (;;) {
    if (!m_runTarget.isEmpty() && currentNode() == m_runTarget) return true;
    if (!stepOnce()) return true; // the end, or an error (state Finished / Failed)
    if (m_runTarget.isEmpty() && !m_breakpoints.isEmpty() && m_breakpoints.contains(currentNode()))
      return true;
    if (clock.elapsed() >= m_sliceBudgetMs) return false;
  }
}

void StudioSession::onRunSlice() {
  const int before = m_executed.size();
  const bool over = runSlice();
  const QString last = m_executed.size() > before ? m_executed.constLast() : QString();
  if (!over) {
    const quint64 generation = m_runGeneration;
    if (!last.isEmpty()) Q_EMIT interpreterStepped(last);
    if (m_running && generation == m_runGeneration) scheduleSlice(); // a slot may have ended it
    return;
  }
  m_running = false;
  ++m_runGeneration;
  finishStep(last);
  Q_EMIT runningChanged(false);
}

void StudioSession::interruptRun() {
  // Panels already show every executed node (they refresh at each slice's end).
  cancelRun();
}

void StudioSession::cancelRun() {
  if (!m_running) return;
  m_running = false;
  ++m_runGeneration; // the queued slice is dropped
  Q_EMIT runningChanged(false);
}

void StudioSession::stopInterpreter() {
  if (m_running) {
    interruptRun();
    return;
  }
  resetInterpreter(true);
}

void StudioSession::toggleBreakpoint(const QString& nodeName) {
  if (nodeName.isEmpty()) return;
  if (!m_breakpoints.remove(nodeName)) m_breakpoints.insert(nodeName);
  Q_EMIT breakpointsChanged();
}

// --- weights and exports ---------------------------------------------------------------------

CheckpointReport StudioSession::compareWeights(const Checkpoint& checkpoint) const {
  if (!m_model) return CheckpointReport();
  return compareCheckpoint(*m_model, checkpoint);
}

Expected<CheckpointReport> StudioSession::applyWeights(const Checkpoint& checkpoint, bool allowPartial) {
  if (!m_model) return makeError("no model is open to load '" + checkpoint.source + "' into");
  CheckpointOptions options;
  options.allowPartial = allowPartial;
  Q_EMIT aboutToChange();
  Expected<CheckpointReport> report = applyCheckpoint(*m_model, checkpoint, options);
  if (!report) return report;
  m_weightsSource = toQString(checkpoint.source);
  m_weightsReport = *report;
  m_weightsPartial = allowPartial;
  if (!m_weightsSource.isEmpty()) m_watcher->addFile(QDir::cleanPath(QFileInfo(m_weightsSource).absoluteFilePath()));
  // The prepared lowering captured the old tensors: the next start uses the new ones.
  resetInterpreter(true);
  Q_EMIT weightsLoaded(m_weightsSource);
  return report;
}

Expected<CheckpointReport> StudioSession::loadWeights(const QString& path, bool allowPartial) {
  if (!m_model) return makeError("no model is open to load '" + path.toStdString() + "' into");
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

// --- FileChangeWatcher -----------------------------------------------------------------------

namespace {

constexpr int kDefaultSettleMs = 400;

/// The folders whose entries a replace by rename changes: the file's own and the one above (an
/// artifact folder swapped whole).
QStringList foldersOf(const QString& file) {
  const QString folder = QFileInfo(file).absolutePath();
  QStringList out{folder};
  const QString above = QFileInfo(folder).absolutePath();
  if (above != folder) out << above;
  return out;
}

} // namespace

FileChangeWatcher::FileState FileChangeWatcher::stateOf(const QString& file) {
  FileState state;
  struct stat info {};
  if (::stat(QFile::encodeName(file).constData(), &info) != 0) return state;
  state.exists = true;
  state.device = static_cast<quint64>(info.st_dev);
  state.inode = static_cast<quint64>(info.st_ino);
  state.size = static_cast<qint64>(info.st_size);
  state.modifiedNs = qint64(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
  state.changedNs = qint64(info.st_ctim.tv_sec) * 1000000000 + info.st_ctim.tv_nsec;
  return state;
}

FileChangeWatcher::Snapshot FileChangeWatcher::snapshot(const QStringList& files) {
  Snapshot out;
  out.files = files;
  out.states.reserve(static_cast<std::size_t>(files.size()));
  for (const QString& file : files)
    out.states.push_back(stateOf(file));
  return out;
}

FileChangeWatcher::FileChangeWatcher(QObject* parent)
    : QObject(parent), m_watcher(new QFileSystemWatcher(this)), m_settle(new QTimer(this)) {
  m_settle->setSingleShot(true);
  m_settle->setInterval(kDefaultSettleMs);
  // Every event restarts the timer: a burst of writes ends in one check.
  connect(m_watcher, &QFileSystemWatcher::fileChanged, m_settle, qOverload<>(&QTimer::start));
  connect(m_watcher, &QFileSystemWatcher::directoryChanged, m_settle, qOverload<>(&QTimer::start));
  connect(m_settle, &QTimer::timeout, this, &FileChangeWatcher::check);
}

int FileChangeWatcher::settleTime() const {
  return m_settle->interval();
}

void FileChangeWatcher::setSettleTime(int ms) {
  m_settle->setInterval(ms < 0 ? 0 : ms);
}

void FileChangeWatcher::watch(const Snapshot& read) {
  m_settle->stop();
  const QStringList watched = m_watcher->files() + m_watcher->directories();
  if (!watched.isEmpty()) m_watcher->removePaths(watched);
  m_watchedInodes.clear();
  m_read = read;
  m_reported.clear();
  rewatch();
  // A file written while it was read differs from the state taken before: a check after the
  // settle time reports it, though its events came before this call.
  if (!m_read.files.isEmpty()) m_settle->start();
}

void FileChangeWatcher::addFile(const QString& file) {
  if (file.isEmpty() || m_read.files.contains(file)) return;
  m_read.files << file;
  m_read.states.push_back(stateOf(file));
  if (!m_reported.empty()) m_reported.push_back(m_read.states.back());
  rewatch();
}

void FileChangeWatcher::acceptCurrent() {
  m_read.states = currentStates();
  m_reported.clear();
  rewatch();
}

std::vector<FileChangeWatcher::FileState> FileChangeWatcher::currentStates() const {
  return snapshot(m_read.files).states;
}

QStringList FileChangeWatcher::changedFiles() const {
  QStringList out;
  const std::vector<FileState> now = currentStates();
  for (std::size_t i = 0; i < now.size(); ++i)
    if (now[i] != m_read.states[i]) out << m_read.files[static_cast<int>(i)];
  return out;
}

void FileChangeWatcher::rewatch() {
  // A watch follows an inode: the watcher drops a path whose file was deleted or renamed away,
  // and a path whose folder was renamed away keeps watching the old file. Each path is watched
  // again when the inode at it is not the one its watch was added for.
  QStringList paths;
  for (const QString& file : std::as_const(m_read.files)) {
    paths << file;
    paths << foldersOf(file);
  }
  paths.removeDuplicates();
  const QStringList watched = m_watcher->files() + m_watcher->directories();
  QStringList stale;
  QStringList missing;
  for (const QString& path : std::as_const(paths)) {
    const FileState state = stateOf(path);
    const bool isWatched = watched.contains(path);
    if (!state.exists) continue;
    if (isWatched && m_watchedInodes.value(path) == state.inode) continue;
    if (isWatched) stale << path;
    missing << path;
    m_watchedInodes.insert(path, state.inode);
  }
  if (!stale.isEmpty()) m_watcher->removePaths(stale);
  if (!missing.isEmpty()) m_watcher->addPaths(missing);
}

void FileChangeWatcher::check() {
  rewatch();
  const std::vector<FileState> now = currentStates();
  QStringList differ;
  for (std::size_t i = 0; i < now.size(); ++i)
    if (now[i] != m_read.states[i]) differ << m_read.files[static_cast<int>(i)];
  if (differ.isEmpty()) {
    if (m_reported.empty()) return;
    m_reported.clear();
    Q_EMIT changed(QStringList()); // back to what was read
    return;
  }
  if (now == m_reported) return; // reported already
  m_reported = now;
  Q_EMIT changed(differ);
}

} // namespace lattice::studio
