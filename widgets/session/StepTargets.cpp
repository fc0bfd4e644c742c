// StepTargets: group ends for Step Over and Step Out. Each query walks the node's ancestors and,
// for a group's last node, the node list once: linear in the graph, cheap next to a step.

#include "session/StepTargets.h"

namespace lattice::studio {

std::vector<int> groupsOf(const GraphGrouping& grouping, int node) {
  std::vector<int> out;
  if (node < 0 || node >= static_cast<int>(grouping.nodes().size())) return out;
  for (int g = grouping.nodes()[std::size_t(node)].group; g > 0; g = grouping.groups()[std::size_t(g)].parent)
    out.push_back(g);
  return out;
}

int collapsedGroupOf(const GraphGrouping& grouping, const ExpandedGroups& expanded, int node) {
  const std::vector<int> groups = groupsOf(grouping, node);
  for (auto it = groups.rbegin(); it != groups.rend(); ++it) // outermost first
    if (!expanded.count(grouping.groups()[std::size_t(*it)].path)) return *it;
  return -1;
}

int innermostModuleGroup(const GraphGrouping& grouping, int node) {
  for (int g : groupsOf(grouping, node))
    if (!grouping.groups()[std::size_t(g)].synthetic) return g;
  return -1;
}

int lastNodeOf(const GraphGrouping& grouping, int group) {
  if (group < 0 || group >= static_cast<int>(grouping.groups().size())) return -1;
  const std::vector<GroupedNode>& nodes = grouping.nodes();
  for (int n = static_cast<int>(nodes.size()) - 1; n >= 0; --n)
    if (grouping.contains(group, nodes[std::size_t(n)].group)) return n;
  return -1;
}

int nodeAfterGroup(const GraphGrouping& grouping, int group) {
  const int last = lastNodeOf(grouping, group);
  if (last < 0 || last + 1 >= static_cast<int>(grouping.nodes().size())) return -1;
  return last + 1;
}

int stepOverTarget(const GraphGrouping& grouping, const ExpandedGroups& expanded, int current) {
  const int size = static_cast<int>(grouping.nodes().size());
  if (current < 0 || current >= size) return -1;
  const int hidden = collapsedGroupOf(grouping, expanded, current);
  if (hidden >= 0) return nodeAfterGroup(grouping, hidden);
  return current + 1 < size ? current + 1 : -1;
}

int stepOutTarget(const GraphGrouping& grouping, int current) {
  const int group = innermostModuleGroup(grouping, current);
  return group < 0 ? -1 : nodeAfterGroup(grouping, group);
}

} // namespace lattice::studio
