#pragma once
/// \file TorchLatticeArtifactBuilder: the C++ counterpart of torch-lattice's
/// `TorchLatticeArtifactBuilder` (lowering.md §5). It owns the MLIR text being built (an
/// MlirModuleWriter), the weight table, the "current" value of the chain API and the provenance
/// of every argument and op it emits, and it dispatches module lowerings (§3, looked up along a
/// module's `type` then `bases`) and function lowerings (§4, keyed by canonical function name).
///
/// Error convention: every public method returns Expected/Status with the reference's message
/// text (e.g. "SubmConv3d artifact expects 1 symbolic lattice values."; the reference messages
/// keep their trailing period). Lowerings throw lattice::Exception internally; the public methods
/// convert it. A failed call may leave the ops and weights emitted before the failure in place,
/// as the reference does (e.g. BatchNorm's missing running stats are reported after its decompose
/// and weight ops); callers abandon the builder after an error.
///
/// Typical use (what LatticeArtifactInterpreter and saveLatticeModelArtifact do):
/// \code
///   ArtifactBuilderOptions o; o.batchSize = 2; o.createDefaultInput = false;
///   auto b = TorchLatticeArtifactBuilder::create(o);            // Expected<builder>
///   b->setCurrentNode("x");
///   auto x = b->sparseArgument("x", "f32", 3);                   // %x_coords, %x_features, %x_active, %x
///   b->setCurrentNode("stem");
///   auto y = b->lowerModule("stem", *model.module("stem"), model, {*x});
///   b->setCurrentNode("add");
///   auto z = b->lowerFunction("operator.add", {toFxValue(*y), toFxValue(*x)}, {});
///   b->output({*z});                                             // or output({*z}, {"features"})
///   auto text = b->toMlir();                                     // graph.mlir
///   const std::vector<NamedTensor>& w = b->weights();            // weights.safetensors content
/// \endcode

#include "lowering/ArtifactSave.h"
#include "lowering/ArtifactValue.h"
#include "lowering/QuantizationPlan.h"
#include "dialect/MlirAttributes.h"
#include "dialect/MlirWriter.h"
#include "fx/Value.h"
#include "model/Model.h"
#include "support/Expected.h"
#include "support/StringArena.h"
#include "tensor/Safetensors.h"
#include "tensor/TensorData.h"

#include <absl/container/flat_hash_map.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lattice {

/// Constructor options (§5.1), validated by TorchLatticeArtifactBuilder::create in this order.
struct ArtifactBuilderOptions {
  /// SSA name of the default input's `sparse.make` (used verbatim, not sanitised).
  std::string inputName = "input";
  /// Name of a single output; several outputs are `{outputName}_{i}`.
  std::string outputName = "output";
  /// "f16" or "f32": "input_dtype must be 'f16' or 'f32'."
  std::string inputDtype = "f32";
  /// Static batch size for global pools; >= 0 or none: "batch_size must be non-negative or None."
  std::optional<int64_t> batchSize;
  /// None, 4 or 8: "quantize_bits must be None, 4, or 8."
  std::optional<int64_t> quantizeBits;
  /// > 0: "quantize_group_size must be positive."
  int64_t quantizeGroupSize = 32;
  /// "f16" or "f32": "quantize_scale_dtype must be 'f16' or 'f32'."
  std::string quantizeScaleDtype = "f16";
  /// A per-layer plan. When set it decides the format of every conv and linear weight, and
  /// quantizeBits, quantizeGroupSize and quantizeScaleDtype are not used.
  std::shared_ptr<const QuantizationPlan> quantizationPlan;
  /// Emit the default sparse input (§5.2) and make it the current value.
  bool createDefaultInput = true;
  /// Stride of the default input, converted with `_triple` (an int or a 3-sequence):
  /// "expected an int or length-3 tuple, got <repr>."
  fx::Value inputStride = fx::Value::integer(1);
};

/// Which FX node (or other owner) produced an argument or an op, so the studio can map MLIR
/// lines and weight keys back to graph nodes and back. A record is a few indices (one is kept
/// per emitted line, so it holds no strings of its own); the builder answers the owner name,
/// the result names and the weight keys from them (ownerOf, resultsOf, weightKeysOf).
struct OpProvenance {
  enum class Kind : unsigned char { Argument, Op };
  Kind kind = Kind::Op;
  /// Index into writer().arguments() (Argument) or writer().ops() (Op).
  std::size_t index = 0;
  /// Schema op name ("conv3d", "weight", "sparse.make"), the schema's own string; "" for
  /// arguments.
  std::string_view op;
  /// The owner: an index into the builder's owner names (ownerOf).
  std::uint32_t owner = 0;
  /// `weight` ops only: the range of builder.weights() it stored (one entry, or `key.weight`,
  /// `key.scales`, `key.biases` when quantized).
  std::uint32_t firstWeight = 0;
  std::uint32_t weightCount = 0;
};

/// A conv or linear weight the builder stored: what a quantization plan decides about.
struct QuantizableWeight {
  /// The module path registerWeight was given (the plan's key, `stem.0`).
  std::string layer;
  /// The FX node that emitted it (the current node then).
  std::string owner;
  /// The storage key (`stem.0.weight`); quantized, the stored tensors are `key.weight`,
  /// `key.scales` and `key.biases`.
  std::string storageKey;
  /// `conv3d` or `linear`.
  std::string family;
  /// The logical shape before packing: (C_out, Kx, Ky, Kz, C_in) or (C_out, C_in).
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
  /// The format it was stored in.
  WeightFormat format;
  /// False for the normalized convolutions, whose weights the reference never packs.
  bool packable = true;
  /// Index of its `weight` op in provenance().
  std::size_t provenance = 0;
};

/// Attribute values of `activation(...)` (§5.10): the reference's defaults.
struct ActivationParams {
  std::string approximate = "none";
  double alpha = 0.01;
  double beta = 1.0;
  double threshold = 20.0;
};

class TorchLatticeArtifactBuilder {
public:
  /// Validates `options` (§5.1, first failing check wins) and, when `createDefaultInput`, emits
  /// the default sparse input (§5.2).
  static Expected<TorchLatticeArtifactBuilder> create(ArtifactBuilderOptions options = {});

  TorchLatticeArtifactBuilder(TorchLatticeArtifactBuilder&&) noexcept = default;
  TorchLatticeArtifactBuilder& operator=(TorchLatticeArtifactBuilder&&) noexcept = default;

  // --- configuration -------------------------------------------------------------------------

  const ArtifactBuilderOptions& options() const { return m_options; }
  const std::string& inputDtype() const { return m_options.inputDtype; }
  std::optional<int64_t> batchSize() const { return m_options.batchSize; }
  /// The validated `inputStride` triple.
  const std::array<int64_t, 3>& inputStride() const { return m_inputStride; }

  // --- current value (chain API) -------------------------------------------------------------

  /// The current value, or "builder has no current value; pass explicit inputs or create a
  /// default sparse input."
  Expected<ArtifactValuePtr> current() const;
  /// The current value or nullptr (no error).
  const ArtifactValuePtr& currentOrNull() const { return m_current; }
  void setCurrent(ArtifactValuePtr value) { m_current = std::move(value); }

  // --- inputs (§5.2–§5.4) --------------------------------------------------------------------

  /// §5.2: arguments `coords` (`tensor<?x4xi32>`, sparse_coords), `features`
  /// (`tensor<?x?x{inputDtype}>`, sparse_features), `active` (`tensor<1xi32>`, sparse_active)
  /// and a `sparse.make` named `inputName` with `inputStride`. Returns a sparse value with
  /// unknown channels; does not change current (create() sets it).
  Expected<ArtifactValuePtr> sparseInput();
  /// §5.3: `s = safeValueName(name)`; arguments `{s}_coords`, `{s}_features`
  /// (`tensor<?x{C}x{dtype}>`, `?` when channels is unknown), `{s}_active` and a `sparse.make`
  /// named `s` with `stride`. `dtype` defaults to inputDtype and is not validated. Does not
  /// change current.
  Expected<ArtifactValuePtr> sparseArgument(const std::string& name,
                                            std::optional<std::string> dtype = std::nullopt,
                                            std::optional<int64_t> channels = std::nullopt,
                                            std::array<int64_t, 3> stride = {1, 1, 1});
  /// §5.4: one argument named exactly `name` (not sanitised), role `tensor`; a dense value.
  Expected<ArtifactValuePtr> denseArgument(const std::string& name, const std::string& type,
                                           std::optional<int64_t> channels = std::nullopt);

  // --- lowering (§3, §4, §5.5) ---------------------------------------------------------------

  /// §5.5 `module(name, module)`: lowerModule(name, module, model, {current or nullptr}), then
  /// the result (possibly nullptr) becomes the current value.
  Expected<ArtifactValuePtr> module(const std::string& name, const ModuleInfo& module, const Model& model);
  /// §3 `lower_module(name, module, *inputs)`: the first of `module.type`, `module.bases` with a
  /// registered lowering is used ("unsupported module for lattice artifact: <ClassName>"
  /// otherwise); the arity is checked against `inputs.size()` (a nullptr input counts: it stands
  /// for Python's None). Parameters and buffers are read from `model.tensor(record.key)`. `name`
  /// is the result-name stem (the module path). The result is nullptr only where the reference
  /// returns None (Dropout/Identity given None). Does not change current.
  Expected<ArtifactValuePtr> lowerModule(const std::string& name, const ModuleInfo& module,
                                         const Model& model, std::vector<ArtifactValuePtr> inputs);
  /// §4: lowers a call_function node whose target is `target` (a canonical name such as
  /// `operator.add`, `torch_lattice.operators.cat`, `torch_lattice.nn.functional.voxelize.voxelize`)
  /// with `args`/`kwargs` as the interpreter evaluated them (ArtifactValues as
  /// fx::Value::object). Unknown targets: "unsupported FX function for lattice artifact:
  /// <target>". `operator.getitem` is structural and not handled here (the interpreter indexes
  /// concrete containers itself).
  Expected<ArtifactValuePtr> lowerFunction(const std::string& target, const fx::ValueList& args,
                                           const fx::Kwargs& kwargs);

  /// Qualified module types with a lowering, in registry order (lowering.md §1.1; equal to
  /// latticeSupportedModuleTypes()).
  static const std::vector<std::string>& moduleLoweringTypes();
  /// True when `module.type` or one of its bases has a module lowering.
  static bool hasModuleLowering(const ModuleInfo& module);
  /// Canonical function names with a lowering, in §1.2(a) table order.
  static const std::vector<std::string>& functionLoweringNames();
  /// True for a canonical name or one of its accepted spellings (`_operator.add`,
  /// `torch_lattice.cat`, `torch_lattice.voxelize`, ...).
  static bool hasFunctionLowering(const std::string& target);

  // --- builder helpers callable directly (§4 notes, §5.10) -----------------------------------

  /// `activation(name, kind, input=None, ...)`: the feature pattern (§3.2) around
  /// `lattice.activation` when the input is sparse, the bare op (named `{safe(name)}_features`)
  /// when dense. nullptr input: the current value.
  Expected<ArtifactValuePtr> activation(const std::string& name, const std::string& kind,
                                        ArtifactValuePtr input = nullptr,
                                        const ActivationParams& params = {});
  /// `global_pool(name, mode, input=None)`: a dense `(B, C)` value named `safe(name)`.
  Expected<ArtifactValuePtr> globalPool(const std::string& name, const std::string& mode,
                                        ArtifactValuePtr input = nullptr);
  /// `sparse_binary(name, lhs, rhs, op, join, lhs_fill, rhs_fill)`; the SSA stem is `name` as
  /// given (function lowerings pass `add`, `sub`, ...).
  Expected<ArtifactValuePtr> sparseBinary(const std::string& name, const ArtifactValuePtr& lhs,
                                          const ArtifactValuePtr& rhs, const std::string& op,
                                          const std::string& join, double lhsFill = 0.0,
                                          double rhsFill = 0.0);
  /// `sparse_cat(name, lhs, rhs, join="inner")`.
  Expected<ArtifactValuePtr> sparseCat(const std::string& name, const ArtifactValuePtr& lhs,
                                       const ArtifactValuePtr& rhs, const std::string& join = "inner");
  /// `sparse_reindex(name, input, target, fill=0.0)`.
  Expected<ArtifactValuePtr> sparseReindex(const std::string& name, const ArtifactValuePtr& input,
                                           const ArtifactValuePtr& target, double fill = 0.0);
  /// `voxelize(name, points, features, batch_indices, active_rows, voxel_size, origin,
  /// reduction, stride)`: all four operands dense; a sparse value with features' channels.
  Expected<ArtifactValuePtr> voxelize(const std::string& name, const ArtifactValuePtr& points,
                                      const ArtifactValuePtr& features, const ArtifactValuePtr& batchIndices,
                                      const ArtifactValuePtr& activeRows, std::array<double, 3> voxelSize,
                                      std::array<double, 3> origin = {0.0, 0.0, 0.0},
                                      const std::string& reduction = "mean",
                                      std::array<int64_t, 3> stride = {1, 1, 1});
  /// `devoxelize(name, points, voxels, batch_indices, point_active_rows, voxel_size, origin,
  /// interpolation)`: voxels sparse, the rest dense; a dense value with voxels' channels.
  Expected<ArtifactValuePtr> devoxelize(const std::string& name, const ArtifactValuePtr& points,
                                        const ArtifactValuePtr& voxels, const ArtifactValuePtr& batchIndices,
                                        const ArtifactValuePtr& pointActiveRows,
                                        std::array<double, 3> voxelSize = {1.0, 1.0, 1.0},
                                        std::array<double, 3> origin = {0.0, 0.0, 0.0},
                                        const std::string& interpolation = "nearest");

  // --- weights and raw ops (what lowerings build on) -----------------------------------------

  /// §5.7 `_weight(module_name, parameter, tensor, family, layout)`: storage key
  /// `safeKey(moduleName).parameter`; "duplicate exported weight key: <key>" when the key (or
  /// `key.weight`) is already stored; "unsupported tensor dtype for lattice artifact: <dtype>"
  /// unless F16/F32. Families `conv3d` and `linear` are stored in weightFormatFor's format
  /// (quantized: `key.weight`/`.scales`/`.biases`; a layer requireDenseWeights named stays
  /// dense) and recorded in quantizableWeights(); everything else is stored as given. Emits the
  /// `lattice.weight` op (SSA and symbol `safeValueName(key)`) and returns its value.
  Expected<ValueId> registerWeight(std::string_view moduleName, std::string_view parameter,
                                   const TensorData& tensor, std::string_view family, std::string_view layout);
  /// The format a `family` weight of `layer` is stored in: dense unless the family is `conv3d`
  /// or `linear`; then the plan's format (quantizationPlan), else quantizeBits' uniform one.
  WeightFormat weightFormatFor(std::string_view layer, std::string_view family) const;
  /// For layers whose weights must stay dense (the normalized convolutions, lowering.md §3): the
  /// reference's error when quantizeBits is set; with a plan, an error naming the plan entry that
  /// asks to pack `layer` ("quantization plan entry 'stem.*' asks int4 for 'stem.0', a
  /// NormalizedSubmConv3d: its weights stay dense because normalization depends on weight
  /// squares"). A plan's default never packs such a layer. Call before registering its weights.
  Status requireDenseWeights(const std::string& layer, const std::string& className);
  /// Every conv and linear weight registered so far, in registration order.
  const std::vector<QuantizableWeight>& quantizableWeights() const { return m_quantizable; }
  /// The patterns of the plan's entries that matched no conv or linear layer so far
  /// (finishLowering refuses a plan with any: "quantization plan entry 'x' matches no conv or
  /// linear layer of the model"). An entry every layer of which an exact name overrides counts
  /// as matching.
  std::vector<std::string> unusedPlanEntries() const;

  /// Emits one op through the writer (an OpRecord converts) and records its provenance under
  /// the current node.
  Expected<OpResults> emitOp(const OpSpec& op);
  /// Wraps the writer's value `v` as an ArtifactValue.
  ArtifactValuePtr makeValue(ValueId v, ArtifactValue::Kind kind, std::optional<int64_t> channels,
                             std::string dtype) const;

  // --- outputs (§5.10) -----------------------------------------------------------------------

  /// `output(*values, names=None)`: no values → the current value; default names `outputName`
  /// (one value) or `{outputName}_{i}`; roles `sparse_tensor`/`tensor` by kind. Replaces an
  /// earlier return. Errors: "output names must match the number of artifact outputs", no
  /// current value, a nullptr value.
  Status output(std::vector<ArtifactValuePtr> values = {},
                std::optional<std::vector<std::string>> names = std::nullopt);
  /// True once output() succeeded.
  bool finalized() const { return m_finalized; }
  /// `to_mlir()`: output() first when not finalized, then the graph.mlir text.
  Expected<std::string> toMlir();
  /// `save(artifact_dir, clean, validate)`: toMlir() and the weight table through
  /// saveArtifactFiles (atomic write, §6.3/§6.4).
  Status save(const std::string& artifactDir, const SaveOptions& options = {});

  // --- results and provenance ----------------------------------------------------------------

  /// The weight table in registration order: storage key (or quantized `key.weight`,
  /// `key.scales`, `key.biases`) → tensor already re-laid-out / quantized / converted.
  const std::vector<NamedTensor>& weights() const { return m_weights; }
  /// nullptr when `key` is not stored.
  const TensorData* weight(const std::string& key) const;
  /// The MLIR being built (arguments, ops with their text, line numbers).
  const MlirModuleWriter& writer() const { return m_writer; }

  /// Sizes the builder's op and weight lists for lowering a graph of `fxNodes` nodes from a model
  /// with `modelTensors` tensors, so they do not grow on the way: an FX node of a lattice model
  /// lowers to about 4 ops, and every weight comes from a model tensor (an estimate that is short
  /// only means one late growth).
  void reserveFor(std::size_t fxNodes, std::size_t modelTensors);

  /// The owner recorded for everything emitted from now on (normally the FX node name).
  void setCurrentNode(std::string owner);
  const std::string& currentNode() const { return m_owners.back(); }
  /// One record per argument and op, in emission order.
  const std::vector<OpProvenance>& provenance() const { return m_provenance; }
  /// The current node when `record` was emitted (setCurrentNode); "" when none was set.
  const std::string& ownerOf(const OpProvenance& record) const { return m_owners[record.owner]; }
  /// The SSA names `record` defines (uniqued, without `%`), in order.
  std::vector<std::string> resultsOf(const OpProvenance& record) const;
  /// The safetensors keys a `weight` record stored (`key`, or `key.weight`, `key.scales`,
  /// `key.biases` when quantized); empty for every other record.
  std::vector<std::string> weightKeysOf(const OpProvenance& record) const;
  /// Records emitted while `owner` was current, in emission order.
  std::vector<const OpProvenance*> provenanceOf(const std::string& owner) const;
  /// The owner of the weight op that stored safetensors key `key`; nullptr when unknown.
  const std::string* weightOwner(const std::string& key) const;
  /// 1-based line of a record in toMlir()'s text (ask once all arguments exist).
  std::size_t lineOf(const OpProvenance& record) const;

private:
  TorchLatticeArtifactBuilder() = default;

  Expected<ValueId> addArgument(const std::string& name, TypeText type, std::string role);
  /// The `sparse.make` of §5.2/§5.3 over (coords, features, active), named `name`.
  Expected<ArtifactValuePtr> sparseMake(const ValueId (&parts)[3], const std::string& name,
                                        const std::array<int64_t, 3>& stride, std::optional<int64_t> channels,
                                        const std::string& dtype);

  ArtifactBuilderOptions m_options;
  std::array<int64_t, 3> m_inputStride{1, 1, 1};
  MlirModuleWriter m_writer;
  std::vector<NamedTensor> m_weights;
  struct WeightSlot {
    std::size_t weight;     // position in m_weights
    std::size_t provenance; // the weight op's m_provenance index
  };
  absl::flat_hash_map<std::string_view, WeightSlot> m_weightIndex; // stored key -> slot
  StringArena m_weightKeys;                                        // m_weightIndex's keys
  std::string m_keyScratch;                                        // registerWeight's `key.weight`
  ArtifactValuePtr m_current;
  bool m_finalized = false;
  std::deque<std::string> m_owners{std::string()}; // setCurrentNode names; [0] is "" (stable refs)
  std::vector<OpProvenance> m_provenance;
  std::vector<QuantizableWeight> m_quantizable;
  std::vector<std::string> m_denseOnly;          // requireDenseWeights' layers
  mutable std::vector<bool> m_planEntryUsed;      // per plan entry: decided a layer
};

} // namespace lattice
