// The dense feature ops (lattice-artifact-validation.md sec. 10.4): linear (dense and quantized,
// the latter on MLX's path: x cast to the scale dtype for the matmul and the product cast back),
// embedding_lookup, elementwise, softmax, activation, batch_norm, layer_norm and rms_norm, with
// rules X17 and X18. Each computes in T = float (default) or double (exact) and rounds once to
// the result dtype. A NaN propagates through every activation, as in PyTorch and MLX.

#include "runtime/OpContext.h"

#include "runtime/Parallel.h"
#include "tensor/TensorConvert.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace lattice::runtime {

namespace {

const Tensor& featureOperand(const OpContext& ctx, std::size_t i) {
  const Tensor& t = ctx.tensor(i);
  if (!t.floats || t.shape.size() != 2) fail("input must be a floating-point tensor of rank 2");
  return t;
}

Tensor floatResult(OpContext& ctx, std::int64_t rows, std::int64_t cols, std::shared_ptr<std::vector<float>> values) {
  ctx.stats.rows = rows;
  return Tensor{ctx.resultDType(0), {rows, cols}, std::move(values), nullptr};
}

// out = f(row values) per row, f writing C values from C inputs in T.
template <typename T, typename F>
std::shared_ptr<std::vector<float>> mapRows(const Tensor& x, DType dtype, const F& f) {
  const std::int64_t rows = x.shape[0], C = x.shape[1];
  auto out = makeFloats(static_cast<std::size_t>(rows * C));
  parallelFor(rows, 256, [&](std::int64_t first, std::int64_t last) {
    std::vector<T> in(static_cast<std::size_t>(C)), res(static_cast<std::size_t>(C));
    for (std::int64_t r = first; r < last; ++r) {
      for (std::int64_t c = 0; c < C; ++c) in[static_cast<std::size_t>(c)] = static_cast<T>((*x.floats)[static_cast<std::size_t>(r * C + c)]);
      f(in.data(), res.data(), C);
      for (std::int64_t c = 0; c < C; ++c)
        (*out)[static_cast<std::size_t>(r * C + c)] = roundTo(static_cast<double>(res[static_cast<std::size_t>(c)]), dtype);
    }
  });
  return out;
}

enum class Act { Relu, Sigmoid, Silu, Tanh, LeakyRelu, Softplus, GeluErf, GeluTanh, GeluFast };

Act activationKind(const std::string& kind, const std::string& approximate) {
  if (kind == "relu") return Act::Relu;
  if (kind == "sigmoid") return Act::Sigmoid;
  if (kind == "silu") return Act::Silu;
  if (kind == "tanh") return Act::Tanh;
  if (kind == "leaky_relu") return Act::LeakyRelu;
  if (kind == "softplus") return Act::Softplus;
  if (kind != "gelu") fail("activation must be relu, sigmoid, gelu, silu, leaky_relu, tanh, or softplus");
  if (approximate == "tanh") return Act::GeluTanh;
  if (approximate == "fast") return Act::GeluFast;
  return Act::GeluErf; // none, precise
}

template <typename T> struct ActParams {
  T alpha, beta, threshold;
};

template <Act K, typename T> inline T activate(T x, const ActParams<T>& p) {
  const T one(1), half(0.5);
  if constexpr (K == Act::Relu) return std::isnan(x) || x > T(0) ? x : T(0); // relu(NaN) is NaN
  if constexpr (K == Act::Sigmoid) return one / (one + std::exp(-x));
  if constexpr (K == Act::Silu) return x * (one / (one + std::exp(-x)));
  if constexpr (K == Act::Tanh) return std::tanh(x);
  if constexpr (K == Act::LeakyRelu) return x >= T(0) ? x : p.alpha * x;
  if constexpr (K == Act::Softplus) return p.beta * x > p.threshold ? x : std::log1p(std::exp(p.beta * x)) / p.beta;
  if constexpr (K == Act::GeluTanh) return half * x * (one + std::tanh(T(0.7978845608028654) * (x + T(0.044715) * x * x * x)));
  if constexpr (K == Act::GeluFast) return x * (one / (one + std::exp(-T(1.702) * x)));
  if constexpr (K == Act::GeluErf) return half * x * (one + std::erf(x / std::sqrt(T(2))));
  return x;
}

// out[i] = f(in[i]) over a whole buffer, in parallel chunks, rounded to `dtype`.
template <typename T, typename F>
std::shared_ptr<std::vector<float>> mapElements(const std::vector<float>& in, DType dtype, const F& f) {
  auto out = std::make_shared<std::vector<float>>(in.size());
  const float* src = in.data();
  float* dst = out->data();
  parallelFor(static_cast<std::int64_t>(in.size()), 1 << 14, [src, dst, &f](std::int64_t first, std::int64_t last) {
    for (std::int64_t i = first; i < last; ++i) dst[i] = static_cast<float>(f(static_cast<T>(src[i])));
  });
  roundInPlace(*out, dtype);
  return out;
}

template <Act K, typename T>
std::shared_ptr<std::vector<float>> activateAll(const std::vector<float>& in, DType dtype, const ActParams<T>& p) {
  return mapElements<T>(in, dtype, [&](T x) { return activate<K, T>(x, p); });
}

template <typename T> void runActivationT(OpContext& ctx, const Tensor& x) {
  const Act kind = activationKind(ctx.op.text("kind"), ctx.op.text("approximate"));
  const ActParams<T> p{static_cast<T>(static_cast<float>(ctx.op.f32("alpha"))), static_cast<T>(static_cast<float>(ctx.op.f32("beta"))),
                       static_cast<T>(static_cast<float>(ctx.op.f32("threshold")))};
  const DType dtype = ctx.resultDType(0);
  std::shared_ptr<std::vector<float>> out;
  switch (kind) {
  case Act::Relu: out = activateAll<Act::Relu>(*x.floats, dtype, p); break;
  case Act::Sigmoid: out = activateAll<Act::Sigmoid>(*x.floats, dtype, p); break;
  case Act::Silu: out = activateAll<Act::Silu>(*x.floats, dtype, p); break;
  case Act::Tanh: out = activateAll<Act::Tanh>(*x.floats, dtype, p); break;
  case Act::LeakyRelu: out = activateAll<Act::LeakyRelu>(*x.floats, dtype, p); break;
  case Act::Softplus: out = activateAll<Act::Softplus>(*x.floats, dtype, p); break;
  case Act::GeluErf: out = activateAll<Act::GeluErf>(*x.floats, dtype, p); break;
  case Act::GeluTanh: out = activateAll<Act::GeluTanh>(*x.floats, dtype, p); break;
  case Act::GeluFast: out = activateAll<Act::GeluFast>(*x.floats, dtype, p); break;
  }
  ctx.results[0] = floatResult(ctx, x.shape[0], x.shape[1], std::move(out));
}

template <typename T> void runSoftmaxT(OpContext& ctx, const Tensor& x) {
  auto out = mapRows<T>(x, ctx.resultDType(0), [&](const T* in, T* res, std::int64_t C) {
    T mx = -std::numeric_limits<T>::infinity();
    for (std::int64_t c = 0; c < C; ++c) mx = maxOrNaN(mx, in[c]);
    T sum(0);
    for (std::int64_t c = 0; c < C; ++c) sum += (res[c] = std::exp(in[c] - mx));
    for (std::int64_t c = 0; c < C; ++c) res[c] /= sum;
  });
  ctx.results[0] = floatResult(ctx, x.shape[0], x.shape[1], std::move(out));
}

template <typename T> void runLinearT(OpContext& ctx, const Tensor& x, const std::vector<float>& wio, // (C_out, C_in)
                                      const std::vector<float>* bias, std::int64_t cout, bool castToHalf) {
  const std::int64_t rows = x.shape[0], cin = x.shape[1];
  std::vector<T> xs(x.floats->begin(), x.floats->end());
  if (castToHalf)
    for (T& v : xs) v = static_cast<T>(roundToHalf(static_cast<float>(v)));
  std::vector<T> ws(wio.begin(), wio.end()); // (C_out, C_in): the GEMM reads Wᵀ in place
  std::vector<T> y(static_cast<std::size_t>(rows * cout));
  gemm(xs.data(), ws.data(), 1, cin, y.data(), rows, cin, cout, false);
  ctx.stats.gemms.push_back({rows, cin, cout});
  ctx.stats.flops = 2.0 * static_cast<double>(rows) * static_cast<double>(cin) * static_cast<double>(cout);
  const DType dtype = ctx.resultDType(0);
  auto out = makeFloats(y.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cout; ++c) {
      T v = y[static_cast<std::size_t>(r * cout + c)];
      if (castToHalf) v = static_cast<T>(roundToHalf(static_cast<float>(v))); // the f16 matmul's result, cast back
      if (bias) v += static_cast<T>((*bias)[static_cast<std::size_t>(c)]);
      (*out)[static_cast<std::size_t>(r * cout + c)] = roundTo(static_cast<double>(v), dtype);
    }
  ctx.results[0] = floatResult(ctx, rows, cout, std::move(out));
}

template <typename T> std::vector<T> channelValues(OpContext& ctx, std::size_t operand, std::int64_t channels, const char* what) {
  const auto w = vectorWeight(ctx, ctx.weight(operand), channels, what);
  return std::vector<T>(w->begin(), w->end());
}

template <typename T> void runBatchNormT(OpContext& ctx, const Tensor& x) {
  const std::int64_t C = x.shape[1], rows = x.shape[0];
  const T eps = static_cast<T>(static_cast<float>(ctx.op.f32("eps")));
  const std::vector<T> scale = channelValues<T>(ctx, 1, C, "scale"), bias = channelValues<T>(ctx, 2, C, "bias"),
                       mean = channelValues<T>(ctx, 3, C, "mean"), var = channelValues<T>(ctx, 4, C, "var");
  std::vector<T> inv(static_cast<std::size_t>(C)); // rsqrt(var + eps), once per channel
  for (std::int64_t c = 0; c < C; ++c) inv[static_cast<std::size_t>(c)] = T(1) / std::sqrt(var[static_cast<std::size_t>(c)] + eps);
  auto out = std::make_shared<std::vector<float>>(static_cast<std::size_t>(rows * C));
  parallelFor(rows, 1024, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t r = first; r < last; ++r) {
      const float* in = x.floats->data() + r * C;
      float* dst = out->data() + r * C;
      for (std::int64_t c = 0; c < C; ++c)
        dst[c] = static_cast<float>((static_cast<T>(in[c]) - mean[static_cast<std::size_t>(c)]) * inv[static_cast<std::size_t>(c)] *
                                        scale[static_cast<std::size_t>(c)] +
                                    bias[static_cast<std::size_t>(c)]);
    }
  });
  roundInPlace(*out, ctx.resultDType(0));
  ctx.results[0] = floatResult(ctx, rows, C, std::move(out));
}

template <typename T> void runLayerNormT(OpContext& ctx, const Tensor& x, bool rms) {
  const std::int64_t C = x.shape[1];
  const T eps = static_cast<T>(static_cast<float>(ctx.op.f32("eps")));
  const std::vector<T> scale = channelValues<T>(ctx, 1, C, "scale");
  const std::vector<T> bias = rms ? std::vector<T>(static_cast<std::size_t>(C), T(0)) : channelValues<T>(ctx, 2, C, "bias");
  auto out = mapRows<T>(x, ctx.resultDType(0), [&](const T* in, T* res, std::int64_t n) {
    if (rms) { // x · rsqrt(mean(x²) + eps) · scale
      T sq(0);
      for (std::int64_t c = 0; c < n; ++c) sq += in[c] * in[c];
      const T inv = T(1) / std::sqrt(sq / static_cast<T>(n) + eps);
      for (std::int64_t c = 0; c < n; ++c) res[c] = in[c] * inv * scale[static_cast<std::size_t>(c)];
      return;
    }
    T mean(0), var(0); // biased variance
    for (std::int64_t c = 0; c < n; ++c) mean += in[c];
    mean /= static_cast<T>(n);
    for (std::int64_t c = 0; c < n; ++c) var += (in[c] - mean) * (in[c] - mean);
    var /= static_cast<T>(n);
    const T inv = T(1) / std::sqrt(var + eps);
    for (std::int64_t c = 0; c < n; ++c) res[c] = (in[c] - mean) * inv * scale[static_cast<std::size_t>(c)] + bias[static_cast<std::size_t>(c)];
  });
  ctx.results[0] = floatResult(ctx, x.shape[0], C, std::move(out));
}

template <typename F> void byNumerics(OpContext& ctx, const F& f) {
  if (ctx.exact())
    f(double{});
  else
    f(float{});
}

} // namespace

void runLinear(OpContext& ctx) {
  const Tensor& x = featureOperand(ctx, 0);
  const WeightRef& w = ctx.weight(1);
  std::int64_t cout = 0;
  const auto wio = linearWeight(ctx, w, x.shape[1], &cout);
  std::shared_ptr<const std::vector<float>> bias;
  if (ctx.operandCount() > 2) bias = vectorWeight(ctx, ctx.weight(2), cout, "bias");
  const bool castToHalf = w.quantized() && w.packing.scaleDtype == "f16";
  byNumerics(ctx, [&](auto tag) { runLinearT<decltype(tag)>(ctx, x, *wio, bias.get(), cout, castToHalf); });
}

void runEmbeddingLookup(OpContext& ctx) {
  const Tensor& idx = ctx.tensor(0);
  if (!idx.ints) fail("lattice.embedding_lookup indices must be integers."); // X17
  std::int64_t rows = 0, C = 0;
  const auto table = embeddingWeight(ctx, ctx.weight(1), &rows, &C);
  const std::int64_t n = idx.numel();
  auto out = makeFloats(static_cast<std::size_t>(n * C));
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t i = (*idx.ints)[static_cast<std::size_t>(r)];
    if (i < 0 || i >= rows)
      fail("embedding index " + std::to_string(i) + " of row " + std::to_string(r) + " is outside the " +
           std::to_string(rows) + " rows of the weight");
    std::copy_n(table->data() + i * C, C, out->data() + r * C);
  }
  roundInPlace(*out, ctx.resultDType(0));
  ctx.results[0] = floatResult(ctx, n, C, std::move(out));
}

void runElementwise(OpContext& ctx) {
  const Tensor& x = featureOperand(ctx, 0);
  const std::string& kind = ctx.op.text("kind");
  if (kind != "exp" && kind != "round") fail("IR v2 lattice.elementwise only supports exp and round."); // X18
  // Computed in f32 in both modes (sec. 10.4).
  std::shared_ptr<std::vector<float>> out;
  if (kind == "exp") {
    out = mapElements<float>(*x.floats, ctx.resultDType(0), [](float v) { return std::exp(v); });
  } else { // round half to even: +1 when frac > 0.5, or frac == 0.5 and lower is odd
    out = mapElements<float>(*x.floats, ctx.resultDType(0), [](float v) {
      const float lower = std::floor(v), frac = v - lower;
      const bool odd = std::fmod(lower, 2.0f) != 0.0f;
      return lower + ((frac > 0.5f || (frac == 0.5f && odd)) ? 1.0f : 0.0f);
    });
  }
  ctx.results[0] = floatResult(ctx, x.shape[0], x.shape[1], std::move(out));
}

void runSoftmax(OpContext& ctx) {
  const Tensor& x = featureOperand(ctx, 0);
  const std::int64_t axis = ctx.op.i64("axis");
  if (axis != -1 && axis != 1) fail("IR v2 lattice.softmax only supports the last axis."); // X18
  byNumerics(ctx, [&](auto tag) { runSoftmaxT<decltype(tag)>(ctx, x); });
}

void runActivation(OpContext& ctx) {
  const Tensor& x = featureOperand(ctx, 0);
  byNumerics(ctx, [&](auto tag) { runActivationT<decltype(tag)>(ctx, x); });
}

void runBatchNorm(OpContext& ctx) {
  const Tensor& x = featureOperand(ctx, 0);
  byNumerics(ctx, [&](auto tag) { runBatchNormT<decltype(tag)>(ctx, x); });
}

void runLayerNorm(OpContext& ctx) {
  const Tensor& x = featureOperand(ctx, 0);
  byNumerics(ctx, [&](auto tag) { runLayerNormT<decltype(tag)>(ctx, x, false); });
}

void runRmsNorm(OpContext& ctx) {
  const Tensor& x = featureOperand(ctx, 0);
  byNumerics(ctx, [&](auto tag) { runLayerNormT<decltype(tag)>(ctx, x, true); });
}

} // namespace lattice::runtime
