// loadModel: dispatches a model reference to the examples, the TorchScript importer or the
// archive reader.
#include "model/LoadModel.h"

#include "model/Archive.h"
#include "model/Examples.h"
#include "model/torchscript/TorchScriptImporter.h"

namespace lattice {

namespace {

/// Names ending in .pt or .pth are TorchScript archives (importTorchScript checks the content).
bool isTorchFileName(const std::string& path) {
  for (const std::string suffix : {".pt", ".pth"})
    if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
      return true;
  return false;
}

} // namespace

Expected<Model> loadModel(const std::string& reference) {
  const std::string prefix = "example:";
  if (reference.rfind(prefix, 0) == 0) return makeExample(reference.substr(prefix.size()));
  if (isTorchFileName(reference)) return importTorchScript(reference);
  return readArchive(reference);
}

} // namespace lattice
