// bindInputs (X19) and RuntimeInputs::fromFile. An inputs file is trusted no more than any other:
// its tensors are views of a mapped, bounds-checked safetensors file, and each is checked
// against its argument's declared type before a converted copy is made. The active coordinates
// of a sparse input must be unique (sec. 10.1; the relations look up one row per coordinate):
// a repeated one is refused here, naming both rows.

#include "runtime/InputBinding.h"

#include "tensor/TensorConvert.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace lattice::runtime {

namespace {

/// An error about artifact input `abiName`.
Error inputError(const std::string& abiName, std::string message) {
  Error error = makeError(std::move(message));
  error.input = abiName;
  return error;
}

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
  if (!type.isRankedTensor())
    return inputError(arg.abiName,
                      name + ": the runtime binds ranked tensors, the argument is " + type.str());
  const std::optional<DType> want = elementDType(type.elementType);
  if (!want)
    return inputError(arg.abiName,
                      name + ": unsupported element type " + type.elementType + " in " + type.str());
  if (data.dtype() != *want)
    return inputError(arg.abiName, name + " must be " + std::string(dtypeName(*want)) + " (" + type.str() +
                                       "), got " + std::string(dtypeName(data.dtype())));
  bool shapeOk = data.shape().size() == type.shape.size();
  for (std::size_t i = 0; shapeOk && i < type.shape.size(); ++i)
    shapeOk = type.shape[i] == kDynamicExtent || type.shape[i] == data.shape()[i];
  if (!shapeOk)
    return inputError(arg.abiName,
                      name + " has shape " + shapeText(data.shape()) + ", expected " + type.str());
  Expected<Tensor> t = tensorFromData(data);
  if (!t) return inputError(arg.abiName, name + ": " + t.message());
  return t;
}

// The first active row of `coords` (n × 4, physical) that repeats an earlier one, as an error
// naming `name`, both rows and the coordinate. Rows outside the i32 range are left to sparse.make,
// which refuses them.
Status checkUniqueRows(const std::string& name, const std::vector<std::int64_t>& coords, std::int64_t n) {
  auto i32 = [](std::int64_t v) {
    return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
  };
  auto half = [](std::int64_t a, std::int64_t b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  };
  absl::flat_hash_map<std::pair<std::uint64_t, std::uint64_t>, std::int64_t> first;
  first.reserve(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t* c = coords.data() + 4 * r;
    if (!i32(c[0]) || !i32(c[1]) || !i32(c[2]) || !i32(c[3])) continue;
    const auto [it, added] = first.try_emplace(std::make_pair(half(c[0], c[1]), half(c[2], c[3])), r);
    if (!added)
      return inputError(name, "input '" + name + "' repeats coordinate (" + std::to_string(c[0]) + ", " +
                                  std::to_string(c[1]) + ", " + std::to_string(c[2]) + ", " +
                                  std::to_string(c[3]) + ") in active rows " + std::to_string(it->second) +
                                  " and " + std::to_string(r) + ": active coordinates must be unique");
  }
  return {};
}

// Every sparse input's active coordinates, found through the sparse.make ops that read argument
// coordinates and an argument active count.
Status checkUniqueCoordinates(const RuntimePlan& plan, const std::vector<Tensor>& bound) {
  std::vector<int> argOfSlot(plan.slotNames.size(), -1);
  for (std::size_t i = 0; i < plan.args.size(); ++i)
    if (plan.args[i].slot >= 0 && static_cast<std::size_t>(plan.args[i].slot) < argOfSlot.size())
      argOfSlot[static_cast<std::size_t>(plan.args[i].slot)] = static_cast<int>(i);
  auto argOf = [&](int slot) {
    return slot >= 0 && static_cast<std::size_t>(slot) < argOfSlot.size() ? argOfSlot[static_cast<std::size_t>(slot)] : -1;
  };
  std::set<std::pair<int, int>> checked;
  for (const PlanOp& op : plan.ops) {
    if (op.kind != OpKind::SparseMake || op.operands.size() < 3) continue;
    const int c = argOf(op.operands[0]), a = argOf(op.operands[2]);
    if (c < 0 || a < 0 || !checked.insert({c, a}).second) continue;
    const Tensor& coords = bound[static_cast<std::size_t>(c)];
    const Tensor& active = bound[static_cast<std::size_t>(a)];
    // Malformed ones are sparse.make's to refuse.
    if (!coords.ints || coords.shape.size() != 2 || coords.shape[1] != 4 || !active.ints || active.ints->empty())
      continue;
    const std::int64_t n = std::clamp<std::int64_t>(active.ints->front(), 0, coords.shape[0]);
    if (Status s = checkUniqueRows(plan.args[static_cast<std::size_t>(c)].abiName, *coords.ints, n); !s) return s;
  }
  return {};
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
    if (given[it->second]) return inputError(name, "artifact input given twice: " + name);
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
    // The first names in order, then a count: a file of a million unknown names gives one line.
    constexpr std::size_t kListed = 10;
    std::string list;
    std::size_t listed = 0;
    for (auto it = unexpected.begin(); it != unexpected.end() && listed < kListed; ++it, ++listed)
      list += (list.empty() ? "" : ", ") + *it;
    if (unexpected.size() > listed) list += ", … and " + std::to_string(unexpected.size() - listed) + " more";
    return makeError("unexpected artifact inputs: " + list);
  }
  std::vector<Tensor> bound;
  bound.reserve(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!given[i]) return inputError(args[i].abiName, "missing artifact input: " + args[i].abiName);
    Expected<Tensor> t = bindOne(args[i], *given[i]);
    if (!t) return t.error();
    bound.push_back(std::move(*t));
  }
  if (Status s = checkUniqueCoordinates(plan, bound); !s) return s.error();
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
