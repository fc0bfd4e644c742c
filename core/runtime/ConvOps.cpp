// The convolution family (lattice-artifact-validation.md sec. 10.4 "conv family" and
// "normalized family", rules X6, X8-X11): ten ops, one implementation. Each op picks its
// relation and offset family (sec. 10.2-10.3), takes its kernel map from the cache, and runs
// gather -> GEMM -> scatter-add per kernel row: rows of X gathered for the row's edges, one
// GEMM with W_k (C_in × C_out), the products added into their output rows. A kernel row whose
// edges are the identity (a subm centre, a pointwise conv) skips the gather and scatter.
//
// Default numerics accumulate in f32 through the BLAS; exact numerics run the same steps in f64
// (products of f32 values are exact there) and round once at the end. The normalized ops divide
// by sqrt(conv(1, W∘W) + eps), which per output row is the sum over its edges of
// S_k[co] = Σ_ci W_k[ci][co]²; MLX's pointwise bypass (normalized_subm with kernel and dilation
// (1, 1, 1) is a plain subm conv) is kept, as the artifact means what MLX computes.

#include "runtime/OpContext.h"

#include "runtime/Parallel.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace lattice::runtime {

namespace {

struct ConvKind {
  Relation relation;
  OffsetFamily offsets;
  bool target = false;
  bool normalized = false;
};

ConvKind convKind(OpKind kind) {
  switch (kind) {
  case OpKind::Conv3d:
    return {Relation::Forward, OffsetFamily::Sparse};
  case OpKind::SubmConv3d:
    return {Relation::Submanifold, OffsetFamily::Sparse};
  case OpKind::NormalizedSubmConv3d:
    return {Relation::Submanifold, OffsetFamily::Sparse, false, true};
  case OpKind::TargetConv3d:
    return {Relation::Target, OffsetFamily::Sparse, true};
  case OpKind::ConvTranspose3d:
    return {Relation::Transposed, OffsetFamily::Indexed};
  case OpKind::NormalizedConvTranspose3d:
    return {Relation::Transposed, OffsetFamily::Indexed, false, true};
  case OpKind::TargetConvTranspose3d:
    return {Relation::TargetTransposed, OffsetFamily::Indexed, true};
  case OpKind::TargetNormalizedConvTranspose3d:
    return {Relation::TargetTransposed, OffsetFamily::Indexed, true, true};
  case OpKind::NormalizedGenerativeConvTranspose3d:
    return {Relation::Generative, OffsetFamily::IndexedNoDilation, false, true};
  case OpKind::GenerativeConvTranspose3d:
  default:
    return {Relation::Generative, OffsetFamily::IndexedNoDilation};
  }
}

// Edges per GEMM when a kernel row's edges are not in output order: the row goes through the
// gather, GEMM and scatter in pieces of at most this many edges, so the scratch stays small.
constexpr std::int64_t kEdgesPerPiece = 16384;
// Bytes of output rows computed together when edges are in output order: every kernel row's
// edges into that block of Y go through gather, GEMM and scatter-add while the block (and the
// input rows near it) stay in the core's L2 cache.
constexpr std::int64_t kOutputBlockBytes = std::int64_t(1) << 19;

// Y (rows × C_out) = Σ over edges of X[in] · W_k, in T (float: default, double: exact). W is
// (C_out, K, C_in): W_k is read in place as a (C_in × C_out) matrix with strides (1, K·C_in).
template <typename T>
void convolve(OpContext& ctx, const KernelMap& map, const T* x, const T* w, std::int64_t cin, std::int64_t cout,
              std::vector<T>& y) {
  const std::int64_t rows = map.output->rows();
  const std::int64_t wColStride = map.volume * cin;
  y.assign(static_cast<std::size_t>(rows * cout), T(0));
  std::vector<T> gathered, products;
  // Edges [first, first + m) of kernel row k (offsets within the row): gather → GEMM → scatter-add.
  auto apply = [&](std::int64_t k, std::int64_t first, std::int64_t m) {
    const T* wk = w + k * cin;
    const std::int64_t inRun = map.inRun[static_cast<std::size_t>(k)], outRun = map.outRun[static_cast<std::size_t>(k)];
    const std::int32_t* in = map.in.data() + map.begin[k] + first;
    const std::int32_t* out = map.out.data() + map.begin[k] + first;
    ctx.stats.gemms.push_back({m, cin, cout});
    // Consecutive input rows are read in place; otherwise gathered.
    const T* rowsIn = x + (inRun + first) * cin;
    if (inRun < 0) {
      gathered.resize(static_cast<std::size_t>(m * cin));
      T* const g = gathered.data();
      parallelFor(m, 4096, [=](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) std::copy_n(x + static_cast<std::int64_t>(in[i]) * cin, cin, g + i * cin);
      });
      rowsIn = g;
    }
    if (outRun >= 0) { // consecutive output rows: the GEMM adds into Y in place
      gemm(rowsIn, wk, 1, wColStride, y.data() + (outRun + first) * cout, m, cin, cout, true);
      return;
    }
    products.resize(static_cast<std::size_t>(m * cout));
    gemm(rowsIn, wk, 1, wColStride, products.data(), m, cin, cout, false);
    // Within one kernel row every output row has at most one edge: no two chunks write a row.
    T* const yRows = y.data();
    const T* const pRows = products.data();
    parallelFor(m, 4096, [=](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) {
        T* __restrict dst = yRows + static_cast<std::int64_t>(out[i]) * cout;
        const T* __restrict src = pRows + i * cout;
        for (std::int64_t c = 0; c < cout; ++c) dst[c] += src[c];
      }
    });
  };
  if (!map.outputOrdered) {
    for (std::int64_t k = 0; k < map.volume; ++k) {
      ctx.checkCancelled();
      for (std::int64_t first = 0; first < map.edgesOf(k); first += kEdgesPerPiece)
        apply(k, first, std::min(kEdgesPerPiece, map.edgesOf(k) - first));
    }
    return;
  }
  const std::int64_t block = std::max<std::int64_t>(256, kOutputBlockBytes / static_cast<std::int64_t>(cout * sizeof(T) + 1));
  std::vector<std::int64_t> next(map.begin.begin(), map.begin.end() - 1); // per kernel row: its first edge not yet applied
  for (std::int64_t o0 = 0; o0 < rows; o0 += block) {
    ctx.checkCancelled();
    const std::int32_t o1 = static_cast<std::int32_t>(std::min(rows, o0 + block));
    for (std::int64_t k = 0; k < map.volume; ++k) {
      const std::int64_t from = next[static_cast<std::size_t>(k)];
      const std::int64_t to = std::lower_bound(map.out.begin() + from, map.out.begin() + map.begin[k + 1], o1) - map.out.begin();
      next[static_cast<std::size_t>(k)] = to;
      if (to > from) apply(k, from - map.begin[k], to - from);
    }
  }
}

// D[o][co] = Σ over the edges of o of S_k[co], S_k[co] = Σ_ci W_k[ci][co]²: conv(1, W∘W).
template <typename T>
std::vector<T> normalizer(const KernelMap& map, const T* w, std::int64_t cin, std::int64_t cout) {
  std::vector<T> d(static_cast<std::size_t>(map.output->rows() * cout), T(0));
  std::vector<T> s(static_cast<std::size_t>(cout));
  for (std::int64_t k = 0; k < map.volume; ++k) {
    for (std::int64_t c = 0; c < cout; ++c) {
      T sum(0);
      const T* row = w + (c * map.volume + k) * cin;
      for (std::int64_t i = 0; i < cin; ++i) sum += row[i] * row[i];
      s[static_cast<std::size_t>(c)] = sum;
    }
    for (std::int64_t e = map.begin[k]; e < map.begin[k + 1]; ++e) {
      T* dst = d.data() + static_cast<std::int64_t>(map.out[e]) * cout;
      for (std::int64_t c = 0; c < cout; ++c) dst[c] += s[static_cast<std::size_t>(c)];
    }
  }
  return d;
}

template <typename T>
std::shared_ptr<std::vector<float>> compute(OpContext& ctx, const KernelMap& map, const Sparse& x, const float* weight,
                                            const std::vector<float>* bias, std::int64_t cout, bool normalize, double eps,
                                            DType dtype) {
  const std::int64_t cin = x.channels;
  std::vector<T> xWide, wWide; // the exact mode's f64 copies
  const T* xs;
  const T* ws;
  if constexpr (std::is_same_v<T, float>) {
    xs = x.features->data();
    ws = weight;
  } else {
    xWide.assign(x.features->begin(), x.features->end());
    wWide.assign(weight, weight + cout * map.volume * cin);
    xs = xWide.data();
    ws = wWide.data();
  }
  std::vector<T> y;
  convolve<T>(ctx, map, xs, ws, cin, cout, y);
  if (normalize) {
    const std::vector<T> d = normalizer<T>(map, ws, cin, cout);
    const T e = static_cast<T>(static_cast<float>(eps));
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = y[i] / std::sqrt(d[i] + e);
  }
  const std::int64_t rows = map.output->rows();
  if constexpr (std::is_same_v<T, float>) {
    if (bias)
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cout; ++c) y[static_cast<std::size_t>(r * cout + c)] += (*bias)[static_cast<std::size_t>(c)];
    roundInPlace(y, dtype);
    return std::make_shared<std::vector<float>>(std::move(y));
  } else {
    auto out = makeFloats(static_cast<std::size_t>(rows * cout));
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cout; ++c) {
        T v = y[static_cast<std::size_t>(r * cout + c)];
        if (bias) v += static_cast<T>((*bias)[static_cast<std::size_t>(c)]);
        (*out)[static_cast<std::size_t>(r * cout + c)] = roundTo(static_cast<double>(v), dtype);
      }
    return out;
  }
}

} // namespace

void runConvolution(OpContext& ctx) {
  const ConvKind kind = convKind(ctx.op.kind);
  const Sparse& x = ctx.sparse(0);
  const Sparse* target = kind.target ? &ctx.sparse(1) : nullptr;
  const std::size_t w = kind.target ? 2 : 1;
  const WeightRef& weight = ctx.weight(w);
  const WeightRef* bias = ctx.operandCount() > w + 1 ? &ctx.weight(w + 1) : nullptr;

  RelationSpec spec;
  spec.relation = kind.relation;
  spec.offsets = kind.offsets;
  spec.kernel = ctx.op.i64Triple("kernel_size");
  spec.stride = ctx.op.i64TripleOr("stride", {1, 1, 1});
  spec.padding = ctx.op.i64TripleOr("padding", {0, 0, 0});
  spec.dilation = ctx.op.i64TripleOr("dilation", {1, 1, 1});
  const double eps = kind.normalized ? ctx.op.f32("eps") : 0.0;

  if (kind.relation == Relation::Submanifold)
    for (std::int64_t k : spec.kernel)
      if (k % 2 == 0)
        fail("lattice." + std::string(opName(ctx.op.kind)) + " requires odd kernel_size values."); // X9
  if (kind.normalized && !(eps > 0.0)) fail("eps must be positive.");
  if (x.dtype != DType::F32 && x.dtype != DType::F16) fail("convolution features must be float32 or float16.");
  if (!weight.quantized() && weight.dense.dtype() != x.dtype) fail("convolution weights must match feature dtype."); // X8
  if (weight.quantized() && (kind.normalized || kind.relation == Relation::TargetTransposed)) // X6
    fail(kind.relation == Relation::TargetTransposed ? "target transpose convolution does not support packed weights."
                                                     : "normalized convolution does not support packed weights.");

  // Output stride (sec. 10.1) and the target's (X11).
  Triple stride = x.stride;
  switch (kind.relation) {
  case Relation::Forward:
  case Relation::Target:
    stride = forwardStride(x.stride, spec.stride);
    break;
  case Relation::Submanifold: break;
  default: stride = divideStride(x.stride, spec.stride); break;
  }
  if (target && target->stride != stride) {
    if (kind.relation == Relation::Target) fail("target coordinates must use the convolution output stride.");
    fail("target stride " + tripleText(target->stride) + " does not match transposed output stride " +
         tripleText(stride) + ".");
  }

  const ConvWeightView w_k = convWeight(ctx, weight, spec.volume(), x.channels);
  const std::int64_t cout = w_k.outChannels;
  std::shared_ptr<const std::vector<float>> b;
  if (bias) b = vectorWeight(ctx, *bias, cout, "bias");

  bool built = false;
  const auto map = ctx.maps.get(x.coords, target ? target->coords : nullptr, spec, &built);
  if (built) ctx.stats.kernelMapMs += map->buildMs;
  // MLX's pointwise bypass: a 1×1×1 normalized subm conv is a plain subm conv.
  const bool normalize = kind.normalized && !(kind.relation == Relation::Submanifold &&
                                              spec.kernel == Triple{1, 1, 1} && spec.dilation == Triple{1, 1, 1});
  const DType dtype = ctx.resultDType(0);
  std::vector<float> biasCast;
  if (b) { // the bias is cast to the feature dtype (sec. 10.4)
    biasCast = *b;
    roundInPlace(biasCast, x.dtype);
  }
  const std::vector<float>* biasValues = b ? &biasCast : nullptr;
  auto features = ctx.exact()
                      ? compute<double>(ctx, *map, x, w_k.data, biasValues, cout, normalize, eps, dtype)
                      : compute<float>(ctx, *map, x, w_k.data, biasValues, cout, normalize, eps, dtype);
  ctx.setSparseResult(map->output, stride, dtype, map->output->rows(), cout, std::move(features));
  ctx.stats.edges = map->edges();
  ctx.stats.flops =
      2.0 * static_cast<double>(map->edges()) * static_cast<double>(x.channels) * static_cast<double>(cout);
}

} // namespace lattice::runtime
