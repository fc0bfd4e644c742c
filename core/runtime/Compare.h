#pragma once
/// \file Comparing numbers: the conformance protocol of lattice-artifact-validation.md sec. 10.6
/// (dense outputs allclose; sparse outputs: equal active rows, equal coordinates after Morton
/// sorting, then allclose features) and the divergence measures of two runs of the same graph
/// (max |Δ|, max relative Δ, relative L2 error, Pearson correlation). `lattice-cli check`,
/// `lattice-cli diff --inputs` and the studio share them.

#include "runtime/RuntimeValue.h"
#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lattice::runtime {

/// How far `actual` is from `reference`, element by element.
struct Divergence {
  std::int64_t elements = 0;
  double maxAbs = 0.0;
  /// max |a − r| / |r| over elements with r ≠ 0 (0 when all r are 0).
  double maxRel = 0.0;
  /// The row (of the reference, in its sorted order for sparse outputs) holding max |Δ|.
  std::int64_t worstRow = -1;
  /// ‖a − r‖₂ / ‖r‖₂ (‖a − r‖₂ when r is all zeros).
  double relL2 = 0.0;
  /// Pearson correlation of a and r (1 when both are constant and equal, 0 when one is constant).
  double pearson = 1.0;
  /// Elements outside |a − r| ≤ atol + rtol·|r| (when measured with tolerances), NaNs included.
  std::int64_t outside = 0;
  std::int64_t nonFinite = 0;
};

/// Element-wise divergence of two equally long arrays with `cols` values per row.
Divergence measure(const float* actual, const float* reference, std::int64_t count, std::int64_t cols, double rtol = 0.0,
                   double atol = 0.0);

/// One output of a check.
struct OutputCheck {
  std::string name;
  bool sparse = false;
  /// A mismatch that makes the values incomparable ("active rows 12, expected 13",
  /// "coordinates differ at sorted row 5: (0, 1, 2, 3), expected (0, 1, 2, 4)", "missing").
  std::string problem;
  Divergence divergence;
  /// Sparse: the physical coordinate of the worst row.
  std::vector<std::int32_t> worstCoord;
  bool ok = false;
};

/// The Morton code of sec. 10.6: the low 21 bits of x, y, z interleaved (x at bit 3j, y at
/// 3j + 1, z at 3j + 2) plus b << 60.
std::uint64_t mortonCode(std::int64_t b, std::int64_t x, std::int64_t y, std::int64_t z);

/// Checks `actual` (as Runtime::outputs() names them) against `expected` (an expected
/// .safetensors) for the outputs `names`, `sparse[i]` telling which are sparse.
std::vector<OutputCheck> checkOutputs(const std::vector<std::string>& names, const std::vector<bool>& sparse,
                                      const std::vector<NamedTensor>& actual, const SafetensorsFile& expected,
                                      double rtol, double atol);

/// The divergence of `actual` from `reference`, two values of the same SSA name in two runs:
/// dense tensors element by element (same shape), sparse ones row by row matched by
/// coordinate. `problem` is set when they cannot be compared (kinds, shapes, supports differ).
Divergence compareValues(const RuntimeValue& actual, const RuntimeValue& reference, std::string* problem);

} // namespace lattice::runtime
