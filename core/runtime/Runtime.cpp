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

#include <atomic>
#include <chrono>
#include <new>
#include <optional>
#include <unordered_map>

namespace lattice::runtime {

namespace {

using OpFn = void (*)(OpContext&);

const std::unordered_map<std::string, OpFn>& opTable() {
  static const std::unordered_map<std::string, OpFn> table = {
      {"weight", runWeight},
      {"sparse.make", runSparseMake},
      {"sparse.decompose", runSparseDecompose},
      {"sparse.with_features", runSparseWithFeatures},
      {"sparse.reindex", runSparseReindex},
      {"sparse.binary", runSparseBinary},
      {"sparse.cat", runSparseCat},
      {"conv3d", runConvolution},
      {"subm_conv3d", runConvolution},
      {"normalized_subm_conv3d", runConvolution},
      {"target_conv3d", runConvolution},
      {"conv_transpose3d", runConvolution},
      {"target_conv_transpose3d", runConvolution},
      {"normalized_conv_transpose3d", runConvolution},
      {"target_normalized_conv_transpose3d", runConvolution},
      {"generative_conv_transpose3d", runConvolution},
      {"normalized_generative_conv_transpose3d", runConvolution},
      {"pool3d", runPool},
      {"pool_transpose3d", runPoolTranspose},
      {"trilinear_upsample3d", runTrilinearUpsample},
      {"global_pool", runGlobalPool},
      {"voxelize", runVoxelize},
      {"devoxelize", runDevoxelize},
      {"linear", runLinear},
      {"embedding_lookup", runEmbeddingLookup},
      {"elementwise", runElementwise},
      {"softmax", runSoftmax},
      {"activation", runActivation},
      {"batch_norm", runBatchNorm},
      {"layer_norm", runLayerNorm},
      {"rms_norm", runRmsNorm},
  };
  return table;
}

std::string firstLines(const std::vector<Diagnostic>& diagnostics) {
  std::string text = renderDiagnostics(diagnostics);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

} // namespace

struct Runtime::Impl {
  RuntimePlan plan;
  WeightSource weights;
  WeightCache prepared;
  KernelMapCache maps;
  RuntimeOptions options;
  std::vector<RuntimeValue> slots;
  std::vector<OpStats> stats;
  int current = 0;
  bool started = false;
  std::optional<Error> error;
  std::atomic<bool> cancelled{false};

  void release(int slot) {
    if (!options.keepValues) slots[static_cast<std::size_t>(slot)] = std::monostate{};
  }

  Status step() {
    if (!started) return makeError("the runtime was not started");
    if (error) return *error;
    const int n = static_cast<int>(plan.ops.size());
    if (current >= n) return {};
    if (cancelled.load()) {
      error = makeError(plan.opError(current, "cancelled"));
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
    OpContext ctx{plan, current, op, std::move(operands), results, options.numerics, maps, prepared, st, cancelled, weights};
    const auto start = std::chrono::steady_clock::now();
    try {
      const auto fn = opTable().find(op.kind);
      if (fn == opTable().end()) fail("the runtime has no implementation of lattice." + op.kind);
      fn->second(ctx);
    } catch (const Exception& e) {
      error = makeError(plan.opError(current, e.message));
    } catch (const std::bad_alloc&) {
      error = makeError(plan.opError(current, "out of memory"));
    } catch (const std::exception& e) {
      error = makeError(plan.opError(current, e.what()));
    }
    if (error) return *error;
    st.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    st.ran = true;
    for (std::size_t i = 0; i < op.results.size(); ++i) {
      const int slot = op.results[i];
      slots[static_cast<std::size_t>(slot)] = std::move(results[i]);
      if (plan.lastUse[static_cast<std::size_t>(slot)] < 0) release(slot);
    }
    for (int slot : op.operands)
      if (plan.lastUse[static_cast<std::size_t>(slot)] == current) release(slot);
    if (!options.keepValues) maps.prune(); // the maps of supports no value holds any more
    for (const RuntimeValue& v : slots) st.liveBytes += valueBytes(v);
    st.mapBytes = maps.bytes();
    ++current;
    return {};
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
  if (!validation.ok()) return makeError(firstLines(validation.diagnostics));
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
  if (hasErrors(diagnostics)) return makeError(firstLines(diagnostics));
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
  d.error.reset();
  d.cancelled = false;
  d.options = options;
  d.maps.clear();
  d.slots.assign(d.plan.slotNames.size(), std::monostate{});
  d.stats.assign(d.plan.ops.size(), OpStats{});
  d.current = 0;
  Expected<std::vector<Tensor>> bound = bindInputs(d.plan, inputs);
  if (!bound) return bound.error();
  for (std::size_t i = 0; i < d.plan.args.size(); ++i) {
    const int slot = d.plan.args[i].slot;
    d.slots[static_cast<std::size_t>(slot)] = std::move((*bound)[i]);
    if (d.plan.lastUse[static_cast<std::size_t>(slot)] < 0) d.release(slot);
  }
  d.started = true;
  return {};
}

bool Runtime::started() const { return m_impl->started; }
bool Runtime::finished() const {
  return m_impl->started && m_impl->current >= static_cast<int>(m_impl->plan.ops.size());
}
int Runtime::currentOp() const { return m_impl->current; }
Status Runtime::step() { return m_impl->step(); }

Status Runtime::runUntil(int opIndex) {
  while (!finished() && m_impl->current < opIndex)
    if (Status s = step(); !s) return s;
  return m_impl->started ? Status{} : Status(makeError("the runtime was not started"));
}

Status Runtime::run() { return runUntil(static_cast<int>(m_impl->plan.ops.size())); }
void Runtime::cancel() { m_impl->cancelled = true; }

const RuntimeValue& Runtime::value(int slot) const {
  static const RuntimeValue none;
  if (slot < 0 || static_cast<std::size_t>(slot) >= m_impl->slots.size()) return none;
  return m_impl->slots[static_cast<std::size_t>(slot)];
}

const OpStats& Runtime::stats(int opIndex) const { return m_impl->stats.at(static_cast<std::size_t>(opIndex)); }

double Runtime::kernelMapMs() const {
  double total = 0.0;
  for (const OpStats& s : m_impl->stats) total += s.kernelMapMs;
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
