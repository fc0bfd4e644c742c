// lattice-bench --quant-plan [--model M] [--points N] [--candidates int4,int8] [--runs N] [--json]
//
// The cost of the quantization planner's sensitivity analysis (every packable layer measured
// in every candidate format, group 32) as a multiple of one dense run of the same lowered model
// on the same random inputs. The dense run is timed as the runtime runs it for `lattice-cli
// run` (values freed after their last use), median of --runs after a warm-up; the analysis once.
// Default: SparseResUNet42 at 10 000 points, int4 and int8.

#include "quant_bench.h"

#include "BenchSupport.h"

#include "exec/LoweredRun.h"
#include "model/LoadModel.h"
#include "quant/QuantPlanner.h"
#include "runtime/Parallel.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace lattice;

namespace {

using bench::Clock;
using bench::median;
using bench::msSince;

int failWith(const std::string& what, const std::string& message) {
  std::cerr << "lattice-bench --quant-plan: " << what << ": " << message << "\n";
  return 1;
}

} // namespace

int quantBenchMain(int argc, char** argv) {
  std::string modelSpec = "example:sparse_resunet42", candidates = "int4,int8";
  std::int64_t points = 10000;
  int runs = 3;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool hasValue = i + 1 < argc;
    if (a == "--quant-plan") continue;
    if (a == "--json") json = true;
    else if (a == "--model" && hasValue) modelSpec = argv[++i];
    else if (a == "--points" && hasValue) points = std::stoll(argv[++i]);
    else if (a == "--runs" && hasValue) runs = std::max(1, std::stoi(argv[++i]));
    else if (a == "--candidates" && hasValue) candidates = argv[++i];
    else return failWith("usage", "unknown argument '" + a + "'");
  }
  QuantPlannerOptions options;
  options.inputs = RunInputSpec::randomPoints({points, 0, 1});
  options.candidates.clear();
  for (const std::string& kind : {std::string("int4"), std::string("int8")})
    if (candidates.find(kind) != std::string::npos) options.candidates.push_back(WeightFormat::quantized(kind == "int4" ? 4 : 8, 32));

  Expected<Model> model = loadModel(modelSpec);
  if (!model) return failWith(modelSpec, model.message());

  // One dense run, as `lattice-cli run` does it.
  Expected<PreparedLowering> lowering = prepareLowering(*model, ExportOptions{});
  if (!lowering) return failWith(modelSpec, lowering.message());
  if (Status s = finishLowering(*lowering); !s) return failWith(modelSpec, s.message());
  Expected<LoweredRun> lowered = runLowering(*lowering, modelSpec);
  if (!lowered) return failWith(modelSpec, lowered.message());
  Expected<RunInputs> inputs = makeRunInputs(options.inputs, lowered->runtime.plan());
  if (!inputs) return failWith(modelSpec, inputs.message());
  std::vector<double> times;
  for (int i = 0; i <= runs; ++i) {
    const Clock::time_point t0 = Clock::now();
    if (Status s = lowered->runtime.start(inputs->bound); !s) return failWith(modelSpec, s.message());
    if (Status s = lowered->runtime.run(); !s) return failWith(modelSpec, s.message());
    if (i > 0) times.push_back(msSince(t0));
  }
  const double denseMs = median(times);

  const Clock::time_point t0 = Clock::now();
  Expected<std::unique_ptr<QuantPlanner>> planner = QuantPlanner::create(*model, options);
  if (!planner) return failWith(modelSpec, planner.message());
  const double referenceMs = msSince(t0);
  Expected<QuantSensitivity> s = (*planner)->analyze();
  if (!s) return failWith(modelSpec, s.message());
  int measurements = 0;
  for (const auto& row : s->perLayer)
    for (const LayerCandidate& c : row) measurements += c.measured ? 1 : 0;
  // What the ops each measurement reruns cost in the dense run: the analysis's floor.
  const runtime::RuntimePlan& plan = lowered->runtime.plan();
  double floorMs = 0.0;
  for (const QuantLayer& layer : s->layers) {
    if (!layer.packable) continue;
    std::vector<bool> changed(plan.slotNames.size(), false);
    int first = -1;
    for (std::size_t i = 0; i < plan.ops.size() && first < 0; ++i)
      if (plan.ops[i].kind == OpKind::Weight && plan.ops[i].text("storage_key") == layer.storageKey) first = static_cast<int>(i);
    if (first < 0) continue;
    changed[static_cast<std::size_t>(plan.ops[static_cast<std::size_t>(first)].results.front())] = true;
    double ms = 0.0;
    for (std::size_t i = static_cast<std::size_t>(first) + 1; i < plan.ops.size(); ++i) {
      bool reads = false;
      for (int slot : plan.ops[i].operands) reads = reads || changed[static_cast<std::size_t>(slot)];
      if (!reads) continue;
      for (int slot : plan.ops[i].results) changed[static_cast<std::size_t>(slot)] = true;
      ms += lowered->runtime.stats(static_cast<int>(i)).ms;
    }
    floorMs += ms * static_cast<double>(options.candidates.size());
  }
  const double ratio = s->analysisMs / denseMs;
  const double ratioWithReference = (s->analysisMs + referenceMs) / denseMs;
  if (json) {
    nlohmann::json j = {{"model", modelSpec},         {"points", points},
                        {"threads", runtime::threads()}, {"dense_run_ms", denseMs},
                        {"reference_ms", referenceMs}, {"analysis_ms", s->analysisMs},
                        {"measurements", measurements}, {"ops_rerun", s->opsRerun},
                        {"ops_per_run", s->opsPerRun},  {"ratio", ratio},
                        {"ratio_with_reference", ratioWithReference},
                        {"rerun_floor_ms", floorMs}, {"floor_ratio", floorMs / denseMs}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("quant-plan sensitivity: %s, %lld random points, %d threads\n", modelSpec.c_str(),
              static_cast<long long>(points), runtime::threads());
  std::printf("  one dense run (median of %d)        %10.1f ms\n", runs, denseMs);
  std::printf("  reference (lower + run, values kept) %9.1f ms\n", referenceMs);
  std::printf("  analysis: %d measurements            %9.1f ms\n", measurements, s->analysisMs);
  std::printf("  ops rerun %lld of %lld (%d full runs would run %lld)\n", static_cast<long long>(s->opsRerun),
              static_cast<long long>(s->opsPerRun) * measurements, measurements,
              static_cast<long long>(s->opsPerRun) * measurements);
  std::printf("  the rerun ops' time in a dense run    %9.1f ms (%.2fx a dense run: the floor)\n", floorMs,
              floorMs / denseMs);
  std::printf("  analysis / dense run                 %9.2fx  (with the reference: %.2fx)\n", ratio, ratioWithReference);
  return 0;
}
