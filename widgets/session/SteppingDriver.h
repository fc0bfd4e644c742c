#pragma once
/// \file SteppingDriver: the steppable lowering, one of StudioSession's parts. It holds the
/// prepared lowering and its interpreter, the breakpoints (each enabled or disabled) and the
/// nodes executed, and drives single steps and runs cut into time-boxed slices (one per
/// event-loop turn). It runs on the UI thread only: the interpreter is not thread-safe.

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
  /// Every breakpoint, enabled or not.
  const QSet<QString>& breakpoints() const { return m_breakpoints; }
  /// The breakpoints that are disabled: listed, but a run does not stop at them.
  const QSet<QString>& disabledBreakpoints() const { return m_disabled; }
  /// True when `nodeName` has a breakpoint that is enabled.
  bool stopsAt(const QString& nodeName) const {
    return m_breakpoints.contains(nodeName) && !m_disabled.contains(nodeName);
  }
  /// Replaces the breakpoints without a signal (a load's); `disabled` is kept where it names one.
  void setBreakpoints(QSet<QString> breakpoints, const QSet<QString>& disabled = {});
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
  /// Runs until an enabled breakpoint is the current node (after at least one step; from
  /// NotStarted also the first node's), the end, or an error.
  void continueRun();
  /// Starts again (NotStarted, Finished or Failed: F5 when idle) and runs as continueRun, a
  /// breakpoint on the first node included.
  void startAndRun();
  /// Runs to `nodeName` (the caller checked it is a node of the graph), past breakpoints.
  void runToNode(const QString& nodeName);
  /// Runs until `nodeName` is the current node, stopping earlier at an enabled breakpoint, an
  /// error or the end; an empty name runs to the end (Step Over a group, Step Out). Only when
  /// paused; the caller checked `nodeName` is ahead.
  void runUntil(const QString& nodeName);
  void interruptRun();
  void stop();
  void toggleBreakpoint(const QString& nodeName);
  /// Enables or disables the breakpoint on `nodeName` (nothing when it has none).
  void setBreakpointEnabled(const QString& nodeName, bool enabled);
  void removeBreakpoint(const QString& nodeName);
  void clearBreakpoints();

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
  void beginRun(const QString& target, bool stopAtBreakpoints);
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
  QSet<QString> m_disabled; ///< a subset of m_breakpoints
  QStringList m_executed;
  quint64 m_resets = 0;

  bool m_running = false;
  quint64 m_runGeneration = 0; ///< bumped when a run ends: its queued slice is dropped
  QString m_runTarget;         ///< runToNode's or runUntil's node; empty for continueRun
  bool m_runStopsAtBreakpoints = true;
  int m_sliceBudgetMs = 15;
};

} // namespace lattice::studio
