#pragma once
/// \file Lowering a Model into a lattice artifact: `save_lattice_model_artifact` (lowering.md
/// §6.1) with its ABI and option resolution, and `lower_fx_artifact` (§2.1). There is one way
/// through: prepareLowering sets the lowering up (builder, symbolic inputs, the traced graph and
/// its interpreter, started), finishLowering runs what is left and sets the outputs;
/// saveLatticeModelArtifact and lowerFxArtifact are both of them in one call.
///
/// \code
///   // One call (what lattice-cli does):
///   ExportOptions o;                       // archive defaults: example_inputs and lowering
///   Status s = saveLatticeModelArtifact(model, "out/model.lattice", o);
///
///   // Stepwise on a graph the caller traced already (what the studio does):
///   Expected<PreparedLowering> p = prepareLowering(model, o, graph.get());
///   while (p->interpreter && p->interpreter->currentNode()) p->interpreter->step();
///   Status done = finishLowering(*p);      // outputs; then p->builder->save(...)
/// \endcode

#include "lowering/ArtifactSave.h"
#include "lowering/ArtifactValue.h"
#include "lowering/LatticeArtifactInterpreter.h"
#include "lowering/TorchLatticeArtifactBuilder.h"
#include "fx/Graph.h"
#include "model/Model.h"
#include "support/Expected.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lattice {

class Tracer;

/// What `save_lattice_model_artifact` takes besides the model: the example inputs (here input
/// specs) and `LatticeModelArtifactOptions`. Every unset field falls back to the archive's
/// `example_inputs` / `lowering` hints (fx-archive.md), then to the reference defaults; the
/// archive's `batch_size` and `input_dtype` stand for what the reference infers from example
/// tensors.
struct ExportOptions {
  /// The ABI, one spec per exposed forward parameter, in order (default: model.exampleInputs).
  /// The spec names are informative: the ABI names come from the root's forward signature.
  std::optional<std::vector<InputSpec>> inputs;
  /// Static batch size for global pools (default: lowering.batch_size, else none).
  std::optional<int64_t> batchSize;
  /// "f32"/"f16" (default: lowering.input_dtype, else the sparse inputs' dtype, else "f32").
  std::optional<std::string> inputDtype;
  /// 4 or 8 (default: lowering.quantize_bits, else no quantization).
  std::optional<int64_t> quantizeBits;
  /// Quantization group size (default: lowering.quantize_group_size, else 32).
  std::optional<int64_t> groupSize;
  /// Quantization scale dtype "f16"/"f32" (default: lowering.quantize_scale_dtype, else "f16").
  std::optional<std::string> scaleDtype;
  /// A per-layer plan (`--quantize-plan`); it replaces quantizeBits, groupSize and scaleDtype
  /// and the archive's hints for them. resolveExport refuses it together with quantizeBits.
  std::shared_ptr<const QuantizationPlan> quantizationPlan;
  /// Layers kept dense on top of the uniform quantization (`--keep-dense PATTERN`, globs as in
  /// a plan): resolveExport turns them into a plan whose default is the resolved quantizeBits'
  /// format ("--keep-dense needs quantization (--quantize or the archive's quantize_bits)"
  /// without one). Given with a plan, they override the plan's own entries for those layers.
  std::vector<std::string> keepDense;
  /// Output names (default: lowering.output_names, else `output` / `output_0`, ...).
  std::optional<std::vector<std::string>> outputNames;
  /// Validate the written payload (§6.4); overrides `save.validate`.
  bool validate = true;
  /// Atomic-save options (clean, progress, fault injection).
  SaveOptions save;
  /// The tracer prepareLowering traces with when it is given no graph (an export on a worker
  /// thread traces its own, with the studio's leaf overrides); nullptr means a default
  /// LatticeTracer. Must outlive the prepareLowering call.
  const Tracer* tracer = nullptr;
};

/// The export's ABI and builder configuration after §6.1 steps 2–6.
struct ResolvedExport {
  /// The input specs with their ABI names (the forward parameter names), in order.
  std::vector<InputSpec> inputs;
  /// Builder options (createDefaultInput false).
  ArtifactBuilderOptions builder;
  std::optional<std::vector<std::string>> outputNames;
};

/// §6.1 steps 1–6 in order, with the reference's messages: the eval-mode check over every
/// module's `training`; a non-empty input list ("example_inputs must be a non-empty tuple");
/// input names from the root signature ("variadic model inputs are not exportable",
/// "model forward accepts R..N positional inputs, got C"); the input dtype ("all sparse inputs
/// must use one feature dtype", "unsupported artifact tensor dtype: <dtype>"); the batch size.
/// The builder validates its options (§5.1) when prepareLowering creates it.
Expected<ResolvedExport> resolveExport(const Model& model, const ExportOptions& options);

/// §6.1 step 8: the symbolic inputs (three ABI arguments and a `sparse.make` per sparse input,
/// one argument per dense input), in order. Input i is recorded in the builder's provenance under
/// `owners[i]` (normally the FX placeholder's node name), or under its own name when `owners`
/// is shorter. Errors: "unsupported artifact tensor dtype: <dtype>", a dense input without a
/// type ("unsupported artifact input '<name>': ..."), the builder's argument errors.
Expected<std::vector<ArtifactValuePtr>> createExportInputs(TorchLatticeArtifactBuilder& builder,
                                                           const std::vector<InputSpec>& inputs,
                                                           const std::vector<std::string>& owners = {});

/// A lowering that is set up and can be run step by step. The builder, an owned graph and the
/// interpreter are heap-held so their addresses survive moves of this struct; `model` must
/// outlive it.
struct PreparedLowering {
  const Model* model = nullptr;
  std::unique_ptr<TorchLatticeArtifactBuilder> builder;
  /// Symbolic inputs the graph runs on (placeholders take them in order).
  std::vector<ArtifactValuePtr> inputs;
  std::optional<std::vector<std::string>> outputNames;
  /// The graph the interpreter runs; null on the direct path (a root module with a lowering,
  /// §2.1 step 2). It is borrowed, never copied: the graph the caller gave prepareLowering (which
  /// must outlive this lowering and not change while it lives), or `ownedGraph`.
  const fx::Graph* graph = nullptr;
  /// The trace prepareLowering made when it was given no graph; null otherwise.
  std::unique_ptr<fx::Graph> ownedGraph;
  /// Interprets `graph` into `builder`, already started on `inputs`; null on the direct path.
  std::unique_ptr<LatticeArtifactInterpreter> interpreter;

  /// True when the root is lowered as one module without tracing.
  bool direct() const { return graph == nullptr; }
  /// The name the direct path lowers the root under: the lowercased class name ("conv3d").
  std::string directName() const;
};

/// Resolves the export (resolveExport), creates the builder and the symbolic inputs, and starts
/// the interpreter on `graph`: a trace of `model` the caller already made (the studio's, with
/// the user's leaf overrides), which the lowering borrows (see PreparedLowering::graph), so its
/// nodes are the lowering's nodes. Without a graph the model is traced here with
/// `options.tracer`. A root that has a lowering itself is lowered directly and no graph is used
/// (§2.1 step 2). No node has run yet.
Expected<PreparedLowering> prepareLowering(const Model& model, const ExportOptions& options,
                                           const fx::Graph* graph = nullptr);

/// Completes a prepared lowering: the direct path lowers the root; otherwise the interpreter
/// runs from wherever it stands to the end. The result is flattened (§2.4) and becomes the
/// builder's return (`output`). Errors from a node carry FX's "While executing" trailer.
/// `cancel`, when given, is read between nodes: once true, the lowering stops with "cancelled".
Status finishLowering(PreparedLowering& lowering, const std::atomic<bool>* cancel = nullptr);

/// `lower_fx_artifact(builder, model, inputs, output_names=...)` (§2.1): the same preparation
/// and finish into a configured builder. `inputs` empty means the builder's current value
/// ("builder has no current value; ..." when none); the model is traced with LatticeTracer
/// unless its root has a lowering. Ends with `builder.output(...)`; after an error the builder
/// holds what was emitted before it.
Status lowerFxArtifact(TorchLatticeArtifactBuilder& builder, const Model& model,
                       std::vector<ArtifactValuePtr> inputs = {},
                       std::optional<std::vector<std::string>> outputNames = std::nullopt);

/// `save_lattice_model_artifact(model, artifact_dir, ...)` (§6.1): prepareLowering and
/// finishLowering, then save atomically into `artifactDir` (graph.mlir + weights.safetensors,
/// validated unless `options.validate` is false). Every step's error is returned unchanged.
Status saveLatticeModelArtifact(const Model& model, const std::string& artifactDir,
                                const ExportOptions& options = {});

} // namespace lattice
