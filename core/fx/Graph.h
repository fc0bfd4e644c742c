#pragma once
/// \file fx::Graph: an ordered list of nodes with unique names (torch.fx.Graph). The namespace
/// that names the nodes also indexes them by name.

#include "fx/Node.h"
#include "fx/Namespace.h"
#include "support/Expected.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lattice::fx {

class Graph {
public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  /// The one way nodes are made. `name` empty: derived from op/target by torch.fx's rule
  /// (Namespace). A given `name` is still made unique. Inserted at the insertion point.
  Node* createNode(Op op, std::string target, ValueList args = {}, Kwargs kwargs = {},
                   std::string name = {});
  /// Like createNode but keeps `name` exactly (e.g. reading a saved graph); nullptr when the
  /// name is empty or already used.
  Node* createNodeNamed(Op op, std::string target, ValueList args, Kwargs kwargs,
                        const std::string& name);
  Node* placeholder(std::string name, std::optional<Value> defaultValue = std::nullopt);
  Node* getAttr(std::string qualifiedName);
  Node* callModule(std::string target, ValueList args = {}, Kwargs kwargs = {});
  Node* callFunction(std::string target, ValueList args = {}, Kwargs kwargs = {});
  Node* callMethod(std::string method, ValueList args = {}, Kwargs kwargs = {});
  Node* output(Value result);

  /// Removes a node without users; false (and nothing changed) when it still has users.
  bool eraseNode(Node* node);

  /// New nodes go before `node` (nullptr: append at the end). Erasing the insertion point moves
  /// it to the erased node's successor.
  void setInsertPoint(Node* before) { m_insertBefore = before; }
  Node* insertPoint() const { return m_insertBefore; }
  /// Scoped insertion point that restores the previous one (torch.fx `inserting_before`).
  class InsertGuard {
  public:
    InsertGuard(Graph& g, Node* before) : m_g(g), m_saved(g.m_insertBefore) { g.m_insertBefore = before; }
    ~InsertGuard() { m_g.m_insertBefore = m_saved; }
    InsertGuard(const InsertGuard&) = delete;
    InsertGuard& operator=(const InsertGuard&) = delete;
  private:
    Graph& m_g;
    Node* m_saved;
  };

  NodeList& nodes() { return m_nodes; }
  const NodeList& nodes() const { return m_nodes; }
  std::size_t size() const { return m_nodes.size(); }
  /// nullptr when absent.
  Node* findNode(const std::string& name) const;
  /// The output node, or nullptr.
  Node* outputNode() const;

  /// Checks: unique names, every referenced node belongs to this graph and precedes its user,
  /// users lists agree with arguments, at most one output and it is last, placeholders first.
  Status lint() const;

  /// torch.fx `print(graph)`: "graph():\n    %x : [num_users=1] = placeholder[target=x]\n ... \n    return y\n".
  std::string print() const;
  /// torch.fx `print_tabular()` (tabulate "simple" format with opcode/name/target/args/kwargs;
  /// lines right-stripped, ending in a newline). call_function targets show the canonical name.
  std::string printTabular() const;

private:
  friend class Node;

  void renumber() const;
  /// Puts a new node, still unnamed, at the insertion point and links it to its producers.
  Node* insert(Op op, std::string target, ValueList args, Kwargs kwargs);

  NodeList m_nodes;
  /// Names and name → node. An erased node's name is released but stays used (as in torch.fx).
  Namespace m_namespace;
  Node* m_insertBefore = nullptr;
  mutable bool m_indexDirty = false;
};

} // namespace lattice::fx
