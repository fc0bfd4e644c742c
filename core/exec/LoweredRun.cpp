// A finished lowering as a runtime, with every op mapped to the FX node that emitted it.
#include "exec/LoweredRun.h"

#include "mlir/MlirParser.h"

#include <unordered_map>

namespace lattice {

void LoweredRun::index() {
  m_opsOf.clear();
  m_valuesOf.clear();
  for (std::size_t i = 0; i < opNodes.size(); ++i) m_opsOf[opNodes[i]].push_back(static_cast<int>(i));
  for (std::size_t i = 0; i < nodeValues.size(); ++i) m_valuesOf[nodeValues[i].node].push_back(static_cast<int>(i));
}

int LoweredRun::opEndOf(const std::string& node) const {
  const std::vector<int>& ops = opsOf(node);
  return ops.empty() ? -1 : ops.back() + 1;
}

const std::vector<int>& LoweredRun::opsOf(const std::string& node) const {
  static const std::vector<int> none;
  auto it = m_opsOf.find(node);
  return it == m_opsOf.end() ? none : it->second;
}

const std::vector<int>& LoweredRun::valuesOf(const std::string& node) const {
  static const std::vector<int> none;
  auto it = m_valuesOf.find(node);
  return it == m_valuesOf.end() ? none : it->second;
}

Expected<LoweredRun> runLowering(const PreparedLowering& lowering, const std::string& artifactName) {
  TorchLatticeArtifactBuilder& builder = *lowering.builder;
  Expected<std::string> text = builder.toMlir();
  if (!text) return makeError(artifactName + ": " + text.message());
  ArtifactParseResult graph = parseArtifactGraph(*text, artifactName + "/graph.mlir");
  if (!graph.ok()) return makeError(graph.error.str());
  Expected<runtime::Runtime> rt =
      runtime::Runtime::fromGraph(std::move(*graph.graph), runtime::WeightSource::fromTensors(builder.weights()));
  if (!rt) return rt.error();

  // SSA result name → the node whose lowering emitted it.
  std::unordered_map<std::string, std::string> ownerOfResult;
  for (const OpProvenance& record : builder.provenance()) {
    if (record.kind != OpProvenance::Kind::Op) continue;
    for (std::string& name : builder.resultsOf(record)) ownerOfResult.emplace(std::move(name), builder.ownerOf(record));
  }
  LoweredRun out(std::move(*rt));
  const runtime::RuntimePlan& plan = out.runtime.plan();
  out.opNodes.reserve(plan.ops.size());
  for (const runtime::PlanOp& op : plan.ops) {
    auto owner = ownerOfResult.find(op.name());
    out.opNodes.push_back(owner == ownerOfResult.end() ? std::string() : owner->second);
  }
  if (!lowering.direct() && lowering.interpreter)
    out.nodeValues = artifactValuesByNode(*lowering.graph, *lowering.interpreter);
  out.index();
  return out;
}

std::string failedNodeOf(const PreparedLowering& lowering, const Error& error) {
  if (lowering.interpreter)
    if (const fx::Node* node = lowering.interpreter->failedNode()) return node->name();
  if (!lowering.builder) return {};
  const TorchLatticeArtifactBuilder& builder = *lowering.builder;
  if (error.line != 0) {
    for (const OpProvenance& record : builder.provenance())
      if (builder.lineOf(record) == error.line) return builder.ownerOf(record);
    return {};
  }
  if (!error.input.empty())
    for (const OpProvenance& record : builder.provenance())
      if (record.kind == OpProvenance::Kind::Argument)
        for (const std::string& arg : builder.resultsOf(record))
          if (arg == error.input) return builder.ownerOf(record);
  return {};
}

RecordingCheck checkOutputsByNode(const LoweredRun& run, const std::string& expectedFile, double tolerance) {
  RecordingCheck check;
  check.tolerance = tolerance;
  Expected<SafetensorsFile> expected = SafetensorsFile::open(expectedFile);
  if (!expected) {
    check.warnings.push_back(expected.message());
    return check;
  }
  Expected<std::vector<runtime::OutputCheck>> outputs = run.runtime.checkOutputs(*expected, 0.0, 0.0);
  if (!outputs) {
    check.warnings.push_back(outputs.message());
    return check;
  }
  const runtime::RuntimePlan& plan = run.runtime.plan();
  for (std::size_t i = 0; i < outputs->size() && i < plan.outputs.size(); ++i) {
    const runtime::OutputCheck& o = (*outputs)[i];
    NodeCheck c;
    c.ref.name = o.name;
    c.ref.sparse = o.sparse;
    const int op = plan.producer[static_cast<std::size_t>(plan.outputs[i].slot)]; // -1: an argument
    if (op >= 0) {
      c.ref.ssa = plan.ops[static_cast<std::size_t>(op)].name();
      if (static_cast<std::size_t>(op) < run.opNodes.size()) c.ref.node = run.opNodes[static_cast<std::size_t>(op)];
    }
    c.problem = o.problem;
    c.divergence = o.divergence;
    c.exceeds = !c.compared() || c.divergence.relL2 > tolerance;
    if (c.exceeds && check.firstDivergent < 0) check.firstDivergent = static_cast<int>(check.nodes.size());
    check.nodes.push_back(std::move(c));
  }
  return check;
}

} // namespace lattice
