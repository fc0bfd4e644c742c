#pragma once
/// \file ArtifactDocument: everything the artifact view shows of one artifact, read on a worker
/// thread: the artifact (loadArtifact: parsed graph + weights in memory), the verifier's
/// diagnostics (validateArtifact), the graph.mlir text and the op graph.

#include "artifactview/ArtifactOpGraph.h"
#include "mlir/Diagnostic.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <string_view>
#include <vector>

namespace lattice {
struct LoadedArtifact;
}

namespace lattice::studio {

struct ArtifactDocument {
  /// What was opened: an artifact directory or a lone `.mlir` file.
  QString path;
  /// The graph text file (`path/graph.mlir`, or `path` itself).
  QString graphFile;
  /// Null when the artifact could not be read (then `loadError` says why).
  std::shared_ptr<const LoadedArtifact> artifact;
  QString loadError;
  /// The op graph of the entry function: null only when graph.mlir cannot be read or parsed
  /// (an artifact whose weights cannot be read still has it, with `artifact` null).
  std::shared_ptr<const ArtifactOpGraph> opGraph;
  /// graph.mlir as text (empty when unreadable).
  QString mlirText;
  /// The verifier's diagnostics; `verified` false when validation was not run.
  std::vector<Diagnostic> diagnostics;
  bool verified = false;
  /// True when validation found no error.
  bool valid() const { return verified && !hasErrors(diagnostics); }
};

/// Reads `path` (any thread). Never fails: problems land in loadError and diagnostics.
std::shared_ptr<ArtifactDocument> readArtifactDocument(const QString& path, bool verify = true);

/// The graph text file of an artifact path: `path/graph.mlir` for a directory, else `path`.
QString artifactGraphFile(const QString& path);
/// The files an artifact path is read from: graph.mlir and weights.safetensors of a directory,
/// or the lone .mlir file (absolute).
QStringList artifactSourceFiles(const QString& path);
/// True when `path` is an artifact directory (with graph.mlir) or a lone .mlir file
/// (lattice::isArtifactPath).
bool isArtifactPath(const QString& path);
/// A file name of dialect/ArtifactFiles.h (kArtifactGraphFile, kArtifactWeightFile) as a QString.
QString artifactFileName(std::string_view name);

} // namespace lattice::studio
