// Affine group quantization (lattice-artifact-format.md §13.3, lowering.md §5.7) and its inverse,
// in plain C++: every step is scalar IEEE float32 arithmetic with round-half-even, which is what
// the reference's torch ops compute, so no LibTorch is needed here. The f32 -> f16 cast of
// scales and biases goes through toDType (DTypeConversion.cpp); the conv re-layout is in
// WeightRelayout.cpp.

#include "lowering/WeightPacking.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

namespace lattice {
namespace {

// The row view of format §13.3 step 1: R[k·C_out + o, i].
struct RowView {
  int rank = 0;
  int64_t kernelRows = 1; // K
  int64_t outChannels = 0;
  int64_t inChannels = 0;

  // Offset of R[k·C_out + o, i] in the logical row-major tensor.
  int64_t offset(int64_t k, int64_t o, int64_t i) const {
    switch (rank) {
    case 2: return o * inChannels + i;
    case 3: return (k * inChannels + i) * outChannels + o;
    default: return (o * kernelRows + k) * inChannels + i; // (kx, ky, kz) flatten to k, z fastest
    }
  }
};

// Round half to even of a float as std::nearbyint does in the default rounding mode, without the
// libm call: adding and subtracting 1.5·2^23 leaves the nearest integer (ties to even) for
// |v| < 2^22. Larger magnitudes come back unchanged or still large, so after the clamp to
// [0, qmax] the code is the same as with nearbyint for every finite v.
inline float roundHalfEven(float v) {
  constexpr float kMagic = 12582912.0f; // 1.5 · 2^23
  // Without -ffast-math (never used here) the compiler may not fold this into v.
  return (v + kMagic) - kMagic;
}

std::optional<RowView> rowView(const std::vector<int64_t>& shape) {
  RowView v;
  v.rank = static_cast<int>(shape.size());
  if (shapeNumel(shape) < 0)
    return std::nullopt;
  switch (v.rank) {
  case 2: v.outChannels = shape[0]; v.inChannels = shape[1]; return v;
  case 3: v.kernelRows = shape[0]; v.inChannels = shape[1]; v.outChannels = shape[2]; return v;
  case 5:
    v.outChannels = shape[0];
    v.kernelRows = shape[1] * shape[2] * shape[3];
    v.inChannels = shape[4];
    return v;
  default: return std::nullopt;
  }
}

Status checkOptions(int bits, int groupSize) {
  if (bits != 4 && bits != 8)
    return makeError("artifact weight bits must be 4 or 8");
  if (groupSize <= 0)
    return makeError("artifact weight group_size must be positive");
  return {};
}

Status checkWholeWords(int bits, int groupSize) {
  // The reference reshapes each row into whole words; a group size that leaves a partial word
  // cannot be packed.
  if ((static_cast<int64_t>(groupSize) * bits) % 32 != 0)
    return makeError("artifact weight group_size " + std::to_string(groupSize) +
                     " does not fill whole 32-bit words at " + std::to_string(bits) + " bits");
  return {};
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < shape.size(); ++i)
    out << (i ? ", " : "") << shape[i];
  out << ']';
  return out.str();
}

TensorData ownedFloats(std::vector<int64_t> shape, const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::copy_n(reinterpret_cast<const uint8_t*>(values.data()), bytes.size(), bytes.data());
  return TensorData::owning(DType::F32, std::move(shape), std::move(bytes));
}

// Lays out per-row values [(k·C_out + o) · n + j] as (1, C_out, n) for K == 1, else
// (K, n, C_out), the K > 1 transpose of step 7.
template <typename T>
std::vector<T> finalLayout(const std::vector<T>& rows, int64_t k, int64_t out, int64_t n) {
  if (k == 1)
    return rows;
  std::vector<T> result(rows.size());
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t o = 0; o < out; ++o)
      for (int64_t j = 0; j < n; ++j)
        result[(kk * n + j) * out + o] = rows[(kk * out + o) * n + j];
  return result;
}

std::vector<int64_t> finalShape(int64_t k, int64_t out, int64_t n) {
  return k == 1 ? std::vector<int64_t>{1, out, n} : std::vector<int64_t>{k, n, out};
}

} // namespace

std::string torchDTypeName(DType dtype) {
  switch (dtype) {
  case DType::Bool: return "torch.bool";
  case DType::U8: return "torch.uint8";
  case DType::I8: return "torch.int8";
  case DType::I16: return "torch.int16";
  case DType::U16: return "torch.uint16";
  case DType::F16: return "torch.float16";
  case DType::BF16: return "torch.bfloat16";
  case DType::I32: return "torch.int32";
  case DType::U32: return "torch.uint32";
  case DType::F32: return "torch.float32";
  case DType::F64: return "torch.float64";
  case DType::I64: return "torch.int64";
  case DType::U64: return "torch.uint64";
  }
  return "torch.unknown";
}

Expected<std::string> artifactWeightDTypeName(DType dtype) {
  if (dtype == DType::F16)
    return std::string("f16");
  if (dtype == DType::F32)
    return std::string("f32");
  return makeError("unsupported tensor dtype for lattice artifact: " + torchDTypeName(dtype));
}

Expected<QuantizedWeight> quantizeAffine(const TensorData& logical, int bits, int groupSize,
                                         DType scaleDtype) {
  if (Status s = checkOptions(bits, groupSize); !s)
    return s.error();
  if (scaleDtype != DType::F16 && scaleDtype != DType::F32)
    return makeError("artifact scale_dtype must be 'f16' or 'f32'");
  if (Status s = checkWholeWords(bits, groupSize); !s)
    return s.error();
  Expected<std::string> dtypeName = artifactWeightDTypeName(logical.dtype());
  if (!dtypeName)
    return dtypeName.error();
  const std::optional<RowView> view = rowView(logical.shape());
  if (!view)
    return makeError("quantized artifact supports linear, kernel-major, and 5D convolution weights");
  Expected<TensorData> asFloat = toDType(logical, DType::F32);
  if (!asFloat)
    return asFloat.error();
  const float* src = asFloat->as<float>();

  const int64_t K = view->kernelRows, out = view->outChannels, in = view->inChannels;
  const int64_t G = groupSize;
  const int64_t storage = (in + G - 1) / G * G; // S
  const int64_t groups = storage / G;
  const int64_t perWord = 32 / bits;
  const int64_t words = storage / perWord;
  const float qmax = static_cast<float>((1 << bits) - 1);

  std::vector<uint32_t> packed(static_cast<std::size_t>(K * out * words), 0);
  std::vector<float> scales(static_cast<std::size_t>(K * out * groups));
  std::vector<float> biases(scales.size());
  std::vector<float> row(static_cast<std::size_t>(storage), 0.0f);
  std::vector<uint32_t> codes(static_cast<std::size_t>(G));
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t o = 0; o < out; ++o) {
      const int64_t r = k * out + o;
      for (int64_t i = 0; i < in; ++i) {
        row[i] = src[view->offset(k, o, i)];
        if (!std::isfinite(row[i]))
          return makeError("quantized artifact weight contains non-finite values");
      }
      for (int64_t g = 0; g < groups; ++g) {
        const float* group = row.data() + g * G;
        const auto [mnIt, mxIt] = std::minmax_element(group, group + G);
        const float mn = *mnIt, mx = *mxIt;
        const float scale = (mn - mx) / qmax; // <= 0; code 0 is the max
        const float bias = mx;
        scales[r * groups + g] = scale;
        biases[r * groups + g] = bias;
        if (scale != 0.0f) {
          for (int64_t j = 0; j < G; ++j)
            codes[j] = static_cast<uint32_t>(
                std::min(std::max(roundHalfEven((group[j] - bias) / scale), 0.0f), qmax));
        } else {
          std::fill(codes.begin(), codes.end(), 0u);
        }
        // Groups fill whole words (checkWholeWords), so group g starts word g·G/perWord.
        uint32_t* word = packed.data() + r * words + g * G / perWord;
        for (int64_t j = 0; j < G; j += perWord, ++word) {
          uint32_t packedWord = 0;
          for (int64_t l = 0; l < perWord; ++l)
            packedWord |= codes[j + l] << (bits * l);
          *word = packedWord;
        }
      }
    }
  }

  const std::vector<uint32_t> packedOut = finalLayout(packed, K, out, words);
  std::vector<uint8_t> packedBytes(packedOut.size() * sizeof(uint32_t));
  std::copy_n(reinterpret_cast<const uint8_t*>(packedOut.data()), packedBytes.size(),
              packedBytes.data());
  QuantizedWeight result;
  result.weight =
      TensorData::owning(DType::U32, finalShape(K, out, words), std::move(packedBytes));
  // Step 6: the cast to the scale dtype comes after the codes were computed from f32 values.
  Expected<TensorData> s =
      toDType(ownedFloats(finalShape(K, out, groups), finalLayout(scales, K, out, groups)),
              scaleDtype);
  Expected<TensorData> b =
      toDType(ownedFloats(finalShape(K, out, groups), finalLayout(biases, K, out, groups)),
              scaleDtype);
  if (!s)
    return s.error();
  if (!b)
    return b.error();
  result.scales = std::move(*s);
  result.biases = std::move(*b);
  return result;
}

Expected<TensorData> dequantizeAffine(const QuantizedWeight& packed, int bits, int groupSize,
                                      const std::vector<int64_t>& logicalShape) {
  if (Status s = checkOptions(bits, groupSize); !s)
    return s.error();
  if (Status s = checkWholeWords(bits, groupSize); !s)
    return s.error();
  const std::optional<RowView> view = rowView(logicalShape);
  if (!view)
    return makeError("unsupported quantized artifact weight rank");
  const int64_t K = view->kernelRows, out = view->outChannels, in = view->inChannels;
  const int64_t G = groupSize, perWord = 32 / bits;

  const TensorData& w = packed.weight;
  if (w.dtype() != DType::U32 || w.shape().size() != 3)
    return makeError("quantized weight codes must be a rank-3 U32 tensor, got " +
                     std::string(dtypeName(w.dtype())) + " " + shapeText(w.shape()));
  const int64_t words = K == 1 ? w.shape()[2] : w.shape()[1];
  const int64_t storage = words * perWord;
  const int64_t groups = storage / G;
  if (w.shape() != finalShape(K, out, words))
    return makeError("quantized weight codes have shape " + shapeText(w.shape()) + ", expected " +
                     shapeText(finalShape(K, out, words)) + " for logical shape " +
                     shapeText(logicalShape));
  if (storage % G != 0 || storage < in)
    return makeError("quantized weight codes hold " + std::to_string(storage) +
                     " columns, which does not fit " + std::to_string(in) +
                     " input channels in groups of " + std::to_string(G));
  for (const TensorData* t : {&packed.scales, &packed.biases}) {
    const char* what = t == &packed.scales ? "scales" : "biases";
    if (t->dtype() != DType::F16 && t->dtype() != DType::F32)
      return makeError(std::string("quantized weight ") + what + " must be F16 or F32, got " +
                       std::string(dtypeName(t->dtype())));
    if (t->shape() != finalShape(K, out, groups))
      return makeError(std::string("quantized weight ") + what + " have shape " +
                       shapeText(t->shape()) + ", expected " +
                       shapeText(finalShape(K, out, groups)));
  }
  Expected<TensorData> scales = toDType(packed.scales, DType::F32);
  Expected<TensorData> biases = toDType(packed.biases, DType::F32);
  if (!scales)
    return scales.error();
  if (!biases)
    return biases.error();
  const uint32_t* codes = w.as<uint32_t>();
  const float* sc = scales->as<float>();
  const float* bi = biases->as<float>();
  const uint32_t mask = (1u << bits) - 1u;

  std::vector<float> values(static_cast<std::size_t>(shapeNumel(logicalShape)));
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t o = 0; o < out; ++o) {
      for (int64_t i = 0; i < in; ++i) {
        const int64_t word = i / perWord, g = i / G;
        const uint32_t bitsWord =
            codes[K == 1 ? o * words + word : (k * words + word) * out + o];
        const float q = static_cast<float>((bitsWord >> (bits * (i % perWord))) & mask);
        const int64_t at = K == 1 ? o * groups + g : (k * groups + g) * out + o;
        const float product = q * sc[at]; // kept apart from the add: no fused multiply-add
        values[view->offset(k, o, i)] = product + bi[at];
      }
    }
  }
  return ownedFloats(logicalShape, values);
}

std::vector<NamedTensor> quantizedWeightTensors(const std::string& storageKey,
                                                QuantizedWeight packed) {
  std::vector<NamedTensor> tensors;
  tensors.push_back({storageKey + ".weight", std::move(packed.weight)});
  tensors.push_back({storageKey + ".scales", std::move(packed.scales)});
  tensors.push_back({storageKey + ".biases", std::move(packed.biases)});
  return tensors;
}

} // namespace lattice
