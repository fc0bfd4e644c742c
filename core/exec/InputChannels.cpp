// inputChannelNeeds: the lowering in memory with open input widths, then the verifier's channel
// rules over its text and weight shapes (no weight bytes are produced: deferred tensors know
// their shapes).

#include "exec/InputChannels.h"

#include "mlir/MlirParser.h"
#include "verify/ArtifactVerifier.h"

#include <unordered_map>

namespace lattice {

Expected<std::vector<InputChannelNeed>> inputChannelNeeds(const Model& model, ExportOptions options,
                                                          const fx::Graph* graph) {
  std::vector<InputSpec> specs = options.inputs ? *options.inputs : model.exampleInputs;
  for (InputSpec& spec : specs)
    if (spec.kind == InputSpec::Kind::Sparse) spec.channels.reset();
  options.inputs = specs;
  options.validate = false;
  Expected<PreparedLowering> lowering = prepareLowering(model, options, graph);
  if (!lowering) return lowering.error();
  if (Status s = finishLowering(*lowering); !s) return s.error();
  TorchLatticeArtifactBuilder& builder = *lowering->builder;
  Expected<std::string> text = builder.toMlir();
  if (!text) return text.error();
  ArtifactParseResult parsed = parseArtifactGraph(*text, "graph.mlir");
  if (!parsed.ok()) return makeError(parsed.error.str());
  const std::vector<ArgumentChannelNeed> needs =
      argumentChannelNeeds(*parsed.graph, [&builder](const std::string& key) { return builder.weight(key); });

  // Function argument → input spec: a sparse input is three arguments (coords, features,
  // active), a dense one is one.
  std::vector<std::size_t> inputOfArgument;
  for (std::size_t i = 0; i < specs.size(); ++i)
    for (int k = 0; k < (specs[i].kind == InputSpec::Kind::Sparse ? 3 : 1); ++k) inputOfArgument.push_back(i);
  std::unordered_map<std::string, std::string> ownerOfResult;
  for (const OpProvenance& record : builder.provenance()) {
    if (record.kind != OpProvenance::Kind::Op) continue;
    for (std::string& name : builder.resultsOf(record)) ownerOfResult.emplace(std::move(name), builder.ownerOf(record));
  }
  std::vector<InputChannelNeed> out;
  for (const ArgumentChannelNeed& need : needs) {
    if (need.argument >= inputOfArgument.size()) continue;
    InputChannelNeed n;
    n.input = inputOfArgument[need.argument];
    n.channels = need.channels;
    n.op = need.op;
    n.weightKey = need.weightKey;
    const auto owner = ownerOfResult.find(need.result);
    if (owner != ownerOfResult.end()) n.node = owner->second;
    out.push_back(std::move(n));
  }
  return out;
}

} // namespace lattice
