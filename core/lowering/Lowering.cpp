// lower_fx_artifact (lowering.md §2.1) and save_lattice_model_artifact (§6.1): ABI and option
// resolution from the archive's hints, builder and symbolic-input creation, the direct path for
// a root module with a lowering, a given or traced graph and its interpretation otherwise, output
// flattening, and the atomic save. Both entry points are prepare + finish. Module/function
// lowerings, MLIR text and the writer live elsewhere; this file only sequences them and keeps
// the reference's check order and messages.

#include "lowering/Lowering.h"

#include "trace/Tracer.h"

#include <cctype>
#include <set>

namespace lattice {
namespace {

/// io dtype naming (§5.9, "io" row): the element types an example input may have.
Status checkIoDtype(const std::string& dtype) {
  if (dtype == "f16" || dtype == "f32" || dtype == "i32" || dtype == "i64") return {};
  return makeError("unsupported artifact tensor dtype: " + dtype);
}

fx::ValueList toFxValues(const std::vector<ArtifactValuePtr>& values) {
  fx::ValueList out;
  out.reserve(values.size());
  for (const ArtifactValuePtr& v : values) out.push_back(toFxValue(v));
  return out;
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// §2.1 step 1: the explicit inputs, or the builder's current value.
Expected<std::vector<ArtifactValuePtr>> runInputs(const TorchLatticeArtifactBuilder& builder,
                                                  std::vector<ArtifactValuePtr> inputs) {
  if (!inputs.empty()) return inputs;
  Expected<ArtifactValuePtr> current = builder.current();
  if (!current) return current.error();
  return std::vector<ArtifactValuePtr>{*current};
}

/// §2.1 step 2: `builder.lower_module(<lowercased class name>, model, *inputs)` then output.
Status lowerDirect(TorchLatticeArtifactBuilder& builder, const Model& model,
                   const std::vector<ArtifactValuePtr>& inputs,
                   const std::optional<std::vector<std::string>>& outputNames) {
  const std::string name = lowercase(model.root().className());
  builder.setCurrentNode(name);
  Expected<ArtifactValuePtr> result = builder.lowerModule(name, model.root(), model, inputs);
  if (!result) return result.error();
  return builder.output({*result}, outputNames);
}

/// §2.1 step 3 after tracing: run the interpreter to its end, flatten (§2.4), output.
Status finishTraced(LatticeArtifactInterpreter& interpreter, TorchLatticeArtifactBuilder& builder,
                    const std::optional<std::vector<std::string>>& outputNames, const std::atomic<bool>* cancel) {
  while (cancel && interpreter.currentNode()) { // node by node, to look at the flag between them
    if (cancel->load()) return makeError("cancelled");
    Expected<bool> stepped = interpreter.step();
    if (!stepped) return stepped.error();
  }
  Status ran = interpreter.runToEnd();
  if (!ran) return ran;
  Expected<std::vector<ArtifactValuePtr>> leaves = flattenArtifactOutputs(interpreter.result());
  if (!leaves) return leaves.error();
  return builder.output(std::move(*leaves), outputNames);
}

/// Names of the graph's placeholders, in order (the owners of the symbolic inputs).
std::vector<std::string> placeholderNames(const fx::Graph* graph) {
  std::vector<std::string> names;
  if (!graph) return names;
  for (const fx::Node& node : graph->nodes())
    if (node.op() == fx::Op::Placeholder) names.push_back(node.name());
  return names;
}

/// What both entry points share once `p` has its model and builder: the graph (`graph`, else a
/// trace made with `tracer`, a default LatticeTracer when null; none when the root has a
/// lowering), the symbolic inputs `makeInputs(placeholder names)` returns, and the interpreter
/// started on them. The graph comes first so that the inputs can be owned by their placeholders,
/// but a trace error is reported after the input errors, as the reference (which traces later)
/// would.
template <typename MakeInputs>
Status prepare(PreparedLowering& p, const fx::Graph* graph, const Tracer* tracer, MakeInputs&& makeInputs) {
  const Model& model = *p.model;
  if (model.modules().empty()) return makeError("model has no modules");
  Status traced;
  if (!TorchLatticeArtifactBuilder::hasModuleLowering(model.root())) {
    if (!graph) {
      Expected<std::unique_ptr<fx::Graph>> trace = tracer ? tracer->trace(model) : LatticeTracer().trace(model);
      if (trace) p.ownedGraph = std::move(*trace);
      else traced = trace.error();
      graph = p.ownedGraph.get();
    }
    p.graph = graph;
  }
  Expected<std::vector<ArtifactValuePtr>> inputs = makeInputs(placeholderNames(p.graph));
  if (!inputs) return inputs.error();
  if (!traced) return traced;
  p.inputs = std::move(*inputs);
  if (p.graph) {
    p.interpreter = std::make_unique<LatticeArtifactInterpreter>(model, *p.graph, *p.builder);
    p.interpreter->start(toFxValues(p.inputs));
  }
  return {};
}

/// A plan entry that decided no layer is most likely a typo: refused, with some of the model's
/// layer names.
Status checkPlanUsed(const TorchLatticeArtifactBuilder& builder) {
  const std::vector<std::string> unused = builder.unusedPlanEntries();
  if (unused.empty()) return {};
  std::string layers;
  std::size_t shown = 0, total = 0;
  std::set<std::string> seen;
  for (const QuantizableWeight& w : builder.quantizableWeights()) {
    if (!seen.insert(w.layer).second) continue;
    ++total;
    if (shown < 6) {
      layers += (shown ? ", " : "") + w.layer;
      ++shown;
    }
  }
  std::string message = "quantization plan entry '" + unused.front() + "' matches no conv or linear layer of the model";
  if (total == 0) message += " (the model has none)";
  else message += " (its layers: " + layers + (total > shown ? ", ..." : "") + ")";
  return makeError(message);
}

} // namespace

Expected<ResolvedExport> resolveExport(const Model& model, const ExportOptions& options) {
  if (model.modules().empty()) return makeError("model has no modules");
  // Step 1: eval mode, before anything else.
  for (const ModuleInfo& module : model.modules())
    if (module.training)
      return makeError("artifact export requires eval mode via model.eval() so normalization and "
                       "dropout semantics are deterministic");
  // Step 2: the example inputs.
  const std::vector<InputSpec>& specs = options.inputs ? *options.inputs : model.exampleInputs;
  if (specs.empty()) return makeError("example_inputs must be a non-empty tuple", ErrorCode::NoInputs);
  const LoweringOptions hints = model.lowering.value_or(LoweringOptions{});

  // Step 4: input names from the root's forward signature.
  std::vector<std::string> positional;
  std::size_t required = 0;
  for (const SignatureParam& p : model.root().signature)
    if (p.kind == ParamKind::VarPositional) return makeError("variadic model inputs are not exportable");
  for (const SignatureParam& p : model.root().signature) {
    if (p.kind != ParamKind::PositionalOnly && p.kind != ParamKind::PositionalOrKeyword) continue;
    positional.push_back(p.name);
    if (!p.defaultValue) ++required;
  }
  const std::size_t count = specs.size();
  if (count < required || count > positional.size())
    return makeError("model forward accepts " + std::to_string(required) + ".." +
                     std::to_string(positional.size()) + " positional inputs, got " + std::to_string(count),
                     ErrorCode::InputCount);

  ResolvedExport resolved;
  resolved.inputs = specs;
  for (std::size_t i = 0; i < count; ++i) resolved.inputs[i].name = positional[i];

  // Step 5: the input dtype (explicit, else the archive's hint, else the sparse inputs').
  ArtifactBuilderOptions& b = resolved.builder;
  std::optional<std::string> dtype = options.inputDtype ? options.inputDtype : hints.inputDtype;
  if (dtype && !dtype->empty()) {
    b.inputDtype = *dtype;
  } else {
    std::set<std::string> names;
    for (const InputSpec& spec : resolved.inputs) {
      if (spec.kind != InputSpec::Kind::Sparse || spec.dtype.empty()) continue;
      Status known = checkIoDtype(spec.dtype);
      if (!known) return known.error();
      names.insert(spec.dtype);
    }
    if (names.size() > 1) return makeError("all sparse inputs must use one feature dtype");
    b.inputDtype = names.empty() ? std::string("f32") : *names.begin();
  }
  // Step 6: the batch size (the archive's hint stands for the example tensors' batch counts).
  b.batchSize = options.batchSize ? options.batchSize : hints.batchSize;
  // Step 7's options; the builder validates them when it is created.
  if (options.quantizeBits) b.quantizeBits = options.quantizeBits;
  else if (hints.quantizeBits) b.quantizeBits = *hints.quantizeBits;
  b.quantizeGroupSize = options.groupSize ? *options.groupSize : hints.quantizeGroupSize;
  b.quantizeScaleDtype = options.scaleDtype ? *options.scaleDtype : hints.quantizeScaleDtype;
  // A per-layer plan replaces the uniform options and their hints; --keep-dense builds one.
  if (options.quantizationPlan) {
    if (options.quantizeBits)
      return makeError("a quantization plan cannot be combined with quantize bits: the plan gives every "
                       "layer's format (--quantize-plan replaces --quantize)");
    b.quantizeBits.reset();
    if (options.keepDense.empty()) {
      b.quantizationPlan = options.quantizationPlan;
    } else {
      // Kept dense over the plan: the plan's own entries for those layers are overridden too.
      auto plan = std::make_shared<QuantizationPlan>(*options.quantizationPlan);
      for (QuantizationPlan::Entry& e : plan->entries)
        for (const std::string& pattern : options.keepDense)
          if (globMatch(pattern, e.pattern)) e.format = WeightFormat::denseFormat();
      for (const std::string& pattern : options.keepDense) plan->entries.push_back({pattern, WeightFormat::denseFormat()});
      b.quantizationPlan = std::move(plan);
    }
  } else if (!options.keepDense.empty()) {
    if (!b.quantizeBits)
      return makeError("--keep-dense needs quantization (--quantize or the archive's quantize_bits)");
    auto plan = std::make_shared<QuantizationPlan>(QuantizationPlan::uniform(WeightFormat::quantized(
        static_cast<int>(*b.quantizeBits), b.quantizeGroupSize, b.quantizeScaleDtype)));
    for (const std::string& pattern : options.keepDense) plan->entries.push_back({pattern, WeightFormat::denseFormat()});
    b.quantizationPlan = std::move(plan);
  }
  b.createDefaultInput = false;
  resolved.outputNames = options.outputNames ? options.outputNames : hints.outputNames;
  return resolved;
}

Expected<std::vector<ArtifactValuePtr>> createExportInputs(TorchLatticeArtifactBuilder& builder,
                                                           const std::vector<InputSpec>& inputs,
                                                           const std::vector<std::string>& owners) {
  std::vector<ArtifactValuePtr> values;
  values.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputSpec& spec = inputs[i];
    builder.setCurrentNode(i < owners.size() ? owners[i] : spec.name);
    if (!spec.dtype.empty()) {
      Status known = checkIoDtype(spec.dtype);
      if (!known) return known.error();
    }
    Expected<ArtifactValuePtr> value = makeError("");
    if (spec.kind == InputSpec::Kind::Sparse) {
      std::optional<std::string> dtype;
      if (!spec.dtype.empty()) dtype = spec.dtype;
      value = builder.sparseArgument(spec.name, dtype, spec.channels, spec.stride);
    } else {
      if (spec.type.empty())
        return makeError("unsupported artifact input '" + spec.name + "': dense input without a tensor type");
      value = builder.denseArgument(spec.name, spec.type, spec.channels);
    }
    if (!value) return value.error();
    values.push_back(std::move(*value));
  }
  return values;
}

std::string PreparedLowering::directName() const {
  return model ? lowercase(model->root().className()) : std::string();
}

Expected<PreparedLowering> prepareLowering(const Model& model, const ExportOptions& options,
                                           const fx::Graph* graph) {
  Expected<ResolvedExport> resolved = resolveExport(model, options);
  if (!resolved) return resolved.error();
  Expected<TorchLatticeArtifactBuilder> builder = TorchLatticeArtifactBuilder::create(resolved->builder);
  if (!builder) return builder.error();
  PreparedLowering p;
  p.model = &model;
  p.builder = std::make_unique<TorchLatticeArtifactBuilder>(std::move(*builder));
  p.outputNames = std::move(resolved->outputNames);
  Status prepared = prepare(p, graph, options.tracer, [&](const std::vector<std::string>& owners) {
    return createExportInputs(*p.builder, resolved->inputs, owners);
  });
  if (!prepared) return prepared.error();
  return p;
}

Status finishLowering(PreparedLowering& p, const std::atomic<bool>* cancel) {
  if (!p.model || !p.builder) return makeError("lowering was not prepared");
  Status done = p.direct() ? lowerDirect(*p.builder, *p.model, p.inputs, p.outputNames)
                           : finishTraced(*p.interpreter, *p.builder, p.outputNames, cancel);
  if (!done) return done;
  return checkPlanUsed(*p.builder);
}

Status lowerFxArtifact(TorchLatticeArtifactBuilder& builder, const Model& model,
                       std::vector<ArtifactValuePtr> inputs,
                       std::optional<std::vector<std::string>> outputNames) {
  // The builder is moved into the lowering and back out, whatever happened.
  PreparedLowering p;
  p.model = &model;
  p.builder = std::make_unique<TorchLatticeArtifactBuilder>(std::move(builder));
  p.outputNames = std::move(outputNames);
  Status done = prepare(p, nullptr, nullptr, [&](const std::vector<std::string>&) {
    return runInputs(*p.builder, std::move(inputs));
  });
  if (done) done = finishLowering(p);
  builder = std::move(*p.builder);
  return done;
}

Status saveLatticeModelArtifact(const Model& model, const std::string& artifactDir,
                                const ExportOptions& options) {
  Expected<PreparedLowering> prepared = prepareLowering(model, options);
  if (!prepared) return prepared.error();
  Status lowered = finishLowering(*prepared);
  if (!lowered) return lowered;
  SaveOptions save = options.save;
  save.validate = options.validate;
  return prepared->builder->save(artifactDir, save);
}

} // namespace lattice
