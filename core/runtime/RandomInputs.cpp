// randomInputs and surfacePoints (RandomInputs.h). The only randomness is a splitmix64 stream
// with Box-Muller normals, written out here so that a seed means the same inputs with any
// standard library.

#include "runtime/RandomInputs.h"

#include "runtime/CoordSet.h"
#include "runtime/RuntimeValue.h"
#include "tensor/TensorConvert.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <unordered_set>

namespace lattice::runtime {

namespace {

class Random {
public:
  explicit Random(std::uint64_t seed) : m_state(seed ^ 0x9e3779b97f4a7c15ull) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  double normal() {
    if (m_haveSpare) {
      m_haveSpare = false;
      return m_spare;
    }
    const double u = 1.0 - uniform(), v = uniform();
    const double r = std::sqrt(-2.0 * std::log(u));
    m_spare = r * std::sin(2.0 * M_PI * v);
    m_haveSpare = true;
    return r * std::cos(2.0 * M_PI * v);
  }

private:
  std::uint64_t m_state;
  double m_spare = 0.0;
  bool m_haveSpare = false;
};

struct Vec {
  double x = 0, y = 0, z = 0;
};
Vec operator+(Vec a, Vec b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec operator*(double s, Vec a) { return {s * a.x, s * a.y, s * a.z}; }
Vec cross(Vec a, Vec b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
Vec unit(Vec a) {
  const double n = std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
  return n > 0 ? (1.0 / n) * a : Vec{1, 0, 0};
}
Vec randomDirection(Random& rng) { return unit({rng.normal(), rng.normal(), rng.normal()}); }

// One surface: a sphere, a square plane patch or a cylinder, sized to hold about `area` voxels.
struct Surface {
  int kind = 0;
  Vec centre, u, v, w;
  double size = 0;

  Surface(Random& rng, double area, double extent) : kind(static_cast<int>(rng.next() % 3)) {
    w = randomDirection(rng);
    u = unit(cross(w, std::fabs(w.x) < 0.9 ? Vec{1, 0, 0} : Vec{0, 1, 0}));
    v = cross(w, u);
    size = kind == 1 ? std::sqrt(area) : std::sqrt(area / (4.0 * M_PI));
    centre = {extent * rng.uniform(), extent * rng.uniform(), extent * rng.uniform()};
  }
  Vec sample(Random& rng) const {
    switch (kind) {
    case 0: return centre + size * randomDirection(rng); // sphere of radius `size`
    case 1: return centre + (size * (rng.uniform() - 0.5)) * u + (size * (rng.uniform() - 0.5)) * v;
    default: { // cylinder of radius `size`, height 2·size
      const double angle = 2.0 * M_PI * rng.uniform();
      return centre + (size * std::cos(angle)) * u + (size * std::sin(angle)) * v + (2.0 * size * (rng.uniform() - 0.5)) * w;
    }
    }
  }
};

TensorData floatTensor(DType dtype, std::vector<std::int64_t> shape, const std::vector<float>& values) {
  if (dtype == DType::F16) {
    std::vector<std::uint8_t> bytes(values.size() * 2);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::uint16_t h = floatToHalf(values[i]);
      std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
    return TensorData::owning(dtype, std::move(shape), std::move(bytes));
  }
  std::vector<std::uint8_t> bytes(values.size() * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return TensorData::owning(DType::F32, std::move(shape), std::move(bytes));
}

TensorData intTensor(DType dtype, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& values) {
  std::vector<std::uint8_t> bytes(values.size() * dtypeSize(dtype));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::I32) {
      const std::int32_t v = static_cast<std::int32_t>(values[i]);
      std::memcpy(bytes.data() + 4 * i, &v, 4);
    } else {
      std::memcpy(bytes.data() + 8 * i, &values[i], 8);
    }
  }
  return TensorData::owning(dtype, std::move(shape), std::move(bytes));
}

std::vector<float> normals(Random& rng, std::size_t n) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.normal());
  return v;
}

// The stride sparse.make declares for the coordinates in `slot` ((1, 1, 1) when no make reads it).
Triple makeStride(const RuntimePlan& plan, int slot) {
  for (const PlanOp& op : plan.ops)
    if (op.kind == OpKind::SparseMake && !op.operands.empty() && op.operands[0] == slot)
      return op.i64Triple("stride");
  return {1, 1, 1};
}

bool sparseGroupAt(const RuntimePlan& plan, std::size_t i) {
  if (i + 2 >= plan.args.size()) return false;
  const std::string& name = plan.args[i].abiName;
  if (plan.args[i].role == "sparse_coords") return true;
  const auto ends = [](const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (!ends(name, "coords")) return false;
  const std::string stem = name.substr(0, name.size() - 6);
  return plan.args[i + 1].abiName == stem + "features" && plan.args[i + 2].abiName == stem + "active";
}

} // namespace

std::vector<std::int32_t> surfacePoints(std::int64_t points, std::int64_t batches, std::uint64_t seed) {
  Random rng(seed);
  std::vector<std::int32_t> coords;
  coords.reserve(static_cast<std::size_t>(points * 4));
  for (std::int64_t b = 0; b < batches; ++b) {
    const std::int64_t want = points / batches + (b < points % batches ? 1 : 0);
    if (want == 0) continue;
    const int surfaces = 3;
    // Each surface holds about 1.5× its share, so most sampled voxels have filled neighbours.
    const double area = 1.5 * static_cast<double>(want) / surfaces + 16.0;
    const double extent = 3.0 * std::sqrt(area);
    std::vector<Surface> shapes;
    for (int s = 0; s < surfaces; ++s) shapes.emplace_back(rng, area, extent);
    std::unordered_set<std::uint64_t> seen;
    seen.reserve(static_cast<std::size_t>(want));
    std::int64_t have = 0, attempts = 0;
    while (have < want) {
      if (++attempts % (want * 20 + 1000) == 0) shapes.emplace_back(rng, area, extent); // crowded: add a surface
      const Surface& s = shapes[static_cast<std::size_t>(rng.next() % shapes.size())];
      const Vec p = s.sample(rng);
      const std::int64_t x = std::llround(p.x) + 8, y = std::llround(p.y) + 8, z = std::llround(p.z) + 8;
      if (!coordInRange(b, x, y, z) || !seen.insert(packCoord(b, x, y, z)).second) continue;
      coords.insert(coords.end(), {static_cast<std::int32_t>(b), static_cast<std::int32_t>(x),
                                   static_cast<std::int32_t>(y), static_cast<std::int32_t>(z)});
      ++have;
    }
    // Sorted by (x, y, z) within the batch, as voxelizing a scan with np.unique / torch.unique
    // leaves the coordinates.
    const auto first = coords.end() - 4 * want;
    std::vector<std::array<std::int32_t, 4>> rows(static_cast<std::size_t>(want));
    for (std::int64_t r = 0; r < want; ++r) std::copy_n(first + 4 * r, 4, rows[static_cast<std::size_t>(r)].begin());
    std::sort(rows.begin(), rows.end());
    for (std::int64_t r = 0; r < want; ++r) std::copy_n(rows[static_cast<std::size_t>(r)].begin(), 4, first + 4 * r);
  }
  return coords;
}

Expected<std::vector<NamedTensor>> randomInputs(const RuntimePlan& plan, const RandomInputOptions& options) {
  const std::int64_t N = options.points, B = options.batchSize;
  if (N < 1) return makeError("random inputs need at least one point");
  if (B < 1 || B > kMaxBatch + 1) return makeError("batch size must be 1.." + std::to_string(kMaxBatch + 1));
  if (N > 50'000'000) return makeError("random inputs are limited to 50000000 points per input");
  Random rng(options.seed);
  std::vector<NamedTensor> out;
  for (std::size_t i = 0; i < plan.args.size(); ++i) {
    const PlanArg& arg = plan.args[i];
    const ArtifactType& type = arg.def->type;
    const std::string where = "input '" + arg.abiName + "' (" + type.str() + ")";
    if (sparseGroupAt(plan, i)) {
      const ArtifactType& features = plan.args[i + 1].def->type;
      if (!features.isRankedTensor() || features.shape.size() != 2 || features.shape[1] < 0)
        return makeError("input '" + plan.args[i + 1].abiName + "': random features need a static channel count");
      const Triple stride = makeStride(plan, arg.slot);
      std::vector<std::int32_t> logical = surfacePoints(N, B, rng.next());
      std::vector<std::int64_t> physical(logical.size());
      for (std::size_t r = 0; r < logical.size() / 4; ++r) {
        physical[4 * r] = logical[4 * r];
        for (int a = 0; a < 3; ++a) physical[4 * r + a + 1] = static_cast<std::int64_t>(logical[4 * r + a + 1]) * stride[a];
      }
      const DType fdt = features.elementType == "f16" ? DType::F16 : DType::F32;
      out.push_back({arg.abiName, intTensor(DType::I32, {N, 4}, physical)});
      out.push_back({plan.args[i + 1].abiName, floatTensor(fdt, {N, features.shape[1]}, normals(rng, static_cast<std::size_t>(N * features.shape[1])))});
      out.push_back({plan.args[i + 2].abiName, intTensor(DType::I32, {1}, {N})});
      i += 2;
      continue;
    }
    if (!type.isRankedTensor()) return makeError(where + ": cannot make a random value for this type");
    std::vector<std::int64_t> shape = type.shape;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] >= 0) continue;
      if (d != 0) return makeError(where + ": only the first extent may be dynamic");
      shape[d] = N;
    }
    std::int64_t count = 1;
    for (std::int64_t d : shape) count *= d;
    if (count > 4 * N + 4096) return makeError(where + ": the type asks for " + std::to_string(count) + " elements");
    const std::string& e = type.elementType;
    if (e == "f32" || e == "f16") {
      std::vector<float> values = normals(rng, static_cast<std::size_t>(count));
      if (shape.size() == 2 && shape[1] == 3 && shape[0] == N) { // points: on surfaces, jittered inside voxels
        const std::vector<std::int32_t> c = surfacePoints(N, B, rng.next());
        for (std::int64_t r = 0; r < N; ++r)
          for (int a = 0; a < 3; ++a)
            values[static_cast<std::size_t>(3 * r + a)] = static_cast<float>(c[static_cast<std::size_t>(4 * r + a + 1)] + rng.uniform());
      }
      out.push_back({arg.abiName, floatTensor(e == "f16" ? DType::F16 : DType::F32, shape, values)});
    } else if (e == "i32" || e == "i64") {
      std::vector<std::int64_t> values(static_cast<std::size_t>(count));
      if (shape == std::vector<std::int64_t>{1}) {
        values[0] = N; // active rows
      } else {
        for (std::int64_t r = 0; r < count; ++r) values[static_cast<std::size_t>(r)] = r * B / count; // batches in order
      }
      out.push_back({arg.abiName, intTensor(e == "i32" ? DType::I32 : DType::I64, shape, values)});
    } else {
      return makeError(where + ": cannot make random " + e + " values");
    }
  }
  return out;
}

} // namespace lattice::runtime
