// Module lowerings, part 3 (lowering.md §3.2, §3.3): the "feature op" pattern (sparse decompose →
// dense op → with_features) and the modules built on it: BatchNorm, LayerNorm, RMSNorm and the
// seven activations, plus the builder's public activation() helper. Dense inputs skip the
// decompose and with_features steps. The decompose's features are typed with the builder's
// input dtype, not the value's (Appendix B.3).

#include "artifact/LoweringSupport.h"

#include "artifact/MlirTypes.h"
#include "artifact/Names.h"

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
ArtifactValuePtr featureOp(TorchLatticeArtifactBuilder& b, const std::string& safeName,
                           const FeatureInput& in, const char* opName, std::vector<MlirValue> weights,
                           std::vector<NamedAttr> attrs, int64_t channels, const std::string& dtype) {
  OpRecord op;
  op.op = opName;
  op.operands.reserve(1 + weights.size());
  op.operands.push_back(in.features);
  for (MlirValue& w : weights)
    op.operands.push_back(std::move(w));
  op.attributes = std::move(attrs);
  op.resultStems = movedList<std::string>(safeName + "_features");
  op.resultTypes = movedList<TypeText>(featureTensorType(channels, dtype));
  MlirValue out = std::move(must(b.emitOp(std::move(op))).front());
  return finishFeatures(b, safeName, in, out, channels, dtype);
}

ArtifactValuePtr activationModule(ModuleCall& c, const char* kind, const ActivationParams& params) {
  return must(c.builder.activation(c.name, kind, c.inputOrCurrent(), params));
}

} // namespace

FeatureInput decomposeFeatures(TorchLatticeArtifactBuilder& b, const std::string& safeName,
                               const ArtifactValuePtr& input) {
  if (!input->isSparse()) return {{input->name(), input->type()}, nullptr};
  OpRecord op;
  op.op = "sparse.decompose";
  op.operands = movedList<MlirValue>(MlirValue{input->name(), input->type()});
  op.resultStems = movedList<std::string>("", safeName + "_features_in", safeName + "_active");
  op.resultTypes = movedList<TypeText>(coordsTensorType(), featureTensorType(input->channels(), b.inputDtype()),
                                       activeTensorType());
  const std::vector<MlirValue> results = must(b.emitOp(std::move(op)));
  return {results[1], input};
}

ArtifactValuePtr finishFeatures(TorchLatticeArtifactBuilder& b, const std::string& safeName,
                                const FeatureInput& in, const MlirValue& featuresOut,
                                std::optional<int64_t> channels, const std::string& dtype) {
  if (!in.sparse) return TorchLatticeArtifactBuilder::makeValue(featuresOut, Kind::Dense, channels, dtype);
  OpRecord op;
  op.op = "sparse.with_features";
  op.operands = movedList<MlirValue>(MlirValue{in.sparse->name(), in.sparse->type()}, featuresOut);
  op.resultStems = movedList<std::string>(safeName);
  op.resultTypes = movedList<TypeText>(sparseTensorType(dtype));
  MlirValue out = std::move(must(b.emitOp(std::move(op))).front());
  return TorchLatticeArtifactBuilder::makeValue(std::move(out), Kind::Sparse, channels, dtype);
}

ArtifactValuePtr lowerBatchNorm(ModuleCall& c) {
  const ArtifactValuePtr input = c.inputOrCurrent();
  requireKind(input, Kind::Sparse, c.className());
  const int64_t channels = pyInt(c.attr("num_features"));
  const std::string dtype = c.moduleDtype();
  const double eps = pyFloat(c.attr("eps"));
  const std::string s = c.safeName();
  const FeatureInput in = decomposeFeatures(c.builder, s, input);

  // affine=False: constant ones/zeros are registered (and stored) under the same keys.
  const TensorData* scaleT = c.tensor("weight");
  const TensorData* biasT = c.tensor("bias");
  MlirValue scale =
      c.weight("weight", scaleT ? *scaleT : constantVector(1.0, channels, constantDType(dtype)), "channel",
               "channel_c");
  MlirValue bias = c.weight(
      "bias", biasT ? *biasT : constantVector(0.0, channels, constantDType(dtype)), "bias", "bias_c");
  const TensorData* mean = c.tensor("running_mean");
  const TensorData* var = c.tensor("running_var");
  if (!mean || !var) fail("BatchNorm artifact requires frozen running_mean and running_var.");
  MlirValue meanW = c.weight("running_mean", *mean, "channel", "channel_c");
  MlirValue varW = c.weight("running_var", *var, "channel", "channel_c");
  return featureOp(c.builder, s, in, "batch_norm",
                   movedList<MlirValue>(std::move(scale), std::move(bias), std::move(meanW), std::move(varW)),
                   movedList<NamedAttr>(NamedAttr{"eps", eps}), channels, dtype);
}

ArtifactValuePtr lowerLayerNorm(ModuleCall& c) {
  const ArtifactValuePtr input = c.inputOrCurrent();
  const std::string s = c.safeName();
  const FeatureInput in = decomposeFeatures(c.builder, s, input);
  const int64_t channels = normalizedChannels(c, "LayerNorm");
  const std::string dtype = c.moduleDtype();
  const double eps = pyFloat(c.attr("eps"));
  const TensorData* scaleT = c.tensor("weight");
  const TensorData* biasT = c.tensor("bias");
  const MlirValue scale =
      c.weight("weight", scaleT ? *scaleT : constantVector(1.0, channels, constantDType(dtype)), "channel",
               "channel_c");
  const MlirValue bias = c.weight(
      "bias", biasT ? *biasT : constantVector(0.0, channels, constantDType(dtype)), "bias", "bias_c");
  return featureOp(c.builder, s, in, "layer_norm", {scale, bias}, {{"eps", eps}}, channels, dtype);
}

ArtifactValuePtr lowerRmsNorm(ModuleCall& c) {
  const ArtifactValuePtr input = c.inputOrCurrent();
  const std::string s = c.safeName();
  const FeatureInput in = decomposeFeatures(c.builder, s, input);
  const int64_t channels = normalizedChannels(c, "RMSNorm");
  const std::string dtype = c.moduleDtype();
  // float(eps): torch.nn.RMSNorm's default eps=None raises TypeError here (Appendix B.7).
  const double eps = pyFloat(c.attr("eps"));
  const TensorData* scaleT = c.tensor("weight");
  const MlirValue scale =
      c.weight("weight", scaleT ? *scaleT : constantVector(1.0, channels, constantDType(dtype)), "channel",
               "channel_c");
  return featureOp(c.builder, s, in, "rms_norm", {scale}, {{"eps", eps}}, channels, dtype);
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
    OpRecord op;
    op.op = "activation";
    op.operands = movedList<MlirValue>(in.features);
    op.attributes = movedList<NamedAttr>(NamedAttr{"kind", kind}, NamedAttr{"approximate", params.approximate},
                                         NamedAttr{"alpha", params.alpha}, NamedAttr{"beta", params.beta},
                                         NamedAttr{"threshold", params.threshold});
    op.resultStems = movedList<std::string>(s + "_features");
    op.resultTypes = movedList<TypeText>(featureTensorType(input->channels(), inputDtype()));
    MlirValue out = std::move(lowering::must(emitOp(std::move(op))).front());
    return lowering::finishFeatures(*this, s, in, out, input->channels(), inputDtype());
  } catch (const Exception& e) {
    return makeError(e.message);
  }
}

} // namespace lattice
