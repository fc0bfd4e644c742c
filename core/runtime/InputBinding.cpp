// bindInputs (X19) and RuntimeInputs::fromFile. An inputs file is trusted no more than any other:
// its tensors are views of a mapped, bounds-checked safetensors file, and each is checked
// against its argument's declared type before a converted copy is made.

#include "runtime/InputBinding.h"

#include "tensor/TensorConvert.h"

#include <algorithm>
#include <map>
#include <set>

namespace lattice::runtime {

namespace {

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::optional<DType> elementDType(const std::string& element) {
  if (element == "f32") return DType::F32;
  if (element == "f16") return DType::F16;
  if (element == "i32") return DType::I32;
  if (element == "i64") return DType::I64;
  return std::nullopt;
}

Expected<Tensor> bindOne(const PlanArg& arg, const TensorData& data) {
  const ArtifactType& type = arg.def->type;
  const std::string name = "input '" + arg.abiName + "'";
  if (!type.isRankedTensor()) return makeError(name + ": the runtime binds ranked tensors, the argument is " + type.str());
  const std::optional<DType> want = elementDType(type.elementType);
  if (!want) return makeError(name + ": unsupported element type " + type.elementType + " in " + type.str());
  if (data.dtype() != *want)
    return makeError(name + " must be " + std::string(dtypeName(*want)) + " (" + type.str() + "), got " +
                     std::string(dtypeName(data.dtype())));
  bool shapeOk = data.shape().size() == type.shape.size();
  for (std::size_t i = 0; shapeOk && i < type.shape.size(); ++i)
    shapeOk = type.shape[i] == kDynamicExtent || type.shape[i] == data.shape()[i];
  if (!shapeOk) return makeError(name + " has shape " + shapeText(data.shape()) + ", expected " + type.str());
  Expected<Tensor> t = tensorFromData(data);
  if (!t) return makeError(name + ": " + t.message());
  return t;
}

} // namespace

Expected<Tensor> tensorFromData(const TensorData& data) {
  Tensor t;
  t.dtype = data.dtype();
  t.shape = data.shape();
  if (data.dtype() == DType::F32 || data.dtype() == DType::F16) {
    Expected<std::vector<float>> v = toFloatVector(data);
    if (!v) return v.error();
    t.floats = std::make_shared<const std::vector<float>>(std::move(*v));
  } else if (data.dtype() == DType::I32 || data.dtype() == DType::I64) {
    Expected<std::vector<std::int64_t>> v = toIntVector(data);
    if (!v) return v.error();
    t.ints = std::make_shared<const std::vector<std::int64_t>>(std::move(*v));
  } else {
    return makeError("unsupported dtype " + std::string(dtypeName(data.dtype())) + " (the runtime takes F32, F16, I32, I64)");
  }
  return t;
}

Expected<std::vector<Tensor>> bindInputs(const RuntimePlan& plan, const RuntimeInputs& inputs) {
  const std::vector<PlanArg>& args = plan.args;
  if (inputs.positional.size() > args.size()) return makeError("too many positional artifact inputs.");
  std::vector<const TensorData*> given(args.size(), nullptr);
  std::map<std::string, std::size_t> byName;
  for (std::size_t i = 0; i < args.size(); ++i) byName.emplace(args[i].abiName, i);
  for (std::size_t i = 0; i < inputs.positional.size(); ++i) given[i] = &inputs.positional[i];

  std::set<std::string> unexpected;
  auto give = [&](const std::string& name, const TensorData& t) -> Status {
    const auto it = byName.find(name);
    if (it == byName.end()) {
      unexpected.insert(name);
      return {};
    }
    if (given[it->second]) return makeError("artifact input given twice: " + name);
    given[it->second] = &t;
    return {};
  };
  for (const NamedTensor& n : inputs.named)
    if (Status s = give(n.key, n.tensor); !s) return s.error();
  for (const auto& [logical, sparse] : inputs.sparse) {
    // X19: three consecutive arguments <p>_coords, <p>_features, <p>_active, or exactly
    // coords, features, active for the logical name `input`.
    const std::string prefix = logical == "input" && byName.count("coords") ? "" : logical + "_";
    const auto it = byName.find(prefix + "coords");
    const bool ok = it != byName.end() && it->second + 2 < args.size() &&
                    args[it->second + 1].abiName == prefix + "features" && args[it->second + 2].abiName == prefix + "active";
    if (!ok)
      return makeError("SparseTensor shorthand requires consecutive inputs named " + logical + "_coords, " + logical +
                       "_features and " + logical + "_active (or coords, features and active for 'input'); the artifact "
                       "has no such inputs for '" + logical + "'");
    for (const auto& [suffix, tensor] : {std::pair<const char*, const TensorData*>{"coords", &sparse.coords},
                                         {"features", &sparse.features},
                                         {"active", &sparse.active}})
      if (Status s = give(prefix + suffix, *tensor); !s) return s.error();
  }
  if (!unexpected.empty()) {
    std::string list;
    for (const std::string& u : unexpected) list += (list.empty() ? "" : ", ") + u;
    return makeError("unexpected artifact inputs: " + list);
  }
  std::vector<Tensor> bound;
  bound.reserve(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!given[i]) return makeError("missing artifact input: " + args[i].abiName);
    Expected<Tensor> t = bindOne(args[i], *given[i]);
    if (!t) return t.error();
    bound.push_back(std::move(*t));
  }
  return bound;
}

Expected<RuntimeInputs> RuntimeInputs::fromFile(const SafetensorsFile& file) {
  RuntimeInputs inputs;
  std::map<std::string, SparseInput> sparse;
  std::map<std::string, int> parts;
  for (const NamedTensor& t : file.tensors()) {
    const auto dot = t.key.rfind('.');
    const std::string suffix = dot == std::string::npos ? "" : t.key.substr(dot + 1);
    if (suffix == "coords" || suffix == "features" || suffix == "active") {
      const std::string logical = t.key.substr(0, dot);
      SparseInput& s = sparse[logical];
      (suffix == "coords" ? s.coords : suffix == "features" ? s.features : s.active) = t.tensor;
      ++parts[logical];
      continue;
    }
    inputs.named.push_back(t);
  }
  for (auto& [logical, s] : sparse) {
    if (parts[logical] != 3)
      return makeError(file.name() + ": sparse input '" + logical + "' needs " + logical + ".coords, " + logical +
                       ".features and " + logical + ".active");
    inputs.sparse.emplace_back(logical, std::move(s));
  }
  return inputs;
}

} // namespace lattice::runtime
