// NumericRun: inputs, execution and values of the studio's numeric debugger.
#include "numeric/NumericRun.h"

#include "StudioSession.h"
#include "model/ArchiveRecordings.h"
#include "runtime/RandomInputs.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QSettings>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>

#include <algorithm>
#include <utility>

namespace lattice::studio {

namespace {

QString toQ(const std::string& s) { return QString::fromStdString(s); }

} // namespace

NumericRun::NumericRun(StudioSession* session, QObject* parent) : QObject(parent), m_session(session) {
  m_poll = new QTimer(this);
  m_poll->setInterval(100);
  connect(m_poll, &QTimer::timeout, this, [this] { Q_EMIT progressed(opsDone(), opsTotal()); });
  connect(&m_watcher, &QFutureWatcherBase::finished, this, &NumericRun::onRunFinished);
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
  m_stepping = settings.value(QStringLiteral("numeric/stepping"), false).toBool();
}

NumericRun::~NumericRun() {
  if (m_run && m_watcher.isRunning()) {
    m_run->runtime.cancel();
    m_watcher.waitForFinished();
  }
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

QString NumericRun::makeInputs(const runtime::RuntimePlan& plan, std::vector<NamedTensor>& out,
                               runtime::RuntimeInputs* bound) const {
  auto fromFile = [&](const SafetensorsFile& file) -> QString {
    out = file.tensors();
    if (!bound) return {};
    Expected<runtime::RuntimeInputs> inputs = runtime::RuntimeInputs::fromFile(file);
    if (!inputs) return toQ(inputs.message());
    *bound = std::move(*inputs);
    return {};
  };
  switch (m_choice.source) {
  case InputSource::Recorded:
    if (!m_recordings || !m_recordings->inputs) return tr("the model has no recorded inputs");
    return fromFile(*m_recordings->inputs);
  case InputSource::File: {
    if (m_choice.file.isEmpty()) return tr("choose an inputs file (Debug ▸ Run Inputs…)");
    Expected<SafetensorsFile> file = SafetensorsFile::open(m_choice.file.toStdString());
    if (!file) return toQ(file.message());
    return fromFile(*file);
  }
  case InputSource::Random:
    break;
  }
  runtime::RandomInputOptions options;
  options.points = m_choice.points;
  options.seed = m_choice.seed;
  options.batchSize = m_choice.batchSize;
  Expected<std::vector<NamedTensor>> tensors = runtime::randomInputs(plan, options);
  if (!tensors) return toQ(tensors.message());
  out = std::move(*tensors);
  if (bound) bound->named = out;
  return {};
}

QString NumericRun::saveInputs(const QString& path) {
  if (!m_run && !prepare()) return m_error;
  std::vector<NamedTensor> tensors;
  if (QString problem = makeInputs(m_run->runtime.plan(), tensors, nullptr); !problem.isEmpty()) return problem;
  if (Status s = writeSafetensors(path.toStdString(), tensors, std::nullopt); !s) return toQ(s.message());
  return {};
}

// --- running ------------------------------------------------------------------------------------

bool NumericRun::prepare() {
  m_run.reset();
  m_check.reset();
  m_error.clear();
  m_failedNode.clear();
  const Model* model = m_session->model();
  if (!model) {
    m_error = tr("no model is open");
    return false;
  }
  // The graph on screen (the session's trace, with the user's leaf overrides) is lowered: no
  // second trace, and the run's node names are the ones the views show.
  ExportOptions options = m_session->exportOptions();
  options.tracer = &m_session->tracer();
  Expected<PreparedLowering> lowering = prepareLowering(*model, options, m_session->graph());
  if (!lowering) {
    m_error = toQ(lowering.message());
    return false;
  }
  if (Status s = finishLowering(*lowering); !s) {
    m_error = toQ(s.message());
    return false;
  }
  const QString name = m_session->modelReference();
  Expected<LoweredRun> run = runLowering(*lowering, QFileInfo(name).fileName().isEmpty() ? name.toStdString()
                                                                                        : QFileInfo(name).fileName().toStdString());
  if (!run) {
    m_error = toQ(run.message());
    return false;
  }
  auto prepared = std::make_unique<LoweredRun>(std::move(*run));
  std::vector<NamedTensor> tensors;
  runtime::RuntimeInputs inputs;
  if (QString problem = makeInputs(prepared->runtime.plan(), tensors, &inputs); !problem.isEmpty()) {
    m_error = problem;
    return false;
  }
  runtime::RuntimeOptions keep;
  keep.keepValues = true;
  if (Status s = prepared->runtime.start(inputs, keep); !s) {
    m_error = toQ(s.message());
    return false;
  }
  m_run = std::move(prepared);
  m_progress.store(0);
  setState(State::Ready);
  return true;
}

void NumericRun::run() {
  if (isRunning()) {
    if (m_stepTarget >= 0) m_stepTarget = opsTotal(); // stepping's ops are running: go on to the end
    return;
  }
  if (!prepare()) {
    setState(State::Failed);
    Q_EMIT failed(QString(), m_error);
    return;
  }
  startWorker(-1);
}

void NumericRun::startWorker(int end) {
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
  if (isRunning() && m_run) m_run->runtime.cancel();
}

void NumericRun::onRunFinished() {
  m_poll->stop();
  const QString error = m_watcher.result();
  const int stepTarget = std::exchange(m_stepTarget, -1);
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
  if (!m_stepping || m_state == State::Failed) return;
  if (isRunning() && m_stepTarget < 0) return; // a whole run is going on
  const QStringList& executed = m_session->executedNodes();
  if (executed.isEmpty()) return;
  if (!m_run && !prepare()) {
    setState(State::Failed);
    Q_EMIT failed(QString(), m_error);
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
  Q_EMIT inputChoiceChanged();
}

void NumericRun::drop() {
  if (isRunning()) {
    m_run->runtime.cancel();
    m_watcher.waitForFinished();
    m_poll->stop();
  }
  m_stepTarget = -1;
  const bool had = m_run != nullptr;
  m_run.reset();
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
  const std::string name = node.toStdString();
  for (const NodeValueRef& ref : m_run->nodeValues) {
    if (ref.node != name) continue;
    const int slot = m_run->runtime.plan().slotOf(ref.ssa);
    out.emplace_back(toQ(ref.name), slot < 0 ? runtime::RuntimeValue() : m_run->runtime.value(slot));
  }
  return out;
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
  if (!m_run || m_state != State::Finished || m_choice.source != InputSource::Recorded || !m_recordings ||
      !m_recordings->hasActivations())
    return;
  m_check = checkAgainstRecording(m_run->nodeValues, m_run->runtime, *m_recordings, m_tolerance);
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
