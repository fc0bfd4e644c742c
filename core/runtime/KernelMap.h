#pragma once
/// \file Kernel maps: the edges (input row, output row, kernel row) of a sparse relation, grouped
/// by kernel row, and the output support they define (lattice-artifact-validation.md sec. 10.2
/// kernel rows and offsets, sec. 10.3 the six relation builders). Convolution and pooling run
/// over a map as gather -> GEMM -> scatter-add per kernel row, the way TorchSparse, spconv and
/// MinkowskiEngine do. Within one kernel row every output row has at most one edge, so a
/// scatter-add over one row's edges never writes an output twice.
///
/// A KernelMapCache hands out one map per (input support, target support, relation): the subm
/// convs of a block, which share their input CoordSet, share one map.

#include "runtime/CoordSet.h"
#include "runtime/RuntimeValue.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

namespace lattice::runtime {

/// The relation builders of sec. 10.3.
enum class Relation { Forward, Submanifold, Target, Transposed, TargetTransposed, Generative };
/// The offset families of sec. 10.2.
enum class OffsetFamily { Sparse, Indexed, IndexedNoDilation };

/// Largest kernel volume (Kx·Ky·Kz) the runtime accepts: 16³. Pooling kernels have no weights to
/// bound them, and a map's memory grows with the volume.
inline constexpr std::int64_t kMaxKernelVolume = 4096;

struct RelationSpec {
  Relation relation = Relation::Submanifold;
  OffsetFamily offsets = OffsetFamily::Sparse;
  Triple kernel{1, 1, 1};
  Triple stride{1, 1, 1};
  Triple padding{0, 0, 0};
  Triple dilation{1, 1, 1};

  std::int64_t volume() const { return kernel[0] * kernel[1] * kernel[2]; }
  auto tie() const { return std::tie(relation, offsets, kernel, stride, padding, dilation); }
  bool operator<(const RelationSpec& o) const { return tie() < o.tie(); }
};

/// The offset of every kernel row k = (px·Ky + py)·Kz + pz (z fastest).
std::vector<Triple> kernelOffsets(const RelationSpec& spec);

struct KernelMap {
  /// The output support (the input's own CoordSet for subm and for forward with stride 1 and no
  /// padding; the target's for target relations).
  std::shared_ptr<const CoordSet> output;
  std::int64_t volume = 0;
  /// Edges of kernel row k are [begin[k], begin[k + 1]) of `in` / `out`, ordered by output row.
  std::vector<std::int64_t> begin;
  std::vector<std::int32_t> in;
  std::vector<std::int32_t> out;
  /// True when every kernel row's edges are ordered by output row (the lookup relations): the
  /// convolution then works through the output in cache-sized blocks.
  bool outputOrdered = false;
  /// A kernel row whose edges are (r, r) for every row of a shared input/output support (the
  /// centre of a subm kernel): its GEMM needs no gather or scatter. -1 when there is none.
  std::int64_t identityRow = -1;
  /// Per kernel row: the first input (output) row when the row's edges read (write) consecutive
  /// rows first, first + 1, ...; -1 otherwise. Such a side needs no gather (scatter): the GEMM
  /// reads (writes) the rows in place.
  std::vector<std::int64_t> inRun, outRun;
  /// Wall time of building the map (and its output support), milliseconds.
  double buildMs = 0.0;

  std::int64_t edges() const { return static_cast<std::int64_t>(in.size()); }
  std::int64_t edgesOf(std::int64_t k) const { return begin[k + 1] - begin[k]; }
};

/// The output support of a forward relation (sec. 10.3): `input` itself for stride 1 without
/// padding, else the unique floor(c / stride) in first-occurrence order.
std::shared_ptr<const CoordSet> forwardSupport(const std::shared_ptr<const CoordSet>& input, const RelationSpec& spec);

/// Builds the map of `spec` from `input` to its output support: `target` for the target
/// relations; for forward, `target` when given (the support forwardSupport computed), else
/// forwardSupport's; ignored otherwise. Throws lattice::Exception when the kernel volume exceeds
/// kMaxKernelVolume, an output coordinate leaves the CoordSet range, or the map would exceed
/// 2^31 edges.
std::shared_ptr<const KernelMap> buildKernelMap(const std::shared_ptr<const CoordSet>& input,
                                                const std::shared_ptr<const CoordSet>& target,
                                                const RelationSpec& spec);

/// One map per (input, target, relation) for the length of a run. Thread-safe. The cache holds its
/// supports weakly: once no value holds an input (or target) CoordSet any more, prune() drops
/// the maps built on it, and a new CoordSet that happens to get the same address is never
/// mistaken for the old one.
class KernelMapCache {
public:
  /// The cached map, or a new one; `built` is set when this call built it.
  std::shared_ptr<const KernelMap> get(const std::shared_ptr<const CoordSet>& input,
                                       const std::shared_ptr<const CoordSet>& target, const RelationSpec& spec,
                                       bool* built = nullptr);
  /// Drops the maps and supports whose input or target no longer exists.
  void prune();
  void clear();
  std::size_t size() const;
  /// Bytes of the cached maps' edges.
  std::uint64_t bytes() const;

private:
  using Key = std::tuple<const CoordSet*, const CoordSet*, RelationSpec>;
  struct Entry {
    std::weak_ptr<const CoordSet> input, target;
    std::shared_ptr<const KernelMap> map;
  };
  using SupportKey = std::tuple<const CoordSet*, Triple, bool>;
  struct SupportEntry {
    std::weak_ptr<const CoordSet> input;
    std::shared_ptr<const CoordSet> support;
  };
  mutable std::mutex m_mutex;
  std::map<Key, Entry> m_maps;
  std::map<SupportKey, SupportEntry> m_supports;
};

} // namespace lattice::runtime
