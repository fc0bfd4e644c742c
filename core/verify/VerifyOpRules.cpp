// The custom op verifiers of the lattice dialect (validation spec sec. 5, class V), with their
// exact messages. Each helper skips what ODS already reported (a missing attribute, an operand
// of the wrong class), so a broken op gives each problem once. Unlike the reference, all
// failures of an op are reported, not only the first; a check that depends on an earlier one
// (values of a triple after its size) is skipped when that one failed. Beyond the spec, the
// numbers that enter coordinate arithmetic are bounded by the range of an i32 coordinate.

#include "verify/VerifierSupport.h"

#include <algorithm>

namespace lattice::detail {
namespace {

const std::string kCanonicalAccumulation = "canonical_f32";

bool oneOf(const std::string& value, const std::vector<std::string>& values) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

const std::vector<std::string>& enumValues(const char* mnemonic) {
  return dialectSchema().findAttr(mnemonic)->values;
}

class Rules {
public:
  explicit Rules(OpContext& ctx) : c(ctx) {}

  // SR: rank 3, batch_x_y_z, row_channel.
  void sr(const ArtifactType* t) {
    if (!t || !t->isSparse()) return;
    if (t->rank != 3) c.error("only rank=3 sparse tensors are supported in v0");
    if (t->coord != "batch_x_y_z") c.error("only batch_x_y_z coordinate convention is supported in v0");
    if (t->feature != "row_channel") c.error("only row_channel feature layout is supported in v0");
  }
  void srOperand(const char* name) { sr(c.operand(name)); }
  void srResult() { sr(c.result()); }

  const I64Array* triple(const char* name) {
    const ArtifactAttrValue* v = c.attr(name);
    if (!v) return nullptr;
    if (v->i64s.size() != 3) {
      c.error(std::string(name) + " must contain exactly 3 integers");
      return nullptr;
    }
    return &v->i64s;
  }
  void triPositive(const char* name) {
    if (const I64Array* t = triple(name))
      if (std::any_of(t->begin(), t->end(), [](std::int64_t v) { return v <= 0; }))
        c.error(std::string(name) + " values must be strictly positive");
  }
  void triNonNegative(const char* name) {
    if (const I64Array* t = triple(name))
      if (std::any_of(t->begin(), t->end(), [](std::int64_t v) { return v < 0; }))
        c.error(std::string(name) + " values must be non-negative");
  }
  void ct() {
    triPositive("kernel_size");
    triPositive("stride");
    triNonNegative("padding");
    triPositive("dilation");
  }
  void wf(const char* operand, const WeightFamily& family) {
    const ArtifactType* t = c.operand(operand);
    if (t && t->isWeight() && t->family != family.name)
      c.error("expected " + std::string(family.name) + " weight, got " + printableForMessage(t->family));
  }
  void ob() { wf("bias", kBiasWeight); }
  void eps() {
    if (const ArtifactAttrValue* v = c.attr("eps"))
      if (!(v->number > 0)) c.error("eps must be positive");
  }
  void acc() {
    if (const ArtifactAttrValue* v = c.attr("accumulation"))
      if (v->text != kCanonicalAccumulation) c.error("requires accumulation = \"canonical_f32\"");
  }
  void f3(const char* name, bool positive) {
    const ArtifactAttrValue* v = c.attr(name);
    if (!v) return;
    if (v->f64s.size() != 3) {
      c.error(std::string(name) + " must contain exactly 3 values");
      return;
    }
    if (positive && std::any_of(v->f64s.begin(), v->f64s.end(), [](double d) { return !(d > 0); }))
      c.error(std::string(name) + " values must be strictly positive");
  }
  void r2f(const std::string& name, const ArtifactType* t, std::int64_t trailing = 0) {
    if (!t || !t->isRankedTensor()) return;
    if (t->tensorRank() != 2)
      c.error(name + " must have rank 2");
    else if (trailing > 0 && t->shape[1] != trailing)
      c.error(name + " must have trailing dimension " + std::to_string(trailing));
    if (t->elementType != "f32") c.error(name + " must use f32 elements");
  }
  // I32V / I32A. `odsChecksElement`: ODS already requires i32 elements of this operand (and
  // reports a mismatch), so only the shape is left to check here.
  void i32Vector(const char* name, bool odsChecksElement) {
    const ArtifactType* t = c.operand(name);
    if (!t || !t->isRankedTensor()) return;
    if (t->tensorRank() != 1) c.error(std::string(name) + " must have rank 1");
    if (!odsChecksElement && t->elementType != "i32") c.error(std::string(name) + " must use i32 elements");
  }
  void i32Active(const char* name) {
    const ArtifactType* t = c.operand(name);
    if (!t || !t->isRankedTensor()) return;
    if (t->shape != std::vector<std::int64_t>{1}) c.error(std::string(name) + " must have shape (1)");
  }
  // FP: rank-2 input and result with equal element types.
  bool fp() {
    const ArtifactType* in = c.operand("input");
    const ArtifactType* out = c.result();
    if (!in || !out || !in->isRankedTensor() || !out->isRankedTensor()) return false;
    if (in->tensorRank() != 2) c.error("input must have rank 2");
    if (out->tensorRank() != 2) c.error("result must have rank 2");
    if (in->elementType != out->elementType) c.error("result dtype must match input dtype");
    return true;
  }
  void enumValue(const char* attrName, const char* mnemonic, const std::string& message) {
    if (const ArtifactAttrValue* v = c.attr(attrName))
      if (!oneOf(v->text, enumValues(mnemonic))) c.error(message);
  }
  void mustNotCarry(const char* a, const char* b, const std::string& message) {
    if (c.op().attribute(a) || c.op().attribute(b)) c.error(message);
  }
  // TC: the target convolutions.
  void tc(bool withEps) {
    srOperand("input");
    srOperand("target");
    srResult();
    const ArtifactType* in = c.operand("input");
    const ArtifactType* target = c.operand("target");
    const ArtifactType* out = c.result();
    if (in && target && out && in->isSparse() && target->isSparse() && out->isSparse() &&
        !(in->coord == target->coord && in->coord == out->coord))
      c.error("input, target, and result coord conventions must match");
    wf("weight", kConvWeight);
    ob();
    ct();
    if (withEps) eps();
  }
  void subm(bool normalized) {
    srOperand("input");
    srResult();
    wf("weight", kConvWeight);
    ob();
    mustNotCarry("stride", "padding", "must not carry stride or padding");
    if (const I64Array* k = triple("kernel_size")) {
      if (std::any_of(k->begin(), k->end(), [](std::int64_t v) { return v <= 0; }))
        c.error("kernel_size values must be strictly positive");
      else if (std::any_of(k->begin(), k->end(), [](std::int64_t v) { return v % 2 == 0; }))
        c.error("submanifold kernel_size values must be odd");
    }
    triPositive("dilation");
    if (normalized) eps();
    acc();
  }
  void generative(bool normalized) {
    srOperand("input");
    srResult();
    wf("weight", kConvWeight);
    ob();
    mustNotCarry("padding", "dilation", "must not carry padding or dilation");
    triPositive("kernel_size");
    triPositive("stride");
    if (normalized) eps();
    acc();
  }

  void weight();
  void sparseOps(OpKind kind);
  void pointOps(OpKind kind);
  void featureOps(OpKind kind);

  OpContext& c;
};

void Rules::weight() {
  if (const ArtifactAttrValue* key = c.attr("storage_key"))
    if (key->text.empty()) c.error("requires a non-empty storage_key");
  const ArtifactType* type = c.result();
  const ArtifactAttrValue* layout = c.attr("layout");
  if (!type || !type->isWeight()) return;
  const std::string& family = type->family;
  bool knownFamily = false;
  for (const WeightFamily& f : kWeightFamilies) {
    if (family != f.name) continue;
    knownFamily = true;
    if (layout && layout->text != f.layout)
      c.error(std::string(f.name) + " weight must use " + std::string(f.layout) + " layout");
  }
  if (!knownFamily) c.error("weight family must be conv3d, linear, embedding, channel, or bias");
  const ArtifactAttrValue* packingValue = c.attr("packing");
  if (!packingValue) return;
  const PackingAttr& packing = packingValue->packing;
  if (packing.kind == "dense") return;
  if (family == kEmbeddingWeight.name || family == kBiasWeight.name || family == kChannelWeight.name)
    c.error("embedding, channel, and bias weights must use dense packing");
  if (packing.kind != "int4" && packing.kind != "int8") {
    c.error("packing kind must be dense, int4, or int8");
    return;
  }
  if (packing.groupSize <= 0) c.error("quantized packing requires positive group_size");
  if (packing.scaleDtype != "f16" && packing.scaleDtype != "f32")
    c.error("quantized packing scale_dtype must be f16 or f32");
  if (packing.mode != "affine") c.error("only affine quantized packing is supported in v0");
}

void Rules::sparseOps(OpKind kind) {
  const ArtifactType* out = c.result();
  if (kind == OpKind::SparseMake) {
    const ArtifactType* coords = c.operand("coords");
    const ArtifactType* features = c.operand("features");
    if (coords && coords->isRankedTensor() && !(coords->tensorRank() == 2 && coords->shape[1] == 4))
      c.error("coords must have shape (?, 4)");
    if (features && features->isRankedTensor() && features->tensorRank() != 2)
      c.error("features must have rank 2");
    if (coords && features && coords->isRankedTensor() && features->isRankedTensor() &&
        coords->tensorRank() >= 1 && features->tensorRank() >= 1 && coords->shape[0] >= 0 &&
        features->shape[0] >= 0 && coords->shape[0] != features->shape[0])
      c.error("coords/features capacities must match");
    const ArtifactType* active = c.operand("active");
    if (active && active->isRankedTensor() && active->shape != std::vector<std::int64_t>{1})
      c.error("active must have shape (1)");
    triPositive("stride");
    const ArtifactAttrValue* order = c.attr("coord_order");
    if (order && out && out->isSparse() && order->text != out->coord)
      c.error("coord_order must match sparse result type");
    if (features && features->isRankedTensor() && out && out->isSparse() &&
        features->elementType != out->dtype)
      c.error("feature dtype must match sparse result dtype");
    srResult();
  } else if (kind == OpKind::SparseDecompose) {
    srOperand("input");
  } else if (kind == OpKind::SparseWithFeatures) {
    srOperand("input");
    const ArtifactType* in = c.operand("input");
    if (in && out && in->isSparse() && out->isSparse() &&
        !(in->rank == out->rank && in->coord == out->coord && in->feature == out->feature))
      c.error("result sparse support must match input support");
    const ArtifactType* features = c.operand("features");
    if (features && features->isRankedTensor()) {
      if (features->tensorRank() != 2) c.error("replacement features must have rank 2");
      if (out && out->isSparse() && features->elementType != out->dtype)
        c.error("replacement feature dtype must match result dtype");
    }
  } else if (kind == OpKind::SparseReindex) {
    srOperand("input");
    srOperand("target");
    srResult();
    const ArtifactType* in = c.operand("input");
    const ArtifactType* target = c.operand("target");
    if (in && target && in->isSparse() && target->isSparse() &&
        !(in->coord == target->coord && in->feature == target->feature))
      c.error("input and target must share sparse conventions");
    if (in && out && in->isSparse() && out->isSparse() && in->dtype != out->dtype)
      c.error("result dtype must match input feature dtype");
  } else if (kind == OpKind::SparseBinary) {
    srOperand("lhs");
    srOperand("rhs");
    srResult();
    const ArtifactType* lhs = c.operand("lhs");
    const ArtifactType* rhs = c.operand("rhs");
    if (lhs && rhs && lhs->isSparse() && rhs->isSparse() &&
        !(lhs->coord == rhs->coord && lhs->feature == rhs->feature))
      c.error("sparse binary operands must share sparse conventions");
    enumValue("op", "binary_op", "binary op must be add, sub, mul, maximum, or minimum");
    enumValue("join", "join", "join must be inner, left, right, or outer");
  } else if (kind == OpKind::SparseCat) {
    srOperand("lhs");
    srOperand("rhs");
    srResult();
    const ArtifactType* lhs = c.operand("lhs");
    const ArtifactType* rhs = c.operand("rhs");
    auto same = [](const ArtifactType* a, const ArtifactType* b) {
      return a->coord == b->coord && a->feature == b->feature && a->dtype == b->dtype;
    };
    if (lhs && rhs && lhs->isSparse() && rhs->isSparse() && !same(lhs, rhs))
      c.error("sparse cat operands must share sparse conventions and dtype");
    if (lhs && out && lhs->isSparse() && out->isSparse() && !same(lhs, out))
      c.error("sparse cat result must preserve sparse conventions and dtype");
    enumValue("join", "join", "join must be inner, left, right, or outer");
  } else if (kind == OpKind::Pool3d) {
    srOperand("input");
    srResult();
    enumValue("mode", "pool_mode", "pool mode must be sum, max, or avg");
    ct();
  } else if (kind == OpKind::PoolTranspose3d) {
    srOperand("input");
    srResult();
    srOperand("target");
    ct();
  } else if (kind == OpKind::TrilinearUpsample3d) {
    srOperand("input");
    srResult();
    srOperand("target");
    triPositive("stride");
  } else if (kind == OpKind::GlobalPool) {
    srOperand("input");
    enumValue("mode", "pool_mode", "pool mode must be sum, max, or avg");
    if (const ArtifactAttrValue* b = c.attr("batch_size"))
      if (b->integer < -1) c.error("batch_size must be -1 or non-negative");
    const ArtifactType* in = c.operand("input");
    if (out && out->isRankedTensor()) {
      if (out->tensorRank() != 2) c.error("result must have rank 2");
      if (in && in->isSparse() && out->elementType != in->dtype)
        c.error("result dtype must match sparse feature dtype");
    }
  }
}

void Rules::pointOps(OpKind kind) {
  const ArtifactType* out = c.result();
  if (kind == OpKind::Voxelize) {
    const ArtifactType* points = c.operand("points");
    const ArtifactType* features = c.operand("features");
    r2f("points", points, 3);
    r2f("features", features);
    if (points && features && points->isRankedTensor() && features->isRankedTensor() &&
        points->tensorRank() == 2 && features->tensorRank() == 2 && points->shape[0] >= 0 &&
        features->shape[0] >= 0 && points->shape[0] != features->shape[0])
      c.error("points/features row counts must match");
    i32Vector("batch_indices", true);
    i32Active("active_rows");
    f3("voxel_size", true);
    f3("origin", false);
    enumValue("reduction", "voxel_reduction", "voxel reduction must be sum or mean");
    triPositive("stride");
    if (features && features->isRankedTensor() && out && out->isSparse() &&
        out->dtype != features->elementType)
      c.error("result dtype must match feature dtype");
    srResult();
  } else if (kind == OpKind::Devoxelize) {
    r2f("points", c.operand("points"), 3);
    srOperand("voxels");
    i32Vector("batch_indices", true);
    i32Active("point_active_rows");
    f3("voxel_size", true);
    f3("origin", false);
    enumValue("interpolation", "point_interpolation", "point interpolation must be nearest or linear");
    const ArtifactType* voxels = c.operand("voxels");
    if (out && out->isRankedTensor()) {
      if (out->tensorRank() != 2) c.error("result must have rank 2");
      if (voxels && voxels->isSparse() && out->elementType != voxels->dtype)
        c.error("result dtype must match voxel feature dtype");
    }
  }
}

void Rules::featureOps(OpKind kind) {
  if (kind == OpKind::Linear) {
    fp();
    wf("weight", kLinearWeight);
    ob();
  } else if (kind == OpKind::EmbeddingLookup) {
    i32Vector("input", false);
    r2f("result", c.result());
    wf("weight", kEmbeddingWeight);
  } else if (kind == OpKind::Elementwise) {
    if (fp() && c.operand("input")->elementType != "f32") c.error("input and result must use f32 elements");
    if (const ArtifactAttrValue* kind = c.attr("kind"))
      if (kind->text != "exp" && kind->text != "round") c.error("kind must be exp or round");
  } else if (kind == OpKind::Softmax) {
    if (fp() && c.operand("input")->elementType != "f32") c.error("input and result must use f32 elements");
    if (const ArtifactAttrValue* axis = c.attr("axis"))
      if (axis->integer != -1 && axis->integer != 1) c.error("axis must select the final feature dimension");
  } else if (kind == OpKind::Activation) {
    fp();
    enumValue("kind", "activation",
              "activation must be relu, sigmoid, gelu, silu, leaky_relu, tanh, or softplus");
    enumValue("approximate", "gelu_approx", "GELU approximation must be none, precise, tanh, or fast");
    if (const ArtifactAttrValue* alpha = c.attr("alpha"))
      if (!(alpha->number >= 0)) c.error("alpha must be non-negative");
    if (const ArtifactAttrValue* beta = c.attr("beta"))
      if (!(beta->number > 0)) c.error("beta must be positive");
  } else if (kind == OpKind::BatchNorm) {
    fp();
    wf("scale", kChannelWeight);
    wf("bias", kBiasWeight);
    wf("mean", kChannelWeight);
    wf("var", kChannelWeight);
    eps();
  } else if (kind == OpKind::LayerNorm) {
    fp();
    wf("scale", kChannelWeight);
    wf("bias", kBiasWeight);
    eps();
  } else if (kind == OpKind::RmsNorm) {
    fp();
    wf("scale", kChannelWeight);
    eps();
  }
}

// A triple attribute whose rule holds (three values, each at least `least`); nullptr otherwise,
// since that rule reports it.
const I64Array* wellFormedTriple(const OpContext& c, const char* name, std::int64_t least) {
  const ArtifactAttrValue* v = c.attr(name);
  if (!v || v->i64s.size() != 3) return nullptr;
  for (std::int64_t x : v->i64s)
    if (x < least) return nullptr;
  return &v->i64s;
}

} // namespace

void verifyCoordinateExtents(OpContext& ctx) {
  static const char* const axes[] = {"x", "y", "z"};
  const std::string beyond =
      " exceeds " + std::to_string(kMaxCoordinateExtent) + ", the range of i32 coordinates";
  const I64Array* kernel = wellFormedTriple(ctx, "kernel_size", 1);
  const I64Array* dilation = wellFormedTriple(ctx, "dilation", 1);
  for (int a = 0; kernel && a < 3; ++a) {
    const std::int64_t k = (*kernel)[a];
    if (!dilation) {
      if (k > kMaxCoordinateExtent)
        ctx.error(std::string("kernel_size on axis ") + axes[a] + " (" + std::to_string(k) + ")" + beyond);
      continue;
    }
    const std::int64_t d = (*dilation)[a];
    std::int64_t reach = 0;
    if (__builtin_mul_overflow(k, d, &reach) || reach > kMaxCoordinateExtent)
      ctx.error(std::string("kernel_size × dilation on axis ") + axes[a] + " (" + std::to_string(k) + " × " +
                std::to_string(d) + ")" + beyond);
  }
  for (const char* name : {"stride", "padding"}) {
    const I64Array* t = wellFormedTriple(ctx, name, name[0] == 's' ? 1 : 0);
    for (int a = 0; t && a < 3; ++a)
      if ((*t)[a] > kMaxCoordinateExtent)
        ctx.error(std::string(name) + " on axis " + axes[a] + " (" + std::to_string((*t)[a]) + ")" + beyond);
  }
}

void verifyOpRules(OpContext& ctx) {
  Rules r(ctx);
  const OpKind kind = ctx.op().kind;
  if (kind == OpKind::Weight) {
    r.weight();
  } else if (kind == OpKind::Conv3d || kind == OpKind::ConvTranspose3d) {
    r.srOperand("input");
    r.srResult();
    r.wf("weight", kConvWeight);
    r.ob();
    r.ct();
    r.acc();
  } else if (kind == OpKind::SubmConv3d || kind == OpKind::NormalizedSubmConv3d) {
    r.subm(kind == OpKind::NormalizedSubmConv3d);
  } else if (kind == OpKind::TargetConv3d || kind == OpKind::TargetConvTranspose3d) {
    r.tc(false);
    r.acc();
  } else if (kind == OpKind::NormalizedConvTranspose3d) {
    r.srOperand("input");
    r.srResult();
    r.wf("weight", kConvWeight);
    r.ob();
    r.ct();
    r.eps();
    r.acc();
  } else if (kind == OpKind::TargetNormalizedConvTranspose3d) {
    r.tc(true);
    r.acc();
  } else if (kind == OpKind::GenerativeConvTranspose3d ||
             kind == OpKind::NormalizedGenerativeConvTranspose3d) {
    r.generative(kind == OpKind::NormalizedGenerativeConvTranspose3d);
  } else if (isPointOp(kind)) {
    r.pointOps(kind);
  } else if (isDenseOp(kind) || isNorm(kind)) {
    r.featureOps(kind);
  } else {
    r.sparseOps(kind);
  }
}

} // namespace lattice::detail
