// validateArtifact: the bundle checks of validation spec sec. 2 (IO1-IO5) around the reader and
// the verifier. It reads files and sequences the stages; every rule lives in the verifier.

#include "verify/ArtifactValidation.h"

#include "dialect/ArtifactFiles.h"
#include "verify/ArtifactVerifier.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace lattice {
namespace {

void append(std::vector<Diagnostic>& to, std::vector<Diagnostic> from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

void parseAndVerify(const std::string& graphPath, const ReaderLimits& limits, ArtifactValidation& out) {
  ArtifactParseResult parsed = readArtifactGraphFile(graphPath, graphPath, limits);
  if (!parsed.ok()) {
    out.diagnostics.push_back(std::move(parsed.error));
    return;
  }
  append(out.diagnostics, verifyArtifactGraph(*parsed.graph));
  out.graph = std::move(parsed.graph);
}

} // namespace

ArtifactValidation validateArtifact(const std::string& path, const ReaderLimits& limits) {
  ArtifactValidation out;
  auto ioError = [&](const std::string& file, std::string message) {
    out.diagnostics.push_back({file, {}, Severity::Error, std::move(message)});
  };
  if (isRegularFilePath(path)) {
    parseAndVerify(path, limits, out);
    return out;
  }
  if (!isDirectoryPath(path)) {
    ioError(path, "lattice artifact directory does not exist: " + path);
    return out;
  }
  const std::string graphPath = artifactFilePath(path, kArtifactGraphFile);
  const std::string weightsPath = artifactFilePath(path, kArtifactWeightFile);
  const bool haveGraph = isRegularFilePath(graphPath);
  const bool haveWeights = isRegularFilePath(weightsPath);
  // A directory that cannot be searched hides its files: that is the error, not their absence.
  if (struct stat st {}; !haveGraph && ::stat(graphPath.c_str(), &st) != 0 && errno == EACCES) {
    ioError(graphPath, "cannot read file: " + std::string(std::strerror(errno)));
    return out;
  }
  if (!haveGraph) ioError(path, "lattice artifact is missing graph.mlir");
  if (!haveWeights) ioError(path, "lattice artifact is missing weights.safetensors");
  if (haveGraph) parseAndVerify(graphPath, limits, out);
  if (!haveWeights) return out;
  Expected<SafetensorsFile> weights = SafetensorsFile::open(weightsPath);
  if (!weights) {
    ioError(weightsPath, "weights.safetensors must load as a tensor mapping: " + weights.message());
    return out;
  }
  if (out.graph) {
    append(out.diagnostics, verifyArtifactWeights(*out.graph, *weights, weightsPath));
    out.weightsChecked = true;
  }
  out.weights = std::make_shared<const SafetensorsFile>(std::move(*weights));
  return out;
}

bool isDirectoryPath(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool isRegularFilePath(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string artifactFilePath(const std::string& dir, std::string_view name) {
  if (dir.empty() || dir.back() == '/') return dir + std::string(name);
  return dir + "/" + std::string(name);
}

} // namespace lattice
