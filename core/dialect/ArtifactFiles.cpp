// The artifact's file names: recognising an artifact path.
#include "dialect/ArtifactFiles.h"

#include <filesystem>
#include <system_error>

namespace lattice {

bool isArtifactPath(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return false;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fs::is_regular_file(fs::path(path) / kArtifactGraphFile, ec);
  return fs::path(path).extension() == ".mlir" && fs::is_regular_file(path, ec);
}

} // namespace lattice
