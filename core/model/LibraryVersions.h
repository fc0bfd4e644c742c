#pragma once
/// \file Versions of the libraries the model layer runs on, for `--version` and Help ▸ About.

#include <string>

namespace lattice {

/// LibTorch's version as it was built against ("1.13.0").
std::string libtorchVersion();

} // namespace lattice
