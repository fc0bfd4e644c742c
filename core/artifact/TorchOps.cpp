// The artifact layer's only LibTorch file: dtype conversion (torch's f32 -> f16 rounds to nearest
// even) and the conv weight re-layout of lowering.md §5.8 as a permute + contiguous copy.
// Tensors are wrapped with at::from_blob over TensorData bytes, so the only copy is the one into
// the result's own buffer. Quantization is not here: it is plain f32 arithmetic in
// WeightPacking.cpp. Torch exceptions never leave this file.

#include "artifact/WeightPacking.h"

#include <ATen/ATen.h>

#include <optional>
#include <sstream>

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

// A permutation only moves elements, so any dtype can travel as an integer of its width.
at::ScalarType carrierType(std::size_t elementSize) {
  switch (elementSize) {
  case 1: return at::kByte;
  case 2: return at::kShort;
  case 4: return at::kInt;
  default: return at::kLong;
  }
}

std::string pythonTuple(const std::vector<int64_t>& values) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < values.size(); ++i)
    out << (i ? ", " : "") << values[i];
  out << (values.size() == 1 ? ",)" : ")");
  return out.str();
}

// from_blob wants a mutable pointer; the source is only ever read.
at::Tensor wrap(const TensorData& t, const std::vector<int64_t>& shape, at::ScalarType type) {
  return at::from_blob(const_cast<uint8_t*>(t.data()), shape, at::TensorOptions().dtype(type));
}

} // namespace

Expected<TensorData> convWeightToLatticeLayout(const TensorData& w, int64_t kx, int64_t ky,
                                               int64_t kz, int64_t inChannels,
                                               int64_t outChannels) {
  const std::vector<int64_t>& shape = w.shape();
  if (shape.size() != 3 || kx < 0 || ky < 0 || kz < 0 || shape[0] != kx * ky * kz)
    return makeError("Conv3d kernel shape " + pythonTuple(shape) + " does not match kernel_size=" +
                     pythonTuple({kx, ky, kz}) + ".");
  const std::vector<int64_t> source{kx, ky, kz, inChannels, outChannels};
  if (inChannels < 0 || outChannels < 0 || shapeNumel(source) != w.numel()) {
    std::ostringstream msg;
    msg << "shape '[" << kx << ", " << ky << ", " << kz << ", " << inChannels << ", "
        << outChannels << "]' is invalid for input of size " << w.numel();
    return makeError(msg.str());
  }
  TensorData result = TensorData::zeros(w.dtype(), {outChannels, kx, ky, kz, inChannels});
  if (result.numel() == 0)
    return result;
  try {
    const at::ScalarType carrier = carrierType(dtypeSize(w.dtype()));
    at::Tensor dst = at::from_blob(result.mutableData(), result.shape(),
                                   at::TensorOptions().dtype(carrier));
    dst.copy_(wrap(w, source, carrier).permute({4, 0, 1, 2, 3}));
  } catch (const std::exception& e) {
    return makeError(std::string("conv weight re-layout failed: ") + e.what());
  }
  return result;
}

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
