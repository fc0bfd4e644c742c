// checkLowering: a dry run of the lowering that records, per node, whether the lowering's own
// handler accepted it. The probe is the lowering interpreter itself (LatticeArtifactInterpreter);
// it only catches a handler's refusal, records it and puts an inert value in the node's place, so
// the run continues; a node that uses such a value is not run at all (NotReached).

#include "lowering/LoweringVerdicts.h"

#include <exception>
#include <unordered_set>

namespace lattice {

namespace {

const NodeVerdict kUnknown{};

class LoweringProbe final : public LatticeArtifactInterpreter {
public:
  LoweringProbe(const Model& model, const fx::Graph& graph, TorchLatticeArtifactBuilder& builder,
                LoweringVerdicts& verdicts)
      : LatticeArtifactInterpreter(model, graph, builder), m_verdicts(verdicts) {}

protected:
  fx::Value placeholder(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                        const fx::Kwargs& kwargs) override {
    return probe(node, [&] { return LatticeArtifactInterpreter::placeholder(node, target, args, kwargs); });
  }
  fx::Value getAttr(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                    const fx::Kwargs& kwargs) override {
    return probe(node, [&] { return LatticeArtifactInterpreter::getAttr(node, target, args, kwargs); });
  }
  fx::Value callModule(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                       const fx::Kwargs& kwargs) override {
    return probe(node, [&] { return LatticeArtifactInterpreter::callModule(node, target, args, kwargs); });
  }
  fx::Value callFunction(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                         const fx::Kwargs& kwargs) override {
    return probe(node, [&] { return LatticeArtifactInterpreter::callFunction(node, target, args, kwargs); });
  }
  fx::Value callMethod(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                       const fx::Kwargs& kwargs) override {
    return probe(node, [&] { return LatticeArtifactInterpreter::callMethod(node, target, args, kwargs); });
  }
  fx::Value output(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                   const fx::Kwargs& kwargs) override {
    return probe(node, [&] {
      fx::Value out = LatticeArtifactInterpreter::output(node, target, args, kwargs);
      // The outputs must be artifact values (§2.4): the lowering's own check.
      if (Expected<std::vector<ArtifactValuePtr>> leaves = flattenArtifactOutputs(out); !leaves)
        throw Exception{leaves.message()};
      return out;
    });
  }

private:
  template <typename Fn> fx::Value probe(const fx::Node& node, Fn&& run) {
    for (const fx::Node* input : node.inputNodes()) {
      if (!m_blocked.count(input)) continue;
      m_verdicts.set(node.name(), {NodeVerdict::State::NotReached,
                                   "uses " + input->name() + ", which the lowering does not reach past"});
      m_blocked.insert(&node);
      return fx::Value::none();
    }
    std::string refusal;
    try {
      fx::Value value = run();
      m_verdicts.set(node.name(), {NodeVerdict::State::Lowered, {}});
      return value;
    } catch (const Exception& e) {
      refusal = e.message;
    } catch (const std::exception& e) {
      refusal = e.what();
    }
    m_verdicts.set(node.name(), {NodeVerdict::State::Refused, refusal});
    m_blocked.insert(&node);
    return fx::Value::none();
  }

  LoweringVerdicts& m_verdicts;
  std::unordered_set<const fx::Node*> m_blocked;
};

fx::ValueList toFxValues(const std::vector<ArtifactValuePtr>& values) {
  fx::ValueList out;
  out.reserve(values.size());
  for (const ArtifactValuePtr& v : values) out.push_back(toFxValue(v));
  return out;
}

} // namespace

const NodeVerdict& LoweringVerdicts::of(const std::string& node) const {
  const auto it = m_byNode.find(node);
  return it == m_byNode.end() ? kUnknown : it->second;
}

Expected<LoweringVerdicts> checkLowering(const Model& model, const ExportOptions& options, const fx::Graph& graph) {
  Expected<PreparedLowering> prepared = prepareLowering(model, options, &graph);
  if (!prepared) return prepared.error();
  LoweringVerdicts verdicts;
  if (prepared->direct()) {
    // The root has a lowering of its own: its verdict stands for every call in the graph.
    const Status lowered = finishLowering(*prepared);
    for (const fx::Node& node : graph.nodes()) {
      const bool call = node.op() == fx::Op::CallModule || node.op() == fx::Op::CallFunction ||
                        node.op() == fx::Op::CallMethod;
      if (!call) continue;
      verdicts.set(node.name(), lowered ? NodeVerdict{NodeVerdict::State::Lowered, {}}
                                        : NodeVerdict{NodeVerdict::State::Refused, lowered.message()});
    }
    return verdicts;
  }
  prepared->interpreter.reset(); // the probe interprets the same graph into the same builder
  LoweringProbe probe(model, graph, *prepared->builder, verdicts);
  probe.start(toFxValues(prepared->inputs));
  while (probe.currentNode()) {
    Expected<bool> stepped = probe.step();
    if (!stepped || !*stepped) break; // the probe's handlers do not fail; the base's own errors stop it
  }
  return verdicts;
}

} // namespace lattice
