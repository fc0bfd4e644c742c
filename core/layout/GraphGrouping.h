#pragma once
/// \file GraphGrouping: the module hierarchy of a traced FX graph as a tree of groups, the
/// skeleton of the studio's collapsible graph view (ViewGraph.h, ViewLayout.h).
///
/// Membership rule (documented once here, implemented in GraphGrouping.cpp). Every FX node has
/// one innermost group; it also belongs to all ancestors of that group.
///  - `call_module` node: the module that made the call, i.e. the parent path of its target
///    (`encoders.0.1.main.0` → innermost `encoders.0.1.main`, so the node is in `encoders`,
///    `encoders.0`, `encoders.0.1` and `encoders.0.1.main`).
///  - `get_attr` node: the module that owns the attribute (`stem.0.weight` → `stem.0`); when
///    that module is itself a traced leaf (a `call_module` target), its parent instead.
///  - `placeholder` and `output`: the root group.
///  - `call_function` / `call_method`: the module recorded by the tracer in the node's
///    `fx::kModulePathMeta` meta entry (the forward that made the call). Graphs without it (read
///    from a file, built by hand) have it inferred from the neighbours, in graph order:
///    1. with `get_attr` producers: the deepest group holding all of them (the module reading
///       `self.weight` runs the op);
///    2. else with one producer: that producer's innermost group (a call_module producer's
///       group is the forward that made the call, where an op on its result usually lives);
///    3. else with several producers: each producer votes for its group, the consumers
///       already placed (call_module nodes, the output) vote once for their deepest common
///       group, and the node goes to the deepest group
///       holding at least two votes (ties: the first vote's). A residual `add` of `b.main.4` and
///       `b.shortcut` feeding `b.relu` lands in `b`; sparse_resunet42's `cat` of
///       `decoders.0.upsample.2` and a skip, feeding `decoders.0.fuse.0`, lands in `decoders.0`;
///    4. else (no producers): the consumers' deepest common group, or the root.
///
/// Wide groups: a group with more than `maxChildren` children (sub-groups and nodes, in graph
/// order) has them chunked into synthetic range groups of `chunkSize` consecutive children,
/// labelled by their first and last child (`blocks[0..99]`, `blocks[100..199]`, ...), repeated
/// until no group has more than `maxChildren` children (chain:10000: `blocks` gets 100 ranges of
/// 100 blocks). A trailing chunk of one child is not wrapped. Range groups are ordinary groups
/// of the tree (they can be expanded and collapsed) whose `modulePath` is the real module.

#include "fx/Graph.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace lattice {

struct GroupingOptions {
  std::size_t maxChildren = 200; ///< a group with more children is chunked
  std::size_t chunkSize = 100;   ///< children per synthetic range group (at least 2)
};

/// A child of a group: one FX node or one sub-group, by index.
struct GroupChild {
  bool isGroup = false;
  int index = 0; ///< into GraphGrouping::groups() or ::nodes()
};

/// One group of the tree. `groups()[0]` is the root (path "").
struct Group {
  std::string path;                 ///< unique id: module path ("encoders.0") or range ("blocks[0..99]")
  std::string modulePath;           ///< the module the group stands for (a range: its owner module)
  std::string name;                 ///< short display name: last path component ("0") or "[0..99]"
  bool synthetic = false;           ///< a range group made by chunking
  int parent = -1;                  ///< index of the enclosing group; -1 for the root
  int depth = 0;                    ///< root 0
  std::vector<GroupChild> children; ///< in graph order of their first node
  std::size_t nodeCount = 0;        ///< FX nodes in the whole subtree
};

/// One FX node of the grouped graph (names copied: no pointer into the fx::Graph is kept).
struct GroupedNode {
  std::string name; ///< the FX node's unique name
  fx::Op op = fx::Op::CallFunction;
  std::string target;
  int group = 0; ///< innermost group
};

class GraphGrouping {
public:
  /// Groups `graph` (linear in its size times the module depth).
  static GraphGrouping build(const fx::Graph& graph, const GroupingOptions& options = {});

  const std::vector<Group>& groups() const { return m_groups; }
  /// Every FX node, in graph order.
  const std::vector<GroupedNode>& nodes() const { return m_nodes; }
  /// Distinct producer → consumer pairs of node indices, in consumer graph order.
  const std::vector<std::pair<int, int>>& edges() const { return m_edges; }

  /// Group index by path, -1 when absent.
  int findGroup(const std::string& path) const;
  /// Node index by FX name, -1 when absent.
  int findNode(const std::string& name) const;
  /// Paths of the groups holding the node, outermost first, root excluded; empty when the node
  /// is in the root group or unknown.
  std::vector<std::string> groupPathsOf(const std::string& nodeName) const;
  /// True when `ancestor` is `group` or encloses it.
  bool contains(int ancestor, int group) const;
  /// Innermost group enclosing both.
  int commonGroup(int a, int b) const;

  /// Process-unique id of this grouping (layout caches use it to notice a different graph).
  std::uint64_t id() const { return m_id; }

private:
  std::vector<Group> m_groups;
  std::vector<GroupedNode> m_nodes;
  std::vector<std::pair<int, int>> m_edges;
  std::unordered_map<std::string, int> m_groupIndex;
  std::unordered_map<std::string, int> m_nodeIndex;
  std::uint64_t m_id = 0;
};

} // namespace lattice
