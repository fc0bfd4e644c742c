// LatticeArtifactInterpreter (lowering.md §2.2): the node handlers that turn a traced graph into
// builder calls, plus Python's getitem on interpreter values. It does not trace, flatten outputs
// or call builder.output(): that is lowerFxArtifact's job (Lowering.cpp). Module and function
// lowerings themselves live in the builder; this file only routes values to them.

#include "lowering/LatticeArtifactInterpreter.h"


namespace lattice {
namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// Python's int() view of an index value (bool counts as int); false when it is no int.
bool asIndex(const fx::Value& v, int64_t& out) {
  if (v.kind() == fx::Value::Kind::Int || v.kind() == fx::Value::Kind::Bool) {
    out = v.asInt();
    return true;
  }
  return false;
}

/// Python slice semantics over a sequence of `length` items.
fx::ValueList sliceItems(const fx::ValueList& items, const fx::Value& slice) {
  const auto length = static_cast<int64_t>(items.size());
  const fx::ValueList& parts = slice.items();
  auto part = [&](std::size_t i, int64_t& out) -> bool {
    if (i >= parts.size() || parts[i].isNone()) return false;
    if (!asIndex(parts[i], out))
      throw Exception{"slice indices must be integers or None or have an __index__ method"};
    return true;
  };
  int64_t step = 1;
  part(2, step);
  if (step == 0) throw Exception{"slice step cannot be zero"};
  int64_t start = 0, stop = 0;
  const bool hasStart = part(0, start), hasStop = part(1, stop);
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v += length;
    return v < lo ? lo : (v > hi ? hi : v);
  };
  if (step > 0) {
    start = hasStart ? clamp(start, 0, length) : 0;
    stop = hasStop ? clamp(stop, 0, length) : length;
  } else {
    start = hasStart ? clamp(start, -1, length - 1) : length - 1;
    stop = hasStop ? clamp(stop, -1, length - 1) : -1;
  }
  fx::ValueList out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
    out.push_back(items[static_cast<std::size_t>(i)]);
  return out;
}

} // namespace

// --- AttributeObject ---------------------------------------------------------------------------

AttributeObject::AttributeObject(Kind kind, std::string path, std::string className,
                                 const TensorData* tensor)
    : m_kind(kind), m_path(std::move(path)), m_className(std::move(className)), m_tensor(tensor) {}

std::string AttributeObject::typeName() const {
  switch (m_kind) {
  case Kind::Parameter: return "Parameter";
  case Kind::Buffer: return "Tensor";
  case Kind::Module: return m_className;
  }
  return "object";
}

std::string AttributeObject::repr() const {
  if (m_kind == Kind::Module) return "Module(" + m_path + ": " + m_className + ")";
  std::string text = typeName() + "(" + m_path;
  if (m_tensor)
    text += ": " + std::string(dtypeName(m_tensor->dtype())) + shapeText(m_tensor->shape());
  return text + ")";
}

// --- getitem -----------------------------------------------------------------------------------

fx::Value pythonGetItem(const fx::Value& container, const fx::Value& index) {
  using Kind = fx::Value::Kind;
  if (container.kind() == Kind::List || container.kind() == Kind::Tuple) {
    const char* type = container.kind() == Kind::List ? "list" : "tuple";
    const fx::ValueList& items = container.items();
    if (index.kind() == Kind::Slice) {
      fx::ValueList part = sliceItems(items, index);
      return container.kind() == Kind::List ? fx::Value::list(std::move(part))
                                            : fx::Value::tuple(std::move(part));
    }
    int64_t i = 0;
    if (!asIndex(index, i))
      throw Exception{std::string(type) + " indices must be integers or slices, not " + index.typeName()};
    const auto length = static_cast<int64_t>(items.size());
    if (i < 0) i += length;
    if (i < 0 || i >= length) throw Exception{std::string(type) + " index out of range"};
    return items[static_cast<std::size_t>(i)];
  }
  if (container.kind() == Kind::Dict) {
    if (index.kind() == Kind::String)
      for (const auto& [key, value] : container.dictItems())
        if (key == index.asString()) return value;
    // Python's KeyError prints the key's repr; torch re-raises it as a RuntimeError.
    throw Exception{fx::pythonRepr(index, false)};
  }
  throw Exception{"'" + container.typeName() + "' object is not subscriptable"};
}

// --- the interpreter ---------------------------------------------------------------------------

LatticeArtifactInterpreter::LatticeArtifactInterpreter(const Model& model, const fx::Graph& graph,
                                                       TorchLatticeArtifactBuilder& builder)
    : fx::Interpreter(graph), m_model(model), m_builder(builder) {
  m_builder.reserveFor(graph.size(), model.tensors().size());
}

fx::Value LatticeArtifactInterpreter::placeholder(const fx::Node& node, const std::string& target,
                                                  const fx::ValueList& args, const fx::Kwargs& kwargs) {
  m_builder.setCurrentNode(node.name());
  return fx::Interpreter::placeholder(node, target, args, kwargs);
}

fx::Value LatticeArtifactInterpreter::getAttr(const fx::Node& node, const std::string& target,
                                              const fx::ValueList&, const fx::Kwargs&) {
  m_builder.setCurrentNode(node.name());
  if (const ModuleInfo* module = m_model.module(target))
    return fx::Value::object(std::make_shared<AttributeObject>(AttributeObject::Kind::Module, target,
                                                               module->className(), nullptr));
  const ModuleInfo* owner = m_model.module(parentPath(target));
  const std::string local = localName(target);
  if (owner) {
    auto slot = [&](const auto& slots, AttributeObject::Kind kind, fx::Value& out) {
      for (const auto& [name, record] : slots) {
        if (name != local) continue;
        if (!record) {
          out = fx::Value::none(); // a None parameter slot (bias=False)
          return true;
        }
        out = fx::Value::object(std::make_shared<AttributeObject>(kind, target, std::string(),
                                                                  m_model.tensor(record->key)));
        return true;
      }
      return false;
    };
    fx::Value out;
    if (slot(owner->parameters, AttributeObject::Kind::Parameter, out)) return out;
    if (slot(owner->buffers, AttributeObject::Kind::Buffer, out)) return out;
    if (const fx::Value* attribute = owner->attribute(local)) return *attribute;
  }
  throw Exception{"Node referenced nonexistent target " + target};
}

fx::Value LatticeArtifactInterpreter::callModule(const fx::Node& node, const std::string& target,
                                                 const fx::ValueList& args, const fx::Kwargs& kwargs) {
  m_builder.setCurrentNode(node.name());
  const ModuleInfo* module = m_model.module(target);
  if (!module) throw Exception{"Node referenced nonexistent target " + target};
  Expected<ArtifactValuePtr> result =
      m_builder.lowerModule(target, *module, m_model, gatherArtifactValues(args, kwargs));
  if (!result) throw Exception{result.message()};
  return *result ? toFxValue(*result) : fx::Value::none();
}

fx::Value LatticeArtifactInterpreter::callFunction(const fx::Node& node, const std::string& target,
                                                   const fx::ValueList& args, const fx::Kwargs& kwargs) {
  m_builder.setCurrentNode(node.name());
  if (target == "operator.getitem" || target == "_operator.getitem") {
    if (args.size() != 2 || !kwargs.empty())
      throw Exception{"getitem expected 2 arguments, got " + std::to_string(args.size() + kwargs.size())};
    return pythonGetItem(args[0], args[1]);
  }
  if (!TorchLatticeArtifactBuilder::hasFunctionLowering(target))
    throw Exception{"unsupported FX function for lattice artifact: " + target};
  Expected<ArtifactValuePtr> result = m_builder.lowerFunction(target, args, kwargs);
  if (!result) throw Exception{result.message()};
  return *result ? toFxValue(*result) : fx::Value::none();
}

fx::Value LatticeArtifactInterpreter::callMethod(const fx::Node& node, const std::string& target,
                                                 const fx::ValueList&, const fx::Kwargs&) {
  m_builder.setCurrentNode(node.name());
  throw Exception{"unsupported FX method for lattice artifact: " + target};
}

fx::Value LatticeArtifactInterpreter::output(const fx::Node& node, const std::string& target,
                                             const fx::ValueList& args, const fx::Kwargs& kwargs) {
  m_builder.setCurrentNode(node.name());
  return fx::Interpreter::output(node, target, args, kwargs);
}

} // namespace lattice
