#pragma once
/// \file SteppingDriver: the steppable lowering, one of StudioSession's parts. It holds the
/// prepared lowering and its interpreter, the breakpoints and the nodes executed, and drives
/// single steps and runs cut into time-boxed slices (one per event-loop turn). It runs on the UI
/// thread only: the interpreter is not thread-safe.

#include "lowering/Lowering.h"

#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace lattice::studio {

class SteppingDriver : public QObject {
  Q_OBJECT

public:
  enum class State { NotStarted, Paused, Finished, Failed };
  Q_ENUM(State)

  /// `start` (re)starts the interpreter (the session's startInterpreter): steps and runs call
  /// it when nothing is started.
  explicit SteppingDriver(std::function<void()> start, QObject* parent = nullptr);
  ~SteppingDriver() override;

  State state() const { return m_state; }
  const PreparedLowering* lowering() const { return m_lowering.get(); }
  QString currentNode() const;
  const QStringList& executedNodes() const { return m_executed; }
  QString failedNode() const { return m_failedNode; }
  QString lastError() const { return m_lastError; }
  const QSet<QString>& breakpoints() const { return m_breakpoints; }
  /// Replaces the breakpoints without a signal (a load's).
  void setBreakpoints(QSet<QString> breakpoints) { m_breakpoints = std::move(breakpoints); }
  int totalNodes() const;
  bool isRunning() const { return m_running; }
  int sliceBudget() const { return m_sliceBudgetMs; }
  void setSliceBudget(int ms) { m_sliceBudgetMs = ms < 0 ? 0 : ms; }
  /// How many resets there were: a reset signal whose count a reader saw already is not news.
  quint64 resets() const { return m_resets; }

  /// Drops the interpreter (state NotStarted), ending a run; reset() when `notify`.
  void reset(bool notify);
  /// After reset(false): prepares the lowering of `model` on `graph` (the user's graph; null: the
  /// lowering traces with options.tracer) and pauses before the first node (reset), or fails.
  void startOn(const Model& model, const ExportOptions& options, const fx::Graph* graph);
  /// State Failed with `message` about `nodeName`; failed().
  void fail(const QString& nodeName, const QString& message);
  void step();
  void continueRun();
  /// Runs to `nodeName` (the caller checked it is a node of the graph).
  void runToNode(const QString& nodeName);
  void interruptRun();
  void stop();
  void toggleBreakpoint(const QString& nodeName);

Q_SIGNALS:
  void interpreterReset();
  void interpreterStepped(const QString& executedNode);
  void interpreterFinished();
  void interpreterFailed(const QString& nodeName, const QString& message);
  void breakpointsChanged();
  void runningChanged(bool running);

private:
  bool ensureStarted();
  /// Executes one node without emitting; false when the run must stop (end or error).
  bool stepOnce();
  /// finishLowering after the last node (`name`, the one errors are about): state Finished, or
  /// Failed (false).
  bool finishAt(const QString& name);
  void finishStep(const QString& executed);
  void beginRun(const QString& target);
  bool runSlice();
  void scheduleSlice();
  void onRunSlice();
  void cancelRun();

  std::function<void()> m_start;
  std::unique_ptr<PreparedLowering> m_lowering;
  State m_state = State::NotStarted;
  QString m_failedNode;
  QString m_lastError;
  QSet<QString> m_breakpoints;
  QStringList m_executed;
  quint64 m_resets = 0;

  bool m_running = false;
  quint64 m_runGeneration = 0; ///< bumped when a run ends: its queued slice is dropped
  QString m_runTarget;         ///< runToNode's node; empty for continueRun
  int m_sliceBudgetMs = 15;
};

} // namespace lattice::studio
