// `lattice.weight` and the prepared forms of weights (lattice-artifact-validation.md sec. 8
// X1-X5, X8; sec. 10.4 `weight`; lattice-artifact-format.md sec. 13.3 dequantization). The weight
// op only finds its stored tensors; the consumer asks for the form it computes with, which is
// where C_in and the kernel volume are known, and the result is kept per weight op for later
// runs.

#include "runtime/OpContext.h"

#include "lowering/WeightPacking.h"
#include "tensor/TensorConvert.h"

#include <cstdint>
#include <cstring>
#include <iterator>

namespace lattice::runtime {

namespace {

enum Form { ConvForm = 1, LinearForm, VectorForm, EmbeddingForm };

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::vector<float> floatsOf(const TensorData& t, const std::string& key) {
  Expected<std::vector<float>> v = toFloatVector(t);
  if (!v) fail("weight '" + key + "': " + v.message());
  return std::move(*v);
}

// X5: the invariants of a packed weight that dequantization does not check itself.
void checkQuantized(const WeightRef& w) {
  const std::int64_t g = w.packing.groupSize;
  if (g != 32 && g != 64 && g != 128)
    fail("quantized artifact weight '" + w.key + "' group_size must be 32, 64, or 128, got " + std::to_string(g) + ".");
  if (w.codes.dtype() != DType::U32 || w.codes.shape().size() != 3)
    fail("quantized artifact weight '" + w.key + ".weight' must be a rank-3 U32 tensor, got " +
         std::string(dtypeName(w.codes.dtype())) + " " + shapeText(w.codes.shape()) + ".");
  if (w.biases.dtype() != w.scales.dtype() || w.biases.shape() != w.scales.shape())
    fail("quantized artifact weight '" + w.key + "' biases must have the dtype and shape of its scales.");
}

// Dequantizes a packed weight to `logicalShape` (F32), as the consumer sees it.
std::vector<float> dequantize(const WeightRef& w, const std::vector<std::int64_t>& logicalShape) {
  checkQuantized(w);
  QuantizedWeight packed{w.codes, w.scales, w.biases};
  Expected<TensorData> dense = dequantizeAffine(packed, w.bits(), static_cast<int>(w.packing.groupSize), logicalShape);
  if (!dense) fail("quantized artifact weight '" + w.key + "': " + dense.message());
  std::vector<float> out(static_cast<std::size_t>(dense->numel()));
  if (!out.empty()) std::memcpy(out.data(), dense->data(), out.size() * sizeof(float));
  return out;
}

std::shared_ptr<const std::vector<float>> cached(OpContext& ctx, const WeightCache::Key& key) {
  return ctx.weights.find(key);
}

std::shared_ptr<const std::vector<float>> keep(OpContext& ctx, const WeightCache::Key& key, std::vector<float> values) {
  auto shared = std::make_shared<const std::vector<float>>(std::move(values));
  ctx.weights.put(key, shared);
  return shared;
}

} // namespace

std::shared_ptr<const std::vector<float>> WeightCache::find(const Key& key) const {
  const auto it = m_entries.find(key);
  return it == m_entries.end() ? nullptr : it->second;
}

void WeightCache::put(const Key& key, std::shared_ptr<const std::vector<float>> values) {
  m_entries[key] = std::move(values);
}

void WeightCache::erase(int op) {
  for (auto it = m_entries.begin(); it != m_entries.end();)
    it = std::get<0>(it->first) == op ? m_entries.erase(it) : std::next(it);
}

void runWeight(OpContext& ctx) {
  WeightRef w;
  w.op = ctx.opIndex;
  w.key = ctx.op.text("storage_key");
  w.layout = ctx.op.text("layout");
  w.family = ctx.resultType(0).family;
  if (const ArtifactAttrValue* p = ctx.op.attr("packing")) w.packing = p->packing;
  if (!w.quantized()) {
    const TensorData* t = ctx.weightSource.find(w.key);
    if (!t) fail("artifact weight not found: " + w.key); // X1
    if (t->dtype() != DType::F32 && t->dtype() != DType::F16)
      fail("artifact weight '" + w.key + "' must be F32 or F16, got " + std::string(dtypeName(t->dtype())) + ".");
    w.dense = *t;
  } else {
    const TensorData* codes = ctx.weightSource.find(w.key + ".weight");
    const TensorData* scales = ctx.weightSource.find(w.key + ".scales");
    const TensorData* biases = ctx.weightSource.find(w.key + ".biases");
    if (!codes || !scales || !biases) // X2
      fail("quantized artifact weight requires " + w.key + ".weight, " + w.key + ".scales, and " + w.key +
           ".biases tensors.");
    const DType expected = w.packing.scaleDtype == "f16" ? DType::F16 : DType::F32;
    if (scales->dtype() != expected) // X3
      fail("quantized artifact scales dtype mismatch: expected " + std::string(dtypeName(expected)) + ", found " +
           std::string(dtypeName(scales->dtype())) + ".");
    w.codes = *codes;
    w.scales = *scales;
    w.biases = *biases;
  }
  ctx.results[0] = std::move(w);
}

ConvWeightView convWeight(OpContext& ctx, const WeightRef& w, std::int64_t volume, std::int64_t inChannels) {
  if (w.layout != "conv3d_o_xyz_i") fail("conv3d artifact weight must use conv3d_o_xyz_i layout."); // X4
  ConvWeightView view;
  const std::int64_t K = volume, cin = inChannels;
  bool kernelMajor = false; // the runtime's (K, C_in, C_out) form, re-laid once
  if (w.quantized()) {
    const std::vector<std::int64_t>& shape = w.codes.shape();
    if (shape.size() != 3 || shape[0] != volume) fail("packed artifact weight kernel rows do not match consumer kernel_size.");
    checkQuantized(w);
    view.outChannels = volume == 1 ? shape[1] : shape[2];
  } else {
    const std::vector<std::int64_t>& shape = w.dense.shape();
    std::int64_t k = 0, c = 0;
    if (shape.size() == 5) {
      view.outChannels = shape[0];
      k = shape[1] * shape[2] * shape[3];
      c = shape[4];
    } else if (shape.size() == 3) {
      k = shape[0];
      c = shape[1];
      view.outChannels = shape[2];
      kernelMajor = true;
    } else {
      fail("conv3d artifact weight '" + w.key + "' must have rank 5 (C_out, Kx, Ky, Kz, C_in), got " + shapeText(shape) + ".");
    }
    if (k != volume) fail("weight kernel rows must match the convolution kernel."); // X8
    if (c != inChannels) fail("weight input channels must match x.channels.");
    const bool aligned = reinterpret_cast<std::uintptr_t>(w.dense.data()) % alignof(float) == 0;
    if (!kernelMajor && w.dense.dtype() == DType::F32 && aligned) { // in place
      view.data = reinterpret_cast<const float*>(w.dense.data());
      view.owner = std::make_shared<const TensorData>(w.dense);
      return view;
    }
  }
  const std::int64_t cout = view.outChannels;
  const WeightCache::Key key{w.op, ConvForm, volume, inChannels};
  std::shared_ptr<const std::vector<float>> values = cached(ctx, key);
  if (!values) {
    std::vector<float> oki;
    if (w.quantized()) {
      oki = dequantize(w, {cout, K, 1, 1, cin}); // rank 5 rows: (C_out, K, C_in)
    } else if (kernelMajor) {
      const std::vector<float> kio = floatsOf(w.dense, w.key);
      oki.resize(kio.size());
      for (std::int64_t o = 0; o < cout; ++o)
        for (std::int64_t k = 0; k < K; ++k)
          for (std::int64_t i = 0; i < cin; ++i) oki[(o * K + k) * cin + i] = kio[(k * cin + i) * cout + o];
    } else {
      oki = floatsOf(w.dense, w.key);
    }
    values = keep(ctx, key, std::move(oki));
  }
  view.data = values->data();
  view.owner = values;
  return view;
}

std::shared_ptr<const std::vector<float>> linearWeight(OpContext& ctx, const WeightRef& w, std::int64_t inChannels,
                                                       std::int64_t* outChannels) {
  if (w.layout != "linear_o_i") fail("linear artifact weight must use linear_o_i layout."); // X4
  std::int64_t cout = 0;
  if (w.quantized()) {
    const std::vector<std::int64_t>& shape = w.codes.shape();
    if (shape.size() != 3 || shape[0] != 1) fail("packed artifact weight kernel rows do not match consumer kernel_size.");
    checkQuantized(w);
    cout = shape[1];
  } else {
    const std::vector<std::int64_t>& shape = w.dense.shape();
    if (shape.size() != 2) fail("linear artifact weight '" + w.key + "' must have rank 2, got " + shapeText(shape) + ".");
    if (shape[1] != inChannels)
      fail("linear weight input channels " + std::to_string(shape[1]) + " do not match the input's " +
           std::to_string(inChannels) + ".");
    cout = shape[0];
  }
  *outChannels = cout;
  const WeightCache::Key key{w.op, LinearForm, inChannels, 0};
  if (auto hit = cached(ctx, key)) return hit;
  return keep(ctx, key, w.quantized() ? dequantize(w, {cout, inChannels}) : floatsOf(w.dense, w.key));
}

std::shared_ptr<const std::vector<float>> vectorWeight(OpContext& ctx, const WeightRef& w, std::int64_t channels,
                                                       const char* what) {
  if (w.quantized()) fail(std::string(what) + " weight '" + w.key + "' must use dense packing.");
  const std::vector<std::int64_t>& shape = w.dense.shape();
  if (shape.size() != 1 || (channels >= 0 && shape[0] != channels))
    fail(std::string(what) + " channels must match output channels.");
  const WeightCache::Key key{w.op, VectorForm, shape[0], 0};
  if (auto hit = cached(ctx, key)) return hit;
  return keep(ctx, key, floatsOf(w.dense, w.key));
}

std::shared_ptr<const std::vector<float>> embeddingWeight(OpContext& ctx, const WeightRef& w, std::int64_t* rows,
                                                          std::int64_t* channels) {
  if (w.quantized()) fail("embedding weight '" + w.key + "' must use dense packing.");
  const std::vector<std::int64_t>& shape = w.dense.shape();
  if (shape.size() != 2) fail("embedding weight must have rank 2."); // X17
  *rows = shape[0];
  *channels = shape[1];
  const WeightCache::Key key{w.op, EmbeddingForm, 0, 0};
  if (auto hit = cached(ctx, key)) return hit;
  return keep(ctx, key, floatsOf(w.dense, w.key));
}

} // namespace lattice::runtime
