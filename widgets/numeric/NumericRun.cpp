// NumericRun: inputs, execution and values of the studio's numeric debugger. Every job runs on
// m_pool and reads what it was handed (a PrepareJob, the run it shares); its result comes back
// through whenDone, which drops it when a newer request or a change made it stale.
#include "numeric/NumericRun.h"

#include "StudioSession.h"
#include "model/ArchiveRecordings.h"
#include "tensor/Safetensors.h"

#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLocale>
#include <QSettings>
#include <QThread>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

namespace lattice::studio {

namespace {

QString toQ(const std::string& s) { return QString::fromStdString(s); }

std::function<void()>& prepareHook() {
  static std::function<void()> hook;
  return hook;
}

} // namespace

/// What a recompute job hands back: the values computed again, or why not.
struct NumericRun::Recomputed {
  QString error;
  std::vector<std::pair<int, runtime::RuntimeValue>> values;
};

void NumericRun::setPrepareHook(std::function<void()> hook) { prepareHook() = std::move(hook); }

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

NumericRun::NumericRun(StudioSession* session, QObject* parent)
    : QObject(parent), m_session(session), m_progress(std::make_shared<std::atomic<int>>(0)) {
  // Two threads at least: a held or cancelled job never keeps the next one waiting.
  m_pool.setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
  m_poll = new QTimer(this);
  m_poll->setInterval(100);
  connect(m_poll, &QTimer::timeout, this, [this] { Q_EMIT progressed(opsDone(), opsTotal()); });
  connect(session, &StudioSession::modelLoaded, this, &NumericRun::onModelChanged);
  // What the artifact is lowered from changed: its values are void. A load emits these after
  // modelLoaded; they bring nothing new then (the revision is the one onModelChanged saw).
  for (auto signal : {&StudioSession::graphChanged, &StudioSession::inputSpecsChanged,
                      &StudioSession::exportOptionsChanged})
    connect(session, signal, this, &NumericRun::onSourceChanged);
  connect(session, &StudioSession::traceFailed, this, &NumericRun::onSourceChanged);
  connect(session, &StudioSession::weightsLoaded, this, &NumericRun::onSourceChanged);
  connect(session, &StudioSession::interpreterStepped, this, &NumericRun::onInterpreterStepped);
  connect(session, &StudioSession::interpreterFinished, this, &NumericRun::onInterpreterStepped);
  connect(session, &StudioSession::interpreterReset, this, &NumericRun::onInterpreterReset);
  QSettings settings;
  m_stepping = settings.value(QStringLiteral("numeric/stepping"), true).toBool();
}

NumericRun::~NumericRun() {
  // Teardown: everything is cancelled, and the jobs (which own what they read) end first.
  if (m_prepareCancel) m_prepareCancel->store(true);
  if (m_recomputeCancel) m_recomputeCancel->store(true);
  if (m_run) m_run->runtime.cancel();
  m_pool.waitForDone();
}

template <typename T, typename F>
void NumericRun::whenDone(QFuture<T> future, quint64 NumericRun::*generation, F done) {
  auto* watcher = new QFutureWatcher<T>(this);
  ++m_jobs;
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, done, taken = this->*generation] {
    watcher->deleteLater();
    --m_jobs;
    if (taken == this->*generation) done(watcher->result());
  });
  watcher->setFuture(future);
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
  PreparedRun prepared;
  const runtime::RuntimePlan* plan = m_run ? &m_run->runtime.plan() : nullptr;
  if (!plan) { // the inputs follow the plan's ABI: lower the model for it (the run itself is not kept)
    if (!m_session->model()) return tr("no model is open");
    prepared = prepareRun(makeJob(), false);
    if (!prepared.error.isEmpty()) return prepared.error;
    plan = &prepared.run->runtime.plan();
  }
  Expected<RunInputs> inputs = makeChosenInputs(m_choice, m_recordings.get(), *plan);
  if (!inputs) return toQ(inputs.message());
  if (Status s = writeSafetensors(QFile::encodeName(path).toStdString(), inputs->tensors, std::nullopt); !s)
    return toQ(s.message());
  return {};
}

// --- running ------------------------------------------------------------------------------------

PrepareJob NumericRun::makeJob() const {
  PrepareJob job;
  job.source = m_session->snapshot();
  const QString reference = m_session->modelReference();
  const QString file = QFileInfo(reference).fileName();
  job.name = (file.isEmpty() ? reference : file).toStdString();
  job.choice = m_choice;
  job.recordings = m_recordings;
  job.budget = memoryBudget();
  job.hook = prepareHook();
  return job;
}

void NumericRun::startPrepare(Then then) {
  stopRecompute(); // it reads the run about to go
  m_recomputed.clear();
  m_measurements.reset();
  m_run.reset();
  m_check.reset();
  m_error.clear();
  m_cancelled = false;
  m_failedNode.clear();
  if (!m_session->model()) {
    m_error = tr("no model is open");
    setState(State::Failed);
    Q_EMIT failed(QString(), m_error);
    return;
  }
  m_then = then;
  m_preparing = true;
  m_progress->store(0);
  setState(State::Running);
  Q_EMIT progressed(0, 0);
  PrepareJob job = makeJob();
  job.cancel = m_prepareCancel = std::make_shared<std::atomic<bool>>(false);
  m_sourceRevision = job.source->revision;
  whenDone(QtConcurrent::run(&m_pool, [job] { return prepareRun(job, true); }), &NumericRun::m_generation,
           [this](const PreparedRun& result) { onPrepared(result); });
}

void NumericRun::onPrepared(const PreparedRun& result) {
  if (!m_preparing) return;
  if (m_sourceRevision != m_session->revision()) { // read what is no longer the session's
    drop();
    return;
  }
  m_preparing = false;
  m_prepareCancel.reset();
  if (!result.error.isEmpty()) {
    m_error = result.error;
    m_failedNode = result.failedNode;
    setState(State::Failed);
    Q_EMIT failed(m_failedNode, m_error);
    return;
  }
  m_run = result.run;
  m_measurements = result.measurements;
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
  stopRecompute(); // the worker lets it end before changing the runtime it reads
  setState(State::Running);
  std::shared_ptr<LoweredRun> run = m_run;
  std::shared_ptr<std::atomic<int>> progress = m_progress;
  progress->store(run->runtime.currentOp());
  whenDone(QtConcurrent::run(&m_pool,
                             [run, progress, end, recompute = m_recomputeJob]() mutable {
                               recompute.waitForFinished();
                               runtime::Runtime& rt = run->runtime;
                               while (!rt.finished() && (end < 0 || rt.currentOp() < end)) {
                                 if (Status s = rt.step(); !s) return QString::fromStdString(s.message());
                                 progress->store(rt.currentOp());
                               }
                               return QString();
                             }),
           &NumericRun::m_generation, [this](const QString& error) { onRunFinished(error); });
  m_poll->start();
}

void NumericRun::cancel() {
  if (m_preparing) { // the lowering stops at its next node; its result is dropped
    drop();
    m_error = tr("cancelled");
    m_cancelled = true;
    setState(State::Failed);
    Q_EMIT failed(QString(), m_error);
    return;
  }
  if (isRunning() && m_run) {
    m_cancelRequested = true;
    m_run->runtime.cancel();
  }
}

void NumericRun::onRunFinished(const QString& error) {
  if (!m_run || !isRunning() || m_preparing) return;
  m_poll->stop();
  const int stepTarget = std::exchange(m_stepTarget, -1);
  if (std::exchange(m_cancelRequested, false) && !error.isEmpty()) {
    // A cancelled run's values are given back: what the user stopped is not worth its memory.
    drop();
    m_error = tr("cancelled");
    m_cancelled = true;
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
  m_cancelled = false;
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
  return isRunning() ? m_progress->load() : m_run->runtime.currentOp();
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

void NumericRun::onSourceChanged() {
  if (m_session->revision() != m_sourceRevision) drop();
}

void NumericRun::onInterpreterReset() {
  // A reset seen already is the one a load emits after modelLoaded: onModelChanged handled it.
  const quint64 resets = m_session->interpreterResets();
  if (resets == m_resetsSeen) return;
  m_resetsSeen = resets;
  // A finished run keeps its values (they do not depend on where the interpreter stands); values
  // made by stepping start again with the interpreter.
  if (m_state == State::Finished || (isRunning() && m_stepTarget < 0)) return;
  drop();
}

void NumericRun::onModelChanged() {
  drop();
  m_resetsSeen = m_session->interpreterResets();
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
        m_recordings = std::make_shared<const ArchiveRecordings>(std::move(*recordings));
      }
    }
  }
  m_choice = defaultChoice();
  m_expectedOutputs = QSettings().value(settingsKey() + QStringLiteral("/expected")).toString();
  Q_EMIT inputChoiceChanged();
}

void NumericRun::drop() {
  ++m_generation; // a job still running is void: its result is dropped when it arrives
  m_sourceRevision = m_session->revision();
  if (m_prepareCancel) m_prepareCancel->store(true); // the lowering stops at its next node
  m_prepareCancel.reset();
  m_preparing = false;
  if (isRunning() && m_run) m_run->runtime.cancel(); // the worker stops at its next op
  m_poll->stop();
  m_stepTarget = -1;
  m_cancelRequested = false;
  stopRecompute();
  m_recomputed.clear();
  m_measurements.reset();
  const bool had = m_run != nullptr;
  m_run.reset(); // a worker still running holds it until it stops
  if (had) ::malloc_trim(0); // give the freed values back to the system, not only to malloc
  m_check.reset();
  m_error.clear();
  m_cancelled = false;
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
  auto cancel = m_recomputeCancel = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<const LoweredRun> run = m_run;
  m_recomputeJob = QtConcurrent::run(&m_pool, [run, slots, cancel] {
    auto out = std::make_shared<Recomputed>();
    for (int slot : slots) {
      Expected<runtime::RuntimeValue> value = run->runtime.recompute(slot, cancel.get());
      if (!value) {
        out->error = toQ(value.message());
        break;
      }
      out->values.emplace_back(slot, std::move(*value));
    }
    return std::shared_ptr<const Recomputed>(std::move(out));
  });
  whenDone(m_recomputeJob, &NumericRun::m_recomputeGeneration,
           [this](const std::shared_ptr<const Recomputed>& result) { onRecomputed(*result); });
}

void NumericRun::stopRecompute() {
  if (!m_recomputeNode) return;
  m_recomputeCancel->store(true); // it stops at the next op boundary; its result is dropped
  ++m_recomputeGeneration;
  m_recomputeNode.reset();
}

void NumericRun::onRecomputed(const Recomputed& result) {
  m_recomputeNode.reset();
  if (!result.error.isEmpty()) {
    m_error = result.error;
    Q_EMIT valuesChanged();
    return;
  }
  m_recomputed = result.values;
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
