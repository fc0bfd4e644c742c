// TorchLatticeArtifactBuilder: options validation (§5.1), inputs (§5.2–§5.4), the chain API
// (§5.5), weight registration (§5.7), outputs and text (§5.10), and provenance. The lowerings
// themselves live in ModuleLowerings.cpp (+ Conv/Norm) and FunctionLowerings.cpp; this file only
// converts their exceptions into Errors at the public boundary.

#include "artifact/TorchLatticeArtifactBuilder.h"

#include "artifact/LoweringSupport.h"
#include "artifact/MlirTypes.h"
#include "artifact/Names.h"
#include "artifact/WeightPacking.h"
#include "tensor/DType.h"

#include <algorithm>
#include <exception>

namespace lattice {
namespace {

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

  TorchLatticeArtifactBuilder builder;
  builder.m_options = std::move(options);
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

Expected<MlirValue> TorchLatticeArtifactBuilder::addArgument(const std::string& name, TypeText type,
                                                             std::string role) {
  Expected<MlirValue> v = m_writer.addArgument(name, type, std::move(role));
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

Expected<OpResults> TorchLatticeArtifactBuilder::emitOp(const OpRecord& record) {
  std::vector<ResultStem> stems;
  return emitOp(specOf(record, stems));
}

ArtifactValuePtr TorchLatticeArtifactBuilder::makeValue(const MlirValue& v, ArtifactValue::Kind kind,
                                                        std::optional<int64_t> channels, std::string dtype) {
  return std::make_shared<const ArtifactValue>(kind, std::string(v.name), v.type, channels, std::move(dtype));
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::sparseMake(const MlirValue (&parts)[3], std::string_view name,
                                                                  const std::array<int64_t, 3>& stride,
                                                                  std::optional<int64_t> channels,
                                                                  const std::string& dtype) {
  const NamedAttr attributes[] = {{"stride", I64Array(stride.begin(), stride.end())},
                                  {"coord_order", std::string("batch_x_y_z")}};
  const ResultStem stems[] = {name};
  const TypeText types[] = {sparseTensorType(dtype)};
  Expected<OpResults> results = emitOp({"sparse.make", parts, {}, attributes, stems, types});
  if (!results) return results.error();
  return makeValue(results->front(), ArtifactValue::Kind::Sparse, channels, dtype);
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::sparseInput() {
  const std::string& dtype = m_options.inputDtype;
  Expected<MlirValue> coords = addArgument("coords", coordsTensorType(), "sparse_coords");
  if (!coords) return coords.error();
  Expected<MlirValue> features =
      addArgument("features", featureTensorType(std::nullopt, dtype), "sparse_features");
  if (!features) return features.error();
  Expected<MlirValue> active = addArgument("active", activeTensorType(), "sparse_active");
  if (!active) return active.error();
  return sparseMake({*coords, *features, *active}, m_options.inputName, m_inputStride, std::nullopt, dtype);
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::sparseArgument(const std::string& name,
                                                                       std::optional<std::string> dtype,
                                                                       std::optional<int64_t> channels,
                                                                       std::array<int64_t, 3> stride) {
  const std::string s = safeValueName(name);
  const std::string d = dtype && !dtype->empty() ? *dtype : m_options.inputDtype;
  Expected<MlirValue> coords = addArgument(s + "_coords", coordsTensorType(), "sparse_coords");
  if (!coords) return coords.error();
  Expected<MlirValue> features =
      addArgument(s + "_features", featureTensorType(channels, d), "sparse_features");
  if (!features) return features.error();
  Expected<MlirValue> active = addArgument(s + "_active", activeTensorType(), "sparse_active");
  if (!active) return active.error();
  return sparseMake({*coords, *features, *active}, s, stride, channels, d);
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::denseArgument(const std::string& name,
                                                                      const std::string& type,
                                                                      std::optional<int64_t> channels) {
  Expected<MlirValue> v = addArgument(name, type, "tensor");
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

Expected<MlirValue> TorchLatticeArtifactBuilder::registerWeight(std::string_view moduleName,
                                                                std::string_view parameter,
                                                                const TensorData& tensor, std::string_view family,
                                                                std::string_view layout) {
  // A module registers its parameters one after another: its key stem is sanitised once.
  if (moduleName != m_weightModule || m_weightKeyStem.empty()) {
    m_weightModule = moduleName;
    m_weightKeyStem = safeKey(moduleName);
    m_weightSymbolStem = safeValueName(m_weightKeyStem);
  }
  // The key is built in a reused buffer; it becomes a string of its own only when stored.
  std::string& scratch = m_keyScratch;
  scratch.assign(m_weightKeyStem);
  scratch += '.';
  scratch += parameter;
  const std::size_t plain = scratch.size();
  const auto keyHash = m_weightIndex.hashKey(scratch);
  // The probe below is a cache miss on a large model: it is requested first. On a large model
  // the twin's probe falls in the same two lines (the key and its twin share their numbered
  // prefix, and the index groups by it).
  m_weightIndex.prefetch(keyHash);
  scratch += ".weight"; // a quantized weight stored under this key owns it too
  const auto twinHash = m_weightIndex.hashKey(scratch);
  const std::string_view plainKey = std::string_view(scratch).substr(0, plain);
  if (m_weightIndex.findHashed(plainKey, keyHash)) return makeError("duplicate exported weight key: " + std::string(plainKey));
  const bool quantizedTwin = m_weightIndex.findHashed(scratch, twinHash) != nullptr;
  scratch.resize(plain);
  if (quantizedTwin) return makeError("duplicate exported weight key: " + scratch);
  const std::string_view key = scratch;
  Expected<std::string> dtype = artifactWeightDTypeName(tensor.dtype());
  if (!dtype) return dtype.error();

  std::vector<NamedTensor> quantized; // empty: the tensor is stored as given under `key`
  PackingAttr packing = PackingAttr::dense();
  if (m_options.quantizeBits && (family == "conv3d" || family == "linear")) {
    const int bits = static_cast<int>(*m_options.quantizeBits);
    const DType scaleDtype = m_options.quantizeScaleDtype == "f16" ? DType::F16 : DType::F32;
    Expected<QuantizedWeight> packed =
        quantizeAffine(tensor, bits, static_cast<int>(m_options.quantizeGroupSize), scaleDtype);
    if (!packed) return packed.error();
    quantized = quantizedWeightTensors(std::string(key), std::move(*packed));
    packing = PackingAttr::affine(bits, m_options.quantizeGroupSize, m_options.quantizeScaleDtype);
  }

  // safeValueName(key): the key stem starts and ends with [0-9A-Za-z] (safeKey strips `.` and
  // `_`), so for a parameter of [0-9A-Za-z_] that does not end in `_` the symbol is the stem's
  // symbol, `_` (the `.`), and the parameter.
  const bool plainParameter = !parameter.empty() && parameter.back() != '_' &&
                              std::all_of(parameter.begin(), parameter.end(), [](char c) {
                                return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                                       c == '_';
                              });
  if (plainParameter) {
    m_symbolScratch.assign(m_weightSymbolStem);
    m_symbolScratch += '_';
    m_symbolScratch += parameter;
  } else {
    assignSafeValueName(m_symbolScratch, key);
  }
  Expected<MlirValue> result = m_writer.addWeight(m_symbolScratch, key, layout, packing, weightType(family, *dtype));
  if (!result) return result.error();
  OpProvenance& record = m_provenance.emplace_back();
  record.kind = OpProvenance::Kind::Op;
  record.index = m_writer.opCount() - 1;
  record.op = m_writer.ops().back().op;
  record.owner = static_cast<std::uint32_t>(m_owners.size() - 1);
  const std::size_t provenance = m_provenance.size() - 1;
  record.firstWeight = static_cast<std::uint32_t>(m_weights.size());
  if (quantized.empty()) {
    ++record.weightCount;
    m_weightIndex.insertHashed(key, keyHash, WeightSlot{m_weights.size(), provenance});
    m_weights.push_back({std::string(key), tensor});
    return result;
  }
  const auto store = [&](std::string storedKey, TensorData data) {
    ++record.weightCount;
    m_weightIndex.insert(storedKey, WeightSlot{m_weights.size(), provenance});
    m_weights.push_back({std::move(storedKey), std::move(data)});
  };
  for (NamedTensor& t : quantized)
    store(std::move(t.key), std::move(t.tensor));
  return result;
}

const TensorData* TorchLatticeArtifactBuilder::weight(const std::string& key) const {
  const WeightSlot* slot = m_weightIndex.find(key);
  return slot ? &m_weights[slot->weight].tensor : nullptr;
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
  std::vector<MlirValue> returned;
  std::vector<std::string> roles;
  for (const ArtifactValuePtr& v : values) {
    if (!v) return makeError("lattice artifact outputs must all be tensors; unsupported: NoneType");
    returned.push_back({v->name(), v->type()});
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
  m_writer.reserve(ops, 5 * fxNodes + 8);
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
    return {std::string(m_writer.arguments()[record.index].value.name)};
  // The op line starts with its results: "%a, %b = lattice.…" (SSA names hold no ' ' or ',').
  const std::string_view text = m_writer.ops()[record.index].text;
  const std::string_view names = text.substr(0, text.find(" = lattice."));
  std::vector<std::string> out;
  for (std::size_t start = 0; start < names.size();) {
    std::size_t end = names.find(", ", start);
    if (end == std::string_view::npos) end = names.size();
    out.emplace_back(names.substr(start + 1, end - start - 1)); // without '%'
    start = end + 2;
  }
  return out;
}

std::vector<std::string> TorchLatticeArtifactBuilder::weightKeysOf(const OpProvenance& record) const {
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < record.weightCount; ++i)
    out.push_back(m_weights[record.firstWeight + i].key);
  return out;
}

const std::string* TorchLatticeArtifactBuilder::weightOwner(const std::string& key) const {
  const WeightSlot* slot = m_weightIndex.find(key);
  return slot ? &m_owners[m_provenance[slot->provenance].owner] : nullptr;
}

std::size_t TorchLatticeArtifactBuilder::lineOf(const OpProvenance& record) const {
  return record.kind == OpProvenance::Kind::Argument ? m_writer.argumentLine(record.index)
                                                     : m_writer.opLine(record.index);
}

} // namespace lattice
