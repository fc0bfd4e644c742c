#pragma once
/// \file NumericRun: the studio's numeric debugger state. It holds the
/// run's inputs (random from the ABI, a file, or the archive's recorded ones: one choice per model,
/// remembered), executes the model's artifact lowered in memory on them (Debug ▸ Run on Inputs: the
/// ops on a worker thread with progress and cancel), follows the session's interpreter (with
/// numeric stepping on, each executed FX node's ops run as the node is stepped), and answers what
/// the panels show: each node's concrete values, its time, and its error against the archive's
/// recorded activations.
///
/// Both halves run off the UI thread: a prepare job (NumericPrepare) lowers the graph on screen
/// in memory, builds the runtime and binds the inputs (seconds on a large model), then the ops
/// run on a worker. Jobs read snapshots, never the live session: the prepare job the session's
/// snapshot() and the recordings, both shared and immutable; the op worker the run it shares.
/// A change of what a job read (another model, a new trace, other inputs, weights) or a newer
/// request drops the job: it is cancelled when it can be (the lowering between nodes, the ops
/// between ops) and its late result is discarded (a generation counter). The UI thread never
/// waits for a job, but in the destructor.

#include "numeric/NumericPrepare.h"
#include "runtime/Runtime.h"

#include <QFuture>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QTimer;

namespace lattice::studio {

class StudioSession;

class NumericRun : public QObject {
  Q_OBJECT

public:
  using InputSource = RunInputSource;
  using InputChoice = RunInputChoice;
  enum class State { Empty, Ready, Running, Finished, Failed };
  Q_ENUM(State)

  explicit NumericRun(StudioSession* session, QObject* parent = nullptr);
  ~NumericRun() override;

  StudioSession* session() const { return m_session; }

  // --- inputs ---------------------------------------------------------------------------------

  InputChoice inputChoice() const { return m_choice; }
  /// Replaces the choice (remembered for the model) and drops the values of the previous inputs.
  void setInputChoice(const InputChoice& choice);
  /// The choice a model starts with: the remembered one, else its recorded inputs when the
  /// archive has them, else random points.
  InputChoice defaultChoice() const;
  /// True when the open model is an archive with inputs.safetensors / activations.safetensors.
  bool hasRecordedInputs() const { return m_hasRecordedInputs; }
  bool hasRecordedActivations() const { return m_hasRecordedActivations; }
  /// The open archive's recordings (null: none), shared with the jobs that read them.
  std::shared_ptr<const ArchiveRecordings> recordings() const { return m_recordings; }
  /// An expected-outputs .safetensors (named as `lattice-cli run -o` writes outputs) to check a
  /// finished run's outputs against when there is no recorded golden ("" for none; remembered per
  /// model). Each output counts as a node of recordingCheck(): its producing node, its relative
  /// L2 error against the file, over the tolerance or not comparable = divergent.
  QString expectedOutputs() const { return m_expectedOutputs; }
  void setExpectedOutputs(const QString& file);
  /// What the golden is: "recorded activations", the expected file's name, or "".
  QString goldenDescription() const;
  /// Writes the chosen inputs as an inputs.safetensors (the runtime's naming). Errors as text.
  QString saveInputs(const QString& path);
  /// "1 000 random points (seed 0, batch 1)", "inputs.safetensors", "recorded inputs".
  QString describeInputs() const;

  // --- running ----------------------------------------------------------------------------------

  State state() const { return m_state; }
  /// Debug ▸ Run on Inputs: lowers the model in memory, binds the inputs and runs every op on a
  /// worker thread (values kept). Emits stateChanged, progressed per op, then finished or failed.
  /// While numeric stepping's ops run, that run goes on to the last op instead.
  void run();
  /// Asks a running run to stop (it ends as failed with "cancelled", and wasCancelled()).
  void cancel();
  /// The last run ended because the user cancelled it (its failed() is not an error).
  bool wasCancelled() const { return m_cancelled; }
  bool isRunning() const { return m_state == State::Running; }
  /// Running for Run on Inputs (not for numeric stepping's ops).
  bool isWholeRun() const {
    if (!isRunning()) return false;
    return m_preparing ? m_then == Then::Run : m_stepTarget < 0 || m_stepTarget >= opsTotal();
  }
  /// Numeric stepping (on by default, the choice is remembered): while on, each node the
  /// session's interpreter executes also runs its ops. The first step starts a prepare job; the
  /// ops run on the worker thread a Run uses (the state is Running meanwhile; steps taken before
  /// it is done extend the same run).
  bool isStepping() const { return m_stepping; }
  void setStepping(bool on);
  /// Ops run so far and in all (0 / 0 before anything was prepared).
  int opsDone() const;
  int opsTotal() const;
  /// The error of the last run or step, the op and node it stopped at.
  QString lastError() const { return m_error; }
  QString failedNode() const { return m_failedNode; }

  // --- results ----------------------------------------------------------------------------------

  /// The prepared run (lowering, op → node, node → values); nullptr before.
  const LoweredRun* lowered() const { return m_run.get(); }
  /// True while a job this run started (or dropped) has not ended yet.
  bool hasJobsInFlight() const { return m_jobs > 0; }
  /// For tests: `hook` runs on the worker at the start of every prepare job started from now on
  /// (a latch holds the job there); empty: none.
  static void setPrepareHook(std::function<void()> hook);
  /// The values the run computed for FX node `node` so far, named as activations.safetensors
  /// names them (one for a tensor, several for a tuple); a value not computed yet, or dropped
  /// to stay within the memory budget and not computed again yet, is monostate.
  std::vector<std::pair<QString, runtime::RuntimeValue>> valuesOf(const QString& node) const;
  /// True when a value of `node` was dropped to stay within the memory budget (and is not among
  /// the values computed again): recompute(node) brings it back.
  bool isDropped(const QString& node) const;
  /// Computes the dropped values of `node` again on a worker (from the run's inputs, freeing as
  /// it goes); valuesChanged when they are there. A newer request replaces an older one.
  void recompute(const QString& node);
  bool isRecomputing() const { return m_recomputeNode.has_value(); }

  /// The bytes of values past their last use a run keeps for the panels (settings key
  /// numeric/memoryBudget, in bytes; 0: the default, 0.5% of physical memory and at least 128 MB).
  /// Beyond it the oldest are dropped and computed again when a panel shows them. A run reads
  /// it when it is prepared.
  static std::uint64_t memoryBudget();
  static std::uint64_t defaultMemoryBudget();
  static void setMemoryBudget(std::uint64_t bytes);
  /// Wall time of every op that ran in the current run (ms).
  double runMs() const;
  /// Wall time of the ops `node` emitted in the current run (ms); negative when none ran.
  double nodeMs(const QString& node) const;
  /// Each node's error against the archive's recorded activations, once a run finished on the
  /// recorded inputs of an archive that has them, else each output's against the expected-outputs
  /// file; nullptr otherwise.
  const RecordingCheck* recordingCheck() const { return m_check ? &*m_check : nullptr; }
  /// The first node whose recorded error exceeds `tolerance` ("" when none, or no check).
  QString firstDivergentNode() const;
  double tolerance() const { return m_tolerance; }
  /// Relative L2 above which a node counts as divergent (the check is recomputed).
  void setTolerance(double tolerance);

Q_SIGNALS:
  void stateChanged(NumericRun::State state);
  void progressed(int done, int total);
  /// New values exist (a run finished, a step executed ops, or they were dropped).
  void valuesChanged();
  void inputChoiceChanged();
  void failed(const QString& node, const QString& message);

private:
  void onModelChanged();
  /// What a job read changed (session revision) since it was taken: the run's values go.
  void onSourceChanged();
  void onInterpreterStepped();
  void onInterpreterReset();
  void onRunFinished(const QString& error);
  /// Runs the runtime's ops on a worker up to op `end` (exclusive; -1: to the end).
  void startWorker(int end);
  /// What happens once a prepare job is done: a whole run, or the ops of the stepped nodes.
  enum class Then { Run, Step };
  /// Starts a prepare job (lowering, runtime, inputs) on a worker; state Running until onPrepared.
  void startPrepare(Then then);
  void onPrepared(const PreparedRun& result);
  PrepareJob makeJob() const;
  /// Calls `done` with the result of `future` on the UI thread unless `this->*generation`
  /// changed meanwhile (the result is then dropped).
  template <typename T, typename F>
  void whenDone(QFuture<T> future, quint64 NumericRun::*generation, F done);
  struct Recomputed;
  void onRecomputed(const Recomputed& result);
  void stopRecompute();
  void setState(State state);
  void fail(int op, const QString& message);
  void drop();
  void computeCheck();
  QString settingsKey() const;

  StudioSession* m_session;
  InputChoice m_choice;
  bool m_hasRecordedInputs = false;
  bool m_hasRecordedActivations = false;
  bool m_stepping = false;
  int m_stepTarget = -1; ///< while numeric stepping runs ops: the op index it runs to; else -1
  State m_state = State::Empty;
  std::shared_ptr<LoweredRun> m_run; ///< shared with the worker running its ops
  std::optional<RecordingCheck> m_check;
  bool m_checkIsRecorded = false; ///< m_check compares with the recording, not the expected file
  QString m_expectedOutputs;
  std::shared_ptr<const ArchiveRecordings> m_recordings;
  double m_tolerance = 1e-4;
  QString m_error;
  bool m_cancelled = false;
  QString m_failedNode;
  std::shared_ptr<std::atomic<int>> m_progress;
  bool m_preparing = false;
  Then m_then = Then::Run;
  quint64 m_generation = 0;     ///< bumped by drop(): a job started before is void
  quint64 m_sourceRevision = 0; ///< the session's revision the run (or its prepare job) reads
  quint64 m_resetsSeen = 0;     ///< the session's interpreterResets() already acted on
  std::shared_ptr<std::atomic<bool>> m_prepareCancel; ///< the running prepare job's flag
  QThreadPool m_pool; ///< the jobs' threads, apart from the session's loads
  int m_jobs = 0;
  QTimer* m_poll;
  /// The golden check's numbers, taken as the ops run (values may be dropped before the end).
  std::shared_ptr<RecordingMeasurements> m_measurements;
  /// Values computed again for the panels: slot → value (the last requested node's).
  std::vector<std::pair<int, runtime::RuntimeValue>> m_recomputed;
  std::optional<QString> m_recomputeNode; ///< the node a recompute job works for
  std::shared_ptr<std::atomic<bool>> m_recomputeCancel;
  quint64 m_recomputeGeneration = 0;
  /// The last recompute job: the op worker lets it end first (both read the runtime).
  QFuture<std::shared_ptr<const Recomputed>> m_recomputeJob;
  bool m_cancelRequested = false; ///< cancel() asked the worker to stop: its values go
};

} // namespace lattice::studio
