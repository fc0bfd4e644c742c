#pragma once
/// \file Input binding (lattice-artifact-validation.md sec. 8 X19): positional inputs, inputs by
/// ABI name and the SparseTensor shorthand, each checked against its argument's type (dtype,
/// rank, static extents) and converted to a runtime Tensor. Nothing is allocated beyond the
/// inputs' own size. Internal to lattice_runtime (Runtime::start calls it).

#include "runtime/Runtime.h"
#include "runtime/RuntimePlan.h"
#include "runtime/RuntimeValue.h"
#include "support/Expected.h"

#include <vector>

namespace lattice::runtime {

/// One Tensor per plan argument, in order. Errors: "too many positional artifact inputs.",
/// "missing artifact input: x_coords", "unexpected artifact inputs: a, b" (ten names at most, then
/// "… and N more"), "SparseTensor
/// shorthand requires ...", "input 'x_features' must be F32 (tensor<?x4xf32>), got F64",
/// "input 'x_features' has shape [5, 3], expected tensor<?x4xf32>", "input 'x_coords' repeats
/// coordinate (0, 1, 2, 3) in active rows 0 and 2: active coordinates must be unique".
Expected<std::vector<Tensor>> bindInputs(const RuntimePlan& plan, const RuntimeInputs& inputs);

/// A stored tensor as a runtime Tensor of the same dtype (F32/F16 → floats, integers → ints).
Expected<Tensor> tensorFromData(const TensorData& data);

} // namespace lattice::runtime
