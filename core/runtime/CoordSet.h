#pragma once
/// \file The logical coordinates of a sparse value, (rows, 4) int32 `(b, x, y, z)`, with a hash
/// index from coordinate to row. Sparse values that keep their support share one CoordSet (a
/// conv block's subm convs, the feature ops, with_features), so the runtime finds kernel maps
/// by the CoordSet's identity and builds each index once.
///
/// The index packs a coordinate into 64 bits: the batch in [0, kMaxBatch] and x, y, z in
/// [kMinCoord, kMaxCoord]. A CoordSet only holds coordinates in that range (make() refuses
/// others), so a query outside it is simply absent.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace lattice::runtime {

inline constexpr std::int64_t kMaxBatch = 4095;
inline constexpr std::int64_t kMinCoord = -65536;
inline constexpr std::int64_t kMaxCoord = 65535;

/// The packed key of a coordinate inside the range (batch 12 bits, x/y/z 17 bits each).
inline std::uint64_t packCoord(std::int64_t b, std::int64_t x, std::int64_t y, std::int64_t z) {
  return (static_cast<std::uint64_t>(b) << 51) | (static_cast<std::uint64_t>(x - kMinCoord) << 34) |
         (static_cast<std::uint64_t>(y - kMinCoord) << 17) | static_cast<std::uint64_t>(z - kMinCoord);
}
/// True when (b, x, y, z) lies in the range a CoordSet can hold.
inline bool coordInRange(std::int64_t b, std::int64_t x, std::int64_t y, std::int64_t z) {
  return b >= 0 && b <= kMaxBatch && x >= kMinCoord && x <= kMaxCoord && y >= kMinCoord &&
         y <= kMaxCoord && z >= kMinCoord && z <= kMaxCoord;
}
/// "batch 0..4095, x, y and z -65536..65535": the range, for messages.
std::string coordRangeText();

class CoordSet {
public:
  /// Takes (rows × 4) coordinates. Throws lattice::Exception naming the first row outside the
  /// range: "coordinate (0, 70000, 1, 2) of row 5 is outside the runtime's range (...)".
  static std::shared_ptr<const CoordSet> make(std::vector<std::int32_t> coords);
  ~CoordSet();

  std::int64_t rows() const { return static_cast<std::int64_t>(m_coords.size() / 4); }
  const std::vector<std::int32_t>& data() const { return m_coords; }
  const std::int32_t* row(std::int64_t r) const { return m_coords.data() + 4 * r; }

  /// The first row holding (b, x, y, z), or -1. Builds the index on the first call (thread-safe;
  /// concurrent finds after that are lock-free reads).
  std::int64_t find(std::int64_t b, std::int64_t x, std::int64_t y, std::int64_t z) const;
  /// Builds the index now (what find() would do on its first call).
  void buildIndex() const;
  /// True when no coordinate appears twice (sec. 10.1 requires it of active rows; a set made from
  /// invalid inputs may break it, and lookups then use the first row).
  bool unique() const;

private:
  friend class CoordSetBuilder;
  explicit CoordSet(std::vector<std::int32_t> coords);
  struct Index;
  std::vector<std::int32_t> m_coords;
  mutable std::once_flag m_indexOnce;
  mutable std::unique_ptr<Index> m_index;
};

/// Builds a CoordSet row by row, keeping the first occurrence of each coordinate (the
/// deduplicating supports of sec. 10.3: forward and transposed outputs, voxelize).
class CoordSetBuilder {
public:
  CoordSetBuilder();
  ~CoordSetBuilder();
  CoordSetBuilder(const CoordSetBuilder&) = delete;
  CoordSetBuilder& operator=(const CoordSetBuilder&) = delete;

  void reserve(std::size_t rows);
  /// The row of (b, x, y, z), appending it when new. Throws lattice::Exception when the
  /// coordinate is outside the range.
  std::int64_t insert(std::int64_t b, std::int64_t x, std::int64_t y, std::int64_t z);
  std::int64_t rows() const { return static_cast<std::int64_t>(m_coords.size() / 4); }
  /// The set (its index is the builder's, so it needs no second pass).
  std::shared_ptr<const CoordSet> finish();

private:
  struct Impl;
  std::vector<std::int32_t> m_coords;
  std::unique_ptr<Impl> m_impl;
};

} // namespace lattice::runtime
