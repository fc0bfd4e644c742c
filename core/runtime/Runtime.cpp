// Runtime: loading (parse, verify, plan), binding inputs, and the steppable executor. Each step
// runs one plan op through its implementation (the family files), times it, stores its results
// in their slots and frees the values whose last use it was. Errors thrown by an op become
// `graph.mlir:L:C: error: 'lattice.X' op %name: message` and leave the runtime on that op.

#include "runtime/Runtime.h"

#include "runtime/InputBinding.h"
#include "runtime/KernelMap.h"
#include "runtime/OpContext.h"
#include "verify/ArtifactValidation.h"
#include "verify/ArtifactVerifier.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <new>
#include <optional>

namespace lattice::runtime {

namespace {

using OpFn = void (*)(OpContext&);

// The implementation of each op; nullptr for None. The switch names every kind, so an op
// added to the dialect without an implementation is a compiler warning.
OpFn opFunction(OpKind kind) {
  switch (kind) {
  case OpKind::Weight:
    return runWeight;
  case OpKind::SparseMake:
    return runSparseMake;
  case OpKind::SparseDecompose:
    return runSparseDecompose;
  case OpKind::SparseWithFeatures:
    return runSparseWithFeatures;
  case OpKind::SparseReindex:
    return runSparseReindex;
  case OpKind::SparseBinary:
    return runSparseBinary;
  case OpKind::SparseCat:
    return runSparseCat;
  case OpKind::Conv3d:
  case OpKind::SubmConv3d:
  case OpKind::NormalizedSubmConv3d:
  case OpKind::TargetConv3d:
  case OpKind::ConvTranspose3d:
  case OpKind::TargetConvTranspose3d:
  case OpKind::NormalizedConvTranspose3d:
  case OpKind::TargetNormalizedConvTranspose3d:
  case OpKind::GenerativeConvTranspose3d:
  case OpKind::NormalizedGenerativeConvTranspose3d:
    return runConvolution;
  case OpKind::Pool3d:
    return runPool;
  case OpKind::PoolTranspose3d:
    return runPoolTranspose;
  case OpKind::TrilinearUpsample3d:
    return runTrilinearUpsample;
  case OpKind::GlobalPool:
    return runGlobalPool;
  case OpKind::Voxelize:
    return runVoxelize;
  case OpKind::Devoxelize:
    return runDevoxelize;
  case OpKind::Linear:
    return runLinear;
  case OpKind::EmbeddingLookup:
    return runEmbeddingLookup;
  case OpKind::Elementwise:
    return runElementwise;
  case OpKind::Softmax:
    return runSoftmax;
  case OpKind::Activation:
    return runActivation;
  case OpKind::BatchNorm:
    return runBatchNorm;
  case OpKind::LayerNorm:
    return runLayerNorm;
  case OpKind::RmsNorm:
    return runRmsNorm;
  case OpKind::None:
    break;
  }
  return nullptr;
}

/// The diagnostics as one error, at the line of the first error among them that has one.
Error diagnosticsError(const std::vector<Diagnostic>& diagnostics) {
  std::string text = renderDiagnostics(diagnostics);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  Error error = makeError(std::move(text));
  for (const Diagnostic& d : diagnostics)
    if (d.severity == Severity::Error && d.loc.valid()) {
      error.line = d.loc.line;
      break;
    }
  return error;
}

} // namespace

/// One execution of the plan: its values, statistics and kernel maps. The runtime's own run is
/// one; recompute() makes a short-lived second one.
struct Execution {
  RuntimeOptions options;
  std::vector<RuntimeValue> slots;
  std::vector<std::uint64_t> slotBytes; // valueBytes of each slot, kept so liveBytes is a running sum
  std::uint64_t liveBytes = 0;
  std::vector<OpStats> stats;
  KernelMapCache maps;
  int current = 0;
  std::optional<Error> error;
  /// With keepValues: the slots past their last use that are still held, oldest first, their
  /// bytes, and the slots dropped to stay within options.keepBudgetBytes.
  std::deque<int> retained;
  std::uint64_t retainedBytes = 0;
  std::vector<bool> evicted;
  int pinned = -1; ///< a slot never freed (what recompute() is after)
  /// The kernel maps to use instead of `maps` (a rerun takes its run's).
  KernelMapCache* sharedMaps = nullptr;

  void reset(const RuntimePlan& plan, const RuntimeOptions& o) {
    options = o;
    maps.clear();
    slots.assign(plan.slotNames.size(), std::monostate{});
    slotBytes.assign(plan.slotNames.size(), 0);
    liveBytes = 0;
    stats.assign(plan.ops.size(), OpStats{});
    current = 0;
    error.reset();
    retained.clear();
    retainedBytes = 0;
    evicted.assign(plan.slotNames.size(), false);
  }

  void store(int slot, RuntimeValue value) {
    const auto i = static_cast<std::size_t>(slot);
    liveBytes -= slotBytes[i];
    slotBytes[i] = valueBytes(value);
    liveBytes += slotBytes[i];
    slots[i] = std::move(value);
  }

  /// `slot` is past its last use: freed, or with keepValues held within the budget.
  void release(int slot) {
    if (slot == pinned) return;
    if (!options.keepValues) {
      store(slot, std::monostate{});
      return;
    }
    if (options.keepBudgetBytes == 0) return;
    retained.push_back(slot);
    retainedBytes += slotBytes[static_cast<std::size_t>(slot)];
    while (retainedBytes > options.keepBudgetBytes && !retained.empty()) {
      const int oldest = retained.front();
      retained.pop_front();
      retainedBytes -= slotBytes[static_cast<std::size_t>(oldest)];
      store(oldest, std::monostate{});
      evicted[static_cast<std::size_t>(oldest)] = true;
    }
  }

  Status step(const RuntimePlan& plan, const WeightSource& weights, WeightCache& prepared,
              const std::atomic<bool>& cancelled) {
    if (error) return *error;
    const int n = static_cast<int>(plan.ops.size());
    if (current >= n) return {};
    if (cancelled.load()) {
      error = makeError(plan.opError(current, "cancelled"), ErrorCode::Cancelled);
      return *error;
    }
    const PlanOp& op = plan.ops[static_cast<std::size_t>(current)];
    std::vector<const RuntimeValue*> operands;
    for (int slot : op.operands) {
      const RuntimeValue& v = slots[static_cast<std::size_t>(slot)];
      if (std::holds_alternative<std::monostate>(v)) {
        error = makeError(plan.opError(current, "operand %" + plan.slotNames[static_cast<std::size_t>(slot)] +
                                                    " has no value (freed or never computed)"));
        return *error;
      }
      operands.push_back(&v);
    }
    std::vector<RuntimeValue> results(op.results.size());
    OpStats& st = stats[static_cast<std::size_t>(current)];
    st = OpStats{};
    KernelMapCache& opMaps = sharedMaps ? *sharedMaps : maps;
    OpContext ctx{plan, current, op, std::move(operands), results, options.numerics, opMaps, prepared, st, cancelled, weights};
    const auto start = std::chrono::steady_clock::now();
    try {
      const OpFn fn = opFunction(op.kind);
      if (!fn) fail("the runtime has no implementation of lattice." + std::string(opName(op.kind)));
      fn(ctx);
    } catch (const Exception& e) {
      error = makeError(plan.opError(current, e.message), e.code);
    } catch (const std::bad_alloc&) {
      error = makeError(plan.opError(current, "out of memory"));
    } catch (const std::exception& e) {
      error = makeError(plan.opError(current, e.what()));
    }
    if (error) return *error;
    st.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    st.ran = true;
    for (std::size_t i = 0; i < op.results.size(); ++i) store(op.results[i], std::move(results[i]));
    if (options.afterOp) options.afterOp(current);
    for (int slot : op.results)
      if (plan.lastUse[static_cast<std::size_t>(slot)] < 0) release(slot);
    for (int slot : op.operands)
      if (plan.lastUse[static_cast<std::size_t>(slot)] == current) release(slot);
    if (!options.keepValues && !sharedMaps) maps.prune(); // the maps of supports no value holds any more
    st.liveBytes = liveBytes;
    st.mapBytes = opMaps.bytes();
    ++current;
    return {};
  }

  /// Binds the plan's arguments (already checked by bindInputs).
  void bind(const RuntimePlan& plan, const std::vector<Tensor>& bound) {
    for (std::size_t i = 0; i < plan.args.size(); ++i) {
      const int slot = plan.args[i].slot;
      store(slot, bound[i]);
      if (plan.lastUse[static_cast<std::size_t>(slot)] < 0) release(slot);
    }
  }
};

struct Runtime::Impl {
  RuntimePlan plan;
  WeightSource weights;
  WeightCache prepared;
  std::vector<Tensor> inputs; ///< with keepValues: the bound arguments (buffers shared)
  Execution run;
  bool started = false;
  std::atomic<bool> cancelled{false};

  Status step() {
    if (!started) return makeError("the runtime was not started");
    return run.step(plan, weights, prepared, cancelled);
  }
};

// ---- WeightSource ----

WeightSource WeightSource::fromFile(std::shared_ptr<const SafetensorsFile> file) {
  WeightSource w;
  w.m_file = std::move(file);
  return w;
}

WeightSource WeightSource::fromTensors(const std::vector<NamedTensor>& tensors) {
  // One in-memory safetensors image: the verifier checks it like a file, and deferred tensors
  // are produced once, into it.
  std::vector<const NamedTensor*> sorted;
  for (const NamedTensor& t : tensors) sorted.push_back(&t);
  sortForSafetensors(sorted);
  const std::string header = safetensorsHeader(sorted, torchWeightsMetadata());
  std::size_t total = header.size();
  for (const NamedTensor* t : sorted) total += t->tensor.byteSize();
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(total);
  std::copy(header.begin(), header.end(), bytes->begin());
  std::size_t at = header.size();
  for (const NamedTensor* t : sorted) {
    t->tensor.produceInto(bytes->data() + at);
    at += t->tensor.byteSize();
  }
  Expected<SafetensorsFile> file = SafetensorsFile::parse(bytes->data(), bytes->size(), "weights.safetensors", bytes);
  WeightSource w;
  if (file) w.m_file = std::make_shared<const SafetensorsFile>(std::move(*file));
  return w;
}

const TensorData* WeightSource::find(const std::string& key) const { return m_file ? m_file->find(key) : nullptr; }

// ---- Runtime ----

Runtime::Runtime(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Runtime::Runtime(Runtime&&) noexcept = default;
Runtime& Runtime::operator=(Runtime&&) noexcept = default;
Runtime::~Runtime() = default;

Expected<Runtime> Runtime::open(const std::string& path) {
  ArtifactValidation validation = validateArtifact(path);
  if (!validation.ok()) return diagnosticsError(validation.diagnostics);
  if (!validation.graph) return makeError(path + ": no graph");
  auto graph = std::make_shared<const ArtifactGraph>(std::move(*validation.graph));
  Expected<RuntimePlan> plan = buildRuntimePlan(graph);
  if (!plan) return plan.error();
  auto impl = std::make_unique<Impl>();
  impl->plan = std::move(*plan);
  impl->weights = WeightSource::fromFile(validation.weights);
  return Runtime(std::move(impl));
}

Expected<Runtime> Runtime::fromGraph(ArtifactGraph graph, WeightSource weights) {
  std::vector<Diagnostic> diagnostics = verifyArtifactGraph(graph);
  if (!hasErrors(diagnostics) && weights.file())
    diagnostics = verifyArtifactWeights(graph, *weights.file(), weights.file()->name());
  if (hasErrors(diagnostics)) return diagnosticsError(diagnostics);
  Expected<RuntimePlan> plan = buildRuntimePlan(std::make_shared<const ArtifactGraph>(std::move(graph)));
  if (!plan) return plan.error();
  auto impl = std::make_unique<Impl>();
  impl->plan = std::move(*plan);
  impl->weights = std::move(weights);
  return Runtime(std::move(impl));
}

const RuntimePlan& Runtime::plan() const { return m_impl->plan; }
const WeightSource& Runtime::weights() const { return m_impl->weights; }

Status Runtime::start(const RuntimeInputs& inputs, const RuntimeOptions& options) {
  Impl& d = *m_impl;
  d.started = false;
  d.cancelled = false;
  d.inputs.clear();
  d.run.reset(d.plan, options);
  Expected<std::vector<Tensor>> bound = bindInputs(d.plan, inputs);
  if (!bound) return bound.error();
  d.run.bind(d.plan, *bound);
  if (options.keepValues) d.inputs = std::move(*bound); // what recompute() starts from
  d.started = true;
  return {};
}

bool Runtime::started() const { return m_impl->started; }
bool Runtime::finished() const {
  return m_impl->started && m_impl->run.current >= static_cast<int>(m_impl->plan.ops.size());
}
int Runtime::currentOp() const { return m_impl->run.current; }
Status Runtime::step() { return m_impl->step(); }

Status Runtime::runUntil(int opIndex) {
  while (!finished() && m_impl->run.current < opIndex)
    if (Status s = step(); !s) return s;
  return m_impl->started ? Status{} : Status(makeError("the runtime was not started"));
}

Status Runtime::run() { return runUntil(static_cast<int>(m_impl->plan.ops.size())); }
void Runtime::cancel() { m_impl->cancelled = true; }

const RuntimeValue& Runtime::value(int slot) const {
  static const RuntimeValue none;
  if (slot < 0 || static_cast<std::size_t>(slot) >= m_impl->run.slots.size()) return none;
  return m_impl->run.slots[static_cast<std::size_t>(slot)];
}

bool Runtime::evicted(int slot) const {
  return slot >= 0 && static_cast<std::size_t>(slot) < m_impl->run.evicted.size() &&
         m_impl->run.evicted[static_cast<std::size_t>(slot)];
}

std::uint64_t Runtime::keptBytes() const { return m_impl->run.liveBytes; }

Expected<RuntimeValue> Runtime::recompute(int slot, const std::atomic<bool>* cancel) const {
  const Impl& d = *m_impl;
  if (!d.started) return makeError("the runtime was not started");
  if (!d.run.options.keepValues) return makeError("the run did not keep its inputs (RuntimeOptions::keepValues)");
  if (slot < 0 || static_cast<std::size_t>(slot) >= d.plan.slotNames.size()) return makeError("no such value");
  const int producer = d.plan.producer[static_cast<std::size_t>(slot)];
  if (producer >= d.run.current) return makeError("%" + d.plan.slotNames[static_cast<std::size_t>(slot)] + " was not computed yet");
  // A second execution from the bound inputs, freeing as it goes, up to the producing op.
  RuntimeOptions options;
  options.numerics = d.run.options.numerics;
  Execution again;
  again.reset(d.plan, options);
  again.pinned = slot;
  again.bind(d.plan, d.inputs);
  WeightCache prepared = d.prepared;
  static const std::atomic<bool> never{false};
  const std::atomic<bool>& stop = cancel ? *cancel : never;
  while (again.current <= producer)
    if (Status s = again.step(d.plan, d.weights, prepared, stop); !s) return s.error();
  return again.slots[static_cast<std::size_t>(slot)];
}

Expected<Rerun> Runtime::rerunWith(const std::vector<WeightRef>& overrides, const std::atomic<bool>* cancel) {
  Impl& d = *m_impl;
  if (!finished()) return makeError("the run has not finished");
  if (!d.run.options.keepValues) return makeError("the run did not keep its values (RuntimeOptions::keepValues)");
  const RuntimePlan& plan = d.plan;
  const int n = static_cast<int>(plan.ops.size());
  RuntimeOptions options;
  options.numerics = d.run.options.numerics;
  Execution again;
  again.reset(plan, options);
  again.sharedMaps = &d.run.maps;
  WeightCache prepared = d.prepared;
  // Slots whose value differs from the run's: the overridden weights and what reads them.
  std::vector<bool> changed(plan.slotNames.size(), false);
  int first = n;
  for (const WeightRef& w : overrides) {
    if (w.op < 0 || w.op >= n || plan.ops[static_cast<std::size_t>(w.op)].kind != OpKind::Weight)
      return makeError("a weight override names op " + std::to_string(w.op) + ", which is not a weight op");
    const int slot = plan.ops[static_cast<std::size_t>(w.op)].results.front();
    again.store(slot, w);
    changed[static_cast<std::size_t>(slot)] = true;
    prepared.erase(w.op);
    first = std::min(first, w.op);
  }
  std::vector<int> toRun;
  for (int i = first; i < n; ++i) {
    const PlanOp& op = plan.ops[static_cast<std::size_t>(i)];
    bool reads = false;
    for (int slot : op.operands) reads = reads || changed[static_cast<std::size_t>(slot)];
    if (!reads) continue;
    toRun.push_back(i);
    for (int slot : op.results) changed[static_cast<std::size_t>(slot)] = true;
  }
  // The unchanged operands come from the run.
  for (int i : toRun)
    for (int slot : plan.ops[static_cast<std::size_t>(i)].operands) {
      const auto s = static_cast<std::size_t>(slot);
      if (changed[s] || !std::holds_alternative<std::monostate>(again.slots[s])) continue;
      if (std::holds_alternative<std::monostate>(d.run.slots[s]))
        return makeError(plan.opError(i, "operand %" + plan.slotNames[s] + " was not kept by the run"));
      again.store(slot, d.run.slots[s]);
    }
  static const std::atomic<bool> never{false};
  const std::atomic<bool>& stop = cancel ? *cancel : never;
  for (int i : toRun) {
    again.current = i;
    if (Status s = again.step(plan, d.weights, prepared, stop); !s) return s.error();
  }
  Rerun result;
  result.opsRun = static_cast<int>(toRun.size());
  for (const PlanOutput& o : plan.outputs) {
    const auto s = static_cast<std::size_t>(o.slot);
    result.outputs.push_back(changed[s] ? again.slots[s] : d.run.slots[s]);
  }
  return result;
}

const OpStats& Runtime::stats(int opIndex) const { return m_impl->run.stats.at(static_cast<std::size_t>(opIndex)); }

double Runtime::kernelMapMs() const {
  double total = 0.0;
  for (const OpStats& s : m_impl->run.stats) total += s.kernelMapMs;
  return total;
}

Expected<std::vector<NamedTensor>> Runtime::outputs() const {
  if (!finished()) return makeError("the run has not finished");
  std::vector<NamedTensor> out;
  for (const PlanOutput& o : m_impl->plan.outputs) {
    const RuntimeValue& v = value(o.slot);
    if (const auto* t = std::get_if<Tensor>(&v)) {
      out.push_back({o.abiName, toTensorData(*t)});
    } else if (const auto* s = std::get_if<Sparse>(&v)) {
      for (NamedTensor& n : sparseTensors(o.abiName, *s)) out.push_back(std::move(n));
    } else {
      return makeError("output '" + o.abiName + "' (%" + m_impl->plan.slotNames[static_cast<std::size_t>(o.slot)] +
                       ") is " + describeValue(v) + ", not a tensor");
    }
  }
  return out;
}

Expected<std::vector<OutputCheck>> Runtime::checkOutputs(const SafetensorsFile& expected, double rtol,
                                                         double atol) const {
  Expected<std::vector<NamedTensor>> actual = outputs();
  if (!actual) return actual.error();
  std::vector<std::string> names;
  std::vector<bool> sparse;
  for (const PlanOutput& o : m_impl->plan.outputs) {
    names.push_back(o.abiName);
    sparse.push_back(std::holds_alternative<Sparse>(value(o.slot)));
  }
  return runtime::checkOutputs(names, sparse, *actual, expected, rtol, atol);
}

std::vector<NamedTensor> Runtime::values() const {
  std::vector<NamedTensor> out;
  const RuntimePlan& plan = m_impl->plan;
  for (const PlanOp& op : plan.ops)
    for (int slot : op.results) {
      const RuntimeValue& v = value(slot);
      const std::string& name = plan.slotNames[static_cast<std::size_t>(slot)];
      if (const auto* t = std::get_if<Tensor>(&v)) out.push_back({name, toTensorData(*t)});
      if (const auto* s = std::get_if<Sparse>(&v))
        for (NamedTensor& n : sparseTensors(name, *s)) out.push_back(std::move(n));
    }
  return out;
}

} // namespace lattice::runtime
