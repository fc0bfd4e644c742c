#pragma once
/// \file Element conversions between stored tensors and the float values that readers compute
/// with: IEEE half <-> float (round to nearest even), bfloat16 -> float, and any TensorData as a
/// vector of floats.
/// Plain C++, no LibTorch: the diff and the runtime both read weights and inputs through it.

#include "support/Expected.h"
#include "tensor/TensorData.h"

#include <cstdint>
#include <vector>

namespace lattice {

/// The float value of IEEE binary16 bits (exact: every half is a float).
float halfToFloat(std::uint16_t bits);
/// `value` rounded to the nearest IEEE binary16 (ties to even; overflow to infinity; NaN kept).
std::uint16_t floatToHalf(float value);
/// `value` rounded to binary16 and back: what storing it as f16 keeps.
inline float roundToHalf(float value) { return halfToFloat(floatToHalf(value)); }
/// The float value of bfloat16 bits (exact: a bfloat16 is the top half of a float).
float bfloat16ToFloat(std::uint16_t bits);

/// Every element of `tensor` as a float (integers converted, F16/BF16 widened, F64 rounded), in
/// row-major order. Error when the shape does not match the bytes.
Expected<std::vector<float>> toFloatVector(const TensorData& tensor);

/// Every element of an integer tensor (BOOL, U8 ... U64) as int64 (U64 above INT64_MAX wraps).
/// Error for float dtypes and when the shape does not match the bytes.
Expected<std::vector<std::int64_t>> toIntVector(const TensorData& tensor);

} // namespace lattice
