#pragma once
/// \file What the lowering says about each node of a traced graph, from a dry run of the lowering
/// itself (prepareLowering on the graph, then every node through the lowering interpreter's own
/// handlers): the node lowers, the lowering refuses it (with its message), or it was not reached
/// because it uses the value of a refused node. Nothing is saved; the studio colours the graph
/// by these verdicts, so a node is marked lowerable exactly when the lowering lowers it.
///
/// \code
///   Expected<LoweringVerdicts> v = checkLowering(model, options, graph);
///   if (v && v->of("add").state == NodeVerdict::State::Refused) ...
/// \endcode

#include "lowering/Lowering.h"

#include <string>
#include <unordered_map>

namespace lattice {

/// The lowering's verdict on one node.
struct NodeVerdict {
  enum class State : unsigned char {
    Lowered,    ///< the node's handler ran (a call lowered, an input bound, an attribute read)
    Refused,    ///< the handler failed: `message` is the lowering's error
    NotReached, ///< an argument comes from a refused or unreached node: `message` names it
    Unknown,    ///< not in the graph the dry run covered
  };
  State state = State::Unknown;
  std::string message;
};

/// Verdicts by node name.
class LoweringVerdicts {
public:
  /// The verdict on `node` (Unknown when the dry run did not see it).
  const NodeVerdict& of(const std::string& node) const;
  void set(const std::string& node, NodeVerdict verdict) { m_byNode[node] = std::move(verdict); }
  std::size_t size() const { return m_byNode.size(); }

private:
  std::unordered_map<std::string, NodeVerdict> m_byNode;
};

/// A dry run of the lowering on `graph` (a trace of `model`, as prepareLowering borrows it) with
/// `options`: every node is run through the lowering interpreter; a node whose handler fails is
/// Refused and the run goes on past it, so nodes that do not depend on it still get a verdict.
/// Errors: what prepareLowering refuses before any node runs (no example inputs, training mode,
/// ...). A root lowered directly (§2.1 step 2) has one verdict per call node, from the lowering of
/// the root.
Expected<LoweringVerdicts> checkLowering(const Model& model, const ExportOptions& options, const fx::Graph& graph);

} // namespace lattice
