// Static stride propagation (validation spec sec. 10.1) and the execution-time stride rules it
// makes checkable before running: X10 (a transposed or generative op's stride divides its input
// stride), X11 (a target operand has the op's output stride) and X14 (binary, cat and reindex
// operands share one stride). Strides start at sparse.make and voxelize (their `stride`
// attribute); a sparse function argument has an unknown stride, and nothing is reported about
// a value whose stride is unknown or whose op is already malformed. Beyond the spec, a forward
// op's tensor stride (input stride × op stride) is bounded like the op's own attributes, by the
// range of an i32 coordinate (kMaxCoordinateExtent).

#include "verify/VerifierSupport.h"

#include <array>
#include <optional>
#include <unordered_map>

namespace lattice::detail {
namespace {

using Stride = std::array<std::int64_t, 3>;

std::string strideText(const Stride& s) {
  return "(" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + ", " + std::to_string(s[2]) + ")";
}

// A well-formed positive `stride` attribute of `op` within kMaxCoordinateExtent (the op's own
// checks report the others).
std::optional<Stride> strideAttr(const ArtifactOp& op) {
  const ArtifactAttribute* a = op.attribute("stride");
  if (!a || !attrMatchesKind(a->value, SchemaAttrKind::I64Triple) || a->value.i64s.size() != 3)
    return std::nullopt;
  const I64Array& v = a->value.i64s;
  for (std::int64_t x : v)
    if (x <= 0 || x > kMaxCoordinateExtent) return std::nullopt;
  return Stride{v[0], v[1], v[2]};
}

enum class Propagation { Source, Keep, Multiply, Divide, Lhs, Target };

// How `op` derives its output stride from its input (sec. 10.1); Target when a present target
// operand decides it.
Propagation propagationOf(OpKind kind, bool hasTarget) {
  if (kind == OpKind::SparseMake || kind == OpKind::Voxelize) return Propagation::Source;
  if (kind == OpKind::Conv3d || kind == OpKind::Pool3d) return Propagation::Multiply;
  if (kind == OpKind::SubmConv3d || kind == OpKind::NormalizedSubmConv3d ||
      kind == OpKind::SparseWithFeatures)
    return Propagation::Keep;
  if (kind == OpKind::TargetConv3d || kind == OpKind::TargetConvTranspose3d ||
      kind == OpKind::TargetNormalizedConvTranspose3d || kind == OpKind::SparseReindex)
    return Propagation::Target;
  if (kind == OpKind::PoolTranspose3d || kind == OpKind::TrilinearUpsample3d)
    return hasTarget ? Propagation::Target : Propagation::Divide;
  if (kind == OpKind::ConvTranspose3d || kind == OpKind::NormalizedConvTranspose3d ||
      kind == OpKind::GenerativeConvTranspose3d || kind == OpKind::NormalizedGenerativeConvTranspose3d)
    return Propagation::Divide;
  return Propagation::Lhs; // sparse.binary, sparse.cat
}

// Component-wise product; nullopt when an axis passes kMaxCoordinateExtent, and then `axis` (if
// given) is that axis.
std::optional<Stride> times(const Stride& a, const Stride& b, int* axis = nullptr) {
  Stride out{};
  for (int i = 0; i < 3; ++i) {
    if (__builtin_mul_overflow(a[i], b[i], &out[i]) || out[i] > kMaxCoordinateExtent) {
      if (axis) *axis = i;
      return std::nullopt;
    }
  }
  return out;
}

// The product of `input` and `attr`, or an error at the op when it passes kMaxCoordinateExtent.
std::optional<Stride> tensorStride(OpContext& ctx, const Stride& input, const Stride& attr) {
  int axis = 0;
  std::optional<Stride> out = times(input, attr, &axis);
  if (!out)
    ctx.error(std::string("tensor stride on axis ") + "xyz"[axis] + " (input stride " + std::to_string(input[axis]) +
              " × stride " + std::to_string(attr[axis]) + ") exceeds " + std::to_string(kMaxCoordinateExtent) +
              ", the range of i32 coordinates");
  return out;
}

} // namespace

void verifyStrides(const ArtifactFunction& f, DiagnosticSink& sink) {
  std::unordered_map<std::string, Stride> strides;
  const auto strideOf = [&](const ArtifactValueUse& use) -> std::optional<Stride> {
    const auto it = strides.find(use.name);
    return it == strides.end() ? std::nullopt : std::optional<Stride>(it->second);
  };
  for (const ArtifactOp& op : f.ops) {
    if (!op.schema || op.results.size() != 1 || !op.results[0].type.isSparse()) continue;
    OpContext ctx(op, sink);
    if (!ctx.operandsResolved()) continue;
    const OpKind kind = op.kind;
    const bool hasTarget = ctx.operand("target") != nullptr;
    const std::optional<Stride> input = op.operands.empty() ? std::nullopt : strideOf(op.operands[0]);
    const std::optional<Stride> attr = strideAttr(op);
    std::optional<Stride> out;
    switch (propagationOf(kind, hasTarget)) {
    case Propagation::Source:
      out = attr;
      break;
    case Propagation::Keep:
      out = input;
      break;
    case Propagation::Multiply:
      if (input && attr) out = tensorStride(ctx, *input, *attr);
      break;
    case Propagation::Divide:
      if (input && attr) {
        if ((*input)[0] % (*attr)[0] || (*input)[1] % (*attr)[1] || (*input)[2] % (*attr)[2]) {
          ctx.error("transpose stride must divide the input tensor stride (input stride " +
                    strideText(*input) + ", op stride " + strideText(*attr) + ")");
        } else {
          out = Stride{(*input)[0] / (*attr)[0], (*input)[1] / (*attr)[1], (*input)[2] / (*attr)[2]};
        }
      }
      break;
    case Propagation::Lhs: {
      out = input;
      const std::optional<Stride> rhs = op.operands.size() > 1 ? strideOf(op.operands[1]) : std::nullopt;
      if (input && rhs && *input != *rhs)
        ctx.error("sparse tensor strides must match (" + strideText(*input) + " vs " + strideText(*rhs) +
                  ")");
      break;
    }
    case Propagation::Target: {
      const std::optional<Stride> target = op.operands.size() > 1 ? strideOf(op.operands[1]) : std::nullopt;
      out = target;
      if (!input || !target) break;
      if (kind == OpKind::SparseReindex) {
        if (*input != *target)
          ctx.error("sparse tensor strides must match (" + strideText(*input) + " vs " + strideText(*target) +
                    ")");
      } else if (kind == OpKind::TargetConv3d) {
        const std::optional<Stride> expected = attr ? tensorStride(ctx, *input, *attr) : std::nullopt;
        if (expected && *target != *expected)
          ctx.error("target coordinates must use the convolution output stride (target stride " +
                    strideText(*target) + ")");
      } else if (attr) {
        if ((*input)[0] % (*attr)[0] || (*input)[1] % (*attr)[1] || (*input)[2] % (*attr)[2]) {
          ctx.error("transpose stride must divide the input tensor stride (input stride " +
                    strideText(*input) + ", op stride " + strideText(*attr) + ")");
        } else {
          const Stride expected{(*input)[0] / (*attr)[0], (*input)[1] / (*attr)[1], (*input)[2] / (*attr)[2]};
          if (*target != expected)
            ctx.error("target stride " + strideText(*target) + " does not match transposed output stride " +
                      strideText(expected));
        }
      }
      break;
    }
    }
    if (out) strides[op.results[0].name] = *out;
  }
}

} // namespace lattice::detail
