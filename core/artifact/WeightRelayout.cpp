// The conv weight re-layout of lowering.md §5.8 as a deferred tensor: the lowering only checks
// shapes and records the source; the bytes are moved when a writer (or a reader of data()) asks,
// so lowering a model touches no weight bytes and a save streams each re-laid weight straight
// into the file. The move itself is a cache-blocked transpose of every kernel slice; it only
// moves elements, so it works on any dtype as unsigned integers of the element's width.

#include "artifact/WeightPacking.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace lattice {
namespace {

std::string pythonTuple(const std::vector<int64_t>& values) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < values.size(); ++i)
    out << (i ? ", " : "") << values[i];
  out << (values.size() == 1 ? ",)" : ")");
  return out.str();
}

// out[o, k, i] = w[k, i, o] for w (K, C_in, C_out) and out (C_out, K, C_in), row-major, with
// elements of sizeof(T) bytes. Loads and stores go through memcpy (one mov once compiled), so
// a view at an unaligned offset of a safetensors file is read correctly.
template <typename T>
void relayout(const uint8_t* src, uint8_t* dst, int64_t kernel, int64_t in, int64_t out) {
  constexpr int64_t kBlock = 32; // 32×32 elements of ≤ 8 bytes: both tiles stay in L1
  constexpr int64_t E = sizeof(T);
  const int64_t dstRow = kernel * in; // elements between out[o, ...] and out[o + 1, ...]
  for (int64_t k = 0; k < kernel; ++k) {
    const uint8_t* slice = src + k * in * out * E; // (C_in, C_out)
    uint8_t* base = dst + k * in * E;              // out[0, k, 0]
    for (int64_t o0 = 0; o0 < out; o0 += kBlock) {
      const int64_t o1 = std::min(out, o0 + kBlock);
      for (int64_t i0 = 0; i0 < in; i0 += kBlock) {
        const int64_t i1 = std::min(in, i0 + kBlock);
        for (int64_t o = o0; o < o1; ++o) {
          uint8_t* row = base + o * dstRow * E;
          for (int64_t i = i0; i < i1; ++i) {
            T value;
            std::memcpy(&value, slice + (i * out + o) * E, E);
            std::memcpy(row + i * E, &value, E);
          }
        }
      }
    }
  }
}

class ConvRelayout final : public TensorProducer {
public:
  ConvRelayout(TensorData source, int64_t kernel, int64_t in, int64_t out)
      : m_source(std::move(source)), m_kernel(kernel), m_in(in), m_out(out) {}

  void produce(uint8_t* dst) const override {
    const uint8_t* src = m_source.data();
    switch (dtypeSize(m_source.dtype())) {
    case 1: relayout<uint8_t>(src, dst, m_kernel, m_in, m_out); break;
    case 2: relayout<uint16_t>(src, dst, m_kernel, m_in, m_out); break;
    case 4: relayout<uint32_t>(src, dst, m_kernel, m_in, m_out); break;
    default: relayout<uint64_t>(src, dst, m_kernel, m_in, m_out); break;
    }
  }

private:
  TensorData m_source; // shares the model's bytes
  int64_t m_kernel, m_in, m_out;
};

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
  std::vector<int64_t> target{outChannels, kx, ky, kz, inChannels};
  if (shapeNumel(target) == 0)
    return TensorData::zeros(w.dtype(), std::move(target));
  return TensorData::deferred(
      w.dtype(), std::move(target),
      std::make_shared<ConvRelayout>(w, kx * ky * kz, inChannels, outChannels));
}

} // namespace lattice
