#pragma once
/// \file What an op implementation sees while it runs (internal to lattice_runtime): its plan op
/// and attributes, its operand values, the results to fill, the numerics mode, the kernel-map
/// cache, the prepared-weight cache and the statistics it reports. Op implementations throw
/// lattice::Exception with the spec's message; the executor adds the op, its SSA name and its
/// graph.mlir location.

#include "runtime/KernelMap.h"
#include "runtime/Runtime.h"
#include "runtime/RuntimePlan.h"
#include "runtime/RuntimeValue.h"
#include "support/Expected.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace lattice::runtime {

/// Weights in the forms the kernels use, prepared once per weight op and kept across runs (the
/// artifact's weights do not change): conv (K, C_in, C_out), linear (C_out, C_in), vectors.
class WeightCache {
public:
  using Key = std::tuple<int, int, std::int64_t, std::int64_t>; // op, form, dim a, dim b
  std::shared_ptr<const std::vector<float>> find(const Key& key) const;
  void put(const Key& key, std::shared_ptr<const std::vector<float>> values);
  void clear() { m_entries.clear(); }
  /// Drops the prepared forms of weight op `op`.
  void erase(int op);

private:
  std::map<Key, std::shared_ptr<const std::vector<float>>> m_entries;
};

struct OpContext {
  const RuntimePlan& plan;
  int opIndex;
  const PlanOp& op;
  /// Operand values in order (never null; a freed or missing one is refused before the op runs).
  std::vector<const RuntimeValue*> operands;
  /// One per result of the op, to be filled.
  std::vector<RuntimeValue>& results;
  Numerics numerics;
  KernelMapCache& maps;
  WeightCache& weights;
  OpStats& stats;
  const std::atomic<bool>& cancelled;
  /// The weights of the artifact by key (for `lattice.weight`).
  const WeightSource& weightSource;

  bool exact() const { return numerics == Numerics::Exact; }
  std::size_t operandCount() const { return operands.size(); }
  /// The operand as the given kind; throws when it is something else (an unverified graph).
  const Sparse& sparse(std::size_t i) const;
  const Tensor& tensor(std::size_t i) const;
  const WeightRef& weight(std::size_t i) const;
  /// The declared type of result i.
  const ArtifactType& resultType(std::size_t i) const;
  /// The declared element dtype of result i (`f32` → F32; sparse: its `dtype` parameter).
  DType resultDType(std::size_t i) const;
  /// Throws "cancelled" when the run was cancelled (long ops call it between pieces of work).
  void checkCancelled() const;
  /// Sets result 0 to a sparse tensor: `features`, `rows` rows of `channels`, on `coords` at
  /// `stride`; the op's row count is `rows`.
  void setSparseResult(std::shared_ptr<const CoordSet> coords, const Triple& stride, DType dtype,
                       std::int64_t rows, std::int64_t channels,
                       std::shared_ptr<const std::vector<float>> features);
};

[[noreturn]] inline void fail(std::string message) { throw Exception{std::move(message)}; }

/// max and min that propagate NaN, as torch.maximum and mx.maximum do (std::max and std::min
/// drop a NaN second argument).
template <typename T> inline T maxOrNaN(T a, T b) { return std::isnan(b) ? b : (a < b ? b : a); }
template <typename T> inline T minOrNaN(T a, T b) { return std::isnan(b) ? b : (b < a ? b : a); }

/// F32 / F16 from an MLIR element type name (`f32`, `f16`); throws for anything else.
DType floatDType(const std::string& mlirName);
/// Rounds every element to what `dtype` stores (F16: to the nearest half; F32: nothing).
void roundInPlace(std::vector<float>& values, DType dtype);
/// `value` rounded once to `dtype` (F32 or F16).
float roundTo(double value, DType dtype);
std::string tripleText(const Triple& t);
/// The tensor stride of a forward op, input ⊙ stride (sec. 10.1); throws when it overflows.
Triple forwardStride(const Triple& input, const Triple& stride);
/// The tensor stride of a transposed op, input ⊘ stride (sec. 10.4, X10); throws when a stride does
/// not divide the input stride.
Triple divideStride(const Triple& input, const Triple& stride);

/// Op implementations, one per family file.
void runSparseMake(OpContext& ctx);
void runSparseDecompose(OpContext& ctx);
void runSparseWithFeatures(OpContext& ctx);
void runSparseReindex(OpContext& ctx);
void runSparseBinary(OpContext& ctx);
void runSparseCat(OpContext& ctx);
void runWeight(OpContext& ctx);
void runConvolution(OpContext& ctx);
void runPool(OpContext& ctx);
void runPoolTranspose(OpContext& ctx);
void runTrilinearUpsample(OpContext& ctx);
void runGlobalPool(OpContext& ctx);
void runVoxelize(OpContext& ctx);
void runDevoxelize(OpContext& ctx);
void runLinear(OpContext& ctx);
void runEmbeddingLookup(OpContext& ctx);
void runElementwise(OpContext& ctx);
void runSoftmax(OpContext& ctx);
void runActivation(OpContext& ctx);
void runBatchNorm(OpContext& ctx);
void runLayerNorm(OpContext& ctx);
void runRmsNorm(OpContext& ctx);

/// Prepared weights (WeightOps.cpp). Each checks the rules of sec. 8 X1-X5, X8 that concern the
/// weight and its consumer and returns the values in the consumer's form as floats.
/// Conv: (C_out, K, C_in) floats, the stored layout conv3d_o_xyz_i, so W_k[ci][co] is at
/// co·K·C_in + k·C_in + ci. A dense F32 weight is read in place from the weights (no copy);
/// F16 and packed ones are converted once and kept. `owner` keeps `data` alive.
struct ConvWeightView {
  const float* data = nullptr;
  std::shared_ptr<const void> owner;
  std::int64_t outChannels = 0;
};
ConvWeightView convWeight(OpContext& ctx, const WeightRef& w, std::int64_t volume, std::int64_t inChannels);
/// Linear: W, (C_out, C_in) (the GEMM reads it transposed in place).
std::shared_ptr<const std::vector<float>> linearWeight(OpContext& ctx, const WeightRef& w, std::int64_t inChannels,
                                                       std::int64_t* outChannels);
/// A dense vector (bias, channel): (C,), checked against `channels` when that is >= 0.
std::shared_ptr<const std::vector<float>> vectorWeight(OpContext& ctx, const WeightRef& w, std::int64_t channels,
                                                       const char* what);
/// Embedding: (N, C).
std::shared_ptr<const std::vector<float>> embeddingWeight(OpContext& ctx, const WeightRef& w, std::int64_t* rows,
                                                          std::int64_t* channels);

} // namespace lattice::runtime
