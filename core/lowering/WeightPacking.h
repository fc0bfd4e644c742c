#pragma once
/// \file Weight packing for lattice artifacts: the conv weight re-layout (lowering.md §5.8), affine
/// group quantization and its inverse (lattice-artifact-format.md §13.3) and dtype conversion.
/// Everything works on TensorData, in plain C++.

#include "support/Expected.h"
#include "tensor/Safetensors.h"
#include "tensor/TensorData.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lattice {

/// Re-lays a torch_lattice conv weight `(K, C_in, C_out)`, kernel row `k = (x·ky + y)·kz + z`,
/// into the artifact layout `conv3d_o_xyz_i` `(C_out, kx, ky, kz, C_in)`:
/// `out[o, x, y, z, i] = w[(x·ky + y)·kz + z, i, o]`. The dtype is kept.
/// Errors as the reference: "Conv3d kernel shape (15, 1, 1) does not match kernel_size=(3, 1, 3)."
/// when `w` is not rank 3 or `w.shape[0] != kx·ky·kz`, and a reshape error when the element
/// count does not match `kx·ky·kz·inChannels·outChannels` (the module's own channel counts).
Expected<TensorData> convWeightToLatticeLayout(const TensorData& w, int64_t kx, int64_t ky,
                                               int64_t kz, int64_t inChannels,
                                               int64_t outChannels);

/// The three stored tensors of a quantized weight (format §13.2): `weight` U32 packed codes,
/// `scales` and `biases` in the scale dtype.
struct QuantizedWeight {
  TensorData weight;
  TensorData scales;
  TensorData biases;
};

/// Affine group quantization exactly as the reference writer (format §13.3): row view of a rank 2
/// `(C_out, C_in)`, rank 3 `(K, C_in, C_out)` or rank 5 `(C_out, Kx, Ky, Kz, C_in)` F32/F16
/// weight, zero padding to a multiple of `groupSize` (the zeros count in min/max), IEEE f32
/// codes with round-half-even, lanes packed LSB first, scales/biases cast to `scaleDtype` after
/// the codes, and the last two axes swapped when K > 1.
/// Errors: "artifact weight bits must be 4 or 8", "artifact weight group_size must be positive",
/// "artifact scale_dtype must be 'f16' or 'f32'", "quantized artifact supports linear,
/// kernel-major, and 5D convolution weights", "unsupported tensor dtype for lattice artifact:
/// torch.int32", and "quantized artifact weight contains non-finite values" (the reference
/// would write garbage codes for those).
Expected<QuantizedWeight> quantizeAffine(const TensorData& logical, int bits, int groupSize,
                                         DType scaleDtype);

/// Inverse of quantizeAffine for readers: undoes the K > 1 transpose, computes
/// `q·scale + bias` in f32 from the stored scales and biases (any sign of scale, so weights
/// packed by MLX read the same way), keeps the first C_in columns and maps the rows back to
/// `logicalShape` (rank 2, 3 or 5, as for quantizeAffine; C_in and kernel dims come from the
/// consumer because the artifact does not store them). The result is F32.
Expected<TensorData> dequantizeAffine(const QuantizedWeight& packed, int bits, int groupSize,
                                      const std::vector<int64_t>& logicalShape);

/// Converts element types with torch semantics, exactly as `Tensor.to(dtype)` of LibTorch 1.13
/// on the CPU (float → f16 rounds to nearest even; float → integer truncates toward zero; every
/// case in DTypeConversion.cpp). Same dtype returns the input unchanged (sharing its bytes).
/// Unsigned 16/32/64-bit types, which LibTorch 1.13 has no tensors of, give an error.
Expected<TensorData> toDType(const TensorData& tensor, DType dtype);

/// Python's spelling of a torch dtype for messages: "torch.float32", "torch.int64", ...
std::string torchDTypeName(DType dtype);

/// The builder's weight dtype name (lowering.md §5.7 step 3): "f16" or "f32", otherwise the
/// error "unsupported tensor dtype for lattice artifact: torch.int32".
Expected<std::string> artifactWeightDTypeName(DType dtype);

/// The stored tensors of a quantized weight under `storageKey` (`key.weight`, `key.scales`,
/// `key.biases`), in that order.
std::vector<NamedTensor> quantizedWeightTensors(const std::string& storageKey,
                                                QuantizedWeight packed);

} // namespace lattice
