#pragma once
/// \file Safetensors reading (into memory, every bound checked) and writing with the reference
/// writer's byte conventions (lattice-artifact-format.md §13.1).

#include "support/Expected.h"
#include "tensor/TensorData.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lattice {

struct NamedTensor {
  std::string key;
  TensorData tensor;
};

using SafetensorsMetadata = std::vector<std::pair<std::string, std::string>>;

/// A parsed safetensors file, read whole into memory (never mapped): tensors are views into its
/// bytes, which stay valid while any TensorData holds them, whatever happens to the file.
class SafetensorsFile {
public:
  /// Reads and parses `path` (refused, with its size, when larger than the memory left). Errors are
  /// one line naming the file (and the key): "<path>: tensor 'stem.weight': data_offsets [0, 99] exceed the data section (64 bytes)".
  static Expected<SafetensorsFile> open(const std::string& path);
  /// Parses bytes already in memory; `name` is used in messages; `keepAlive` owns `data`.
  static Expected<SafetensorsFile> parse(const uint8_t* data, std::size_t size, std::string name,
                                         std::shared_ptr<const void> keepAlive);

  const std::string& name() const { return m_name; }
  /// Tensors in header order.
  const std::vector<NamedTensor>& tensors() const { return m_tensors; }
  /// nullptr when absent.
  const TensorData* find(const std::string& key) const;
  /// `__metadata__` entries (empty when absent), in header order.
  const SafetensorsMetadata& metadata() const { return m_metadata; }
  bool hasMetadata() const { return m_hasMetadata; }

private:
  std::string m_name;
  std::vector<NamedTensor> m_tensors;
  std::vector<std::pair<std::string, std::size_t>> m_index; // sorted by key -> position
  SafetensorsMetadata m_metadata;
  bool m_hasMetadata = false;
};

/// The reference writer's order: dtype rank descending, then key ascending by bytes.
void sortForSafetensors(std::vector<const NamedTensor*>& tensors);

/// Serialises the header (8-byte length + JSON padded with spaces to a multiple of 8) for the
/// given tensors, in the reference order. `metadata` nullopt writes no `__metadata__`.
std::string safetensorsHeader(const std::vector<const NamedTensor*>& sortedTensors,
                              const std::optional<SafetensorsMetadata>& metadata);

/// Writes a complete file (not atomically; callers that need atomicity write into a temporary
/// directory). `progress(bytesWritten, totalBytes)` returning false cancels with an error.
Status writeSafetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                        const std::optional<SafetensorsMetadata>& metadata,
                        const std::function<bool(uint64_t, uint64_t)>& progress = {});

/// The metadata the reference writes into weights files: {"format": "torch"}.
SafetensorsMetadata torchWeightsMetadata();

} // namespace lattice
