// Implements the archive's JSON encoding of values and graphs (fx-archive.md "Node" and
// "Values"). Reading reports the first problem with its JSON location. Not done here: checking
// a graph's structure beyond names and references (Graph::lint does that), and the number text
// itself, which nlohmann writes (shortest round-trip digits, "1.0" for integral floats).

#include "fx/JsonEncoding.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <unordered_set>

namespace lattice::fx {

using nlohmann::json;

json valueToJson(const Value& value) {
  switch (value.kind()) {
  case Value::Kind::None:
    return nullptr;
  case Value::Kind::Bool:
    return value.asBool();
  case Value::Kind::Int:
    return value.asInt();
  case Value::Kind::Float: {
    const double d = value.asFloat();
    if (std::isfinite(d)) return d;
    return json{{"float", pythonFloatRepr(d)}};
  }
  case Value::Kind::String:
    return value.asString();
  case Value::Kind::NodeRef:
    return json{{"node", value.asNode() ? value.asNode()->name() : std::string()}};
  case Value::Kind::List: {
    json arr = json::array();
    for (const Value& item : value.items())
      arr.push_back(valueToJson(item));
    return arr;
  }
  case Value::Kind::Tuple: {
    json arr = json::array();
    for (const Value& item : value.items())
      arr.push_back(valueToJson(item));
    return json{{"tuple", std::move(arr)}};
  }
  case Value::Kind::Dict: {
    json obj = json::object();
    for (const auto& kv : value.dictItems())
      obj[kv.first] = valueToJson(kv.second);
    return json{{"dict", std::move(obj)}};
  }
  case Value::Kind::Slice: {
    json arr = json::array();
    for (const Value& item : value.items())
      arr.push_back(valueToJson(item));
    return json{{"slice", std::move(arr)}};
  }
  case Value::Kind::DType:
    return json{{"dtype", value.asString()}};
  case Value::Kind::Device:
    return json{{"device", value.asString()}};
  case Value::Kind::Repr:
    return json{{"repr", value.asString()}};
  case Value::Kind::Object:
    return json{{"repr", value.asObject() ? value.asObject()->repr() : std::string("None")}};
  }
  return nullptr;
}

namespace {

// Returns the node or nullptr; may set `why` to explain a nullptr (default: unknown node).
using Resolver = std::function<Node*(const std::string& name, std::string& why)>;

std::string typeOf(const json& j) {
  switch (j.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return "an integer";
  case json::value_t::number_float:
    return "a float";
  case json::value_t::string:
    return "a string";
  case json::value_t::array:
    return "an array";
  case json::value_t::object:
    return "an object";
  default:
    return "an unsupported JSON value";
  }
}

std::string member(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

std::string element(const std::string& where, std::size_t i) {
  return where + "[" + std::to_string(i) + "]";
}

[[noreturn]] void fail(const std::string& where, const std::string& message) {
  throw Exception{(where.empty() ? std::string() : where + ": ") + message};
}

Value decode(const json& j, const std::string& where, const Resolver& resolve);

ValueList decodeArray(const json& j, const std::string& where, const Resolver& resolve) {
  if (!j.is_array()) fail(where, "expected an array, got " + typeOf(j));
  ValueList items;
  items.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i)
    items.push_back(decode(j[i], element(where, i), resolve));
  return items;
}

const std::string& stringPayload(const json& j, const std::string& where) {
  if (!j.is_string()) fail(where, "expected a string, got " + typeOf(j));
  return j.get_ref<const std::string&>();
}

Value decodeObject(const json& j, const std::string& where, const Resolver& resolve) {
  if (j.size() != 1)
    fail(where, "expected an object with one key (node, tuple, dict, slice, float, dtype, "
                "device or repr), got " +
                    std::to_string(j.size()) + " keys");
  const auto it = j.begin();
  const std::string& key = it.key();
  const json& payload = it.value();
  const std::string at = member(where, key);
  if (key == "node") {
    const std::string& name = stringPayload(payload, at);
    std::string why;
    Node* node = resolve ? resolve(name, why) : nullptr;
    if (!node) fail(where, why.empty() ? "reference to unknown node '" + name + "'" : why);
    return Value::node(node);
  }
  if (key == "tuple") return Value::tuple(decodeArray(payload, at, resolve));
  if (key == "dict") {
    if (!payload.is_object()) fail(at, "expected an object, got " + typeOf(payload));
    Kwargs items;
    items.reserve(payload.size());
    for (auto kv = payload.begin(); kv != payload.end(); ++kv)
      items.emplace_back(kv.key(), decode(kv.value(), member(at, kv.key()), resolve));
    return Value::dict(std::move(items));
  }
  if (key == "slice") {
    ValueList parts = decodeArray(payload, at, resolve);
    if (parts.size() != 3)
      fail(at, "expected 3 items (start, stop, step), got " + std::to_string(parts.size()));
    return Value::slice(std::move(parts[0]), std::move(parts[1]), std::move(parts[2]));
  }
  if (key == "float") {
    const std::string& text = stringPayload(payload, at);
    if (text == "inf") return Value::floating(std::numeric_limits<double>::infinity());
    if (text == "-inf") return Value::floating(-std::numeric_limits<double>::infinity());
    if (text == "nan") return Value::floating(std::numeric_limits<double>::quiet_NaN());
    fail(at, "expected 'inf', '-inf' or 'nan', got '" + text + "'");
  }
  if (key == "dtype") return Value::dtype(stringPayload(payload, at));
  if (key == "device") return Value::device(stringPayload(payload, at));
  if (key == "repr") return Value::repr(stringPayload(payload, at));
  fail(where, "unknown value encoding '" + key + "'");
}

Value decode(const json& j, const std::string& where, const Resolver& resolve) {
  switch (j.type()) {
  case json::value_t::null:
    return Value::none();
  case json::value_t::boolean:
    return Value::boolean(j.get<bool>());
  case json::value_t::number_integer:
    return Value::integer(j.get<int64_t>());
  case json::value_t::number_unsigned: {
    const auto u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail(where, "integer " + std::to_string(u) + " does not fit in 64 bits");
    return Value::integer(static_cast<int64_t>(u));
  }
  case json::value_t::number_float:
    return Value::floating(j.get<double>());
  case json::value_t::string:
    return Value::string(j.get<std::string>());
  case json::value_t::array:
    return Value::list(decodeArray(j, where, resolve));
  case json::value_t::object:
    return decodeObject(j, where, resolve);
  default:
    fail(where, "unsupported JSON value");
  }
}

const json& requireKey(const json& obj, const std::string& where, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end()) fail(where, std::string("missing key '") + key + "'");
  return *it;
}

const std::string& requireString(const json& obj, const std::string& where, const char* key) {
  return stringPayload(requireKey(obj, where, key), member(where, key));
}

} // namespace

Expected<Value> valueFromJson(const json& j, const std::string& where,
                              const std::function<Node*(const std::string&)>& resolve) {
  try {
    Resolver inner;
    if (resolve) inner = [&resolve](const std::string& name, std::string&) { return resolve(name); };
    return decode(j, where, inner);
  } catch (const Exception& e) {
    return makeError(e.message);
  }
}

namespace {

void dumpTo(std::string& out, const json& j, int indent, int depth) {
  const bool pretty = indent >= 0;
  auto newline = [&](int level) {
    if (!pretty) return;
    out += '\n';
    out.append(static_cast<std::size_t>(indent) * static_cast<std::size_t>(level), ' ');
  };
  switch (j.type()) {
  case json::value_t::object: {
    if (j.empty()) {
      out += "{}";
      return;
    }
    out += '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1);
      out += json(it.key()).dump();
      out += pretty ? ": " : ":";
      dumpTo(out, it.value(), indent, depth + 1);
    }
    newline(depth);
    out += '}';
    return;
  }
  case json::value_t::array: {
    if (j.empty()) {
      out += "[]";
      return;
    }
    out += '[';
    bool first = true;
    for (const json& item : j) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1);
      dumpTo(out, item, indent, depth + 1);
    }
    newline(depth);
    out += ']';
    return;
  }
  case json::value_t::number_float: {
    const double d = j.get<double>();
    out += std::isfinite(d) ? pythonFloatRepr(d) : std::string("null"); // as nlohmann does
    return;
  }
  default:
    out += j.dump();
    return;
  }
}

} // namespace

std::string dumpJson(const json& j, int indent) {
  std::string out;
  dumpTo(out, j, indent, 0);
  return out;
}

json graphToJson(const Graph& graph) {
  json nodes = json::array();
  for (const Node& n : graph.nodes()) {
    json args = json::array();
    for (const Value& v : n.args())
      args.push_back(valueToJson(v));
    json kwargs = json::object();
    for (const auto& kv : n.kwargs())
      kwargs[kv.first] = valueToJson(kv.second);
    nodes.push_back(json{{"name", n.name()},
                         {"op", std::string(opName(n.op()))},
                         {"target", n.target()},
                         {"args", std::move(args)},
                         {"kwargs", std::move(kwargs)}});
  }
  return json{{"nodes", std::move(nodes)}};
}

Expected<std::unique_ptr<Graph>> graphFromJson(const json& j, const std::string& where) {
  try {
    if (!j.is_object()) fail(where, "expected an object, got " + typeOf(j));
    const std::string nodesAt = member(where, "nodes");
    const json& nodes = requireKey(j, where, "nodes");
    if (!nodes.is_array()) fail(nodesAt, "expected an array, got " + typeOf(nodes));

    // All names first, so a reference to a later node can be told from an unknown one.
    std::unordered_set<std::string> allNames;
    for (const json& n : nodes) {
      if (!n.is_object()) continue;
      const auto it = n.find("name");
      if (it != n.end() && it->is_string()) allNames.insert(it->get<std::string>());
    }

    auto graph = std::make_unique<Graph>();
    const Resolver resolve = [&graph, &allNames](const std::string& name, std::string& why) {
      Node* n = graph->findNode(name);
      if (!n && allNames.count(name) != 0) why = "reference to node '" + name + "' before its definition";
      return n;
    };
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::string at = element(nodesAt, i);
      const json& n = nodes[i];
      if (!n.is_object()) fail(at, "expected an object, got " + typeOf(n));
      const std::string& name = requireString(n, at, "name");
      const std::string& opText = requireString(n, at, "op");
      Op op;
      if (!parseOp(opText, op)) fail(member(at, "op"), "unknown op '" + opText + "'");
      const std::string& target = requireString(n, at, "target");
      const json& argsJson = requireKey(n, at, "args");
      const json& kwargsJson = requireKey(n, at, "kwargs");
      if (name.empty()) fail(member(at, "name"), "empty node name");
      if (graph->findNode(name)) fail(member(at, "name"), "duplicate node name '" + name + "'");

      ValueList args = decodeArray(argsJson, member(at, "args"), resolve);
      const std::string kwargsAt = member(at, "kwargs");
      if (!kwargsJson.is_object()) fail(kwargsAt, "expected an object, got " + typeOf(kwargsJson));
      Kwargs kwargs;
      kwargs.reserve(kwargsJson.size());
      for (auto kv = kwargsJson.begin(); kv != kwargsJson.end(); ++kv)
        kwargs.emplace_back(kv.key(), decode(kv.value(), member(kwargsAt, kv.key()), resolve));
      if (!graph->createNodeNamed(op, target, std::move(args), std::move(kwargs), name))
        fail(member(at, "name"), "duplicate node name '" + name + "'");
    }
    return graph;
  } catch (const Exception& e) {
    return makeError(e.message);
  }
}

} // namespace lattice::fx
