// TensorData: owned or borrowed row-major bytes with a dtype and shape. Owned buffers are shared
// between copies and copied on the first mutableData() of a shared buffer; views are read-only.

#include "tensor/TensorData.h"

#include <atomic>
#include <cassert>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>

namespace lattice {

namespace {

// numel * dtypeSize, or nullopt when the shape is invalid or the product does not fit.
std::optional<std::size_t> expectedByteSize(DType dtype, const std::vector<int64_t>& shape) {
  const int64_t numel = shapeNumel(shape);
  if (numel < 0) return std::nullopt;
  const std::size_t elementSize = dtypeSize(dtype);
  if (static_cast<uint64_t>(numel) > std::numeric_limits<std::size_t>::max() / elementSize)
    return std::nullopt;
  return static_cast<std::size_t>(numel) * elementSize;
}

} // namespace

int64_t lastStridedIndex(int64_t offset, const std::vector<int64_t>& size, const std::vector<int64_t>& stride) {
  int64_t last = offset;
  for (std::size_t d = 0; d < size.size() && d < stride.size(); ++d) {
    if (size[d] == 1) continue; // its stride is never used
    int64_t extent = 0;
    if (__builtin_mul_overflow(size[d] - 1, stride[d], &extent) || __builtin_add_overflow(last, extent, &last))
      return -1;
  }
  return last;
}

int64_t shapeNumel(const std::vector<int64_t>& shape) {
  bool hasZero = false;
  for (int64_t dim : shape) {
    if (dim < 0) return -1;
    hasZero = hasZero || dim == 0;
  }
  // A zero dimension makes the product 0 however large the other dimensions are.
  if (hasZero) return 0;
  int64_t product = 1;
  for (int64_t dim : shape) {
    if (product > std::numeric_limits<int64_t>::max() / dim) return -1;
    product *= dim;
  }
  return product;
}

TensorData TensorData::owning(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes) {
  const std::optional<std::size_t> expected = expectedByteSize(dtype, shape);
  assert(expected && *expected == bytes.size() && "TensorData::owning: byte size does not match the shape");
  // Release builds: never let data() promise more bytes than the buffer holds. A short buffer is
  // zero-extended and a long one truncated so that readers indexing by numel() stay in bounds.
  if (expected && *expected != bytes.size()) bytes.resize(*expected, 0);
  TensorData t;
  t.m_dtype = dtype;
  t.m_shape = std::move(shape);
  t.m_owned = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  t.m_data = t.m_owned->data();
  t.m_size = t.m_owned->size();
  return t;
}

TensorData TensorData::view(DType dtype, std::vector<int64_t> shape, const uint8_t* data, std::size_t nbytes,
                            std::shared_ptr<const void> keepAlive) {
  TensorData t;
  t.m_dtype = dtype;
  t.m_shape = std::move(shape);
  t.m_data = data;
  t.m_size = nbytes;
  t.m_keepAlive = std::move(keepAlive);
  return t;
}

TensorData TensorData::zeros(DType dtype, std::vector<int64_t> shape) {
  const std::optional<std::size_t> expected = expectedByteSize(dtype, shape);
  assert(expected && "TensorData::zeros: invalid shape");
  return owning(dtype, std::move(shape), std::vector<uint8_t>(expected.value_or(0), 0));
}

// The shared state of a deferred tensor: its producer and, once computed, its bytes.
struct TensorData::Lazy {
  std::shared_ptr<const TensorProducer> producer;
  std::once_flag once;
  std::unique_ptr<uint8_t[]> bytes; // default-initialised: the producer writes every byte
  std::atomic<bool> ready{false};    // bytes hold the result
};

TensorData TensorData::deferred(DType dtype, std::vector<int64_t> shape,
                                std::shared_ptr<const TensorProducer> producer) {
  const std::optional<std::size_t> expected = expectedByteSize(dtype, shape);
  assert(expected && producer && "TensorData::deferred: invalid shape or no producer");
  TensorData t;
  t.m_dtype = dtype;
  t.m_shape = std::move(shape);
  t.m_size = expected.value_or(0);
  t.m_lazy = std::make_shared<Lazy>();
  t.m_lazy->producer = std::move(producer);
  return t;
}

const uint8_t* TensorData::materialize() const {
  Lazy& lazy = *m_lazy;
  std::call_once(lazy.once, [&] {
    lazy.bytes.reset(new uint8_t[m_size ? m_size : 1]);
    if (m_size) lazy.producer->produce(lazy.bytes.get());
    lazy.ready.store(true, std::memory_order_release);
  });
  return lazy.bytes.get();
}

void TensorData::produceInto(uint8_t* dst) const {
  if (m_size == 0) return;
  if (m_lazy && !m_lazy->ready.load(std::memory_order_acquire)) {
    m_lazy->producer->produce(dst); // streamed: nothing is kept
    return;
  }
  std::memcpy(dst, data(), m_size);
}

std::size_t TensorData::rangeGranularity() const {
  if (m_lazy && !m_lazy->ready.load(std::memory_order_acquire)) return m_lazy->producer->sliceBytes();
  return 1;
}

void TensorData::produceRangeInto(uint8_t* dst, std::size_t offset, std::size_t size) const {
  assert(offset <= m_size && size <= m_size - offset && "TensorData::produceRangeInto: range outside");
  if (size == 0) return;
  if (m_lazy && !m_lazy->ready.load(std::memory_order_acquire)) {
    const std::size_t slice = m_lazy->producer->sliceBytes();
    assert(slice != 0 && offset % slice == 0 && size % slice == 0 && "TensorData::produceRangeInto: not slices");
    m_lazy->producer->produceSlices(dst, offset / slice, size / slice); // streamed: nothing is kept
    return;
  }
  std::memcpy(dst, data() + offset, size);
}

int64_t TensorData::numel() const {
  return shapeNumel(m_shape);
}

uint8_t* TensorData::mutableData() {
  if (m_lazy) {
    // Becomes an owning tensor holding a copy of the computed bytes.
    const uint8_t* bytes = materialize();
    m_owned = std::make_shared<std::vector<uint8_t>>(bytes, bytes + m_size);
    m_data = m_owned->data();
    m_lazy.reset();
    return m_owned->data();
  }
  if (!m_owned) return nullptr;
  if (m_owned.use_count() > 1) {
    // Copies share the buffer; detach before the first write so they keep their values.
    m_owned = std::make_shared<std::vector<uint8_t>>(*m_owned);
    m_data = m_owned->data();
  }
  return m_owned->data();
}

bool TensorData::operator==(const TensorData& other) const {
  if (m_dtype != other.m_dtype || m_shape != other.m_shape || m_size != other.m_size) return false;
  if (m_size == 0 || (!m_lazy && m_data == other.m_data && !other.m_lazy)) return true;
  return std::memcmp(data(), other.data(), m_size) == 0;
}

} // namespace lattice
