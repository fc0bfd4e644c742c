// Element conversions of TensorConvert.h. Views into a safetensors file may be unaligned, so
// every element is read with memcpy.

#include "tensor/TensorConvert.h"

#include <cmath>
#include <cstring>
#include <string>

namespace lattice {

float halfToFloat(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    const float v = std::ldexp(static_cast<float>(mantissa), -24); // zero and subnormals
    return sign ? -v : v;
  }
  const std::uint32_t bits = exponent == 31 ? sign | 0x7f800000u | (mantissa << 13)
                                            : sign | ((exponent + 112) << 23) | (mantissa << 13);
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

std::uint16_t floatToHalf(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) // infinity or NaN (keep a quiet NaN)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0u));
  if (magnitude >= 0x477ff000u) // rounds to a value above 65504: infinity
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {
    // Below the smallest normal half: a subnormal, value = m * 2^-24 with m rounded to even.
    const float a = std::fabs(value) * 16777216.0f; // exact: scaling by a power of two
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(a)));
  }
  // Normal: drop 13 mantissa bits with round to nearest, ties to even; a carry into the
  // exponent is the correct result (it may reach infinity only above 65504, handled above).
  const std::uint32_t rebased = magnitude - (112u << 23);
  const std::uint32_t lsb = (rebased >> 13) & 1u;
  return static_cast<std::uint16_t>(sign | ((rebased + 0xfffu + lsb) >> 13));
}

float bfloat16ToFloat(std::uint16_t bits) {
  const std::uint32_t widened = static_cast<std::uint32_t>(bits) << 16;
  float out;
  std::memcpy(&out, &widened, sizeof out);
  return out;
}

namespace {

template <typename T, typename Out> void convertAll(const TensorData& t, std::vector<Out>& out) {
  const std::uint8_t* p = t.data();
  for (std::size_t i = 0; i < out.size(); ++i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    out[i] = static_cast<Out>(v);
  }
}

/// Converts an integer or bool tensor into `out`; false for a floating-point one.
template <typename Out>
bool convertIntegers(const TensorData& t, std::vector<Out>& out) {
  switch (t.dtype()) {
  case DType::Bool:
  case DType::U8: convertAll<std::uint8_t>(t, out); return true;
  case DType::I8: convertAll<std::int8_t>(t, out); return true;
  case DType::I16: convertAll<std::int16_t>(t, out); return true;
  case DType::U16: convertAll<std::uint16_t>(t, out); return true;
  case DType::I32: convertAll<std::int32_t>(t, out); return true;
  case DType::U32: convertAll<std::uint32_t>(t, out); return true;
  case DType::I64: convertAll<std::int64_t>(t, out); return true;
  case DType::U64: convertAll<std::uint64_t>(t, out); return true;
  default: return false;
  }
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

Status checkBytes(const TensorData& t) {
  const std::int64_t n = t.numel();
  if (n < 0 || static_cast<std::size_t>(n) * dtypeSize(t.dtype()) > t.byteSize())
    return makeError("tensor shape " + shapeText(t.shape()) + " does not match its bytes");
  return {};
}

} // namespace

Expected<std::vector<float>> toFloatVector(const TensorData& t) {
  if (Status s = checkBytes(t); !s) return s.error();
  std::vector<float> out(static_cast<std::size_t>(t.numel()));
  switch (t.dtype()) {
  case DType::F32: convertAll<float>(t, out); break;
  case DType::F64: convertAll<double>(t, out); break;
  case DType::F16:
  case DType::BF16: {
    std::vector<std::uint16_t> raw(out.size());
    if (!raw.empty()) std::memcpy(raw.data(), t.data(), raw.size() * 2);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = t.dtype() == DType::F16 ? halfToFloat(raw[i]) : bfloat16ToFloat(raw[i]);
    break;
  }
  default: convertIntegers(t, out); break;
  }
  return out;
}

Expected<std::vector<std::int64_t>> toIntVector(const TensorData& t) {
  if (Status s = checkBytes(t); !s) return s.error();
  std::vector<std::int64_t> out(static_cast<std::size_t>(t.numel()));
  if (!convertIntegers(t, out))
    return makeError("expected an integer tensor, got " + std::string(dtypeName(t.dtype())));
  return out;
}

} // namespace lattice
