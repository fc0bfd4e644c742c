#pragma once
/// \file Internal to the built-in examples: adds module records the way torch-lattice's
/// exporter records them (types, bases, attributes, parameter and buffer tensors, signatures,
/// one-level graphs) and fills the weights from a seeded generator. Not part of the public API.

#include "model/Model.h"

#include <array>
#include <cstdint>
#include <random>
#include <string>

namespace lattice::examples {

using Triple = std::array<int64_t, 3>;

inline Triple triple(int64_t v) { return {v, v, v}; }

/// Which `_BaseConv3d` subclass (lowering.md §7.1).
enum class ConvKind { Conv, Subm, Transpose };

class ExampleBuilder {
public:
  /// Weights come from one std::mt19937_64 seeded with `seed`, one draw per tensor in the order
  /// modules are added (each tensor then fills itself on first use), so a seed fixes every value.
  explicit ExampleBuilder(uint64_t seed);

  Model& model() { return m_model; }
  Model take() { return std::move(m_model); }

  /// Adds the root record (path "").
  void addRoot(ModuleInfo module);
  /// Adds `module` as child `local` of `parent` (listed in the parent's children); returns its path.
  std::string add(const std::string& parent, const std::string& local, ModuleInfo module);

  // Library leaves (no graph).
  std::string conv(const std::string& parent, const std::string& local, ConvKind kind, int64_t in,
                   int64_t out, Triple kernel, Triple stride = triple(1), Triple dilation = triple(1));
  std::string batchNorm(const std::string& parent, const std::string& local, int64_t channels);
  std::string relu(const std::string& parent, const std::string& local);
  std::string identity(const std::string& parent, const std::string& local);

  // Containers.
  /// `torch.nn.modules.container.Sequential` or a subclass (`type` with bases [Sequential,
  /// Module]); its graph is made by finishSequential once the children are in.
  std::string sequential(const std::string& parent, const std::string& local,
                         const std::string& type = "torch.nn.modules.container.Sequential");
  /// The Sequential forward: input → child 0 → child 1 → ... → output.
  void finishSequential(const std::string& path);
  /// ModuleList / ModuleDict: never called, so no graph.
  std::string moduleList(const std::string& parent, const std::string& local);
  std::string moduleDict(const std::string& parent, const std::string& local);

  // torch_lattice.backbones.modules.blocks (lowering.md §8.1).
  /// SubmConv3d when stride is (1,1,1), else Conv3d; no bias.
  std::string convHelper(const std::string& parent, const std::string& local, int64_t in, int64_t out,
                         Triple kernel, Triple stride, Triple dilation = triple(1));
  std::string convBlock(const std::string& parent, const std::string& local, int64_t in, int64_t out,
                        Triple kernel, Triple stride = triple(1));
  std::string convTransposeBlock(const std::string& parent, const std::string& local, int64_t in,
                                 int64_t out, Triple kernel, Triple stride);
  std::string resBlock(const std::string& parent, const std::string& local, int64_t in, int64_t out,
                       Triple kernel, Triple stride = triple(1));

  /// A float32 tensor uniform in [-bound, bound], computed when first read (deferred).
  TensorData uniform(std::vector<int64_t> shape, double bound);

private:
  /// Registers `module`'s tensor in the slot list and the weights.
  void addParameter(ModuleInfo& module, const std::string& name, TensorData tensor);
  void addBuffer(ModuleInfo& module, const std::string& name, TensorData tensor);

  Model m_model;
  std::mt19937_64 m_rng;
};

/// A module record of `type` with `bases`; training false; no attributes or tensors.
ModuleInfo record(std::string type, std::vector<std::string> bases);
/// [name: positional_or_keyword, ...].
std::vector<SignatureParam> positional(std::initializer_list<const char*> names);
/// The `(kernel_volume, 3)` int32 kernel_positions buffer: rows (x, y, z), z fastest.
TensorData kernelPositions(Triple kernel);

extern const char* const kModule;     ///< torch.nn.modules.module.Module
extern const char* const kSequential; ///< torch.nn.modules.container.Sequential

} // namespace lattice::examples
