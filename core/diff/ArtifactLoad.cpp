// loadArtifact: reads one side of a diff, an artifact directory (graph.mlir and, when present,
// weights.safetensors memory-mapped) or a lone graph file. It parses but does not verify: any
// graph the reader accepts can be diffed.

#include "diff/ArtifactDiff.h"

#include "artifact/ArtifactSave.h"
#include "verify/MlirParser.h"

#include <sys/stat.h>

namespace lattice {
namespace {

bool isDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool isRegularFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string joinPath(const std::string& dir, std::string_view name) {
  if (dir.empty() || dir.back() == '/') return dir + std::string(name);
  return dir + "/" + std::string(name);
}

Expected<ArtifactGraph> parseGraph(const std::string& file) {
  ArtifactParseResult parsed = readArtifactGraphFile(file, file);
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
  if (isRegularFile(path)) {
    Expected<ArtifactGraph> graph = parseGraph(path);
    if (!graph) return graph.error();
    out.graph = std::move(*graph);
    return out;
  }
  if (!isDirectory(path))
    return makeError("'" + path + "' is neither an artifact directory nor a graph file");

  const std::string graphPath = joinPath(path, kArtifactGraphFile);
  if (!isRegularFile(graphPath)) return makeError("artifact '" + path + "' has no graph.mlir");
  Expected<ArtifactGraph> graph = parseGraph(graphPath);
  if (!graph) return graph.error();
  out.graph = std::move(*graph);

  // A directory without weights still diffs structurally (its weights count as missing).
  const std::string weightsPath = joinPath(path, kArtifactWeightFile);
  if (isRegularFile(weightsPath)) {
    Expected<SafetensorsFile> weights = SafetensorsFile::open(weightsPath);
    if (!weights) return weights.error(); // already names the file
    out.weights = std::make_shared<const SafetensorsFile>(std::move(*weights));
  }
  return out;
}

} // namespace lattice
