// The structural half of the artifact diff: module attributes (by name, order never matters),
// the ABI (inputs and outputs by position: name, type, role, and which value is returned), and
// the ops of the entry functions paired by OpMatching.cpp and compared by kind, attributes,
// operand producers and types. Weight values are WeightDiff.cpp's; only the entry function is
// compared (a contract module has exactly one function).

#include "diff/DiffInternal.h"

#include <algorithm>
#include <optional>

namespace lattice {

const char* diffStatusName(DiffStatus status) {
  switch (status) {
  case DiffStatus::Unchanged:
    return "unchanged";
  case DiffStatus::Changed:
    return "changed";
  case DiffStatus::Added:
    return "added";
  case DiffStatus::Removed:
    return "removed";
  }
  return "unchanged";
}

bool ArtifactDiff::equal() const {
  if (!moduleAttributes.empty() || !abi.empty()) return false;
  for (const OpDiff& op : ops)
    if (op.status != DiffStatus::Unchanged) return false;
  for (const WeightDiff& w : weights)
    if (w.status != DiffStatus::Unchanged) return false;
  return true;
}

std::size_t ArtifactDiff::count(DiffStatus status) const {
  return static_cast<std::size_t>(
      std::count_if(ops.begin(), ops.end(), [&](const OpDiff& op) { return op.status == status; }));
}

std::size_t ArtifactDiff::weightCount(DiffStatus status) const {
  return static_cast<std::size_t>(
      std::count_if(weights.begin(), weights.end(), [&](const WeightDiff& w) { return w.status == status; }));
}

ArtifactDiff diffArtifacts(const LoadedArtifact& a, const LoadedArtifact& b, const DiffOptions& options) {
  ArtifactDiff out;
  diff_detail::diffGraphs(a.graph, b.graph, out);
  out.weights = diff_detail::diffWeights(a, b, options);
  return out;
}

namespace diff_detail {
namespace {

// The ABI arrays are compared as the ABI, not as module attributes.
bool isAbiAttribute(const std::string& name) {
  return name == "lattice.input_names" || name == "lattice.input_roles" || name == "lattice.output_names" ||
         name == "lattice.output_roles";
}

FieldChange change(std::string field, std::string before, std::string after) {
  return FieldChange{std::move(field), std::move(before), std::move(after), true, true};
}
FieldChange removed(std::string field, std::string before) {
  return FieldChange{std::move(field), std::move(before), {}, true, false};
}
FieldChange added(std::string field, std::string after) {
  return FieldChange{std::move(field), {}, std::move(after), false, true};
}

// Attributes by name: A's order first, then those only B has.
void diffAttributes(const std::vector<ArtifactAttribute>& a, const std::vector<ArtifactAttribute>& b,
                    std::vector<FieldChange>& out, bool skipAbi) {
  for (const ArtifactAttribute& attr : a) {
    if (skipAbi && isAbiAttribute(attr.name)) continue;
    const ArtifactAttribute* other = findAttribute(b, attr.name);
    if (!other)
      out.push_back(removed(attr.name, attr.value.str()));
    else if (other->value.str() != attr.value.str())
      out.push_back(change(attr.name, attr.value.str(), other->value.str()));
  }
  for (const ArtifactAttribute& attr : b) {
    if (skipAbi && isAbiAttribute(attr.name)) continue;
    if (!findAttribute(a, attr.name)) out.push_back(added(attr.name, attr.value.str()));
  }
}

// A module string array (`lattice.input_names`), when present with `count` strings.
std::optional<std::vector<std::string>> stringArray(const ArtifactGraph& graph, const char* name,
                                                    std::size_t count) {
  const ArtifactAttribute* attr = graph.moduleAttribute(name);
  if (!attr || attr->value.kind != ArtifactAttrValue::Kind::Array || attr->value.elements.size() != count)
    return std::nullopt;
  std::vector<std::string> out;
  for (const ArtifactAttrValue& e : attr->value.elements) {
    if (!e.isString()) return std::nullopt;
    out.push_back(e.text);
  }
  return out;
}

// One side's ABI entries: names, roles, types and (outputs) the returned value names.
struct AbiSide {
  std::vector<std::string> names;
  std::vector<std::string> roles;
  std::vector<std::string> types;
  std::vector<std::string> values;
};

AbiSide inputsOf(const ArtifactGraph& graph, const ArtifactFunction* f) {
  AbiSide side;
  if (!f) return side;
  const std::size_t n = f->arguments.size();
  for (const ArtifactValueDef& arg : f->arguments) {
    side.names.push_back(arg.name);
    side.types.push_back(arg.type.str());
  }
  if (auto names = stringArray(graph, "lattice.input_names", n)) side.names = std::move(*names);
  side.roles = stringArray(graph, "lattice.input_roles", n).value_or(std::vector<std::string>(n));
  return side;
}

AbiSide outputsOf(const ArtifactGraph& graph, const ArtifactFunction* f) {
  AbiSide side;
  if (!f || !f->hasBody) return side;
  const std::size_t n = f->ret.operands.size();
  for (std::size_t i = 0; i < n; ++i) {
    side.values.push_back(f->ret.operands[i].name);
    side.names.push_back(f->ret.operands[i].name);
    side.types.push_back(i < f->ret.types.size() ? f->ret.types[i].str() : std::string());
  }
  if (auto names = stringArray(graph, "lattice.output_names", n)) side.names = std::move(*names);
  side.roles = stringArray(graph, "lattice.output_roles", n).value_or(std::vector<std::string>(n));
  return side;
}

std::string abiEntryText(const AbiSide& s, std::size_t i) {
  std::string text = s.names[i] + ": " + s.types[i];
  if (!s.roles[i].empty()) text += " (" + s.roles[i] + ")";
  return text;
}

void diffAbiSide(const char* what, const AbiSide& a, const AbiSide& b, const OpMatching* matching,
                 const ProducerMap& pa, const ProducerMap& pb, std::vector<FieldChange>& out) {
  const std::size_t n = std::max(a.names.size(), b.names.size());
  const std::string kind = what;
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= b.names.size()) {
      out.push_back(removed(kind + " '" + a.names[i] + "'", abiEntryText(a, i)));
      continue;
    }
    if (i >= a.names.size()) {
      out.push_back(added(kind + " '" + b.names[i] + "'", abiEntryText(b, i)));
      continue;
    }
    const std::string label = kind + " '" + a.names[i] + "'";
    if (a.names[i] != b.names[i])
      out.push_back(change(kind + " " + std::to_string(i) + " name", a.names[i], b.names[i]));
    if (a.types[i] != b.types[i]) out.push_back(change(label + " type", a.types[i], b.types[i]));
    if (a.roles[i] != b.roles[i]) out.push_back(change(label + " role", a.roles[i], b.roles[i]));
    if (matching && !sameProducer(*matching, producerOf(pa, a.values[i]), a.values[i],
                                  producerOf(pb, b.values[i]), b.values[i]))
      out.push_back(change(label + " value", "%" + a.values[i], "%" + b.values[i]));
  }
}

std::string valueText(const ArtifactValueDef& v) {
  return "%" + v.name + ": " + v.type.str();
}

// `%v (from %producer)`: tells apart two values of the same name from different producers.
std::string operandText(const std::string& name, const Producer& p, const ArtifactFunction& f) {
  std::string from = "undefined";
  if (p.op == Producer::kArgument) from = "argument " + std::to_string(p.index);
  if (p.op >= 0) {
    const ArtifactOp& op = f.ops[static_cast<std::size_t>(p.op)];
    from = std::string(op.shortName()) + (op.kind == OpKind::Weight ? " @" : " %") + opDisplayName(op);
  }
  return "%" + name + " (from " + from + ")";
}

std::vector<FieldChange> compareOps(const ArtifactOp& a, const ArtifactOp& b, const OpMatching& m,
                                    const ProducerMap& pa, const ProducerMap& pb,
                                    const ArtifactFunction& funcA, const ArtifactFunction& funcB) {
  std::vector<FieldChange> out;
  if (a.name != b.name) out.push_back(change("op", a.name, b.name));
  // A weight's symbol is its name (matching handles renames); other symbols are references.
  if (a.kind != OpKind::Weight && (a.hasSymbol || b.hasSymbol) &&
      (a.hasSymbol != b.hasSymbol || a.symbol != b.symbol)) {
    if (!b.hasSymbol)
      out.push_back(removed("symbol", "@" + a.symbol));
    else if (!a.hasSymbol)
      out.push_back(added("symbol", "@" + b.symbol));
    else
      out.push_back(change("symbol", "@" + a.symbol, "@" + b.symbol));
  }
  diffAttributes(a.attributes, b.attributes, out, false);

  const std::size_t operands = std::max(a.operands.size(), b.operands.size());
  for (std::size_t k = 0; k < operands; ++k) {
    const std::string field = "operand " + std::to_string(k);
    const bool inA = k < a.operands.size(), inB = k < b.operands.size();
    const std::string typeA = inA && k < a.operandTypes.size() ? a.operandTypes[k].str() : std::string();
    const std::string typeB = inB && k < b.operandTypes.size() ? b.operandTypes[k].str() : std::string();
    if (!inB) {
      out.push_back(removed(field, "%" + a.operands[k].name + ": " + typeA));
      continue;
    }
    if (!inA) {
      out.push_back(added(field, "%" + b.operands[k].name + ": " + typeB));
      continue;
    }
    const std::string& nameA = a.operands[k].name;
    const std::string& nameB = b.operands[k].name;
    const Producer prodA = producerOf(pa, nameA), prodB = producerOf(pb, nameB);
    if (!sameProducer(m, prodA, nameA, prodB, nameB)) {
      if (nameA == nameB)
        out.push_back(change(field, operandText(nameA, prodA, funcA), operandText(nameB, prodB, funcB)));
      else
        out.push_back(change(field, "%" + nameA, "%" + nameB));
    }
    if (typeA != typeB) out.push_back(change(field + " type", typeA, typeB));
  }

  const std::size_t results = std::max(a.results.size(), b.results.size());
  for (std::size_t r = 0; r < results; ++r) {
    const std::string field = "result " + std::to_string(r);
    if (r >= b.results.size()) {
      out.push_back(removed(field, valueText(a.results[r])));
    } else if (r >= a.results.size()) {
      out.push_back(added(field, valueText(b.results[r])));
    } else if (a.results[r].type.str() != b.results[r].type.str()) {
      out.push_back(change(field + " type", a.results[r].type.str(), b.results[r].type.str()));
    }
  }
  return out;
}

OpDiff onlyIn(const ArtifactOp& op, int index, bool inA) {
  OpDiff d;
  d.status = inA ? DiffStatus::Removed : DiffStatus::Added;
  (inA ? d.indexA : d.indexB) = index;
  (inA ? d.nameA : d.nameB) = opDisplayName(op);
  d.opName = std::string(op.shortName());
  return d;
}

} // namespace

void diffGraphs(const ArtifactGraph& a, const ArtifactGraph& b, ArtifactDiff& out) {
  diffAttributes(a.moduleAttributes, b.moduleAttributes, out.moduleAttributes, true);

  static const ArtifactFunction kEmpty;
  const ArtifactFunction* fa = entryFunction(a);
  const ArtifactFunction* fb = entryFunction(b);
  if (fa && fb && fa->name != fb->name)
    out.abi.push_back(change("entry function", "@" + fa->name, "@" + fb->name));
  if (!fa && fb) out.abi.push_back(added("entry function", "@" + fb->name));
  if (fa && !fb) out.abi.push_back(removed("entry function", "@" + fa->name));
  const ArtifactFunction& funcA = fa ? *fa : kEmpty;
  const ArtifactFunction& funcB = fb ? *fb : kEmpty;

  const ProducerMap pa = producerMap(funcA);
  const ProducerMap pb = producerMap(funcB);
  const OpMatching m = matchOps(funcA, pa, funcB, pb);

  diffAbiSide("input", inputsOf(a, fa), inputsOf(b, fb), nullptr, pa, pb, out.abi);
  diffAbiSide("output", outputsOf(a, fa), outputsOf(b, fb), &m, pa, pb, out.abi);

  // Removed ops go after the partner of their nearest matched predecessor in A (slot 0: first).
  std::vector<std::vector<int>> removedAfter(funcB.ops.size() + 1);
  int slot = 0;
  for (std::size_t i = 0; i < funcA.ops.size(); ++i) {
    if (m.aToB[i] >= 0)
      slot = m.aToB[i] + 1;
    else
      removedAfter[static_cast<std::size_t>(slot)].push_back(static_cast<int>(i));
  }
  out.ops.reserve(funcA.ops.size() + funcB.ops.size());
  auto emitRemoved = [&](std::size_t s) {
    for (int i : removedAfter[s])
      out.ops.push_back(onlyIn(funcA.ops[static_cast<std::size_t>(i)], i, true));
  };
  emitRemoved(0);
  for (std::size_t j = 0; j < funcB.ops.size(); ++j) {
    const ArtifactOp& opB = funcB.ops[j];
    const int ia = m.bToA[j];
    if (ia < 0) {
      out.ops.push_back(onlyIn(opB, static_cast<int>(j), false));
    } else {
      const ArtifactOp& opA = funcA.ops[static_cast<std::size_t>(ia)];
      OpDiff d;
      d.indexA = ia;
      d.indexB = static_cast<int>(j);
      d.nameA = opDisplayName(opA);
      d.nameB = opDisplayName(opB);
      d.opName = std::string(opA.shortName());
      d.renamed = m.byFlow[j] && d.nameA != d.nameB;
      d.changes = compareOps(opA, opB, m, pa, pb, funcA, funcB);
      d.status = d.changes.empty() ? DiffStatus::Unchanged : DiffStatus::Changed;
      out.ops.push_back(std::move(d));
    }
    emitRemoved(j + 1);
  }
}

} // namespace diff_detail
} // namespace lattice
