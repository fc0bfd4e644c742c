#pragma once
/// \file NumericPrepare: the numeric run's prepare job, which runs on a worker thread. It lowers
/// the model in memory, builds the runtime and binds the chosen inputs, reading only what it is
/// handed: a PrepareJob whose model, graph, tracer, options and recordings are immutable and
/// shared (ModelSnapshot), so the session may move on while it runs. The lowering stops between
/// nodes once the job's cancel flag is set.

#include "exec/LoweredRun.h"
#include "exec/RecordingCheck.h"
#include "exec/RunInputs.h"
#include "session/ModelSnapshot.h"

#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace lattice {
struct ArchiveRecordings;
}

namespace lattice::studio {

enum class RunInputSource { Random, File, Recorded };

/// Where the run's inputs come from (`lattice-cli run --random-inputs POINTS:SEED
/// --batch-size B`, `--inputs FILE`, or the archive's inputs.safetensors).
struct RunInputChoice {
  RunInputSource source = RunInputSource::Random;
  QString file;
  qint64 points = 1000;
  quint64 seed = 0;
  qint64 batchSize = 1;
  bool operator==(const RunInputChoice& o) const {
    return source == o.source && file == o.file && points == o.points && seed == o.seed && batchSize == o.batchSize;
  }
};

/// The inputs of `choice` for `plan` (exec/RunInputs.h). `recordings` serves a Recorded choice
/// (nullptr: none).
Expected<RunInputs> makeChosenInputs(const RunInputChoice& choice, const ArchiveRecordings* recordings,
                                     const runtime::RuntimePlan& plan);

/// Everything a prepare job reads, taken on the UI thread and never changed afterwards.
struct PrepareJob {
  std::shared_ptr<const ModelSnapshot> source; ///< the session's model, graph, tracer, options
  std::string name;                            ///< the artifact's name in messages
  RunInputChoice choice;
  std::shared_ptr<const ArchiveRecordings> recordings; ///< null: none
  std::uint64_t budget = 0;                            ///< RuntimeOptions::keepBudgetBytes
  /// Set by the UI thread to stop the job between nodes (null: cannot be cancelled).
  std::shared_ptr<std::atomic<bool>> cancel;
  /// Called first on the worker (a test holds the job there); empty: none.
  std::function<void()> hook;
};

/// What a prepare job hands back: the run ready to step, or why there is none.
struct PreparedRun {
  QString error;
  QString failedNode; ///< the FX node the error is about, when it is about one
  std::shared_ptr<LoweredRun> run;
  /// The golden check's numbers, taken as the ops run (with `measure`, on recorded inputs of an
  /// archive with recorded activations).
  std::shared_ptr<RecordingMeasurements> measurements;
};

/// The prepare job's work: lowers the model in memory, builds its runtime and starts it on the
/// chosen inputs, keeping values within the job's budget.
PreparedRun prepareRun(const PrepareJob& job, bool measure);

} // namespace lattice::studio
