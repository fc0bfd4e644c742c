// buildRuntimePlan: the importer's structured plan and the RuntimePlan freeze checks R1-R17
// (lattice-artifact-validation.md sec. 7). The graph has passed the verifier, which already
// enforces most of these; the plan checks them again in the reference's words because it is the
// contract the executor relies on (an unverified graph handed to it directly still fails
// cleanly). Value labels in messages are SSA names (`%conv1`), which is what a user can find in
// graph.mlir, where the reference prints its internal `v{n}` labels.

#include "runtime/RuntimePlan.h"

#include "dialect/DialectSchema.h"
#include "mlir/Diagnostic.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace lattice::runtime {

namespace {

const std::set<std::string> kInputRoles = {"tensor", "sparse_coords", "sparse_features", "sparse_active"};
const std::set<std::string> kOutputRoles = {"tensor", "sparse_tensor"};

struct PlanError {
  SourceLoc loc;
  std::string message;
};

std::vector<std::string> stringArray(const ArtifactGraph& g, const char* name) {
  std::vector<std::string> out;
  if (const ArtifactAttribute* a = g.moduleAttribute(name))
    for (const ArtifactAttrValue& e : a->value.elements) out.push_back(e.text);
  return out;
}

std::string joinSorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", '" : "'") + names[i] + "'";
  return out + "]";
}

// R13: the value kind of one attribute against its schema kind; "" when it fits.
std::string attrKindProblem(const std::string& where, const SchemaOpAttribute& schemaAttr,
                            const ArtifactAttrValue& v) {
  switch (schemaAttr.kind) {
  case SchemaAttrKind::I64Triple:
    if (v.kind != ArtifactAttrValue::Kind::I64Array || v.i64s.size() != 3) return where + " must contain 3 values.";
    return "";
  case SchemaAttrKind::F64Triple:
    if ((v.kind != ArtifactAttrValue::Kind::F64Array || v.f64s.size() != 3) &&
        (v.kind != ArtifactAttrValue::Kind::I64Array || v.i64s.size() != 3))
      return where + " must contain 3 values.";
    return "";
  case SchemaAttrKind::I64:
    return v.kind == ArtifactAttrValue::Kind::Integer ? "" : where + " must be an integer.";
  case SchemaAttrKind::F32:
    return v.kind == ArtifactAttrValue::Kind::Float || v.kind == ArtifactAttrValue::Kind::Integer
               ? ""
               : where + " must be numeric.";
  case SchemaAttrKind::Str:
    return v.kind == ArtifactAttrValue::Kind::String ? "" : where + " must be a string.";
  case SchemaAttrKind::Packing: {
    if (v.kind != ArtifactAttrValue::Kind::Packing) return where + " must be a packing.";
    const PackingAttr& p = v.packing; // R14
    if (p.kind != "dense" && p.kind != "int4" && p.kind != "int8") return where + ".kind must be dense, int4, or int8.";
    if (p.kind == "dense") {
      if (!p.scaleDtype.empty() || !p.mode.empty()) return where + " has unknown keys";
      return "";
    }
    if (p.groupSize <= 0) return where + ".group_size must be a positive integer.";
    if (p.scaleDtype != "f16" && p.scaleDtype != "f32") return where + ".scale_dtype must be f16 or f32.";
    if (p.mode != "affine") return where + ".mode must be affine.";
    return "";
  }
  default: {
    const SchemaAttrDef* def = dialectSchema().findAttr(schemaName(schemaAttr.kind));
    if (v.kind != ArtifactAttrValue::Kind::Enum || !def ||
        std::find(def->values.begin(), def->values.end(), v.text) == def->values.end()) {
      std::string values;
      if (def)
        for (const std::string& s : def->values) values += (values.empty() ? "" : ", ") + s;
      return where + " must be one of: " + values;
    }
    return "";
  }
  }
}

class PlanBuilder {
public:
  explicit PlanBuilder(std::shared_ptr<const ArtifactGraph> graph) { m_plan.graph = std::move(graph); }

  Expected<RuntimePlan> build() {
    const ArtifactGraph& g = *m_plan.graph;
    if (const PlanError* e = check()) {
      Diagnostic d{g.fileName, e->loc, Severity::Error, e->message};
      Error error = makeError(d.str());
      error.line = e->loc.line;
      return error;
    }
    return std::move(m_plan);
  }

private:
  RuntimePlan m_plan;
  PlanError m_error;

  const PlanError* fail(SourceLoc loc, std::string message) {
    m_error = {loc, std::move(message)};
    return &m_error;
  }

  int newSlot(const ArtifactValueDef& def) {
    const int slot = static_cast<int>(m_plan.slotNames.size());
    m_plan.slotNames.push_back(def.name);
    m_plan.slotTypes.push_back(&def.type);
    m_plan.producer.push_back(-1);
    m_plan.lastUse.push_back(-1);
    m_plan.slotIndex.emplace(def.name, slot);
    return slot;
  }

  const PlanError* check() {
    const ArtifactGraph& g = *m_plan.graph;
    // R1-R3: the module header.
    const ArtifactAttribute* version = g.moduleAttribute("lattice.ir_version");
    if (!version || version->value.kind != ArtifactAttrValue::Kind::Integer || version->value.integer != 2)
      return fail(version ? version->loc : g.moduleLoc,
                  "unsupported lattice artifact runtime plan ir_version: " +
                      (version ? version->value.str() : std::string("None")) + " (expected 2).");
    const ArtifactAttribute* digest = g.moduleAttribute("lattice.schema_digest");
    if (!digest || digest->value.text != kDialectSchemaDigest)
      return fail(digest ? digest->loc : g.moduleLoc,
                  "unsupported lattice artifact runtime plan schema_digest: " +
                      (digest ? digest->value.str() : std::string("None")));
    const ArtifactAttribute* weightFile = g.moduleAttribute("lattice.weight_file");
    if (!weightFile || weightFile->value.text != "weights.safetensors")
      return fail(weightFile ? weightFile->loc : g.moduleLoc,
                  "unsupported lattice artifact runtime plan weight_file: " +
                      (weightFile ? weightFile->value.str() : std::string("None")));
    // R4-R5: the entry.
    const ArtifactFunction* f = g.entry();
    if (!f || f->name != "forward")
      return fail(f ? f->nameLoc : g.moduleLoc, "lattice artifact runtime plan entry must be forward.");
    if (f->ret.operands.empty()) return fail(f->ret.loc, "lattice artifact runtime plan must return values.");
    if (const PlanError* e = checkArguments(*f)) return e;
    for (const ArtifactOp& op : f->ops)
      if (const PlanError* e = checkOp(op)) return e;
    return checkOutputs(*f);
  }

  // R6: argument labels and ABI names.
  const PlanError* checkArguments(const ArtifactFunction& f) {
    const ArtifactGraph& g = *m_plan.graph;
    const std::vector<std::string> names = stringArray(g, "lattice.input_names");
    const std::vector<std::string> roles = stringArray(g, "lattice.input_roles");
    std::unordered_set<std::string> abiNames;
    for (std::size_t i = 0; i < f.arguments.size(); ++i) {
      const ArtifactValueDef& def = f.arguments[i];
      PlanArg arg;
      arg.label = "arg" + std::to_string(i);
      arg.abiName = i < names.size() ? names[i] : "";
      arg.role = i < roles.size() ? roles[i] : "";
      arg.def = &def;
      if (def.name.empty()) return fail(def.loc, "argument value label must not be empty.");
      if (m_plan.slotIndex.count(def.name)) return fail(def.loc, "duplicate runtime value label: %" + def.name);
      if (arg.abiName.empty()) return fail(def.loc, "argument ABI name must not be empty.");
      if (!abiNames.insert(arg.abiName).second)
        return fail(def.loc, "duplicate artifact input ABI name: " + arg.abiName);
      if (!kInputRoles.count(arg.role)) return fail(def.loc, "unsupported artifact input ABI role: " + arg.role + ".");
      arg.slot = newSlot(def);
      m_plan.args.push_back(std::move(arg));
    }
    return nullptr;
  }

  // R7-R16 for one op.
  const PlanError* checkOp(const ArtifactOp& op) {
    const std::string& name = op.name;
    if (name.rfind("lattice.", 0) != 0) return fail(op.nameLoc, "operation name must use 'lattice' namespace: " + name);
    // R7 reads the name, not the reader's kind: the plan holds for a graph edited after parsing.
    const SchemaOp* schema = dialectSchema().findOp(std::string_view(name).substr(8));
    if (!schema) return fail(op.nameLoc, "unknown lattice operation: " + name);
    if (op.operandTypes.size() != op.operands.size())
      return fail(op.loc, name + " operand_types must match operands.");
    // R9: SSA operands within [required, total].
    std::size_t minOps = 0, maxOps = 0;
    for (const SchemaOperand& o : schema->operands) {
      if (o.kind != SchemaOperandKind::Ssa) continue;
      ++maxOps;
      if (!o.optional) ++minOps;
    }
    if (op.operands.size() < minOps || op.operands.size() > maxOps)
      return fail(op.loc, name + " expects " + std::to_string(minOps) +
                              (maxOps != minOps ? ".." + std::to_string(maxOps) : std::string()) +
                              " SSA operands, got " + std::to_string(op.operands.size()) + ".");
    if (op.results.size() != schema->results.size())
      return fail(op.loc, name + " expects " + std::to_string(schema->results.size()) + " results, got " +
                              std::to_string(op.results.size()) + ".");
    // R11-R13.
    std::vector<std::string> missing, unknown;
    for (const SchemaOpAttribute& a : schema->attributes)
      if (a.required && !op.attribute(a.name)) missing.push_back(a.name);
    if (!missing.empty()) return fail(op.loc, name + " missing required attrs: " + joinSorted(missing) + ".");
    for (const ArtifactAttribute& a : op.attributes)
      if (!schema->findAttribute(a.name) && a.name != "sym_name") unknown.push_back(a.name);
    if (!unknown.empty()) return fail(op.loc, name + " has unknown attrs: " + joinSorted(unknown) + ".");
    for (const ArtifactAttribute& a : op.attributes) {
      const SchemaOpAttribute* s = schema->findAttribute(a.name);
      if (!s) continue;
      const std::string problem = attrKindProblem(name + "." + a.name, *s, a.value);
      if (!problem.empty()) return fail(a.loc, problem);
    }
    // R15.
    if (isConv(schema->kind)) {
      const ArtifactAttribute* acc = op.attribute("accumulation");
      if (!acc || acc->value.text != "canonical_f32")
        return fail(acc ? acc->loc : op.loc, name + ".accumulation must be canonical_f32 for IR v2.");
    }
    // R16: dataflow.
    PlanOp planOp;
    planOp.op = &op;
    planOp.kind = schema->kind;
    const int index = static_cast<int>(m_plan.ops.size());
    for (const ArtifactValueUse& use : op.operands) {
      const auto it = m_plan.slotIndex.find(use.name);
      if (it == m_plan.slotIndex.end()) return fail(use.loc, name + " uses undefined value: %" + use.name);
      planOp.operands.push_back(it->second);
      m_plan.lastUse[it->second] = index;
    }
    for (const ArtifactValueDef& def : op.results) {
      if (def.name.empty()) return fail(def.loc, "argument value label must not be empty.");
      if (m_plan.slotIndex.count(def.name)) return fail(def.loc, "duplicate runtime value label: %" + def.name);
      const int slot = newSlot(def);
      m_plan.producer[slot] = index;
      planOp.results.push_back(slot);
    }
    m_plan.ops.push_back(std::move(planOp));
    return nullptr;
  }

  // R16 (returns) and R17.
  const PlanError* checkOutputs(const ArtifactFunction& f) {
    const ArtifactGraph& g = *m_plan.graph;
    const std::vector<std::string> names = stringArray(g, "lattice.output_names");
    const std::vector<std::string> roles = stringArray(g, "lattice.output_roles");
    if (names.size() != f.ret.operands.size() || roles.size() != f.ret.operands.size())
      return fail(f.ret.loc, "lattice artifact runtime plan outputs must match returns.");
    std::unordered_set<std::string> abiNames;
    for (std::size_t i = 0; i < f.ret.operands.size(); ++i) {
      const ArtifactValueUse& use = f.ret.operands[i];
      const auto it = m_plan.slotIndex.find(use.name);
      if (it == m_plan.slotIndex.end()) return fail(use.loc, "return uses undefined value: %" + use.name);
      if (names[i].empty()) return fail(f.ret.loc, "output ABI name must not be empty.");
      if (!abiNames.insert(names[i]).second) return fail(f.ret.loc, "duplicate artifact output ABI name: " + names[i]);
      if (!kOutputRoles.count(roles[i])) return fail(f.ret.loc, "unsupported artifact output ABI role: " + roles[i] + ".");
      m_plan.lastUse[it->second] = static_cast<int>(m_plan.ops.size());
      m_plan.outputs.push_back({names[i], roles[i], it->second, m_plan.slotTypes[it->second]});
    }
    return nullptr;
  }
};

[[noreturn]] void missingAttr(const PlanOp& op, std::string_view name, const char* what) {
  throw Exception{"attribute '" + std::string(name) + "' of " + op.op->name + " is missing or not " + what};
}

} // namespace

const std::string& PlanOp::name() const {
  static const std::string empty;
  if (!op->results.empty()) return op->results.front().name;
  return op->hasSymbol ? op->symbol : empty;
}

const ArtifactAttrValue* PlanOp::attr(std::string_view name) const {
  const ArtifactAttribute* a = op->attribute(name);
  return a ? &a->value : nullptr;
}

std::array<std::int64_t, 3> PlanOp::i64Triple(std::string_view name) const {
  const ArtifactAttrValue* v = attr(name);
  if (!v || v->kind != ArtifactAttrValue::Kind::I64Array || v->i64s.size() != 3)
    missingAttr(*this, name, "3 integers");
  return {v->i64s[0], v->i64s[1], v->i64s[2]};
}

std::array<std::int64_t, 3> PlanOp::i64TripleOr(std::string_view name, std::array<std::int64_t, 3> fallback) const {
  return attr(name) ? i64Triple(name) : fallback;
}

std::array<double, 3> PlanOp::f64Triple(std::string_view name) const {
  const ArtifactAttrValue* v = attr(name);
  if (v && v->kind == ArtifactAttrValue::Kind::F64Array && v->f64s.size() == 3) return {v->f64s[0], v->f64s[1], v->f64s[2]};
  if (v && v->kind == ArtifactAttrValue::Kind::I64Array && v->i64s.size() == 3)
    return {double(v->i64s[0]), double(v->i64s[1]), double(v->i64s[2])};
  missingAttr(*this, name, "3 numbers");
}

std::int64_t PlanOp::i64(std::string_view name) const {
  const ArtifactAttrValue* v = attr(name);
  if (!v || v->kind != ArtifactAttrValue::Kind::Integer) missingAttr(*this, name, "an integer");
  return v->integer;
}

double PlanOp::f32(std::string_view name) const {
  const ArtifactAttrValue* v = attr(name);
  if (v && v->kind == ArtifactAttrValue::Kind::Float) return v->number;
  if (v && v->kind == ArtifactAttrValue::Kind::Integer) return static_cast<double>(v->integer);
  missingAttr(*this, name, "a number");
}

const std::string& PlanOp::text(std::string_view name) const {
  const ArtifactAttrValue* v = attr(name);
  if (!v || (v->kind != ArtifactAttrValue::Kind::String && v->kind != ArtifactAttrValue::Kind::Enum))
    missingAttr(*this, name, "a string or enum");
  return v->text;
}

int RuntimePlan::slotOf(std::string_view name) const {
  if (!name.empty() && name.front() == '%') name.remove_prefix(1);
  auto it = slotIndex.find(std::string(name));
  return it == slotIndex.end() ? -1 : it->second;
}

int RuntimePlan::opIndexOf(std::string_view name) const {
  if (!name.empty() && (name.front() == '%' || name.front() == '@')) name.remove_prefix(1);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const ArtifactOp& op = *ops[i].op;
    if ((!op.results.empty() && op.results.front().name == name) || (op.hasSymbol && op.symbol == name))
      return static_cast<int>(i);
  }
  return -1;
}

std::string RuntimePlan::opError(int opIndex, const std::string& message) const {
  const PlanOp& op = ops.at(static_cast<std::size_t>(opIndex));
  Diagnostic d{graph->fileName, op.loc(), Severity::Error,
               "'" + op.op->name + "' op %" + op.name() + ": " + message};
  return d.str();
}

Expected<RuntimePlan> buildRuntimePlan(std::shared_ptr<const ArtifactGraph> graph) {
  if (!graph) return makeError("no graph");
  return PlanBuilder(std::move(graph)).build();
}

} // namespace lattice::runtime
