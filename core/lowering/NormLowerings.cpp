// Module lowerings, part 3 (lowering.md §3.2, §3.3): the "feature op" pattern (sparse decompose →
// dense op → with_features) and the modules built on it: BatchNorm, LayerNorm, RMSNorm and the
// seven activations, plus the builder's public activation() helper. Dense inputs skip the
// decompose and with_features steps. The decompose's features are typed with the builder's
// input dtype, not the value's (Appendix B.3).

#include "lowering/LoweringSupport.h"

#include "dialect/MlirTypes.h"
#include "lowering/Names.h"

namespace lattice::lowering {
namespace {

using Kind = ArtifactValue::Kind;

DType constantDType(const std::string& moduleDtype) {
  return moduleDtype == "f16" ? DType::F16 : DType::F32;
}

/// C from `normalized_shape`: an int, or a sequence with exactly one entry.
int64_t normalizedChannels(ModuleCall& c, const char* label) {
  const fx::Value& shape = c.attr("normalized_shape");
  if (shape.kind() == fx::Value::Kind::Int || shape.kind() == fx::Value::Kind::Bool) return pyInt(shape);
  if (shape.isSequence() && shape.items().size() == 1) return pyInt(shape.items()[0]);
  fail(std::string(label) + " artifact expects one normalized feature dimension.");
}

/// Emits the dense feature op `opName` on `in.features` with `weights` as extra operands and
/// finishes the pattern.
/// `weights` are the op's operands after the features.
template <std::size_t N>
ArtifactValuePtr featureOp(TorchLatticeArtifactBuilder& b, const std::string& safeName,
                           const FeatureInput& in, OpKind kind, const std::array<ValueId, N>& weights,
                           double eps, int64_t channels, const std::string& dtype) {
  std::array<ValueId, N + 1> operands;
  operands[0] = in.features;
  std::copy(weights.begin(), weights.end(), operands.begin() + 1);
  const NamedAttr attributes[] = {{"eps", eps}};
  const std::string stems[] = {safeName + "_features"};
  const TypeText types[] = {featureTensorType(channels, dtype)};
  const ValueId out = must(b.emitOp({opName(kind), operands, {}, attributes, stems, types})).front();
  return finishFeatures(b, safeName, in, out, channels, dtype);
}

ArtifactValuePtr activationModule(ModuleCall& c, const char* kind, const ActivationParams& params) {
  return must(c.builder.activation(c.name, kind, c.inputOrCurrent(), params));
}

/// The module's parameter `param`, or (affine=False, elementwise_affine=False) a constant vector
/// of `fill`, registered and stored under the same key.
ValueId parameterOrConstant(ModuleCall& c, const char* param, double fill, int64_t channels,
                            const std::string& dtype, const WeightFamily& family) {
  const TensorData* t = c.tensor(param);
  return c.weight(param, t ? *t : constantVector(fill, channels, constantDType(dtype)), family);
}

} // namespace

FeatureInput decomposeFeatures(TorchLatticeArtifactBuilder& b, const std::string& safeName,
                               const ArtifactValuePtr& input) {
  if (!input->isSparse()) return {input->id(), nullptr};
  const ValueId operands[] = {input->id()};
  const std::string stems[] = {"", safeName + "_features_in", safeName + "_active"};
  const TypeText types[] = {coordsTensorType(), featureTensorType(input->channels(), b.inputDtype()),
                            activeTensorType()};
  const OpResults results = must(b.emitOp({opName(OpKind::SparseDecompose), operands, {}, {}, stems, types}));
  return {results[1], input};
}

ArtifactValuePtr finishFeatures(TorchLatticeArtifactBuilder& b, const std::string& safeName,
                                const FeatureInput& in, ValueId featuresOut,
                                std::optional<int64_t> channels, const std::string& dtype) {
  if (!in.sparse) return b.makeValue(featuresOut, Kind::Dense, channels, dtype);
  const ValueId operands[] = {in.sparse->id(), featuresOut};
  const TypeText types[] = {sparseTensorType(dtype)};
  const OpResults out =
      must(b.emitOp({opName(OpKind::SparseWithFeatures), operands, {}, {}, {&safeName, 1}, types}));
  return b.makeValue(out.front(), Kind::Sparse, channels, dtype);
}

ArtifactValuePtr lowerBatchNorm(ModuleCall& c) {
  const ArtifactValuePtr input = c.inputOrCurrent();
  requireKind(input, Kind::Sparse, c.className());
  const int64_t channels = pyInt(c.attr("num_features"));
  const std::string dtype = c.moduleDtype();
  const double eps = pyFloat(c.attr("eps"));
  const std::string s = c.safeName();
  const FeatureInput in = decomposeFeatures(c.builder, s, input);

  const ValueId scale = parameterOrConstant(c, "weight", 1.0, channels, dtype, kChannelWeight);
  const ValueId bias = parameterOrConstant(c, "bias", 0.0, channels, dtype, kBiasWeight);
  const TensorData* mean = c.tensor("running_mean");
  const TensorData* var = c.tensor("running_var");
  if (!mean || !var) fail("BatchNorm artifact requires frozen running_mean and running_var.");
  const ValueId meanW = c.weight("running_mean", *mean, kChannelWeight);
  const ValueId varW = c.weight("running_var", *var, kChannelWeight);
  return featureOp<4>(c.builder, s, in, OpKind::BatchNorm, {scale, bias, meanW, varW}, eps, channels, dtype);
}

ArtifactValuePtr lowerLayerNorm(ModuleCall& c) {
  const ArtifactValuePtr input = c.inputOrCurrent();
  const std::string s = c.safeName();
  const FeatureInput in = decomposeFeatures(c.builder, s, input);
  const int64_t channels = normalizedChannels(c, "LayerNorm");
  const std::string dtype = c.moduleDtype();
  const double eps = pyFloat(c.attr("eps"));
  const ValueId scale = parameterOrConstant(c, "weight", 1.0, channels, dtype, kChannelWeight);
  const ValueId bias = parameterOrConstant(c, "bias", 0.0, channels, dtype, kBiasWeight);
  return featureOp<2>(c.builder, s, in, OpKind::LayerNorm, {scale, bias}, eps, channels, dtype);
}

ArtifactValuePtr lowerRmsNorm(ModuleCall& c) {
  const ArtifactValuePtr input = c.inputOrCurrent();
  const std::string s = c.safeName();
  const FeatureInput in = decomposeFeatures(c.builder, s, input);
  const int64_t channels = normalizedChannels(c, "RMSNorm");
  const std::string dtype = c.moduleDtype();
  // float(eps): torch.nn.RMSNorm's default eps=None raises TypeError here (Appendix B.7).
  const double eps = pyFloat(c.attr("eps"));
  const ValueId scale = parameterOrConstant(c, "weight", 1.0, channels, dtype, kChannelWeight);
  return featureOp<1>(c.builder, s, in, OpKind::RmsNorm, {scale}, eps, channels, dtype);
}

ArtifactValuePtr lowerReLU(ModuleCall& c) {
  return activationModule(c, "relu", {});
}
ArtifactValuePtr lowerSiLU(ModuleCall& c) {
  return activationModule(c, "silu", {});
}
ArtifactValuePtr lowerSigmoid(ModuleCall& c) {
  return activationModule(c, "sigmoid", {});
}
ArtifactValuePtr lowerTanh(ModuleCall& c) {
  return activationModule(c, "tanh", {});
}

ArtifactValuePtr lowerLeakyReLU(ModuleCall& c) {
  ActivationParams p;
  p.alpha = pyFloat(c.attr("negative_slope"));
  return activationModule(c, "leaky_relu", p);
}

ArtifactValuePtr lowerGELU(ModuleCall& c) {
  // str(module.approximate or "none")
  ActivationParams p;
  const fx::Value& approximate = c.attr("approximate");
  p.approximate = pyTruthy(approximate) ? pyStr(approximate) : std::string("none");
  return activationModule(c, "gelu", p);
}

ArtifactValuePtr lowerSoftplus(ModuleCall& c) {
  ActivationParams p;
  p.beta = pyFloat(c.attr("beta"));
  p.threshold = pyFloat(c.attr("threshold"));
  return activationModule(c, "softplus", p);
}

} // namespace lattice::lowering

namespace lattice {

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::activation(const std::string& name,
                                                                   const std::string& kind,
                                                                   ArtifactValuePtr input,
                                                                   const ActivationParams& params) {
  try {
    if (!input) input = lowering::must(current());
    const std::string s = safeValueName(name);
    const lowering::FeatureInput in = lowering::decomposeFeatures(*this, s, input);
    const ValueId operands[] = {in.features};
    const NamedAttr attributes[] = {{"kind", kind},
                                    {"approximate", params.approximate},
                                    {"alpha", params.alpha},
                                    {"beta", params.beta},
                                    {"threshold", params.threshold}};
    const std::string stems[] = {s + "_features"};
    const TypeText types[] = {featureTensorType(input->channels(), inputDtype())};
    const ValueId out =
        lowering::must(emitOp({opName(OpKind::Activation), operands, {}, attributes, stems, types})).front();
    return lowering::finishFeatures(*this, s, in, out, input->channels(), inputDtype());
  } catch (const Exception& e) {
    return makeError(e.message);
  }
}

} // namespace lattice
