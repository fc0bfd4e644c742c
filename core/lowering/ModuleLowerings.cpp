// Module lowerings, part 1 (lowering.md §3.1, §3.3): the registry in §1.1 order, dispatch along
// `type` then `bases`, the arity check, the helpers every lowering shares (Python coercions with
// Python's messages, kind checks, parameter access), and the small lowerings: global pools,
// Linear, the pass-throughs (Dropout, Flatten, Identity) and the always-refused modules.
// Convolutions and spatial pools are in ConvLowerings.cpp, norms and activations in
// NormLowerings.cpp. Nothing here emits text directly: ops go through the builder's emitOp.

#include "lowering/LoweringSupport.h"

#include "dialect/MlirTypes.h"
#include "lowering/Names.h"
#include "lowering/WeightPacking.h"

#include <absl/container/flat_hash_map.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace lattice::lowering {

void fail(std::string message) {
  throw Exception{std::move(message)};
}

// --- Python coercions -----------------------------------------------------------------------

namespace {

std::string trimmed(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\n\r\f\v") - b + 1);
}

bool isNumber(const fx::Value& v) {
  return v.kind() == fx::Value::Kind::Int || v.kind() == fx::Value::Kind::Float ||
         v.kind() == fx::Value::Kind::Bool;
}

} // namespace

double pyFloat(const fx::Value& v) {
  switch (v.kind()) {
  case fx::Value::Kind::Bool:
    return v.asBool() ? 1.0 : 0.0;
  case fx::Value::Kind::Int:
    return static_cast<double>(v.asInt());
  case fx::Value::Kind::Float:
    return v.asFloat();
  case fx::Value::Kind::String: {
    const std::string text = trimmed(v.asString());
    char* end = nullptr;
    errno = 0;
    const double d = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || text.find_first_of("xXpP") != std::string::npos)
      fail("could not convert string to float: " + fx::pythonRepr(v, false));
    return d;
  }
  default:
    break;
  }
  fail("float() argument must be a string or a real number, not '" + v.typeName() + "'");
}

int64_t pyInt(const fx::Value& v) {
  switch (v.kind()) {
  case fx::Value::Kind::Bool:
    return v.asBool() ? 1 : 0;
  case fx::Value::Kind::Int:
    return v.asInt();
  case fx::Value::Kind::Float: {
    const double d = v.asFloat();
    if (std::isnan(d)) fail("cannot convert float NaN to integer");
    if (std::isinf(d)) fail("cannot convert float infinity to integer");
    return static_cast<int64_t>(std::trunc(d));
  }
  case fx::Value::Kind::String: {
    const std::string text = trimmed(v.asString());
    std::size_t i = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
    bool ok = i < text.size();
    for (std::size_t j = i; j < text.size(); ++j)
      ok = ok && text[j] >= '0' && text[j] <= '9';
    if (!ok) fail("invalid literal for int() with base 10: " + fx::pythonRepr(v, false));
    return std::strtoll(text.c_str(), nullptr, 10);
  }
  default:
    break;
  }
  fail("int() argument must be a string, a bytes-like object or a real number, not '" + v.typeName() + "'");
}

std::string pyStr(const fx::Value& v) {
  switch (v.kind()) {
  case fx::Value::Kind::String:
  case fx::Value::Kind::Repr:
    return v.asString();
  default:
    return fx::pythonRepr(v, false);
  }
}

bool pyTruthy(const fx::Value& v) {
  switch (v.kind()) {
  case fx::Value::Kind::None:
    return false;
  case fx::Value::Kind::Bool:
    return v.asBool();
  case fx::Value::Kind::Int:
    return v.asInt() != 0;
  case fx::Value::Kind::Float:
    return v.asFloat() != 0.0;
  case fx::Value::Kind::String:
    return !v.asString().empty();
  case fx::Value::Kind::List:
  case fx::Value::Kind::Tuple:
    return !v.items().empty();
  case fx::Value::Kind::Dict:
    return !v.dictItems().empty();
  default:
    return true;
  }
}

std::array<int64_t, 3> intTriple(const fx::Value& v) {
  if (v.kind() == fx::Value::Kind::Int || v.kind() == fx::Value::Kind::Bool) {
    const int64_t i = pyInt(v);
    return {i, i, i};
  }
  // A list becomes a tuple before the length check, so the message shows the tuple.
  const fx::Value seq = v.kind() == fx::Value::Kind::List ? fx::Value::tuple(v.items()) : v;
  if (seq.kind() == fx::Value::Kind::Tuple && seq.items().size() == 3)
    return {pyInt(seq.items()[0]), pyInt(seq.items()[1]), pyInt(seq.items()[2])};
  fail("expected an int or length-3 tuple, got " + fx::pythonRepr(seq, false) + ".");
}

std::array<double, 3> floatTriple(const fx::Value& v) {
  if (isNumber(v)) {
    const double d = pyFloat(v);
    return {d, d, d};
  }
  const fx::Value seq = v.kind() == fx::Value::Kind::List ? fx::Value::tuple(v.items()) : v;
  if (seq.kind() == fx::Value::Kind::Tuple && seq.items().size() == 3)
    return {pyFloat(seq.items()[0]), pyFloat(seq.items()[1]), pyFloat(seq.items()[2])};
  fail("expected a scalar or length-3 tuple, got " + fx::pythonRepr(seq, false) + ".");
}

void requireKind(const ArtifactValuePtr& v, ArtifactValue::Kind kind, const std::string& label) {
  if (!v) fail("'NoneType' object has no attribute 'kind'");
  if (v->kind() != kind)
    fail(label + " expects " + std::string(artifactKindName(kind)) + ", got " +
         std::string(artifactKindName(v->kind())) + ".");
}

TensorData constantVector(double value, int64_t length, DType dtype) {
  TensorData t = TensorData::zeros(dtype, {length});
  if (value == 0.0) return t;
  uint8_t* bytes = t.mutableData();
  for (int64_t i = 0; i < length; ++i) {
    if (dtype == DType::F16) {
      // Only the constants 0 and 1 are ever needed; 1.0 is 0x3C00 in binary16.
      const uint16_t one = 0x3C00;
      std::memcpy(bytes + 2 * i, &one, 2);
    } else {
      const float f = static_cast<float>(value);
      std::memcpy(bytes + 4 * i, &f, 4);
    }
  }
  return t;
}

// --- ModuleCall -----------------------------------------------------------------------------

std::string ModuleCall::safeName() const {
  return safeValueName(name);
}

const fx::Value& ModuleCall::attr(const std::string& attrName) const {
  if (const fx::Value* v = module.attribute(attrName)) return *v;
  fail("'" + className() + "' object has no attribute '" + attrName + "'");
}

const TensorData* ModuleCall::tensor(const std::string& slot) const {
  auto lookup = [&](const auto& slots) -> const std::optional<TensorRecord>* {
    for (const auto& [local, record] : slots)
      if (local == slot) return &record;
    return nullptr;
  };
  const std::optional<TensorRecord>* record = lookup(module.parameters);
  if (!record) record = lookup(module.buffers);
  if (!record || !*record) return nullptr;
  const TensorData* data = model.tensor((*record)->key);
  if (!data) fail("missing tensor '" + (*record)->key + "' for module '" + module.path + "'");
  return data;
}

ArtifactValuePtr ModuleCall::inputOrCurrent(std::size_t i) const {
  if (i < inputs.size() && inputs[i]) return inputs[i];
  return must(builder.current());
}

std::string ModuleCall::moduleDtype() const {
  for (const auto& [local, record] : module.parameters)
    if (record) return must(artifactWeightDTypeName(record->dtype));
  return builder.inputDtype();
}

ValueId ModuleCall::weight(std::string_view param, const TensorData& t, const WeightFamily& family) const {
  return must(builder.registerWeight(name, param, t, family.name, family.layout));
}

// --- small lowerings ------------------------------------------------------------------------

namespace {

ArtifactValuePtr globalPoolWith(ModuleCall& c, const char* mode) {
  return must(c.builder.globalPool(c.name, mode, c.inputOrCurrent()));
}
ArtifactValuePtr lowerGlobalAvgPool(ModuleCall& c) {
  return globalPoolWith(c, "avg");
}
ArtifactValuePtr lowerGlobalMaxPool(ModuleCall& c) {
  return globalPoolWith(c, "max");
}
ArtifactValuePtr lowerGlobalSumPool(ModuleCall& c) {
  return globalPoolWith(c, "sum");
}

ArtifactValuePtr lowerLinear(ModuleCall& c) {
  ArtifactValuePtr input = c.inputOrCurrent();
  requireKind(input, ArtifactValue::Kind::Dense, c.className());
  const int64_t outFeatures = pyInt(c.attr("out_features"));
  const TensorData* w = c.tensor("weight");
  if (!w) fail("'" + c.className() + "' object has no attribute 'weight'");
  const std::string dtype = must(artifactWeightDTypeName(w->dtype()));
  OpRecord op;
  op.op = std::string(opName(OpKind::Linear));
  op.operands = {input->id(), c.weight("weight", *w, kLinearWeight)};
  if (const TensorData* bias = c.tensor("bias")) op.operands.push_back(c.weight("bias", *bias, kBiasWeight));
  op.resultStems = {c.safeName()};
  op.resultTypes = {featureTensorType(outFeatures, dtype)};
  const ValueId out = must(c.builder.emitOp(op)).front();
  return c.builder.makeValue(out, ArtifactValue::Kind::Dense, outFeatures, dtype);
}

ArtifactValuePtr lowerDropout(ModuleCall& c) {
  if (c.module.training) fail("Dropout artifact is only supported in eval mode.");
  return c.inputs[0];
}

ArtifactValuePtr lowerFlatten(ModuleCall& c) {
  const ArtifactValuePtr& input = c.inputs[0];
  if (!input) fail("'NoneType' object has no attribute 'kind'");
  if (!input->isDense() || pyInt(c.attr("start_dim")) != 1 || pyInt(c.attr("end_dim")) != -1)
    fail("Flatten artifact only supports dense classifier heads with start_dim=1 and end_dim=-1.");
  return input;
}

ArtifactValuePtr lowerIdentity(ModuleCall& c) {
  return c.inputs[0];
}

ArtifactValuePtr lowerInstanceNorm(ModuleCall&) {
  fail("InstanceNorm artifact is not supported without a dedicated lattice normalization op.");
}
ArtifactValuePtr lowerGroupNorm(ModuleCall&) {
  fail("GroupNorm artifact is not supported without a dedicated lattice normalization op.");
}
ArtifactValuePtr lowerSparseCrop(ModuleCall&) {
  fail("SparseCrop artifact is not supported until the lattice dialect defines a sparse crop op.");
}

std::vector<ModuleLowering> buildRegistry() {
  const std::string conv = "torch_lattice.nn.modules.conv.";
  const std::string pool = "torch_lattice.nn.modules.pooling.";
  const std::string norm = "torch_lattice.nn.modules.norm.";
  const std::vector<std::size_t> one{1}, oneOrTwo{1, 2};
  std::vector<ModuleLowering> r = {
      {conv + "Conv3d", oneOrTwo, lowerConv3d},
      {conv + "SubmConv3d", one, lowerSubmConv3d},
      {conv + "NormalizedSubmConv3d", one, lowerNormalizedSubmConv3d},
      {conv + "ConvTranspose3d", oneOrTwo, lowerConvTranspose3d},
      {conv + "NormalizedConvTranspose3d", oneOrTwo, lowerNormalizedConvTranspose3d},
      {conv + "GenerativeConvTranspose3d", oneOrTwo, lowerGenerativeConvTranspose3d},
      {conv + "NormalizedGenerativeConvTranspose3d", oneOrTwo, lowerNormalizedGenerativeConvTranspose3d},
      {pool + "Pool3d", one, lowerPool3d},
      {pool + "PoolTranspose3d", oneOrTwo, lowerPoolTranspose3d},
      {pool + "TrilinearUpsample3d", oneOrTwo, lowerTrilinearUpsample3d},
      {norm + "BatchNorm", one, lowerBatchNorm},
      {norm + "LayerNorm", one, lowerLayerNorm},
      {"torch.nn.modules.normalization.LayerNorm", one, lowerLayerNorm},
      {norm + "RMSNorm", one, lowerRmsNorm},
      {"torch.nn.modules.normalization.RMSNorm", one, lowerRmsNorm},
  };
  const std::pair<const char*, ModuleLoweringFn> activations[] = {
      {"ReLU", lowerReLU},        {"LeakyReLU", lowerLeakyReLU}, {"SiLU", lowerSiLU},
      {"GELU", lowerGELU},        {"Sigmoid", lowerSigmoid},     {"Tanh", lowerTanh},
      {"Softplus", lowerSoftplus}};
  for (const auto& [cls, fn] : activations) {
    r.push_back({std::string("torch_lattice.nn.modules.activation.") + cls, one, fn});
    r.push_back({std::string("torch.nn.modules.activation.") + cls, one, fn});
  }
  r.insert(r.end(), {
                        {pool + "GlobalAvgPool", one, lowerGlobalAvgPool},
                        {pool + "GlobalMaxPool", one, lowerGlobalMaxPool},
                        {pool + "GlobalSumPool", one, lowerGlobalSumPool},
                        {"torch.nn.modules.linear.Linear", one, lowerLinear},
                        {"torch.nn.modules.dropout.Dropout", one, lowerDropout},
                        {"torch.nn.modules.flatten.Flatten", one, lowerFlatten},
                        {"torch.nn.modules.linear.Identity", one, lowerIdentity},
                        {norm + "InstanceNorm", one, lowerInstanceNorm},
                        {norm + "GroupNorm", one, lowerGroupNorm},
                        {"torch_lattice.nn.modules.crop.SparseCrop", one, lowerSparseCrop},
                    });
  return r;
}

std::string joinArities(const std::vector<std::size_t>& arities) {
  std::string out;
  for (std::size_t a : arities)
    out += (out.empty() ? "" : " or ") + std::to_string(a);
  return out;
}

} // namespace

const std::vector<ModuleLowering>& moduleLoweringRegistry() {
  static const std::vector<ModuleLowering> registry = buildRegistry();
  return registry;
}

const ModuleLowering* findModuleLowering(const ModuleInfo& module) {
  static const absl::flat_hash_map<std::string, const ModuleLowering*> byType = [] {
    absl::flat_hash_map<std::string, const ModuleLowering*> m;
    for (const ModuleLowering& row : moduleLoweringRegistry())
      m.emplace(row.type, &row);
    return m;
  }();
  if (const auto row = byType.find(module.type); row != byType.end()) return row->second;
  for (const std::string& base : module.bases) {
    if (const auto row = byType.find(base); row != byType.end()) return row->second;
  }
  return nullptr;
}

ArtifactValuePtr lowerModuleCall(TorchLatticeArtifactBuilder& b, const std::string& name,
                                 const ModuleInfo& module, const Model& model,
                                 std::vector<ArtifactValuePtr> inputs) {
  const ModuleLowering* row = findModuleLowering(module);
  if (!row) fail("unsupported module for lattice artifact: " + module.className());
  bool arityOk = false;
  for (std::size_t a : row->arities)
    arityOk = arityOk || a == inputs.size();
  if (!arityOk)
    fail(module.className() + " artifact expects " + joinArities(row->arities) + " symbolic lattice values.");
  ModuleCall call{b, name, module, model, inputs};
  return row->fn(call);
}

} // namespace lattice::lowering

namespace lattice {

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::globalPool(const std::string& name,
                                                                   const std::string& mode,
                                                                   ArtifactValuePtr input) {
  try {
    if (!input) input = lowering::must(current());
    lowering::requireKind(input, ArtifactValue::Kind::Sparse, "GlobalPool");
    if (!m_options.batchSize) lowering::fail("global_pool artifact requires a static batch_size.");
    OpRecord op;
    op.op = std::string(opName(OpKind::GlobalPool));
    op.operands = {input->id()};
    op.attributes = {{"mode", mode}, {"batch_size", *m_options.batchSize}};
    op.resultStems = {safeValueName(name)};
    op.resultTypes = {featureTensorType(input->channels(), inputDtype())};
    const ValueId out = lowering::must(emitOp(op)).front();
    return makeValue(out, ArtifactValue::Kind::Dense, input->channels(), inputDtype());
  } catch (const Exception& e) {
    return makeError(e.message);
  }
}

} // namespace lattice
