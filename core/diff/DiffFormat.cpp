// formatDiff and diffToJson: the two renderings of an ArtifactDiff that `lattice-cli diff`
// prints. Text: one difference per line (`~` changed, `+` added, `-` removed), ops in diff
// order, then weights by key, then a summary. JSON: everything that differs plus counts.
// Unchanged ops and weights (renamed ones included) are only counted, never listed.

#include "diff/DiffInternal.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace lattice {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string changeText(const FieldChange& c) {
  return c.field + ": " + (c.presentBefore ? c.before : "(absent)") + " -> " +
         (c.presentAfter ? c.after : "(absent)");
}

std::string opRef(const std::string& opName, const std::string& name) {
  if (name.empty()) return {};
  return (opKindFromName(opName) == OpKind::Weight ? "@" : "%") + name;
}

std::string opLabel(const OpDiff& op) {
  std::string label = op.opName;
  const std::string& shown = op.status == DiffStatus::Added ? op.nameB : op.nameA;
  if (!shown.empty()) label += " " + opRef(op.opName, shown);
  if (op.status == DiffStatus::Changed && op.nameA != op.nameB && !op.nameB.empty())
    label += " (as " + opRef(op.opName, op.nameB) + ")";
  return label;
}

std::size_t renamedCount(const ArtifactDiff& diff) {
  std::size_t n = 0;
  for (const OpDiff& op : diff.ops)
    n += op.renamed ? 1 : 0;
  return n;
}

nlohmann::json textOrNull(bool present, const std::string& text) {
  return present ? nlohmann::json(text) : nlohmann::json(nullptr);
}

nlohmann::json changesJson(const std::vector<FieldChange>& changes) {
  nlohmann::json out = nlohmann::json::array();
  for (const FieldChange& c : changes)
    out.push_back({{"field", c.field},
                   {"before", textOrNull(c.presentBefore, c.before)},
                   {"after", textOrNull(c.presentAfter, c.after)}});
  return out;
}

} // namespace

std::string formatDiff(const ArtifactDiff& diff, const std::string& nameA, const std::string& nameB) {
  const std::size_t renamed = renamedCount(diff);
  if (diff.equal()) {
    std::string line = "artifacts are equal";
    if (renamed) line += " (" + std::to_string(renamed) + " ops matched under new names)";
    return line + "\n";
  }
  std::string out = "--- " + nameA + "\n+++ " + nameB + "\n";
  for (const FieldChange& c : diff.moduleAttributes)
    out += "module attribute " + changeText(c) + "\n";
  for (const FieldChange& c : diff.abi)
    out += "abi " + changeText(c) + "\n";
  for (const OpDiff& op : diff.ops) {
    switch (op.status) {
    case DiffStatus::Unchanged:
      break;
    case DiffStatus::Added:
      out += "+ " + opLabel(op) + "\n";
      break;
    case DiffStatus::Removed:
      out += "- " + opLabel(op) + "\n";
      break;
    case DiffStatus::Changed:
      for (const FieldChange& c : op.changes)
        out += "~ " + opLabel(op) + ": " + changeText(c) + "\n";
      break;
    }
  }
  for (const WeightDiff& w : diff.weights) {
    const std::string label = "weight " + w.key;
    switch (w.status) {
    case DiffStatus::Unchanged:
      break;
    case DiffStatus::Added:
      out += "+ " + label + ": " + w.formB + "\n";
      break;
    case DiffStatus::Removed:
      out += "- " + label + ": " + w.formA + "\n";
      break;
    case DiffStatus::Changed:
      if (w.formChanged) out += "~ " + label + ": form: " + w.formA + " -> " + w.formB + "\n";
      if (w.shapeA != w.shapeB)
        out += "~ " + label + ": shape: " + diff_detail::shapeText(w.shapeA) + " -> " +
               diff_detail::shapeText(w.shapeB) + "\n";
      if (w.values && w.values->changedElements > 0)
        out += "~ " + label + ": max |Δ| " + number(w.values->maxAbsDelta) + ", max rel " +
               number(w.values->maxRelDelta) + ", " + std::to_string(w.values->changedElements) + "/" +
               std::to_string(w.values->elements) + " changed\n";
      break;
    }
    if (w.status != DiffStatus::Unchanged && !w.note.empty()) out += "  " + label + ": " + w.note + "\n";
  }
  out += "summary: ops " + std::to_string(diff.count(DiffStatus::Changed)) + " changed, " +
         std::to_string(diff.count(DiffStatus::Added)) + " added, " +
         std::to_string(diff.count(DiffStatus::Removed)) + " removed, " +
         std::to_string(diff.count(DiffStatus::Unchanged)) + " unchanged (" + std::to_string(renamed) +
         " renamed); weights " + std::to_string(diff.weightCount(DiffStatus::Changed)) + " changed, " +
         std::to_string(diff.weightCount(DiffStatus::Added)) + " added, " +
         std::to_string(diff.weightCount(DiffStatus::Removed)) + " removed, " +
         std::to_string(diff.weightCount(DiffStatus::Unchanged)) + " unchanged; " +
         std::to_string(diff.moduleAttributes.size()) + " module attribute and " +
         std::to_string(diff.abi.size()) + " ABI differences\n";
  return out;
}

nlohmann::json diffToJson(const ArtifactDiff& diff) {
  nlohmann::json ops = nlohmann::json::array();
  for (const OpDiff& op : diff.ops) {
    if (op.status == DiffStatus::Unchanged) continue;
    ops.push_back({{"status", diffStatusName(op.status)},
                   {"op", op.opName},
                   {"name_a", textOrNull(op.indexA >= 0, op.nameA)},
                   {"name_b", textOrNull(op.indexB >= 0, op.nameB)},
                   {"index_a", op.indexA >= 0 ? nlohmann::json(op.indexA) : nlohmann::json(nullptr)},
                   {"index_b", op.indexB >= 0 ? nlohmann::json(op.indexB) : nlohmann::json(nullptr)},
                   {"renamed", op.renamed},
                   {"changes", changesJson(op.changes)}});
  }
  nlohmann::json weights = nlohmann::json::array();
  for (const WeightDiff& w : diff.weights) {
    if (w.status == DiffStatus::Unchanged) continue;
    nlohmann::json values = nullptr;
    if (w.values)
      values = {{"elements", w.values->elements},
                {"changed_elements", w.values->changedElements},
                {"max_abs_delta", w.values->maxAbsDelta},
                {"max_rel_delta", w.values->maxRelDelta}};
    weights.push_back({{"status", diffStatusName(w.status)},
                       {"key", w.key},
                       {"form_a", textOrNull(w.status != DiffStatus::Added, w.formA)},
                       {"form_b", textOrNull(w.status != DiffStatus::Removed, w.formB)},
                       {"shape_a", w.shapeA},
                       {"shape_b", w.shapeB},
                       {"form_changed", w.formChanged},
                       {"values", values},
                       {"note", w.note}});
  }
  auto counts = [](auto countOf) {
    return nlohmann::json{{"unchanged", countOf(DiffStatus::Unchanged)},
                          {"changed", countOf(DiffStatus::Changed)},
                          {"added", countOf(DiffStatus::Added)},
                          {"removed", countOf(DiffStatus::Removed)}};
  };
  nlohmann::json opCounts = counts([&](DiffStatus s) { return diff.count(s); });
  opCounts["renamed"] = renamedCount(diff);
  return {{"equal", diff.equal()},
          {"module_attributes", changesJson(diff.moduleAttributes)},
          {"abi", changesJson(diff.abi)},
          {"ops", std::move(ops)},
          {"weights", std::move(weights)},
          {"summary",
           {{"ops", std::move(opCounts)},
            {"weights", counts([&](DiffStatus s) { return diff.weightCount(s); })},
            {"module_attributes", diff.moduleAttributes.size()},
            {"abi", diff.abi.size()}}}};
}

} // namespace lattice
