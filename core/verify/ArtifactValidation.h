#pragma once
/// \file Validation of an artifact on disk: a directory (graph.mlir + weights.safetensors,
/// validation spec sec. 2 IO1-IO5, then every graph and weight rule) or a lone `.mlir` file (the
/// graph rules only). This is what `lattice-cli validate` and the studio call.

#include "mlir/ArtifactGraph.h"
#include "mlir/Diagnostic.h"
#include "mlir/MlirParser.h"
#include "tensor/Safetensors.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lattice {

/// The outcome of validating one artifact.
struct ArtifactValidation {
  /// The parsed graph (absent when graph.mlir is missing or does not parse).
  std::optional<ArtifactGraph> graph;
  /// Every diagnostic: the graph's in verifyArtifactGraph's order (the reference's first error
  /// first, then source order), then those of the weights file.
  std::vector<Diagnostic> diagnostics;
  /// True when weights.safetensors was read and checked against the graph.
  bool weightsChecked = false;
  /// The mapped weights.safetensors when it loaded (what the runtime executes with).
  std::shared_ptr<const SafetensorsFile> weights;

  bool ok() const { return !hasErrors(diagnostics); }
};

/// Validates `path`: an artifact directory, or a single graph file (any name; a lone `.mlir`
/// has no weights, so only the graph rules apply). Diagnostics name files as `path/graph.mlir`
/// and `path/weights.safetensors`. IO messages (without the reference's trailing period):
/// "lattice artifact directory does not exist: <path>", "lattice artifact is missing
/// graph.mlir", "lattice artifact is missing weights.safetensors", "weights.safetensors must
/// load as a tensor mapping: <reader error>".
ArtifactValidation validateArtifact(const std::string& path, const ReaderLimits& limits = {});

/// Small path helpers shared by the readers of artifacts on disk (the verifier, the diff).
/// True when `path` names a directory / a regular file (links followed).
bool isDirectoryPath(const std::string& path);
bool isRegularFilePath(const std::string& path);
/// `dir/name`, without a doubled slash.
std::string artifactFilePath(const std::string& dir, std::string_view name);

} // namespace lattice
