// verifyArtifactWeights: graph.mlir against weights.safetensors. Reference rules: every storage
// key has its tensor(s) and no tensor is unreferenced (validation spec IO6), quantized weights
// have `.weight`/`.scales`/`.biases` with the packing's scale dtype (X2, X3) and kernel rows
// matching the consumer (X4, X5). Extensions (format spec sec. 11, 13.2, 13.3; validation X8):
// dense dtypes F32/F16 equal to the weight type's dtype, ranks per layout, packed shapes
// consistent with bits and group_size, and dense shapes against the consuming ops' kernel_size
// and declared result widths; the channel counts the runtime checks are followed along the graph
// by ChannelFlow (VerifyChannels.cpp). It does not dequantize and reads no tensor data.

#include "verify/VerifyWeightsSupport.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

namespace lattice {
namespace {

using detail::DiagnosticSink;
using detail::shapeText;

using detail::WeightInfo;

std::string keyText(const std::string& key) {
  return detail::weightKeyText(key);
}

// a·b·c without overflow (saturating at the int64 maximum): shapes and kernel sizes are input.
std::int64_t product(std::int64_t a, std::int64_t b, std::int64_t c = 1) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out) || __builtin_mul_overflow(out, c, &out))
    return std::numeric_limits<std::int64_t>::max();
  return out;
}

std::size_t layoutRank(const std::string& layout) {
  if (layout == "conv3d_o_xyz_i") return 5;
  if (layout == "linear_o_i" || layout == "embedding_n_c") return 2;
  if (layout == "channel_c" || layout == "bias_c") return 1;
  return 0;
}

class WeightChecker {
public:
  WeightChecker(const WeightLookup& find, DiagnosticSink& sink) : m_find(find), m_sink(sink) {}

  std::optional<WeightInfo> checkWeightOp(const ArtifactOp& op);
  void checkConsumer(const ArtifactOp& op, const std::unordered_map<std::string, WeightInfo>& bySsa);
  void checkUnreferenced(const SafetensorsFile& weights, const std::string& weightsFileName,
                         std::vector<Diagnostic>& out);

private:
  void checkDense(const ArtifactOp& op, const ArtifactType& type, const TensorData& t, WeightInfo& info);
  void checkQuantized(const ArtifactOp& op, const PackingAttr& packing, WeightInfo& info);
  void opError(const ArtifactOp& op, const std::string& message) {
    m_sink.error(op.loc, "'" + op.name + "' op " + message);
  }

  const WeightLookup& m_find;
  DiagnosticSink& m_sink;
  std::set<std::string> m_referenced;
};

std::optional<WeightInfo> WeightChecker::checkWeightOp(const ArtifactOp& op) {
  const ArtifactAttribute* key = op.attribute("storage_key");
  const ArtifactAttribute* layout = op.attribute("layout");
  const ArtifactAttribute* packing = op.attribute("packing");
  if (!key || !key->value.isString() || key->value.text.empty() || op.results.size() != 1 ||
      !op.results[0].type.isWeight())
    return std::nullopt; // the graph verifier reports these
  WeightInfo info;
  info.op = &op;
  info.key = key->value.text;
  info.layout = layout && layout->value.kind == ArtifactAttrValue::Kind::Enum ? layout->value.text : "";
  m_referenced.insert(info.key);
  const bool quantized = packing && packing->value.kind == ArtifactAttrValue::Kind::Packing &&
                         (packing->value.packing.kind == "int4" || packing->value.packing.kind == "int8");
  info.quantized = quantized;
  if (quantized) {
    checkQuantized(op, packing->value.packing, info);
  } else if (const TensorData* t = m_find(info.key)) {
    checkDense(op, op.results[0].type, *t, info);
  } else {
    m_sink.error(op.loc, "artifact weight is missing storage key " + keyText(info.key));
  }
  return info;
}

void WeightChecker::checkDense(const ArtifactOp& op, const ArtifactType& type, const TensorData& t,
                               WeightInfo& info) {
  const std::string stored(dtypeName(t.dtype()));
  if (t.dtype() != DType::F32 && t.dtype() != DType::F16)
    m_sink.error(op.loc,
                 "dense weight " + keyText(info.key) + " must be stored as F32 or F16, found " + stored);
  else if (type.dtype != dtypeMlirName(t.dtype()))
    m_sink.error(op.loc, "weight " + keyText(info.key) + " is stored as " + stored +
                             " but its type declares '" + type.dtype + "'");
  const std::size_t rank = layoutRank(info.layout);
  if (rank != 0 && t.shape().size() != rank) {
    m_sink.error(op.loc, "weight " + keyText(info.key) + " has shape " + shapeText(t.shape()) +
                             " but layout '" + info.layout + "' needs rank " + std::to_string(rank));
    return;
  }
  info.denseShape = t.shape();
  if (rank == 5) {
    info.outChannels = t.shape()[0];
    info.kernelRows = product(t.shape()[1], t.shape()[2], t.shape()[3]);
  } else if (info.layout == "linear_o_i") {
    info.outChannels = t.shape()[0];
    info.kernelRows = 1;
  }
}

void WeightChecker::checkQuantized(const ArtifactOp& op, const PackingAttr& packing, WeightInfo& info) {
  const std::string& key = info.key;
  const TensorData* packed = m_find(key + ".weight");
  const TensorData* scales = m_find(key + ".scales");
  const TensorData* biases = m_find(key + ".biases");
  if (!packed && !scales && !biases) {
    m_sink.error(op.loc, "artifact weight is missing storage key " + keyText(key));
    return;
  }
  if (!packed || !scales || !biases) {
    std::string missing;
    for (const auto& [suffix, t] : {std::pair<const char*, const TensorData*>{".weight", packed},
                                    {".scales", scales},
                                    {".biases", biases}})
      if (!t) missing += (missing.empty() ? "" : ", ") + keyText(key + suffix);
    m_sink.error(op.loc, "quantized artifact weight requires " + key + ".weight, " + key + ".scales, and " +
                             key + ".biases tensors (missing " + missing + ")");
    return;
  }
  bool shapesOk = true;
  if (packed->dtype() != DType::U32 || packed->shape().size() != 3) {
    m_sink.error(op.loc, "quantized weight " + keyText(key + ".weight") +
                             " must be a rank-3 U32 tensor, found " +
                             std::string(dtypeName(packed->dtype())) + " " + shapeText(packed->shape()));
    shapesOk = false;
  }
  const char* expected = packing.scaleDtype == "f16" ? "F16" : packing.scaleDtype == "f32" ? "F32" : nullptr;
  if (expected && dtypeName(scales->dtype()) != expected)
    m_sink.error(op.loc, "quantized artifact scales dtype mismatch: expected " + std::string(expected) +
                             ", found " + std::string(dtypeName(scales->dtype())) + " (" +
                             keyText(key + ".scales") + ")");
  if (scales->shape().size() != 3) {
    m_sink.error(op.loc, "quantized scales " + keyText(key + ".scales") + " must have rank 3, found " +
                             shapeText(scales->shape()));
    shapesOk = false;
  }
  if (biases->dtype() != scales->dtype() || biases->shape() != scales->shape()) {
    m_sink.error(
        op.loc, "quantized biases " + keyText(key + ".biases") + " must match the scales' dtype and shape (" +
                    std::string(dtypeName(biases->dtype())) + " " + shapeText(biases->shape()) + " vs " +
                    std::string(dtypeName(scales->dtype())) + " " + shapeText(scales->shape()) + ")");
    shapesOk = false;
  }
  const int bits = packing.kind == "int4" ? 4 : 8;
  if (!shapesOk || packing.groupSize <= 0) return;
  // Format spec sec. 13.3 step 7: (1, C_out, words) when K == 1, else (K, words, C_out).
  const std::vector<std::int64_t>& w = packed->shape();
  const std::vector<std::int64_t>& s = scales->shape();
  const std::int64_t k = w[0];
  const std::int64_t outChannels = k == 1 ? w[1] : w[2];
  const std::int64_t words = k == 1 ? w[2] : w[1];
  const std::vector<std::int64_t> groupsShape = k == 1 ? std::vector<std::int64_t>{1, outChannels, s[2]}
                                                       : std::vector<std::int64_t>{k, s[1], outChannels};
  const std::int64_t groups = k == 1 ? s[2] : s[1];
  const std::int64_t storage = product(words, 32) / bits;
  if (s != groupsShape) {
    m_sink.error(op.loc, "quantized scales " + keyText(key + ".scales") + " shape " + shapeText(s) +
                             " does not match the packed weight shape " + shapeText(w));
    return;
  }
  if (storage % packing.groupSize != 0 || groups != storage / packing.groupSize) {
    m_sink.error(op.loc, "quantized weight " + keyText(key) + " packs " + std::to_string(storage) +
                             " storage channels per row but its scales hold " + std::to_string(groups) +
                             " groups of " + std::to_string(packing.groupSize));
    return;
  }
  info.outChannels = outChannels;
  info.kernelRows = k;
  info.storageChannels = storage;
}

std::optional<std::int64_t> staticDim(const ArtifactType* t, std::size_t axis) {
  if (!t || !t->isRankedTensor() || t->tensorRank() <= axis || t->shape[axis] < 0) return std::nullopt;
  return t->shape[axis];
}

void WeightChecker::checkConsumer(const ArtifactOp& op,
                                  const std::unordered_map<std::string, WeightInfo>& bySsa) {
  if (!op.schema) return;
  // The weight operands of `op` by schema name.
  std::unordered_map<std::string, const WeightInfo*> weights;
  std::size_t index = 0;
  for (const SchemaOperand& o : op.schema->operands) {
    if (o.kind != SchemaOperandKind::Ssa) continue;
    if (index >= op.operands.size()) break;
    if (o.type == SchemaValueType::Weight) {
      const auto it = bySsa.find(op.operands[index].name);
      if (it != bySsa.end()) weights[o.name] = &it->second;
    }
    ++index;
  }
  if (weights.empty()) return;
  const auto get = [&](const char* name) -> const WeightInfo* {
    const auto it = weights.find(name);
    return it == weights.end() ? nullptr : it->second;
  };
  const ArtifactType* result = op.results.size() == 1 ? &op.results[0].type : nullptr;
  const WeightInfo* weight = get("weight");

  if (const ArtifactAttribute* kernel = op.attribute("kernel_size"); kernel && weight) {
    const I64Array& ks = kernel->value.i64s;
    if (kernel->value.kind == ArtifactAttrValue::Kind::I64Array && ks.size() == 3) {
      if (!weight->quantized && weight->denseShape.size() == 5 &&
          !(weight->denseShape[1] == ks[0] && weight->denseShape[2] == ks[1] &&
            weight->denseShape[3] == ks[2]))
        opError(op, "weight " + keyText(weight->key) + " shape " + shapeText(weight->denseShape) +
                        " does not match kernel_size " + shapeText(ks) + " (layout conv3d_o_xyz_i)");
      if (weight->quantized && weight->kernelRows && *weight->kernelRows != product(ks[0], ks[1], ks[2]))
        opError(op, "packed artifact weight kernel rows do not match consumer kernel_size (" +
                        keyText(weight->key) + " has " + std::to_string(*weight->kernelRows) +
                        ", kernel_size " + shapeText(ks) + ")");
    }
  }
  if (op.kind == OpKind::Linear && weight) {
    if (weight->quantized && weight->kernelRows && *weight->kernelRows != 1)
      opError(op, "packed artifact weight kernel rows do not match consumer kernel_size (" +
                      keyText(weight->key) + " has " + std::to_string(*weight->kernelRows) +
                      " rows, linear needs 1)");
    const std::optional<std::int64_t> outChannels = staticDim(result, 1);
    if (outChannels && weight->outChannels && *weight->outChannels != *outChannels)
      opError(op, "weight " + keyText(weight->key) + " has " + std::to_string(*weight->outChannels) +
                      " output channels but the result has " + std::to_string(*outChannels));
  }
  if (op.kind == OpKind::EmbeddingLookup && weight && weight->denseShape.size() == 2) {
    const std::optional<std::int64_t> channels = staticDim(result, 1);
    if (channels && weight->denseShape[1] != *channels)
      opError(op, "weight " + keyText(weight->key) + " has " + std::to_string(weight->denseShape[1]) +
                      " channels but the result has " + std::to_string(*channels));
  }
}

void WeightChecker::checkUnreferenced(const SafetensorsFile& weights, const std::string& weightsFileName,
                                      std::vector<Diagnostic>& out) {
  // A tensor is referenced when its key is a storage key or starts with `<storage key>.`
  // (IO6). Tensor keys sorted once; each storage key marks its exact match and its `key.` range.
  std::vector<std::string_view> keys;
  for (const NamedTensor& t : weights.tensors())
    keys.push_back(t.key);
  std::sort(keys.begin(), keys.end());
  std::vector<bool> referenced(keys.size(), false);
  for (const std::string& storageKey : m_referenced) {
    const std::string prefix = storageKey + ".";
    auto exact = std::lower_bound(keys.begin(), keys.end(), std::string_view(storageKey));
    if (exact != keys.end() && *exact == storageKey) referenced[std::size_t(exact - keys.begin())] = true;
    for (auto it = std::lower_bound(keys.begin(), keys.end(), std::string_view(prefix));
         it != keys.end() && it->substr(0, prefix.size()) == prefix; ++it)
      referenced[std::size_t(it - keys.begin())] = true;
  }
  std::string list;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (!referenced[i]) list += (list.empty() ? "" : ", ") + printableForMessage(keys[i]);
  if (!list.empty())
    out.push_back({weightsFileName, {}, Severity::Error, "artifact contains unreferenced weights: " + list});
}

} // namespace

namespace detail {
std::optional<WeightInfo> describeWeightOp(const ArtifactOp& op, const WeightLookup& find, DiagnosticSink& sink) {
  WeightChecker checker(find, sink);
  return checker.checkWeightOp(op);
}
} // namespace detail

std::vector<Diagnostic> verifyArtifactWeights(const ArtifactGraph& graph, const SafetensorsFile& weights,
                                              const std::string& weightsFileName) {
  std::vector<Diagnostic> out;
  DiagnosticSink sink(graph.fileName, out);
  const WeightLookup find = [&weights](const std::string& key) { return weights.find(key); };
  WeightChecker checker(find, sink);
  for (const ArtifactFunction& f : graph.functions) {
    std::unordered_map<std::string, WeightInfo> bySsa;
    detail::ChannelFlow channels(f, [&](const ArtifactOp& op, const std::string& message) {
      sink.error(op.loc, "'" + op.name + "' op " + message);
    });
    for (const ArtifactOp& op : f.ops) {
      if (op.schema && op.schema->assembly == SchemaAssembly::Weight) {
        if (std::optional<WeightInfo> info = checker.checkWeightOp(op))
          bySsa[op.results[0].name] = std::move(*info);
      } else {
        checker.checkConsumer(op, bySsa);
        channels.visit(op, bySsa);
      }
    }
  }
  checker.checkUnreferenced(weights, weightsFileName, out);
  return out;
}

} // namespace lattice
