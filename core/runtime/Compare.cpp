// The comparisons of Compare.h. Sums are taken in f64; a NaN anywhere counts as outside the
// tolerance and as non-finite, never as a match.

#include "runtime/Compare.h"

#include "runtime/CoordSet.h"
#include "tensor/TensorConvert.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lattice::runtime {

namespace {

const TensorData* findTensor(const std::vector<NamedTensor>& tensors, const std::string& key) {
  for (const NamedTensor& t : tensors)
    if (t.key == key) return &t.tensor;
  return nullptr;
}

std::string coordText(const std::int64_t* c) {
  return "(" + std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " + std::to_string(c[2]) + ", " +
         std::to_string(c[3]) + ")";
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

void checkDense(const std::string& name, const std::vector<NamedTensor>& actual, const SafetensorsFile& expected,
                double rtol, double atol, OutputCheck& out) {
  const TensorData* a = findTensor(actual, name);
  const TensorData* e = expected.find(name);
  if (!a || !e) {
    out.problem = !a ? "the run produced no '" + name + "'" : "'" + name + "' is missing from " + expected.name();
    return;
  }
  if (a->shape() != e->shape()) {
    out.problem = "shape " + shapeText(a->shape()) + ", expected " + shapeText(e->shape());
    return;
  }
  Expected<std::vector<float>> av = toFloatVector(*a), ev = toFloatVector(*e);
  if (!av || !ev) {
    out.problem = !av ? av.message() : ev.message();
    return;
  }
  const std::int64_t cols = e->shape().size() >= 2 ? e->shape().back() : 1;
  out.divergence = measure(av->data(), ev->data(), static_cast<std::int64_t>(ev->size()), cols, rtol, atol);
}

void checkSparse(const std::string& name, const std::vector<NamedTensor>& actual, const SafetensorsFile& expected,
                 double rtol, double atol, OutputCheck& out) {
  struct Side {
    std::vector<std::int64_t> coords;
    std::vector<float> features;
    std::int64_t active = 0, cols = 0;
    std::vector<std::int64_t> order;
  };
  auto read = [&](bool isActual, Side& side) -> std::string {
    const char* whose = isActual ? "the run's" : "the expected";
    const TensorData* c = isActual ? findTensor(actual, name + ".coords") : expected.find(name + ".coords");
    const TensorData* f = isActual ? findTensor(actual, name + ".features") : expected.find(name + ".features");
    const TensorData* a = isActual ? findTensor(actual, name + ".active") : expected.find(name + ".active");
    if (!c || !f || !a) return std::string(whose) + " output lacks " + name + ".coords, .features or .active";
    Expected<std::vector<std::int64_t>> cv = toIntVector(*c), av = toIntVector(*a);
    Expected<std::vector<float>> fv = toFloatVector(*f);
    if (!cv || !av || !fv) return std::string(whose) + " " + name + ": not readable as coords/features/active";
    if (c->shape().size() != 2 || c->shape()[1] != 4 || f->shape().size() != 2 || av->size() != 1)
      return std::string(whose) + " " + name + " has malformed shapes";
    side.active = (*av)[0];
    side.cols = f->shape()[1];
    if (side.active < 0 || side.active > c->shape()[0] || side.active > f->shape()[0])
      return std::string(whose) + " " + name + ".active exceeds its rows";
    side.coords = std::move(*cv);
    side.features = std::move(*fv);
    side.order.resize(static_cast<std::size_t>(side.active));
    std::iota(side.order.begin(), side.order.end(), 0);
    std::stable_sort(side.order.begin(), side.order.end(), [&](std::int64_t x, std::int64_t y) {
      const std::int64_t* p = side.coords.data() + 4 * x;
      const std::int64_t* q = side.coords.data() + 4 * y;
      return mortonCode(p[0], p[1], p[2], p[3]) < mortonCode(q[0], q[1], q[2], q[3]);
    });
    return "";
  };
  Side a, e;
  if (std::string p = read(true, a); !p.empty()) return void(out.problem = p);
  if (std::string p = read(false, e); !p.empty()) return void(out.problem = p);
  if (a.active != e.active)
    return void(out.problem = "active rows " + std::to_string(a.active) + ", expected " + std::to_string(e.active));
  if (a.cols != e.cols)
    return void(out.problem = std::to_string(a.cols) + " feature channels, expected " + std::to_string(e.cols));
  std::vector<float> af, ef;
  af.reserve(static_cast<std::size_t>(a.active * a.cols));
  ef.reserve(af.capacity());
  for (std::int64_t r = 0; r < e.active; ++r) {
    const std::int64_t ia = a.order[static_cast<std::size_t>(r)], ie = e.order[static_cast<std::size_t>(r)];
    if (!std::equal(a.coords.begin() + 4 * ia, a.coords.begin() + 4 * ia + 4, e.coords.begin() + 4 * ie))
      return void(out.problem = "coordinates differ at sorted row " + std::to_string(r) + ": " +
                                coordText(a.coords.data() + 4 * ia) + ", expected " + coordText(e.coords.data() + 4 * ie));
    af.insert(af.end(), a.features.begin() + ia * a.cols, a.features.begin() + (ia + 1) * a.cols);
    ef.insert(ef.end(), e.features.begin() + ie * e.cols, e.features.begin() + (ie + 1) * e.cols);
  }
  out.divergence = measure(af.data(), ef.data(), static_cast<std::int64_t>(ef.size()), e.cols, rtol, atol);
  if (out.divergence.worstRow >= 0) {
    const std::int64_t ie = e.order[static_cast<std::size_t>(out.divergence.worstRow)];
    out.worstCoord.assign(e.coords.begin() + 4 * ie, e.coords.begin() + 4 * ie + 4);
  }
}

} // namespace

std::uint64_t mortonCode(std::int64_t b, std::int64_t x, std::int64_t y, std::int64_t z) {
  std::uint64_t code = 0;
  const std::uint64_t ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y), uz = static_cast<std::uint64_t>(z);
  for (int j = 0; j < 21; ++j) {
    code |= ((ux >> j) & 1u) << (3 * j);
    code |= ((uy >> j) & 1u) << (3 * j + 1);
    code |= ((uz >> j) & 1u) << (3 * j + 2);
  }
  return code + (static_cast<std::uint64_t>(b) << 60);
}

Divergence measure(const float* actual, const float* reference, std::int64_t count, std::int64_t cols, double rtol,
                   double atol) {
  Divergence d;
  d.elements = count;
  double diff2 = 0, ref2 = 0, sa = 0, sr = 0, saa = 0, srr = 0, sar = 0;
  std::int64_t finite = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double a = actual[i], r = reference[i];
    if (!std::isfinite(a) || !std::isfinite(r)) {
      ++d.nonFinite;
      const bool same = (std::isnan(a) && std::isnan(r)) || a == r;
      if (!same) ++d.outside;
      continue;
    }
    const double delta = std::fabs(a - r);
    if (delta > atol + rtol * std::fabs(r)) ++d.outside;
    if (d.worstRow < 0 || delta > d.maxAbs) {
      d.worstRow = cols > 0 ? i / cols : i;
      d.maxAbs = delta;
    }
    if (r != 0.0) d.maxRel = std::max(d.maxRel, delta / std::fabs(r));
    diff2 += delta * delta;
    ref2 += r * r;
    sa += a, sr += r, saa += a * a, srr += r * r, sar += a * r;
    ++finite;
  }
  d.relL2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  if (finite > 0) {
    const double n = static_cast<double>(finite);
    const double va = saa - sa * sa / n, vr = srr - sr * sr / n, cov = sar - sa * sr / n;
    if (va <= 1e-300 && vr <= 1e-300)
      d.pearson = diff2 == 0 ? 1.0 : 0.0;
    else if (va <= 1e-300 || vr <= 1e-300)
      d.pearson = 0.0;
    else
      d.pearson = std::clamp(cov / std::sqrt(va * vr), -1.0, 1.0);
  }
  return d;
}

std::vector<OutputCheck> checkOutputs(const std::vector<std::string>& names, const std::vector<bool>& sparse,
                                      const std::vector<NamedTensor>& actual, const SafetensorsFile& expected,
                                      double rtol, double atol) {
  std::vector<OutputCheck> checks;
  for (std::size_t i = 0; i < names.size(); ++i) {
    OutputCheck c;
    c.name = names[i];
    c.sparse = sparse[i];
    if (c.sparse)
      checkSparse(c.name, actual, expected, rtol, atol, c);
    else
      checkDense(c.name, actual, expected, rtol, atol, c);
    c.ok = c.problem.empty() && c.divergence.outside == 0;
    checks.push_back(std::move(c));
  }
  return checks;
}

Divergence compareValues(const RuntimeValue& actual, const RuntimeValue& reference, std::string* problem) {
  problem->clear();
  if (const auto* r = std::get_if<Tensor>(&reference)) {
    const auto* a = std::get_if<Tensor>(&actual);
    if (!a || !a->isFloat() || !r->isFloat()) {
      if (a && a->ints && r->ints && *a->ints == *r->ints && a->shape == r->shape) {
        Divergence same;
        same.elements = a->numel();
        return same;
      }
      *problem = a ? (a->shape != r->shape ? "shapes differ" : "integer values differ") : "kinds differ";
      return {};
    }
    if (a->shape != r->shape) {
      *problem = "shape " + shapeText(a->shape) + " vs " + shapeText(r->shape);
      return {};
    }
    return measure(a->floats->data(), r->floats->data(), a->numel(), a->rowSize());
  }
  if (const auto* r = std::get_if<Sparse>(&reference)) {
    const auto* a = std::get_if<Sparse>(&actual);
    if (!a) {
      *problem = "kinds differ";
      return {};
    }
    if (a->channels != r->channels || a->rows() != r->rows()) {
      *problem = std::to_string(a->rows()) + " rows x " + std::to_string(a->channels) + " channels vs " +
                 std::to_string(r->rows()) + " x " + std::to_string(r->channels);
      return {};
    }
    const std::int64_t C = r->channels;
    std::vector<float> aligned(static_cast<std::size_t>(r->rows() * C));
    for (std::int64_t row = 0; row < r->rows(); ++row) {
      const std::int32_t* c = r->coords->row(row);
      const std::int64_t at = a->coords == r->coords ? row : a->coords->find(c[0], c[1], c[2], c[3]);
      if (at < 0) {
        *problem = "supports differ (coordinate " + std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " +
                   std::to_string(c[2]) + ", " + std::to_string(c[3]) + " missing)";
        return {};
      }
      std::copy_n(a->features->data() + at * C, C, aligned.data() + row * C);
    }
    return measure(aligned.data(), r->features->data(), r->rows() * C, C);
  }
  *problem = "not a tensor";
  return {};
}

} // namespace lattice::runtime
