// LATTICE_LIBTORCH_VERSION comes from the LibTorch package CMake found (core/model/CMakeLists.txt):
// the programs do not link LibTorch, only the TorchScript plugin does.
#include "model/LibraryVersions.h"

#ifndef LATTICE_LIBTORCH_VERSION
#error "LATTICE_LIBTORCH_VERSION: the version of the LibTorch the TorchScript plugin is built with"
#endif

namespace lattice {

std::string libtorchVersion() { return LATTICE_LIBTORCH_VERSION; }

} // namespace lattice
