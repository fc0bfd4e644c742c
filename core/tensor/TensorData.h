#pragma once
/// \file TensorData: a dtype, a shape and the row-major little-endian bytes, either owned, a
/// view into memory kept alive by a shared owner (for example a safetensors file's bytes), or
/// deferred: computed by a TensorProducer when first needed (the lowering re-lays weights this
/// way, so lowering touches no weight bytes and the save streams them straight to the file).

#include "tensor/DType.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace lattice {

/// Computes the bytes of a deferred tensor. Producers are immutable and may run more than once
/// (a streaming writer produces into its own buffer without caching) and from any thread.
class TensorProducer {
public:
  virtual ~TensorProducer() = default;
  /// Writes exactly the tensor's byteSize() bytes to `dst`.
  virtual void produce(uint8_t* dst) const = 0;
  /// The bytes of one slice of the result that produceSlices() can compute on its own (a divisor
  /// of the tensor's byte size, for example one output channel of a re-laid conv weight); 0, the
  /// default, when the producer computes only whole tensors.
  virtual std::size_t sliceBytes() const { return 0; }
  /// Writes slices [first, first + count) of the result, count * sliceBytes() bytes, to `dst`:
  /// the same bytes produce() puts at offset first * sliceBytes(). Only called when sliceBytes()
  /// is not 0, with slices inside the tensor.
  virtual void produceSlices(uint8_t* dst, std::size_t first, std::size_t count) const {
    (void)dst, (void)first, (void)count;
  }
};

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
  /// A tensor whose bytes `producer` computes on the first data() (once, shared by all copies)
  /// or, without keeping them, on every produceInto(). Precondition: the shape is valid.
  static TensorData deferred(DType dtype, std::vector<int64_t> shape,
                             std::shared_ptr<const TensorProducer> producer);

  DType dtype() const { return m_dtype; }
  const std::vector<int64_t>& shape() const { return m_shape; }
  int64_t numel() const;
  std::size_t byteSize() const { return m_size; }
  /// The bytes. A deferred tensor computes them here the first time (thread-safe; the result is
  /// kept and shared by every copy).
  const uint8_t* data() const { return m_lazy ? materialize() : m_data; }
  /// Mutable bytes; only for owning and deferred tensors (nullptr for views). Copies of a
  /// TensorData share their buffer until one of them asks for mutable bytes (copy on write).
  uint8_t* mutableData();
  bool isView() const { return m_owned == nullptr && m_data != nullptr && !m_lazy; }
  /// True for a deferred tensor (whether or not its bytes were computed yet).
  bool isDeferred() const { return m_lazy != nullptr; }
  /// Writes the byteSize() bytes to `dst`. For a deferred tensor whose bytes were not computed
  /// yet this runs the producer into `dst` without keeping anything (what writers use).
  void produceInto(uint8_t* dst) const;
  /// The granularity of produceRangeInto(): a divisor of byteSize(). 1 for tensors whose bytes
  /// exist (or were computed), the producer's sliceBytes() for a deferred tensor whose bytes were
  /// not computed yet (0 when its producer computes only whole tensors).
  std::size_t rangeGranularity() const;
  /// Writes bytes [offset, offset + size) to `dst`, computing only those of a deferred tensor
  /// (what writers use to stream a large deferred tensor piece by piece). Precondition: offset and
  /// size are multiples of a non-zero rangeGranularity() and the range lies inside the tensor.
  void produceRangeInto(uint8_t* dst, std::size_t offset, std::size_t size) const;

  /// The bytes as elements of T. Views into a safetensors file may be unaligned for T when the
  /// writer placed a tensor at an offset that is not a multiple of sizeof(T).
  template <typename T> const T* as() const { return reinterpret_cast<const T*>(data()); }

  /// Same dtype, shape and bytes.
  bool operator==(const TensorData& other) const;
  bool operator!=(const TensorData& other) const { return !(*this == other); }

private:
  struct Lazy;
  const uint8_t* materialize() const;

  DType m_dtype = DType::F32;
  std::vector<int64_t> m_shape;
  const uint8_t* m_data = nullptr;
  std::size_t m_size = 0;
  std::shared_ptr<std::vector<uint8_t>> m_owned;
  std::shared_ptr<const void> m_keepAlive;
  std::shared_ptr<Lazy> m_lazy;
};

/// Product of the dimensions (1 for rank 0); -1 on overflow or a negative dimension.
int64_t shapeNumel(const std::vector<int64_t>& shape);

/// The highest element index a strided view of a storage touches: offset plus
/// (size - 1) * stride over every dimension of size > 1, or -1 when that overflows int64. For
/// untrusted sizes and strides (checkpoints, TorchScript records): compare the result with the
/// storage's element count before reading. Sizes >= 1 and strides >= 0 are the caller's to check.
int64_t lastStridedIndex(int64_t offset, const std::vector<int64_t>& size, const std::vector<int64_t>& stride);

} // namespace lattice
