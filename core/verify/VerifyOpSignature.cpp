// ODS-level checks of lattice ops (validation spec sec. 4): operand and result counts, operand
// and result type classes (sparse tensor, weight, ranked tensor, ranked i32 tensor), required
// attributes and attribute kinds; plus the runtime-plan rules that add to them: unknown
// attributes (R12) and `coord_order` values (R13). Custom per-op rules are in VerifyOpRules.cpp.

#include "verify/VerifierSupport.h"

#include <algorithm>

namespace lattice::detail {
namespace {

// Operands and results that ODS constrains to i32 elements (validation spec sec. 4).
bool isI32Operand(OpKind op, std::string_view operand) {
  if (op == OpKind::SparseMake) return operand == "coords" || operand == "active";
  if (op == OpKind::Voxelize) return operand == "batch_indices" || operand == "active_rows";
  if (op == OpKind::Devoxelize) return operand == "batch_indices" || operand == "point_active_rows";
  return false;
}

bool isI32Result(OpKind op, std::size_t index) {
  return op == OpKind::SparseDecompose && (index == 0 || index == 2);
}

// Empty when `type` satisfies the class, else ODS's description of the class.
std::string classMismatch(const ArtifactType& type, SchemaValueType cls, bool i32) {
  switch (cls) {
  case SchemaValueType::SparseTensor:
    return type.isSparse() ? "" : "lattice sparse tensor";
  case SchemaValueType::Weight:
    return type.isWeight() ? "" : "lattice weight";
  case SchemaValueType::Tensor:
    if (i32)
      return type.isRankedTensor() && type.elementType == "i32"
                 ? ""
                 : "ranked tensor of 32-bit signless integer values";
    return type.isRankedTensor() ? "" : "ranked tensor of any type values";
  case SchemaValueType::Symbol:
    return "";
  }
  return "";
}

std::size_t requiredOperandCount(const SchemaOp& schema) {
  std::size_t n = 0;
  for (const SchemaOperand& o : schema.operands)
    if (o.kind == SchemaOperandKind::Ssa && !o.optional) ++n;
  return n;
}

std::size_t ssaOperandCount(const SchemaOp& schema) {
  std::size_t n = 0;
  for (const SchemaOperand& o : schema.operands)
    if (o.kind == SchemaOperandKind::Ssa) ++n;
  return n;
}

// Attributes a custom verifier rejects by name (reported there, not as unknown attributes).
bool rejectedByCustomVerifier(OpKind op, std::string_view attr) {
  if (op == OpKind::SubmConv3d || op == OpKind::NormalizedSubmConv3d)
    return attr == "stride" || attr == "padding";
  if (op == OpKind::GenerativeConvTranspose3d || op == OpKind::NormalizedGenerativeConvTranspose3d)
    return attr == "padding" || attr == "dilation";
  return false;
}

} // namespace

OpContext::OpContext(const ArtifactOp& op, DiagnosticSink& sink) : m_op(op), m_sink(sink) {
  const std::size_t n = op.operands.size();
  m_resolved = op.schema && n >= requiredOperandCount(*op.schema) && n <= ssaOperandCount(*op.schema) &&
               op.operandTypes.size() == n;
}

const ArtifactType* OpContext::operand(std::string_view name) const {
  if (!m_resolved) return nullptr;
  std::size_t index = 0;
  for (const SchemaOperand& o : m_op.schema->operands) {
    if (o.kind != SchemaOperandKind::Ssa) continue;
    if (o.name == name) return index < m_op.operandTypes.size() ? &m_op.operandTypes[index] : nullptr;
    ++index;
  }
  return nullptr;
}

const ArtifactType* OpContext::result(std::size_t index) const {
  if (!m_op.schema || m_op.results.size() != m_op.schema->results.size() || index >= m_op.results.size())
    return nullptr;
  return &m_op.results[index].type;
}

void OpContext::error(const std::string& message) {
  if (std::find(m_reported.begin(), m_reported.end(), message) != m_reported.end()) return;
  m_reported.push_back(message);
  m_sink.error(m_op.loc, "'" + m_op.name + "' op " + message);
}

const ArtifactAttrValue* OpContext::attr(std::string_view name) const {
  const SchemaOpAttribute* schemaAttr = m_op.schema ? m_op.schema->findAttribute(name) : nullptr;
  const ArtifactAttribute* a = m_op.attribute(name);
  if (!schemaAttr || !a || !attrMatchesKind(a->value, schemaAttr->kind)) return nullptr;
  return &a->value;
}

bool attrMatchesKind(const ArtifactAttrValue& v, SchemaAttrKind kind) {
  using K = ArtifactAttrValue::Kind;
  switch (kind) {
  case SchemaAttrKind::I64Triple:
    return v.kind == K::I64Array && v.type == "i64";
  case SchemaAttrKind::F64Triple:
    return v.kind == K::F64Array && v.type == "f64";
  case SchemaAttrKind::I64:
    return v.isI64();
  case SchemaAttrKind::F32:
    return v.isF32();
  case SchemaAttrKind::Str:
    return v.kind == K::String;
  case SchemaAttrKind::Packing:
    return v.kind == K::Packing;
  default:
    return v.kind == K::Enum && v.mnemonic == schemaName(kind);
  }
}

std::string attrKindDescription(SchemaAttrKind kind) {
  switch (kind) {
  case SchemaAttrKind::I64Triple:
    return "i64 dense array attribute";
  case SchemaAttrKind::F64Triple:
    return "f64 dense array attribute";
  case SchemaAttrKind::I64:
    return "64-bit signless integer attribute";
  case SchemaAttrKind::F32:
    return "32-bit float attribute";
  case SchemaAttrKind::Str:
    return "string attribute";
  default:
    return "#lattice." + std::string(schemaName(kind)) + " attribute";
  }
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return out + "]";
}

void verifyOpSignature(OpContext& ctx) {
  const ArtifactOp& op = ctx.op();
  const SchemaOp& schema = *op.schema;
  const OpKind kind = op.kind;

  // In the order of ODS's generated verifier: operand and result counts (MLIR's parser checks
  // these), required attributes missing (by name), attribute constraints (in schema order),
  // operand types, result types.
  const std::size_t required = requiredOperandCount(schema), total = ssaOperandCount(schema);
  const bool operandCountOk = op.operands.size() >= required && op.operands.size() <= total;
  if (!operandCountOk)
    ctx.error(required == total ? "requires " + std::to_string(total) + " operands, but found " +
                                      std::to_string(op.operands.size())
                                : "requires " + std::to_string(required) + " to " + std::to_string(total) +
                                      " operands, but found " + std::to_string(op.operands.size()));
  const bool resultCountOk = op.results.size() == schema.results.size();
  if (!resultCountOk)
    ctx.error("requires " + std::to_string(schema.results.size()) + " results, but found " +
              std::to_string(op.results.size()));

  std::vector<std::string> missing;
  if (schema.assembly == SchemaAssembly::Weight && (!op.hasSymbol || op.symbol.empty()))
    missing.push_back("sym_name");
  for (const SchemaOpAttribute& a : schema.attributes)
    if (!op.attribute(a.name)) missing.push_back(a.name);
  std::sort(missing.begin(), missing.end());
  for (const std::string& m : missing)
    ctx.error("requires attribute '" + m + "'");
  for (const SchemaOpAttribute& a : schema.attributes) {
    const ArtifactAttribute* present = op.attribute(a.name);
    if (present && !attrMatchesKind(present->value, a.kind))
      ctx.error("attribute '" + a.name + "' failed to satisfy constraint: " + attrKindDescription(a.kind));
  }

  if (operandCountOk) {
    std::size_t index = 0;
    for (const SchemaOperand& o : schema.operands) {
      if (o.kind != SchemaOperandKind::Ssa) continue;
      if (index >= op.operandTypes.size()) break;
      const ArtifactType& type = op.operandTypes[index];
      const std::string expected = classMismatch(type, o.type, isI32Operand(kind, o.name));
      if (!expected.empty())
        ctx.error("operand #" + std::to_string(index) + " must be " + expected + ", but got '" + type.str() +
                  "'");
      ++index;
    }
  }
  if (resultCountOk) {
    for (std::size_t i = 0; i < schema.results.size(); ++i) {
      const std::string expected =
          classMismatch(op.results[i].type, schema.results[i].type, isI32Result(kind, i));
      if (!expected.empty())
        ctx.error("result #" + std::to_string(i) + " must be " + expected + ", but got '" +
                  op.results[i].type.str() + "'");
    }
  }

  // What follows only the runtime plan rejects; the reference's verifiers accept it.
  StageScope stage(ctx.sink(), ReferenceStage::Beyond);
  // R12: attributes outside the schema (the runtime plan rejects them).
  std::vector<std::string> unknown;
  for (const ArtifactAttribute& a : op.attributes)
    if (!schema.findAttribute(a.name) && a.name != "sym_name" && !rejectedByCustomVerifier(kind, a.name))
      unknown.push_back(a.name);
  if (!unknown.empty()) {
    std::sort(unknown.begin(), unknown.end());
    std::string list;
    for (const std::string& u : unknown)
      list += (list.empty() ? "" : ", ") + printableForMessage(u);
    ctx.error("has unknown attrs: " + list);
  }

  // R13: enum values the custom verifiers leave unchecked (only coord_order).
  if (const ArtifactAttrValue* order = ctx.attr("coord_order")) {
    const SchemaAttrDef* def = dialectSchema().findAttr("coord");
    if (std::find(def->values.begin(), def->values.end(), order->text) == def->values.end()) {
      std::string values;
      for (const std::string& v : def->values)
        values += (values.empty() ? "" : ", ") + v;
      ctx.error("coord_order must be one of: " + values);
    }
  }
}

} // namespace lattice::detail
