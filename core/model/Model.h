#pragma once
/// \file Model: a module tree with one-level forward graphs and the weights, as recorded by an
/// FX archive (fx-archive.md) or built in code (the built-in backbones use the same API).

#include "fx/Graph.h"
#include "support/Expected.h"
#include "tensor/TensorData.h"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <absl/container/flat_hash_map.h>
#include <utility>
#include <vector>

namespace lattice {

/// {"key", "dtype", "shape"}: names a tensor in the model's weights.
struct TensorRecord {
  std::string key;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};

enum class ParamKind : unsigned char { PositionalOnly, PositionalOrKeyword, VarPositional, KeywordOnly, VarKeyword };

/// One forward parameter.
struct SignatureParam {
  std::string name;
  ParamKind kind = ParamKind::PositionalOrKeyword;
  std::optional<fx::Value> defaultValue;
};

/// One module of the tree.
struct ModuleInfo {
  std::string path;                ///< "" for the root, "encoders.0.1"
  std::string type;                ///< fully qualified class name
  std::vector<std::string> bases;  ///< MRO after `type`, ending with torch.nn.modules.module.Module
  bool training = false;
  fx::Kwargs attributes;           ///< insertion-ordered public attributes
  std::vector<std::pair<std::string, std::optional<TensorRecord>>> parameters; ///< nullopt = None slot
  std::vector<std::pair<std::string, std::optional<TensorRecord>>> buffers;
  std::vector<std::string> children; ///< local names, registration order
  std::shared_ptr<fx::Graph> graph;  ///< one-level forward graph; null for library leaves
  std::vector<SignatureParam> signature;

  /// True when `qualifiedType` is `type` or one of `bases`.
  bool isA(const std::string& qualifiedType) const;
  /// Last component of `type` ("SubmConv3d").
  std::string className() const;
  /// nullptr when absent.
  const fx::Value* attribute(const std::string& name) const;
  /// Qualified path of a child ("a.b" + "c" → "a.b.c"; "" + "c" → "c").
  std::string childPath(const std::string& localName) const;
};

/// Input ABI hint (fx-archive.md "Input specs").
struct InputSpec {
  enum class Kind : unsigned char { Sparse, Dense };
  std::string name;
  Kind kind = Kind::Sparse;
  std::string dtype;                 ///< sparse: "f32"/"f16"; dense from a shape: "f32"/"f16"/"i32"/"i64"
  std::optional<int64_t> channels;
  std::array<int64_t, 3> stride{1, 1, 1}; ///< sparse only
  std::string type;                  ///< dense: exact MLIR tensor type ("tensor<?x3xf32>")
};

/// Lowering hints (fx-archive.md "lowering").
struct LoweringOptions {
  std::optional<int64_t> batchSize;
  std::optional<std::string> inputDtype;   ///< "f32" / "f16"
  std::optional<int> quantizeBits;         ///< 4 / 8
  int quantizeGroupSize = 32;
  std::string quantizeScaleDtype = "f16";
  std::optional<std::vector<std::string>> outputNames;
};

/// Parent of a qualified path ("a.b.c" → "a.b"; "a" → "").
std::string parentPath(const std::string& path);
/// Last component of a qualified path ("a.b.c" → "c").
std::string localName(const std::string& path);

class Model {
public:
  Model() = default;
  Model(Model&&) noexcept = default;
  Model& operator=(Model&&) noexcept = default;

  /// Adds a module; the root (path "") must come first, a parent before its children, and a
  /// path may occur once. These are preconditions (asserted in debug builds; in release builds
  /// the path index keeps the first module with a path). addModule does not touch the parent's
  /// `children`: the caller lists the child there. The returned reference is valid until the
  /// next addModule.
  ModuleInfo& addModule(ModuleInfo module);
  const std::vector<ModuleInfo>& modules() const { return m_modules; }
  std::vector<ModuleInfo>& modules() { return m_modules; }
  /// The root module; the model must not be empty.
  const ModuleInfo& root() const { return m_modules.front(); }
  /// nullptr when absent.
  const ModuleInfo* module(const std::string& path) const;
  ModuleInfo* module(const std::string& path);

  /// Weights by state_dict key.
  void setTensor(const std::string& key, TensorData tensor);
  /// nullptr when absent.
  const TensorData* tensor(const std::string& key) const;
  const std::map<std::string, TensorData>& tensors() const { return m_tensors; }
  /// Sum of byte sizes of all weights.
  uint64_t weightBytes() const;
  /// The lowering input dtype: `lowering.input_dtype` when given, else the first sparse
  /// input's dtype, else "f32" (fx-archive.md "lowering" defaults).
  std::string resolvedInputDtype() const;

  std::vector<InputSpec> exampleInputs;
  std::optional<LoweringOptions> lowering;
  std::string producerName;
  std::string producerVersion;
  /// Where the model came from ("model.ltfx", "example:sparse_resunet42"), for messages.
  std::string source;

private:
  std::vector<ModuleInfo> m_modules;
  absl::flat_hash_map<std::string, std::size_t> m_byPath;      // path → position in m_modules
  std::map<std::string, TensorData> m_tensors;               // ordered for listings
  absl::flat_hash_map<std::string, TensorData*> m_tensorIndex; // key → m_tensors' (stable) element
};

} // namespace lattice
