#pragma once
/// \file The files of a lattice artifact directory (lattice-artifact-format.md sec. 2) and the
/// largest graph text the tools write or read: shared by the save (lowering/ArtifactSave.h), the
/// reader (mlir/), the verifier (verify/) and the artifact loader (diff/).

#include <cstddef>
#include <string>
#include <string_view>

namespace lattice {

/// `ARTIFACT_GRAPH_FILE`: the MLIR text inside an artifact directory.
inline constexpr std::string_view kArtifactGraphFile = "graph.mlir";
/// `ARTIFACT_WEIGHT_FILE`: the safetensors weights inside an artifact directory.
inline constexpr std::string_view kArtifactWeightFile = "weights.safetensors";

/// The largest graph.mlir a save writes and the reader accepts (ReaderLimits::maxBytes): a save
/// refuses a larger text up front, so `lower` never writes what `validate` refuses.
inline constexpr std::size_t kMaxArtifactGraphBytes = std::size_t(1) << 30;

/// True when `path` names an artifact: a directory holding a regular `graph.mlir`, or a regular
/// `.mlir` file (a lone graph). What the tools take as an artifact rather than a model.
bool isArtifactPath(const std::string& path);

} // namespace lattice
