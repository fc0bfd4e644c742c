#pragma once
/// \file Internal to core/lowering: what the module and function lowerings share
/// (ModuleLowerings.cpp, ConvLowerings.cpp, NormLowerings.cpp, FunctionLowerings.cpp). Lowerings
/// throw lattice::Exception with the reference's message; TorchLatticeArtifactBuilder's public
/// methods turn it into an Error. Not a public header: nothing outside core/lowering includes
/// it; the builder sees the lowerings through Lowerings.h.

#include "lowering/ArtifactValue.h"
#include "lowering/Lowerings.h"
#include "dialect/MlirWriter.h"
#include "lowering/TorchLatticeArtifactBuilder.h"
#include "fx/Value.h"
#include "model/Model.h"
#include "support/Expected.h"
#include "tensor/TensorData.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lattice::lowering {

/// Throws lattice::Exception{message}.
[[noreturn]] void fail(std::string message);

/// The value, or throws the error's message.
template <typename T> T must(Expected<T> e) {
  if (!e) fail(e.message());
  return std::move(e).value();
}
inline void must(const Status& s) {
  if (!s) fail(s.message());
}

// --- Python coercions, with Python's messages -------------------------------------------------

/// `_float_triple(v)`: int/float → broadcast; list/tuple of 3 → float() of each; else
/// "expected a scalar or length-3 tuple, got <repr>."
std::array<double, 3> floatTriple(const fx::Value& v);
/// Python `float(v)`.
double pyFloat(const fx::Value& v);
/// Python `int(v)`.
int64_t pyInt(const fx::Value& v);
/// Python `str(v)`.
std::string pyStr(const fx::Value& v);
/// Python truthiness.
bool pyTruthy(const fx::Value& v);

/// `<label> expects <kind>, got <other>.`; a nullptr value is Python's
/// "'NoneType' object has no attribute 'kind'".
void requireKind(const ArtifactValuePtr& v, ArtifactValue::Kind kind, const std::string& label);

/// A one-dimensional constant (`torch.ones(C)` / `torch.zeros(C)`) in F16 or F32.
TensorData constantVector(double value, int64_t length, DType dtype);

// --- the feature pattern (§3.2) ---------------------------------------------------------------

/// The features a dense feature op consumes, and the sparse value to put them back into.
struct FeatureInput {
  ValueId features;
  ArtifactValuePtr sparse; ///< nullptr when the input was dense
};
/// Step 1: `sparse.decompose` of a sparse value (results `{safeName}_features_in`,
/// `{safeName}_active`, features typed FT(channels, inputDtype)); a dense value is used as is.
FeatureInput decomposeFeatures(TorchLatticeArtifactBuilder& b, const std::string& safeName,
                               const ArtifactValuePtr& input);
/// Step 4: `sparse.with_features` named `safeName` (type SP(dtype)) when the input was sparse;
/// otherwise the feature op's dense result itself.
ArtifactValuePtr finishFeatures(TorchLatticeArtifactBuilder& b, const std::string& safeName,
                                const FeatureInput& in, ValueId featuresOut,
                                std::optional<int64_t> channels, const std::string& dtype);

// --- module lowerings (§3) --------------------------------------------------------------------

/// One `lower_module` call.
struct ModuleCall {
  TorchLatticeArtifactBuilder& builder;
  const std::string& name; ///< the result-name stem (module path)
  const ModuleInfo& module;
  const Model& model;
  std::vector<ArtifactValuePtr>& inputs; ///< arity already checked; nullptr = None

  /// `type(module).__name__`.
  std::string className() const { return module.className(); }
  /// `safe(name)`.
  std::string safeName() const;
  /// `module.<attr>`; "'<ClassName>' object has no attribute '<attr>'" when absent.
  const fx::Value& attr(const std::string& attrName) const;
  /// nullptr when absent.
  const fx::Value* findAttr(const std::string& attrName) const { return module.attribute(attrName); }
  /// The parameter or buffer `slot`; nullptr when it holds None or does not exist.
  const TensorData* tensor(const std::string& slot) const;
  /// `inputs[i]`, or the builder's current value when it is None ("builder has no current
  /// value; ..." when there is none).
  ArtifactValuePtr inputOrCurrent(std::size_t i = 0) const;
  /// `_dtype_for_module`: the first parameter's dtype name, else the builder's input dtype.
  std::string moduleDtype() const;
  /// `_weight(name, param, tensor, family, layout)` with the family's layout.
  ValueId weight(std::string_view param, const TensorData& tensor, const WeightFamily& family) const;
};


// Family lowerings (ConvLowerings.cpp).
ArtifactValuePtr lowerConv3d(ModuleCall& c);
ArtifactValuePtr lowerSubmConv3d(ModuleCall& c);
ArtifactValuePtr lowerNormalizedSubmConv3d(ModuleCall& c);
ArtifactValuePtr lowerConvTranspose3d(ModuleCall& c);
ArtifactValuePtr lowerNormalizedConvTranspose3d(ModuleCall& c);
ArtifactValuePtr lowerGenerativeConvTranspose3d(ModuleCall& c);
ArtifactValuePtr lowerNormalizedGenerativeConvTranspose3d(ModuleCall& c);
ArtifactValuePtr lowerPool3d(ModuleCall& c);
ArtifactValuePtr lowerPoolTranspose3d(ModuleCall& c);
ArtifactValuePtr lowerTrilinearUpsample3d(ModuleCall& c);

// Family lowerings (NormLowerings.cpp).
ArtifactValuePtr lowerBatchNorm(ModuleCall& c);
ArtifactValuePtr lowerLayerNorm(ModuleCall& c);
ArtifactValuePtr lowerRmsNorm(ModuleCall& c);
ArtifactValuePtr lowerReLU(ModuleCall& c);
ArtifactValuePtr lowerLeakyReLU(ModuleCall& c);
ArtifactValuePtr lowerSiLU(ModuleCall& c);
ArtifactValuePtr lowerGELU(ModuleCall& c);
ArtifactValuePtr lowerSigmoid(ModuleCall& c);
ArtifactValuePtr lowerTanh(ModuleCall& c);
ArtifactValuePtr lowerSoftplus(ModuleCall& c);

// --- function lowerings (§4, FunctionLowerings.cpp) -------------------------------------------


} // namespace lattice::lowering
