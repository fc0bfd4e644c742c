// A finished lowering as a runtime, with every op mapped to the FX node that emitted it.
#include "diff/LoweredRun.h"

#include "verify/MlirParser.h"

#include <unordered_map>

namespace lattice {

int LoweredRun::opEndOf(const std::string& node) const {
  for (int i = static_cast<int>(opNodes.size()); i > 0; --i)
    if (opNodes[static_cast<std::size_t>(i - 1)] == node) return i;
  return -1;
}

std::vector<int> LoweredRun::opsOf(const std::string& node) const {
  std::vector<int> ops;
  for (std::size_t i = 0; i < opNodes.size(); ++i)
    if (opNodes[i] == node) ops.push_back(static_cast<int>(i));
  return ops;
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
  LoweredRun out{std::move(*rt), {}, {}};
  const runtime::RuntimePlan& plan = out.runtime.plan();
  out.opNodes.reserve(plan.ops.size());
  for (const runtime::PlanOp& op : plan.ops) {
    auto owner = ownerOfResult.find(op.name());
    out.opNodes.push_back(owner == ownerOfResult.end() ? std::string() : owner->second);
  }
  if (!lowering.direct() && lowering.interpreter)
    out.nodeValues = artifactValuesByNode(*lowering.graph, *lowering.interpreter);
  return out;
}

} // namespace lattice
