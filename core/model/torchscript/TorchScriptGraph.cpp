// Converts one TorchScript `forward` graph into the one-level fx::Graph an FX archive records
// for that module (every child a leaf):
//   prim::GetAttr chains to a submodule + prim::CallMethod[forward] → call_module,
//   prim::GetAttr of a parameter/buffer/tensor → get_attr, of a number/bool/... → literal,
//   prim::Constant → literal, prim::ListConstruct/TupleConstruct/DictConstruct → list/tuple/dict,
//   prim::TupleUnpack/ListUnpack/TupleIndex, aten::__getitem__ → operator.getitem (folded on a
//   literal container), aten::add/sub/mul on two tensors or two numbers → operator.*, other
//   aten::NAME → torch.NAME (a few method-only ones → call_method), prim::CallFunction → the
//   function's qualified name, other namespaces → torch.ops.NS.NAME.
// Deliberately refused (an error naming the module, the method and the source line): control
// flow (prim::If, prim::Loop), calls of methods other than forward, tensor constants, and
// other prim:: operations. Graphs are not optimised or inlined first.
#include "model/torchscript/TorchScriptGraph.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <set>
#include <unordered_map>
#include <variant>

namespace lattice {

namespace jit = torch::jit;
using fx::Value;
using fx::ValueList;

namespace {

/// torch's dtype names (`torch.float32`) for ScalarType codes.
std::string dtypeName(int64_t code) {
  switch (static_cast<c10::ScalarType>(code)) {
  case c10::ScalarType::Float: return "float32";
  case c10::ScalarType::Double: return "float64";
  case c10::ScalarType::Half: return "float16";
  case c10::ScalarType::BFloat16: return "bfloat16";
  case c10::ScalarType::Int: return "int32";
  case c10::ScalarType::Long: return "int64";
  case c10::ScalarType::Short: return "int16";
  case c10::ScalarType::Char: return "int8";
  case c10::ScalarType::Byte: return "uint8";
  case c10::ScalarType::Bool: return "bool";
  case c10::ScalarType::ComplexFloat: return "complex64";
  case c10::ScalarType::ComplexDouble: return "complex128";
  default: return "scalar_type_" + std::to_string(code);
  }
}

/// An int passed where the schema's real type is a ScalarType becomes a dtype value.
Value adapt(const c10::Argument& arg, Value v) {
  c10::TypePtr type = arg.real_type();
  if (auto optional = type->cast<c10::OptionalType>()) type = optional->getElementType();
  if (type->kind() == c10::TypeKind::ScalarTypeType && v.kind() == Value::Kind::Int)
    return Value::dtype(dtypeName(v.asInt()));
  return v;
}

bool isTensor(const jit::Value* v) { return v->type()->kind() == c10::TypeKind::TensorType; }

bool isNumber(const jit::Value* v) {
  const c10::TypeKind k = v->type()->kind();
  return k == c10::TypeKind::IntType || k == c10::TypeKind::FloatType || k == c10::TypeKind::NumberType;
}

/// aten operations that torch offers only as Tensor methods.
bool isMethodOnly(const std::string& name) {
  static const std::set<std::string> names = {
      "size", "dim", "view", "view_as", "expand", "expand_as", "contiguous", "to", "type_as",
      "repeat", "float", "half", "double", "int", "long", "bool", "item", "tolist", "new_zeros",
      "new_ones", "new_full", "new_empty", "masked_fill_", "copy_", "zero_", "fill_"};
  return names.count(name) != 0;
}

/// Python's operator module names for aten's dunder operations ("__and__" → "and_").
std::string operatorName(const std::string& dunder) {
  const std::string bare = dunder.substr(2, dunder.size() - 4);
  return bare == "and" || bare == "or" || bare == "not" || bare == "is" ? bare + "_" : bare;
}

std::string location(const jit::Node* node) {
  c10::optional<jit::SourceRange> range = node->sourceRange();
  if (auto original = range->findSourceRangeThatGenerated()) range = original;
  if (auto flc = range->file_line_col())
    return std::get<0>(*flc) + ":" + std::to_string(std::get<1>(*flc));
  return "an unrecorded source line";
}

struct ModuleRef {
  jit::Module module;
  std::string path; ///< relative to the converted module ("" = self)
};

using Bound = std::variant<Value, ModuleRef, jit::Function*>;

class ForwardConverter {
public:
  ForwardConverter(const jit::Module& module, const std::string& path, const std::string& type,
                   const std::string& file)
      : m_module(module), m_path(path), m_type(type), m_file(file), m_fx(std::make_shared<fx::Graph>()) {}

  std::shared_ptr<fx::Graph> run(const jit::Method& forward) {
    const std::shared_ptr<jit::Graph> graph = forward.graph();
    const auto& params = forward.function().getSchema().arguments();
    const auto inputs = graph->inputs();
    m_env[inputs[0]] = ModuleRef{m_module, ""};
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      const bool named = i < params.size();
      std::optional<Value> defaultValue;
      if (named && params[i].default_value()) defaultValue = torchScriptLiteral(*params[i].default_value());
      const std::string name = named ? params[i].name() : inputs[i]->debugNameBase();
      m_env[inputs[i]] = Value::node(m_fx->placeholder(name, std::move(defaultValue)));
    }
    for (jit::Node* node : graph->nodes()) convert(node);
    if (graph->outputs().size() != 1)
      fail(graph->return_node(), "returns " + std::to_string(graph->outputs().size()) + " values");
    m_fx->output(value(graph->outputs()[0], graph->return_node()));
    return m_fx;
  }

private:
  /// "<file>: module 'a.b' (T), method 'forward': <what> at <source:line>[; <hint>]".
  [[noreturn]] void fail(const jit::Node* node, const std::string& what, const std::string& hint = {}) const {
    const std::string module =
        m_path.empty() ? "root module (" + m_type + ")" : "module '" + m_path + "' (" + m_type + ")";
    throw Exception{m_file + ": " + module + ", method 'forward': " + what + " at " + location(node) +
                    (hint.empty() ? "" : "; " + hint)};
  }

  void bind(const jit::Value* v, Bound bound) { m_env[v] = std::move(bound); }

  const Bound& lookup(const jit::Value* v, const jit::Node* user) const {
    auto it = m_env.find(v);
    if (it == m_env.end()) fail(user, "uses '%" + v->debugName() + "' before it is defined");
    return it->second;
  }

  Value value(const jit::Value* v, const jit::Node* user) const {
    const Bound& bound = lookup(v, user);
    if (const Value* val = std::get_if<Value>(&bound)) return *val;
    if (const ModuleRef* ref = std::get_if<ModuleRef>(&bound))
      fail(user, "uses module '" + (ref->path.empty() ? std::string("self") : ref->path) + "' as a value");
    fail(user, "uses a function as a value");
  }

  ValueList values(const jit::Node* node, std::size_t first) const {
    ValueList out;
    for (std::size_t i = first; i < node->inputs().size(); ++i) out.push_back(value(node->inputs()[i], node));
    return out;
  }

  const ModuleRef& moduleRef(const jit::Value* v, const jit::Node* user) const {
    const ModuleRef* ref = std::get_if<ModuleRef>(&lookup(v, user));
    if (!ref) fail(user, "expected a module, found '%" + v->debugName() + "'");
    return *ref;
  }

  void convert(jit::Node* node) {
    const c10::Symbol kind = node->kind();
    if (kind == c10::prim::Constant) return constant(node);
    if (kind == c10::prim::GetAttr) return getAttr(node);
    if (kind == c10::prim::CallMethod) return callMethod(node);
    if (kind == c10::prim::CallFunction) return callFunction(node);
    if (kind == c10::prim::ListConstruct) return bind(node->output(), Value::list(values(node, 0)));
    if (kind == c10::prim::TupleConstruct) return bind(node->output(), Value::tuple(values(node, 0)));
    if (kind == c10::prim::DictConstruct) return dict(node);
    if (kind == c10::prim::TupleUnpack || kind == c10::prim::ListUnpack) {
      const Value container = value(node->input(0), node);
      for (std::size_t i = 0; i < node->outputs().size(); ++i)
        bind(node->outputs()[i], getitem(container, Value::integer(static_cast<int64_t>(i))));
      return;
    }
    if (kind == c10::prim::TupleIndex || kind == c10::aten::__getitem__)
      return bind(node->output(), getitem(value(node->input(0), node), value(node->input(1), node)));
    if (kind == c10::prim::If || kind == c10::prim::Loop)
      fail(node, std::string("control flow (") + kind.toQualString() + ")",
           "a one-level graph cannot hold it");
    // Scalar conversions have no FX counterpart: the value passes through.
    if (kind == c10::prim::NumToTensor || kind == c10::aten::Int || kind == c10::aten::Float ||
        kind == c10::aten::ScalarImplicit)
      return bind(node->output(), value(node->input(0), node));
    if (kind == c10::prim::dtype || kind == c10::prim::device) {
      const std::string attr = kind == c10::prim::dtype ? "dtype" : "device";
      return emit(node, fx::Op::CallFunction, "builtins.getattr",
                  {value(node->input(0), node), Value::string(attr)}, {});
    }
    if (kind.is_prim())
      fail(node, std::string("unsupported TorchScript operation '") + kind.toQualString() + "'");
    operatorCall(node);
  }

  void constant(jit::Node* node) {
    const jit::Value* out = node->output();
    if (auto function = out->type()->cast<c10::FunctionType>()) return bind(out, function->function());
    const c10::optional<c10::IValue> iv = jit::toIValue(out);
    if (iv && iv->isTensor()) fail(node, "a tensor constant", "tensor constants cannot be imported");
    std::optional<Value> literal = iv ? torchScriptLiteral(*iv) : std::nullopt;
    if (!literal) fail(node, "a constant of type '" + out->type()->str() + "'", "it has no literal form");
    bind(out, std::move(*literal));
  }

  void getAttr(jit::Node* node) {
    const ModuleRef& owner = moduleRef(node->input(0), node);
    const std::string name = node->s(c10::attr::name);
    const std::string path = owner.path.empty() ? name : owner.path + "." + name;
    const c10::ClassTypePtr& type = owner.module.type();
    const auto slot = type->findAttributeSlot(name);
    if (!slot) fail(node, "reads unknown attribute '" + path + "'");
    const c10::IValue v = owner.module._ivalue()->getSlot(*slot);
    if (type->getAttribute(*slot)->is_module())
      return bind(node->output(), ModuleRef{jit::Module(v.toObject()), path});
    if (v.isTensor()) {
      fx::Node*& cached = m_getAttrs[path]; // a symbolic trace proxies each attribute once
      if (!cached) cached = m_fx->getAttr(path);
      return bind(node->output(), Value::node(cached));
    }
    std::optional<Value> literal = torchScriptLiteral(v);
    if (!literal)
      fail(node, "reads attribute '" + path + "' of type '" + type->getAttribute(*slot)->str() + "'",
           "it is neither a tensor, a module nor a literal");
    bind(node->output(), std::move(*literal));
  }

  void callMethod(jit::Node* node) {
    const ModuleRef& target = moduleRef(node->input(0), node);
    const std::string method = node->s(c10::attr::name);
    const std::string of = target.path.empty() ? std::string() : " of '" + target.path + "'";
    if (method != "forward")
      fail(node, "calls method '" + method + "'" + of, "only calls of forward can be imported");
    if (target.path.empty()) fail(node, "calls its own forward");
    auto forward = target.module.find_method("forward");
    ValueList args;
    fx::Kwargs kwargs;
    splitArguments(node, 1, forward ? &forward->function().getSchema() : nullptr, 1, args, kwargs);
    emit(node, fx::Op::CallModule, target.path, std::move(args), std::move(kwargs));
  }

  void callFunction(jit::Node* node) {
    const Bound& callee = lookup(node->input(0), node);
    jit::Function* const* function = std::get_if<jit::Function*>(&callee);
    if (!function) fail(node, "calls something that is not a function");
    ValueList args;
    fx::Kwargs kwargs;
    splitArguments(node, 1, &(*function)->getSchema(), 0, args, kwargs);
    emit(node, fx::Op::CallFunction, cleanTorchScriptTypeName((*function)->qualname().qualifiedName()),
         std::move(args), std::move(kwargs));
  }

  void dict(jit::Node* node) {
    fx::Kwargs items;
    for (std::size_t i = 0; i + 1 < node->inputs().size(); i += 2) {
      const Value key = value(node->inputs()[i], node);
      if (key.kind() != Value::Kind::String) fail(node, "a dict key that is not a string literal");
      items.emplace_back(key.asString(), value(node->inputs()[i + 1], node));
    }
    bind(node->output(), Value::dict(std::move(items)));
  }

  void operatorCall(jit::Node* node) {
    const std::string ns = node->kind().ns().toUnqualString();
    const std::string name = node->kind().toUnqualString();
    ValueList args;
    fx::Kwargs kwargs;
    if (ns != "aten") {
      splitArguments(node, 0, node->maybeSchema(), 0, args, kwargs);
      return emit(node, fx::Op::CallFunction, "torch.ops." + ns + "." + name, std::move(args),
                  std::move(kwargs));
    }
    if ((name == "add" || name == "sub" || name == "mul") && isPythonOperator(node))
      return emit(node, fx::Op::CallFunction, "operator." + name,
                  {value(node->input(0), node), value(node->input(1), node)}, {});
    splitArguments(node, 0, node->maybeSchema(), 0, args, kwargs);
    if (name.size() > 4 && name.rfind("__", 0) == 0 && name.compare(name.size() - 2, 2, "__") == 0)
      return emit(node, fx::Op::CallFunction, "operator." + operatorName(name), std::move(args),
                  std::move(kwargs));
    if (isMethodOnly(name)) return emit(node, fx::Op::CallMethod, name, std::move(args), std::move(kwargs));
    emit(node, fx::Op::CallFunction, "torch." + name, std::move(args), std::move(kwargs));
  }

  /// `a + b` in Python: two tensors or two numbers, and no alpha other than 1.
  bool isPythonOperator(const jit::Node* node) const {
    const auto inputs = node->inputs();
    if (inputs.size() != 2 && inputs.size() != 3) return false;
    if (inputs.size() == 3) {
      const Value alpha = value(inputs[2], node);
      if (!(alpha.kind() == Value::Kind::Int && alpha.asInt() == 1)) return false;
    }
    return (isTensor(inputs[0]) && isTensor(inputs[1])) || (isNumber(inputs[0]) && isNumber(inputs[1]));
  }

  /// Inputs from `first` on, matched to `schema`'s arguments from `schemaFirst` on: positional
  /// ones up to the last that differs from its default, keyword-only ones that differ as kwargs.
  void splitArguments(const jit::Node* node, std::size_t first, const c10::FunctionSchema* schema,
                      std::size_t schemaFirst, ValueList& args, fx::Kwargs& kwargs) const {
    ValueList vals = values(node, first);
    if (!schema || schema->is_vararg() || schema->arguments().size() != schemaFirst + vals.size()) {
      args = std::move(vals);
      return;
    }
    const auto& params = schema->arguments();
    std::vector<bool> isDefault(vals.size(), false);
    std::size_t keep = 0;
    for (std::size_t i = 0; i < vals.size(); ++i) {
      const c10::Argument& param = params[schemaFirst + i];
      vals[i] = adapt(param, std::move(vals[i]));
      if (param.default_value())
        if (auto d = torchScriptLiteral(*param.default_value())) isDefault[i] = adapt(param, *d) == vals[i];
      if (!param.kwarg_only() && !isDefault[i]) keep = i + 1;
    }
    for (std::size_t i = 0; i < vals.size(); ++i) {
      const c10::Argument& param = params[schemaFirst + i];
      if (!param.kwarg_only() && i < keep) args.push_back(vals[i]);
      else if (param.kwarg_only() && !isDefault[i]) kwargs.emplace_back(param.name(), vals[i]);
    }
  }

  /// Creates the FX node; several outputs are its `operator.getitem`s, like unpacking in Python.
  void emit(const jit::Node* node, fx::Op op, const std::string& target, ValueList args, fx::Kwargs kwargs) {
    fx::Node* created = m_fx->createNode(op, target, std::move(args), std::move(kwargs));
    const auto outputs = node->outputs();
    if (outputs.size() == 1) return bind(outputs[0], Value::node(created));
    for (std::size_t i = 0; i < outputs.size(); ++i)
      bind(outputs[i], getitem(Value::node(created), Value::integer(static_cast<int64_t>(i))));
  }

  /// Indexes a literal container directly (Python would); otherwise an operator.getitem node.
  Value getitem(const Value& container, const Value& index) {
    if (container.isSequence() && index.kind() == Value::Kind::Int) {
      const auto size = static_cast<int64_t>(container.items().size());
      const int64_t i = index.asInt() < 0 ? index.asInt() + size : index.asInt();
      if (i >= 0 && i < size) return container.items()[static_cast<std::size_t>(i)];
    }
    if (container.kind() == Value::Kind::Dict && index.kind() == Value::Kind::String)
      for (const auto& [key, item] : container.dictItems())
        if (key == index.asString()) return item;
    return Value::node(m_fx->callFunction("operator.getitem", {container, index}));
  }

  jit::Module m_module;
  std::string m_path;
  std::string m_type;
  std::string m_file;
  std::shared_ptr<fx::Graph> m_fx;
  std::unordered_map<const jit::Value*, Bound> m_env;
  std::unordered_map<std::string, fx::Node*> m_getAttrs;
};

} // namespace

std::shared_ptr<fx::Graph> convertTorchScriptForward(const jit::Module& module, const jit::Method& forward,
                                                     const std::string& path, const std::string& type,
                                                     const std::string& file) {
  return ForwardConverter(module, path, type, file).run(forward);
}

} // namespace lattice
