// The relation builders of lattice-artifact-validation.md sec. 10.3. Four relations look their
// edges up (per output row and kernel row, one hash lookup in the input's index): forward,
// submanifold, target and target-transposed; those run in parallel over chunks of output rows,
// each chunk collecting its edges per kernel row, and the chunks are then concatenated in order.
// Transposed builds its deduplicated support while it goes (serial: a support is first-occurrence
// order), and generative needs no lookup at all.

#include "runtime/KernelMap.h"

#include "runtime/Parallel.h"
#include "support/Expected.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace lattice::runtime {

namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::string tripleText(const Triple& t) {
  return "(" + std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " + std::to_string(t[2]) + ")";
}

const char* const kAxes[] = {"x", "y", "z"};

// The largest |(p − ⌊K/2⌋)·d| or p·d of an axis: (K − 1)·d, checked.
std::int64_t kernelReach(const RelationSpec& spec, int a) {
  const std::int64_t K = spec.kernel[a], d = spec.offsets == OffsetFamily::IndexedNoDilation ? 1 : spec.dilation[a];
  std::int64_t reach = 0;
  if (__builtin_mul_overflow(K - 1, d, &reach))
    throw Exception{std::string("kernel_size × dilation on axis ") + kAxes[a] + " (" + std::to_string(K) + " × " +
                    std::to_string(d) + ") overflows the runtime's coordinate arithmetic"};
  return reach;
}

void checkSpec(const RelationSpec& spec, std::int64_t inputRows) {
  for (int a = 0; a < 3; ++a)
    if (spec.kernel[a] < 1 || spec.stride[a] < 1 || spec.dilation[a] < 1 || spec.padding[a] < 0)
      throw Exception{"kernel_size, stride and dilation must be positive and padding non-negative"};
  // Each factor is at most kMaxKernelVolume before the product is formed: no overflow.
  if (spec.kernel[0] > kMaxKernelVolume || spec.kernel[1] > kMaxKernelVolume || spec.kernel[2] > kMaxKernelVolume ||
      spec.volume() > kMaxKernelVolume)
    throw Exception{"kernel volume of kernel_size " + tripleText(spec.kernel) + " exceeds the runtime's limit of " +
                    std::to_string(kMaxKernelVolume)};
  if (inputRows * spec.volume() > std::numeric_limits<std::int32_t>::max())
    throw Exception{"the kernel map of " + std::to_string(inputRows) + " rows and kernel volume " +
                    std::to_string(spec.volume()) + " exceeds the runtime's limit of 2^31 edges"};
  // Every coordinate a relation forms is c·s + off − p or t + p − off, with c, t in a CoordSet's
  // range (|c| ≤ 2^16) and |off| ≤ (K − 1)·d. Bounding that worst case once, with checked
  // arithmetic, keeps every lookup's arithmetic inside 64 bits.
  const std::int64_t coordMagnitude = std::max(-kMinCoord, kMaxCoord);
  for (int a = 0; a < 3; ++a) {
    const std::int64_t reach = kernelReach(spec, a);
    std::int64_t worst = 0;
    if (__builtin_mul_overflow(coordMagnitude, spec.stride[a], &worst))
      throw Exception{std::string("stride on axis ") + kAxes[a] + " (" + std::to_string(spec.stride[a]) +
                      ") overflows the runtime's coordinate arithmetic"};
    if (__builtin_add_overflow(worst, reach, &worst) || __builtin_add_overflow(worst, spec.padding[a], &worst))
      throw Exception{std::string("stride, padding and kernel reach on axis ") + kAxes[a] + " (stride " +
                      std::to_string(spec.stride[a]) + ", padding " + std::to_string(spec.padding[a]) +
                      ", kernel_size × dilation " + std::to_string(spec.kernel[a]) + " × " +
                      std::to_string(spec.dilation[a]) + ") overflow the runtime's coordinate arithmetic"};
  }
}

} // namespace

std::shared_ptr<const CoordSet> forwardSupport(const std::shared_ptr<const CoordSet>& input, const RelationSpec& spec) {
  if (spec.stride == Triple{1, 1, 1} && spec.padding == Triple{0, 0, 0}) return input;
  CoordSetBuilder builder;
  builder.reserve(static_cast<std::size_t>(input->rows()));
  for (std::int64_t r = 0; r < input->rows(); ++r) {
    const std::int32_t* c = input->row(r);
    builder.insert(c[0], floorDiv(c[1], spec.stride[0]), floorDiv(c[2], spec.stride[1]), floorDiv(c[3], spec.stride[2]));
  }
  return builder.finish();
}

namespace {

// Edges of one chunk of output rows, per kernel row.
struct ChunkEdges {
  std::vector<std::vector<std::int32_t>> in, out;
};

// The lookup relations: for every output row o and kernel row k, query(o, k) gives the input
// coordinate to look up (false when there is none, as for a non-divisible target-transposed
// position).
template <typename Query>
void lookupEdges(const CoordSet& input, const CoordSet& output, std::int64_t volume, const Query& query, KernelMap& map) {
  input.buildIndex();
  const std::int64_t rows = output.rows();
  const std::int64_t chunkRows = std::max<std::int64_t>(1024, rows / (4 * std::max(1, threads())) + 1);
  const std::int64_t chunks = (rows + chunkRows - 1) / chunkRows;
  std::vector<ChunkEdges> parts(static_cast<std::size_t>(chunks));
  parallelFor(chunks, 1, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t c = first; c < last; ++c) {
      ChunkEdges& part = parts[static_cast<std::size_t>(c)];
      part.in.resize(static_cast<std::size_t>(volume));
      part.out.resize(static_cast<std::size_t>(volume));
      const std::int64_t end = std::min(rows, (c + 1) * chunkRows);
      std::int64_t q[4];
      for (std::int64_t o = c * chunkRows; o < end; ++o) {
        const std::int32_t* oc = output.row(o);
        for (std::int64_t k = 0; k < volume; ++k) {
          if (!query(oc, k, q)) continue;
          const std::int64_t i = input.find(q[0], q[1], q[2], q[3]);
          if (i < 0) continue;
          part.in[k].push_back(static_cast<std::int32_t>(i));
          part.out[k].push_back(static_cast<std::int32_t>(o));
        }
      }
    }
  });
  map.begin.assign(static_cast<std::size_t>(volume) + 1, 0);
  for (std::int64_t k = 0; k < volume; ++k) {
    std::int64_t count = 0;
    for (const ChunkEdges& p : parts) count += static_cast<std::int64_t>(p.in[k].size());
    map.begin[k + 1] = map.begin[k] + count;
  }
  map.in.resize(static_cast<std::size_t>(map.begin[volume]));
  map.out.resize(map.in.size());
  parallelFor(volume, 1, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t k = first; k < last; ++k) {
      std::int64_t at = map.begin[k];
      for (const ChunkEdges& p : parts) {
        std::copy(p.in[k].begin(), p.in[k].end(), map.in.begin() + at);
        std::copy(p.out[k].begin(), p.out[k].end(), map.out.begin() + at);
        at += static_cast<std::int64_t>(p.in[k].size());
      }
    }
  });
}

// A subm kernel with odd sizes is centred: off_{K−1−k} = −off_k, and over unique coordinates
// row (K − 1) / 2 is the identity. So only the rows before the centre are looked up; row K−1−k holds the edges of row
// k reversed, put in output order with one pass over the rows.
void symmetricSubmanifoldEdges(const CoordSet& input, const std::vector<Triple>& off, KernelMap& map) {
  const std::int64_t K = map.volume, centre = (K - 1) / 2, n = input.rows();
  KernelMap half;
  lookupEdges(input, input, centre, [&](const std::int32_t* o, std::int64_t k, std::int64_t* q) {
    q[0] = o[0];
    for (int a = 0; a < 3; ++a) q[a + 1] = o[a + 1] + off[k][a];
    return true;
  }, half);
  const std::int64_t halfEdges = half.begin[centre];
  map.begin.assign(static_cast<std::size_t>(K) + 1, 0);
  for (std::int64_t k = 0; k < K; ++k) {
    const std::int64_t count = k < centre ? half.edgesOf(k) : k == centre ? n : half.edgesOf(K - 1 - k);
    map.begin[k + 1] = map.begin[k] + count;
  }
  map.in.resize(static_cast<std::size_t>(2 * halfEdges + n));
  map.out.resize(map.in.size());
  std::copy(half.in.begin(), half.in.end(), map.in.begin());
  std::copy(half.out.begin(), half.out.end(), map.out.begin());
  for (std::int64_t r = 0; r < n; ++r)
    map.in[static_cast<std::size_t>(map.begin[centre] + r)] = map.out[static_cast<std::size_t>(map.begin[centre] + r)] =
        static_cast<std::int32_t>(r);
  std::vector<std::int32_t> source(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < centre; ++k) {
    std::fill(source.begin(), source.end(), -1);
    for (std::int64_t e = half.begin[k]; e < half.begin[k + 1]; ++e) source[static_cast<std::size_t>(half.in[e])] = half.out[e];
    std::int64_t at = map.begin[K - 1 - k];
    for (std::int64_t r = 0; r < n; ++r) {
      const std::int32_t from = source[static_cast<std::size_t>(r)];
      if (from < 0) continue;
      map.in[static_cast<std::size_t>(at)] = from;
      map.out[static_cast<std::size_t>(at)] = static_cast<std::int32_t>(r);
      ++at;
    }
  }
}

// Edges in (k, i) order: transposed and generative, whose output rows are made per (i, k).
struct EdgesByRow {
  std::vector<std::vector<std::int32_t>> in, out;
  explicit EdgesByRow(std::int64_t volume) : in(volume), out(volume) {}
  void finish(KernelMap& map) {
    const std::int64_t volume = static_cast<std::int64_t>(in.size());
    map.begin.assign(static_cast<std::size_t>(volume) + 1, 0);
    for (std::int64_t k = 0; k < volume; ++k) map.begin[k + 1] = map.begin[k] + static_cast<std::int64_t>(in[k].size());
    map.in.reserve(static_cast<std::size_t>(map.begin[volume]));
    map.out.reserve(map.in.capacity());
    for (std::int64_t k = 0; k < volume; ++k) {
      map.in.insert(map.in.end(), in[k].begin(), in[k].end());
      map.out.insert(map.out.end(), out[k].begin(), out[k].end());
    }
  }
};

// The first row of a run of consecutive rows, or -1.
std::int64_t runStart(const std::int32_t* rows, std::int64_t count) {
  if (count == 0) return -1;
  for (std::int64_t e = 1; e < count; ++e)
    if (rows[e] != rows[0] + e) return -1;
  return rows[0];
}

void findRuns(KernelMap& map) {
  map.inRun.assign(static_cast<std::size_t>(map.volume), -1);
  map.outRun.assign(static_cast<std::size_t>(map.volume), -1);
  for (std::int64_t k = 0; k < map.volume; ++k) {
    map.inRun[static_cast<std::size_t>(k)] = runStart(map.in.data() + map.begin[k], map.edgesOf(k));
    map.outRun[static_cast<std::size_t>(k)] = runStart(map.out.data() + map.begin[k], map.edgesOf(k));
  }
}

void findIdentityRow(const std::shared_ptr<const CoordSet>& input, KernelMap& map) {
  if (map.output != input) return;
  const std::int64_t rows = input->rows();
  for (std::int64_t k = 0; k < map.volume; ++k) {
    if (map.edgesOf(k) != rows) continue;
    bool identity = true;
    for (std::int64_t e = 0; e < rows && identity; ++e)
      identity = map.in[map.begin[k] + e] == e && map.out[map.begin[k] + e] == e;
    if (identity) {
      map.identityRow = k;
      return;
    }
  }
}

} // namespace

std::vector<Triple> kernelOffsets(const RelationSpec& spec) {
  for (int a = 0; a < 3; ++a) kernelReach(spec, a); // refuses a product that leaves 64 bits
  auto axis = [&](int a, std::int64_t p) -> std::int64_t {
    const std::int64_t K = spec.kernel[a], d = spec.dilation[a];
    switch (spec.offsets) {
    case OffsetFamily::Sparse: return (K % 2 == 1 ? p - K / 2 : p) * d; // |·| ≤ (K − 1)·d
    case OffsetFamily::Indexed: return p * d;
    case OffsetFamily::IndexedNoDilation: return p;
    }
    return p;
  };
  std::vector<Triple> offsets;
  offsets.reserve(static_cast<std::size_t>(spec.volume()));
  for (std::int64_t px = 0; px < spec.kernel[0]; ++px)
    for (std::int64_t py = 0; py < spec.kernel[1]; ++py)
      for (std::int64_t pz = 0; pz < spec.kernel[2]; ++pz) offsets.push_back({axis(0, px), axis(1, py), axis(2, pz)});
  return offsets;
}

std::shared_ptr<const KernelMap> buildKernelMap(const std::shared_ptr<const CoordSet>& input,
                                                const std::shared_ptr<const CoordSet>& target,
                                                const RelationSpec& spec) {
  const auto start = std::chrono::steady_clock::now();
  checkSpec(spec, input->rows());
  auto map = std::make_shared<KernelMap>();
  map->volume = spec.volume();
  const std::vector<Triple> off = kernelOffsets(spec);
  const Triple& s = spec.stride;
  const Triple& p = spec.padding;
  switch (spec.relation) {
  case Relation::Forward:
    map->output = target ? target : forwardSupport(input, spec);
    lookupEdges(*input, *map->output, map->volume, [&](const std::int32_t* o, std::int64_t k, std::int64_t* q) {
      q[0] = o[0];
      for (int a = 0; a < 3; ++a) q[a + 1] = o[a + 1] * s[a] + off[k][a] - p[a];
      return true;
    }, *map);
    break;
  case Relation::Submanifold:
    map->output = input;
    if (spec.offsets == OffsetFamily::Sparse && spec.kernel[0] % 2 && spec.kernel[1] % 2 && spec.kernel[2] % 2 &&
        input->unique()) {
      symmetricSubmanifoldEdges(*input, off, *map);
      break;
    }
    lookupEdges(*input, *input, map->volume, [&](const std::int32_t* o, std::int64_t k, std::int64_t* q) {
      q[0] = o[0];
      for (int a = 0; a < 3; ++a) q[a + 1] = o[a + 1] + off[k][a];
      return true;
    }, *map);
    break;
  case Relation::Target:
    map->output = target;
    lookupEdges(*input, *target, map->volume, [&](const std::int32_t* t, std::int64_t k, std::int64_t* q) {
      q[0] = t[0];
      for (int a = 0; a < 3; ++a) q[a + 1] = t[a + 1] * s[a] + off[k][a] - p[a];
      return true;
    }, *map);
    break;
  case Relation::TargetTransposed:
    map->output = target;
    lookupEdges(*input, *target, map->volume, [&](const std::int32_t* t, std::int64_t k, std::int64_t* q) {
      q[0] = t[0];
      for (int a = 0; a < 3; ++a) {
        const std::int64_t v = t[a + 1] + p[a] - off[k][a];
        if (v % s[a] != 0) return false;
        q[a + 1] = v / s[a];
      }
      return true;
    }, *map);
    break;
  case Relation::Transposed: {
    CoordSetBuilder builder;
    builder.reserve(static_cast<std::size_t>(input->rows()));
    EdgesByRow edges(map->volume);
    for (std::int64_t i = 0; i < input->rows(); ++i) {
      const std::int32_t* c = input->row(i);
      for (std::int64_t k = 0; k < map->volume; ++k) {
        const std::int64_t o = builder.insert(c[0], c[1] * s[0] + off[k][0] - p[0], c[2] * s[1] + off[k][1] - p[1],
                                              c[3] * s[2] + off[k][2] - p[2]);
        edges.in[k].push_back(static_cast<std::int32_t>(i));
        edges.out[k].push_back(static_cast<std::int32_t>(o));
      }
    }
    map->output = builder.finish();
    edges.finish(*map);
    break;
  }
  case Relation::Generative: {
    const std::int64_t K = map->volume;
    std::vector<std::int32_t> coords(static_cast<std::size_t>(input->rows() * K * 4));
    EdgesByRow edges(K);
    for (std::int64_t i = 0; i < input->rows(); ++i) {
      const std::int32_t* c = input->row(i);
      for (std::int64_t k = 0; k < K; ++k) {
        std::int64_t o = i * K + k;
        std::int64_t v[4] = {c[0], c[1] * s[0] + off[k][0], c[2] * s[1] + off[k][1], c[3] * s[2] + off[k][2]};
        for (int a = 0; a < 4; ++a) {
          if (v[a] < std::numeric_limits<std::int32_t>::min() || v[a] > std::numeric_limits<std::int32_t>::max())
            v[a] = std::numeric_limits<std::int32_t>::max(); // refused as out of range by make()
          coords[static_cast<std::size_t>(o * 4 + a)] = static_cast<std::int32_t>(v[a]);
        }
        edges.in[k].push_back(static_cast<std::int32_t>(i));
        edges.out[k].push_back(static_cast<std::int32_t>(o));
      }
    }
    map->output = CoordSet::make(std::move(coords));
    edges.finish(*map);
    break;
  }
  }
  findIdentityRow(input, *map);
  findRuns(*map);
  map->outputOrdered = spec.relation != Relation::Transposed && spec.relation != Relation::Generative;
  map->buildMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return map;
}

std::shared_ptr<const KernelMap> KernelMapCache::get(const std::shared_ptr<const CoordSet>& input,
                                                     const std::shared_ptr<const CoordSet>& target,
                                                     const RelationSpec& spec, bool* built) {
  const bool usesTarget = spec.relation == Relation::Target || spec.relation == Relation::TargetTransposed;
  std::shared_ptr<const CoordSet> output = usesTarget ? target : nullptr;
  std::unique_lock<std::mutex> lock(m_mutex);
  double supportMs = 0.0;
  if (spec.relation == Relation::Forward) {
    // Every forward op with this stride on this input gets the same support object, so the maps
    // of the ops after it (a conv and a pool of the same stride, then their subm convs) are shared.
    const SupportKey supportKey{input.get(), spec.stride, spec.padding == Triple{0, 0, 0}};
    auto it = m_supports.find(supportKey);
    if (it == m_supports.end() || it->second.input.lock() != input) {
      lock.unlock();
      const auto start = std::chrono::steady_clock::now();
      std::shared_ptr<const CoordSet> support = forwardSupport(input, spec);
      supportMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      lock.lock();
      it = m_supports.insert_or_assign(supportKey, SupportEntry{input, support}).first;
    }
    output = it->second.support;
  }
  const Key key{input.get(), output.get(), spec};
  const auto found = m_maps.find(key);
  if (found != m_maps.end() && found->second.input.lock() == input &&
      (!usesTarget || found->second.target.lock() == target)) {
    if (built) *built = false;
    return found->second.map;
  }
  lock.unlock();
  auto fresh = std::const_pointer_cast<KernelMap>(buildKernelMap(input, output, spec));
  fresh->buildMs += supportMs;
  std::shared_ptr<const KernelMap> map = fresh;
  lock.lock();
  m_maps.insert_or_assign(key, Entry{input, usesTarget ? target : nullptr, map});
  if (built) *built = true;
  return map;
}

void KernelMapCache::prune() {
  std::lock_guard<std::mutex> lock(m_mutex);
  for (auto it = m_maps.begin(); it != m_maps.end();) {
    const bool usesTarget = std::get<2>(it->first).relation == Relation::Target ||
                            std::get<2>(it->first).relation == Relation::TargetTransposed;
    if (it->second.input.expired() || (usesTarget && it->second.target.expired()))
      it = m_maps.erase(it);
    else
      ++it;
  }
  for (auto it = m_supports.begin(); it != m_supports.end();)
    it = it->second.input.expired() ? m_supports.erase(it) : std::next(it);
}

void KernelMapCache::clear() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_maps.clear();
  m_supports.clear();
}

std::uint64_t KernelMapCache::bytes() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::uint64_t total = 0;
  for (const auto& [key, entry] : m_maps) total += (entry.map->in.size() + entry.map->out.size()) * sizeof(std::int32_t);
  return total;
}

std::size_t KernelMapCache::size() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_maps.size();
}

} // namespace lattice::runtime
