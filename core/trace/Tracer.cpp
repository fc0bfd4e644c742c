// Tracer: flattens a Model into one fx::Graph (fx-archive.md "Tracing an archive").
//
// Implements torch.fx's default leaf rule, per-path leaf overrides, and the walk itself: the
// root's placeholders are copied, leaf modules become `call_module` nodes with full paths, other
// modules have their one-level graphs inlined with Python-style argument binding (positional,
// keyword, defaults, *args, **kwargs), `get_attr` targets are re-rooted, and every node is named
// by the traced graph's Namespace in emission order. The walk uses an explicit frame stack, so
// deep module nesting cannot overflow the C++ stack, and each node is visited once.
//
// Deliberately not here: the lattice leaf policy (LatticeTracer.cpp) and any validation of the
// one-level graphs beyond what the walk needs (the archive reader and Graph::lint do that). The
// only function evaluated at trace time is `operator.getitem` on a literal container, which a
// one-pass torch.fx trace performs in Python instead of recording.

#include "trace/Tracer.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>

namespace lattice {

namespace {

constexpr std::string_view kGetItem = "operator.getitem";

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

/// A call_module target resolved against the calling module's path.
std::string joinPath(const std::string& base, const std::string& relative) {
  if (base.empty()) return relative;
  if (relative.empty()) return base;
  std::string path(base.size() + 1 + relative.size(), '.');
  base.copy(path.data(), base.size());
  relative.copy(path.data() + base.size() + 1, relative.size());
  return path;
}

/// "root module" or "module 'a.b'", for messages.
std::string describe(const std::string& path) {
  return path.empty() ? std::string("root module") : "module '" + path + "'";
}

std::string quotedPath(const std::string& path) {
  return path.empty() ? std::string("root") : "'" + path + "'";
}

/// A forward parameter's name from a placeholder target ("*args" → "args").
std::string_view parameterName(std::string_view target) {
  std::size_t i = 0;
  while (i < target.size() && target[i] == '*')
    ++i;
  return target.substr(i);
}

[[noreturn]] void fail(std::string message) {
  throw Exception{std::move(message)};
}

/// One graph being emitted: the root's or an inlined module's.
struct Frame {
  const ModuleInfo* module = nullptr;
  fx::NodeList::const_iterator next;
  fx::NodeList::const_iterator end;
  /// Inner node → its value in the traced graph.
  fx::NodeValues env;
  /// The call_module node of the parent frame this frame replaces (nullptr for the root).
  const fx::Node* call = nullptr;
};

/// Binds a call's (already remapped) arguments to the forward parameters of a module the way
/// Python does, then hands out one value per placeholder of the module's graph. One binder serves
/// every call of a trace, so its buffers keep their capacity.
class ArgumentBinder {
public:
  /// Starts binding a call of `module`, whose graph is `graph`.
  void start(const ModuleInfo& module, const fx::Graph& graph) {
    m_module = &module;
    m_params = &module.signature;
    if (module.signature.empty()) {
      // No recorded signature (a hand-built model): the placeholders are the parameters.
      m_derived.clear();
      for (const fx::Node& node : graph.nodes()) {
        if (node.op() != fx::Op::Placeholder) continue;
        SignatureParam p;
        p.name = std::string(parameterName(node.target()));
        if (startsWith(node.target(), "**"))
          p.kind = ParamKind::VarKeyword;
        else if (startsWith(node.target(), "*"))
          p.kind = ParamKind::VarPositional;
        m_derived.push_back(std::move(p));
      }
      m_params = &m_derived;
    }
    m_bound.assign(m_params->size(), std::nullopt);
  }

  /// Binds the call's arguments, which it takes over.
  void bind(fx::ValueList&& args, fx::Kwargs&& kwargs) {
    const std::vector<SignatureParam>& params = *m_params;
    std::size_t positional = 0;
    std::optional<std::size_t> varPositional;
    std::optional<std::size_t> varKeyword;
    for (std::size_t i = 0; i < params.size(); ++i) {
      ParamKind k = params[i].kind;
      if (acceptsPositional(k))
        ++positional;
      else if (k == ParamKind::VarPositional)
        varPositional = i;
      else if (k == ParamKind::VarKeyword)
        varKeyword = i;
    }

    fx::ValueList extraPositional;
    std::size_t nextParam = 0;
    for (fx::Value& arg : args) {
      while (nextParam < params.size() && !acceptsPositional(params[nextParam].kind))
        ++nextParam;
      if (nextParam < params.size()) {
        m_bound[nextParam++] = std::move(arg);
      } else if (varPositional) {
        extraPositional.push_back(std::move(arg));
      } else {
        fail(describe(m_module->path) + " takes " + std::to_string(positional) + " positional argument" +
             (positional == 1 ? "" : "s") + " but " + std::to_string(args.size()) + " were given");
      }
    }
    if (varPositional) m_bound[*varPositional] = fx::Value::tuple(std::move(extraPositional));

    fx::Kwargs extraKeywords;
    for (auto& [key, value] : kwargs) {
      std::optional<std::size_t> target;
      for (std::size_t i = 0; i < params.size(); ++i) {
        ParamKind k = params[i].kind;
        if (params[i].name == key && (k == ParamKind::PositionalOrKeyword || k == ParamKind::KeywordOnly)) {
          target = i;
          break;
        }
      }
      if (target) {
        if (m_bound[*target])
          fail(describe(m_module->path) + " got multiple values for argument '" + key + "'");
        m_bound[*target] = std::move(value);
      } else if (varKeyword) {
        extraKeywords.emplace_back(key, std::move(value));
      } else {
        fail(describe(m_module->path) + " got an unexpected keyword argument '" + key + "'");
      }
    }
    if (varKeyword) m_bound[*varKeyword] = fx::Value::dict(std::move(extraKeywords));
  }

  /// Placeholder → value, into `env`: the bound argument, else the placeholder's own default
  /// (args[0]), else the signature default. A parameter without placeholder still needs an
  /// argument, as Python would have raised for it.
  void bindPlaceholders(const fx::Graph& graph, fx::NodeValues& env) {
    const std::vector<SignatureParam>& params = *m_params;
    std::vector<bool>& consumed = m_consumed;
    consumed.assign(params.size(), false);
    for (const fx::Node& node : graph.nodes()) {
      if (node.op() != fx::Op::Placeholder) continue;
      const std::string_view name = parameterName(node.target());
      std::size_t i = 0;
      while (i < params.size() && params[i].name != name)
        ++i;
      if (i == params.size())
        fail(describe(m_module->path) + " graph placeholder '" + node.name() +
             "' does not match a forward parameter");
      consumed[i] = true;
      if (m_bound[i])
        env[&node] = *m_bound[i];
      else if (!node.args().empty())
        env[&node] = node.args().front();
      else if (params[i].defaultValue)
        env[&node] = *params[i].defaultValue;
      else
        fail(describe(m_module->path) + " is missing required argument '" + std::string(name) + "'");
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (consumed[i] || m_bound[i] || params[i].defaultValue) continue;
      fail(describe(m_module->path) + " is missing required argument '" + params[i].name + "'");
    }
  }

private:
  static bool acceptsPositional(ParamKind k) {
    return k == ParamKind::PositionalOnly || k == ParamKind::PositionalOrKeyword;
  }

  const ModuleInfo* m_module = nullptr;
  const std::vector<SignatureParam>* m_params = nullptr;
  std::vector<SignatureParam> m_derived;
  std::vector<std::optional<fx::Value>> m_bound;
  std::vector<bool> m_consumed;
};

/// One trace of one model by one tracer.
class TraceRun {
public:
  TraceRun(const Tracer& tracer, const Model& model)
      : m_tracer(tracer), m_model(model), m_out(std::make_unique<fx::Graph>()) {}

  std::unique_ptr<fx::Graph> run() {
    if (m_model.modules().empty()) fail("model has no modules");
    const ModuleInfo& root = m_model.root();
    if (!root.graph) fail("root module (" + root.type + ") has no recorded graph");
    pushFrame(root, nullptr);

    while (!m_frames.empty()) {
      Frame& frame = top();
      if (frame.next == frame.end) fail(describe(frame.module->path) + " graph has no output node");
      const fx::Node& node = *frame.next++;
      switch (node.op()) {
      case fx::Op::Placeholder:
        emitPlaceholder(frame, node);
        break;
      case fx::Op::GetAttr:
        frame.env[&node] =
            fx::Value::node(m_out->createNode(fx::Op::GetAttr, joinPath(frame.module->path, node.target())));
        break;
      case fx::Op::CallFunction:
        emitCallFunction(frame, node);
        break;
      case fx::Op::CallMethod:
      {
        fx::Node* call = m_out->createNode(fx::Op::CallMethod, node.target(), remapList(frame, node, node.args()),
                                           remapKwargs(frame, node, node.kwargs()));
        call->meta[fx::kModulePathMeta] = frame.module->path;
        frame.env[&node] = fx::Value::node(call);
        break;
      }
      case fx::Op::CallModule:
        callModule(frame, node);
        break; // may push a frame
      case fx::Op::Output:
        finishFrame(node);
        break; // pops a frame
      }
    }
    return std::move(m_out);
  }

private:
  Frame& top() { return m_frames.back(); }

  /// Enters `module`'s graph; invalidates references to frames.
  Frame& pushFrame(const ModuleInfo& module, const fx::Node* call) {
    Frame& frame = m_frames.emplace_back();
    frame.module = &module;
    frame.next = module.graph->nodes().begin();
    frame.end = module.graph->nodes().end();
    frame.call = call;
    frame.env.reserve(module.graph->size());
    return frame;
  }

  void emitPlaceholder(Frame& frame, const fx::Node& node) {
    if (frame.call == nullptr) {
      // Root placeholders keep their target and default.
      frame.env[&node] = fx::Value::node(m_out->createNode(fx::Op::Placeholder, node.target(), node.args()));
      return;
    }
    // Inlined placeholders were bound before the frame was entered.
    if (frame.env.count(&node) == 0)
      fail(describe(frame.module->path) + " graph placeholder '" + node.name() + "' is not bound");
  }

  void emitCallFunction(Frame& frame, const fx::Node& node) {
    fx::ValueList args = remapList(frame, node, node.args());
    fx::Kwargs kwargs = remapKwargs(frame, node, node.kwargs());
    if (node.target() == kGetItem && args.size() == 2 && kwargs.empty()) {
      if (std::optional<fx::Value> folded = foldGetItem(frame, node, args[0], args[1])) {
        frame.env[&node] = std::move(*folded);
        return;
      }
    }
    fx::Node* call = m_out->createNode(fx::Op::CallFunction, node.target(), std::move(args), std::move(kwargs));
    call->meta[fx::kModulePathMeta] = frame.module->path;
    frame.env[&node] = fx::Value::node(call);
  }

  /// Python indexing of a literal container; nullopt when the receiver is not one (a node).
  std::optional<fx::Value> foldGetItem(const Frame& frame, const fx::Node& node, const fx::Value& container,
                                       const fx::Value& index) const {
    if (container.isSequence() && index.kind() == fx::Value::Kind::Int) {
      const auto size = static_cast<int64_t>(container.items().size());
      int64_t i = index.asInt() < 0 ? index.asInt() + size : index.asInt();
      if (i < 0 || i >= size)
        fail(describe(frame.module->path) + " node '" + node.name() + "': index " +
             std::to_string(index.asInt()) + " out of range for a " + container.typeName() + " of " +
             std::to_string(size) + " items");
      return container.items()[static_cast<std::size_t>(i)];
    }
    if (container.kind() == fx::Value::Kind::Dict && index.kind() == fx::Value::Kind::String) {
      for (const auto& [key, value] : container.dictItems())
        if (key == index.asString()) return value;
      fail(describe(frame.module->path) + " node '" + node.name() + "': key '" + index.asString() +
           "' not in the dict");
    }
    return std::nullopt;
  }

  void callModule(Frame& frame, const fx::Node& node) {
    std::string path = joinPath(frame.module->path, node.target());
    const ModuleInfo* callee = m_model.module(path);
    if (callee == nullptr)
      fail(describe(frame.module->path) + " calls missing submodule '" + node.target() + "' (node '" +
           node.name() + "')");
    fx::ValueList args = remapList(frame, node, node.args());
    fx::Kwargs kwargs = remapKwargs(frame, node, node.kwargs());

    if (m_tracer.isLeaf(*callee)) {
      frame.env[&node] = fx::Value::node(
          m_out->createNode(fx::Op::CallModule, std::move(path), std::move(args), std::move(kwargs)));
      return;
    }
    if (!callee->graph)
      fail(describe(path) + " (" + callee->type + ") is traced through but has no recorded graph");
    // The active modules are the frames' (a module is identified by its path, so by its
    // ModuleInfo); the stack is shallow, and a scan needs no set kept in step with it.
    for (const Frame& active : m_frames) {
      if (active.module != callee) continue;
      std::string chain;
      for (const Frame& f : m_frames)
        chain += quotedPath(f.module->path) + " -> ";
      fail("recursive call of " + describe(path) + ": " + chain + quotedPath(path));
    }

    m_binder.start(*callee, *callee->graph);
    m_binder.bind(std::move(args), std::move(kwargs));
    Frame& inner = pushFrame(*callee, &node); // invalidates `frame`
    m_binder.bindPlaceholders(*callee->graph, inner.env);
  }

  void finishFrame(const fx::Node& outputNode) {
    Frame& frame = top();
    fx::Value result =
        outputNode.args().empty() ? fx::Value::none() : remap(frame, outputNode, outputNode.args().front());
    if (frame.call == nullptr) {
      m_out->createNode(fx::Op::Output, "output", {std::move(result)});
      m_frames.clear();
      return;
    }
    const fx::Node* call = frame.call;
    m_frames.pop_back();
    top().env[call] = std::move(result);
  }

  fx::Value remap(const Frame& frame, const fx::Node& user, const fx::Value& value) const {
    return fx::mapNodes(value, [&](fx::Node* inner) -> fx::Value {
      const auto mapped = frame.env.find(inner);
      if (mapped == frame.env.end())
        fail(describe(frame.module->path) + " node '" + user.name() + "' uses '" +
             (inner ? inner->name() : std::string("?")) + "' before it is defined");
      return mapped->second;
    });
  }

  fx::ValueList remapList(const Frame& frame, const fx::Node& user, const fx::ValueList& values) const {
    fx::ValueList out;
    out.reserve(values.size());
    for (const fx::Value& v : values)
      out.push_back(remap(frame, user, v));
    return out;
  }

  fx::Kwargs remapKwargs(const Frame& frame, const fx::Node& user, const fx::Kwargs& kwargs) const {
    fx::Kwargs out;
    out.reserve(kwargs.size());
    for (const auto& [key, value] : kwargs)
      out.emplace_back(key, remap(frame, user, value));
    return out;
  }

  const Tracer& m_tracer;
  const Model& m_model;
  std::unique_ptr<fx::Graph> m_out;
  std::vector<Frame> m_frames; ///< the walk's stack, the root's frame first
  ArgumentBinder m_binder;
};

} // namespace

Tracer::~Tracer() = default;

bool Tracer::isLeafModule(const ModuleInfo& module, const std::string& /*qualifiedName*/) const {
  static const std::string sequential = "torch.nn.modules.container.Sequential";
  if (!startsWith(module.type, "torch.nn") && !startsWith(module.type, "torch.ao.nn")) return false;
  return !module.isA(sequential);
}

bool Tracer::isLeaf(const ModuleInfo& module) const {
  if (module.path.empty()) return false;
  auto it = m_overrides.find(module.path);
  if (it != m_overrides.end()) return it->second;
  return isLeafModule(module, module.path);
}

Expected<std::unique_ptr<fx::Graph>> Tracer::trace(const Model& model) const {
  try {
    return TraceRun(*this, model).run();
  } catch (const Exception& e) {
    return makeError(e.message);
  }
}

} // namespace lattice
