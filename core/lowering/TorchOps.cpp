// The artifact layer's only LibTorch file: dtype conversion with torch semantics (f32 -> f16
// rounds to nearest even, float -> integer truncates). Tensors are wrapped with at::from_blob
// over TensorData bytes, so the only copy is the one into the result's own buffer. The conv
// re-layout (WeightRelayout.cpp) and quantization (WeightPacking.cpp) are plain C++. Torch
// exceptions never leave this file.

#include "lowering/WeightPacking.h"

#include <ATen/ATen.h>

#include <optional>

namespace lattice {
namespace {

// The bundled LibTorch (1.13) has no uint16/uint32/uint64 tensors.
std::optional<at::ScalarType> scalarType(DType dtype) {
  switch (dtype) {
  case DType::Bool: return at::kBool;
  case DType::U8: return at::kByte;
  case DType::I8: return at::kChar;
  case DType::I16: return at::kShort;
  case DType::F16: return at::kHalf;
  case DType::BF16: return at::kBFloat16;
  case DType::I32: return at::kInt;
  case DType::F32: return at::kFloat;
  case DType::F64: return at::kDouble;
  case DType::I64: return at::kLong;
  case DType::U16:
  case DType::U32:
  case DType::U64: return std::nullopt;
  }
  return std::nullopt;
}

// from_blob wants a mutable pointer; the source is only ever read.
at::Tensor wrap(const TensorData& t, const std::vector<int64_t>& shape, at::ScalarType type) {
  return at::from_blob(const_cast<uint8_t*>(t.data()), shape, at::TensorOptions().dtype(type));
}

} // namespace

Expected<TensorData> toDType(const TensorData& tensor, DType dtype) {
  if (tensor.dtype() == dtype)
    return tensor;
  const std::optional<at::ScalarType> from = scalarType(tensor.dtype());
  const std::optional<at::ScalarType> to = scalarType(dtype);
  if (!from || !to)
    return makeError("unsupported dtype conversion " + std::string(dtypeName(tensor.dtype())) +
                     " -> " + std::string(dtypeName(dtype)));
  TensorData result = TensorData::zeros(dtype, tensor.shape());
  if (result.numel() == 0)
    return result;
  try {
    at::Tensor dst = at::from_blob(result.mutableData(), result.shape(),
                                   at::TensorOptions().dtype(*to));
    dst.copy_(wrap(tensor, tensor.shape(), *from));
  } catch (const std::exception& e) {
    return makeError(std::string("dtype conversion failed: ") + e.what());
  }
  return result;
}

} // namespace lattice
