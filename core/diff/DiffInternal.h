#pragma once
/// \file Internals of lattice_diff shared by its .cpp files: value producers, the op matching,
/// and the per-artifact weight catalog (storage keys, stored forms, logical shapes). Not part of
/// the public API.

#include "diff/ArtifactDiff.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace lattice::diff_detail {

/// The entry function: `@forward` when present, else the first function; nullptr when none.
const ArtifactFunction* entryFunction(const ArtifactGraph& graph);

/// Who defines a value: result `index` of op `op`, or argument `index` when `op` is kArgument.
/// kUnknown: a name defined nowhere (compared by name).
struct Producer {
  static constexpr int kArgument = -1;
  static constexpr int kUnknown = -2;
  int op = kUnknown;
  int index = 0;

  bool operator==(const Producer& o) const { return op == o.op && index == o.index; }
  bool operator!=(const Producer& o) const { return !(*this == o); }
};

/// Value name -> producer for one function (first definition wins for duplicated names).
using ProducerMap = std::unordered_map<std::string, Producer>;
ProducerMap producerMap(const ArtifactFunction& function);
/// The producer of `name` (kUnknown when undefined).
Producer producerOf(const ProducerMap& map, const std::string& name);

/// The op's display name: the weight symbol for `lattice.weight`, else its first result's name,
/// else "".
std::string opDisplayName(const ArtifactOp& op);

/// Pairing of the ops of two functions (see ArtifactDiff.h for the rules).
struct OpMatching {
  std::vector<int> aToB;    ///< per op of A: its partner in B or -1
  std::vector<int> bToA;    ///< per op of B: its partner in A or -1
  std::vector<char> byFlow; ///< per op of B: matched by storage key or data flow, not by name
};
OpMatching matchOps(const ArtifactFunction& a, const ProducerMap& producersA, const ArtifactFunction& b,
                    const ProducerMap& producersB);

/// Whether `producerB` (a producer in B) corresponds to `producerA` under the matching; unknown
/// producers compare by value name.
bool sameProducer(const OpMatching& matching, const Producer& producerA, const std::string& nameA,
                  const Producer& producerB, const std::string& nameB);

/// Module attributes, ABI and op diffs (GraphDiff.cpp).
void diffGraphs(const ArtifactGraph& a, const ArtifactGraph& b, ArtifactDiff& out);

/// Every storage key of both sides, sorted (WeightDiff.cpp).
std::vector<WeightDiff> diffWeights(const LoadedArtifact& a, const LoadedArtifact& b,
                                    const DiffOptions& options);

/// One storage key of one artifact: the weight op, its stored tensors and what is known of its
/// logical shape.
struct WeightEntry {
  std::string key;
  int opIndex = -1;
  std::string layout;
  std::string family;
  PackingAttr packing;
  bool quantized = false;
  int bits = 0;
  /// The stored tensors (nullptr when missing or when the artifact has no weights file).
  const TensorData* dense = nullptr;
  const TensorData* codes = nullptr;
  const TensorData* scales = nullptr;
  const TensorData* biases = nullptr;
  /// The stored form text (`F32 [4, 3]`, `int4 g32 f16 (U32 [1, 4, 4])`).
  std::string form;
  /// Why the stored tensors cannot be read ("" when they can).
  std::string problem;
  /// Quantized: output channels, kernel rows K and storage columns from the codes' shape.
  std::int64_t outChannels = 0;
  std::int64_t kernelRows = 1;
  std::int64_t storageColumns = 0;
  /// Quantized conv: the consumer's kernel_size when it matches K.
  std::optional<std::vector<std::int64_t>> kernel;
  /// The input channels: the dense last dimension, or for quantized weights what the consumer
  /// tells (linear input type, channels propagated along the sparse values).
  std::optional<std::int64_t> inChannels;
};

/// Every storage key of an artifact's entry function, with stored forms and channel inference.
class WeightCatalog {
public:
  explicit WeightCatalog(const LoadedArtifact& artifact);

  const WeightEntry* find(const std::string& key) const;
  /// Entries sorted by key.
  const std::vector<WeightEntry>& entries() const { return m_entries; }
  bool hasWeightsFile() const { return m_hasWeights; }

private:
  std::vector<WeightEntry> m_entries;
  std::unordered_map<std::string, std::size_t> m_index;
  bool m_hasWeights = false;
};

/// The logical values and shape of a weight. `inChannelsHint` replaces an unknown C_in of a
/// quantized weight; when both are unknown the padded storage columns are used and `note` says
/// so.
struct LogicalWeight {
  std::vector<float> values;
  std::vector<std::int64_t> shape;
  std::string note;
};
Expected<LogicalWeight> logicalWeight(const WeightEntry& entry,
                                      std::optional<std::int64_t> inChannelsHint = std::nullopt);

/// The logical shape without reading values (same rules as logicalWeight); empty when unknown.
std::vector<std::int64_t> logicalShape(const WeightEntry& entry,
                                       std::optional<std::int64_t> inChannelsHint = std::nullopt);

/// `[4, 3, 3]`.
std::string shapeText(const std::vector<std::int64_t>& shape);

} // namespace lattice::diff_detail
