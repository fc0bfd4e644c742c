#pragma once
/// \file Atomic writing of a lattice artifact directory (lowering.md §6.3) and the post-write
/// payload validation (§6.4).

#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace lattice {

/// `ARTIFACT_GRAPH_FILE`: the MLIR text inside an artifact directory.
inline constexpr std::string_view kArtifactGraphFile = "graph.mlir";
/// `ARTIFACT_WEIGHT_FILE`: the safetensors weights inside an artifact directory.
inline constexpr std::string_view kArtifactWeightFile = "weights.safetensors";

/// Options of saveArtifactFiles.
struct SaveOptions {
  /// Replace an existing artifact. When false an existing target is the error
  /// "artifact directory already exists: <path>".
  bool clean = true;
  /// Run validateArtifactPayload on the written files before swapping them in.
  bool validate = true;
  /// Called while weights.safetensors is written with (bytesWritten, totalBytes); returning
  /// false cancels the save ("artifact save cancelled: <path>") and leaves the previous
  /// artifact untouched.
  std::function<bool(uint64_t bytesWritten, uint64_t totalBytes)> progress;
  /// Test hook: consulted at named points and fails the save with
  /// "injected fault at '<point>'" when it returns true. Points, in order: "after-graph"
  /// (graph.mlir written), "during-weights" (at every progress report, `bytes` = bytes written
  /// so far), "before-swap" (temporary directory complete and validated), "after-backup" (the
  /// previous artifact moved aside, the new one not yet in place). `bytes` is 0 except for
  /// "during-weights".
  std::function<bool(std::string_view point, uint64_t bytes)> injectFault;
};

/// Writes `artifactDir` atomically: graph.mlir and weights.safetensors (metadata
/// {"format": "torch"}) go into a fresh temporary directory `.<name>-XXXXXX` beside the target
/// (mode 0700, like the reference's mkdtemp, so the final directory is 0700 too), are fsynced and
/// validated, then the old target is renamed aside (`<temp>.previous`), the new one renamed into
/// place and the old one removed. On any failure the temporary directory is removed and the
/// previous artifact is put back unchanged. The parent directory is created when missing.
/// Deliberate difference from the reference: a target that exists and is not a directory is
/// refused ("artifact path exists and is not a directory: <path>") instead of being replaced.
Status saveArtifactFiles(const std::string& artifactDir, const std::string& mlirText,
                         const std::vector<NamedTensor>& weights, const SaveOptions& options = {});

/// Every `storage_key = "<value>"` of the text in order of appearance (spaces, tabs and line
/// breaks allowed around `=`, value non-empty and without quotes); one linear scan, no MLIR
/// parsing.
std::vector<std::string> extractStorageKeys(std::string_view mlirText);

/// The §6.4 checks in linear time, in the reference's order and with its messages:
/// "artifact graph is missing contract metadata: <items joined by ', '>",
/// "artifact weight is missing storage key '<key>'" (the first missing key in graph order),
/// "artifact contains unreferenced weights: <sorted keys joined by ', '>". A stored key is
/// referenced when it equals a storage key or starts with `<storage key>.`.
Status validateArtifactPayload(std::string_view mlirText,
                               const std::vector<std::string>& storedKeys);

} // namespace lattice
