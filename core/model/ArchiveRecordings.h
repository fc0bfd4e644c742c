#pragma once
/// \file The archive's optional recordings (fx-archive.md, top section): `inputs.safetensors`,
/// the example inputs in the artifact runtime's naming (`x_coords`, `x_features`, `x_active`, a
/// dense input under its name), and `activations.safetensors`, every traced node's value as the
/// producer computed it (`NAME`, sparse `NAME.coords` / `NAME.features` / `NAME.active`, tuple
/// items `NAME.0`, `NAME.1.coords`, ...). Both are optional; a tensor whose name matches no node
/// of the traced graph is a warning, not an error.
///
/// The reader needs no tracer: the caller passes the traced graph's node names (what
/// `lattice-cli trace` prints), and the studio and `lattice-cli check` use the files as default
/// inputs and golden values.

#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lattice {

/// The `__metadata__` entry that says recorded sparse coordinates are physical (each spatial
/// column times the tensor's stride, as the artifact uses them): `"coords": "physical"`. Files
/// without it were written by exporters that stored torch-lattice's own strided units.
inline constexpr const char* kRecordedCoordsKey = "coords";
inline constexpr const char* kRecordedCoordsPhysical = "physical";

/// The file names inside an archive directory.
inline constexpr const char* kArchiveInputsFile = "inputs.safetensors";
inline constexpr const char* kArchiveActivationsFile = "activations.safetensors";

/// An activations key split by the naming rule: `node` (the FX node name: no dots), the tuple
/// indices on the way (`out.1.0` → {1, 0}) and the sparse part (`coords`, `features`, `active`)
/// or "" for a dense tensor.
struct ActivationKey {
  std::string node;
  std::vector<int64_t> indices;
  std::string part;
  /// The value's name without the sparse part: `out.1` for `out.1.coords`.
  std::string valueName() const;
};

/// Splits `key`; nullopt when it does not follow the rule (an empty or non-identifier node name,
/// a component that is neither an index nor a final `coords` / `features` / `active`).
std::optional<ActivationKey> parseActivationKey(const std::string& key);

/// One recorded value: a dense tensor, or a sparse value's three tensors.
struct RecordedValue {
  std::string name; ///< `fc`, `out.0`: the node name plus tuple indices
  std::string node; ///< the node it belongs to
  bool sparse = false;
  TensorData tensor;                   ///< dense
  TensorData coords, features, active; ///< sparse: I32 (n, 4), (n, C), I32 (1,)
};

/// The recordings of one archive. Files that are absent are null.
struct ArchiveRecordings {
  std::string dir;
  std::shared_ptr<const SafetensorsFile> inputs;
  std::shared_ptr<const SafetensorsFile> activations;
  /// One line each, naming the file and the tensor: "activations.safetensors: tensor 'foo'
  /// matches no node of the traced graph", incomplete or ill-shaped sparse values, ...
  std::vector<std::string> warnings;
  /// Node name → its recorded values (what valuesOf returns), for the values that passed the
  /// checks; filled by readArchiveRecordings.
  std::map<std::string, std::vector<RecordedValue>> byNode;

  /// Whether each file's sparse coordinates are physical (see kRecordedCoordsKey); false for a
  /// file of an older exporter, whose coordinates are in each tensor's own strided units.
  bool inputsPhysical = true;
  bool activationsPhysical = true;

  bool hasInputs() const { return inputs != nullptr; }
  bool hasActivations() const { return activations != nullptr; }
  /// `__metadata__[key]` of the activations file, else of the inputs file ("" when neither has
  /// it): `producer`, `torch`, `device`.
  std::string metadata(const std::string& key) const;
  /// The recorded values of node `nodeName` (a tensor or sparse value: one; a tuple or list:
  /// one per tensor item, ordered by their indices); empty when none was recorded. Sparse values
  /// missing a part or with ill-shaped parts are left out (readArchiveRecordings warned).
  std::vector<RecordedValue> valuesOf(const std::string& nodeName) const;
};

/// Which recordings `dir` holds, without reading them.
struct ArchiveRecordingFiles {
  bool inputs = false;
  bool activations = false;
};
ArchiveRecordingFiles findArchiveRecordings(const std::string& dir);

/// Opens (maps) whichever of the two files `dir` holds. An error only for a file that exists but
/// cannot be read (message from the safetensors reader, naming the file). `nodeNames`: the node
/// names of the archive's traced graph; every activations tensor is checked against them and
/// against the naming rule, and each problem becomes a warning (empty `nodeNames`: no node check).
Expected<ArchiveRecordings> readArchiveRecordings(const std::string& dir, const std::vector<std::string>& nodeNames);

} // namespace lattice
