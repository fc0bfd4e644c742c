#pragma once
/// \file Inputs made from an artifact's ABI (`lattice-cli run --random-inputs N[:SEED]`, the
/// benchmark, the studio): every sparse input gets N unique points sampled on a few random
/// surfaces (spheres, planes and cylinders, as a scan sees objects: each point has neighbours,
/// unlike uniform points in a cube), spread over the batches, with physical coordinates
/// divisible by the stride its sparse.make declares and standard-normal features. Dense inputs
/// follow their type: float tensors standard-normal with N rows for a dynamic first extent,
/// `tensor<1xi32>` the row count N (active rows), other integer tensors batch indices in [0, B).
/// The generator is a fixed splitmix64 stream, so a seed gives the same inputs everywhere.

#include "runtime/RuntimePlan.h"
#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <cstdint>
#include <vector>

namespace lattice::runtime {

struct RandomInputOptions {
  std::int64_t points = 1000;
  std::uint64_t seed = 0;
  /// Number of batches the points are spread over (>= 1).
  std::int64_t batchSize = 1;
};

/// The inputs as named tensors (ABI names, as inputs.safetensors names them). Errors: a sparse
/// group without its three arguments, an argument type the generator cannot fill, N < 1 or
/// beyond what the coordinate range holds.
Expected<std::vector<NamedTensor>> randomInputs(const RuntimePlan& plan, const RandomInputOptions& options);

/// Logical (b, x, y, z) coordinates of `points` unique points on random surfaces over
/// `batches` batches (the generator randomInputs uses; rows grouped by batch).
std::vector<std::int32_t> surfacePoints(std::int64_t points, std::int64_t batches, std::uint64_t seed);

} // namespace lattice::runtime
