#pragma once
/// \file Parsing `--input` specs of lattice-cli lower:
/// `NAME:sparse:DTYPE:CHANNELS[:SX,SY,SZ]` (CHANNELS may be `?` for unknown) and
/// `NAME:dense:TENSOR_TYPE` (e.g. `points:dense:tensor<?x3xf32>`).

#include "model/Model.h"
#include "support/Expected.h"

#include <string>

namespace lattice::cli {

Expected<InputSpec> parseInputSpec(const std::string& text);

} // namespace lattice::cli
