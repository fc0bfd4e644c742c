// GraphGrouping::build: assigns every FX node of a traced graph to a module group (the rule is
// documented in GraphGrouping.h), builds the group tree with children in graph order, and
// chunks wide groups into synthetic range groups.
//
// Deliberately not here: which groups are expanded and how anything is laid out (ViewGraph,
// ViewLayout), and any use of the Model: the grouping needs only the traced graph, whose
// call_module and get_attr targets already carry full module paths.

#include "layout/GraphGrouping.h"

#include <algorithm>
#include <atomic>
#include <unordered_set>

namespace lattice {

namespace {

std::string parentPath(const std::string& path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string lastComponent(const std::string& path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

std::atomic<std::uint64_t> gNextGroupingId{1};

/// Mutable state of one build.
struct Builder {
  std::vector<Group>& groups;
  std::vector<GroupedNode>& nodes;
  std::unordered_map<std::string, int>& groupIndex;
  std::vector<std::string> rangeFirst, rangeLast; // per group; set for range groups only

  int ensureGroup(const std::string& path) {
    auto it = groupIndex.find(path);
    if (it != groupIndex.end()) return it->second;
    const int parent = ensureGroup(parentPath(path)); // depth of recursion = module depth
    Group g;
    g.path = path;
    g.modulePath = path;
    g.name = lastComponent(path);
    g.parent = parent;
    groups.push_back(std::move(g));
    const int index = static_cast<int>(groups.size()) - 1;
    groupIndex.emplace(path, index);
    return index;
  }

  int depth(int g) const { return groups[g].depth; }

  int common(int a, int b) const {
    while (depth(a) > depth(b))
      a = groups[a].parent;
    while (depth(b) > depth(a))
      b = groups[b].parent;
    while (a != b) {
      a = groups[a].parent;
      b = groups[b].parent;
    }
    return a;
  }

  /// The deepest group holding at least two of `votes` (ties: the one reached first).
  int deepestShared(const std::vector<int>& votes) const {
    std::unordered_map<int, int> count;
    for (int v : votes)
      for (int g = v; g >= 0; g = groups[g].parent)
        ++count[g];
    int best = 0;
    for (int v : votes)
      for (int g = v; g >= 0; g = groups[g].parent)
        if (count[g] >= 2 && depth(g) > depth(best)) {
          best = g;
          break;
        }
    return best;
  }

  /// Display label of a child at the edge of a range: local module name, or the FX name.
  std::string edgeLabel(const GroupChild& c, bool first) const {
    if (c.isGroup) {
      const Group& g = groups[c.index];
      if (g.synthetic) return first ? rangeFirst[c.index] : rangeLast[c.index];
      return g.name;
    }
    const GroupedNode& n = nodes[c.index];
    if (n.op == fx::Op::CallModule || n.op == fx::Op::GetAttr) return lastComponent(n.target);
    return n.name;
  }

  std::size_t childCount(const GroupChild& c) const { return c.isGroup ? groups[c.index].nodeCount : 1; }

  /// Wraps runs of `chunk` children of group `gi` into range groups until at most `maxChildren`.
  void chunk(int gi, std::size_t maxChildren, std::size_t chunkSize) {
    while (groups[gi].children.size() > maxChildren) {
      std::vector<GroupChild> old = std::move(groups[gi].children);
      std::vector<GroupChild> wrapped;
      for (std::size_t begin = 0; begin < old.size(); begin += chunkSize) {
        const std::size_t end = std::min(old.size(), begin + chunkSize);
        if (end - begin < 2) {
          wrapped.push_back(old[begin]);
          continue;
        }
        const std::string first = edgeLabel(old[begin], true), last = edgeLabel(old[end - 1], false);
        Group r;
        r.name = "[" + first + ".." + last + "]";
        r.path = groups[gi].path + r.name;
        for (int k = 2; groupIndex.count(r.path); ++k)
          r.path = groups[gi].path + r.name + "~" + std::to_string(k);
        r.modulePath = groups[gi].modulePath;
        r.synthetic = true;
        r.parent = gi;
        const int ri = static_cast<int>(groups.size());
        for (std::size_t k = begin; k < end; ++k) {
          const GroupChild& c = old[k];
          if (c.isGroup)
            groups[c.index].parent = ri;
          else
            nodes[c.index].group = ri;
          r.nodeCount += childCount(c);
          r.children.push_back(c);
        }
        groups.push_back(std::move(r)); // invalidates references into `groups`
        groupIndex.emplace(groups[ri].path, ri);
        rangeFirst.resize(groups.size());
        rangeLast.resize(groups.size());
        rangeFirst[ri] = first;
        rangeLast[ri] = last;
        wrapped.push_back({true, ri});
      }
      groups[gi].children = std::move(wrapped);
    }
  }

  void computeDepths() {
    std::vector<int> stack{0};
    groups[0].depth = 0;
    while (!stack.empty()) {
      const int g = stack.back();
      stack.pop_back();
      for (const GroupChild& c : groups[g].children)
        if (c.isGroup) {
          groups[c.index].depth = groups[g].depth + 1;
          stack.push_back(c.index);
        }
    }
  }
};

} // namespace

GraphGrouping GraphGrouping::build(const fx::Graph& graph, const GroupingOptions& options) {
  GraphGrouping out;
  out.m_id = gNextGroupingId.fetch_add(1);
  Builder b{out.m_groups, out.m_nodes, out.m_groupIndex, {}, {}};
  Group root;
  root.modulePath = root.path = root.name = "";
  out.m_groups.push_back(root);
  out.m_groupIndex.emplace("", 0);

  std::unordered_map<const fx::Node*, int> index;
  std::unordered_set<std::string> leafTargets;
  index.reserve(graph.size());
  out.m_nodes.reserve(graph.size());
  out.m_nodeIndex.reserve(graph.size());
  std::vector<const std::string*> recordedPath; // kModulePathMeta of inlined operations
  recordedPath.reserve(graph.size());
  for (const fx::Node& n : graph.nodes()) {
    const auto meta = n.meta.find(fx::kModulePathMeta);
    recordedPath.push_back(meta == n.meta.end() ? nullptr : &meta->second);
    index.emplace(&n, static_cast<int>(out.m_nodes.size()));
    out.m_nodes.push_back({n.name(), n.op(), n.target(), -1});
    out.m_nodeIndex.emplace(n.name(), static_cast<int>(out.m_nodes.size()) - 1);
    if (n.op() == fx::Op::CallModule) leafTargets.insert(n.target());
  }

  // Pass 1: nodes whose op names their module (the anchors), the root's own nodes, and inlined
  // operations whose module the tracer recorded.
  for (std::size_t i = 0; i < out.m_nodes.size(); ++i) {
    GroupedNode& n = out.m_nodes[i];
    switch (n.op) {
    case fx::Op::CallModule:
      n.group = b.ensureGroup(parentPath(n.target));
      break;
    case fx::Op::GetAttr: {
      std::string owner = parentPath(n.target);
      if (leafTargets.count(owner)) owner = parentPath(owner);
      n.group = b.ensureGroup(owner);
      break;
    }
    case fx::Op::Placeholder:
    case fx::Op::Output:
      n.group = 0;
      break;
    case fx::Op::CallFunction:
    case fx::Op::CallMethod:
      if (recordedPath[i]) n.group = b.ensureGroup(*recordedPath[i]);
      break;
    }
  }
  // Depths by parent chains (the tree has no children lists yet); parents precede children.
  for (std::size_t g = 1; g < out.m_groups.size(); ++g)
    out.m_groups[g].depth = out.m_groups[out.m_groups[g].parent].depth + 1;

  // Pass 2: inlined operations, in graph order (producers are assigned by then).
  for (const fx::Node& fn : graph.nodes()) {
    GroupedNode& n = out.m_nodes[index.at(&fn)];
    if (n.group >= 0) continue;
    std::vector<int> votes;
    int owner = -1; // deepest common group of get_attr producers: whoever reads `self.w` owns the op
    for (const fx::Node* p : fn.inputNodes()) {
      const GroupedNode& producer = out.m_nodes[index.at(p)];
      votes.push_back(producer.group);
      if (producer.op == fx::Op::GetAttr)
        owner = owner < 0 ? producer.group : b.common(owner, producer.group);
    }
    int consumers = -1;
    for (const fx::Node* u : fn.users()) {
      const int g = out.m_nodes[index.at(u)].group;
      if (g >= 0) consumers = consumers < 0 ? g : b.common(consumers, g);
    }
    if (owner >= 0) {
      n.group = owner;
    } else if (votes.size() == 1) {
      n.group = votes.front();
    } else if (votes.empty()) {
      n.group = consumers >= 0 ? consumers : 0;
    } else {
      if (consumers >= 0) votes.push_back(consumers);
      n.group = b.deepestShared(votes);
    }
  }

  // Children in graph order of first appearance; subtree node counts.
  std::vector<char> seen(out.m_groups.size(), 0);
  seen[0] = 1;
  for (std::size_t i = 0; i < out.m_nodes.size(); ++i) {
    const int g = out.m_nodes[i].group;
    out.m_groups[g].children.push_back({false, static_cast<int>(i)});
    for (int h = g; h >= 0; h = out.m_groups[h].parent)
      ++out.m_groups[h].nodeCount;
    for (int h = g; !seen[h]; h = out.m_groups[h].parent) {
      seen[h] = 1;
      out.m_groups[out.m_groups[h].parent].children.push_back({true, h});
    }
  }

  const std::size_t maxChildren = std::max<std::size_t>(2, options.maxChildren);
  const std::size_t chunkSize = std::clamp<std::size_t>(options.chunkSize, 2, maxChildren);
  b.rangeFirst.resize(out.m_groups.size());
  b.rangeLast.resize(out.m_groups.size());
  const std::size_t moduleGroups = out.m_groups.size();
  for (std::size_t g = 0; g < moduleGroups; ++g)
    b.chunk(static_cast<int>(g), maxChildren, chunkSize);
  b.computeDepths();

  for (const fx::Node& fn : graph.nodes()) {
    const int consumer = index.at(&fn);
    for (const fx::Node* p : fn.inputNodes())
      out.m_edges.emplace_back(index.at(p), consumer);
  }
  return out;
}

int GraphGrouping::findGroup(const std::string& path) const {
  auto it = m_groupIndex.find(path);
  return it == m_groupIndex.end() ? -1 : it->second;
}

int GraphGrouping::findNode(const std::string& name) const {
  auto it = m_nodeIndex.find(name);
  return it == m_nodeIndex.end() ? -1 : it->second;
}

std::vector<std::string> GraphGrouping::groupPathsOf(const std::string& nodeName) const {
  std::vector<std::string> out;
  const int n = findNode(nodeName);
  if (n < 0) return out;
  for (int g = m_nodes[n].group; g > 0; g = m_groups[g].parent)
    out.push_back(m_groups[g].path);
  std::reverse(out.begin(), out.end());
  return out;
}

bool GraphGrouping::contains(int ancestor, int group) const {
  while (group >= 0 && m_groups[group].depth > m_groups[ancestor].depth)
    group = m_groups[group].parent;
  return group == ancestor;
}

int GraphGrouping::commonGroup(int a, int b) const {
  while (m_groups[a].depth > m_groups[b].depth)
    a = m_groups[a].parent;
  while (m_groups[b].depth > m_groups[a].depth)
    b = m_groups[b].parent;
  while (a != b) {
    a = m_groups[a].parent;
    b = m_groups[b].parent;
  }
  return a;
}

} // namespace lattice
