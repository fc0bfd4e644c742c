#pragma once
/// \file Value statistics of stored tensors for the artifact view's weights table: min, max and
/// mean over every element converted to double (F16 and BF16 widened exactly, integers as
/// their values, BOOL as 0/1). NaNs are counted and left out of min/max/mean.

#include "tensor/TensorData.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace lattice::studio {

struct WeightStats {
  std::uint64_t count = 0; ///< elements summarised (NaNs excluded)
  std::uint64_t nans = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  /// The values are the dequantized logical weight, not the stored words (packed int4/int8).
  bool dequantized = false;
};

/// Statistics of every element of `tensor`; nullopt for an empty tensor or a byte count that
/// does not match its shape.
std::optional<WeightStats> tensorStats(const TensorData& tensor);
/// Statistics of already-decoded values.
std::optional<WeightStats> valueStats(const std::vector<float>& values);

} // namespace lattice::studio
