#pragma once
/// \file The CPU runtime: executes a lattice artifact on concrete inputs, op by op, with the
/// semantics of lattice-artifact-validation.md sec. 10 (every op of the dialect) and the
/// execution rules X1-X20 of sec. 8. Steppable like the FX interpreter:
///
/// \code
///   Expected<Runtime> rt = Runtime::open("model.lattice");  // parse + verify + plan
///   Status s = rt->start(inputs);                           // bind inputs by ABI name (X19)
///   while (!rt->finished() && s) s = rt->step();            // or rt->run(), rt->runUntil(op)
///   Expected<std::vector<NamedTensor>> out = rt->outputs(); // named as expected.safetensors
/// \endcode
///
/// Every error names the op, its SSA name and its graph.mlir line:col:
/// `model.lattice/graph.mlir:12:5: error: 'lattice.conv3d' op %stem: weight input channels must
/// match x.channels.` A failing step leaves the runtime on that op. run() frees each value after
/// its last use unless RuntimeOptions::keepValues; cancel() from another thread stops a run
/// between (and inside long) ops.

#include "mlir/ArtifactGraph.h"
#include "runtime/Compare.h"
#include "runtime/RuntimePlan.h"
#include "runtime/RuntimeValue.h"
#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace lattice::runtime {

/// How reductions accumulate (sec. 10.5). Default: values stored as the artifact says (f32/f16),
/// accumulation in f32 through the BLAS. Exact: accumulation in f64, one rounding per op (the
/// oracle's contract), the golden the default mode is tested against.
enum class Numerics { Default, Exact };

/// What one op cost in the last run.
struct OpStats {
  bool ran = false;
  double ms = 0.0;          ///< wall time of the op, kernel maps included
  double kernelMapMs = 0.0; ///< building the kernel maps this op could not take from the cache
  std::int64_t rows = 0;    ///< output rows (active rows of a sparse result)
  std::int64_t edges = 0;   ///< kernel-map edges the op ran over (conv, pooling)
  double flops = 0.0;       ///< 2·multiply-adds of its matrix work (conv: 2·edges·C_in·C_out)
  /// Bytes of the values held after the op ran (its results included, dead operands freed) and
  /// of the kernel maps cached then: the run's working set at this op.
  std::uint64_t liveBytes = 0;
  std::uint64_t mapBytes = 0;
  /// The GEMM shapes the op ran (m, k, n), for a same-shape roofline (benchmarks).
  std::vector<std::array<std::int64_t, 3>> gemms;
};

/// The artifact's weights by storage key: a mapped weights.safetensors or tensors in memory
/// (an artifact lowered without being written).
class WeightSource {
public:
  WeightSource() = default;
  static WeightSource fromFile(std::shared_ptr<const SafetensorsFile> file);
  static WeightSource fromTensors(const std::vector<NamedTensor>& tensors);
  const TensorData* find(const std::string& key) const;
  /// A SafetensorsFile-like view for the verifier (the file, or one built over the tensors).
  const SafetensorsFile* file() const { return m_file.get(); }

private:
  std::shared_ptr<const SafetensorsFile> m_file;
};

/// A sparse input given as one value (the SparseTensor shorthand of X19).
struct SparseInput {
  TensorData coords;   ///< physical (n, 4) I32
  TensorData features; ///< (n, C)
  TensorData active;   ///< I32 [1]
};

/// Inputs of a run: positional (in argument order), named by ABI name, and sparse shorthands by
/// logical name (`x` for `x_coords`/`x_features`/`x_active`, `input` for `coords`/...).
struct RuntimeInputs {
  std::vector<TensorData> positional;
  std::vector<NamedTensor> named;
  std::vector<std::pair<std::string, SparseInput>> sparse;

  /// Reads an inputs file the way `inputs.safetensors` names them: ABI names, and
  /// `NAME.coords` / `NAME.features` / `NAME.active` triples as sparse shorthands.
  static Expected<RuntimeInputs> fromFile(const SafetensorsFile& file);
};

struct RuntimeOptions {
  Numerics numerics = Numerics::Default;
  /// Keep every op's value after the run (the studio shows them); otherwise a value is freed
  /// after its last use and only the outputs remain.
  bool keepValues = false;
  /// With keepValues: how many bytes of values past their last use stay held (0: all of them).
  /// Beyond it the oldest such values are dropped (evicted() says which); recompute() gives one
  /// back. Values a later op still reads are never dropped.
  std::uint64_t keepBudgetBytes = 0;
  /// Called on the running thread after each op stored its results and before any value is
  /// freed or dropped: a consumer that needs every value once (a golden check) reads them here.
  std::function<void(int opIndex)> afterOp;
};

/// What a rerun (Runtime::rerunWith) computed.
struct Rerun {
  /// One value per plan output, in ABI order.
  std::vector<RuntimeValue> outputs;
  /// Ops executed again.
  int opsRun = 0;
};

class Runtime {
public:
  /// Reads and verifies an artifact directory (graph.mlir + weights.safetensors), then builds
  /// its plan. An invalid artifact is refused with the verifier's diagnostics, one per line.
  static Expected<Runtime> open(const std::string& path);
  /// Verifies `graph` against `weights` and builds the plan (artifacts lowered in memory).
  static Expected<Runtime> fromGraph(ArtifactGraph graph, WeightSource weights);

  Runtime(Runtime&&) noexcept;
  Runtime& operator=(Runtime&&) noexcept;
  ~Runtime();

  const RuntimePlan& plan() const;
  const WeightSource& weights() const;

  /// Binds `inputs` (X19: positional count, ABI names, the sparse shorthand; dtypes, shapes and
  /// row counts against the argument types) and positions the runtime on the first op. Clears
  /// the values and statistics of a previous run; kernel maps are per run, prepared weights are
  /// kept.
  Status start(const RuntimeInputs& inputs, const RuntimeOptions& options = {});
  bool started() const;
  /// True when every op ran.
  bool finished() const;
  /// The index of the op the next step() runs (plan().ops.size() when finished).
  int currentOp() const;
  /// Runs the current op. On error the runtime stays on it and the error is returned again by
  /// later steps.
  Status step();
  /// Runs until op `opIndex` is the current one (it does not run), or to the end.
  Status runUntil(int opIndex);
  Status run();
  /// Asks a step or run in progress (in another thread) to stop with the error "cancelled".
  void cancel();

  /// The value of a slot (std::monostate when not computed yet or freed).
  const RuntimeValue& value(int slot) const;
  /// True when the slot's value was computed and then dropped to stay within the keep budget.
  bool evicted(int slot) const;
  /// Bytes of the values held now.
  std::uint64_t keptBytes() const;
  /// The value of an already computed slot computed again (a run started with keepValues): a
  /// second execution from the bound inputs to the op that produces it, freeing values after their last use as a run without
  /// keepValues does (its own kernel maps; the prepared weights are copied). The result equals
  /// what the run computed. Must not overlap step() or run() of this runtime; `cancel` (may be
  /// null) stops it with "cancelled".
  Expected<RuntimeValue> recompute(int slot, const std::atomic<bool>* cancel = nullptr) const;
  /// After a finished run started with keepValues: the outputs again with some weight ops
  /// yielding other values (`overrides`, each a WeightRef whose `op` is the weight op it
  /// replaces: another packing of the same weight, say). Only the ops that depend on an
  /// overridden weight execute again; every other value, the kernel maps and the other weights'
  /// prepared forms are the run's. The result is what a full run of the artifact with those
  /// weights stored so gives. The run itself is left as it was. Must not overlap step() or
  /// run(); `cancel` (may be null) stops it with "cancelled".
  Expected<Rerun> rerunWith(const std::vector<WeightRef>& overrides, const std::atomic<bool>* cancel = nullptr);
  /// Statistics of op `opIndex` in the current run.
  const OpStats& stats(int opIndex) const;
  /// Sum of every op's kernel-map time in the current run.
  double kernelMapMs() const;

  /// The outputs after a finished run, named as `expected.safetensors` names them: a dense
  /// output under its ABI name; a sparse one as `NAME.coords` (physical I32 (n, 4)),
  /// `NAME.features` and `NAME.active`.
  Expected<std::vector<NamedTensor>> outputs() const;
  /// The outputs after a finished run checked against an `expected.safetensors` (sec. 10.6,
  /// checkOutputs): one check per output, in ABI order. `lattice-cli check` and the studio's
  /// artifact run both use it.
  Expected<std::vector<OutputCheck>> checkOutputs(const SafetensorsFile& expected, double rtol, double atol) const;
  /// Every computed value that is still held (all of them with keepValues), keyed by SSA name
  /// (sparse values as `NAME.coords` / `.features` / `.active`; weights are left out).
  std::vector<NamedTensor> values() const;

private:
  struct Impl;
  explicit Runtime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

/// A dense runtime tensor as stored bytes (F32/F16/I32/I64 as its dtype says).
TensorData toTensorData(const Tensor& tensor);
/// The three stored tensors of a sparse value under `name` (`name.coords` physical I32 (n, 4),
/// `name.features`, `name.active`).
std::vector<NamedTensor> sparseTensors(const std::string& name, const Sparse& value);

} // namespace lattice::runtime
