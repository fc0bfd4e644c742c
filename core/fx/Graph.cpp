// Implements fx::Graph construction and mutation: node creation at the insertion point with
// torch.fx naming, erasure, lookup by name, lazy position numbering and lint(). Text output
// (print, printTabular) is in Printer.cpp. Unlike torch.fx, lint() cannot check
// call_module/get_attr targets: a Graph has no owning module.

#include "fx/Graph.h"

#include <algorithm>
#include <unordered_set>

namespace lattice::fx {

Node* Graph::insert(Op op, std::string target, ValueList args, Kwargs kwargs) {
  const bool atEnd = m_insertBefore == nullptr;
  const auto pos = atEnd ? m_nodes.end() : m_insertBefore->m_self;
  auto it = m_nodes.emplace(pos, Node::Key(), this, std::string(), op, std::move(target), std::move(args),
                            std::move(kwargs));
  Node* node = &*it;
  node->m_self = it;
  if (atEnd && !m_indexDirty)
    node->m_index = m_nodes.size() - 1;
  else
    m_indexDirty = true;
  node->linkInputs();
  return node;
}

Node* Graph::createNode(Op op, std::string target, ValueList args, Kwargs kwargs, std::string name) {
  std::string candidate = name.empty() ? candidateName(op, target) : std::move(name);
  // Inserted first so that naming can record the node; a failure to name takes it out again.
  Node* node = insert(op, std::move(target), std::move(args), std::move(kwargs));
  try {
    node->m_name = m_namespace.createName(std::move(candidate), node);
  } catch (...) {
    eraseNode(node); // a new node has no users
    throw;
  }
  return node;
}

Node* Graph::createNodeNamed(Op op, std::string target, ValueList args, Kwargs kwargs,
                             const std::string& name) {
  if (name.empty() || m_namespace.isUsed(name)) return nullptr;
  Node* node = insert(op, std::move(target), std::move(args), std::move(kwargs));
  try {
    node->m_name = name;
    m_namespace.reserve(name, node);
  } catch (...) {
    eraseNode(node);
    throw;
  }
  return node;
}

Node* Graph::placeholder(std::string name, std::optional<Value> defaultValue) {
  ValueList args;
  if (defaultValue) args.push_back(std::move(*defaultValue));
  return createNode(Op::Placeholder, std::move(name), std::move(args));
}

Node* Graph::getAttr(std::string qualifiedName) {
  return createNode(Op::GetAttr, std::move(qualifiedName));
}

Node* Graph::callModule(std::string target, ValueList args, Kwargs kwargs) {
  return createNode(Op::CallModule, std::move(target), std::move(args), std::move(kwargs));
}

Node* Graph::callFunction(std::string target, ValueList args, Kwargs kwargs) {
  return createNode(Op::CallFunction, std::move(target), std::move(args), std::move(kwargs));
}

Node* Graph::callMethod(std::string method, ValueList args, Kwargs kwargs) {
  return createNode(Op::CallMethod, std::move(method), std::move(args), std::move(kwargs));
}

Node* Graph::output(Value result) {
  ValueList args;
  args.push_back(std::move(result));
  return createNode(Op::Output, "output", std::move(args));
}

bool Graph::eraseNode(Node* node) {
  if (!node || node->m_graph != this || !node->m_users.empty()) return false;
  node->unlinkInputs();
  if (m_insertBefore == node) m_insertBefore = node->next();
  const bool wasLast = std::next(node->m_self) == m_nodes.end();
  m_namespace.release(node->m_name); // torch.fx keeps the name reserved
  m_nodes.erase(node->m_self);
  if (!wasLast) m_indexDirty = true;
  return true;
}

Node* Graph::findNode(const std::string& name) const {
  return m_namespace.owner(name);
}

Node* Graph::outputNode() const {
  for (auto it = m_nodes.rbegin(); it != m_nodes.rend(); ++it)
    if (it->op() == Op::Output) return const_cast<Node*>(&*it);
  return nullptr;
}

void Graph::renumber() const {
  std::size_t i = 0;
  for (const Node& n : m_nodes)
    n.m_index = i++;
  m_indexDirty = false;
}

Status Graph::lint() const {
  renumber();
  auto quoted = [](const std::string& s) { return "'" + s + "'"; };
  const std::size_t named = m_namespace.ownedCount();
  if (named != m_nodes.size())
    return makeError("graph lint: " + std::to_string(m_nodes.size()) + " nodes but " + std::to_string(named) +
                     " distinct names");

  std::size_t inputEdges = 0;
  std::size_t userEntries = 0;
  const Node* firstNonPlaceholder = nullptr;
  const Node* outputSeen = nullptr;
  for (const Node& n : m_nodes) {
    const std::string who = "graph lint: node " + quoted(n.name());
    if (n.m_graph != this) return makeError(who + " belongs to another graph");
    if (findNode(n.name()) != &n) return makeError(who + ": duplicate node name");
    if (n.target().empty()) return makeError(who + " has an empty target");
    if (outputSeen) return makeError(who + " follows the output node " + quoted(outputSeen->name()));
    if (n.op() == Op::Placeholder) {
      if (firstNonPlaceholder)
        return makeError(who + ": placeholder follows non-placeholder node " +
                         quoted(firstNonPlaceholder->name()));
    } else if (!firstNonPlaceholder) {
      firstNonPlaceholder = &n;
    }
    if (n.op() == Op::Output) outputSeen = &n;

    const std::vector<Node*> inputs = n.inputNodes();
    inputEdges += inputs.size();
    for (const Node* in : inputs) {
      if (in->m_graph != this || findNode(in->name()) != in)
        return makeError(who + " uses node " + quoted(in->name()) + " from another graph");
      if (in->m_index >= n.m_index)
        return makeError(who + " uses node " + quoted(in->name()) + " before its definition");
    }

    // Every users entry must be a distinct node of this graph that really uses `n`; with the
    // edge count equal below, the users lists then match the arguments exactly.
    userEntries += n.users().size();
    std::unordered_set<const Node*> seen;
    for (const Node* user : n.users()) {
      if (!user || user->m_graph != this || findNode(user->name()) != user)
        return makeError(who + " lists a user that is not in this graph");
      if (!seen.insert(user).second) return makeError(who + " lists user " + quoted(user->name()) + " twice");
      const std::vector<Node*> userInputs = user->inputNodes();
      if (std::find(userInputs.begin(), userInputs.end(), &n) == userInputs.end())
        return makeError(who + " lists user " + quoted(user->name()) + " that does not use it");
    }
  }
  if (inputEdges != userEntries)
    return makeError("graph lint: users lists do not match node arguments (" + std::to_string(inputEdges) +
                     " uses, " + std::to_string(userEntries) + " users entries)");
  return {};
}

} // namespace lattice::fx
