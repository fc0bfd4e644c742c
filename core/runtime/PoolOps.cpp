// Pooling and upsampling (lattice-artifact-validation.md sec. 10.4): pool3d (sum, max, avg over
// the forward relation), pool_transpose3d (mean over the transposed or target-transposed
// relation), trilinear_upsample3d (weighted mean over a (2σ−1)³ indexed kernel), and
// global_pool (per batch), with rules X10-X13; max keeps a NaN, as PyTorch and MLX do. The local
// ops run over the same cached kernel maps as the convolutions; per kernel row an output row has
// at most one edge, so each row's accumulation is written by one thread.

#include "runtime/OpContext.h"

#include "runtime/CoordSet.h"
#include "runtime/Parallel.h"

#include <cmath>
#include <limits>

namespace lattice::runtime {

namespace {

void requireF32(const Sparse& x) {
  if (x.dtype != DType::F32) fail("float16 local sparse pooling requires Metal."); // X12
}

void checkTarget(const Sparse* target, const Triple& stride) {
  if (target && target->stride != stride) // X11
    fail("target stride " + tripleText(target->stride) + " does not match transposed output stride " +
         tripleText(stride) + ".");
}

std::shared_ptr<const KernelMap> mapFor(OpContext& ctx, const Sparse& x, const Sparse* target, const RelationSpec& spec) {
  bool built = false;
  auto map = ctx.maps.get(x.coords, target ? target->coords : nullptr, spec, &built);
  if (built) ctx.stats.kernelMapMs += map->buildMs;
  ctx.stats.edges = map->edges();
  return map;
}

// Σ over edges of weight_k · X[in] into acc (rows × C, T), and Σ weight_k into den (rows).
template <typename T>
void weightedSum(OpContext& ctx, const KernelMap& map, const Sparse& x, const std::vector<double>& kernelWeights,
                 std::vector<T>& acc, std::vector<T>& den) {
  const std::int64_t C = x.channels;
  acc.assign(static_cast<std::size_t>(map.output->rows() * C), T(0));
  den.assign(static_cast<std::size_t>(map.output->rows()), T(0));
  for (std::int64_t k = 0; k < map.volume; ++k) {
    ctx.checkCancelled();
    const T wk = static_cast<T>(kernelWeights[static_cast<std::size_t>(k)]);
    const std::int64_t first = map.begin[k];
    parallelFor(map.edgesOf(k), 4096, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = first + b; i < first + e; ++i) {
        const std::int64_t o = map.out[i];
        const float* src = x.features->data() + static_cast<std::int64_t>(map.in[i]) * C;
        T* dst = acc.data() + o * C;
        for (std::int64_t c = 0; c < C; ++c) dst[c] += wk * static_cast<T>(src[c]);
        den[static_cast<std::size_t>(o)] += wk;
      }
    });
  }
}

// Y = acc / den per row (0 when den is 0; MLX divides by max(den, 1e-12) when den > 0).
template <typename T>
std::shared_ptr<std::vector<float>> weightedMean(OpContext& ctx, const KernelMap& map, const Sparse& x,
                                                 const std::vector<double>& kernelWeights, DType dtype) {
  std::vector<T> acc, den;
  weightedSum<T>(ctx, map, x, kernelWeights, acc, den);
  const std::int64_t C = x.channels, rows = map.output->rows();
  auto out = makeFloats(static_cast<std::size_t>(rows * C));
  for (std::int64_t r = 0; r < rows; ++r) {
    const T d = den[static_cast<std::size_t>(r)];
    if (!(d > T(0))) continue;
    const T scale = d > T(1e-12) ? d : T(1e-12);
    for (std::int64_t c = 0; c < C; ++c)
      (*out)[static_cast<std::size_t>(r * C + c)] = roundTo(static_cast<double>(acc[static_cast<std::size_t>(r * C + c)] / scale), dtype);
  }
  return out;
}

void setResult(OpContext& ctx, const KernelMap& map, const Sparse& x, const Triple& stride,
               std::shared_ptr<std::vector<float>> features) {
  ctx.setSparseResult(map.output, stride, ctx.resultDType(0), map.output->rows(), x.channels,
                      std::move(features));
}

} // namespace

void runPool(OpContext& ctx) {
  const Sparse& x = ctx.sparse(0);
  requireF32(x);
  const std::string& mode = ctx.op.text("mode");
  RelationSpec spec;
  spec.relation = Relation::Forward;
  spec.offsets = OffsetFamily::Sparse;
  spec.kernel = ctx.op.i64Triple("kernel_size");
  spec.stride = ctx.op.i64Triple("stride");
  spec.padding = ctx.op.i64Triple("padding");
  spec.dilation = ctx.op.i64Triple("dilation");
  const auto map = mapFor(ctx, x, nullptr, spec);
  const Triple stride = forwardStride(x.stride, spec.stride);
  const std::int64_t C = x.channels, rows = map->output->rows();
  std::shared_ptr<std::vector<float>> out;
  if (mode == "max") {
    out = makeFloats(static_cast<std::size_t>(rows * C), -std::numeric_limits<float>::infinity());
    for (std::int64_t k = 0; k < map->volume; ++k) {
      const std::int64_t first = map->begin[k];
      parallelFor(map->edgesOf(k), 4096, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = first + b; i < first + e; ++i) {
          const float* src = x.features->data() + static_cast<std::int64_t>(map->in[i]) * C;
          float* dst = out->data() + static_cast<std::int64_t>(map->out[i]) * C;
          for (std::int64_t c = 0; c < C; ++c) dst[c] = maxOrNaN(dst[c], src[c]);
        }
      });
    }
  } else {
    const std::vector<double> ones(static_cast<std::size_t>(map->volume), 1.0);
    out = makeFloats(static_cast<std::size_t>(rows * C));
    auto finish = [&](const auto& acc, const auto& deg) {
      using T = typename std::decay_t<decltype(acc)>::value_type;
      for (std::int64_t r = 0; r < rows; ++r) {
        // avg: Σ · (1 / max(deg, 1)), the reciprocal taken first as MLX does.
        const T scale = mode == "avg" ? T(1) / std::max(T(1), deg[static_cast<std::size_t>(r)]) : T(1);
        for (std::int64_t c = 0; c < C; ++c)
          (*out)[static_cast<std::size_t>(r * C + c)] = static_cast<float>(acc[static_cast<std::size_t>(r * C + c)] * scale);
      }
    };
    if (ctx.exact()) {
      std::vector<double> acc, deg;
      weightedSum<double>(ctx, *map, x, ones, acc, deg);
      finish(acc, deg);
    } else {
      std::vector<float> acc, deg;
      weightedSum<float>(ctx, *map, x, ones, acc, deg);
      finish(acc, deg);
    }
  }
  setResult(ctx, *map, x, stride, std::move(out));
}

void runPoolTranspose(OpContext& ctx) {
  const Sparse& x = ctx.sparse(0);
  const Sparse* target = ctx.operandCount() > 1 ? &ctx.sparse(1) : nullptr;
  requireF32(x);
  RelationSpec spec;
  spec.relation = target ? Relation::TargetTransposed : Relation::Transposed;
  spec.offsets = OffsetFamily::Indexed;
  spec.kernel = ctx.op.i64Triple("kernel_size");
  spec.stride = ctx.op.i64Triple("stride");
  spec.padding = ctx.op.i64Triple("padding");
  spec.dilation = ctx.op.i64Triple("dilation");
  const Triple stride = divideStride(x.stride, spec.stride);
  checkTarget(target, stride);
  const auto map = mapFor(ctx, x, target, spec);
  const std::vector<double> ones(static_cast<std::size_t>(map->volume), 1.0);
  auto out = ctx.exact() ? weightedMean<double>(ctx, *map, x, ones, ctx.resultDType(0))
                         : weightedMean<float>(ctx, *map, x, ones, ctx.resultDType(0));
  setResult(ctx, *map, x, stride, std::move(out));
}

void runTrilinearUpsample(OpContext& ctx) {
  const Sparse& x = ctx.sparse(0);
  const Sparse* target = ctx.operandCount() > 1 ? &ctx.sparse(1) : nullptr;
  const Triple sigma = ctx.op.i64Triple("stride");
  RelationSpec spec;
  spec.relation = target ? Relation::TargetTransposed : Relation::Transposed;
  spec.offsets = OffsetFamily::Indexed;
  for (int a = 0; a < 3; ++a) {
    if (sigma[a] < 1) fail("stride values must be strictly positive");
    if (sigma[a] > kMaxKernelVolume) // the kernel 2σ − 1 alone would pass the limit (and overflow later)
      fail("the kernel of stride " + tripleText(sigma) + " (2·stride − 1 per axis) exceeds the runtime's limit of " +
           std::to_string(kMaxKernelVolume) + " kernel rows");
    spec.kernel[a] = 2 * sigma[a] - 1;
    spec.stride[a] = sigma[a];
    spec.padding[a] = sigma[a] - 1;
  }
  const Triple stride = divideStride(x.stride, sigma);
  checkTarget(target, stride);
  const auto map = mapFor(ctx, x, target, spec);
  // w_k = Π_a (1 − |off_a − (σ_a − 1)| / σ_a) over the indexed offsets.
  std::vector<double> weights;
  for (const Triple& off : kernelOffsets(spec)) {
    double w = 1.0;
    for (int a = 0; a < 3; ++a)
      w *= 1.0 - std::fabs(static_cast<double>(off[a] - (sigma[a] - 1))) / static_cast<double>(sigma[a]);
    weights.push_back(ctx.exact() ? w : static_cast<double>(static_cast<float>(w)));
  }
  auto out = ctx.exact() ? weightedMean<double>(ctx, *map, x, weights, ctx.resultDType(0))
                         : weightedMean<float>(ctx, *map, x, weights, ctx.resultDType(0));
  setResult(ctx, *map, x, stride, std::move(out));
}

void runGlobalPool(OpContext& ctx) {
  const Sparse& x = ctx.sparse(0);
  const std::string& mode = ctx.op.text("mode");
  const std::int64_t declared = ctx.op.i64("batch_size");
  const std::int64_t rows = x.rows(), C = x.channels;
  std::int64_t B = declared;
  if (B < 0) {
    B = 0;
    for (std::int64_t r = 0; r < rows; ++r) B = std::max<std::int64_t>(B, x.coords->row(r)[0] + 1);
  }
  if (B > kMaxBatch + 1)
    fail("global_pool batch_size " + std::to_string(B) + " exceeds the runtime's limit of " + std::to_string(kMaxBatch + 1));
  std::vector<double> acc(static_cast<std::size_t>(B * C), mode == "max" ? -std::numeric_limits<double>::infinity() : 0.0);
  std::vector<float> accF(acc.size(), mode == "max" ? -std::numeric_limits<float>::infinity() : 0.0f);
  std::vector<std::int64_t> count(static_cast<std::size_t>(B), 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t b = x.coords->row(r)[0];
    if (b < 0 || b >= B) continue;
    ++count[static_cast<std::size_t>(b)];
    const float* src = x.features->data() + r * C;
    for (std::int64_t c = 0; c < C; ++c) {
      const std::size_t at = static_cast<std::size_t>(b * C + c);
      if (mode == "max") {
        acc[at] = maxOrNaN(acc[at], static_cast<double>(src[c]));
        accF[at] = maxOrNaN(accF[at], src[c]);
      } else {
        acc[at] += src[c];
        accF[at] += src[c];
      }
    }
  }
  if (mode == "max")
    for (std::int64_t b = 0; b < B; ++b)
      if (count[static_cast<std::size_t>(b)] == 0) fail("global_max_pool does not support empty batches."); // X13
  const DType dtype = ctx.resultDType(0);
  auto out = makeFloats(static_cast<std::size_t>(B * C));
  for (std::int64_t b = 0; b < B; ++b) {
    const std::int64_t n = count[static_cast<std::size_t>(b)];
    for (std::int64_t c = 0; c < C; ++c) {
      const std::size_t at = static_cast<std::size_t>(b * C + c);
      double v = ctx.exact() ? acc[at] : static_cast<double>(accF[at]);
      if (mode == "avg") v = n == 0 ? 0.0 : (ctx.exact() ? v / static_cast<double>(n) : static_cast<double>(accF[at] / static_cast<float>(n)));
      (*out)[at] = roundTo(v, dtype);
    }
  }
  ctx.stats.rows = B;
  ctx.results[0] = Tensor{dtype, {B, C}, std::move(out), nullptr};
}

} // namespace lattice::runtime
