// SteppingDriver: single steps, and runs cut into time-boxed slices, each posted as a queued call
// behind the events the previous one caused (repaints, input), so a 30 000-node run never blocks
// the event loop for more than a slice and a refresh. It does not check what it is started on
// (the session does: a model, inputs) and holds no widgets.

#include "session/SteppingDriver.h"

#include <QElapsedTimer>

namespace lattice::studio {

namespace {

QString toQString(const std::string& s) {
  return QString::fromStdString(s);
}

} // namespace

SteppingDriver::SteppingDriver(std::function<void()> start, QObject* parent)
    : QObject(parent), m_start(std::move(start)) {}

SteppingDriver::~SteppingDriver() = default;

QString SteppingDriver::currentNode() const {
  if (!m_lowering || m_state == State::NotStarted || m_state == State::Finished) return {};
  if (m_lowering->direct()) return m_state == State::Paused ? toQString(m_lowering->directName()) : QString();
  const fx::Node* node = m_lowering->interpreter->currentNode();
  return node ? toQString(node->name()) : QString();
}

void SteppingDriver::reset(bool notify) {
  ++m_resets;
  cancelRun();
  m_lowering.reset();
  m_state = State::NotStarted;
  m_failedNode.clear();
  m_lastError.clear();
  m_executed.clear();
  if (notify) Q_EMIT interpreterReset();
}

void SteppingDriver::startOn(const Model& model, const ExportOptions& options, const fx::Graph* graph) {
  Expected<PreparedLowering> prepared = prepareLowering(model, options, graph);
  if (!prepared) {
    QString message = toQString(prepared.message());
    // The input count does not fit the forward: the Inputs table is where to fix it.
    if (prepared.code() == ErrorCode::InputCount)
      message += QStringLiteral(" (edit the Inputs table: Debug ▸ Edit Inputs…)");
    fail(QString(), message);
    return;
  }
  m_lowering = std::make_unique<PreparedLowering>(std::move(*prepared));
  m_state = State::Paused;
  Q_EMIT interpreterReset();
}

bool SteppingDriver::ensureStarted() {
  if (m_state == State::NotStarted) m_start();
  return m_state == State::Paused;
}

void SteppingDriver::fail(const QString& nodeName, const QString& message) {
  m_state = State::Failed;
  m_failedNode = nodeName;
  m_lastError = message;
  Q_EMIT interpreterFailed(nodeName, message);
}

bool SteppingDriver::stepOnce() {
  if (m_state != State::Paused) return false;
  PreparedLowering& p = *m_lowering;
  if (p.direct()) {
    const QString name = toQString(p.directName());
    if (finishAt(name)) m_executed << name;
    return false;
  }
  const fx::Node* node = p.interpreter->currentNode();
  if (!node) { // started on an empty graph
    m_state = State::Finished;
    return false;
  }
  const QString name = toQString(node->name());
  Expected<bool> stepped = p.interpreter->step();
  if (!stepped) {
    const fx::Node* failed = p.interpreter->failedNode();
    m_failedNode = failed ? toQString(failed->name()) : name;
    m_lastError = toQString(stepped.message());
    m_state = State::Failed;
    return false;
  }
  m_executed << name;
  if (p.interpreter->currentNode()) return true;
  // The graph ran to its end: flatten the result and set the artifact's outputs (§2.4), so
  // the builder holds the complete graph.mlir.
  finishAt(name);
  return false;
}

bool SteppingDriver::finishAt(const QString& name) {
  Status done = finishLowering(*m_lowering);
  if (!done) {
    m_failedNode = name;
    m_lastError = toQString(done.message());
    m_state = State::Failed;
    return false;
  }
  m_state = State::Finished;
  return true;
}

void SteppingDriver::finishStep(const QString& executed) {
  if (!executed.isEmpty()) Q_EMIT interpreterStepped(executed);
  if (m_state == State::Finished)
    Q_EMIT interpreterFinished();
  else if (m_state == State::Failed)
    Q_EMIT interpreterFailed(m_failedNode, m_lastError);
}

void SteppingDriver::step() {
  if (m_state == State::NotStarted) {
    m_start(); // F10 on a fresh session stops on the first node
    return;
  }
  if (m_state != State::Paused) return;
  const int before = m_executed.size();
  stepOnce();
  finishStep(m_executed.size() > before ? m_executed.constLast() : QString());
}

int SteppingDriver::totalNodes() const {
  if (!m_lowering) return 0;
  return m_lowering->direct() ? 1 : static_cast<int>(m_lowering->graph->size());
}

void SteppingDriver::continueRun() {
  if (m_running) return;
  const bool fresh = m_state == State::NotStarted;
  if (!ensureStarted()) return;
  if (fresh && stopsAt(currentNode())) return; // paused on the first node's breakpoint
  beginRun(QString(), true);
}

void SteppingDriver::startAndRun() {
  if (m_running) return;
  m_start();
  if (m_state != State::Paused || stopsAt(currentNode())) return;
  beginRun(QString(), true);
}

void SteppingDriver::runToNode(const QString& nodeName) {
  cancelRun(); // a new target replaces the running one
  // A node that already ran is reached again by restarting.
  if (m_state != State::NotStarted && m_executed.contains(nodeName)) m_start();
  if (!ensureStarted()) return;
  beginRun(nodeName, false);
}

void SteppingDriver::runUntil(const QString& nodeName) {
  if (m_running || m_state != State::Paused) return;
  beginRun(nodeName, true);
}

void SteppingDriver::beginRun(const QString& target, bool stopAtBreakpoints) {
  m_runTarget = target;
  m_runStopsAtBreakpoints = stopAtBreakpoints;
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

void SteppingDriver::scheduleSlice() {
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

bool SteppingDriver::runSlice() {
  QElapsedTimer clock;
  clock.start();
  for (;;) {
    if (!m_runTarget.isEmpty() && currentNode() == m_runTarget) return true;
    if (!stepOnce()) return true; // the end, or an error (state Finished / Failed)
    if (m_runStopsAtBreakpoints && !m_breakpoints.isEmpty() && stopsAt(currentNode())) return true;
    if (clock.elapsed() >= m_sliceBudgetMs) return false;
  }
}

void SteppingDriver::onRunSlice() {
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

void SteppingDriver::interruptRun() {
  // Panels already show every executed node (they refresh at each slice's end).
  cancelRun();
}

void SteppingDriver::cancelRun() {
  if (!m_running) return;
  m_running = false;
  ++m_runGeneration; // the queued slice is dropped
  Q_EMIT runningChanged(false);
}

void SteppingDriver::stop() {
  if (m_running) {
    interruptRun();
    return;
  }
  reset(true);
}

void SteppingDriver::setBreakpoints(QSet<QString> breakpoints, const QSet<QString>& disabled) {
  m_breakpoints = std::move(breakpoints);
  m_disabled.clear();
  for (const QString& node : disabled)
    if (m_breakpoints.contains(node)) m_disabled.insert(node);
}

void SteppingDriver::toggleBreakpoint(const QString& nodeName) {
  if (nodeName.isEmpty()) return;
  if (m_breakpoints.remove(nodeName))
    m_disabled.remove(nodeName);
  else
    m_breakpoints.insert(nodeName);
  Q_EMIT breakpointsChanged();
}

void SteppingDriver::setBreakpointEnabled(const QString& nodeName, bool enabled) {
  if (!m_breakpoints.contains(nodeName) || m_disabled.contains(nodeName) == !enabled) return;
  if (enabled)
    m_disabled.remove(nodeName);
  else
    m_disabled.insert(nodeName);
  Q_EMIT breakpointsChanged();
}

void SteppingDriver::removeBreakpoint(const QString& nodeName) {
  if (!m_breakpoints.remove(nodeName)) return;
  m_disabled.remove(nodeName);
  Q_EMIT breakpointsChanged();
}

void SteppingDriver::clearBreakpoints() {
  if (m_breakpoints.isEmpty()) return;
  m_breakpoints.clear();
  m_disabled.clear();
  Q_EMIT breakpointsChanged();
}

} // namespace lattice::studio
