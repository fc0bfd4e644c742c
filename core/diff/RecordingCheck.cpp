// The recorded golden: each FX node's artifact value against what PyTorch recorded for it.
#include "diff/RecordingCheck.h"

#include "lowering/ArtifactValue.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <variant>

namespace lattice {

namespace {

void collect(const fx::Value& value, const std::string& name, const std::string& node, std::vector<NodeValueRef>& out) {
  if (ArtifactValuePtr artifact = artifactValueOf(value)) {
    out.push_back({name, node, artifact->name(), artifact->isSparse()});
    return;
  }
  if (!value.isSequence()) return;
  const fx::ValueList& items = value.items();
  for (std::size_t i = 0; i < items.size(); ++i) collect(items[i], name + "." + std::to_string(i), node, out);
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// The run's value of `ref` as tensors named like the recording (`name` or `name.coords`, ...).
std::string runTensors(const runtime::Runtime& run, const NodeValueRef& ref, std::vector<NamedTensor>& out) {
  const int slot = run.plan().slotOf(ref.ssa);
  if (slot < 0) return "the artifact has no %" + ref.ssa;
  const runtime::RuntimeValue& value = run.value(slot);
  if (const auto* t = std::get_if<runtime::Tensor>(&value)) {
    out.push_back({ref.name, runtime::toTensorData(*t)});
    return "";
  }
  if (const auto* s = std::get_if<runtime::Sparse>(&value)) {
    out = runtime::sparseTensors(ref.name, *s);
    return "";
  }
  return "%" + ref.ssa + " was not computed";
}

} // namespace

std::vector<NodeValueRef> artifactValuesByNode(const fx::Graph& graph, const fx::Interpreter& interpreter) {
  std::vector<NodeValueRef> out;
  for (const fx::Node& node : graph.nodes())
    if (const fx::Value* value = interpreter.valueOf(&node)) collect(*value, node.name(), node.name(), out);
  return out;
}

RecordingCheck checkAgainstRecording(const std::vector<NodeValueRef>& refs, const runtime::Runtime& run,
                                     const ArchiveRecordings& recordings, double tolerance) {
  RecordingCheck out;
  out.tolerance = tolerance;
  if (!recordings.activations) return out;
  for (const NodeValueRef& ref : refs) {
    const std::vector<RecordedValue> recorded = recordings.valuesOf(ref.node);
    auto match = std::find_if(recorded.begin(), recorded.end(),
                              [&](const RecordedValue& r) { return r.name == ref.name; });
    if (match == recorded.end()) continue; // PyTorch recorded nothing here (not a tensor there)
    NodeCheck c;
    c.ref = ref;
    if (match->sparse != ref.sparse) {
      c.problem = std::string("recorded as a ") + (match->sparse ? "sparse" : "dense") + " value, the artifact's is " +
                  (ref.sparse ? "sparse" : "dense");
    } else {
      std::vector<NamedTensor> actual;
      c.problem = runTensors(run, ref, actual);
      if (c.problem.empty()) {
        runtime::OutputCheck check =
            runtime::checkOutputs({ref.name}, {ref.sparse}, actual, *recordings.activations, 0.0, 0.0).front();
        c.problem = check.problem;
        c.divergence = check.divergence;
      }
    }
    c.exceeds = !c.problem.empty() || !(c.divergence.relL2 <= tolerance) || c.divergence.nonFinite > 0;
    if (c.exceeds && out.firstDivergent < 0) out.firstDivergent = static_cast<int>(out.nodes.size());
    out.nodes.push_back(std::move(c));
  }
  return out;
}

std::string formatRecordingCheck(const RecordingCheck& check) {
  std::size_t width = 8, ssaWidth = 6;
  for (const NodeCheck& c : check.nodes) {
    width = std::max(width, c.ref.name.size() + 1);
    ssaWidth = std::max(ssaWidth, c.ref.ssa.size() + 2);
  }
  std::string text = "recorded activations vs the artifact's run (relative L2 tolerance " + number(check.tolerance) +
                     "), nodes in data-flow order:\n";
  std::string header = "  node";
  header.resize(width + 3, ' ');
  header += "value";
  header.resize(width + 3 + ssaWidth, ' ');
  char cols[96];
  std::snprintf(cols, sizeof cols, "%10s %10s %9s\n", "max |d|", "rel L2", "pearson");
  text += header + cols;
  for (const NodeCheck& c : check.nodes) {
    std::string row = (c.exceeds ? "! " : "  ") + c.ref.name;
    row.resize(width + 3, ' ');
    row += "%" + c.ref.ssa;
    row.resize(width + 3 + ssaWidth, ' ');
    if (!c.problem.empty()) {
      text += row + c.problem + "\n";
      continue;
    }
    std::snprintf(cols, sizeof cols, "%10s %10s %9s\n", number(c.divergence.maxAbs).c_str(),
                  number(c.divergence.relL2).c_str(), number(c.divergence.pearson).c_str());
    text += row + cols;
  }
  if (check.nodes.empty())
    text += "no node has both a recorded activation and an artifact value\n";
  else if (check.firstDivergent >= 0) {
    const NodeCheck& f = check.nodes[static_cast<std::size_t>(check.firstDivergent)];
    text += "first divergent node: " + f.ref.name + " (%" + f.ref.ssa + ")" +
            (f.problem.empty() ? ", relative L2 " + number(f.divergence.relL2) : ": " + f.problem) + "\n";
  } else {
    text += "every recorded node within tolerance\n";
  }
  return text;
}

nlohmann::json recordingCheckToJson(const RecordingCheck& check) {
  nlohmann::json j;
  j["tolerance"] = check.tolerance;
  j["nodes"] = nlohmann::json::array();
  for (const NodeCheck& c : check.nodes) {
    nlohmann::json n = {{"name", c.ref.name},           {"node", c.ref.node},
                        {"ssa", c.ref.ssa},             {"max_abs", c.divergence.maxAbs},
                        {"rel_l2", c.divergence.relL2}, {"pearson", c.divergence.pearson},
                        {"exceeds", c.exceeds}};
    if (!c.problem.empty()) n["problem"] = c.problem;
    j["nodes"].push_back(std::move(n));
  }
  if (check.firstDivergent >= 0) {
    const NodeCheck& f = check.nodes[static_cast<std::size_t>(check.firstDivergent)];
    j["first_divergent"] = {{"name", f.ref.name}, {"node", f.ref.node}, {"ssa", f.ref.ssa}, {"rel_l2", f.divergence.relL2}};
  } else {
    j["first_divergent"] = nullptr;
  }
  j["within_tolerance"] = check.withinTolerance();
  return j;
}

} // namespace lattice
