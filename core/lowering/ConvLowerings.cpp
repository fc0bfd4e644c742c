// Module lowerings, part 2 (lowering.md §3.3): the seven torch_lattice convolutions and the three
// spatial pooling/upsampling modules. The check order for convolutions is the reference's:
// quantisation refusal (normalized convs only), input kind, weight op, bias op, target kind, conv
// op. The weight re-layout itself (§5.8) is WeightPacking's convWeightToLatticeLayout.

#include "lowering/LoweringSupport.h"

#include "dialect/MlirTypes.h"
#include "lowering/WeightPacking.h"

namespace lattice::lowering {
namespace {

using Kind = ArtifactValue::Kind;

I64Array toArray(const std::array<int64_t, 3>& t) {
  return I64Array(t.begin(), t.end());
}

/// Which attributes an emitted convolution op carries (beyond kernel_size).
struct ConvAttrs {
  bool stride = false;
  bool padding = false;
  bool dilation = false;
  bool eps = false;
};

/// The shared conv lowering: `op1` with one input, `op2` (and `attrs2`) with a target.
ArtifactValuePtr lowerConvFamily(ModuleCall& c, bool normalized, OpKind op1, ConvAttrs attrs1, OpKind op2,
                                 ConvAttrs attrs2) {
  TorchLatticeArtifactBuilder& b = c.builder;
  if (normalized) must(b.requireDenseWeights(c.name, c.className()));
  const ArtifactValuePtr input = c.inputOrCurrent(0);
  requireKind(input, Kind::Sparse, c.className());

  const std::array<int64_t, 3> kernel = intTriple(c.attr("kernel_size"));
  const TensorData* w = c.tensor("weight");
  if (!w) fail("'" + c.className() + "' object has no attribute 'weight'");
  const TensorData relaid = must(convWeightToLatticeLayout(
      *w, kernel[0], kernel[1], kernel[2], pyInt(c.attr("in_channels")), pyInt(c.attr("out_channels"))));
  const ValueId weight = c.weight("weight", relaid, kConvWeight);
  std::optional<ValueId> bias;
  if (const TensorData* t = c.tensor("bias")) bias = c.weight("bias", *t, kBiasWeight);

  const bool withTarget = c.inputs.size() == 2;
  ArtifactValuePtr target;
  if (withTarget) {
    target = c.inputs[1];
    requireKind(target, Kind::Sparse, c.className());
  }

  const ConvAttrs& a = withTarget ? attrs2 : attrs1;
  std::array<ValueId, 4> operands;
  std::size_t operandCount = 0;
  operands[operandCount++] = input->id();
  if (target) operands[operandCount++] = target->id();
  operands[operandCount++] = weight;
  if (bias) operands[operandCount++] = *bias;
  std::array<NamedAttr, 5> attributes;
  std::size_t attributeCount = 0;
  attributes[attributeCount++] = {"kernel_size", toArray(kernel)};
  if (a.stride) attributes[attributeCount++] = {"stride", toArray(intTriple(c.attr("stride")))};
  if (a.padding) attributes[attributeCount++] = {"padding", toArray(intTriple(c.attr("padding")))};
  if (a.dilation) attributes[attributeCount++] = {"dilation", toArray(intTriple(c.attr("dilation")))};
  if (a.eps) {
    const fx::Value* eps = c.findAttr("eps");
    attributes[attributeCount++] = {"eps", eps ? pyFloat(*eps) : 1e-8};
  }
  const std::string dtype = c.moduleDtype();
  const int64_t outChannels = pyInt(c.attr("out_channels"));
  const std::string safeName = c.safeName();
  const TypeText types[] = {sparseTensorType(dtype)};
  const OpResults out = must(b.emitOp({opName(withTarget ? op2 : op1),
                                       {operands.data(), operandCount},
                                       {},
                                       {attributes.data(), attributeCount},
                                       {&safeName, 1},
                                       types}));
  return b.makeValue(out.front(), Kind::Sparse, outChannels, dtype);
}

constexpr ConvAttrs kFull{true, true, true, false};
constexpr ConvAttrs kFullEps{true, true, true, true};
constexpr ConvAttrs kSubm{false, false, true, false};
constexpr ConvAttrs kSubmEps{false, false, true, true};
constexpr ConvAttrs kGenerative{true, false, false, false};
constexpr ConvAttrs kGenerativeEps{true, false, false, true};

/// `<op>(input, target?)` for the parameter-free spatial modules; the result keeps the input's
/// channels and is typed SP(input_dtype).
ArtifactValuePtr lowerSpatial(ModuleCall& c, OpKind kind, ArtifactValuePtr input,
                              std::vector<NamedAttr> attrs) {
  requireKind(input, Kind::Sparse, c.className());
  ArtifactValuePtr target;
  if (c.inputs.size() == 2) {
    target = c.inputs[1];
    requireKind(target, Kind::Sparse, c.className());
  }
  OpRecord op;
  op.op = std::string(opName(kind));
  op.operands = {input->id()};
  if (target) op.operands.push_back(target->id());
  op.attributes = std::move(attrs);
  op.resultStems = {c.safeName()};
  op.resultTypes = {sparseTensorType(c.builder.inputDtype())};
  const ValueId out = must(c.builder.emitOp(op)).front();
  return c.builder.makeValue(out, Kind::Sparse, input->channels(), c.builder.inputDtype());
}

std::vector<NamedAttr> kernelAttrs(ModuleCall& c) {
  return {{"kernel_size", toArray(intTriple(c.attr("kernel_size")))},
          {"stride", toArray(intTriple(c.attr("stride")))},
          {"padding", toArray(intTriple(c.attr("padding")))},
          {"dilation", toArray(intTriple(c.attr("dilation")))}};
}

} // namespace

ArtifactValuePtr lowerConv3d(ModuleCall& c) {
  return lowerConvFamily(c, false, OpKind::Conv3d, kFull, OpKind::TargetConv3d, kFull);
}

ArtifactValuePtr lowerSubmConv3d(ModuleCall& c) {
  return lowerConvFamily(c, false, OpKind::SubmConv3d, kSubm, OpKind::SubmConv3d, kSubm);
}

ArtifactValuePtr lowerNormalizedSubmConv3d(ModuleCall& c) {
  return lowerConvFamily(c, true, OpKind::NormalizedSubmConv3d, kSubmEps, OpKind::NormalizedSubmConv3d,
                         kSubmEps);
}

ArtifactValuePtr lowerConvTranspose3d(ModuleCall& c) {
  return lowerConvFamily(c, false, OpKind::ConvTranspose3d, kFull, OpKind::TargetConvTranspose3d, kFull);
}

ArtifactValuePtr lowerNormalizedConvTranspose3d(ModuleCall& c) {
  return lowerConvFamily(c, true, OpKind::NormalizedConvTranspose3d, kFullEps,
                         OpKind::TargetNormalizedConvTranspose3d, kFullEps);
}

ArtifactValuePtr lowerGenerativeConvTranspose3d(ModuleCall& c) {
  // With a target the generative conv uses the plain target transpose op and adds padding and
  // dilation (Appendix B.6).
  return lowerConvFamily(c, false, OpKind::GenerativeConvTranspose3d, kGenerative,
                         OpKind::TargetConvTranspose3d, kFull);
}

ArtifactValuePtr lowerNormalizedGenerativeConvTranspose3d(ModuleCall& c) {
  return lowerConvFamily(c, true, OpKind::NormalizedGenerativeConvTranspose3d, kGenerativeEps,
                         OpKind::TargetNormalizedConvTranspose3d, kFullEps);
}

ArtifactValuePtr lowerPool3d(ModuleCall& c) {
  ArtifactValuePtr input = c.inputOrCurrent(0);
  requireKind(input, Kind::Sparse, c.className());
  std::vector<NamedAttr> attrs = kernelAttrs(c);
  attrs.insert(attrs.begin(), NamedAttr{"mode", pyStr(c.attr("mode"))});
  return lowerSpatial(c, OpKind::Pool3d, input, std::move(attrs));
}

ArtifactValuePtr lowerPoolTranspose3d(ModuleCall& c) {
  // A None input is not replaced by the current value here (§3.1); kinds are checked before
  // any attribute is read.
  requireKind(c.inputs[0], Kind::Sparse, c.className());
  return lowerSpatial(c, OpKind::PoolTranspose3d, c.inputs[0], kernelAttrs(c));
}

ArtifactValuePtr lowerTrilinearUpsample3d(ModuleCall& c) {
  requireKind(c.inputs[0], Kind::Sparse, c.className());
  return lowerSpatial(c, OpKind::TrilinearUpsample3d, c.inputs[0],
                      {{"stride", toArray(intTriple(c.attr("stride")))}});
}

} // namespace lattice::lowering
