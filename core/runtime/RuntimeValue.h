#pragma once
/// \file The values a runtime computes with (lattice-artifact-validation.md sec. 10.1): dense
/// tensors, sparse tensors (logical coordinates, a stride, row features) and weight handles.
///
/// Floating-point elements are held as `float` whatever the stored dtype: an f16 value is a float
/// that f16 can represent exactly (every op rounds its f16 results once), so kernels are written
/// once. Integer elements are held as int64. Buffers are shared and immutable once made, so
/// decompose, with_features and the feature ops pass them on without copies.

#include "dialect/MlirAttributes.h"
#include "tensor/DType.h"
#include "tensor/TensorData.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace lattice::runtime {

class CoordSet;

/// (x, y, z) of a stride, kernel size, padding or dilation.
using Triple = std::array<std::int64_t, 3>;

/// A dense tensor: F32 or F16 elements in `floats`, I32 or I64 elements in `ints`.
struct Tensor {
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::shared_ptr<const std::vector<float>> floats;
  std::shared_ptr<const std::vector<std::int64_t>> ints;

  bool isFloat() const { return dtype == DType::F32 || dtype == DType::F16; }
  std::int64_t numel() const;
  /// shape[0] for rank >= 1, 1 for rank 0.
  std::int64_t rows() const { return shape.empty() ? 1 : shape[0]; }
  /// The product of the dimensions after the first (1 for rank <= 1).
  std::int64_t rowSize() const;
};

/// A sparse tensor: `rows` active rows with unique logical (b, x, y, z) coordinates, their
/// features, the tensor stride, and the row capacity its buffers have in the artifact's view
/// (decompose returns capacity rows, with_features needs that many; the rows past the active
/// ones are zero).
struct Sparse {
  std::shared_ptr<const CoordSet> coords;
  Triple stride{1, 1, 1};
  std::int64_t capacity = 0;
  DType dtype = DType::F32;
  std::int64_t channels = 0;
  /// rows × channels, row-major.
  std::shared_ptr<const std::vector<float>> features;

  std::int64_t rows() const;
};

/// What a `lattice.weight` op yields: the stored tensors behind its storage key. Dequantizing and
/// re-laying out happen in the consumer, which knows C_in and the kernel (sec. 10.4).
struct WeightRef {
  /// Index of the weight op in the plan (the runtime caches prepared forms per op).
  int op = -1;
  std::string key;
  std::string family; ///< `conv3d`, `linear`, `embedding`, `channel`, `bias`
  std::string layout;
  PackingAttr packing;
  /// Dense packing: the tensor at `key`.
  TensorData dense;
  /// Quantized packing: `key.weight`, `key.scales`, `key.biases`.
  TensorData codes, scales, biases;

  bool quantized() const { return packing.kind != "dense"; }
  /// 4 or 8 for quantized packings, 0 for dense.
  int bits() const;
};

/// One SSA value during execution (monostate: not computed, or freed after its last use).
using RuntimeValue = std::variant<std::monostate, Tensor, Sparse, WeightRef>;

/// "dense tensor F32 [5, 4]", "sparse tensor f32 x 32 channels, 1200 rows, stride (2, 2, 2)",
/// "weight 'stem.weight'": what a value is, for messages and the studio.
std::string describeValue(const RuntimeValue& value);

/// Bytes a value holds (features, coordinates and their index, integers); weights count 0 (they
/// belong to the artifact). Shared buffers count in full for every value that holds them.
std::uint64_t valueBytes(const RuntimeValue& value);

/// A float buffer of `n` zeros, shared.
std::shared_ptr<std::vector<float>> makeFloats(std::size_t n, float fill = 0.0f);

} // namespace lattice::runtime
