// The recorded golden: each FX node's artifact value against what PyTorch recorded for it.
#include "exec/RecordingCheck.h"

#include "exec/TrainerDifferences.h"
#include "lowering/ArtifactValue.h"
#include "runtime/CoordSet.h"
#include "tensor/TensorConvert.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <variant>

namespace lattice {

namespace {

void collect(const fx::Value& value, const std::string& name, const std::string& node,
             const std::vector<std::string>& upstream, std::vector<NodeValueRef>& out) {
  if (ArtifactValuePtr artifact = artifactValueOf(value)) {
    out.push_back({name, node, artifact->name(), artifact->isSparse(), upstream});
    return;
  }
  if (!value.isSequence()) return;
  const fx::ValueList& items = value.items();
  for (std::size_t i = 0; i < items.size(); ++i)
    collect(items[i], name + "." + std::to_string(i), node, upstream, out);
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// The run's value of `ref`, or why there is none.
const runtime::RuntimeValue* runValue(const runtime::Runtime& run, const NodeValueRef& ref, std::string& problem) {
  const int slot = run.plan().slotOf(ref.ssa);
  if (slot < 0) {
    problem = "the artifact has no %" + ref.ssa;
    return nullptr;
  }
  const runtime::RuntimeValue& value = run.value(slot);
  if (std::holds_alternative<runtime::Tensor>(value) || std::holds_alternative<runtime::Sparse>(value)) return &value;
  problem = "%" + ref.ssa + " was not computed";
  return nullptr;
}

void compareDense(const runtime::Tensor& ours, const RecordedValue& recorded, NodeCheck& c) {
  const TensorData theirs = recorded.tensor, mine = runtime::toTensorData(ours);
  if (mine.shape() != theirs.shape()) {
    c.problem = "shape " + shapeText(mine.shape()) + ", recorded " + shapeText(theirs.shape());
    return;
  }
  Expected<std::vector<float>> a = toFloatVector(mine), e = toFloatVector(theirs);
  if (!a || !e) {
    c.problem = !a ? a.message() : e.message();
    return;
  }
  const std::int64_t cols = theirs.shape().size() >= 2 ? theirs.shape().back() : 1;
  c.divergence = runtime::measure(a->data(), e->data(), static_cast<std::int64_t>(e->size()), cols);
}

/// Matches the recorded rows to the run's by coordinate and measures the rows both have. The run
/// keeps coordinates in the tensor's own units (physical / stride, sec. 10.1); a recording in
/// physical units is divided by the stride first (a row that does not divide exists only there).
void compareSparse(const runtime::Sparse& ours, const RecordedValue& recorded, bool physical, NodeCheck& c,
                   std::int64_t& offGrid) {
  Expected<std::vector<std::int64_t>> coords = toIntVector(recorded.coords), active = toIntVector(recorded.active);
  Expected<std::vector<float>> features = toFloatVector(recorded.features);
  if (!coords || !active || !features) {
    c.problem = "the recorded value is not readable as coords/features/active";
    return;
  }
  const std::int64_t channels = recorded.features.shape().size() == 2 ? recorded.features.shape()[1] : -1;
  c.rows = ours.rows();
  c.recordedRows = (*active)[0];
  if (channels != ours.channels) {
    c.problem = std::to_string(ours.channels) + " feature channels, recorded " + std::to_string(channels);
    return;
  }
  std::vector<float> a, e;
  c.commonRows = 0;
  const runtime::Triple& stride = ours.stride;
  for (std::int64_t r = 0; r < c.recordedRows; ++r) {
    const std::int64_t* p = coords->data() + 4 * r;
    std::int64_t logical[3];
    bool onGrid = true;
    for (int k = 0; k < 3; ++k) {
      const std::int64_t s = physical ? stride[static_cast<std::size_t>(k)] : 1;
      onGrid = onGrid && p[k + 1] % s == 0;
      logical[k] = p[k + 1] / s;
    }
    if (!onGrid) {
      ++offGrid;
      continue;
    }
    const std::int64_t at = ours.coords->find(p[0], logical[0], logical[1], logical[2]);
    if (at < 0) continue;
    a.insert(a.end(), ours.features->begin() + at * channels, ours.features->begin() + (at + 1) * channels);
    e.insert(e.end(), features->begin() + r * channels, features->begin() + (r + 1) * channels);
    ++c.commonRows;
  }
  c.divergence = runtime::measure(a.data(), e.data(), static_cast<std::int64_t>(e.size()), channels);
  if (c.commonRows != c.rows || c.commonRows != c.recordedRows)
    c.problem = "supports differ: " + std::to_string(c.rows) + " rows here, " + std::to_string(c.recordedRows) +
                " recorded, " + std::to_string(c.commonRows) + " in both" +
                (c.commonRows > 0 ? " (compared)" : "");
}

/// Compares the run's value of `ref` with its recording into `c` (rows, divergence, problem):
/// the value compared, or nullptr when there is none (c.problem says why).
const runtime::RuntimeValue* measure(const runtime::Runtime& run, const NodeValueRef& ref, const RecordedValue& match,
                                     bool physical, NodeCheck& c, std::int64_t& offGrid, std::int64_t& strided) {
  if (match.sparse != ref.sparse) {
    c.problem = std::string("recorded as a ") + (match.sparse ? "sparse" : "dense") + " value, the artifact's is " +
                (ref.sparse ? "sparse" : "dense");
    return nullptr;
  }
  const runtime::RuntimeValue* value = runValue(run, ref, c.problem);
  if (!value) return nullptr;
  if (const auto* sparse = std::get_if<runtime::Sparse>(value)) {
    compareSparse(*sparse, match, physical, c, offGrid);
    if (!physical && sparse->stride != runtime::Triple{1, 1, 1}) ++strided;
  } else if (const auto* dense = std::get_if<runtime::Tensor>(value)) {
    compareDense(*dense, match, c);
  }
  return value;
}

} // namespace

double NodeCheck::shownError() const {
  const bool nothingCompared = !problem.empty() && !(commonRows > 0);
  return nothingCompared ? std::numeric_limits<double>::infinity() : divergence.relL2;
}

std::vector<NodeValueRef> artifactValuesByNode(const fx::Graph& graph, const fx::Interpreter& interpreter) {
  std::vector<NodeValueRef> out;
  // Node → the nearest upstream nodes with artifact values; a node without values passes its own on.
  std::map<const fx::Node*, std::vector<std::string>> nearest;
  for (const fx::Node& node : graph.nodes()) {
    std::set<std::string> upstream;
    for (const fx::Node* input : node.inputNodes()) {
      auto it = nearest.find(input);
      if (it != nearest.end()) upstream.insert(it->second.begin(), it->second.end());
    }
    const std::size_t before = out.size();
    if (const fx::Value* value = interpreter.valueOf(&node))
      collect(*value, node.name(), node.name(), {upstream.begin(), upstream.end()}, out);
    nearest[&node] = out.size() > before ? std::vector<std::string>{node.name()}
                                         : std::vector<std::string>(upstream.begin(), upstream.end());
  }
  return out;
}

RecordingMeasurements::RecordingMeasurements(std::vector<NodeValueRef> refs, const runtime::RuntimePlan& plan,
                                             const ArchiveRecordings& recordings)
    : m_refs(std::move(refs)), m_recordings(&recordings), m_refsOfOp(plan.ops.size()), m_measured(m_refs.size()) {
  for (std::size_t i = 0; i < m_refs.size(); ++i) {
    const int slot = plan.slotOf(m_refs[i].ssa);
    if (slot < 0) continue;
    const int op = plan.producer[static_cast<std::size_t>(slot)];
    if (op < 0)
      m_argumentRefs.push_back(i);
    else
      m_refsOfOp[static_cast<std::size_t>(op)].push_back(i);
  }
}

void RecordingMeasurements::measureOp(const runtime::Runtime& run, int opIndex) {
  if (!m_recordings->activations) return;
  auto measureRef = [&](std::size_t i) {
    const NodeValueRef& ref = m_refs[i];
    const std::vector<RecordedValue> recorded = m_recordings->valuesOf(ref.node);
    auto match = std::find_if(recorded.begin(), recorded.end(), [&](const RecordedValue& r) { return r.name == ref.name; });
    if (match == recorded.end() || match->sparse != ref.sparse) return;
    Measured m;
    m.check.ref = ref;
    std::int64_t strided = 0;
    if (!measure(run, ref, *match, m_recordings->activationsPhysical, m.check, m.offGrid, strided)) return;
    m.strided = strided > 0;
    m_measured[i] = std::move(m);
  };
  if (!m_argumentsDone) {
    m_argumentsDone = true;
    for (std::size_t i : m_argumentRefs) measureRef(i);
  }
  if (opIndex >= 0 && static_cast<std::size_t>(opIndex) < m_refsOfOp.size())
    for (std::size_t i : m_refsOfOp[static_cast<std::size_t>(opIndex)]) measureRef(i);
}

const RecordingMeasurements::Measured* RecordingMeasurements::measured(std::size_t index) const {
  return index < m_measured.size() && m_measured[index] ? &*m_measured[index] : nullptr;
}

RecordingCheck checkAgainstRecording(const std::vector<NodeValueRef>& refs, const runtime::Runtime& run,
                                     const ArchiveRecordings& recordings, double tolerance,
                                     const RecordingMeasurements* measured) {
  RecordingCheck out;
  out.tolerance = tolerance;
  if (!recordings.activations) return out;
  // Node → the node whose documented difference it carries (itself for the origin).
  std::map<std::string, std::string> differs, differsBySsa;
  std::int64_t offGrid = 0, strided = 0;
  for (const NodeValueRef& ref : refs) {
    std::string origin;
    for (const std::string& up : ref.upstream)
      if (auto it = differs.find(up); it != differs.end() && origin.empty()) origin = it->second;

    const std::vector<RecordedValue> recorded = recordings.valuesOf(ref.node);
    auto match = std::find_if(recorded.begin(), recorded.end(),
                              [&](const RecordedValue& r) { return r.name == ref.name; });
    if (match == recorded.end()) {
      // PyTorch recorded nothing here (not a tensor there); a difference upstream still flows on.
      if (!origin.empty()) differs.emplace(ref.node, origin);
      continue;
    }
    NodeCheck c;
    c.ref = ref;
    const std::size_t index = static_cast<std::size_t>(&ref - refs.data());
    const RecordingMeasurements::Measured* before = measured ? measured->measured(index) : nullptr;
    const runtime::RuntimeValue* value = nullptr;
    const int slot = run.plan().slotOf(ref.ssa);
    const bool held = slot >= 0 && !std::holds_alternative<std::monostate>(run.value(slot));
    if (before && !held) { // dropped within the run's memory budget: judge the numbers taken then
      c = before->check;
      offGrid += before->offGrid;
      strided += before->strided ? 1 : 0;
    } else {
      value = measure(run, ref, *match, recordings.activationsPhysical, c, offGrid, strided);
    }
    c.exceeds = !c.problem.empty() || !(c.divergence.relL2 <= tolerance) || c.divergence.nonFinite > 0;
    if (c.exceeds && (value || (before && c.problem.empty()))) {
      const int slot = run.plan().slotOf(ref.ssa);
      const int op = slot >= 0 ? run.plan().producer[static_cast<std::size_t>(slot)] : -1;
      std::optional<TrainerDifference> known;
      // A node that only passes an op's value on (the output, a getitem) inherits its difference.
      if (auto it = differsBySsa.find(ref.ssa); it != differsBySsa.end() && origin.empty()) origin = it->second;
      if (op >= 0 && !differsBySsa.count(ref.ssa))
        known = knownTrainerDifference(run.plan().ops[static_cast<std::size_t>(op)], {c.rows, c.recordedRows, c.commonRows});
      if (known) {
        c.differenceRule = known->rule;
        c.difference = known->text;
        differs[ref.node] = ref.node;
        differsBySsa.emplace(ref.ssa, ref.node);
      } else if (!origin.empty()) {
        c.inheritedFrom = origin;
        differs.emplace(ref.node, origin);
      }
    }
    const int position = static_cast<int>(out.nodes.size());
    if (!c.difference.empty() && out.firstDifference < 0) out.firstDifference = position;
    if (c.exceeds && !c.explained() && out.firstDivergent < 0) out.firstDivergent = position;
    out.nodes.push_back(std::move(c));
  }
  if (strided > 0)
    out.warnings.push_back(std::string(kArchiveActivationsFile) + ": recorded by an older exporter (no \"" +
                           kRecordedCoordsKey + "\": \"" + kRecordedCoordsPhysical +
                           "\" in its metadata): its sparse coordinates are in torch-lattice's own units, "
                           "physical / stride; " + std::to_string(strided) +
                           " values at a stride above 1 were compared in those units. Export the model again to "
                           "record physical coordinates.");
  if (offGrid > 0)
    out.warnings.push_back(std::string(kArchiveActivationsFile) + ": " + std::to_string(offGrid) +
                           " recorded rows lie off their tensor's stride grid (not physical coordinates?) and "
                           "match no row of the run");
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
    // "!" diverges, "~" differs by design (here or upstream).
    std::string row = (c.explained() ? "~ " : c.exceeds ? "! " : "  ") + c.ref.name;
    row.resize(width + 3, ' ');
    row += "%" + c.ref.ssa;
    row.resize(width + 3 + ssaWidth, ' ');
    std::string line;
    if (std::isfinite(c.shownError())) {
      std::snprintf(cols, sizeof cols, "%10s %10s %9s", number(c.divergence.maxAbs).c_str(),
                    number(c.divergence.relL2).c_str(), number(c.divergence.pearson).c_str());
      line = cols;
      if (!c.problem.empty()) line += "  " + c.problem;
    } else {
      line = c.problem;
    }
    text += row + line + "\n";
    if (!c.difference.empty()) text += std::string(width + 3, ' ') + "known difference (" + c.differenceRule + "): " + c.difference + "\n";
    else if (!c.inheritedFrom.empty())
      text += std::string(width + 3, ' ') + "follows from the known difference at " + c.inheritedFrom + "\n";
  }
  if (check.nodes.empty()) {
    text += "no node has both a recorded activation and an artifact value\n";
    return text;
  }
  if (check.firstDivergent >= 0) {
    const NodeCheck& f = check.nodes[static_cast<std::size_t>(check.firstDivergent)];
    text += "first divergent node: " + f.ref.name + " (%" + f.ref.ssa + ")" +
            (f.problem.empty() ? ", relative L2 " + number(f.divergence.relL2) : ": " + f.problem) + "\n";
  }
  std::set<std::string> rules;
  for (const NodeCheck& c : check.nodes)
    if (!c.difference.empty() && rules.insert(c.differenceRule).second)
      text += "torch-lattice and the artifact differ by design at " + c.ref.name + " (" + c.differenceRule + ")\n";
  if (check.withinTolerance())
    text += "every recorded node within tolerance\n";
  else if (check.onlyKnownDifferences())
    text += "every other recorded node within tolerance: the artifact differs from the recording only where "
            "torch-lattice and mlx-lattice compute different things\n";
  return text;
}

nlohmann::json recordingCheckToJson(const RecordingCheck& check) {
  auto relL2 = [](const NodeCheck& c) -> nlohmann::json {
    return std::isfinite(c.shownError()) ? nlohmann::json(c.divergence.relL2) : nlohmann::json(nullptr);
  };
  nlohmann::json j;
  j["tolerance"] = check.tolerance;
  j["nodes"] = nlohmann::json::array();
  j["differences"] = nlohmann::json::array();
  for (const NodeCheck& c : check.nodes) {
    nlohmann::json n = {{"name", c.ref.name},         {"node", c.ref.node},
                        {"ssa", c.ref.ssa},           {"compared", std::isfinite(c.shownError())},
                        {"max_abs", c.divergence.maxAbs}, {"rel_l2", relL2(c)},
                        {"pearson", c.divergence.pearson}, {"exceeds", c.exceeds}};
    if (!c.problem.empty()) n["problem"] = c.problem;
    if (c.rows >= 0) {
      n["rows"] = c.rows;
      n["recorded_rows"] = c.recordedRows;
      n["common_rows"] = c.commonRows;
    }
    if (!c.difference.empty()) {
      n["difference"] = {{"rule", c.differenceRule}, {"text", c.difference}};
      j["differences"].push_back({{"node", c.ref.node}, {"rule", c.differenceRule}, {"text", c.difference}});
    }
    if (!c.inheritedFrom.empty()) n["inherited_from"] = c.inheritedFrom;
    j["nodes"].push_back(std::move(n));
  }
  if (check.firstDivergent >= 0) {
    const NodeCheck& f = check.nodes[static_cast<std::size_t>(check.firstDivergent)];
    j["first_divergent"] = {{"name", f.ref.name}, {"node", f.ref.node}, {"ssa", f.ref.ssa}, {"rel_l2", relL2(f)}};
    if (!f.problem.empty()) j["first_divergent"]["problem"] = f.problem;
  } else {
    j["first_divergent"] = nullptr;
  }
  j["warnings"] = check.warnings;
  j["within_tolerance"] = check.withinTolerance();
  j["only_known_differences"] = check.onlyKnownDifferences();
  return j;
}

} // namespace lattice
