// Implements fx::Interpreter: torch.fx.Interpreter's run loop split into steps, with every
// node's value kept in env(). It does not free values after their last use (torch's
// garbage_collect_values) because the studio shows them all, and it has no module to resolve
// get_attr/call_module against: subclasses provide those handlers.

#include "fx/Interpreter.h"

#include <exception>

namespace lattice::fx {

Interpreter::Interpreter(const Graph& graph) : m_graph(graph) {}

Interpreter::~Interpreter() = default;

void Interpreter::start(ValueList inputs) {
  m_env.clear();
  m_env.reserve(m_graph.size()); // every node gets a value
  m_inputs = std::move(inputs);
  m_nextInput = 0;
  m_current = m_graph.nodes().empty() ? nullptr : &m_graph.nodes().front();
  m_failedNode = nullptr;
  m_error.clear();
  m_started = true;
  m_result = Value();
}

Expected<bool> Interpreter::step() {
  if (!m_started) return makeError("interpreter: step() before start()");
  if (m_failedNode) return makeError(m_error);
  if (!m_current) return false;
  const Node& node = *m_current;
  try {
    auto lookup = [this](Node* producer) -> Value {
      const auto it = m_env.find(producer);
      if (it == m_env.end())
        throw Exception{"node '" + (producer ? producer->name() : std::string("<null>")) +
                        "' is used before it has a value"};
      return it->second;
    };
    ValueList args;
    args.reserve(node.args().size());
    for (const Value& v : node.args())
      args.push_back(mapNodes(v, lookup));
    Kwargs kwargs;
    kwargs.reserve(node.kwargs().size());
    for (const auto& kv : node.kwargs())
      kwargs.emplace_back(kv.first, mapNodes(kv.second, lookup));

    Value result;
    switch (node.op()) {
    case Op::Placeholder:
      result = placeholder(node, node.target(), args, kwargs);
      break;
    case Op::GetAttr:
      result = getAttr(node, node.target(), args, kwargs);
      break;
    case Op::CallFunction:
      result = callFunction(node, node.target(), args, kwargs);
      break;
    case Op::CallModule:
      result = callModule(node, node.target(), args, kwargs);
      break;
    case Op::CallMethod:
      result = callMethod(node, node.target(), args, kwargs);
      break;
    case Op::Output:
      result = output(node, node.target(), args, kwargs);
      break;
    }
    if (node.op() == Op::Output) m_result = result;
    m_env[&node] = std::move(result);
  } catch (const Exception& e) {
    m_failedNode = &node;
    m_error = e.message + "\n\nWhile executing " + node.format();
    return makeError(m_error);
  } catch (const std::exception& e) {
    m_failedNode = &node;
    m_error = std::string(e.what()) + "\n\nWhile executing " + node.format();
    return makeError(m_error);
  }
  m_current = node.next();
  return true;
}

Status Interpreter::runUntil(const Node* node) {
  if (!m_started) return makeError("interpreter: runUntil() before start()");
  while (m_current && m_current != node) {
    Expected<bool> stepped = step();
    if (!stepped) return stepped.error();
  }
  if (m_failedNode) return makeError(m_error);
  return {};
}

Status Interpreter::runToEnd() {
  return runUntil(nullptr);
}

Expected<Value> Interpreter::run(ValueList inputs) {
  start(std::move(inputs));
  Status s = runToEnd();
  if (!s) return s.error();
  return m_result;
}

const Value* Interpreter::valueOf(const Node* node) const {
  const auto it = m_env.find(node);
  return it == m_env.end() ? nullptr : &it->second;
}

Value Interpreter::placeholder(const Node& node, const std::string& target, const ValueList& args,
                               const Kwargs& kwargs) {
  if (!target.empty() && target[0] == '*') {
    ValueList rest(m_inputs.begin() + static_cast<std::ptrdiff_t>(m_nextInput), m_inputs.end());
    m_nextInput = m_inputs.size();
    return Value::list(std::move(rest));
  }
  if (m_nextInput < m_inputs.size()) return m_inputs[m_nextInput++];
  if (!args.empty()) return args[0];
  throw Exception{"Expected positional argument for parameter " + target + ", but one was not passed in!"};
}

Value Interpreter::getAttr(const Node&, const std::string& target, const ValueList&, const Kwargs&) {
  throw Exception{"get_attr is not supported by this interpreter: " + target};
}

Value Interpreter::callFunction(const Node&, const std::string& target, const ValueList&, const Kwargs&) {
  throw Exception{"call_function is not supported by this interpreter: " + target};
}

Value Interpreter::callModule(const Node&, const std::string& target, const ValueList&, const Kwargs&) {
  throw Exception{"call_module is not supported by this interpreter: " + target};
}

Value Interpreter::callMethod(const Node&, const std::string& target, const ValueList&, const Kwargs&) {
  throw Exception{"call_method is not supported by this interpreter: " + target};
}

Value Interpreter::output(const Node&, const std::string&, const ValueList& args, const Kwargs&) {
  return args.empty() ? Value() : args[0];
}

} // namespace lattice::fx
