// NumericRun: inputs, execution and values of the studio's numeric debugger.
#include "numeric/NumericRun.h"

#include "StudioSession.h"
#include "model/ArchiveRecordings.h"
#include "tensor/Safetensors.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QSettings>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

namespace lattice::studio {

namespace {

QString toQ(const std::string& s) { return QString::fromStdString(s); }

} // namespace

/// What a prepare job hands back to the UI thread: the run ready to step, or why there is none.
struct NumericRun::Prepared {
  quint64 generation = 0; ///< m_generation when the job started; a later drop() voids it
  QString error;
  QString failedNode; ///< the FX node the error is about, when it is about one
  std::unique_ptr<LoweredRun> run;
  std::shared_ptr<RecordingMeasurements> measurements;
};

std::uint64_t NumericRun::defaultMemoryBudget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGE_SIZE);
  const std::uint64_t physical = pages > 0 && pageSize > 0 ? std::uint64_t(pages) * std::uint64_t(pageSize) : 0;
  return std::max<std::uint64_t>(physical / 200, std::uint64_t(128) << 20);
}

std::uint64_t NumericRun::memoryBudget() {
  const qulonglong bytes = QSettings().value(QStringLiteral("numeric/memoryBudget"), 0).toULongLong();
  return bytes > 0 ? std::uint64_t(bytes) : defaultMemoryBudget();
}

void NumericRun::setMemoryBudget(std::uint64_t bytes) {
  QSettings().setValue(QStringLiteral("numeric/memoryBudget"), qulonglong(bytes));
}

QString NumericRun::makeInputs(const InputChoice& choice, const ArchiveRecordings* recordings,
                               const runtime::RuntimePlan& plan, RunInputs& out) {
  RunInputSpec spec;
  switch (choice.source) {
  case InputSource::Recorded:
    spec = RunInputSpec::recorded();
    break;
  case InputSource::File:
    if (choice.file.isEmpty()) return tr("choose an inputs file (Debug ▸ Run Inputs…)");
    spec = RunInputSpec::fromFile(QFile::encodeName(choice.file).toStdString());
    break;
  case InputSource::Random:
    spec.random.points = choice.points;
    spec.random.seed = choice.seed;
    spec.random.batchSize = choice.batchSize;
    break;
  }
  Expected<RunInputs> inputs = makeRunInputs(spec, plan, recordings);
  if (!inputs) return toQ(inputs.message());
  out = std::move(*inputs);
  return {};
}


/// Everything a prepare job reads, copied on the UI thread. The pointers stay valid while the job
/// runs: the session announces any change to them (aboutToChange) and NumericRun waits for its
/// jobs then.
struct NumericRun::PrepareJob {
  const Model* model = nullptr;
  const fx::Graph* graph = nullptr; ///< the session's trace, lowered as it is (no second trace)
  ExportOptions options;            ///< options.tracer: the session's tracer
  std::string name;
  NumericRun::InputChoice choice;
  const ArchiveRecordings* recordings = nullptr;
  std::uint64_t budget = 0; ///< RuntimeOptions::keepBudgetBytes
};

QString NumericRun::prepareRun(const PrepareJob& job, std::unique_ptr<LoweredRun>& out, QString* failedNode,
                               std::shared_ptr<RecordingMeasurements>* measurements) {
  Expected<PreparedLowering> lowering = prepareLowering(*job.model, job.options, job.graph);
  if (!lowering) return toQ(lowering.message());
  const auto failedAt = [&](const std::string& message) {
    if (failedNode) *failedNode = toQ(failedNodeOf(*lowering, message));
    return toQ(message);
  };
  if (Status s = finishLowering(*lowering); !s) return failedAt(s.message());
  Expected<LoweredRun> run = runLowering(*lowering, job.name);
  if (!run) return failedAt(run.message());
  auto prepared = std::make_unique<LoweredRun>(std::move(*run));
  RunInputs inputs;
  if (QString problem = makeInputs(job.choice, job.recordings, prepared->runtime.plan(), inputs); !problem.isEmpty())
    return failedAt(problem.toStdString());
  runtime::RuntimeOptions keep;
  keep.keepValues = true;
  keep.keepBudgetBytes = job.budget;
  // The golden check reads every value once, as it is made: values may be dropped later.
  if (measurements && job.choice.source == InputSource::Recorded && job.recordings &&
      job.recordings->hasActivations()) {
    auto m = std::make_shared<RecordingMeasurements>(prepared->nodeValues, prepared->runtime.plan(), *job.recordings);
    const runtime::Runtime* rt = &prepared->runtime;
    keep.afterOp = [m, rt](int op) { m->measureOp(*rt, op); };
    *measurements = m;
  }
  if (Status s = prepared->runtime.start(inputs.bound, keep); !s) return failedAt(s.message());
  out = std::move(prepared);
  return {};
}

NumericRun::NumericRun(StudioSession* session, QObject* parent) : QObject(parent), m_session(session) {
  m_poll = new QTimer(this);
  m_poll->setInterval(100);
  connect(m_poll, &QTimer::timeout, this, [this] { Q_EMIT progressed(opsDone(), opsTotal()); });
  connect(&m_watcher, &QFutureWatcherBase::finished, this, &NumericRun::onRunFinished);
  connect(&m_prepareWatcher, &QFutureWatcherBase::finished, this, &NumericRun::onPrepared);
  connect(&m_recomputeWatcher, &QFutureWatcherBase::finished, this, &NumericRun::onRecomputed);
  // A prepare job reads the model, its graph and the tracer: they must outlive it.
  connect(session, &StudioSession::aboutToChange, this, [this] {
    drop();
    waitForPrepareJobs();
  });
  connect(session, &StudioSession::modelLoaded, this, &NumericRun::onModelChanged);
  // What the artifact is lowered from changed: its values are void. (Opening a model emits
  // graphChanged and inputSpecsChanged right after modelLoaded; they are part of the load.)
  for (auto signal : {&StudioSession::graphChanged, &StudioSession::inputSpecsChanged,
                      &StudioSession::exportOptionsChanged})
    connect(session, signal, this, [this] {
      if (!m_inLoad) drop();
    });
  connect(session, &StudioSession::weightsLoaded, this, &NumericRun::drop);
  connect(session, &StudioSession::interpreterStepped, this, &NumericRun::onInterpreterStepped);
  connect(session, &StudioSession::interpreterFinished, this, &NumericRun::onInterpreterStepped);
  connect(session, &StudioSession::interpreterReset, this, &NumericRun::onInterpreterReset);
  QSettings settings;
  m_stepping = settings.value(QStringLiteral("numeric/stepping"), true).toBool();
}

NumericRun::~NumericRun() {
  stopRecompute();
  if (m_run && m_watcher.isRunning()) {
    m_run->runtime.cancel();
    m_watcher.waitForFinished();
  }
  waitForPrepareJobs();
}

void NumericRun::waitForPrepareJobs() {
  if (m_preparing) m_prepareWatcher.waitForFinished();
  for (QFuture<std::shared_ptr<Prepared>>& job : m_abandoned)
    job.waitForFinished();
  m_abandoned.clear();
}

// --- inputs -------------------------------------------------------------------------------------

QString NumericRun::settingsKey() const {
  return StudioSession::inputSettingsGroup(m_session->modelReference()) + QStringLiteral("/run");
}

NumericRun::InputChoice NumericRun::defaultChoice() const {
  InputChoice choice;
  if (m_hasRecordedInputs) choice.source = InputSource::Recorded;
  QSettings settings;
  settings.beginGroup(settingsKey());
  if (!settings.contains(QStringLiteral("source"))) return choice;
  const QString source = settings.value(QStringLiteral("source")).toString();
  choice.source = source == QLatin1String("file")       ? InputSource::File
                  : source == QLatin1String("recorded") ? InputSource::Recorded
                                                        : InputSource::Random;
  if (choice.source == InputSource::Recorded && !m_hasRecordedInputs) choice.source = InputSource::Random;
  choice.file = settings.value(QStringLiteral("file")).toString();
  choice.points = std::max<qint64>(1, settings.value(QStringLiteral("points"), choice.points).toLongLong());
  choice.seed = settings.value(QStringLiteral("seed"), choice.seed).toULongLong();
  choice.batchSize = std::max<qint64>(1, settings.value(QStringLiteral("batch"), choice.batchSize).toLongLong());
  return choice;
}

void NumericRun::setInputChoice(const InputChoice& choice) {
  if (choice == m_choice) return;
  m_choice = choice;
  if (!m_session->modelReference().isEmpty()) {
    QSettings settings;
    settings.beginGroup(settingsKey());
    settings.setValue(QStringLiteral("source"), choice.source == InputSource::File       ? QStringLiteral("file")
                                                : choice.source == InputSource::Recorded ? QStringLiteral("recorded")
                                                                                         : QStringLiteral("random"));
    settings.setValue(QStringLiteral("file"), choice.file);
    settings.setValue(QStringLiteral("points"), choice.points);
    settings.setValue(QStringLiteral("seed"), choice.seed);
    settings.setValue(QStringLiteral("batch"), choice.batchSize);
  }
  drop();
  Q_EMIT inputChoiceChanged();
}

QString NumericRun::describeInputs() const {
  switch (m_choice.source) {
  case InputSource::Recorded:
    return tr("recorded inputs (%1)").arg(QString::fromLatin1(kArchiveInputsFile));
  case InputSource::File:
    return m_choice.file.isEmpty() ? tr("no inputs file chosen") : QFileInfo(m_choice.file).fileName();
  case InputSource::Random:
    break;
  }
  return tr("%1 random points (seed %2, batch %3)")
      .arg(QLocale().toString(m_choice.points))
      .arg(m_choice.seed)
      .arg(m_choice.batchSize);
}

QString NumericRun::saveInputs(const QString& path) {
  std::unique_ptr<LoweredRun> prepared;
  const runtime::RuntimePlan* plan = m_run ? &m_run->runtime.plan() : nullptr;
  if (!plan) { // the inputs follow the plan's ABI: lower the model for it (the run itself is not kept)
    if (!m_session->model()) return tr("no model is open");
    if (QString problem = prepareRun(makeJob(), prepared); !problem.isEmpty()) return problem;
    plan = &prepared->runtime.plan();
  }
  RunInputs inputs;
  const ArchiveRecordings* recordings = m_recordings ? &*m_recordings : nullptr;
  if (QString problem = makeInputs(m_choice, recordings, *plan, inputs); !problem.isEmpty()) return problem;
  if (Status s = writeSafetensors(QFile::encodeName(path).toStdString(), inputs.tensors, std::nullopt); !s)
    return toQ(s.message());
  return {};
}

// --- running ------------------------------------------------------------------------------------

NumericRun::PrepareJob NumericRun::makeJob() const {
  PrepareJob job;
  job.model = m_session->model();
  job.graph = m_session->graph();
  job.options = m_session->exportOptions();
  job.options.tracer = &m_session->tracer();
  const QString reference = m_session->modelReference();
  const QString file = QFileInfo(reference).fileName();
  job.name = (file.isEmpty() ? reference : file).toStdString();
  job.choice = m_choice;
  job.recordings = m_recordings ? &*m_recordings : nullptr;
  job.budget = memoryBudget();
  return job;
}

void NumericRun::startPrepare(Then then) {
  stopRecompute(); // it reads the run about to go
  m_recomputed.clear();
  m_measurements.reset();
  m_run.reset();
  m_check.reset();
  m_error.clear();
  m_failedNode.clear();
  if (!m_session->model()) {
    m_error = tr("no model is open");
    setState(State::Failed);
    Q_EMIT failed(QString(), m_error);
    return;
  }
  m_abandoned.erase(std::remove_if(m_abandoned.begin(), m_abandoned.end(),
                                   [](const QFuture<std::shared_ptr<Prepared>>& f) { return f.isFinished(); }),
                    m_abandoned.end());
  m_then = then;
  m_preparing = true;
  m_progress.store(0);
  setState(State::Running);
  Q_EMIT progressed(0, 0);
  m_prepareWatcher.setFuture(QtConcurrent::run([job = makeJob(), generation = m_generation] {
    auto result = std::make_shared<Prepared>();
    result->generation = generation;
    result->error = prepareRun(job, result->run, &result->failedNode, &result->measurements);
    return result;
  }));
}

void NumericRun::onPrepared() {
  if (!m_preparing || !m_prepareWatcher.isFinished()) return; // a dropped job's late signal
  const std::shared_ptr<Prepared> result = m_prepareWatcher.result();
  if (result->generation != m_generation) return; // dropped meanwhile
  m_preparing = false;
  if (!result->error.isEmpty()) {
    m_error = result->error;
    m_failedNode = result->failedNode;
    setState(State::Failed);
    Q_EMIT failed(m_failedNode, m_error);
    return;
  }
  m_run = std::move(result->run);
  m_measurements = std::move(result->measurements);
  if (m_then == Then::Run) {
    startWorker(-1);
    return;
  }
  // Numeric stepping: run the ops of the nodes the interpreter executed meanwhile.
  setState(State::Ready);
  Q_EMIT progressed(opsDone(), opsTotal());
  onInterpreterStepped();
}

void NumericRun::run() {
  if (m_preparing) {
    m_then = Then::Run; // numeric stepping's prepare: run every op once it is done
    Q_EMIT stateChanged(m_state); // now a whole run
    return;
  }
  if (isRunning()) {
    if (m_stepTarget >= 0) {
      m_stepTarget = opsTotal(); // stepping's ops are running: go on to the end
      Q_EMIT stateChanged(m_state);
    }
    return;
  }
  startPrepare(Then::Run);
}

void NumericRun::startWorker(int end) {
  stopRecompute(); // a recompute reads the runtime the worker is about to change
  setState(State::Running);
  runtime::Runtime* rt = &m_run->runtime;
  std::atomic<int>* progress = &m_progress;
  progress->store(rt->currentOp());
  m_watcher.setFuture(QtConcurrent::run([rt, progress, end] {
    while (!rt->finished() && (end < 0 || rt->currentOp() < end)) {
      if (Status s = rt->step(); !s) return QString::fromStdString(s.message());
      progress->store(rt->currentOp());
    }
    return QString();
  }));
  m_poll->start();
}

void NumericRun::cancel() {
  if (m_preparing) { // the lowering cannot stop midway: its result is dropped when it is done
    drop();
    m_error = tr("cancelled");
    setState(State::Failed);
    Q_EMIT failed(QString(), m_error);
    return;
  }
  if (isRunning() && m_run) {
    m_cancelRequested = true;
    m_run->runtime.cancel();
  }
}

void NumericRun::onRunFinished() {
  // The "finished" of a worker that drop() already waited for can still be queued: it has nothing
  // left to report (its run is gone, or a newer one is under way).
  if (!m_run || !isRunning() || m_preparing || !m_watcher.isFinished()) return;
  m_poll->stop();
  const QString error = m_watcher.result();
  const int stepTarget = std::exchange(m_stepTarget, -1);
  if (std::exchange(m_cancelRequested, false) && !error.isEmpty()) {
    // A cancelled run's values are given back: what the user stopped is not worth its memory.
    drop();
    m_error = tr("cancelled");
    setState(State::Failed);
    Q_EMIT failed(QString(), m_error);
    Q_EMIT progressed(0, 0);
    return;
  }
  if (!error.isEmpty()) {
    fail(m_run ? m_run->runtime.currentOp() : -1, error);
    Q_EMIT progressed(opsDone(), opsTotal());
    Q_EMIT valuesChanged();
    return;
  }
  if (m_run->runtime.finished()) {
    setState(State::Finished);
    computeCheck();
  } else if (stepTarget > m_run->runtime.currentOp()) {
    // The interpreter stepped on while these ops ran: run on to its latest node.
    m_stepTarget = stepTarget;
    startWorker(stepTarget);
    return;
  } else {
    setState(State::Ready);
  }
  Q_EMIT progressed(opsDone(), opsTotal());
  Q_EMIT valuesChanged();
}

void NumericRun::fail(int op, const QString& message) {
  m_error = message;
  m_failedNode.clear();
  if (m_run && op >= 0 && op < static_cast<int>(m_run->opNodes.size()))
    m_failedNode = toQ(m_run->opNodes[static_cast<std::size_t>(op)]);
  setState(State::Failed);
  Q_EMIT failed(m_failedNode, m_error);
}

void NumericRun::setStepping(bool on) {
  if (on == m_stepping) return;
  m_stepping = on;
  QSettings().setValue(QStringLiteral("numeric/stepping"), on);
  if (on) onInterpreterStepped();
}

int NumericRun::opsDone() const {
  if (!m_run) return 0;
  return isRunning() ? m_progress.load() : m_run->runtime.currentOp();
}

int NumericRun::opsTotal() const { return m_run ? static_cast<int>(m_run->runtime.plan().ops.size()) : 0; }

void NumericRun::onInterpreterStepped() {
  if (!m_stepping || m_state == State::Failed || m_preparing) return; // onPrepared() catches up
  if (isRunning() && m_stepTarget < 0) return; // a whole run is going on
  const QStringList& executed = m_session->executedNodes();
  if (executed.isEmpty()) return;
  if (!m_run) {
    startPrepare(Then::Step);
    return;
  }
  int end = -1;
  for (auto it = executed.crbegin(); it != executed.crend() && end < 0; ++it)
    end = m_run->opEndOf(it->toStdString());
  if (isRunning()) { // stepping's ops are running: the worker goes on to `end` when it is done
    m_stepTarget = std::max(m_stepTarget, end);
    return;
  }
  if (end <= m_run->runtime.currentOp()) return;
  m_stepTarget = end;
  startWorker(end);
}

void NumericRun::onInterpreterReset() {
  // A finished run keeps its values (they do not depend on where the interpreter stands); values
  // made by stepping start again with the interpreter.
  if (m_state == State::Finished || (isRunning() && m_stepTarget < 0) || m_inLoad) return;
  drop();
}

void NumericRun::onModelChanged() {
  drop();
  m_inLoad = true; // until the load's own signals are delivered
  QTimer::singleShot(0, this, [this] { m_inLoad = false; });
  m_recordings.reset();
  m_hasRecordedInputs = m_hasRecordedActivations = false;
  const QString reference = m_session->modelReference();
  if (QFileInfo(reference).isDir()) {
    const ArchiveRecordingFiles files = findArchiveRecordings(reference.toStdString());
    if (files.inputs || files.activations) {
      std::vector<std::string> nodes;
      if (const fx::Graph* graph = m_session->graph())
        for (const fx::Node& node : graph->nodes()) nodes.push_back(node.name());
      Expected<ArchiveRecordings> recordings = readArchiveRecordings(reference.toStdString(), nodes);
      if (recordings) {
        m_hasRecordedInputs = recordings->hasInputs();
        m_hasRecordedActivations = recordings->hasActivations();
        m_recordings = std::move(*recordings);
      }
    }
  }
  m_choice = defaultChoice();
  m_expectedOutputs = QSettings().value(settingsKey() + QStringLiteral("/expected")).toString();
  Q_EMIT inputChoiceChanged();
}

void NumericRun::drop() {
  ++m_generation; // a prepare job still running is void
  if (m_preparing) {
    m_abandoned.push_back(m_prepareWatcher.future());
    m_preparing = false;
  }
  if (isRunning() && m_run) {
    m_run->runtime.cancel();
    m_watcher.waitForFinished();
    m_poll->stop();
  }
  m_stepTarget = -1;
  m_cancelRequested = false;
  stopRecompute();
  m_recomputed.clear();
  m_measurements.reset();
  const bool had = m_run != nullptr;
  m_run.reset();
  if (had) ::malloc_trim(0); // give the freed values back to the system, not only to malloc
  m_check.reset();
  m_error.clear();
  m_failedNode.clear();
  setState(State::Empty);
  if (had) Q_EMIT valuesChanged();
}

void NumericRun::setState(State state) {
  if (state == m_state) return;
  m_state = state;
  Q_EMIT stateChanged(state);
}

// --- results ------------------------------------------------------------------------------------

std::vector<std::pair<QString, runtime::RuntimeValue>> NumericRun::valuesOf(const QString& node) const {
  std::vector<std::pair<QString, runtime::RuntimeValue>> out;
  if (!m_run || isRunning()) return out;
  for (int index : m_run->valuesOf(node.toStdString())) {
    const NodeValueRef& ref = m_run->nodeValues[static_cast<std::size_t>(index)];
    const int slot = m_run->runtime.plan().slotOf(ref.ssa);
    runtime::RuntimeValue value = slot < 0 ? runtime::RuntimeValue() : m_run->runtime.value(slot);
    if (slot >= 0 && m_run->runtime.evicted(slot))
      for (const auto& [kept, again] : m_recomputed)
        if (kept == slot) value = again;
    out.emplace_back(toQ(ref.name), std::move(value));
  }
  return out;
}

bool NumericRun::isDropped(const QString& node) const {
  if (!m_run || isRunning()) return false;
  for (int index : m_run->valuesOf(node.toStdString())) {
    const int slot = m_run->runtime.plan().slotOf(m_run->nodeValues[static_cast<std::size_t>(index)].ssa);
    if (slot < 0 || !m_run->runtime.evicted(slot)) continue;
    if (std::none_of(m_recomputed.begin(), m_recomputed.end(), [&](const auto& r) { return r.first == slot; }))
      return true;
  }
  return false;
}

void NumericRun::recompute(const QString& node) {
  if (!m_run || isRunning() || !isDropped(node)) return;
  if (m_recomputeNode == node) return; // already under way
  stopRecompute();
  std::vector<int> slots;
  for (int index : m_run->valuesOf(node.toStdString())) {
    const int slot = m_run->runtime.plan().slotOf(m_run->nodeValues[static_cast<std::size_t>(index)].ssa);
    if (slot >= 0 && m_run->runtime.evicted(slot)) slots.push_back(slot);
  }
  m_recomputeNode = node;
  m_recomputeCancel = false;
  m_recomputeResult.clear();
  const runtime::Runtime* rt = &m_run->runtime;
  m_recomputeWatcher.setFuture(QtConcurrent::run([this, rt, slots] {
    for (int slot : slots) {
      Expected<runtime::RuntimeValue> value = rt->recompute(slot, &m_recomputeCancel);
      if (!value) return toQ(value.message());
      m_recomputeResult.emplace_back(slot, std::move(*value));
    }
    return QString();
  }));
}

void NumericRun::stopRecompute() {
  if (!m_recomputeNode) return;
  m_recomputeCancel = true;
  m_recomputeWatcher.waitForFinished(); // stops at the next op boundary
  m_recomputeNode.reset();
  m_recomputeResult.clear();
}

void NumericRun::onRecomputed() {
  if (!m_recomputeNode || !m_recomputeWatcher.isFinished()) return;
  const QString error = m_recomputeWatcher.result();
  m_recomputeNode.reset();
  if (!error.isEmpty()) {
    m_error = error;
    Q_EMIT valuesChanged();
    return;
  }
  m_recomputed = std::move(m_recomputeResult);
  m_recomputeResult.clear();
  Q_EMIT valuesChanged();
}

double NumericRun::runMs() const {
  if (!m_run || isRunning()) return 0.0;
  double ms = 0.0;
  for (int op = 0; op < opsTotal(); ++op) ms += m_run->runtime.stats(op).ms;
  return ms;
}

double NumericRun::nodeMs(const QString& node) const {
  if (!m_run || isRunning()) return -1.0;
  double ms = 0.0;
  bool ran = false;
  for (int op : m_run->opsOf(node.toStdString())) {
    const runtime::OpStats& stats = m_run->runtime.stats(op);
    if (!stats.ran) continue;
    ran = true;
    ms += stats.ms;
  }
  return ran ? ms : -1.0;
}

void NumericRun::computeCheck() {
  m_check.reset();
  m_checkIsRecorded = false;
  if (!m_run || m_state != State::Finished) return;
  if (m_choice.source == InputSource::Recorded && m_recordings && m_recordings->hasActivations()) {
    m_check = checkAgainstRecording(m_run->nodeValues, m_run->runtime, *m_recordings, m_tolerance, m_measurements.get());
    m_checkIsRecorded = true;
    return;
  }
  if (m_expectedOutputs.isEmpty()) return;
  m_check = checkOutputsByNode(*m_run, QFile::encodeName(m_expectedOutputs).toStdString(), m_tolerance);
}

void NumericRun::setExpectedOutputs(const QString& file) {
  if (file == m_expectedOutputs) return;
  m_expectedOutputs = file;
  if (!m_session->modelReference().isEmpty())
    QSettings().setValue(settingsKey() + QStringLiteral("/expected"), file);
  computeCheck(); // the outputs are kept: no second run
  Q_EMIT inputChoiceChanged();
  Q_EMIT valuesChanged();
}

QString NumericRun::goldenDescription() const {
  if (m_check && m_checkIsRecorded) return tr("recorded activations");
  if (m_check) return QFileInfo(m_expectedOutputs).fileName();
  return {};
}

QString NumericRun::firstDivergentNode() const {
  if (!m_check || m_check->firstDivergent < 0) return {};
  return toQ(m_check->nodes[static_cast<std::size_t>(m_check->firstDivergent)].ref.node);
}

void NumericRun::setTolerance(double tolerance) {
  if (tolerance == m_tolerance) return;
  m_tolerance = tolerance;
  computeCheck();
  Q_EMIT valuesChanged();
}

} // namespace lattice::studio
