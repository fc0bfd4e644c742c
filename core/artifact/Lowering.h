#pragma once
/// \file Lowering a Model into a lattice artifact: `lower_fx_artifact` (lowering.md §2.1),
/// `save_lattice_model_artifact` (§6.1) with its ABI and option resolution, and the prepared,
/// steppable form of the same pipeline that the studio drives node by node.
///
/// \code
///   // One call (what lattice-cli does):
///   ExportOptions o;                       // archive defaults: example_inputs and lowering
///   Status s = saveLatticeModelArtifact(model, "out/model.lattice", o);
///
///   // Stepwise (what the studio does):
///   Expected<PreparedLowering> p = prepareLowering(model, o);
///   while (p->interpreter && p->interpreter->currentNode()) p->interpreter->step();
///   Status done = finishLowering(*p);      // outputs; then p->builder->save(...)
/// \endcode

#include "artifact/ArtifactSave.h"
#include "artifact/ArtifactValue.h"
#include "artifact/LatticeArtifactInterpreter.h"
#include "artifact/TorchLatticeArtifactBuilder.h"
#include "fx/Graph.h"
#include "model/Model.h"
#include "support/Expected.h"

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
  /// Output names (default: lowering.output_names, else `output` / `output_0`, ...).
  std::optional<std::vector<std::string>> outputNames;
  /// Validate the written payload (§6.4); overrides `save.validate`.
  bool validate = true;
  /// Atomic-save options (clean, progress, fault injection).
  SaveOptions save;
  /// The tracer prepareLowering traces with (the studio's, carrying the user's leaf
  /// overrides); nullptr means a default LatticeTracer. Must outlive the prepareLowering call.
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

/// A lowering that is set up and can be run step by step. The builder, the graph and the
/// interpreter are heap-held so their addresses survive moves of this struct; `model` must
/// outlive it.
struct PreparedLowering {
  const Model* model = nullptr;
  std::unique_ptr<TorchLatticeArtifactBuilder> builder;
  /// Symbolic inputs the graph runs on (placeholders take them in order).
  std::vector<ArtifactValuePtr> inputs;
  std::optional<std::vector<std::string>> outputNames;
  /// The traced graph; null on the direct path (a root module with a lowering, §2.1 step 2).
  std::unique_ptr<fx::Graph> graph;
  /// Interprets `graph` into `builder`, already started on `inputs`; null on the direct path.
  std::unique_ptr<LatticeArtifactInterpreter> interpreter;

  /// True when the root is lowered as one module without tracing.
  bool direct() const { return graph == nullptr; }
  /// The name the direct path lowers the root under: the lowercased class name ("conv3d").
  std::string directName() const;
};

/// Resolves the export (resolveExport), creates the builder and the symbolic inputs, and
/// traces the model with LatticeTracer unless the root itself has a lowering. The interpreter
/// is started but no node has run.
Expected<PreparedLowering> prepareLowering(const Model& model, const ExportOptions& options);

/// Prepares a lowering into an already-configured builder (moved in): `inputs` empty means the
/// builder's current value (§2.1 step 1).
Expected<PreparedLowering> prepareLowering(const Model& model, TorchLatticeArtifactBuilder builder,
                                           std::vector<ArtifactValuePtr> inputs = {},
                                           std::optional<std::vector<std::string>> outputNames = std::nullopt);

/// Completes a prepared lowering: the direct path lowers the root; otherwise the interpreter
/// runs from wherever it stands to the end. The result is flattened (§2.4) and becomes the
/// builder's return (`output`). Errors from a node carry FX's "While executing" trailer.
Status finishLowering(PreparedLowering& lowering);

/// `lower_fx_artifact(builder, model, inputs, output_names=...)` (§2.1): `inputs` empty means
/// the builder's current value ("builder has no current value; ..." when none). A root whose
/// type or bases have a lowering is lowered directly under its lowercased class name; otherwise
/// the model is traced (LatticeTracer) and interpreted. Ends with `builder.output(...)`.
Status lowerFxArtifact(TorchLatticeArtifactBuilder& builder, const Model& model,
                       std::vector<ArtifactValuePtr> inputs = {},
                       std::optional<std::vector<std::string>> outputNames = std::nullopt);

/// `save_lattice_model_artifact(model, artifact_dir, ...)` (§6.1): resolve the ABI and options,
/// build, lower, then save atomically into `artifactDir` (graph.mlir + weights.safetensors,
/// validated unless `options.validate` is false). Every step's error is returned unchanged.
Status saveLatticeModelArtifact(const Model& model, const std::string& artifactDir,
                                const ExportOptions& options = {});

} // namespace lattice
