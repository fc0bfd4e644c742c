// The conv weight re-layout of lowering.md §5.8 as a deferred tensor: the lowering only checks
// shapes and records the source; the bytes are moved when a writer (or a reader of data()) asks,
// so lowering a model touches no weight bytes and a save streams each re-laid weight straight
// into the file, in pieces of whole output channels (the producer's slices), so that the first
// bytes go out before the whole weight is re-laid. The move itself is a cache-blocked transpose
// of every kernel slice; it only moves elements, so it works on any dtype as unsigned integers
// of the element's width. 4-byte elements (f32, the usual case) move as 4×4 blocks through SSE2
// registers where the target has them (every x86-64), a whole block per load and store.

#include "lowering/WeightPacking.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
// elements of E bytes. Loads and stores go through memcpy (one mov once compiled), so a view at
// an unaligned offset of a safetensors file is read correctly.

// One tile [o0, o1) × [i0, i1) of a kernel slice, element by element: slice[i, o] →
// base[o - oBase, i], with rows of `out` elements in the slice and of `dstRow` in the target
// (`base` holds the target's rows from oBase on).
template <std::size_t E> struct Element {
  unsigned char bytes[E];
};
template <std::size_t E>
void moveTile(const uint8_t* slice, uint8_t* base, int64_t out, int64_t dstRow, int64_t oBase, int64_t o0, int64_t o1,
              int64_t i0, int64_t i1) {
  for (int64_t o = o0; o < o1; ++o) {
    uint8_t* row = base + (o - oBase) * dstRow * int64_t(E);
    for (int64_t i = i0; i < i1; ++i) {
      Element<E> value;
      std::memcpy(&value, slice + (i * out + o) * int64_t(E), E);
      std::memcpy(row + i * int64_t(E), &value, E);
    }
  }
}

#if defined(__SSE2__)
// 4-byte elements: 4×4 blocks are loaded as four rows of the slice, transposed in registers
// (shuffles move bits unchanged, so any 4-byte dtype may pass as float) and stored as four
// rows of the target; the tile's edges that are not a multiple of 4 go element by element.
template <>
void moveTile<4>(const uint8_t* slice, uint8_t* base, int64_t out, int64_t dstRow, int64_t oBase, int64_t o0,
                 int64_t o1, int64_t i0, int64_t i1) {
  const auto src = [&](int64_t i, int64_t o) { return reinterpret_cast<const float*>(slice + (i * out + o) * 4); };
  const auto dst = [&](int64_t o, int64_t i) { return reinterpret_cast<float*>(base + ((o - oBase) * dstRow + i) * 4); };
  const int64_t o4 = o0 + (o1 - o0) / 4 * 4;
  const int64_t i4 = i0 + (i1 - i0) / 4 * 4;
  for (int64_t o = o0; o < o4; o += 4)
    for (int64_t i = i0; i < i4; i += 4) {
      __m128 r0 = _mm_loadu_ps(src(i, o));
      __m128 r1 = _mm_loadu_ps(src(i + 1, o));
      __m128 r2 = _mm_loadu_ps(src(i + 2, o));
      __m128 r3 = _mm_loadu_ps(src(i + 3, o));
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      _mm_storeu_ps(dst(o, i), r0);
      _mm_storeu_ps(dst(o + 1, i), r1);
      _mm_storeu_ps(dst(o + 2, i), r2);
      _mm_storeu_ps(dst(o + 3, i), r3);
    }
  Element<4> value;
  const auto one = [&](int64_t o, int64_t i) {
    std::memcpy(&value, src(i, o), 4);
    std::memcpy(dst(o, i), &value, 4);
  };
  for (int64_t o = o0; o < o4; ++o) // right edge
    for (int64_t i = i4; i < i1; ++i) one(o, i);
  for (int64_t o = o4; o < o1; ++o) // bottom edge
    for (int64_t i = i0; i < i1; ++i) one(o, i);
}
#endif

// The output channels [oBegin, oEnd) of the re-laid weight, out[oBegin..oEnd, :, :], into `dst`.
template <std::size_t E>
void relayout(const uint8_t* src, uint8_t* dst, int64_t kernel, int64_t in, int64_t out, int64_t oBegin, int64_t oEnd) {
  constexpr int64_t kBlock = 32; // 32×32 elements of ≤ 8 bytes: both tiles stay in L1
  const int64_t dstRow = kernel * in; // elements between out[o, ...] and out[o + 1, ...]
  for (int64_t k = 0; k < kernel; ++k) {
    const uint8_t* slice = src + k * in * out * int64_t(E); // (C_in, C_out)
    uint8_t* base = dst + k * in * int64_t(E);              // out[oBegin, k, 0]
    for (int64_t o0 = oBegin; o0 < oEnd; o0 += kBlock)
      for (int64_t i0 = 0; i0 < in; i0 += kBlock)
        moveTile<E>(slice, base, out, dstRow, oBegin, o0, std::min(oEnd, o0 + kBlock), i0, std::min(in, i0 + kBlock));
  }
}

class ConvRelayout final : public TensorProducer {
public:
  ConvRelayout(TensorData source, int64_t kernel, int64_t in, int64_t out)
      : m_source(std::move(source)), m_kernel(kernel), m_in(in), m_out(out) {}

  void produce(uint8_t* dst) const override { produceChannels(dst, 0, m_out); }
  // One slice is one output channel, out[o, :, :]: a writer streams a large weight in pieces.
  std::size_t sliceBytes() const override {
    return static_cast<std::size_t>(m_kernel * m_in) * dtypeSize(m_source.dtype());
  }
  void produceSlices(uint8_t* dst, std::size_t first, std::size_t count) const override {
    produceChannels(dst, static_cast<int64_t>(first), static_cast<int64_t>(first + count));
  }

private:
  void produceChannels(uint8_t* dst, int64_t oBegin, int64_t oEnd) const {
    const uint8_t* src = m_source.data();
    switch (dtypeSize(m_source.dtype())) {
    case 1: relayout<1>(src, dst, m_kernel, m_in, m_out, oBegin, oEnd); break;
    case 2: relayout<2>(src, dst, m_kernel, m_in, m_out, oBegin, oEnd); break;
    case 4: relayout<4>(src, dst, m_kernel, m_in, m_out, oBegin, oEnd); break;
    default: relayout<8>(src, dst, m_kernel, m_in, m_out, oBegin, oEnd); break;
    }
  }

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
