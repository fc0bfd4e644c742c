#pragma once
/// \file What a value holds, in numbers (for the value inspector): its kind, dtype and shape
/// (rows, channels, stride and capacity for a sparse value), how many elements are NaN or ±inf,
/// the moments of the finite ones (computed in double) and a histogram. The histogram is the
/// one the studio draws everywhere: the inspector's, and the compare view's Δ of a weight.
/// Also the count of NaN and ±inf alone, with the warning `lattice-cli run` / `check` and the
/// studio give when a run's inputs or outputs hold them.

#include "runtime/RuntimeValue.h"
#include "tensor/DType.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace lattice::runtime {

class Runtime;
struct RuntimeInputs;
struct RuntimePlan;

/// Equal-width bins over the finite values' [min, max]; exact zeros are also counted apart, so
/// "how many are zero" (how many weights changed, how many features are dead) reads at a glance.
struct Histogram {
  double min = 0; ///< smallest finite value
  double max = 0; ///< largest finite value
  /// Equal-width bins over [min, max] (the last bin includes max); one bin when min == max; none
  /// when no value is finite.
  std::vector<std::uint64_t> counts;
  std::uint64_t total = 0;     ///< every value
  std::uint64_t zeros = 0;     ///< values exactly 0 (also counted in their bin)
  std::uint64_t nonFinite = 0; ///< NaN and ±inf (in no bin)

  double binWidth() const { return counts.empty() ? 0.0 : (max - min) / static_cast<double>(counts.size()); }
  /// The bin of finite `value` (clamped to the range).
  int binOf(double value) const;
  /// The lower edge of bin `bin` (binLow(counts.size()) is max).
  double binLow(int bin) const;
};

/// Bins `count` values into `bins` equal-width bins (bins < 1 counts as 1).
Histogram computeHistogram(const float* values, std::size_t count, int bins);
Histogram computeHistogram(const std::vector<float>& values, int bins);
/// Integer elements (I32/I64 tensors), binned as doubles.
Histogram computeHistogram(const std::int64_t* values, std::size_t count, int bins);

enum class ValueKind { None, Dense, Sparse, Weight };
/// "none", "dense", "sparse", "weight".
const char* valueKindName(ValueKind kind);

/// The summary of one RuntimeValue. The moments are over the finite elements only; NaN and
/// ±inf are counted apart. `stddev` is the population standard deviation (divided by the number
/// of finite elements, numpy's default), computed in two passes (the mean first).
struct ValueSummary {
  ValueKind kind = ValueKind::None;
  /// Element dtype (the features' of a sparse value, the stored tensor's of a weight).
  DType dtype = DType::F32;
  /// Dense: the shape; sparse: {rows, channels} of the features; weight: the stored tensor's.
  std::vector<std::int64_t> shape;

  /// Sparse only: active rows, channels, the tensor stride and the row capacity.
  std::int64_t rows = 0;
  std::int64_t channels = 0;
  Triple stride{1, 1, 1};
  std::int64_t capacity = 0;

  /// Weight only: the storage key and the packing kind ("dense", "int8", "int4").
  std::string weightKey;
  std::string packing;

  /// Elements summarized (a sparse value's rows × channels features), finite or not.
  std::uint64_t count = 0;
  std::uint64_t finite = 0;
  std::uint64_t nan = 0;
  std::uint64_t posInf = 0;
  std::uint64_t negInf = 0;
  std::uint64_t zeros = 0;
  /// Over the finite elements; NaN when there is none.
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
  double mean = std::numeric_limits<double>::quiet_NaN();
  double stddev = std::numeric_limits<double>::quiet_NaN();
  Histogram histogram;
  /// Why a value has no element statistics (a quantized weight, a tensor that cannot be read);
  /// empty otherwise.
  std::string note;

  std::uint64_t nonFinite() const { return nan + posInf + negInf; }
};

/// Summarizes `value` with a histogram of `bins` bins (std::monostate: kind None, nothing else).
ValueSummary summarize(const RuntimeValue& value, int bins = 64);

/// How many elements are NaN or ±inf, without the rest of a summary.
struct NonFiniteCount {
  std::uint64_t nan = 0;
  std::uint64_t inf = 0;   ///< +inf and −inf
  std::uint64_t total = 0; ///< every element counted
  bool any() const { return nan + inf > 0; }
};
/// A dense tensor's elements, a sparse value's active features; integers and weights count none.
NonFiniteCount countNonFinite(const RuntimeValue& value);
/// A stored tensor's elements when its dtype is a floating-point one; none otherwise.
NonFiniteCount countNonFinite(const TensorData& tensor);
/// `output 'y' holds 3 NaN and 1 Inf of 4096 values` for `what` = `output 'y'`; "" when every
/// value is finite.
std::string nonFiniteText(const std::string& what, const NonFiniteCount& count);
/// One line per output of `rt` that holds NaN or ±inf, in ABI order (`output 'NAME' ...`).
std::vector<std::string> nonFiniteOutputs(const Runtime& rt);
/// One line per input tensor that holds NaN or ±inf (`input 'NAME' ...`): named inputs and sparse
/// shorthands (`NAME.features`) as given, positional ones by the ABI names of `plan`.
std::vector<std::string> nonFiniteInputs(const RuntimePlan& plan, const RuntimeInputs& inputs);

} // namespace lattice::runtime
