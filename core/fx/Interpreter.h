#pragma once
/// \file fx::Interpreter: runs a graph node by node, dispatching on the opcode to overridable
/// handlers (torch.fx.Interpreter). It keeps every node's value so each can be inspected, and
/// can run whole or step by step.

#include "fx/Graph.h"
#include "support/Expected.h"

#include <vector>

namespace lattice::fx {

class Interpreter {
public:
  explicit Interpreter(const Graph& graph);
  virtual ~Interpreter();

  /// Resets the environment and binds the inputs; the first node becomes current.
  void start(ValueList inputs);
  /// Executes the current node. Returns true when a node ran, false when already finished. On
  /// failure the error message is the handler's message followed by a blank line and
  /// "While executing <node.format()>", and `failedNode()` is set; the interpreter stays on
  /// that node and further steps return the same error until start() is called again.
  /// Stepping before start() is an error.
  Expected<bool> step();
  /// Steps until `node` is the current (not yet executed) node, or the end (a node that is not
  /// ahead of the current one runs the graph to its end).
  Status runUntil(const Node* node);
  /// Steps to the end.
  Status runToEnd();
  /// start + runToEnd; returns the output node's value (None when the graph has no output).
  Expected<Value> run(ValueList inputs);

  const Graph& graph() const { return m_graph; }
  /// The next node to execute; nullptr when finished or not started.
  const Node* currentNode() const { return m_current; }
  bool started() const { return m_started; }
  bool finished() const { return m_started && m_current == nullptr && !m_failedNode; }
  const Node* failedNode() const { return m_failedNode; }
  /// Values of executed nodes.
  const NodeValues& env() const { return m_env; }
  /// nullptr when the node has not run; valid until start().
  const Value* valueOf(const Node* node) const;
  /// The output node's value once finished.
  const Value& result() const { return m_result; }

protected:
  /// Handlers receive args/kwargs with node references already replaced by values. They report
  /// errors by throwing lattice::Exception. Defaults: placeholder takes the next input (a
  /// `*name` target takes all remaining ones as a list), falling back to its default args[0];
  /// output returns args[0]; the others throw "<op> is not supported by this interpreter: <target>".
  virtual Value placeholder(const Node& node, const std::string& target, const ValueList& args,
                            const Kwargs& kwargs);
  virtual Value getAttr(const Node& node, const std::string& target, const ValueList& args,
                        const Kwargs& kwargs);
  virtual Value callFunction(const Node& node, const std::string& target, const ValueList& args,
                             const Kwargs& kwargs);
  virtual Value callModule(const Node& node, const std::string& target, const ValueList& args,
                           const Kwargs& kwargs);
  virtual Value callMethod(const Node& node, const std::string& target, const ValueList& args,
                           const Kwargs& kwargs);
  virtual Value output(const Node& node, const std::string& target, const ValueList& args,
                       const Kwargs& kwargs);

  /// The node being executed (valid inside handlers).
  const Node* executingNode() const { return m_current; }

private:
  const Graph& m_graph;
  NodeValues m_env;
  ValueList m_inputs;
  std::size_t m_nextInput = 0;
  const Node* m_current = nullptr;
  const Node* m_failedNode = nullptr;
  std::string m_error;
  bool m_started = false;
  Value m_result;
};

} // namespace lattice::fx
