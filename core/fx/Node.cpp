// Implements fx::Node bookkeeping: opcode names, argument updates that keep every producer's
// `users` list consistent (torch.fx `__update_args_kwargs`), replaceAllUsesWith and list
// navigation. Printing is in Printer.cpp.

#include "fx/Node.h"

#include "fx/Graph.h"

#include <algorithm>

namespace lattice::fx {

namespace {
constexpr std::string_view kOpNames[] = {"placeholder", "get_attr",    "call_function",
                                         "call_module", "call_method", "output"};
} // namespace

std::string_view opName(Op op) {
  return kOpNames[static_cast<int>(op)];
}

bool parseOp(std::string_view name, Op& out) {
  for (int i = 0; i < 6; ++i) {
    if (kOpNames[i] == name) {
      out = static_cast<Op>(i);
      return true;
    }
  }
  return false;
}

Node::Node(Graph* graph, std::string name, Op op, std::string target, ValueList args, Kwargs kwargs)
    : m_graph(graph), m_name(std::move(name)), m_op(op), m_target(std::move(target)), m_args(std::move(args)),
      m_kwargs(std::move(kwargs)) {}

std::vector<Node*> Node::inputNodes() const {
  std::vector<Node*> out;
  auto add = [&out](Node* n) {
    // Nodes have few distinct inputs: a linear scan beats a hash set here.
    if (n && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  for (const Value& v : m_args)
    forEachNode(v, add);
  for (const auto& kv : m_kwargs)
    forEachNode(kv.second, add);
  return out;
}

void Node::linkInputs() {
  // Each distinct producer lists this node once. This node is in no users list yet, and the
  // producers are linked in one pass, so one already linked has this node last: no scratch list
  // of distinct inputs is needed (this runs for every node a trace creates).
  auto link = [this](Node* producer) {
    if (producer && (producer->m_users.empty() || producer->m_users.back() != this))
      producer->m_users.push_back(this);
  };
  for (const Value& v : m_args)
    forEachNode(v, link);
  for (const auto& kv : m_kwargs)
    forEachNode(kv.second, link);
}

void Node::unlinkInputs(const Node* skip) {
  for (Node* producer : inputNodes()) {
    if (producer == skip) continue;
    auto& users = producer->m_users;
    auto it = std::find(users.begin(), users.end(), this);
    if (it != users.end()) users.erase(it);
  }
}

void Node::updateArgsKwargs(ValueList args, Kwargs kwargs, const Node* detachedFrom) {
  unlinkInputs(detachedFrom);
  m_args = std::move(args);
  m_kwargs = std::move(kwargs);
  linkInputs();
}

void Node::setArgs(ValueList args) {
  updateArgsKwargs(std::move(args), m_kwargs);
}

void Node::setKwargs(Kwargs kwargs) {
  updateArgsKwargs(m_args, std::move(kwargs));
}

std::vector<Node*> Node::replaceAllUsesWith(Node* replacement) {
  // Detach all users at once so a node with many users is rewritten in linear time.
  std::vector<Node*> former = std::move(m_users);
  m_users.clear();
  auto swap = [this, replacement](Node* n) { return Value::node(n == this ? replacement : n); };
  for (Node* user : former) {
    ValueList args;
    args.reserve(user->m_args.size());
    for (const Value& v : user->m_args)
      args.push_back(mapNodes(v, swap));
    Kwargs kwargs;
    kwargs.reserve(user->m_kwargs.size());
    for (const auto& kv : user->m_kwargs)
      kwargs.emplace_back(kv.first, mapNodes(kv.second, swap));
    user->updateArgsKwargs(std::move(args), std::move(kwargs), this);
  }
  // A user may now reference this node again only if replacement == this.
  return former;
}

Node* Node::prev() const {
  if (!m_graph || m_self == m_graph->m_nodes.begin()) return nullptr;
  return &*std::prev(m_self);
}

Node* Node::next() const {
  if (!m_graph) return nullptr;
  auto it = std::next(m_self);
  return it == m_graph->m_nodes.end() ? nullptr : &*it;
}

std::size_t Node::index() const {
  if (m_graph && m_graph->m_indexDirty) m_graph->renumber();
  return m_index;
}

} // namespace lattice::fx
