#pragma once
/// \file QuantizationState: the model tab's mixed-precision plan (the Quantization dock, the
/// graph's Quantization submenu and overlay, and Export read it). It owns a QuantPlanner for the
/// session's model and runs every planner call on a worker thread: Analyze (the dense reference
/// run, every layer × candidate, then a search for the budget), a search when the budget changes,
/// and a measurement of the plan after each manual edit. Jobs read a snapshot (the session's
/// ModelSnapshot, the numeric run's input choice and recordings) and run one at a time, since a
/// planner is used by one thread at once; a change of what they read (model, graph, weights,
/// input specs, run inputs) cancels them and drops their late results (a generation counter).
/// The UI thread never waits for a job, but in the destructor.
///
/// The plan's per-layer formats change only through commands on the session's undo stack (Edit ▸
/// Undo, Ctrl+Z): a choice in the table or on the graph, a plan re-derived for a budget, a plan
/// loaded from a file. The budget, candidates and "use for export" are kept in QSettings
/// (`quantization/...`).

#include "numeric/NumericPrepare.h"
#include "numeric/NumericRun.h"
#include "quant/QuantPlanner.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QTimer;

namespace lattice::studio {

class StudioSession;

class QuantizationState : public QObject {
  Q_OBJECT

public:
  enum class Job { None, Analyze, Search, Measure };

  /// The state of `session`'s model, its inputs those `numeric` runs on. Its parent is the
  /// session (of() finds it there).
  QuantizationState(StudioSession* session, NumericRun* numeric);
  ~QuantizationState() override;

  /// The state created for `session`; nullptr when none was.
  static QuantizationState* of(const StudioSession* session);
  StudioSession* session() const { return m_session; }
  NumericRun* numericRun() const { return m_numeric; }

  // --- settings (remembered) ----------------------------------------------------------------

  /// The formats tried for every layer; at least one.
  const std::vector<WeightFormat>& candidates() const { return m_candidates; }
  /// Takes effect on the next Analyze.
  void setCandidates(std::vector<WeightFormat> candidates);
  const PlanBudget& budget() const { return m_budget; }
  /// Re-derives the plan (a search on the worker) once an analysis exists.
  void setBudget(const PlanBudget& budget);
  /// File ▸ Export uses the plan (when there is one).
  bool useForExport() const { return m_useForExport; }
  void setUseForExport(bool on);

  // --- inputs -------------------------------------------------------------------------------

  /// The numeric run's inputs, as it describes them ("2 000 random points (seed 0, batch 1)").
  QString describeInputs() const;
  bool randomInputs() const;

  // --- jobs ---------------------------------------------------------------------------------

  /// Lowers the model dense, runs it on the inputs, measures every layer in every candidate and
  /// searches the plan for the budget, on the worker; progressed per measurement.
  void analyze();
  /// Stops the running job (an analysis ends with no result; the dock stays usable).
  void cancel();
  Job runningJob() const { return m_running; }
  bool isBusy() const { return m_running != Job::None; }
  /// The last job's error ("" when it succeeded or was cancelled).
  QString lastError() const { return m_error; }
  bool wasCancelled() const { return m_cancelled; }
  int progressDone() const;
  int progressTotal() const;

  // --- results ------------------------------------------------------------------------------

  /// The analysis; nullptr before one finished (or after the model changed).
  const QuantSensitivity* sensitivity() const { return m_sensitivity ? &*m_sensitivity : nullptr; }
  /// The last search (its visited plans and Pareto front); nullptr before one.
  const PlanSearch* lastSearch() const { return m_search ? &*m_search : nullptr; }
  /// The layer of FX node `node` / module path `name`; -1 when none.
  int layerOfNode(const QString& node) const;
  int layerNamed(const QString& name) const;

  /// The plan per layer (sensitivity()->layers order); empty without an analysis.
  const std::vector<WeightFormat>& formats() const { return m_formats; }
  bool hasPlan() const { return m_sensitivity.has_value(); }
  /// The formats a layer may take: dense, then the candidates (only dense for a layer that is
  /// not packable).
  std::vector<WeightFormat> choicesFor(int layer) const;
  /// One undoable step: layer `layer` stored as `format`.
  void setLayerFormat(int layer, const WeightFormat& format);
  /// One undoable step to `formats` (a whole plan), named `description`.
  void setFormats(std::vector<WeightFormat> formats, const QString& description);
  /// The measured error of formats(); nullptr while it is being measured (or none yet).
  const PlanMeasurement* measurement() const;
  /// Weight bytes of the plan, all dense, and every packable layer in the int8 candidate (the
  /// first 8-bit candidate, else int8 group 32).
  std::uint64_t planBytes() const;
  std::uint64_t denseBytes() const;
  std::uint64_t int8Bytes() const;
  /// The plan as Export and Save Plan… take it: every layer named with its format, default
  /// dense (what QuantPlanner::toPlan gives). Null without an analysis.
  std::shared_ptr<const QuantizationPlan> plan() const;
  /// "mixed plan: 12 int4, 3 int8, 2 dense".
  QString planSummary() const;
  /// Writes plan().toJson() to `path` atomically; an error message on failure.
  QString savePlan(const QString& path) const;
  /// Reads a plan file and takes each layer's format from it (one undoable step); an error
  /// message on failure (the file's, or a format a layer cannot take).
  QString loadPlan(const QString& path);

  /// For tests: `hook` runs on the worker at the start of every job from now on (empty: none).
  static void setJobHook(std::function<void()> hook);

Q_SIGNALS:
  /// A job started or ended.
  void jobChanged();
  void progressed(int done, int total);
  /// sensitivity() was set or cleared.
  void analysisChanged();
  /// formats() changed.
  void planChanged();
  /// measurement() or lastSearch() changed.
  void measurementChanged();
  void settingsChanged();
  /// A job failed (`message`), not cancelled.
  void failed(const QString& message);

private:
  friend class QuantFormatsCommand;
  struct Shared;
  struct Result;
  struct Progress;
  /// Sets formats() without an undo step (the commands call it).
  void applyFormats(const std::vector<WeightFormat>& formats);
  /// What the jobs read may have changed: invalidate() unless the revision and inputs are the
  /// analysed ones.
  void onSourceChanged();
  void invalidate();
  void startSearch();
  void startMeasure();
  void start(Job job, std::function<std::shared_ptr<Result>(Shared&, const Progress&)> work);
  void finish(const std::shared_ptr<Result>& result);
  void readSettings();
  void writeSettings() const;

  StudioSession* m_session;
  QPointer<NumericRun> m_numeric;
  std::vector<WeightFormat> m_candidates;
  PlanBudget m_budget;
  bool m_useForExport = true;

  std::shared_ptr<Shared> m_shared; ///< the planner and what it read; jobs hold it too
  std::optional<QuantSensitivity> m_sensitivity;
  std::optional<PlanSearch> m_search;
  std::vector<WeightFormat> m_formats;
  std::optional<PlanMeasurement> m_measurement;
  bool m_measureAgain = false; ///< formats changed while a measurement ran
  bool m_searchAgain = false;  ///< the budget changed while a job ran

  Job m_running = Job::None;
  QString m_error;
  bool m_cancelled = false;
  quint64 m_generation = 0; ///< bumped by invalidate(): a job started before is void
  std::shared_ptr<std::atomic<bool>> m_cancel;
  std::shared_ptr<std::atomic<int>> m_done;
  std::shared_ptr<std::atomic<int>> m_total;
  QTimer* m_poll;
  QThreadPool m_pool; ///< one thread: planner calls never overlap
};

} // namespace lattice::studio
