// loadArtifact: reads one side of a diff, an artifact directory (graph.mlir and, when present,
// weights.safetensors read into memory) or a lone graph file. It parses but does not verify: any
// graph the reader accepts can be diffed.

#include "diff/ArtifactDiff.h"

#include "dialect/ArtifactFiles.h"
#include "mlir/MlirParser.h"
#include "verify/ArtifactValidation.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace lattice {
namespace {

Expected<ArtifactGraph> parseGraph(const std::string& file) {
  ArtifactParseResult parsed = readArtifactGraphFile(file, file);
  // Not read at all (a permission): "FILE: cannot read file: REASON", as a model's reader says.
  if (!parsed.ok() && !parsed.error.loc.valid() && parsed.error.message.rfind("cannot read file", 0) == 0)
    return makeError(file + ": " + parsed.error.message);
  if (!parsed.ok()) {
    std::string where;
    if (parsed.error.loc.valid())
      where = std::to_string(parsed.error.loc.line) + ":" + std::to_string(parsed.error.loc.column) + ": ";
    return makeError("cannot parse '" + file + "': " + where + parsed.error.message);
  }
  return std::move(*parsed.graph);
}

} // namespace

Expected<LoadedArtifact> loadArtifact(const std::string& path) {
  LoadedArtifact out;
  out.path = path;
  if (isRegularFilePath(path)) {
    Expected<ArtifactGraph> graph = parseGraph(path);
    if (!graph) return graph.error();
    out.graph = std::move(*graph);
    return out;
  }
  if (!isDirectoryPath(path))
    return makeError("'" + path + "' is neither an artifact directory nor a graph file");

  const std::string graphPath = artifactFilePath(path, kArtifactGraphFile);
  if (!isRegularFilePath(graphPath)) {
    struct stat st {};
    if (::stat(graphPath.c_str(), &st) != 0 && errno != ENOENT)
      return makeError(graphPath + ": cannot read file: " + std::strerror(errno));
    return makeError("artifact '" + path + "' has no graph.mlir");
  }
  Expected<ArtifactGraph> graph = parseGraph(graphPath);
  if (!graph) return graph.error();
  out.graph = std::move(*graph);

  // A directory without weights still diffs structurally (its weights count as missing).
  const std::string weightsPath = artifactFilePath(path, kArtifactWeightFile);
  if (isRegularFilePath(weightsPath)) {
    Expected<SafetensorsFile> weights = SafetensorsFile::open(weightsPath);
    if (!weights) return weights.error(); // already names the file
    out.weights = std::make_shared<const SafetensorsFile>(std::move(*weights));
  }
  return out;
}

} // namespace lattice
