// QuantizationState: the planner's jobs on one worker thread, the plan's undoable edits, and the
// settings the dock keeps.
#include "quant/QuantizationState.h"

#include "StudioSession.h"
#include "numeric/NumericRun.h"

#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLocale>
#include <QPointer>
#include <QSaveFile>
#include <QSettings>
#include <QTimer>
#include <QUndoCommand>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrent>

#include <map>
#include <utility>

namespace lattice::studio {

namespace {

QString toQ(const std::string& s) { return QString::fromStdString(s); }

std::function<void()>& jobHook() {
  static std::function<void()> hook;
  return hook;
}

RunInputSpec specOf(const RunInputChoice& choice) {
  switch (choice.source) {
  case RunInputSource::Recorded:
    return RunInputSpec::recorded();
  case RunInputSource::File:
    return RunInputSpec::fromFile(QFile::encodeName(choice.file).toStdString());
  case RunInputSource::Random:
    break;
  }
  runtime::RandomInputOptions random;
  random.points = choice.points;
  random.seed = choice.seed;
  random.batchSize = choice.batchSize;
  return RunInputSpec::randomPoints(random);
}

} // namespace

/// What the jobs share: the planner and everything it read. Only the worker touches it (one
/// job at a time).
struct QuantizationState::Shared {
  std::shared_ptr<const ModelSnapshot> snapshot;
  std::shared_ptr<const ArchiveRecordings> recordings;
  RunInputChoice choice;
  QuantPlannerOptions options;
  std::unique_ptr<QuantPlanner> planner;
};

/// What a job hands back.
struct QuantizationState::Result {
  Job job = Job::None;
  QString error;
  bool cancelled = false;
  std::optional<QuantSensitivity> sensitivity;
  std::optional<PlanSearch> search;
  std::optional<PlanMeasurement> measurement;
};

/// What a job reads of the UI thread's counters: its cancel flag and progress.
struct QuantizationState::Progress {
  const std::atomic<bool>& cancel;
  std::atomic<int>& done;
  std::atomic<int>& total;
};

/// One step of the session's undo stack: the plan's formats from `before` to `after`, by layer
/// name (a layer no longer analysed is left alone).
class QuantFormatsCommand : public QUndoCommand {
public:
  QuantFormatsCommand(QuantizationState* state, std::map<std::string, WeightFormat> before,
                      std::map<std::string, WeightFormat> after, const QString& text)
      : QUndoCommand(text), m_state(state), m_before(std::move(before)), m_after(std::move(after)) {}
  void redo() override { apply(m_after); }
  void undo() override { apply(m_before); }

private:
  void apply(const std::map<std::string, WeightFormat>& formats) {
    if (!m_state || !m_state->sensitivity()) return;
    std::vector<WeightFormat> next = m_state->formats();
    const auto& layers = m_state->sensitivity()->layers;
    for (std::size_t i = 0; i < layers.size() && i < next.size(); ++i)
      if (auto it = formats.find(layers[i].name); it != formats.end()) next[i] = it->second;
    m_state->applyFormats(next);
  }
  QPointer<QuantizationState> m_state;
  std::map<std::string, WeightFormat> m_before;
  std::map<std::string, WeightFormat> m_after;
};

void QuantizationState::setJobHook(std::function<void()> hook) { jobHook() = std::move(hook); }

QuantizationState::QuantizationState(StudioSession* session, NumericRun* numeric)
    : QObject(session), m_session(session), m_numeric(numeric), m_done(std::make_shared<std::atomic<int>>(0)),
      m_total(std::make_shared<std::atomic<int>>(0)) {
  setObjectName(QStringLiteral("quantizationState"));
  m_pool.setMaxThreadCount(1);
  m_poll = new QTimer(this);
  m_poll->setInterval(100);
  connect(m_poll, &QTimer::timeout, this, [this] { Q_EMIT progressed(progressDone(), progressTotal()); });
  readSettings();
  // What the analysis measured changed: its figures are void.
  for (auto signal : {&StudioSession::modelLoaded, &StudioSession::graphChanged, &StudioSession::inputSpecsChanged,
                      &StudioSession::exportOptionsChanged})
    connect(session, signal, this, &QuantizationState::onSourceChanged);
  connect(session, &StudioSession::traceFailed, this, &QuantizationState::onSourceChanged);
  connect(session, &StudioSession::weightsLoaded, this, &QuantizationState::onSourceChanged);
  if (numeric) connect(numeric, &NumericRun::inputChoiceChanged, this, &QuantizationState::onSourceChanged);
}

QuantizationState::~QuantizationState() {
  if (m_cancel) m_cancel->store(true);
  m_pool.waitForDone();
}

QuantizationState* QuantizationState::of(const StudioSession* session) {
  return session ? session->findChild<QuantizationState*>(QStringLiteral("quantizationState"),
                                                          Qt::FindDirectChildrenOnly)
                 : nullptr;
}

// --- settings ------------------------------------------------------------------------------------

void QuantizationState::readSettings() {
  QSettings s;
  s.beginGroup(QStringLiteral("quantization"));
  m_candidates.clear();
  const QStringList names = s.value(QStringLiteral("candidates"), QStringList{QStringLiteral("int4"), QStringLiteral("int8")})
                                .toStringList();
  for (const QString& name : names)
    if (Expected<WeightFormat> f = parseWeightFormat(name.toStdString()); f && !f->dense()) m_candidates.push_back(*f);
  if (m_candidates.empty()) m_candidates = {WeightFormat::quantized(4), WeightFormat::quantized(8)};
  const bool bytes = s.value(QStringLiteral("budgetKind")).toString() == QLatin1String("bytes");
  const double relL2 = s.value(QStringLiteral("budgetRelL2"), 1e-2).toDouble();
  const qulonglong maxBytes = s.value(QStringLiteral("budgetBytes"), 0).toULongLong();
  m_budget = bytes ? PlanBudget::maxBytes(maxBytes) : PlanBudget::relativeL2(relL2 > 0 ? relL2 : 1e-2);
  m_budget.relL2 = relL2 > 0 ? relL2 : 1e-2;
  m_budget.bytes = maxBytes;
  m_useForExport = s.value(QStringLiteral("useForExport"), true).toBool();
}

void QuantizationState::writeSettings() const {
  QSettings s;
  s.beginGroup(QStringLiteral("quantization"));
  QStringList names;
  for (const WeightFormat& f : m_candidates) names << toQ(f.name());
  s.setValue(QStringLiteral("candidates"), names);
  s.setValue(QStringLiteral("budgetKind"),
             m_budget.kind == PlanBudget::Kind::Bytes ? QStringLiteral("bytes") : QStringLiteral("relL2"));
  s.setValue(QStringLiteral("budgetRelL2"), m_budget.relL2);
  s.setValue(QStringLiteral("budgetBytes"), qulonglong(m_budget.bytes));
  s.setValue(QStringLiteral("useForExport"), m_useForExport);
}

void QuantizationState::setCandidates(std::vector<WeightFormat> candidates) {
  if (candidates.empty() || candidates == m_candidates) return;
  m_candidates = std::move(candidates);
  writeSettings();
  Q_EMIT settingsChanged();
}

void QuantizationState::setBudget(const PlanBudget& budget) {
  const bool same = budget.kind == m_budget.kind && budget.relL2 == m_budget.relL2 && budget.bytes == m_budget.bytes;
  if (same) return;
  m_budget = budget;
  writeSettings();
  Q_EMIT settingsChanged();
  if (!m_sensitivity) return;
  if (isBusy())
    m_searchAgain = true;
  else
    startSearch();
}

void QuantizationState::setUseForExport(bool on) {
  if (on == m_useForExport) return;
  m_useForExport = on;
  writeSettings();
  Q_EMIT settingsChanged();
}

// --- inputs --------------------------------------------------------------------------------------

QString QuantizationState::describeInputs() const {
  return m_numeric ? m_numeric->describeInputs() : QString();
}

bool QuantizationState::randomInputs() const {
  return m_numeric && m_numeric->inputChoice().source == RunInputSource::Random;
}

// --- jobs ----------------------------------------------------------------------------------------

int QuantizationState::progressDone() const { return m_done->load(); }
int QuantizationState::progressTotal() const { return m_total->load(); }

void QuantizationState::start(Job job,
                              std::function<std::shared_ptr<Result>(Shared&, const Progress&)> work) {
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  m_done = std::make_shared<std::atomic<int>>(0);
  m_total = std::make_shared<std::atomic<int>>(0);
  m_running = job;
  m_error.clear();
  m_cancelled = false;
  auto shared = m_shared;
  auto cancel = m_cancel;
  auto done = m_done, total = m_total;
  auto hook = jobHook();
  QFuture<std::shared_ptr<Result>> future =
      QtConcurrent::run(&m_pool, [shared, cancel, done, total, work, job, hook] {
    if (hook) hook();
    std::shared_ptr<Result> r;
    if (cancel->load()) {
      r = std::make_shared<Result>();
      r->cancelled = true;
    } else {
      r = work(*shared, Progress{*cancel, *done, *total});
    }
    r->job = job;
    return r;
  });
  auto* watcher = new QFutureWatcher<std::shared_ptr<Result>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, taken = m_generation] {
    watcher->deleteLater();
    const std::shared_ptr<Result> result = watcher->result();
    if (taken != m_generation) return; // the model changed meanwhile: dropped
    finish(result);
  });
  watcher->setFuture(future);
  m_poll->start();
  Q_EMIT jobChanged();
  Q_EMIT progressed(0, 0);
}

void QuantizationState::analyze() {
  if (isBusy()) return;
  const std::shared_ptr<const ModelSnapshot> snapshot = m_session->snapshot();
  if (!snapshot || !snapshot->model) {
    m_error = tr("no model is open");
    Q_EMIT failed(m_error);
    return;
  }
  invalidate();
  m_shared = std::make_shared<Shared>();
  m_shared->snapshot = snapshot;
  m_shared->recordings = m_numeric ? m_numeric->recordings() : nullptr;
  m_shared->options.exportOptions = snapshot->options;
  m_shared->choice = m_numeric ? m_numeric->inputChoice() : RunInputChoice{};
  m_shared->options.inputs = specOf(m_shared->choice);
  m_shared->options.candidates = m_candidates;
  const PlanBudget budget = m_budget;
  start(Job::Analyze, [budget](Shared& s, const Progress& p) {
    auto r = std::make_shared<Result>();
    const auto fail = [&r](const Error& e) {
      r->cancelled = e.code == ErrorCode::Cancelled;
      if (!r->cancelled) r->error = toQ(e.message);
      return r;
    };
    Expected<std::unique_ptr<QuantPlanner>> planner =
        QuantPlanner::create(*s.snapshot->model, s.options, s.recordings.get(), &p.cancel);
    if (!planner) return fail(planner.error());
    s.planner = std::move(*planner);
    Expected<QuantSensitivity> sensitivity = s.planner->analyze(
        [&p](int done, int total) {
          p.total.store(total);
          p.done.store(done);
        },
        &p.cancel);
    if (!sensitivity) return fail(sensitivity.error());
    Expected<PlanSearch> found = s.planner->search(*sensitivity, budget, &p.cancel);
    if (!found) return fail(found.error());
    r->sensitivity = std::move(*sensitivity);
    r->search = std::move(*found);
    return r;
  });
}

void QuantizationState::cancel() {
  if (m_cancel) m_cancel->store(true);
}

void QuantizationState::startSearch() {
  if (!m_sensitivity || !m_shared) return;
  m_searchAgain = false;
  const PlanBudget budget = m_budget;
  const QuantSensitivity sensitivity = *m_sensitivity;
  start(Job::Search, [budget, sensitivity](Shared& s, const Progress& p) {
    auto r = std::make_shared<Result>();
    if (!s.planner) {
      r->error = QuantizationState::tr("no analysis");
      return r;
    }
    Expected<PlanSearch> found = s.planner->search(sensitivity, budget, &p.cancel);
    if (!found) {
      r->cancelled = found.code() == ErrorCode::Cancelled;
      if (!r->cancelled) r->error = toQ(found.message());
      return r;
    }
    r->search = std::move(*found);
    return r;
  });
}

void QuantizationState::startMeasure() {
  if (!m_sensitivity || !m_shared) return;
  m_measureAgain = false;
  const std::vector<WeightFormat> formats = m_formats;
  start(Job::Measure, [formats](Shared& s, const Progress& p) {
    auto r = std::make_shared<Result>();
    if (!s.planner) {
      r->error = QuantizationState::tr("no analysis");
      return r;
    }
    Expected<PlanMeasurement> m = s.planner->measure(formats, &p.cancel);
    if (!m) {
      r->cancelled = m.code() == ErrorCode::Cancelled;
      if (!r->cancelled) r->error = toQ(m.message());
      return r;
    }
    r->measurement = std::move(*m);
    return r;
  });
}

void QuantizationState::finish(const std::shared_ptr<Result>& r) {
  m_running = Job::None;
  m_poll->stop();
  m_cancelled = r->cancelled;
  m_error = r->error;
  if (r->sensitivity) {
    m_sensitivity = std::move(r->sensitivity);
    m_formats.assign(m_sensitivity->layers.size(), WeightFormat::denseFormat());
    Q_EMIT analysisChanged();
  }
  if (r->search) {
    m_search = r->search;
    const std::vector<WeightFormat> chosen = r->search->chosen.formats;
    m_measurement = r->search->chosen;
    if (r->job == Job::Analyze) {
      applyFormats(chosen); // the analysis's first plan: no undo step
    } else {
      const auto& b = r->search->budget;
      setFormats(chosen, b.kind == PlanBudget::Kind::Bytes
                             ? tr("Plan for at most %1 bytes").arg(QLocale().toString(qulonglong(b.bytes)))
                             : tr("Plan for rel. L2 ≤ %1").arg(b.relL2, 0, 'g', 3));
    }
    Q_EMIT measurementChanged();
  }
  if (r->measurement) {
    m_measurement = std::move(r->measurement);
    Q_EMIT measurementChanged();
  }
  if (!m_error.isEmpty()) Q_EMIT failed(m_error);
  Q_EMIT progressed(progressDone(), progressTotal());
  Q_EMIT jobChanged();
  if (m_cancelled || !m_sensitivity) return;
  if (m_searchAgain)
    startSearch();
  else if (m_measureAgain || (!measurement() && m_error.isEmpty() && r->job != Job::Measure))
    startMeasure();
}

void QuantizationState::onSourceChanged() {
  // A load emits several signals for one change: those after the snapshot was taken bring
  // nothing new.
  if (m_shared && m_shared->snapshot->revision == m_session->revision() &&
      (!m_numeric || m_numeric->inputChoice() == m_shared->choice))
    return;
  invalidate();
}

void QuantizationState::invalidate() {
  ++m_generation;
  if (m_cancel) m_cancel->store(true);
  m_shared.reset();
  const bool had = m_sensitivity.has_value();
  const bool wasBusy = isBusy();
  m_sensitivity.reset();
  m_search.reset();
  m_formats.clear();
  m_measurement.reset();
  m_measureAgain = m_searchAgain = false;
  m_running = Job::None;
  m_poll->stop();
  if (had) {
    Q_EMIT analysisChanged();
    Q_EMIT planChanged();
    Q_EMIT measurementChanged();
  }
  if (wasBusy) Q_EMIT jobChanged();
}

// --- the plan ------------------------------------------------------------------------------------

int QuantizationState::layerOfNode(const QString& node) const {
  if (!m_sensitivity || node.isEmpty()) return -1;
  const std::string n = node.toStdString();
  for (std::size_t i = 0; i < m_sensitivity->layers.size(); ++i)
    if (m_sensitivity->layers[i].node == n) return int(i);
  return -1;
}

int QuantizationState::layerNamed(const QString& name) const {
  if (!m_sensitivity) return -1;
  const std::string n = name.toStdString();
  for (std::size_t i = 0; i < m_sensitivity->layers.size(); ++i)
    if (m_sensitivity->layers[i].name == n) return int(i);
  return -1;
}

std::vector<WeightFormat> QuantizationState::choicesFor(int layer) const {
  std::vector<WeightFormat> out{WeightFormat::denseFormat()};
  if (!m_sensitivity || layer < 0 || layer >= int(m_sensitivity->layers.size())) return out;
  if (!m_sensitivity->layers[std::size_t(layer)].packable) return out;
  for (const WeightFormat& f : m_sensitivity->candidates) out.push_back(f);
  return out;
}

void QuantizationState::setLayerFormat(int layer, const WeightFormat& format) {
  if (!m_sensitivity || layer < 0 || layer >= int(m_formats.size())) return;
  std::vector<WeightFormat> next = m_formats;
  next[std::size_t(layer)] = format;
  setFormats(std::move(next), tr("Quantize %1 as %2")
                                  .arg(toQ(m_sensitivity->layers[std::size_t(layer)].name), toQ(format.name())));
}

void QuantizationState::setFormats(std::vector<WeightFormat> formats, const QString& description) {
  if (!m_sensitivity || formats.size() != m_formats.size() || formats == m_formats) return;
  for (std::size_t i = 0; i < formats.size(); ++i) // a layer that stays dense in every plan
    if (!m_sensitivity->layers[i].packable && !formats[i].dense()) return;
  std::map<std::string, WeightFormat> before, after;
  for (std::size_t i = 0; i < formats.size(); ++i)
    if (formats[i] != m_formats[i]) {
      before[m_sensitivity->layers[i].name] = m_formats[i];
      after[m_sensitivity->layers[i].name] = formats[i];
    }
  m_session->undoStack()->push(new QuantFormatsCommand(this, std::move(before), std::move(after), description));
}

void QuantizationState::applyFormats(const std::vector<WeightFormat>& formats) {
  if (formats == m_formats) return;
  m_formats = formats;
  Q_EMIT planChanged();
  if (m_measurement && m_measurement->formats == m_formats) return; // measured already
  // The search's plans were measured: take the figure when the plan is one of them.
  if (m_search)
    for (const PlanMeasurement& visited : m_search->visited)
      if (visited.formats == m_formats) {
        m_measurement = visited;
        Q_EMIT measurementChanged();
        return;
      }
  m_measurement.reset();
  Q_EMIT measurementChanged();
  if (isBusy())
    m_measureAgain = true;
  else
    startMeasure();
}

const PlanMeasurement* QuantizationState::measurement() const {
  return m_measurement && m_measurement->formats == m_formats ? &*m_measurement : nullptr;
}

std::uint64_t QuantizationState::planBytes() const {
  return m_sensitivity ? m_sensitivity->bytesOf(m_formats) : 0;
}

std::uint64_t QuantizationState::denseBytes() const {
  if (!m_sensitivity) return 0;
  return m_sensitivity->bytesOf(std::vector<WeightFormat>(m_sensitivity->layers.size(), WeightFormat::denseFormat()));
}

std::uint64_t QuantizationState::int8Bytes() const {
  if (!m_sensitivity) return 0;
  WeightFormat int8 = WeightFormat::quantized(8);
  for (const WeightFormat& f : m_sensitivity->candidates)
    if (f.bits == 8) {
      int8 = f;
      break;
    }
  std::vector<WeightFormat> all;
  for (const QuantLayer& layer : m_sensitivity->layers)
    all.push_back(layer.packable ? int8 : WeightFormat::denseFormat());
  return m_sensitivity->bytesOf(all);
}

std::shared_ptr<const QuantizationPlan> QuantizationState::plan() const {
  if (!m_sensitivity) return nullptr;
  auto plan = std::make_shared<QuantizationPlan>();
  plan->defaultFormat = WeightFormat::denseFormat();
  for (std::size_t i = 0; i < m_sensitivity->layers.size() && i < m_formats.size(); ++i)
    plan->entries.push_back({m_sensitivity->layers[i].name, m_formats[i]});
  return plan;
}

QString QuantizationState::planSummary() const {
  if (!m_sensitivity) return {};
  int int4 = 0, int8 = 0, dense = 0;
  for (const WeightFormat& f : m_formats)
    (f.bits == 4 ? int4 : f.bits == 8 ? int8 : dense)++;
  return tr("mixed plan: %1 int4, %2 int8, %3 dense").arg(int4).arg(int8).arg(dense);
}

QString QuantizationState::savePlan(const QString& path) const {
  const std::shared_ptr<const QuantizationPlan> p = plan();
  if (!p) return tr("no plan yet: analyze the model first");
  QSaveFile file(path); // written beside, renamed into place
  const QByteArray text = QByteArray::fromStdString(p->toJson());
  if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit())
    return tr("cannot write %1: %2").arg(path, file.errorString());
  return {};
}

QString QuantizationState::loadPlan(const QString& path) {
  if (!m_sensitivity) return tr("no analysis yet: analyze the model first, then load a plan onto it");
  Expected<QuantizationPlan> read = QuantizationPlan::readFile(QFile::encodeName(path).toStdString());
  if (!read) return toQ(read.message());
  std::vector<WeightFormat> next;
  for (std::size_t i = 0; i < m_sensitivity->layers.size(); ++i) {
    const QuantLayer& layer = m_sensitivity->layers[i];
    const WeightFormat& f = read->formatFor(layer.name);
    if (!layer.packable && !f.dense())
      return tr("%1: layer %2 stays dense (%3 is not packable), the plan says %4")
          .arg(QFileInfo(path).fileName(), toQ(layer.name), toQ(layer.family), toQ(f.name()));
    next.push_back(f);
  }
  setFormats(std::move(next), tr("Load Plan %1").arg(QFileInfo(path).fileName()));
  return {};
}

} // namespace lattice::studio
