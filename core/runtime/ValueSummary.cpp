// Value summaries: one template over the element type (float features, int64 integers) computes
// the counts and moments; the histogram shares the same element walk shape.

#include "runtime/ValueSummary.h"

#include "runtime/CoordSet.h"
#include "runtime/Runtime.h"
#include "tensor/TensorConvert.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lattice::runtime {

int Histogram::binOf(double value) const {
  if (counts.empty()) return -1;
  const double width = binWidth();
  if (width <= 0) return 0;
  const int bin = static_cast<int>(std::floor((value - min) / width));
  return std::clamp(bin, 0, static_cast<int>(counts.size()) - 1);
}

double Histogram::binLow(int bin) const {
  if (bin >= static_cast<int>(counts.size())) return max;
  return min + binWidth() * static_cast<double>(bin);
}

namespace {

template <typename T> Histogram histogramOf(const T* values, std::size_t count, int bins) {
  Histogram h;
  h.total = count;
  bool any = false;
  for (std::size_t i = 0; i < count; ++i) {
    const double v = static_cast<double>(values[i]);
    if (!std::isfinite(v)) {
      ++h.nonFinite;
      continue;
    }
    if (!any || v < h.min) h.min = v;
    if (!any || v > h.max) h.max = v;
    any = true;
    if (v == 0.0) ++h.zeros;
  }
  if (!any) return h;
  h.counts.assign(h.max > h.min ? static_cast<std::size_t>(std::max(1, bins)) : 1u, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const double v = static_cast<double>(values[i]);
    if (std::isfinite(v)) ++h.counts[static_cast<std::size_t>(h.binOf(v))];
  }
  return h;
}

/// Counts, moments and histogram of `count` elements into `s`.
template <typename T> void summarizeElements(const T* values, std::size_t count, int bins, ValueSummary& s) {
  s.count = count;
  double sum = 0.0;
  double lo = 0.0;
  double hi = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    const double v = static_cast<double>(values[i]);
    if (std::isnan(v)) {
      ++s.nan;
    } else if (std::isinf(v)) {
      ++(v > 0 ? s.posInf : s.negInf);
    } else {
      if (s.finite == 0 || v < lo) lo = v;
      if (s.finite == 0 || v > hi) hi = v;
      ++s.finite;
      sum += v;
      if (v == 0.0) ++s.zeros;
    }
  }
  if (s.finite > 0) {
    // Two passes: the squared deviations from the mean, not E[x²] − E[x]², which cancels badly
    // when the mean is large against the spread.
    const double mean = sum / static_cast<double>(s.finite);
    double squares = 0.0;
    for (std::size_t i = 0; i < count; ++i) {
      const double v = static_cast<double>(values[i]);
      if (!std::isfinite(v)) continue;
      squares += (v - mean) * (v - mean);
    }
    s.min = lo;
    s.max = hi;
    s.mean = mean;
    s.stddev = std::sqrt(squares / static_cast<double>(s.finite));
  }
  s.histogram = histogramOf(values, count, bins);
}

void summarizeTensorData(const TensorData& t, int bins, ValueSummary& s) {
  s.dtype = t.dtype();
  s.shape = t.shape();
  const bool isFloat = t.dtype() == DType::F32 || t.dtype() == DType::F16 || t.dtype() == DType::BF16 ||
                       t.dtype() == DType::F64;
  if (isFloat) {
    Expected<std::vector<float>> floats = toFloatVector(t);
    if (!floats) {
      s.note = floats.message();
      return;
    }
    summarizeElements(floats->data(), floats->size(), bins, s);
    return;
  }
  Expected<std::vector<std::int64_t>> ints = toIntVector(t);
  if (!ints) {
    s.note = ints.message();
    return;
  }
  summarizeElements(ints->data(), ints->size(), bins, s);
}

} // namespace

Histogram computeHistogram(const float* values, std::size_t count, int bins) {
  return histogramOf(values, count, bins);
}

Histogram computeHistogram(const std::vector<float>& values, int bins) {
  return histogramOf(values.data(), values.size(), bins);
}

Histogram computeHistogram(const std::int64_t* values, std::size_t count, int bins) {
  return histogramOf(values, count, bins);
}

const char* valueKindName(ValueKind kind) {
  switch (kind) {
  case ValueKind::None:
    return "none";
  case ValueKind::Dense:
    return "dense";
  case ValueKind::Sparse:
    return "sparse";
  case ValueKind::Weight:
    return "weight";
  }
  return "none";
}

ValueSummary summarize(const RuntimeValue& value, int bins) {
  ValueSummary s;
  if (const auto* t = std::get_if<Tensor>(&value)) {
    s.kind = ValueKind::Dense;
    s.dtype = t->dtype;
    s.shape = t->shape;
    const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(0, t->numel()));
    if (t->isFloat()) {
      if (t->floats) summarizeElements(t->floats->data(), std::min(n, t->floats->size()), bins, s);
    } else if (t->ints) {
      summarizeElements(t->ints->data(), std::min(n, t->ints->size()), bins, s);
    }
    return s;
  }
  if (const auto* sp = std::get_if<Sparse>(&value)) {
    s.kind = ValueKind::Sparse;
    s.dtype = sp->dtype;
    s.rows = sp->rows();
    s.channels = sp->channels;
    s.stride = sp->stride;
    s.capacity = sp->capacity;
    s.shape = {s.rows, s.channels};
    const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(0, s.rows * s.channels));
    if (sp->features) summarizeElements(sp->features->data(), std::min(n, sp->features->size()), bins, s);
    return s;
  }
  if (const auto* w = std::get_if<WeightRef>(&value)) {
    s.kind = ValueKind::Weight;
    s.weightKey = w->key;
    s.packing = w->packing.kind;
    if (w->quantized()) {
      s.dtype = w->codes.dtype();
      s.shape = w->codes.shape();
      s.note = "quantized (" + w->packing.kind + "): no statistics of the stored codes";
      return s;
    }
    summarizeTensorData(w->dense, bins, s);
    return s;
  }
  return s;
}

namespace {

template <typename T> NonFiniteCount countElements(const T* values, std::size_t count) {
  NonFiniteCount c;
  c.total = count;
  for (std::size_t i = 0; i < count; ++i) {
    if (std::isnan(values[i]))
      ++c.nan;
    else if (std::isinf(values[i]))
      ++c.inf;
  }
  return c;
}

} // namespace

NonFiniteCount countNonFinite(const RuntimeValue& value) {
  if (const auto* t = std::get_if<Tensor>(&value)) {
    if (!t->isFloat() || !t->floats) return {};
    const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(0, t->numel()));
    return countElements(t->floats->data(), std::min(n, t->floats->size()));
  }
  if (const auto* sp = std::get_if<Sparse>(&value)) {
    if (!sp->features) return {};
    const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(0, sp->rows() * sp->channels));
    return countElements(sp->features->data(), std::min(n, sp->features->size()));
  }
  return {};
}

NonFiniteCount countNonFinite(const TensorData& tensor) {
  const DType d = tensor.dtype();
  if (d == DType::F32) { // in place (inputs can be large); a mapped file's bytes may be unaligned
    NonFiniteCount c;
    c.total = tensor.byteSize() / sizeof(float);
    const std::uint8_t* bytes = tensor.data();
    for (std::uint64_t i = 0; i < c.total; ++i) {
      float v;
      std::memcpy(&v, bytes + i * sizeof(float), sizeof(float));
      if (std::isnan(v))
        ++c.nan;
      else if (std::isinf(v))
        ++c.inf;
    }
    return c;
  }
  if (d != DType::F16 && d != DType::BF16 && d != DType::F64) return {};
  Expected<std::vector<float>> floats = toFloatVector(tensor);
  if (!floats) return {};
  return countElements(floats->data(), floats->size());
}

std::string nonFiniteText(const std::string& what, const NonFiniteCount& count) {
  if (!count.any()) return "";
  std::string held;
  if (count.nan > 0) held = std::to_string(count.nan) + " NaN";
  if (count.inf > 0) held += (held.empty() ? "" : " and ") + std::to_string(count.inf) + " Inf";
  return what + " holds " + held + " of " + std::to_string(count.total) + " values";
}

std::vector<std::string> nonFiniteOutputs(const Runtime& rt) {
  std::vector<std::string> lines;
  for (const PlanOutput& o : rt.plan().outputs) {
    const std::string line = nonFiniteText("output '" + o.abiName + "'", countNonFinite(rt.value(o.slot)));
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> nonFiniteInputs(const RuntimePlan& plan, const RuntimeInputs& inputs) {
  std::vector<std::string> lines;
  auto add = [&](const std::string& name, const TensorData& t) {
    const std::string line = nonFiniteText("input '" + name + "'", countNonFinite(t));
    if (!line.empty()) lines.push_back(line);
  };
  for (std::size_t i = 0; i < inputs.positional.size(); ++i)
    add(i < plan.args.size() ? plan.args[i].abiName : "#" + std::to_string(i), inputs.positional[i]);
  for (const NamedTensor& n : inputs.named) add(n.key, n.tensor);
  for (const auto& [logical, sparse] : inputs.sparse) add(logical + ".features", sparse.features);
  return lines;
}

} // namespace lattice::runtime
