// CoordSet and CoordSetBuilder: coordinates with an absl::flat_hash_map index keyed by the packed
// coordinate. The index is built once per set and read concurrently by the kernel-map builders.

#include "runtime/CoordSet.h"

#include "support/Expected.h"

#include <absl/container/flat_hash_map.h>

namespace lattice::runtime {

using CoordIndex = absl::flat_hash_map<std::uint64_t, std::int32_t>;

struct CoordSet::Index {
  CoordIndex map;
};

struct CoordSetBuilder::Impl {
  CoordIndex map;
};

std::string coordRangeText() {
  return "batch 0.." + std::to_string(kMaxBatch) + ", x, y and z " + std::to_string(kMinCoord) + ".." +
         std::to_string(kMaxCoord);
}

namespace {

[[noreturn]] void throwOutOfRange(std::int64_t b, std::int64_t x, std::int64_t y, std::int64_t z,
                                  std::int64_t row) {
  throw Exception{"coordinate (" + std::to_string(b) + ", " + std::to_string(x) + ", " + std::to_string(y) +
                  ", " + std::to_string(z) + ") of row " + std::to_string(row) +
                  " is outside the runtime's range (" + coordRangeText() + ")"};
}

} // namespace

CoordSet::CoordSet(std::vector<std::int32_t> coords) : m_coords(std::move(coords)) {}
CoordSet::~CoordSet() = default;

std::shared_ptr<const CoordSet> CoordSet::make(std::vector<std::int32_t> coords) {
  const std::size_t n = coords.size() / 4;
  for (std::size_t r = 0; r < n; ++r) {
    const std::int32_t* c = coords.data() + 4 * r;
    if (!coordInRange(c[0], c[1], c[2], c[3])) throwOutOfRange(c[0], c[1], c[2], c[3], static_cast<std::int64_t>(r));
  }
  coords.resize(4 * n);
  return std::shared_ptr<const CoordSet>(new CoordSet(std::move(coords)));
}

void CoordSet::buildIndex() const {
  std::call_once(m_indexOnce, [this] {
    auto index = std::make_unique<Index>();
    const std::int64_t n = rows();
    index->map.reserve(static_cast<std::size_t>(n));
    for (std::int64_t r = 0; r < n; ++r) {
      const std::int32_t* c = row(r);
      index->map.try_emplace(packCoord(c[0], c[1], c[2], c[3]), static_cast<std::int32_t>(r));
    }
    m_index = std::move(index);
  });
}

bool CoordSet::unique() const {
  buildIndex();
  return static_cast<std::int64_t>(m_index->map.size()) == rows();
}

std::int64_t CoordSet::find(std::int64_t b, std::int64_t x, std::int64_t y, std::int64_t z) const {
  buildIndex();
  if (!coordInRange(b, x, y, z)) return -1;
  const auto it = m_index->map.find(packCoord(b, x, y, z));
  return it == m_index->map.end() ? -1 : it->second;
}

CoordSetBuilder::CoordSetBuilder() : m_impl(std::make_unique<Impl>()) {}
CoordSetBuilder::~CoordSetBuilder() = default;

void CoordSetBuilder::reserve(std::size_t rows) {
  m_coords.reserve(rows * 4);
  m_impl->map.reserve(rows);
}

std::int64_t CoordSetBuilder::insert(std::int64_t b, std::int64_t x, std::int64_t y, std::int64_t z) {
  if (!coordInRange(b, x, y, z)) throwOutOfRange(b, x, y, z, rows());
  const auto [it, added] = m_impl->map.try_emplace(packCoord(b, x, y, z), static_cast<std::int32_t>(rows()));
  if (added) m_coords.insert(m_coords.end(), {static_cast<std::int32_t>(b), static_cast<std::int32_t>(x),
                                              static_cast<std::int32_t>(y), static_cast<std::int32_t>(z)});
  return it->second;
}

std::shared_ptr<const CoordSet> CoordSetBuilder::finish() {
  std::shared_ptr<CoordSet> set(new CoordSet(std::move(m_coords)));
  auto index = std::make_unique<CoordSet::Index>();
  index->map = std::move(m_impl->map);
  // The builder's map is the set's index: mark it built so find() never builds a second one.
  std::call_once(set->m_indexOnce, [&] { set->m_index = std::move(index); });
  m_coords.clear();
  m_impl = std::make_unique<Impl>();
  return set;
}

} // namespace lattice::runtime
