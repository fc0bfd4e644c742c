// numericDiff: two runs, one pairing of ops (diffArtifacts' matching, without weight values),
// and runtime::compareValues on each pair.

#include "diff/NumericDiff.h"

#include "diff/ArtifactDiff.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace lattice {

namespace {

LoadedArtifact asLoaded(const runtime::Runtime& rt) {
  LoadedArtifact l;
  l.path = rt.plan().graph->fileName;
  l.graph = *rt.plan().graph;
  return l;
}

// The result an op's row shows (every listed op has one result).
int shownResult(const runtime::PlanOp& op) { return op.results.at(0); }

NumericValueDiff compareSlots(const runtime::Runtime& a, int slotA, const runtime::Runtime& b, int slotB, double tolerance) {
  NumericValueDiff d;
  d.divergence = runtime::compareValues(b.value(slotB), a.value(slotA), &d.problem);
  d.exceeds = !d.problem.empty() || d.divergence.relL2 > tolerance || d.divergence.nonFinite > 0;
  return d;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

nlohmann::json toJson(const NumericValueDiff& d) {
  nlohmann::json j = {{"name", d.name}, {"exceeds", d.exceeds}};
  if (!d.opName.empty()) j["op"] = d.opName;
  if (!d.problem.empty()) {
    j["problem"] = d.problem;
    return j;
  }
  j["max_abs"] = d.divergence.maxAbs;
  j["rel_l2"] = d.divergence.relL2;
  j["pearson"] = d.divergence.pearson;
  j["elements"] = d.divergence.elements;
  return j;
}

std::string line(const NumericValueDiff& d, std::size_t nameWidth) {
  std::string name = d.opName.empty() ? d.name : "%" + d.name;
  name.resize(std::max(name.size(), nameWidth), ' ');
  std::string kind = d.opName;
  kind.resize(std::max<std::size_t>(kind.size(), 24), ' ');
  if (!d.problem.empty()) return "  " + name + " " + kind + " not comparable: " + d.problem + "\n";
  char buf[160];
  std::snprintf(buf, sizeof buf, " %10.3g %10.3g %9.6f%s\n", d.divergence.maxAbs, d.divergence.relL2, d.divergence.pearson,
                d.exceeds ? "  > tolerance" : "");
  return "  " + name + " " + kind + buf;
}

} // namespace

bool NumericDiff::withinTolerance() const {
  for (const NumericValueDiff& d : ops)
    if (d.exceeds) return false;
  for (const NumericValueDiff& d : outputs)
    if (d.exceeds) return false;
  return true;
}

Expected<NumericDiff> numericDiff(runtime::Runtime& a, runtime::Runtime& b, const runtime::RuntimeInputs& inputs,
                                  const NumericDiffOptions& options) {
  runtime::RuntimeOptions run;
  run.numerics = options.numerics;
  run.keepValues = true;
  for (runtime::Runtime* rt : {&a, &b}) {
    const char* side = rt == &a ? "A" : "B";
    if (Status s = rt->start(inputs, run); !s) return makeError(std::string(side) + ": " + s.message());
    if (Status s = rt->run(); !s) return makeError(std::string(side) + ": " + s.message());
  }
  DiffOptions structural;
  structural.compareValues = false;
  const ArtifactDiff pairing = diffArtifacts(asLoaded(a), asLoaded(b), structural);
  NumericDiff out;
  out.tolerance = options.tolerance;
  std::vector<const OpDiff*> byB(b.plan().ops.size(), nullptr);
  for (const OpDiff& op : pairing.ops)
    if (op.indexA >= 0 && op.indexB >= 0) byB[static_cast<std::size_t>(op.indexB)] = &op;
  for (std::size_t i = 0; i < byB.size(); ++i) {
    const OpDiff* op = byB[i];
    const runtime::PlanOp& opB = b.plan().ops[i];
    // Weights are the structural diff's; decompose and with_features pass their operand's
    // values on, so their rows would repeat the row before them.
    if (!op || opB.kind == OpKind::Weight || opB.kind == OpKind::SparseDecompose ||
        opB.kind == OpKind::SparseWithFeatures || opB.results.empty())
      continue;
    const runtime::PlanOp& opA = a.plan().ops[static_cast<std::size_t>(op->indexA)];
    if (opA.kind != opB.kind || opA.results.size() != opB.results.size()) continue;
    NumericValueDiff d = compareSlots(a, shownResult(opA), b, shownResult(opB), options.tolerance);
    d.name = b.plan().slotNames[static_cast<std::size_t>(shownResult(opB))];
    d.opName = std::string(opName(opB.kind));
    d.indexA = op->indexA;
    d.indexB = static_cast<int>(i);
    if (d.exceeds && out.firstDivergent < 0) out.firstDivergent = static_cast<int>(out.ops.size());
    out.ops.push_back(std::move(d));
  }
  for (const runtime::PlanOutput& ob : b.plan().outputs) {
    NumericValueDiff d;
    d.name = ob.abiName;
    int slotA = -1;
    for (const runtime::PlanOutput& oa : a.plan().outputs)
      if (oa.abiName == ob.abiName) slotA = oa.slot;
    if (slotA < 0) {
      d.problem = "A has no output named " + ob.abiName;
      d.exceeds = true;
    } else {
      NumericValueDiff c = compareSlots(a, slotA, b, ob.slot, options.tolerance);
      d.problem = c.problem, d.divergence = c.divergence, d.exceeds = c.exceeds;
    }
    out.outputs.push_back(std::move(d));
  }
  return out;
}

std::string formatNumericDiff(const NumericDiff& diff, const std::string& nameA, const std::string& nameB) {
  std::size_t width = 8;
  for (const NumericValueDiff& d : diff.ops) width = std::max(width, d.name.size() + 1);
  std::string text = "numeric diff of " + nameB + " against " + nameA + " (relative L2 tolerance " +
                     number(diff.tolerance) + "), ops in data-flow order:\n";
  std::string header = "  op";
  header.resize(width + 3, ' ');
  header += "kind";
  header.resize(width + 3 + 25, ' ');
  char cols[96];
  std::snprintf(cols, sizeof cols, "%10s %10s %9s\n", "max |d|", "rel L2", "pearson");
  text += header + cols;
  for (const NumericValueDiff& d : diff.ops) text += line(d, width);
  if (diff.firstDivergent >= 0) {
    const NumericValueDiff& f = diff.ops[static_cast<std::size_t>(diff.firstDivergent)];
    text += "first op over the tolerance: %" + f.name + " (" + f.opName + ")" +
            (f.problem.empty() ? ", relative L2 " + number(f.divergence.relL2) : ": " + f.problem) + "\n";
  } else {
    text += "no op over the tolerance\n";
  }
  text += "outputs:\n";
  for (const NumericValueDiff& d : diff.outputs) text += line(d, width);
  return text;
}

nlohmann::json numericDiffToJson(const NumericDiff& diff) {
  nlohmann::json j;
  j["tolerance"] = diff.tolerance;
  j["ops"] = nlohmann::json::array();
  for (const NumericValueDiff& d : diff.ops) j["ops"].push_back(toJson(d));
  j["outputs"] = nlohmann::json::array();
  for (const NumericValueDiff& d : diff.outputs) j["outputs"].push_back(toJson(d));
  if (diff.firstDivergent >= 0) {
    const NumericValueDiff& f = diff.ops[static_cast<std::size_t>(diff.firstDivergent)];
    j["first_divergent"] = {{"name", f.name}, {"op", f.opName}, {"rel_l2", f.divergence.relL2}};
  } else {
    j["first_divergent"] = nullptr;
  }
  j["within_tolerance"] = diff.withinTolerance();
  return j;
}

} // namespace lattice
