// toDType: element type conversion with the semantics of torch's Tensor.to(dtype) on the CPU
// (LibTorch 1.13), in plain C++. What torch does, element by element:
//  - to bool: value != 0 (NaN is true);
//  - integer to integer: two's complement wrap-around;
//  - floating to integer: truncation toward zero as x86's cvtt instructions do it: int64 and
//    uint8 through a 64-bit conversion, int8/int16/int32 through a 32-bit one, whose result for
//    NaN and out-of-range values is the "integer indefinite" (INT_MIN), then wrapped;
//  - to f16 and bf16: from a float, rounded to nearest even (other types become a float first,
//    so an int64 or f64 is rounded twice); overflow becomes infinity. NaN becomes 0x7E00 with its
//    sign in f16; in bf16 0xFFFF from f32 and f64 (torch's vectorised conversion) and 0x7FC0
//    from f16 (its scalar one; torch also takes that for the last elements of an f64 source when
//    a block's length is not a multiple of 32, which this does not imitate);
//  - from f16: exactly, a signalling NaN made quiet; from bf16: exactly (its bits are the float's
//    upper half);
//  - f32 <-> f64 and integer to floating as the hardware converts (round to nearest even).
// tests/unit/tst_dtype_conversion.cpp checks every pair byte for byte against torch itself.

#include "lowering/WeightPacking.h"
#include "tensor/TensorConvert.h"

#include <climits>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace lattice {
namespace {

template <typename T> T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T> void store(std::uint8_t* p, T v) { std::memcpy(p, &v, sizeof v); }

float bitsToFloat(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
std::uint32_t floatToBits(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

// f16 → float: exact; a NaN keeps its sign and payload and becomes quiet.
float fromHalf(std::uint16_t h) {
  const float v = halfToFloat(h);
  return std::isnan(v) ? bitsToFloat(floatToBits(v) | 0x00400000u) : v;
}
float fromBFloat16(std::uint16_t b) { return bitsToFloat(static_cast<std::uint32_t>(b) << 16); }
std::uint16_t toBFloat16(float f, std::uint16_t nan) {
  if (std::isnan(f)) return nan;
  const std::uint32_t bits = floatToBits(f);
  return static_cast<std::uint16_t>((bits + ((bits >> 16) & 1u) + 0x7FFFu) >> 16);
}

// x86's truncating conversions: out of range (NaN included) gives the most negative value.
std::int32_t truncate32(double v) {
  return v > -2147483649.0 && v < 2147483648.0 ? static_cast<std::int32_t>(v) : INT32_MIN;
}
std::int64_t truncate64(double v) {
  return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? static_cast<std::int64_t>(v) : INT64_MIN;
}

// Two's complement wrap-around of `v` into the integer type D.
template <typename D> D wrap(std::uint64_t v) {
  return static_cast<D>(static_cast<std::make_unsigned_t<D>>(v));
}

// Writes a source element held as torch holds it while converting: integers (bool included) as
// int64, f16 (FromHalf), bf16 and f32 as float, f64 as double.
template <typename Held> struct Writer;

// Integers (bool as 0/1).
template <> struct Writer<std::int64_t> {
  static void write(DType to, std::uint8_t* p, std::int64_t v) {
    const auto u = static_cast<std::uint64_t>(v);
    switch (to) {
    case DType::Bool: store<std::uint8_t>(p, v != 0); break;
    case DType::U8: store(p, wrap<std::uint8_t>(u)); break;
    case DType::I8: store(p, wrap<std::int8_t>(u)); break;
    case DType::I16: store(p, wrap<std::int16_t>(u)); break;
    case DType::I32: store(p, wrap<std::int32_t>(u)); break;
    case DType::I64: store(p, v); break;
    case DType::F16: store(p, floatToHalf(static_cast<float>(v))); break;
    case DType::BF16: store(p, toBFloat16(static_cast<float>(v), 0)); break; // never NaN
    case DType::F32: store(p, static_cast<float>(v)); break;
    case DType::F64: store(p, static_cast<double>(v)); break;
    default: break;
    }
  }
};

// Floating values; `Value` is float or double, `bf16Nan` what a NaN becomes in bf16.
template <typename Value> void writeFloating(DType to, std::uint8_t* p, Value v, std::uint16_t bf16Nan) {
  switch (to) {
  case DType::Bool: store<std::uint8_t>(p, v != 0); break;
  case DType::U8: store(p, wrap<std::uint8_t>(static_cast<std::uint64_t>(truncate64(v)))); break;
  case DType::I8: store(p, wrap<std::int8_t>(static_cast<std::uint64_t>(truncate32(v)))); break;
  case DType::I16: store(p, wrap<std::int16_t>(static_cast<std::uint64_t>(truncate32(v)))); break;
  case DType::I32: store(p, truncate32(v)); break;
  case DType::I64: store(p, truncate64(v)); break;
  case DType::F16: store(p, floatToHalf(static_cast<float>(v))); break;
  case DType::BF16: store(p, toBFloat16(static_cast<float>(v), bf16Nan)); break;
  case DType::F32: store(p, static_cast<float>(v)); break;
  case DType::F64: store(p, static_cast<double>(v)); break;
  default: break;
  }
}
// An f16 element widened to float (its NaN becomes 0x7FC0 in bf16).
struct FromHalf {
  float value;
};
template <> struct Writer<FromHalf> {
  static void write(DType to, std::uint8_t* p, FromHalf v) { writeFloating(to, p, v.value, 0x7FC0u); }
};
template <> struct Writer<float> {
  static void write(DType to, std::uint8_t* p, float v) { writeFloating(to, p, v, 0xFFFFu); }
};
template <> struct Writer<double> {
  static void write(DType to, std::uint8_t* p, double v) { writeFloating(to, p, v, 0xFFFFu); }
};

template <typename Held, typename Read>
void convertAll(const std::uint8_t* src, std::size_t srcSize, std::uint8_t* dst, DType to, std::size_t count,
                Read read) {
  const std::size_t dstSize = dtypeSize(to);
  for (std::size_t i = 0; i < count; ++i) Writer<Held>::write(to, dst + i * dstSize, read(src + i * srcSize));
}

bool supported(DType dtype) {
  // The unsigned 16/32/64-bit types have no tensor type in LibTorch 1.13, so no torch semantics.
  return dtype != DType::U16 && dtype != DType::U32 && dtype != DType::U64;
}

} // namespace

Expected<TensorData> toDType(const TensorData& tensor, DType dtype) {
  if (tensor.dtype() == dtype)
    return tensor;
  if (!supported(tensor.dtype()) || !supported(dtype))
    return makeError("unsupported dtype conversion " + std::string(dtypeName(tensor.dtype())) + " -> " +
                     std::string(dtypeName(dtype)));
  TensorData result = TensorData::zeros(dtype, tensor.shape());
  const std::int64_t numel = result.numel();
  if (numel == 0)
    return result;
  const std::size_t count = static_cast<std::size_t>(numel);
  const std::size_t srcSize = dtypeSize(tensor.dtype());
  if (tensor.byteSize() < count * srcSize)
    return makeError("dtype conversion: the tensor's bytes do not cover its shape");
  const std::uint8_t* src = tensor.data();
  std::uint8_t* dst = result.mutableData();
  switch (tensor.dtype()) {
  case DType::Bool:
    convertAll<std::int64_t>(src, 1, dst, dtype, count, [](const std::uint8_t* p) -> std::int64_t { return *p != 0; });
    break;
  case DType::U8:
    convertAll<std::int64_t>(src, 1, dst, dtype, count, [](const std::uint8_t* p) -> std::int64_t { return *p; });
    break;
  case DType::I8:
    convertAll<std::int64_t>(src, 1, dst, dtype, count,
                             [](const std::uint8_t* p) -> std::int64_t { return load<std::int8_t>(p); });
    break;
  case DType::I16:
    convertAll<std::int64_t>(src, 2, dst, dtype, count,
                             [](const std::uint8_t* p) -> std::int64_t { return load<std::int16_t>(p); });
    break;
  case DType::I32:
    convertAll<std::int64_t>(src, 4, dst, dtype, count,
                             [](const std::uint8_t* p) -> std::int64_t { return load<std::int32_t>(p); });
    break;
  case DType::I64:
    convertAll<std::int64_t>(src, 8, dst, dtype, count, [](const std::uint8_t* p) { return load<std::int64_t>(p); });
    break;
  case DType::F16:
    convertAll<FromHalf>(src, 2, dst, dtype, count,
                         [](const std::uint8_t* p) { return FromHalf{fromHalf(load<std::uint16_t>(p))}; });
    break;
  case DType::BF16:
    convertAll<float>(src, 2, dst, dtype, count,
                      [](const std::uint8_t* p) { return fromBFloat16(load<std::uint16_t>(p)); });
    break;
  case DType::F32:
    convertAll<float>(src, 4, dst, dtype, count, [](const std::uint8_t* p) { return load<float>(p); });
    break;
  case DType::F64:
    convertAll<double>(src, 8, dst, dtype, count, [](const std::uint8_t* p) { return load<double>(p); });
    break;
  case DType::U16:
  case DType::U32:
  case DType::U64: break;
  }
  return result;
}

} // namespace lattice
