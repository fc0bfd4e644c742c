#pragma once
/// \file The mixed-precision quantization planner (`lattice-cli quant-plan`, the studio's
/// Quantization dock). The model is lowered dense and run once on the chosen inputs with every
/// value kept: that run is the reference. A layer's sensitivity to a format is the relative L2
/// error (and Pearson correlation) at the model's outputs when only that layer's weight is
/// stored in that format; a plan's error is measured the same way with all its layers changed.
/// Both are measured by the runtime, never estimated: the changed weight is packed with the
/// bytes the mixed artifact stores (quantizeAffine) and the runtime re-executes only the ops
/// downstream of it, reusing the reference run's other values and kernel maps
/// (Runtime::rerunWith), which gives what a full run of the mixed artifact gives.
///
/// \code
///   QuantPlannerOptions o;  o.inputs = RunInputSpec::randomPoints({5000});
///   o.candidates = {WeightFormat::quantized(4), WeightFormat::quantized(8)};
///   auto planner = QuantPlanner::create(model, o);            // lower dense, run once
///   auto sens = (*planner)->analyze();                         // every layer × candidate
///   auto found = (*planner)->search(*sens, PlanBudget::relativeL2(1e-2));
///   QuantizationPlan plan = (*planner)->toPlan(found->chosen.formats);
/// \endcode
///
/// Errors are the lowering's, the inputs', the runtime's; `cancel` stops any call between two
/// measurements (and inside long ops) with ErrorCode::Cancelled.

#include "exec/RunInputs.h"
#include "lowering/Lowering.h"
#include "lowering/QuantizationPlan.h"
#include "model/ArchiveRecordings.h"
#include "runtime/Runtime.h"
#include "support/Expected.h"

#include <nlohmann/json_fwd.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lattice {

struct QuantPlannerOptions {
  /// How the model is lowered (inputs ABI, batch size, input dtype, tracer). Its quantization
  /// fields are ignored: the reference is the dense lowering.
  ExportOptions exportOptions;
  /// The inputs every measurement runs on.
  RunInputSpec inputs = RunInputSpec::recorded();
  /// The formats tried for every packable layer (default: int4 and int8, group 32, f16 scales).
  std::vector<WeightFormat> candidates = {WeightFormat::quantized(4), WeightFormat::quantized(8)};
  runtime::Numerics numerics = runtime::Numerics::Default;
};

/// One conv or linear weight of the model.
struct QuantLayer {
  /// The module path: the plan's key (`stem.0`).
  std::string name;
  /// The FX node that emitted it (`stem_0`): where the studio draws it.
  std::string node;
  std::string storageKey;
  /// `conv3d` or `linear`.
  std::string family;
  /// The logical shape: (C_out, Kx, Ky, Kz, C_in) or (C_out, C_in).
  std::vector<std::int64_t> shape;
  std::int64_t parameters = 0;
  std::uint64_t denseBytes = 0;
  /// False for the normalized convolutions, which stay dense in every plan.
  bool packable = true;
};

/// The output error of one measured variant against the dense reference run.
struct MeasuredError {
  /// Largest relative L2 error over the model's outputs.
  double relL2 = 0.0;
  /// Smallest Pearson correlation over the outputs.
  double pearson = 1.0;
};

/// A layer stored in one candidate format, every other layer dense.
struct LayerCandidate {
  WeightFormat format;
  /// The layer's weight bytes in that format.
  std::uint64_t bytes = 0;
  MeasuredError error;
  /// False when not measured (the layer is not packable).
  bool measured = false;
};

struct QuantSensitivity {
  /// Which inputs the measurements ran on, for people: "recorded inputs (archive)",
  /// "inputs.safetensors", "random: 5000 points, seed 0".
  std::string inputsDescription;
  /// True for random inputs (a weak proxy for real data; the report and the dock say so).
  bool randomInputs = false;
  std::vector<WeightFormat> candidates;
  std::vector<QuantLayer> layers;
  /// perLayer[i][c]: layer i stored as candidates[c].
  std::vector<std::vector<LayerCandidate>> perLayer;
  /// Bytes of every weight that is not a conv or linear weight (biases, norms); in every plan.
  std::uint64_t otherBytes = 0;
  /// The dense reference run (lowering excluded) and the per-layer measurements, wall time.
  double denseRunMs = 0.0;
  double analysisMs = 0.0;
  /// Ops the measurements re-executed, and ops in one full run.
  std::int64_t opsRerun = 0;
  std::int64_t opsPerRun = 0;

  /// Total weight bytes of a plan given per layer.
  std::uint64_t bytesOf(const std::vector<WeightFormat>& formats) const;
  /// Layer indices, most sensitive first (the worst candidate's relL2, then name).
  std::vector<int> ranking() const;
};

/// A plan given per layer (QuantSensitivity::layers order) and its measured error.
struct PlanMeasurement {
  std::vector<WeightFormat> formats;
  std::uint64_t bytes = 0;
  MeasuredError error;
};

struct PlanBudget {
  enum class Kind { RelativeL2, Bytes };
  Kind kind = Kind::RelativeL2;
  double relL2 = 1e-2;
  std::uint64_t bytes = 0;
  static PlanBudget relativeL2(double value) { return {Kind::RelativeL2, value, 0}; }
  static PlanBudget maxBytes(std::uint64_t value) { return {Kind::Bytes, 0.0, value}; }
};

struct PlanSearch {
  PlanBudget budget;
  /// The plan with the fewest bytes whose measured error is within a relL2 budget, or the one
  /// with the least measured error within a byte budget. When nothing meets the budget: all
  /// dense for a relL2 budget (error 0), the smallest plan for a byte budget, and met is false.
  PlanMeasurement chosen;
  bool met = false;
  /// Every plan the search measured, in the order it measured them (the first is all dense).
  std::vector<PlanMeasurement> visited;
  /// Each candidate format on every packable layer (candidates' order), measured: the
  /// uniform plans the chosen one is compared with.
  std::vector<PlanMeasurement> uniform;
  /// Indices into visited of the Pareto front (no other visited plan is both smaller and more
  /// accurate), by bytes ascending.
  std::vector<int> pareto;
};

class QuantPlanner {
public:
  /// Lowers `model` dense, makes the inputs (`recordings` serves RunInputSpec::Recorded) and
  /// runs the reference keeping every value.
  static Expected<std::unique_ptr<QuantPlanner>> create(const Model& model, const QuantPlannerOptions& options,
                                                        const ArchiveRecordings* recordings = nullptr,
                                                        const std::atomic<bool>* cancel = nullptr);
  ~QuantPlanner();
  QuantPlanner(const QuantPlanner&) = delete;
  QuantPlanner& operator=(const QuantPlanner&) = delete;

  const std::vector<QuantLayer>& layers() const;
  const QuantPlannerOptions& options() const;

  /// Measures every packable layer in every candidate format. `progress(done, total)` is called
  /// after each measurement (on the calling thread).
  Expected<QuantSensitivity> analyze(const std::function<void(int done, int total)>& progress = {},
                                     const std::atomic<bool>* cancel = nullptr);
  /// Measures one plan (formats per layer; a non-packable layer must be dense).
  Expected<PlanMeasurement> measure(const std::vector<WeightFormat>& formats,
                                    const std::atomic<bool>* cancel = nullptr);
  /// Searches the plans `sensitivity.candidates` allow for the budget: layers change format in
  /// the order of bytes saved per unit of measured single-layer error, and the plans along that
  /// order are measured (bisection on the measured error, or the byte budget directly).
  Expected<PlanSearch> search(const QuantSensitivity& sensitivity, const PlanBudget& budget,
                              const std::atomic<bool>* cancel = nullptr);
  /// Every layer named exactly with its format; the default is dense.
  QuantizationPlan toPlan(const std::vector<WeightFormat>& formats) const;

private:
  struct Impl;
  explicit QuantPlanner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

/// `lattice-cli quant-plan --json`: {"inputs": {"description", "random"}, "candidates": [names],
/// "layers": [{"name", "node", "family", "shape", "parameters", "dense_bytes", "packable",
/// "candidates": [{"format", "bytes", "rel_l2", "pearson", "measured"}]}], "other_bytes",
/// "cost": {"dense_run_ms", "analysis_ms", "ops_rerun", "ops_per_run"}, and with a search
/// "plan": {"budget": {"rel_l2"} | {"bytes"}, "met", "bytes", "rel_l2", "pearson",
/// "formats": {layer: name}}, "pareto": [{"bytes", "rel_l2", "pearson"}], "uniform": [{"format", "bytes", "rel_l2", "pearson"}]}.
nlohmann::json quantReportToJson(const QuantSensitivity& sensitivity, const PlanSearch* search);
/// The text report: the inputs (with the random-inputs warning), one line per layer most
/// sensitive first, the chosen plan against dense and all-int8, the Pareto front.
std::string formatQuantReport(const QuantSensitivity& sensitivity, const PlanSearch* search);

} // namespace lattice
