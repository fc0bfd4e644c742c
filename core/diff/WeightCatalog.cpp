// WeightCatalog and logicalWeight: what the artifact diff knows about each storage key of one
// artifact. For quantized weights (lattice-artifact-format.md sec. 13.3) the stored codes give
// C_out, the kernel rows K and the padded storage columns, but not C_in; it comes from the
// consumer: a linear's input tensor type, or for convolutions the channel count of the input
// sparse value, propagated along the graph (sparse.make / with_features / voxelize features
// types, conv output channels from their weights, sparse.cat sums, decompose result types as a
// fallback). Dequantization itself is dequantizeAffine (core/lowering/WeightPacking.h), the
// project's one inverse of the writer's packing. Nothing here reads tensor data except
// logicalWeight.

#include "diff/DiffInternal.h"

#include "lowering/WeightPacking.h"
#include "tensor/TensorConvert.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lattice::diff_detail {

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

namespace {

std::optional<std::int64_t> lastStaticDim(const ArtifactType& type) {
  if (!type.isRankedTensor() || type.shape.empty() || type.shape.back() < 0) return std::nullopt;
  return type.shape.back();
}

std::string tensorText(const TensorData& t) {
  return std::string(dtypeName(t.dtype())) + " " + shapeText(t.shape());
}

std::string packingText(const PackingAttr& p) {
  if (p.kind == "dense") return "dense";
  return p.kind + " g" + std::to_string(p.groupSize) + " " + p.scaleDtype;
}

void describeStored(WeightEntry& e, const SafetensorsFile* file) {
  if (!e.quantized) {
    if (e.packing.kind != "dense") {
      e.form = packingText(e.packing);
      e.problem = "unknown packing '" + e.packing.kind + "'";
      return;
    }
    e.dense = file ? file->find(e.key) : nullptr;
    e.form = e.dense ? tensorText(*e.dense) : "dense";
    if (!file)
      e.problem = "no weights file";
    else if (!e.dense)
      e.problem = "missing from weights.safetensors";
    else if ((e.layout == "conv3d_o_xyz_i" || e.layout == "linear_o_i") && !e.dense->shape().empty())
      e.inChannels = e.dense->shape().back();
    return;
  }
  e.form = packingText(e.packing);
  if (!file) {
    e.problem = "no weights file";
    return;
  }
  e.codes = file->find(e.key + ".weight");
  e.scales = file->find(e.key + ".scales");
  e.biases = file->find(e.key + ".biases");
  e.form += e.codes ? " (" + tensorText(*e.codes) + ")" : " (missing)";
  for (const char* part : {".weight", ".scales", ".biases"})
    if (!file->find(e.key + part)) {
      e.problem = "'" + e.key + part + "' missing from weights.safetensors";
      return;
    }
  const std::vector<std::int64_t>& s = e.codes->shape();
  if (e.codes->dtype() != DType::U32 || s.size() != 3 || s[0] <= 0 || e.packing.groupSize <= 0) {
    e.problem = "quantized codes are not a rank-3 U32 tensor";
    return;
  }
  e.kernelRows = s[0];
  e.outChannels = e.kernelRows == 1 ? s[1] : s[2];
  e.storageColumns = (e.kernelRows == 1 ? s[2] : s[1]) * (32 / e.bits);
}

// Output channels of a conv weight, from its stored tensors.
std::optional<std::int64_t> convOutChannels(const WeightEntry& e) {
  if (e.quantized)
    return e.codes && e.problem.empty() ? std::optional<std::int64_t>(e.outChannels) : std::nullopt;
  if (e.dense && e.dense->shape().size() == 5) return e.dense->shape()[0];
  return std::nullopt;
}

} // namespace

WeightCatalog::WeightCatalog(const LoadedArtifact& artifact) {
  m_hasWeights = artifact.weights != nullptr;
  const ArtifactFunction* f = entryFunction(artifact.graph);
  if (!f) return;
  const SafetensorsFile* file = artifact.weights.get();

  // Weight ops, and their result values.
  std::vector<WeightEntry> entries;
  std::unordered_map<std::string, std::size_t> byValue;
  for (std::size_t i = 0; i < f->ops.size(); ++i) {
    const ArtifactOp& op = f->ops[i];
    if (op.kind != OpKind::Weight) continue;
    const ArtifactAttribute* key = op.attribute("storage_key");
    if (!key || !key->value.isString() || m_index.count(key->value.text)) continue;
    WeightEntry e;
    e.key = key->value.text;
    e.opIndex = static_cast<int>(i);
    if (const ArtifactAttribute* layout = op.attribute("layout")) e.layout = layout->value.text;
    if (!op.results.empty()) e.family = op.results.front().type.family;
    if (const ArtifactAttribute* packing = op.attribute("packing");
        packing && packing->value.kind == ArtifactAttrValue::Kind::Packing)
      e.packing = packing->value.packing;
    e.quantized = e.packing.kind == "int4" || e.packing.kind == "int8";
    e.bits = e.packing.kind == "int4" ? 4 : e.packing.kind == "int8" ? 8 : 0;
    describeStored(e, file);
    m_index.emplace(e.key, entries.size());
    if (!op.results.empty()) byValue.emplace(op.results.front().name, entries.size());
    entries.push_back(std::move(e));
  }

  // Channels of sparse values: decompose results first (a fallback), then forward rules.
  std::unordered_map<std::string, std::int64_t> hint, channels;
  for (const ArtifactOp& op : f->ops)
    if (op.kind == OpKind::SparseDecompose && op.results.size() == 3 && !op.operands.empty())
      if (auto c = lastStaticDim(op.results[1].type)) hint.emplace(op.operands[0].name, *c);
  auto channelsOf = [&](const std::string& value) -> std::optional<std::int64_t> {
    auto it = channels.find(value);
    if (it != channels.end()) return it->second;
    auto h = hint.find(value);
    return h == hint.end() ? std::nullopt : std::optional<std::int64_t>(h->second);
  };
  auto weightOperand = [&](const ArtifactOp& op, const char* layout) -> WeightEntry* {
    for (const ArtifactValueUse& use : op.operands) {
      auto it = byValue.find(use.name);
      if (it != byValue.end() && entries[it->second].layout == layout) return &entries[it->second];
    }
    return nullptr;
  };
  for (const ArtifactOp& op : f->ops) {
    if (op.results.empty() || !op.results.front().type.isSparse() || op.operands.empty()) continue;
    const OpKind kind = op.kind;
    std::optional<std::int64_t> c;
    if (kind == OpKind::SparseMake || kind == OpKind::SparseWithFeatures || kind == OpKind::Voxelize) {
      if (op.operandTypes.size() > 1) c = lastStaticDim(op.operandTypes[1]);
    } else if (kind == OpKind::SparseCat) {
      if (op.operands.size() == 2) {
        const auto l = channelsOf(op.operands[0].name), r = channelsOf(op.operands[1].name);
        if (l && r) c = *l + *r;
      }
    } else if (isConv(kind)) {
      if (const WeightEntry* w = weightOperand(op, "conv3d_o_xyz_i")) c = convOutChannels(*w);
    } else {
      c = channelsOf(op.operands[0].name); // pools, upsampling, reindex, binary: channels kept
    }
    if (!c) c = channelsOf(op.results.front().name);
    if (c) channels[op.results.front().name] = *c;
  }

  // C_in and kernel of quantized weights from their first consumer.
  std::vector<char> seen(entries.size(), 0);
  for (const ArtifactOp& op : f->ops) {
    for (std::size_t k = 0; k < op.operands.size(); ++k) {
      auto it = byValue.find(op.operands[k].name);
      if (it == byValue.end() || seen[it->second]) continue;
      seen[it->second] = 1;
      WeightEntry& e = entries[it->second];
      if (!e.quantized || op.operands.empty()) continue;
      if (e.layout == "linear_o_i") {
        if (!op.operandTypes.empty()) e.inChannels = lastStaticDim(op.operandTypes[0]);
      } else if (e.layout == "conv3d_o_xyz_i") {
        e.inChannels = channelsOf(op.operands[0].name);
        const ArtifactAttribute* ks = op.attribute("kernel_size");
        if (ks && ks->value.kind == ArtifactAttrValue::Kind::I64Array && ks->value.i64s.size() == 3) {
          const std::vector<std::int64_t>& v = ks->value.i64s;
          if (v[0] > 0 && v[1] > 0 && v[2] > 0 && v[0] * v[1] * v[2] == e.kernelRows) e.kernel = v;
        }
      }
      if (e.inChannels && (*e.inChannels <= 0 || *e.inChannels > e.storageColumns)) e.inChannels.reset();
    }
  }

  // Sorted by key; the index follows.
  std::sort(entries.begin(), entries.end(),
            [](const WeightEntry& x, const WeightEntry& y) { return x.key < y.key; });
  m_index.clear();
  for (std::size_t i = 0; i < entries.size(); ++i)
    m_index.emplace(entries[i].key, i);
  m_entries = std::move(entries);
}

const WeightEntry* WeightCatalog::find(const std::string& key) const {
  auto it = m_index.find(key);
  return it == m_index.end() ? nullptr : &m_entries[it->second];
}

std::vector<std::int64_t> logicalShape(const WeightEntry& e, std::optional<std::int64_t> inChannelsHint) {
  if (!e.problem.empty()) return {};
  if (!e.quantized) return e.dense ? e.dense->shape() : std::vector<std::int64_t>{};
  std::int64_t in = e.storageColumns;
  if (e.inChannels)
    in = *e.inChannels;
  else if (inChannelsHint && *inChannelsHint > 0 && *inChannelsHint <= e.storageColumns)
    in = *inChannelsHint;
  if (e.layout == "conv3d_o_xyz_i") {
    const std::vector<std::int64_t> k = e.kernel ? *e.kernel : std::vector<std::int64_t>{e.kernelRows, 1, 1};
    return {e.outChannels, k[0], k[1], k[2], in};
  }
  if (e.kernelRows == 1) return {e.outChannels, in};
  return {e.kernelRows, in, e.outChannels}; // the kernel-major row view of sec. 13.3 step 1
}

Expected<LogicalWeight> logicalWeight(const WeightEntry& e, std::optional<std::int64_t> inChannelsHint) {
  const std::string context = "weight '" + e.key + "': ";
  if (!e.problem.empty()) return makeError(context + e.problem);
  LogicalWeight out;
  if (!e.quantized) {
    Expected<std::vector<float>> values = toFloatVector(*e.dense);
    if (!values) return makeError(context + values.message());
    out.values = std::move(*values);
    out.shape = e.dense->shape();
    return out;
  }
  out.shape = logicalShape(e, inChannelsHint);
  const bool hinted = inChannelsHint && *inChannelsHint > 0 && *inChannelsHint <= e.storageColumns;
  if (!e.inChannels && !hinted)
    out.note = "input channels unknown: compared the " + std::to_string(e.storageColumns) +
               " padded storage columns";
  QuantizedWeight packed{*e.codes, *e.scales, *e.biases};
  Expected<TensorData> dense =
      dequantizeAffine(packed, e.bits, static_cast<int>(e.packing.groupSize), out.shape);
  if (!dense) return makeError(context + dense.message());
  out.values.resize(static_cast<std::size_t>(dense->numel()));
  if (!out.values.empty()) std::memcpy(out.values.data(), dense->data(), out.values.size() * sizeof(float));
  return out;
}

} // namespace lattice::diff_detail
