// Only torch/version.h here: the one LibTorch header that costs nothing to compile.
#include "model/LibraryVersions.h"

#include <torch/version.h>

namespace lattice {

std::string libtorchVersion() { return TORCH_VERSION; }

} // namespace lattice
