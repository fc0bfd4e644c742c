// The sparse structure ops (lattice-artifact-validation.md sec. 10.4): sparse.make, decompose,
// with_features, reindex, and the aligned binary ops sparse.binary and sparse.cat (sec. 10.4
// "Alignment"), with rules X7, X14 and X20. A result that keeps a support keeps its CoordSet
// object, so the kernel maps built on it are found again downstream.

#include "runtime/OpContext.h"

#include "runtime/CoordSet.h"
#include "runtime/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace lattice::runtime {

namespace {

// Rows [0, rows) of `values` (rows × cols), shared when that is all of it.
std::shared_ptr<const std::vector<float>> leadingRows(const std::shared_ptr<const std::vector<float>>& values,
                                                      std::int64_t rows, std::int64_t cols) {
  const std::size_t n = static_cast<std::size_t>(rows * cols);
  if (values->size() == n) return values;
  return std::make_shared<const std::vector<float>>(values->begin(), values->begin() + static_cast<std::ptrdiff_t>(n));
}

// Pads rows × cols to capacity × cols with zeros (shared when nothing is missing).
std::shared_ptr<const std::vector<float>> padRows(const std::shared_ptr<const std::vector<float>>& values,
                                                  std::int64_t capacity, std::int64_t cols) {
  const std::size_t n = static_cast<std::size_t>(capacity * cols);
  if (values->size() == n) return values;
  auto out = makeFloats(n);
  std::copy(values->begin(), values->end(), out->begin());
  return out;
}

// Per output row: the lhs and rhs rows (-1 when that side is missing) and the output support.
struct Alignment {
  std::shared_ptr<const CoordSet> coords;
  std::vector<std::int32_t> lhs, rhs;
};

std::vector<std::int32_t> lookupAll(const CoordSet& from, const CoordSet& in) {
  std::vector<std::int32_t> rows(static_cast<std::size_t>(from.rows()));
  in.buildIndex();
  parallelFor(from.rows(), 4096, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t r = first; r < last; ++r) {
      const std::int32_t* c = from.row(r);
      rows[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(in.find(c[0], c[1], c[2], c[3]));
    }
  });
  return rows;
}

std::vector<std::int32_t> iota(std::int64_t n) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i);
  return v;
}

Alignment align(const Sparse& l, const Sparse& r, const std::string& join) {
  if (l.stride != r.stride) fail("sparse tensor strides must match."); // X14
  Alignment a;
  if (l.coords == r.coords) { // the same support: every join is the lhs order with both sides
    a.coords = l.coords;
    a.lhs = iota(l.rows());
    a.rhs = a.lhs;
    return a;
  }
  if (join == "right") {
    a.coords = r.coords;
    a.rhs = iota(r.rows());
    a.lhs = lookupAll(*r.coords, *l.coords);
    return a;
  }
  const std::vector<std::int32_t> inRhs = lookupAll(*l.coords, *r.coords);
  if (join == "left") {
    a.coords = l.coords;
    a.lhs = iota(l.rows());
    a.rhs = inRhs;
    return a;
  }
  if (join == "inner") {
    std::vector<std::int32_t> coords;
    for (std::int64_t i = 0; i < l.rows(); ++i) {
      if (inRhs[static_cast<std::size_t>(i)] < 0) continue;
      a.lhs.push_back(static_cast<std::int32_t>(i));
      a.rhs.push_back(inRhs[static_cast<std::size_t>(i)]);
      coords.insert(coords.end(), l.coords->row(i), l.coords->row(i) + 4);
    }
    a.coords = static_cast<std::int64_t>(a.lhs.size()) == l.rows() ? l.coords : CoordSet::make(std::move(coords));
    return a;
  }
  if (join != "outer") fail("join must be inner, left, right, or outer");
  a.lhs = iota(l.rows());
  a.rhs = inRhs;
  const std::vector<std::int32_t> inLhs = lookupAll(*r.coords, *l.coords);
  std::vector<std::int32_t> coords;
  for (std::int64_t j = 0; j < r.rows(); ++j) {
    if (inLhs[static_cast<std::size_t>(j)] >= 0) continue;
    if (coords.empty()) coords = l.coords->data();
    a.lhs.push_back(-1);
    a.rhs.push_back(static_cast<std::int32_t>(j));
    coords.insert(coords.end(), r.coords->row(j), r.coords->row(j) + 4);
  }
  a.coords = coords.empty() ? l.coords : CoordSet::make(std::move(coords));
  return a;
}

// out[o] = f(lhs row or lhs_fill, rhs row or rhs_fill) per channel.
template <typename F>
void combineRows(const Alignment& a, const Sparse& l, const Sparse& r, float lfill, float rfill, std::vector<float>& out,
                 const F& f) {
  const std::int64_t C = l.channels, n = static_cast<std::int64_t>(a.lhs.size());
  parallelFor(n, 1024, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t o = first; o < last; ++o) {
      const std::int32_t i = a.lhs[static_cast<std::size_t>(o)], j = a.rhs[static_cast<std::size_t>(o)];
      const float* lv = i >= 0 ? l.features->data() + static_cast<std::int64_t>(i) * C : nullptr;
      const float* rv = j >= 0 ? r.features->data() + static_cast<std::int64_t>(j) * C : nullptr;
      float* dst = out.data() + o * C;
      for (std::int64_t c = 0; c < C; ++c) dst[c] = f(lv ? lv[c] : lfill, rv ? rv[c] : rfill);
    }
  });
}

} // namespace

void runSparseMake(OpContext& ctx) {
  const Tensor& coords = ctx.tensor(0);
  const Tensor& features = ctx.tensor(1);
  const Tensor& active = ctx.tensor(2);
  const std::string& order = ctx.op.text("coord_order");
  if (order != "batch_x_y_z") fail("unsupported sparse coordinate order: " + order); // X7
  const Triple stride = ctx.op.i64Triple("stride");
  if (!coords.ints || coords.shape.size() != 2 || coords.shape[1] != 4) fail("coords must have shape (?, 4)");
  if (!features.floats || features.shape.size() != 2) fail("features must have rank 2");
  if (!active.ints || active.numel() != 1) fail("active must have shape (1)");
  const std::int64_t capacity = coords.shape[0];
  if (features.shape[0] != capacity) fail("coords and feats must have the same row count.");
  const std::vector<std::int64_t>& c = *coords.ints;
  for (std::int64_t r = 0; r < capacity; ++r) // X7: every row, padding included
    for (int a = 0; a < 3; ++a)
      if (c[static_cast<std::size_t>(r * 4 + a + 1)] % stride[a] != 0)
        fail("IR v2 sparse coordinates must be exactly divisible by the declared tensor stride " + tripleText(stride) + ".");
  const std::int64_t n = std::clamp<std::int64_t>((*active.ints)[0], 0, capacity);
  std::vector<std::int32_t> logical(static_cast<std::size_t>(n * 4));
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t* p = c.data() + r * 4;
    const std::int64_t b = p[0], x = p[1] / stride[0], y = p[2] / stride[1], z = p[3] / stride[2];
    if (!coordInRange(b, x, y, z))
      fail("coordinate (" + std::to_string(b) + ", " + std::to_string(p[1]) + ", " + std::to_string(p[2]) + ", " +
           std::to_string(p[3]) + ") of row " + std::to_string(r) + " is outside the runtime's range (" +
           coordRangeText() + ", after division by the stride)");
    std::int32_t* q = logical.data() + r * 4;
    q[0] = static_cast<std::int32_t>(b), q[1] = static_cast<std::int32_t>(x), q[2] = static_cast<std::int32_t>(y),
    q[3] = static_cast<std::int32_t>(z);
  }
  Sparse s;
  s.coords = CoordSet::make(std::move(logical));
  s.stride = stride;
  s.capacity = capacity;
  s.dtype = ctx.resultDType(0);
  s.channels = features.shape[1];
  if (features.dtype != s.dtype)
    fail("feature dtype must match sparse result dtype: features are " + std::string(dtypeMlirName(features.dtype)) +
         ", the result " + std::string(dtypeMlirName(s.dtype)));
  s.features = leadingRows(features.floats, n, s.channels);
  ctx.stats.rows = n;
  ctx.results[0] = std::move(s);
}

void runSparseDecompose(OpContext& ctx) {
  const Sparse& s = ctx.sparse(0);
  const std::int64_t n = s.rows(), cap = std::max(s.capacity, n);
  auto coords = std::make_shared<std::vector<std::int64_t>>(static_cast<std::size_t>(cap * 4), 0);
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int32_t* c = s.coords->row(r);
    (*coords)[r * 4] = c[0];
    for (int a = 0; a < 3; ++a) {
      std::int64_t p = 0;
      if (__builtin_mul_overflow(static_cast<std::int64_t>(c[a + 1]), s.stride[a], &p) ||
          p < std::numeric_limits<std::int32_t>::min() || p > std::numeric_limits<std::int32_t>::max())
        fail("physical coordinate of row " + std::to_string(r) + " on axis " + "xyz"[a] + " (" +
             std::to_string(c[a + 1]) + " × " + std::to_string(s.stride[a]) + ") is outside the i32 range");
      (*coords)[r * 4 + a + 1] = p;
    }
  }
  Tensor tc{DType::I32, {cap, 4}, nullptr, coords};
  Tensor tf{s.dtype, {cap, s.channels}, padRows(s.features, cap, s.channels), nullptr};
  Tensor ta{DType::I32, {1}, nullptr, std::make_shared<const std::vector<std::int64_t>>(1, n)};
  ctx.results[0] = std::move(tc);
  ctx.results[1] = std::move(tf);
  ctx.results[2] = std::move(ta);
  ctx.stats.rows = n;
}

void runSparseWithFeatures(OpContext& ctx) {
  const Sparse& in = ctx.sparse(0);
  const Tensor& f = ctx.tensor(1);
  if (!f.floats || f.shape.size() != 2) fail("replacement features must have rank 2");
  if (f.shape[0] != std::max(in.capacity, in.rows())) fail("coords and feats must have the same row count."); // X20
  Sparse out = in;
  out.dtype = ctx.resultDType(0);
  if (f.dtype != out.dtype) fail("replacement feature dtype must match result dtype");
  out.channels = f.shape[1];
  out.features = leadingRows(f.floats, in.rows(), out.channels);
  ctx.stats.rows = out.rows();
  ctx.results[0] = std::move(out);
}

void runSparseReindex(OpContext& ctx) {
  const Sparse& in = ctx.sparse(0);
  const Sparse& target = ctx.sparse(1);
  if (in.stride != target.stride) fail("sparse tensor strides must match."); // X14
  const DType dtype = ctx.resultDType(0);
  const float fill = roundTo(ctx.op.f32("fill"), dtype);
  const std::vector<std::int32_t> rows = in.coords == target.coords ? iota(in.rows()) : lookupAll(*target.coords, *in.coords);
  const std::int64_t C = in.channels, n = target.rows();
  auto out = makeFloats(static_cast<std::size_t>(n * C));
  for (std::int64_t t = 0; t < n; ++t) {
    const std::int32_t i = rows[static_cast<std::size_t>(t)];
    float* dst = out->data() + t * C;
    if (i < 0)
      std::fill(dst, dst + C, fill);
    else
      std::copy(in.features->begin() + i * C, in.features->begin() + (i + 1) * C, dst);
  }
  roundInPlace(*out, dtype);
  ctx.setSparseResult(target.coords, target.stride, dtype, n, C, std::move(out));
}

void runSparseBinary(OpContext& ctx) {
  const Sparse& l = ctx.sparse(0);
  const Sparse& r = ctx.sparse(1);
  const std::string& op = ctx.op.text("op");
  if (l.channels != r.channels) fail("sparse binary operands must have matching channels."); // X14
  const Alignment a = align(l, r, ctx.op.text("join"));
  const DType dtype = ctx.resultDType(0);
  const float lfill = roundTo(ctx.op.f32("lhs_fill"), l.dtype), rfill = roundTo(ctx.op.f32("rhs_fill"), r.dtype);
  const std::int64_t C = l.channels, n = static_cast<std::int64_t>(a.lhs.size());
  auto out = makeFloats(static_cast<std::size_t>(n * C));
  if (op == "add")
    combineRows(a, l, r, lfill, rfill, *out, [](float x, float y) { return x + y; });
  else if (op == "sub")
    combineRows(a, l, r, lfill, rfill, *out, [](float x, float y) { return x - y; });
  else if (op == "mul")
    combineRows(a, l, r, lfill, rfill, *out, [](float x, float y) { return x * y; });
  else if (op == "maximum")
    combineRows(a, l, r, lfill, rfill, *out, [](float x, float y) { return maxOrNaN(x, y); });
  else if (op == "minimum")
    combineRows(a, l, r, lfill, rfill, *out, [](float x, float y) { return minOrNaN(x, y); });
  else
    fail("binary op must be add, sub, mul, maximum, or minimum");
  roundInPlace(*out, dtype);
  ctx.setSparseResult(a.coords, l.stride, dtype, n, C, std::move(out));
}

void runSparseCat(OpContext& ctx) {
  const Sparse& l = ctx.sparse(0);
  const Sparse& r = ctx.sparse(1);
  const Alignment a = align(l, r, ctx.op.text("join"));
  const std::int64_t C1 = l.channels, C2 = r.channels, C = C1 + C2, n = static_cast<std::int64_t>(a.lhs.size());
  auto out = makeFloats(static_cast<std::size_t>(n * C));
  parallelFor(n, 1024, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t o = first; o < last; ++o) {
      const std::int32_t i = a.lhs[static_cast<std::size_t>(o)], j = a.rhs[static_cast<std::size_t>(o)];
      float* dst = out->data() + o * C;
      if (i >= 0) std::copy(l.features->begin() + i * C1, l.features->begin() + (i + 1) * C1, dst);
      if (j >= 0) std::copy(r.features->begin() + j * C2, r.features->begin() + (j + 1) * C2, dst + C1);
    }
  });
  ctx.setSparseResult(a.coords, l.stride, ctx.resultDType(0), n, C, std::move(out));
}

} // namespace lattice::runtime
