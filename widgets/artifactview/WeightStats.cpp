// Weight statistics: one pass over the stored bytes (read with memcpy: views into a safetensors
// file may be unaligned for their element type).

#include "artifactview/WeightStats.h"

#include "tensor/TensorConvert.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace lattice::studio {

namespace {

class Accumulator {
public:
  void add(double v) {
    if (std::isnan(v)) {
      ++m_stats.nans;
      return;
    }
    if (m_stats.count == 0 || v < m_stats.min) m_stats.min = v;
    if (m_stats.count == 0 || v > m_stats.max) m_stats.max = v;
    m_sum += v;
    ++m_stats.count;
  }
  std::optional<WeightStats> result() const {
    if (m_stats.count == 0 && m_stats.nans == 0) return std::nullopt;
    WeightStats s = m_stats;
    s.mean = s.count ? m_sum / static_cast<double>(s.count) : std::numeric_limits<double>::quiet_NaN();
    return s;
  }

private:
  WeightStats m_stats;
  double m_sum = 0;
};

template <typename T> void addAll(Accumulator& acc, const std::uint8_t* data, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, data + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    acc.add(static_cast<double>(v));
  }
}

template <float (*Convert)(std::uint16_t)>
void addHalves(Accumulator& acc, const std::uint8_t* data, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint16_t bits;
    std::memcpy(&bits, data + i * 2, 2);
    acc.add(static_cast<double>(Convert(bits)));
  }
}

} // namespace

std::optional<WeightStats> tensorStats(const TensorData& tensor) {
  const std::int64_t n = tensor.numel();
  if (n <= 0 || !tensor.data() ||
      tensor.byteSize() != static_cast<std::size_t>(n) * dtypeSize(tensor.dtype()))
    return std::nullopt;
  Accumulator acc;
  const std::uint8_t* d = tensor.data();
  switch (tensor.dtype()) {
  case DType::Bool:
  case DType::U8:
    addAll<std::uint8_t>(acc, d, n);
    break;
  case DType::I8:
    addAll<std::int8_t>(acc, d, n);
    break;
  case DType::I16:
    addAll<std::int16_t>(acc, d, n);
    break;
  case DType::U16:
    addAll<std::uint16_t>(acc, d, n);
    break;
  case DType::F16:
    addHalves<halfToFloat>(acc, d, n);
    break;
  case DType::BF16:
    addHalves<bfloat16ToFloat>(acc, d, n);
    break;
  case DType::I32:
    addAll<std::int32_t>(acc, d, n);
    break;
  case DType::U32:
    addAll<std::uint32_t>(acc, d, n);
    break;
  case DType::F32:
    addAll<float>(acc, d, n);
    break;
  case DType::F64:
    addAll<double>(acc, d, n);
    break;
  case DType::I64:
    addAll<std::int64_t>(acc, d, n);
    break;
  case DType::U64:
    addAll<std::uint64_t>(acc, d, n);
    break;
  }
  return acc.result();
}

std::optional<WeightStats> valueStats(const std::vector<float>& values) {
  Accumulator acc;
  for (float v : values)
    acc.add(static_cast<double>(v));
  return acc.result();
}

} // namespace lattice::studio
