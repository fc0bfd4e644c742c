// Points <-> voxels (lattice-artifact-validation.md sec. 10.4 voxelize / devoxelize, rules X15,
// X16). Voxel and point math is f32 (sec. 10.5): each quotient is formed in float exactly as the
// spec writes it. A voxel index that is not finite or leaves the CoordSet range is an error in
// voxelize (it would make a coordinate) and a miss in devoxelize (nothing can be there).

#include "runtime/OpContext.h"

#include "runtime/CoordSet.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace lattice::runtime {

namespace {

const Tensor& pointsOperand(const OpContext& ctx, std::size_t i) {
  const Tensor& p = ctx.tensor(i);
  if (!p.floats || p.dtype != DType::F32 || p.shape.size() != 2 || p.shape[1] != 3)
    fail("points must have shape (N, 3) and f32 elements.");
  return p;
}

const Tensor& batchOperand(const OpContext& ctx, std::size_t i, std::int64_t rows) {
  const Tensor& b = ctx.tensor(i);
  if (!b.ints || b.shape.size() != 1 || b.shape[0] != rows)
    fail("batch_indices must be an integer tensor of shape (N,) with one entry per point.");
  return b;
}

std::int64_t activeRows(const OpContext& ctx, std::size_t i, std::int64_t rows) {
  const Tensor& a = ctx.tensor(i);
  if (!a.ints || a.numel() != 1) fail("active rows must be an integer tensor of shape (1,).");
  return std::clamp<std::int64_t>((*a.ints)[0], 0, rows);
}

// f32((f32(p) − f32(origin)) / f32(voxel)) per axis.
void positions(const float* p, const std::array<float, 3>& origin, const std::array<float, 3>& size, float* pos) {
  for (int a = 0; a < 3; ++a) pos[a] = (p[a] - origin[a]) / size[a];
}

// floor(v) as an integer when it is finite and inside the coordinate range.
bool toIndex(float v, std::int64_t& out) {
  if (!std::isfinite(v)) return false;
  const float f = std::floor(v);
  if (f < static_cast<float>(kMinCoord) || f > static_cast<float>(kMaxCoord)) return false;
  out = static_cast<std::int64_t>(f);
  return true;
}

std::array<float, 3> f32Triple(const std::array<double, 3>& v) {
  return {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
}

/// The op's voxel grid: voxel_size and origin as f32.
struct VoxelGrid {
  std::array<float, 3> size, origin;
};

/// Throws when a voxel size is not strictly positive.
VoxelGrid voxelGrid(const OpContext& ctx) {
  VoxelGrid grid{f32Triple(ctx.op.f64Triple("voxel_size")), f32Triple(ctx.op.f64Triple("origin"))};
  for (float s : grid.size)
    if (!(s > 0.0f)) fail("voxel_size values must be strictly positive");
  return grid;
}

} // namespace

void runVoxelize(OpContext& ctx) {
  const Tensor& points = pointsOperand(ctx, 0);
  const Tensor& features = ctx.tensor(1);
  if (!features.floats || features.shape.size() != 2) fail("feats must have shape (N, C)."); // X15
  if (features.dtype != DType::F32) fail("voxelize currently supports float32 features.");
  const std::int64_t N = points.shape[0], C = features.shape[1];
  if (features.shape[0] != N) fail("points and feats must have matching rows.");
  const Tensor& batch = batchOperand(ctx, 2, N);
  const std::int64_t n = activeRows(ctx, 3, N);
  const VoxelGrid grid = voxelGrid(ctx);
  const std::array<float, 3>& size = grid.size;
  const std::array<float, 3>& origin = grid.origin;
  const bool mean = ctx.op.text("reduction") == "mean";

  CoordSetBuilder builder;
  builder.reserve(static_cast<std::size_t>(n));
  std::vector<std::int64_t> voxelOf(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < n; ++r) {
    float pos[3];
    positions(points.floats->data() + r * 3, origin, size, pos);
    std::int64_t v[3];
    const std::int64_t b = (*batch.ints)[static_cast<std::size_t>(r)];
    if (!toIndex(pos[0], v[0]) || !toIndex(pos[1], v[1]) || !toIndex(pos[2], v[2]) || b < 0 || b > kMaxBatch)
      fail("point row " + std::to_string(r) + " (batch " + std::to_string(b) +
           ") falls outside the runtime's voxel range (" + coordRangeText() + ")");
    voxelOf[static_cast<std::size_t>(r)] = builder.insert(b, v[0], v[1], v[2]);
  }
  const std::int64_t voxels = builder.rows();
  std::vector<std::int64_t> count(static_cast<std::size_t>(voxels), 0);
  for (std::int64_t r = 0; r < n; ++r) ++count[static_cast<std::size_t>(voxelOf[static_cast<std::size_t>(r)])];
  std::vector<double> acc(static_cast<std::size_t>(voxels * C), 0.0);
  std::vector<float> accF(acc.size(), 0.0f);
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t v = voxelOf[static_cast<std::size_t>(r)];
    const float inv = mean ? 1.0f / static_cast<float>(count[static_cast<std::size_t>(v)]) : 1.0f;
    for (std::int64_t c = 0; c < C; ++c) {
      const float f = (*features.floats)[static_cast<std::size_t>(r * C + c)];
      acc[static_cast<std::size_t>(v * C + c)] += f;
      accF[static_cast<std::size_t>(v * C + c)] += f * inv; // sec. 10.4: Σ feature·(1/count)
    }
  }
  auto out = makeFloats(acc.size());
  for (std::int64_t v = 0; v < voxels; ++v)
    for (std::int64_t c = 0; c < C; ++c) {
      const std::size_t at = static_cast<std::size_t>(v * C + c);
      (*out)[at] = ctx.exact() ? static_cast<float>(mean ? acc[at] / static_cast<double>(count[static_cast<std::size_t>(v)]) : acc[at])
                               : accF[at];
    }
  ctx.setSparseResult(builder.finish(), ctx.op.i64Triple("stride"), DType::F32, voxels, C, std::move(out));
}

void runDevoxelize(OpContext& ctx) {
  const Tensor& points = pointsOperand(ctx, 0);
  const Sparse& voxels = ctx.sparse(1);
  if (voxels.dtype != DType::F32) fail("point interpolation currently supports float32."); // X16
  const std::int64_t N = points.shape[0], C = voxels.channels;
  const Tensor& batch = batchOperand(ctx, 2, N);
  const std::int64_t n = activeRows(ctx, 3, N);
  const VoxelGrid grid = voxelGrid(ctx);
  const std::array<float, 3>& size = grid.size;
  const std::array<float, 3>& origin = grid.origin;
  const bool linear = ctx.op.text("interpolation") == "linear";
  auto out = makeFloats(static_cast<std::size_t>(N * C));
  std::vector<double> acc(static_cast<std::size_t>(C));
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t b = (*batch.ints)[static_cast<std::size_t>(r)];
    float pos[3];
    positions(points.floats->data() + r * 3, origin, size, pos);
    float* dst = out->data() + r * C;
    if (!linear) { // nearest: floor(pos + 0.5), round half up
      std::int64_t v[3];
      if (!toIndex(pos[0] + 0.5f, v[0]) || !toIndex(pos[1] + 0.5f, v[1]) || !toIndex(pos[2] + 0.5f, v[2])) continue;
      const std::int64_t row = voxels.coords->find(b, v[0], v[1], v[2]);
      if (row >= 0) std::copy_n(voxels.features->data() + row * C, C, dst);
      continue;
    }
    std::int64_t lo[3];
    if (!toIndex(pos[0], lo[0]) || !toIndex(pos[1], lo[1]) || !toIndex(pos[2], lo[2])) continue;
    float frac[3];
    for (int a = 0; a < 3; ++a) frac[a] = pos[a] - static_cast<float>(lo[a]);
    std::fill(acc.begin(), acc.end(), 0.0);
    std::vector<float> accF(static_cast<std::size_t>(C), 0.0f);
    for (int corner = 0; corner < 8; ++corner) { // bit 0 → x, bit 1 → y, bit 2 → z
      float w = 1.0f;
      std::int64_t v[3];
      for (int a = 0; a < 3; ++a) {
        const bool up = (corner >> a) & 1;
        v[a] = lo[a] + (up ? 1 : 0);
        w *= up ? frac[a] : 1.0f - frac[a];
      }
      const std::int64_t row = voxels.coords->find(b, v[0], v[1], v[2]);
      if (row < 0) continue; // missing corners are skipped, no renormalization
      for (std::int64_t c = 0; c < C; ++c) {
        const float f = (*voxels.features)[static_cast<std::size_t>(row * C + c)];
        acc[static_cast<std::size_t>(c)] += static_cast<double>(w) * f;
        accF[static_cast<std::size_t>(c)] += w * f;
      }
    }
    for (std::int64_t c = 0; c < C; ++c)
      dst[c] = ctx.exact() ? static_cast<float>(acc[static_cast<std::size_t>(c)]) : accF[static_cast<std::size_t>(c)];
  }
  ctx.stats.rows = N;
  ctx.results[0] = Tensor{DType::F32, {N, C}, std::move(out), nullptr};
}

} // namespace lattice::runtime
