#pragma once
/// \file The front door of model/: a model from its reference, whatever it is.

#include "model/Model.h"
#include "support/Expected.h"

#include <string>

namespace lattice {

/// Resolves a model reference: "example:NAME" (makeExample), a TorchScript archive whose path
/// ends in `.pt` or `.pth` (importTorchScript), or a path to an `.ltfx` directory (readArchive).
Expected<Model> loadModel(const std::string& reference);

} // namespace lattice
