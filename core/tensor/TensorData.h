#pragma once
/// \file TensorData: a dtype, a shape and the row-major little-endian bytes, either owned or a
/// view into memory kept alive by a shared owner (for example a mapped safetensors file).

#include "tensor/DType.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace lattice {

class TensorData {
public:
  TensorData() = default;

  /// Takes ownership of `bytes`. Precondition: `bytes.size()` equals numel(shape) *
  /// dtypeSize(dtype) (asserted; release builds zero-extend or truncate `bytes` to that size).
  static TensorData owning(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes);
  /// A view of `nbytes` at `data`; `keepAlive` owns the memory.
  static TensorData view(DType dtype, std::vector<int64_t> shape, const uint8_t* data, std::size_t nbytes,
                         std::shared_ptr<const void> keepAlive);
  /// Zero-filled tensor. Precondition: the shape is valid (no negative dimension, no overflow).
  static TensorData zeros(DType dtype, std::vector<int64_t> shape);

  DType dtype() const { return m_dtype; }
  const std::vector<int64_t>& shape() const { return m_shape; }
  int64_t numel() const;
  std::size_t byteSize() const { return m_size; }
  const uint8_t* data() const { return m_data; }
  /// Mutable bytes; only for owning tensors (nullptr for views). Copies of a TensorData share
  /// their buffer until one of them asks for mutable bytes (copy on write).
  uint8_t* mutableData();
  bool isView() const { return m_owned == nullptr && m_data != nullptr; }

  /// The bytes as elements of T. Views into a safetensors file may be unaligned for T when the
  /// writer placed a tensor at an offset that is not a multiple of sizeof(T).
  template <typename T> const T* as() const { return reinterpret_cast<const T*>(m_data); }

  /// Same dtype, shape and bytes.
  bool operator==(const TensorData& other) const;
  bool operator!=(const TensorData& other) const { return !(*this == other); }

private:
  DType m_dtype = DType::F32;
  std::vector<int64_t> m_shape;
  const uint8_t* m_data = nullptr;
  std::size_t m_size = 0;
  std::shared_ptr<std::vector<uint8_t>> m_owned;
  std::shared_ptr<const void> m_keepAlive;
};

/// Product of the dimensions (1 for rank 0); -1 on overflow or a negative dimension.
int64_t shapeNumel(const std::vector<int64_t>& shape);

} // namespace lattice
