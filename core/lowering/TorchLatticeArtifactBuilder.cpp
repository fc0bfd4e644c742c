// TorchLatticeArtifactBuilder: options validation (§5.1), inputs (§5.2–§5.4), the chain API
// (§5.5), weight registration (§5.7), outputs and text (§5.10), and provenance. The lowerings
// themselves live in ModuleLowerings.cpp (+ Conv/Norm) and FunctionLowerings.cpp; this file only
// converts their exceptions into Errors at the public boundary.

#include "lowering/TorchLatticeArtifactBuilder.h"

#include "lowering/Lowerings.h"
#include "dialect/MlirTypes.h"
#include "lowering/Names.h"
#include "lowering/WeightPacking.h"
#include "tensor/DType.h"

#include <algorithm>
#include <exception>

namespace lattice {
namespace {

// Marks every plan entry that names `layer` or matches it (whether or not it decides it).
void markMatchingEntries(const QuantizationPlan& plan, std::string_view layer, std::vector<bool>& used) {
  for (std::size_t i = 0; i < plan.entries.size() && i < used.size(); ++i) {
    const QuantizationPlan::Entry& e = plan.entries[i];
    if (e.glob() ? globMatch(e.pattern, layer) : e.pattern == layer) used[i] = true;
  }
}

// Runs `fn`, turning a lattice::Exception into an Error.
template <typename Fn> auto guarded(Fn&& fn) -> Expected<decltype(fn())> {
  try {
    return fn();
  } catch (const Exception& e) {
    return makeError(e.message);
  }
}

} // namespace

Expected<TorchLatticeArtifactBuilder> TorchLatticeArtifactBuilder::create(ArtifactBuilderOptions options) {
  const ArtifactBuilderOptions& o = options;
  if (o.inputDtype != "f16" && o.inputDtype != "f32") return makeError("input_dtype must be 'f16' or 'f32'.");
  if (o.batchSize && *o.batchSize < 0) return makeError("batch_size must be non-negative or None.");
  if (o.quantizeBits && *o.quantizeBits != 4 && *o.quantizeBits != 8)
    return makeError("quantize_bits must be None, 4, or 8.");
  if (o.quantizeGroupSize <= 0) return makeError("quantize_group_size must be positive.");
  if (o.quantizeScaleDtype != "f16" && o.quantizeScaleDtype != "f32")
    return makeError("quantize_scale_dtype must be 'f16' or 'f32'.");
  Expected<std::array<int64_t, 3>> stride = guarded([&] { return lowering::intTriple(o.inputStride); });
  if (!stride) return stride.error();

  if (const QuantizationPlan* plan = o.quantizationPlan.get()) {
    const auto check = [](const WeightFormat& f, const std::string& where) -> Status {
      if (f.dense()) return {};
      if (f.bits != 4 && f.bits != 8) return makeError(where + ": quantize_bits must be None, 4, or 8.");
      if (f.groupSize <= 0) return makeError(where + ": quantize_group_size must be positive.");
      if (f.scaleDtype != "f16" && f.scaleDtype != "f32")
        return makeError(where + ": quantize_scale_dtype must be 'f16' or 'f32'.");
      return {};
    };
    if (Status s = check(plan->defaultFormat, "quantization plan default"); !s) return s.error();
    for (const QuantizationPlan::Entry& e : plan->entries)
      if (Status s = check(e.format, "quantization plan entry '" + e.pattern + "'"); !s) return s.error();
  }

  TorchLatticeArtifactBuilder builder;
  builder.m_options = std::move(options);
  if (builder.m_options.quantizationPlan)
    builder.m_planEntryUsed.assign(builder.m_options.quantizationPlan->entries.size(), false);
  builder.m_inputStride = *stride;
  if (builder.m_options.createDefaultInput) {
    Expected<ArtifactValuePtr> input = builder.sparseInput();
    if (!input) return input.error();
    builder.m_current = *input;
  }
  return builder;
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::current() const {
  if (!m_current)
    return makeError("builder has no current value; pass explicit inputs or create a default sparse input.");
  return m_current;
}

Expected<ValueId> TorchLatticeArtifactBuilder::addArgument(const std::string& name, TypeText type,
                                                           std::string role) {
  Expected<ValueId> v = m_writer.addArgument(name, type, std::move(role));
  if (!v) return v;
  OpProvenance record;
  record.kind = OpProvenance::Kind::Argument;
  record.index = m_writer.arguments().size() - 1;
  record.owner = static_cast<std::uint32_t>(m_owners.size() - 1);
  m_provenance.push_back(record);
  return v;
}

Expected<OpResults> TorchLatticeArtifactBuilder::emitOp(const OpSpec& op) {
  Expected<OpResults> results = m_writer.addOp(op);
  if (!results) return results;
  OpProvenance p;
  p.kind = OpProvenance::Kind::Op;
  p.index = m_writer.opCount() - 1;
  p.op = m_writer.ops().back().op;
  p.owner = static_cast<std::uint32_t>(m_owners.size() - 1);
  m_provenance.push_back(p);
  return results;
}

ArtifactValuePtr TorchLatticeArtifactBuilder::makeValue(ValueId v, ArtifactValue::Kind kind,
                                                        std::optional<int64_t> channels, std::string dtype) const {
  return std::make_shared<const ArtifactValue>(kind, v, std::string(m_writer.name(v)), m_writer.type(v), channels,
                                               std::move(dtype));
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::sparseMake(const ValueId (&parts)[3], const std::string& name,
                                                                  const std::array<int64_t, 3>& stride,
                                                                  std::optional<int64_t> channels,
                                                                  const std::string& dtype) {
  const NamedAttr attributes[] = {{"stride", I64Array(stride.begin(), stride.end())},
                                  {"coord_order", std::string("batch_x_y_z")}};
  const TypeText types[] = {sparseTensorType(dtype)};
  Expected<OpResults> results =
      emitOp({opName(OpKind::SparseMake), parts, {}, attributes, {&name, 1}, types});
  if (!results) return results.error();
  return makeValue(results->front(), ArtifactValue::Kind::Sparse, channels, dtype);
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::sparseInput() {
  const std::string& dtype = m_options.inputDtype;
  Expected<ValueId> coords = addArgument("coords", coordsTensorType(), "sparse_coords");
  if (!coords) return coords.error();
  Expected<ValueId> features =
      addArgument("features", featureTensorType(std::nullopt, dtype), "sparse_features");
  if (!features) return features.error();
  Expected<ValueId> active = addArgument("active", activeTensorType(), "sparse_active");
  if (!active) return active.error();
  return sparseMake({*coords, *features, *active}, m_options.inputName, m_inputStride, std::nullopt, dtype);
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::sparseArgument(const std::string& name,
                                                                       std::optional<std::string> dtype,
                                                                       std::optional<int64_t> channels,
                                                                       std::array<int64_t, 3> stride) {
  const std::string s = safeValueName(name);
  const std::string d = dtype && !dtype->empty() ? *dtype : m_options.inputDtype;
  Expected<ValueId> coords = addArgument(s + "_coords", coordsTensorType(), "sparse_coords");
  if (!coords) return coords.error();
  Expected<ValueId> features =
      addArgument(s + "_features", featureTensorType(channels, d), "sparse_features");
  if (!features) return features.error();
  Expected<ValueId> active = addArgument(s + "_active", activeTensorType(), "sparse_active");
  if (!active) return active.error();
  return sparseMake({*coords, *features, *active}, s, stride, channels, d);
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::denseArgument(const std::string& name,
                                                                      const std::string& type,
                                                                      std::optional<int64_t> channels) {
  Expected<ValueId> v = addArgument(name, type, "tensor");
  if (!v) return v.error();
  return makeValue(*v, ArtifactValue::Kind::Dense, channels, elementTypeOf(type));
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::module(const std::string& name,
                                                               const ModuleInfo& module, const Model& model) {
  Expected<ArtifactValuePtr> result = lowerModule(name, module, model, {m_current});
  if (result) m_current = *result;
  return result;
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::lowerModule(const std::string& name,
                                                                    const ModuleInfo& module,
                                                                    const Model& model,
                                                                    std::vector<ArtifactValuePtr> inputs) {
  return guarded([&] { return lowering::lowerModuleCall(*this, name, module, model, std::move(inputs)); });
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::lowerFunction(const std::string& target,
                                                                      const fx::ValueList& args,
                                                                      const fx::Kwargs& kwargs) {
  return guarded([&] { return lowering::lowerFunctionCall(*this, target, args, kwargs); });
}

const std::vector<std::string>& TorchLatticeArtifactBuilder::moduleLoweringTypes() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> out;
    for (const lowering::ModuleLowering& row : lowering::moduleLoweringRegistry())
      out.push_back(row.type);
    return out;
  }();
  return types;
}

bool TorchLatticeArtifactBuilder::hasModuleLowering(const ModuleInfo& module) {
  return lowering::findModuleLowering(module) != nullptr;
}

const std::vector<std::string>& TorchLatticeArtifactBuilder::functionLoweringNames() {
  return lowering::functionLoweringNameList();
}

bool TorchLatticeArtifactBuilder::hasFunctionLowering(const std::string& target) {
  return !lowering::canonicalFunctionName(target).empty();
}

Expected<ValueId> TorchLatticeArtifactBuilder::registerWeight(std::string_view moduleName,
                                                              std::string_view parameter,
                                                              const TensorData& tensor, std::string_view family,
                                                              std::string_view layout) {
  std::string key = weightStorageKey(moduleName, parameter);
  // A quantized weight stored under `key` owns `key.weight` too.
  m_keyScratch.assign(key).append(".weight");
  if (m_weightIndex.count(key) || m_weightIndex.count(m_keyScratch))
    return makeError("duplicate exported weight key: " + key);
  Expected<std::string> dtype = artifactWeightDTypeName(tensor.dtype());
  if (!dtype) return dtype.error();

  std::vector<NamedTensor> quantized; // `key.weight`, `.scales`, `.biases`; else `key` is stored as is
  PackingAttr packing = PackingAttr::dense();
  const bool quantizable = family == kConvWeight.name || family == kLinearWeight.name;
  const bool denseOnly =
      quantizable && std::find(m_denseOnly.begin(), m_denseOnly.end(), moduleName) != m_denseOnly.end();
  WeightFormat format;
  if (quantizable && !denseOnly) format = weightFormatFor(moduleName, family);
  if (quantizable && m_options.quantizationPlan) markMatchingEntries(*m_options.quantizationPlan, moduleName, m_planEntryUsed);
  if (!format.dense()) {
    const DType scaleDtype = format.scaleDtype == "f16" ? DType::F16 : DType::F32;
    Expected<QuantizedWeight> packed =
        quantizeAffine(tensor, format.bits, static_cast<int>(format.groupSize), scaleDtype);
    if (!packed) return packed.error();
    quantized = quantizedWeightTensors(key, std::move(*packed));
    packing = PackingAttr::affine(format.bits, format.groupSize, format.scaleDtype);
  }

  const std::string symbol = safeValueName(key); // also the result's stem
  // The key lends itself to the attribute for the call and is taken back for the weight list.
  NamedAttr attributes[] = {{"storage_key", std::move(key)}, {"layout", std::string(layout)}, {"packing", packing}};
  const TypeText types[] = {weightType(family, *dtype)};
  Expected<OpResults> result = emitOp({opName(OpKind::Weight), {}, symbol, attributes, {&symbol, 1}, types});
  key = std::move(std::get<std::string>(attributes[0].value));
  if (!result) return result.error();
  OpProvenance& record = m_provenance.back();
  record.firstWeight = static_cast<std::uint32_t>(m_weights.size());
  const auto store = [&](std::string storedKey, TensorData data) {
    ++record.weightCount;
    m_weightIndex.emplace(m_weightKeys.store(storedKey), WeightSlot{m_weights.size(), m_provenance.size() - 1});
    m_weights.push_back({std::move(storedKey), std::move(data)});
  };
  if (quantizable) {
    QuantizableWeight q;
    q.layer = std::string(moduleName);
    q.owner = currentNode();
    q.storageKey = key;
    q.family = std::string(family);
    q.shape = tensor.shape();
    q.dtype = tensor.dtype();
    q.format = format;
    q.packable = !denseOnly;
    q.provenance = m_provenance.size() - 1;
    m_quantizable.push_back(std::move(q));
  }
  if (quantized.empty()) store(std::move(key), tensor);
  for (NamedTensor& t : quantized)
    store(std::move(t.key), std::move(t.tensor));
  return result->front();
}

WeightFormat TorchLatticeArtifactBuilder::weightFormatFor(std::string_view layer, std::string_view family) const {
  if (family != kConvWeight.name && family != kLinearWeight.name) return WeightFormat::denseFormat();
  if (m_options.quantizationPlan) return m_options.quantizationPlan->formatFor(layer);
  if (!m_options.quantizeBits) return WeightFormat::denseFormat();
  return WeightFormat::quantized(static_cast<int>(*m_options.quantizeBits), m_options.quantizeGroupSize,
                                 m_options.quantizeScaleDtype);
}

Status TorchLatticeArtifactBuilder::requireDenseWeights(const std::string& layer, const std::string& className) {
  if (const QuantizationPlan* plan = m_options.quantizationPlan.get()) {
    markMatchingEntries(*plan, layer, m_planEntryUsed);
    const int entry = plan->entryFor(layer);
    if (entry >= 0) {
      const QuantizationPlan::Entry& e = plan->entries[static_cast<std::size_t>(entry)];
      if (!e.format.dense())
        return makeError("quantization plan entry '" + e.pattern + "' asks " + e.format.name() + " for '" + layer +
                         "', a " + className +
                         ": its weights stay dense because normalization depends on weight squares");
    }
  } else if (m_options.quantizeBits) {
    return makeError(className +
                     " artifact export does not support packed weights because normalization depends on weight squares.");
  }
  m_denseOnly.push_back(layer);
  return {};
}

std::vector<std::string> TorchLatticeArtifactBuilder::unusedPlanEntries() const {
  std::vector<std::string> unused;
  if (!m_options.quantizationPlan) return unused;
  const std::vector<QuantizationPlan::Entry>& entries = m_options.quantizationPlan->entries;
  for (std::size_t i = 0; i < entries.size() && i < m_planEntryUsed.size(); ++i)
    if (!m_planEntryUsed[i]) unused.push_back(entries[i].pattern);
  return unused;
}

const TensorData* TorchLatticeArtifactBuilder::weight(const std::string& key) const {
  const auto found = m_weightIndex.find(key);
  return found == m_weightIndex.end() ? nullptr : &m_weights[found->second.weight].tensor;
}

Status TorchLatticeArtifactBuilder::output(std::vector<ArtifactValuePtr> values,
                                           std::optional<std::vector<std::string>> names) {
  if (values.empty()) {
    Expected<ArtifactValuePtr> c = current();
    if (!c) return c.error();
    values.push_back(*c);
  }
  if (names && names->size() != values.size())
    return makeError("output names must match the number of artifact outputs");
  std::vector<std::string> outputNames;
  if (names) {
    outputNames = *names;
  } else if (values.size() == 1) {
    outputNames = {m_options.outputName};
  } else {
    for (std::size_t i = 0; i < values.size(); ++i)
      outputNames.push_back(m_options.outputName + "_" + std::to_string(i));
  }
  std::vector<ValueId> returned;
  std::vector<std::string> roles;
  for (const ArtifactValuePtr& v : values) {
    if (!v) return makeError("lattice artifact outputs must all be tensors; unsupported: NoneType");
    returned.push_back(v->id());
    roles.emplace_back(v->isSparse() ? "sparse_tensor" : "tensor");
  }
  Status s = m_writer.setReturn(std::move(returned), std::move(outputNames), std::move(roles));
  if (!s) return s;
  m_finalized = true;
  return {};
}

Expected<std::string> TorchLatticeArtifactBuilder::toMlir() {
  if (!m_finalized) {
    Status s = output();
    if (!s) return s.error();
  }
  return m_writer.str();
}

Status TorchLatticeArtifactBuilder::save(const std::string& artifactDir, const SaveOptions& options) {
  Expected<std::string> text = toMlir();
  if (!text) return text.error();
  return saveArtifactFiles(artifactDir, *text, m_weights, options);
}

void TorchLatticeArtifactBuilder::reserveFor(std::size_t fxNodes, std::size_t modelTensors) {
  const std::size_t ops = 4 * fxNodes + 8;
  m_writer.reserve(ops);
  m_provenance.reserve(m_provenance.size() + ops);
  m_weights.reserve(m_weights.size() + modelTensors);
  m_weightIndex.reserve(m_weightIndex.size() + modelTensors);
}

void TorchLatticeArtifactBuilder::setCurrentNode(std::string owner) {
  if (owner != m_owners.back()) m_owners.push_back(std::move(owner));
}

std::vector<const OpProvenance*> TorchLatticeArtifactBuilder::provenanceOf(const std::string& owner) const {
  std::vector<const OpProvenance*> out;
  for (const OpProvenance& p : m_provenance)
    if (m_owners[p.owner] == owner) out.push_back(&p);
  return out;
}

std::vector<std::string> TorchLatticeArtifactBuilder::resultsOf(const OpProvenance& record) const {
  if (record.kind == OpProvenance::Kind::Argument)
    return {std::string(m_writer.name(m_writer.arguments()[record.index].value))};
  const OpResults results = m_writer.ops()[record.index].results;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < results.size(); ++i)
    out.emplace_back(m_writer.name(results[i]));
  return out;
}

std::vector<std::string> TorchLatticeArtifactBuilder::weightKeysOf(const OpProvenance& record) const {
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < record.weightCount; ++i)
    out.push_back(m_weights[record.firstWeight + i].key);
  return out;
}

const std::string* TorchLatticeArtifactBuilder::weightOwner(const std::string& key) const {
  const auto found = m_weightIndex.find(key);
  return found == m_weightIndex.end() ? nullptr : &m_owners[m_provenance[found->second.provenance].owner];
}

std::size_t TorchLatticeArtifactBuilder::lineOf(const OpProvenance& record) const {
  return record.kind == OpProvenance::Kind::Argument ? m_writer.argumentLine(record.index)
                                                     : m_writer.opLine(record.index);
}

} // namespace lattice
