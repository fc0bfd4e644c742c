// The IR v2 dialect schema table (transcribed from the format spec sec. 7 and
// lattice-dialect-schema.json, in registration order) and its canonical JSON and digest
// (sec. 12). It does not validate artifacts; the writer and the verifier consult the table.

#include "dialect/DialectSchema.h"

#include "support/Sha256.h"

#include <nlohmann/json.hpp>

#include <cassert>

namespace lattice {
namespace {

using K = SchemaAttrKind;
using V = SchemaValueType;

SchemaOperand ssa(const char* name, V type, bool optional = false) {
  return {name, type, SchemaOperandKind::Ssa, optional};
}

SchemaOpAttribute attr(const char* name, K kind) {
  return {name, kind, true};
}

std::string pythonNameOf(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    if (c == '.') c = '_';
  }
  return out;
}

SchemaOp op(OpKind kind, std::vector<SchemaOperand> operands, std::vector<SchemaResult> results,
            std::vector<SchemaOpAttribute> attributes, SchemaAssembly assembly = SchemaAssembly::Functional) {
  SchemaOp out;
  out.kind = kind;
  out.name = std::string(opName(kind));
  out.pythonName = pythonNameOf(out.name);
  out.operands = std::move(operands);
  out.results = std::move(results);
  out.attributes = std::move(attributes);
  out.assembly = assembly;
  return out;
}

std::vector<SchemaResult> one(V type) {
  return {{"result", type}};
}

// The four kernel attributes shared by the strided convolution and pooling ops.
std::vector<SchemaOpAttribute> kernelAttrs() {
  return {attr("kernel_size", K::I64Triple), attr("stride", K::I64Triple), attr("padding", K::I64Triple),
          attr("dilation", K::I64Triple)};
}

std::vector<SchemaOpAttribute> concat(std::vector<SchemaOpAttribute> head,
                                      std::initializer_list<SchemaOpAttribute> tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

SchemaAttrDef enumAttr(const char* name, const char* mnemonic, std::vector<std::string> values) {
  return {name, mnemonic, {{"value", SchemaParameterKind::String}}, std::move(values)};
}

DialectSchema buildSchema() {
  DialectSchema s;
  s.nameSpace = "lattice";
  s.types = {
      {"SparseTensor",
       "sparse_tensor",
       {{"rank", SchemaParameterKind::Unsigned},
        {"coord", SchemaParameterKind::String},
        {"feature", SchemaParameterKind::String},
        {"dtype", SchemaParameterKind::Type}}},
      {"Weight", "weight", {{"family", SchemaParameterKind::String}, {"dtype", SchemaParameterKind::Type}}},
  };
  s.attrs = {
      enumAttr("Coord", "coord", {"batch_x_y_z"}),
      enumAttr("FeatureLayout", "feature_layout", {"row_channel"}),
      enumAttr("WeightLayout", "weight_layout",
               {"conv3d_o_xyz_i", "linear_o_i", "embedding_n_c", "channel_c", "bias_c"}),
      {"Packing",
       "packing",
       {{"kind", SchemaParameterKind::String},
        {"group_size", SchemaParameterKind::Unsigned},
        {"scale_dtype", SchemaParameterKind::Type},
        {"mode", SchemaParameterKind::String}},
       {"dense", "int4", "int8"}},
      enumAttr("Activation", "activation",
               {"relu", "sigmoid", "gelu", "silu", "leaky_relu", "tanh", "softplus"}),
      enumAttr("GeluApprox", "gelu_approx", {"none", "precise", "tanh", "fast"}),
      enumAttr("Join", "join", {"inner", "left", "right", "outer"}),
      enumAttr("BinaryOp", "binary_op", {"add", "sub", "mul", "maximum", "minimum"}),
      enumAttr("PoolMode", "pool_mode", {"sum", "max", "avg"}),
      enumAttr("VoxelReduction", "voxel_reduction", {"sum", "mean"}),
      enumAttr("PointInterpolation", "point_interpolation", {"nearest", "linear"}),
  };

  const SchemaOpAttribute accumulation = attr("accumulation", K::Str);
  const SchemaOpAttribute eps = attr("eps", K::F32);
  const std::vector<SchemaOperand> conv = {ssa("input", V::SparseTensor), ssa("weight", V::Weight),
                                           ssa("bias", V::Weight, true)};
  const std::vector<SchemaOperand> targetConv = {ssa("input", V::SparseTensor),
                                                 ssa("target", V::SparseTensor), ssa("weight", V::Weight),
                                                 ssa("bias", V::Weight, true)};
  const std::vector<SchemaOpAttribute> kernelDilation = {attr("kernel_size", K::I64Triple),
                                                         attr("dilation", K::I64Triple)};
  const std::vector<SchemaOpAttribute> kernelStride = {attr("kernel_size", K::I64Triple),
                                                       attr("stride", K::I64Triple)};
  const auto sparse = one(V::SparseTensor);
  const auto dense = one(V::Tensor);

  s.ops = {
      op(OpKind::Weight, {{"sym_name", V::Symbol, SchemaOperandKind::Symbol, false}}, one(V::Weight),
         {attr("storage_key", K::Str), attr("layout", K::WeightLayout), attr("packing", K::Packing)},
         SchemaAssembly::Weight),
      op(OpKind::SparseMake, {ssa("coords", V::Tensor), ssa("features", V::Tensor), ssa("active", V::Tensor)},
         sparse, {attr("stride", K::I64Triple), attr("coord_order", K::Coord)}),
      op(OpKind::SparseDecompose, {ssa("input", V::SparseTensor)},
         {{"coords", V::Tensor}, {"features", V::Tensor}, {"active", V::Tensor}}, {},
         SchemaAssembly::Decompose),
      op(OpKind::SparseWithFeatures, {ssa("input", V::SparseTensor), ssa("features", V::Tensor)}, sparse, {}),
      op(OpKind::SparseReindex, {ssa("input", V::SparseTensor), ssa("target", V::SparseTensor)}, sparse,
         {attr("fill", K::F32)}),
      op(OpKind::Conv3d, conv, sparse, concat(kernelAttrs(), {accumulation})),
      op(OpKind::SubmConv3d, conv, sparse, concat(kernelDilation, {accumulation})),
      op(OpKind::NormalizedSubmConv3d, conv, sparse, concat(kernelDilation, {eps, accumulation})),
      op(OpKind::TargetConv3d, targetConv, sparse, concat(kernelAttrs(), {accumulation})),
      op(OpKind::ConvTranspose3d, conv, sparse, concat(kernelAttrs(), {accumulation})),
      op(OpKind::TargetConvTranspose3d, targetConv, sparse, concat(kernelAttrs(), {accumulation})),
      // The two transposed normalized convs put accumulation before eps (format spec sec. 8.2).
      op(OpKind::NormalizedConvTranspose3d, conv, sparse, concat(kernelAttrs(), {accumulation, eps})),
      op(OpKind::TargetNormalizedConvTranspose3d, targetConv, sparse,
         concat(kernelAttrs(), {accumulation, eps})),
      op(OpKind::GenerativeConvTranspose3d, conv, sparse, concat(kernelStride, {accumulation})),
      op(OpKind::NormalizedGenerativeConvTranspose3d, conv, sparse,
         concat(kernelStride, {eps, accumulation})),
      op(OpKind::Pool3d, {ssa("input", V::SparseTensor)}, sparse,
         [] {
           std::vector<SchemaOpAttribute> a = kernelAttrs();
           a.insert(a.begin(), attr("mode", K::PoolMode));
           return a;
         }()),
      op(OpKind::PoolTranspose3d, {ssa("input", V::SparseTensor), ssa("target", V::SparseTensor, true)},
         sparse, kernelAttrs()),
      op(OpKind::TrilinearUpsample3d, {ssa("input", V::SparseTensor), ssa("target", V::SparseTensor, true)},
         sparse, {attr("stride", K::I64Triple)}),
      op(OpKind::GlobalPool, {ssa("input", V::SparseTensor)}, dense,
         {attr("mode", K::PoolMode), attr("batch_size", K::I64)}),
      op(OpKind::Voxelize,
         {ssa("points", V::Tensor), ssa("features", V::Tensor), ssa("batch_indices", V::Tensor),
          ssa("active_rows", V::Tensor)},
         sparse,
         {attr("voxel_size", K::F64Triple), attr("origin", K::F64Triple),
          attr("reduction", K::VoxelReduction), attr("stride", K::I64Triple)}),
      op(OpKind::Devoxelize,
         {ssa("points", V::Tensor), ssa("voxels", V::SparseTensor), ssa("batch_indices", V::Tensor),
          ssa("point_active_rows", V::Tensor)},
         dense,
         {attr("voxel_size", K::F64Triple), attr("origin", K::F64Triple),
          attr("interpolation", K::PointInterpolation)}),
      op(OpKind::Linear, {ssa("input", V::Tensor), ssa("weight", V::Weight), ssa("bias", V::Weight, true)},
         dense, {}),
      op(OpKind::EmbeddingLookup, {ssa("input", V::Tensor), ssa("weight", V::Weight)}, dense, {}),
      op(OpKind::Elementwise, {ssa("input", V::Tensor)}, dense, {attr("kind", K::Str)}),
      op(OpKind::Softmax, {ssa("input", V::Tensor)}, dense, {attr("axis", K::I64)}),
      op(OpKind::Activation, {ssa("input", V::Tensor)}, dense,
         {attr("kind", K::Activation), attr("approximate", K::GeluApprox), attr("alpha", K::F32),
          attr("beta", K::F32), attr("threshold", K::F32)}),
      op(OpKind::BatchNorm,
         {ssa("input", V::Tensor), ssa("scale", V::Weight), ssa("bias", V::Weight), ssa("mean", V::Weight),
          ssa("var", V::Weight)},
         dense, {eps}),
      op(OpKind::LayerNorm, {ssa("input", V::Tensor), ssa("scale", V::Weight), ssa("bias", V::Weight)}, dense,
         {eps}),
      op(OpKind::RmsNorm, {ssa("input", V::Tensor), ssa("scale", V::Weight)}, dense, {eps}),
      op(OpKind::SparseBinary, {ssa("lhs", V::SparseTensor), ssa("rhs", V::SparseTensor)}, sparse,
         {attr("op", K::BinaryOp), attr("join", K::Join), attr("lhs_fill", K::F32),
          attr("rhs_fill", K::F32)}),
      op(OpKind::SparseCat, {ssa("lhs", V::SparseTensor), ssa("rhs", V::SparseTensor)}, sparse,
         {attr("join", K::Join)}),
  };
  // The table lists every op of OpKind.h once, in its order (`ops[i]` is `OpKind(i)`).
  assert(s.ops.size() == kOpKindCount);
  for (std::size_t i = 0; i < s.ops.size(); ++i)
    assert(s.ops[i].kind == static_cast<OpKind>(i));
  return s;
}

nlohmann::json parametersJson(const std::vector<SchemaParameter>& parameters) {
  nlohmann::json out = nlohmann::json::array();
  for (const SchemaParameter& p : parameters)
    out.push_back({{"name", p.name}, {"kind", std::string(schemaName(p.kind))}});
  return out;
}

} // namespace

const SchemaOpAttribute* SchemaOp::findAttribute(std::string_view attrName) const {
  for (const SchemaOpAttribute& a : attributes) {
    if (a.name == attrName) return &a;
  }
  return nullptr;
}

const SchemaOp* DialectSchema::findOp(std::string_view opName) const {
  for (const SchemaOp& o : ops) {
    if (o.name == opName) return &o;
  }
  return nullptr;
}

const SchemaAttrDef* DialectSchema::findAttr(std::string_view mnemonic) const {
  for (const SchemaAttrDef& a : attrs) {
    if (a.mnemonic == mnemonic) return &a;
  }
  return nullptr;
}

const DialectSchema& dialectSchema() {
  static const DialectSchema schema = buildSchema();
  return schema;
}

std::string_view schemaName(SchemaParameterKind kind) {
  switch (kind) {
  case SchemaParameterKind::Unsigned:
    return "unsigned";
  case SchemaParameterKind::String:
    return "string";
  case SchemaParameterKind::Type:
    return "type";
  }
  return {};
}

std::string_view schemaName(SchemaValueType type) {
  switch (type) {
  case SchemaValueType::Tensor:
    return "tensor";
  case SchemaValueType::SparseTensor:
    return "sparse_tensor";
  case SchemaValueType::Weight:
    return "weight";
  case SchemaValueType::Symbol:
    return "symbol";
  }
  return {};
}

std::string_view schemaName(SchemaOperandKind kind) {
  return kind == SchemaOperandKind::Ssa ? "ssa" : "symbol";
}

std::string_view schemaName(SchemaAttrKind kind) {
  switch (kind) {
  case K::I64Triple:
    return "i64_triple";
  case K::F64Triple:
    return "f64_triple";
  case K::I64:
    return "i64";
  case K::F32:
    return "f32";
  case K::Str:
    return "str";
  case K::Coord:
    return "coord";
  case K::FeatureLayout:
    return "feature_layout";
  case K::WeightLayout:
    return "weight_layout";
  case K::Activation:
    return "activation";
  case K::GeluApprox:
    return "gelu_approx";
  case K::Join:
    return "join";
  case K::BinaryOp:
    return "binary_op";
  case K::PoolMode:
    return "pool_mode";
  case K::VoxelReduction:
    return "voxel_reduction";
  case K::PointInterpolation:
    return "point_interpolation";
  case K::Packing:
    return "packing";
  }
  return {};
}

std::string_view schemaName(SchemaAssembly assembly) {
  switch (assembly) {
  case SchemaAssembly::Functional:
    return "functional";
  case SchemaAssembly::Weight:
    return "weight";
  case SchemaAssembly::Decompose:
    return "decompose";
  }
  return {};
}

bool isEnumAttrKind(SchemaAttrKind kind) {
  switch (kind) {
  case K::Coord:
  case K::FeatureLayout:
  case K::WeightLayout:
  case K::Activation:
  case K::GeluApprox:
  case K::Join:
  case K::BinaryOp:
  case K::PoolMode:
  case K::VoxelReduction:
  case K::PointInterpolation:
    return true;
  default:
    return false;
  }
}

std::string canonicalSchemaJson() {
  // nlohmann::json objects are std::maps, so keys come out sorted by byte value at every level,
  // as Python's sort_keys does for these ASCII keys; dump() with no indent uses ',' and ':'.
  const DialectSchema& s = dialectSchema();
  nlohmann::json types = nlohmann::json::array();
  for (const SchemaTypeDef& t : s.types) {
    types.push_back(
        {{"name", t.name}, {"mnemonic", t.mnemonic}, {"parameters", parametersJson(t.parameters)}});
  }
  nlohmann::json attrs = nlohmann::json::array();
  for (const SchemaAttrDef& a : s.attrs) {
    attrs.push_back({{"name", a.name},
                     {"mnemonic", a.mnemonic},
                     {"parameters", parametersJson(a.parameters)},
                     {"values", a.values}});
  }
  nlohmann::json ops = nlohmann::json::array();
  for (const SchemaOp& o : s.ops) {
    nlohmann::json operands = nlohmann::json::array();
    for (const SchemaOperand& operand : o.operands) {
      operands.push_back({{"name", operand.name},
                          {"type", std::string(schemaName(operand.type))},
                          {"kind", std::string(schemaName(operand.kind))},
                          {"optional", operand.optional}});
    }
    nlohmann::json results = nlohmann::json::array();
    for (const SchemaResult& r : o.results)
      results.push_back({{"name", r.name}, {"type", std::string(schemaName(r.type))}});
    nlohmann::json attributes = nlohmann::json::array();
    for (const SchemaOpAttribute& a : o.attributes) {
      attributes.push_back(
          {{"name", a.name}, {"kind", std::string(schemaName(a.kind))}, {"required", a.required}});
    }
    ops.push_back({{"name", o.name},
                   {"python_name", o.pythonName},
                   {"operands", std::move(operands)},
                   {"results", std::move(results)},
                   {"attributes", std::move(attributes)},
                   {"assembly", std::string(schemaName(o.assembly))}});
  }
  const nlohmann::json root = {{"namespace", s.nameSpace},
                               {"types", std::move(types)},
                               {"attrs", std::move(attrs)},
                               {"ops", std::move(ops)}};
  return root.dump(-1, ' ', /*ensure_ascii=*/true);
}

const std::string& schemaDigest() {
  static const std::string digest = sha256Hex(canonicalSchemaJson());
  return digest;
}

} // namespace lattice
