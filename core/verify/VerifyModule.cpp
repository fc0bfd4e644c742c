// verifyArtifactGraph: the module artifact contract (validation spec sec. 6, rules M1-M17), the
// structural rules MLIR itself enforces (SSA values defined once and before use, operand types
// agreeing with their definition, `return` agreeing with the function type), and the per-op
// ODS and custom checks (VerifyOpSignature.cpp, VerifyOpRules.cpp) for every lattice op.

#include "verify/ArtifactVerifier.h"
#include "verify/VerifierSupport.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace lattice {
namespace {

using detail::DiagnosticSink;
using detail::ReferenceStage;
using detail::StageScope;

void verifyModuleScalars(const ArtifactGraph& g, DiagnosticSink& sink) {
  const std::string digest(kDialectSchemaDigest);
  // M1, M2
  const ArtifactAttribute* version = g.moduleAttribute("lattice.ir_version");
  if (!version || version->value.kind != ArtifactAttrValue::Kind::Integer)
    sink.error(version ? version->loc : g.moduleLoc,
               "lattice artifact module requires lattice.ir_version = 2");
  else if (version->value.integer != kDialectIrVersion)
    sink.error(version->loc,
               "unsupported lattice.ir_version: " + std::to_string(version->value.integer) + " (expected 2)");
  // M3, M4
  const ArtifactAttribute* schema = g.moduleAttribute("lattice.schema_digest");
  if (!schema || !schema->value.isString())
    sink.error(schema ? schema->loc : g.moduleLoc,
               "lattice artifact module requires lattice.schema_digest = \"" + digest + "\"");
  else if (schema->value.text != digest)
    sink.error(schema->loc, "unsupported lattice.schema_digest: \"" +
                                printableForMessage(schema->value.text) + "\" (expected \"" + digest + "\")");
  // M5, M6
  const ArtifactAttribute* weights = g.moduleAttribute("lattice.weight_file");
  if (!weights || !weights->value.isString())
    sink.error(weights ? weights->loc : g.moduleLoc,
               "lattice artifact module requires lattice.weight_file = \"weights.safetensors\"");
  else if (weights->value.text != "weights.safetensors")
    sink.error(weights->loc, "unsupported lattice.weight_file: \"" +
                                 printableForMessage(weights->value.text) +
                                 "\" (expected \"weights.safetensors\")");
}

// M13-M16 for one names/roles pair against `count` entries.
void verifyAbiArrays(const ArtifactGraph& g, DiagnosticSink& sink, const std::string& which,
                     std::size_t count, const std::vector<std::string>& allowedRoles) {
  const std::string namesKey = "lattice." + which + "_names";
  const std::string rolesKey = "lattice." + which + "_roles";
  auto stringArray = [&](const std::string& key) -> const ArtifactAttribute* {
    const ArtifactAttribute* a = g.moduleAttribute(key);
    const bool ok = a && a->value.kind == ArtifactAttrValue::Kind::Array &&
                    std::all_of(a->value.elements.begin(), a->value.elements.end(),
                                [](const ArtifactAttrValue& e) { return e.isString(); });
    if (!ok) {
      sink.error(a ? a->loc : g.moduleLoc, "lattice artifact module requires string array attribute " + key);
      return nullptr;
    }
    return a;
  };
  const ArtifactAttribute* names = stringArray(namesKey);
  const ArtifactAttribute* roles = stringArray(rolesKey);
  const std::string n = std::to_string(count);
  if (names && names->value.elements.size() != count) {
    sink.error(names->loc, namesKey + " must contain " + n + " entries");
    names = nullptr;
  }
  if (roles && roles->value.elements.size() != count) {
    sink.error(roles->loc, rolesKey + " must contain " + n + " entries");
    roles = nullptr;
  }
  if (names) {
    std::unordered_set<std::string> seen;
    bool reportedEmpty = false;
    for (const ArtifactAttrValue& e : names->value.elements) {
      if (e.text.empty()) {
        if (!reportedEmpty) sink.error(e.loc, namesKey + " must not contain empty names");
        reportedEmpty = true;
      } else if (!seen.insert(e.text).second) {
        sink.error(e.loc, namesKey + " contains duplicate name \"" + printableForMessage(e.text) + "\"");
      }
    }
  }
  if (roles) {
    for (const ArtifactAttrValue& e : roles->value.elements)
      if (std::find(allowedRoles.begin(), allowedRoles.end(), e.text) == allowedRoles.end())
        sink.error(e.loc, rolesKey + " contains unsupported role \"" + printableForMessage(e.text) + "\"");
  }
}

void verifyEntry(const ArtifactGraph& g, DiagnosticSink& sink) {
  if (g.functions.empty()) {
    sink.error(g.moduleLoc,
               "lattice artifact module requires exactly one func.func entry named @forward"); // M7
    return;
  }
  for (std::size_t i = 1; i < g.functions.size(); ++i)
    sink.error(g.functions[i].loc, "lattice artifact module supports exactly one func.func entry"); // M8
  const ArtifactFunction& f = g.functions.front();
  if (f.name != "forward")
    sink.error(f.nameLoc, "lattice artifact entry function must be named @forward"); // M9
  if (f.resultTypes.empty())
    sink.error(f.loc, "lattice artifact entry function must return at least one value");
  if (!f.hasBody)
    sink.error(f.loc, "lattice artifact entry function must have a body"); // M11
  else if (f.blockCount != 1)
    sink.error(f.loc, "lattice artifact entry function must contain exactly one block");
  verifyAbiArrays(g, sink, "input", f.arguments.size(),
                  {"tensor", "sparse_coords", "sparse_features", "sparse_active"});
  verifyAbiArrays(g, sink, "output", f.resultTypes.size(), {"tensor", "sparse_tensor"});
  for (const ArtifactOp& op : f.ops) // M17
    if (!op.isLattice())
      sink.error(op.loc,
                 "lattice artifact entry function may contain only lattice operations and func.return");
}

// SSA dominance within the single block, type agreement of uses, and the return.
void verifyDataflow(const ArtifactFunction& f, DiagnosticSink& sink) {
  std::unordered_map<std::string, const ArtifactType*> defined;
  auto define = [&](const ArtifactValueDef& def) {
    if (!defined.emplace(def.name, &def.type).second)
      sink.error(def.loc, "redefinition of SSA value '%" + def.name + "'");
  };
  auto use = [&](const ArtifactValueUse& u, const ArtifactType* expected) {
    const auto it = defined.find(u.name);
    if (it == defined.end()) {
      sink.error(u.loc, "use of undeclared SSA value name '%" + u.name + "'");
    } else if (expected && *it->second != *expected) {
      sink.error(u.loc, "use of value '%" + u.name + "' expects different type than prior uses: '" +
                            expected->str() + "' vs '" + it->second->str() + "'");
    }
  };
  for (const ArtifactValueDef& arg : f.arguments)
    define(arg);
  for (const ArtifactOp& op : f.ops) {
    for (std::size_t i = 0; i < op.operands.size(); ++i)
      use(op.operands[i], i < op.operandTypes.size() ? &op.operandTypes[i] : nullptr);
    for (const ArtifactValueDef& r : op.results)
      define(r);
  }
  if (!f.hasBody) return;
  for (std::size_t i = 0; i < f.ret.operands.size(); ++i)
    use(f.ret.operands[i], i < f.ret.types.size() ? &f.ret.types[i] : nullptr);
  StageScope stage(sink, ReferenceStage::Verifier); // func.return's own verifier
  if (f.ret.types.size() != f.resultTypes.size()) {
    sink.error(f.ret.loc, "'func.return' op has " + std::to_string(f.ret.types.size()) +
                              " operands, but enclosing function (@" + f.name + ") returns " +
                              std::to_string(f.resultTypes.size()));
    return;
  }
  for (std::size_t i = 0; i < f.resultTypes.size(); ++i)
    if (f.ret.types[i] != f.resultTypes[i])
      sink.error(f.ret.loc, "'func.return' op type of return operand " + std::to_string(i) + " ('" +
                                f.ret.types[i].str() + "') doesn't match function result type ('" +
                                f.resultTypes[i].str() + "') in function @" + f.name);
}

// The diagnostics in source order, so a reader sees the file top to bottom, except that the one
// the reference consumer reports first comes first: the earliest stage (parser, op verifiers,
// contract pass); within the parser and the op verifiers the first in source order (ops are
// verified in order), within the contract the first in rule order (the order they were added).
std::vector<Diagnostic> referenceOrder(std::vector<Diagnostic> out, const DiagnosticSink& sink) {
  std::vector<std::size_t> order(out.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (out[a].loc.line != out[b].loc.line) return out[a].loc.line < out[b].loc.line;
    return out[a].loc.column < out[b].loc.column;
  });
  std::size_t first = order.size();
  std::pair<ReferenceStage, std::size_t> best{ReferenceStage::Beyond, 0};
  for (std::size_t p = 0; p < order.size(); ++p) {
    if (out[order[p]].severity != Severity::Error) continue;
    const ReferenceStage stage = sink.stageOf(order[p]);
    const std::pair<ReferenceStage, std::size_t> key{stage, stage == ReferenceStage::Contract ? order[p] : p};
    if (first == order.size() || key < best) {
      first = p;
      best = key;
    }
  }
  std::vector<Diagnostic> sorted;
  sorted.reserve(out.size());
  if (first < order.size()) sorted.push_back(std::move(out[order[first]]));
  for (std::size_t p = 0; p < order.size(); ++p)
    if (p != first) sorted.push_back(std::move(out[order[p]]));
  return sorted;
}

} // namespace

std::vector<Diagnostic> verifyArtifactGraph(const ArtifactGraph& graph) {
  std::vector<Diagnostic> out;
  DiagnosticSink sink(graph.fileName, out);
  {
    StageScope stage(sink, ReferenceStage::Contract);
    verifyModuleScalars(graph, sink);
    verifyEntry(graph, sink);
  }
  for (const ArtifactFunction& f : graph.functions) {
    {
      StageScope stage(sink, ReferenceStage::Parse);
      verifyDataflow(f, sink);
    }
    for (const ArtifactOp& op : f.ops) {
      if (!op.isLattice()) continue;
      StageScope stage(sink, ReferenceStage::Verifier);
      detail::OpContext ctx(op, sink);
      detail::verifyOpSignature(ctx);
      detail::verifyOpRules(ctx);
      StageScope beyond(sink, ReferenceStage::Beyond);
      detail::verifyCoordinateExtents(ctx);
    }
    StageScope stage(sink, ReferenceStage::Beyond);
    detail::verifyStrides(f, sink);
  }
  return referenceOrder(std::move(out), sink);
}

} // namespace lattice
