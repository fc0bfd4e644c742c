#pragma once
/// \file fx::Node: one operation of an FX graph (torch.fx's six opcodes).

#include "fx/Value.h"

#include <absl/container/node_hash_map.h>

#include <list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace lattice::fx {

/// `Node::meta` key the tracer sets on every `call_function` / `call_method` node it inlines:
/// the path of the module whose forward made the call ("" for the root), like the innermost
/// entry of torch.fx's `nn_module_stack`. The studio groups inlined operations by it.
inline constexpr const char* kModulePathMeta = "module_path";

class Graph;

enum class Op : unsigned char { Placeholder, GetAttr, CallFunction, CallModule, CallMethod, Output };

class Node;
/// A graph's nodes in order: a list, so node addresses and iterators stay valid while other nodes
/// come and go.
using NodeList = std::list<Node>;
/// Node → value: the interpreter's environment and the tracer's per-frame values. A node-based
/// map: a value's address stays valid while other nodes get theirs (the studio's value table
/// keeps pointers).
using NodeValues = absl::node_hash_map<const Node*, Value>;

/// "placeholder", "get_attr", "call_function", "call_module", "call_method", "output".
std::string_view opName(Op op);
/// Parses an opcode name; false when unknown.
bool parseOp(std::string_view name, Op& out);

class Node {
public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const std::string& name() const { return m_name; }
  Op op() const { return m_op; }
  const std::string& target() const { return m_target; }
  const ValueList& args() const { return m_args; }
  const Kwargs& kwargs() const { return m_kwargs; }
  /// Consumers, in the order they were first linked (like torch.fx's `users` dict).
  const std::vector<Node*>& users() const { return m_users; }
  /// Distinct producer nodes referenced by args then kwargs, in first-use order.
  std::vector<Node*> inputNodes() const;
  Graph* graph() const { return m_graph; }

  /// Replace arguments; users of old and new producers are kept consistent.
  void setArgs(ValueList args);
  void setKwargs(Kwargs kwargs);
  void setTarget(std::string target) { m_target = std::move(target); }
  /// Rewrites every use of this node to `replacement`; returns the former users.
  std::vector<Node*> replaceAllUsesWith(Node* replacement);

  /// Previous/next node in graph order (nullptr at the ends).
  Node* prev() const;
  Node* next() const;
  /// Position in the graph (0-based). Recomputed lazily (one O(n) pass) after the graph
  /// changes anywhere but at its end.
  std::size_t index() const;

  /// Free-form metadata that copies preserve (torch.fx `meta`).
  std::map<std::string, std::string> meta;

  /// torch.fx `format_node()`:
  /// `%add_1 : [num_users=1] = call_function[target=operator.add](args = (%x, %w), kwargs = {})`.
  /// Like torch's `_format_arg`, leaf arguments print with Python `str()`: strings and kwargs
  /// keys unquoted (`kwargs = {dim: 1, mode: nearest}`). Output: `return <str(args[0])>`.
  std::string format() const;

  /// Construction token: only Graph can make one (std::list needs a public constructor).
  class Key {
    friend class Graph;
    Key() {} // user-provided, so `Key{}` is not an aggregate anyone could build
  };
  Node(Key, Graph* graph, std::string name, Op op, std::string target, ValueList args, Kwargs kwargs)
      : Node(graph, std::move(name), op, std::move(target), std::move(args), std::move(kwargs)) {}

private:
  friend class Graph;
  Node(Graph* graph, std::string name, Op op, std::string target, ValueList args, Kwargs kwargs);
  /// Adds this node once to the users list of each distinct producer; it must be in none yet.
  void linkInputs();
  void unlinkInputs() { unlinkInputs(nullptr); }
  /// Removes this node from its producers' users lists, skipping `skip` (already detached).
  void unlinkInputs(const Node* skip);
  /// Replaces args and kwargs and re-links users (torch.fx `__update_args_kwargs`).
  void updateArgsKwargs(ValueList args, Kwargs kwargs, const Node* detachedFrom = nullptr);

  Graph* m_graph;
  std::string m_name;
  Op m_op;
  std::string m_target;
  ValueList m_args;
  Kwargs m_kwargs;
  std::vector<Node*> m_users;
  NodeList::iterator m_self;
  mutable std::size_t m_index = 0;
};

} // namespace lattice::fx
