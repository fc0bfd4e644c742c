// NumericPrepare: the prepare job of the numeric run (lowering, runtime, inputs). It touches no Qt
// object and nothing of the session: what it reads is in its PrepareJob.

#include "numeric/NumericPrepare.h"

#include "model/ArchiveRecordings.h"

#include <QCoreApplication>
#include <QFile>

namespace lattice::studio {

namespace {

QString toQ(const std::string& s) { return QString::fromStdString(s); }

} // namespace

Expected<RunInputs> makeChosenInputs(const RunInputChoice& choice, const ArchiveRecordings* recordings,
                                     const runtime::RuntimePlan& plan) {
  RunInputSpec spec;
  switch (choice.source) {
  case RunInputSource::Recorded:
    spec = RunInputSpec::recorded();
    break;
  case RunInputSource::File:
    if (choice.file.isEmpty())
      return makeError(
          QCoreApplication::translate("NumericRun", "choose an inputs file (Debug ▸ Run Inputs…)")
              .toStdString());
    spec = RunInputSpec::fromFile(QFile::encodeName(choice.file).toStdString());
    break;
  case RunInputSource::Random:
    spec.random.points = choice.points;
    spec.random.seed = choice.seed;
    spec.random.batchSize = choice.batchSize;
    break;
  }
  return lattice::makeRunInputs(spec, plan, recordings);
}

PreparedRun prepareRun(const PrepareJob& job, bool measure) {
  if (job.hook) job.hook();
  PreparedRun out;
  const ModelSnapshot& source = *job.source;
  if (!source.model) {
    out.error = QCoreApplication::translate("NumericRun", "no model is open");
    return out;
  }
  Expected<PreparedLowering> lowering = prepareLowering(*source.model, source.options, source.graph.get());
  if (!lowering) {
    out.error = toQ(lowering.message());
    return out;
  }
  const auto failedAt = [&](const Error& error) {
    out.failedNode = toQ(failedNodeOf(*lowering, error));
    out.error = toQ(error.message);
    return std::move(out);
  };
  if (Status s = finishLowering(*lowering, job.cancel.get()); !s) return failedAt(s.error());
  Expected<LoweredRun> run = runLowering(*lowering, job.name);
  if (!run) return failedAt(run.error());
  auto prepared = std::make_shared<LoweredRun>(std::move(*run));
  Expected<RunInputs> inputs = makeChosenInputs(job.choice, job.recordings.get(), prepared->runtime.plan());
  if (!inputs) return failedAt(inputs.error());
  runtime::RuntimeOptions keep;
  keep.keepValues = true;
  keep.keepBudgetBytes = job.budget;
  // The golden check reads every value once, as it is made: values may be dropped later. The
  // callback holds the recordings it reads, however long the run outlives the job.
  if (measure && job.choice.source == RunInputSource::Recorded && job.recordings && job.recordings->hasActivations()) {
    auto m = std::make_shared<RecordingMeasurements>(prepared->nodeValues, prepared->runtime.plan(), *job.recordings);
    const runtime::Runtime* rt = &prepared->runtime;
    keep.afterOp = [m, rt, recordings = job.recordings](int op) { m->measureOp(*rt, op); };
    out.measurements = m;
  }
  if (Status s = prepared->runtime.start(inputs->bound, keep); !s) return failedAt(s.error());
  out.run = std::move(prepared);
  return out;
}

} // namespace lattice::studio
