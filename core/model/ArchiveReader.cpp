// The `.ltfx` reader: model.json → Model, with every required key and type checked and the
// tree rules of fx-archive.md enforced (root first, parents before children, listed children
// exist), tensor records resolved against weights.safetensors read into memory.
//
// Values and graphs are decoded by fx's JSON encoding, which works on nlohmann::json (sorted
// objects). The document itself is parsed order-preserving (by a builder of our own, linear in
// an object's keys), and the order of dict items and kwargs is put back from it afterwards, so
// attribute and kwarg order survive a read. model.json is bounded before it is read or parsed:
// its size (kMaxArchiveJsonBytes) and its nesting depth.
// Example inputs and lowering hints are parsed in ArchiveInputs.cpp.
#include "model/Archive.h"

#include "fx/JsonEncoding.h"
#include "model/ArchiveJson.h"
#include "tensor/Safetensors.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace lattice {

using namespace archive;

namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// Reorders dict items in `value` to follow `json`'s key order; true when anything changed.
bool restoreOrder(fx::Value& value, const OJson& json) {
  bool changed = false;
  switch (value.kind()) {
  case fx::Value::Kind::List:
  case fx::Value::Kind::Tuple:
  case fx::Value::Kind::Slice: {
    const char* key = value.kind() == fx::Value::Kind::Tuple ? "tuple" : "slice";
    const OJson* items = &json;
    if (value.kind() != fx::Value::Kind::List) items = json.is_object() ? optional(json, key) : nullptr;
    if (items && items->is_array() && items->size() == value.items().size())
      for (std::size_t i = 0; i < items->size(); ++i) changed |= restoreOrder(value.items()[i], (*items)[i]);
    break;
  }
  case fx::Value::Kind::Dict: {
    if (!json.is_object() || !json.contains("dict") || !json["dict"].is_object()) break;
    const OJson& items = json["dict"];
    fx::Kwargs& current = value.dictItems();
    if (items.size() != current.size()) break;
    std::unordered_map<std::string, std::size_t> byKey;
    for (std::size_t i = 0; i < current.size(); ++i) byKey.emplace(current[i].first, i);
    fx::Kwargs ordered;
    ordered.reserve(current.size());
    for (auto it = items.begin(); it != items.end(); ++it) {
      auto found = byKey.find(it.key());
      if (found == byKey.end()) return changed; // not the encoding we expected; leave it
      if (found->second != ordered.size()) changed = true;
      ordered.push_back(current[found->second]);
      changed |= restoreOrder(ordered.back().second, it.value());
    }
    current = std::move(ordered);
    break;
  }
  default: break;
  }
  return changed;
}

fx::Value decodeValue(const OJson& json, const std::string& where) {
  auto decoded = fx::valueFromJson(nlohmann::json(json), where,
                                   [](const std::string&) -> fx::Node* { return nullptr; });
  if (!decoded) throw Exception{decoded.message()};
  fx::Value value = std::move(*decoded);
  restoreOrder(value, json);
  return value;
}

std::shared_ptr<fx::Graph> decodeGraph(const OJson& json, const std::string& where) {
  expectObject(json, where);
  auto decoded = fx::graphFromJson(nlohmann::json(json), where);
  if (!decoded) throw Exception{decoded.message()};
  std::shared_ptr<fx::Graph> graph = std::move(*decoded);

  // Put back the document's kwarg and dict order (graphFromJson saw sorted objects).
  const OJson* nodes = optional(json, "nodes");
  if (!nodes || !nodes->is_array() || nodes->size() != graph->size()) return graph;
  std::size_t index = 0;
  for (fx::Node& node : graph->nodes()) {
    const OJson& record = (*nodes)[index++];
    if (const OJson* args = optional(record, "args"); args && args->is_array() &&
                                                       args->size() == node.args().size()) {
      fx::ValueList ordered = node.args();
      bool changed = false;
      for (std::size_t i = 0; i < ordered.size(); ++i) changed |= restoreOrder(ordered[i], (*args)[i]);
      if (changed) node.setArgs(std::move(ordered));
    }
    const OJson* kwargs = optional(record, "kwargs");
    if (!kwargs || !kwargs->is_object() || kwargs->size() != node.kwargs().size()) continue;
    fx::Value asDict = fx::Value::dict(node.kwargs());
    if (restoreOrder(asDict, OJson{{"dict", *kwargs}})) node.setKwargs(asDict.dictItems());
  }
  return graph;
}

TensorRecord decodeTensorRecord(const OJson& json, const std::string& where) {
  expectObject(json, where);
  TensorRecord record;
  record.key = expectString(require(json, "key", where), member(where, "key"));
  const std::string dtypeWhere = member(where, "dtype");
  const std::string dtype = expectString(require(json, "dtype", where), dtypeWhere);
  auto parsed = parseDType(dtype);
  if (!parsed) fail(dtypeWhere, "unknown dtype '" + dtype + "'");
  record.dtype = *parsed;
  const std::string shapeWhere = member(where, "shape");
  const OJson& shape = require(json, "shape", where);
  expectArray(shape, shapeWhere);
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const int64_t dim = expectInt(shape[i], element(shapeWhere, i));
    if (dim < 0) fail(element(shapeWhere, i), "negative dimension " + std::to_string(dim));
    record.shape.push_back(dim);
  }
  return record;
}

/// Checks a record against the weights file (when given).
void checkTensor(const TensorRecord& record, const SafetensorsFile* weights, const std::string& where) {
  if (!weights) return;
  const TensorData* tensor = weights->find(record.key);
  if (!tensor) fail(where, "tensor '" + record.key + "' is not in weights.safetensors");
  if (tensor->dtype() != record.dtype)
    fail(where, "tensor '" + record.key + "' is " + std::string(dtypeName(tensor->dtype())) +
                    " in weights.safetensors but the record says " + std::string(dtypeName(record.dtype)));
  if (tensor->shape() != record.shape)
    fail(where, "tensor '" + record.key + "' has shape " + shapeText(tensor->shape()) +
                    " in weights.safetensors but the record says " + shapeText(record.shape));
}

using TensorSlots = std::vector<std::pair<std::string, std::optional<TensorRecord>>>;

TensorSlots decodeTensorSlots(const OJson& json, const std::string& where, const SafetensorsFile* weights) {
  expectObject(json, where);
  TensorSlots slots;
  for (auto it = json.begin(); it != json.end(); ++it) {
    const std::string slotWhere = member(where, it.key());
    if (it.value().is_null()) {
      slots.emplace_back(it.key(), std::nullopt);
      continue;
    }
    TensorRecord record = decodeTensorRecord(it.value(), slotWhere);
    checkTensor(record, weights, slotWhere);
    slots.emplace_back(it.key(), std::move(record));
  }
  return slots;
}

bool parseKind(const std::string& text, ParamKind& kind) {
  static const std::pair<const char*, ParamKind> kinds[] = {
      {"positional_only", ParamKind::PositionalOnly}, {"positional_or_keyword", ParamKind::PositionalOrKeyword},
      {"var_positional", ParamKind::VarPositional},   {"keyword_only", ParamKind::KeywordOnly},
      {"var_keyword", ParamKind::VarKeyword}};
  for (const auto& [name, value] : kinds)
    if (text == name) {
      kind = value;
      return true;
    }
  return false;
}

std::vector<SignatureParam> decodeSignature(const OJson& json, const std::string& where) {
  expectArray(json, where);
  std::vector<SignatureParam> params;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const std::string at = element(where, i);
    expectObject(json[i], at);
    SignatureParam param;
    param.name = expectString(require(json[i], "name", at), member(at, "name"));
    const std::string kind = expectString(require(json[i], "kind", at), member(at, "kind"));
    if (!parseKind(kind, param.kind)) fail(member(at, "kind"), "unknown parameter kind '" + kind + "'");
    if (const OJson* def = optional(json[i], "default")) param.defaultValue = decodeValue(*def, member(at, "default"));
    params.push_back(std::move(param));
  }
  return params;
}

ModuleInfo decodeModule(const OJson& json, const std::string& where, bool isRoot,
                        const SafetensorsFile* weights) {
  expectObject(json, where);
  ModuleInfo m;
  m.path = expectString(require(json, "path", where), member(where, "path"));
  m.type = expectString(require(json, "type", where), member(where, "type"));
  const std::string basesWhere = member(where, "bases");
  const OJson& bases = require(json, "bases", where);
  expectArray(bases, basesWhere);
  for (std::size_t i = 0; i < bases.size(); ++i) m.bases.push_back(expectString(bases[i], element(basesWhere, i)));
  m.training = expectBool(require(json, "training", where), member(where, "training"));

  const std::string attrWhere = member(where, "attributes");
  const OJson& attributes = require(json, "attributes", where);
  expectObject(attributes, attrWhere);
  for (auto it = attributes.begin(); it != attributes.end(); ++it)
    m.attributes.emplace_back(it.key(), decodeValue(it.value(), member(attrWhere, it.key())));

  m.parameters = decodeTensorSlots(require(json, "parameters", where), member(where, "parameters"), weights);
  m.buffers = decodeTensorSlots(require(json, "buffers", where), member(where, "buffers"), weights);

  const std::string childrenWhere = member(where, "children");
  const OJson& children = require(json, "children", where);
  expectArray(children, childrenWhere);
  std::unordered_set<std::string> seen;
  for (std::size_t i = 0; i < children.size(); ++i) {
    const std::string at = element(childrenWhere, i);
    std::string name = expectString(children[i], at);
    if (name.empty() || name.find('.') != std::string::npos)
      fail(at, "invalid child name '" + name + "' (expected a non-empty name without '.')");
    if (!seen.insert(name).second) fail(at, "duplicate child '" + name + "'");
    m.children.push_back(std::move(name));
  }

  if (const OJson* graph = optional(json, "graph"); graph && !graph->is_null())
    m.graph = decodeGraph(*graph, member(where, "graph"));

  if (const OJson* signature = optional(json, "signature"))
    m.signature = decodeSignature(*signature, member(where, "signature"));
  else if (isRoot)
    fail(where, "missing required key 'signature' (required for the root module)");
  return m;
}

std::string describe(const std::string& path) { return path.empty() ? "the root" : "'" + path + "'"; }

/// call_module and get_attr targets must name modules (and their members) of the tree.
void checkGraphTargets(const Model& model, const ModuleInfo& m, const std::string& where) {
  if (!m.graph) return;
  std::size_t index = 0;
  for (const fx::Node& node : m.graph->nodes()) {
    const std::string at = element(member(where, "graph.nodes"), index++) + ".target";
    if (node.op() == fx::Op::CallModule) {
      if (node.target().empty() || !model.module(m.childPath(node.target())))
        fail(at, "call_module target '" + node.target() + "' names no submodule of " + describe(m.path));
    } else if (node.op() == fx::Op::GetAttr) {
      const std::string owner = m.childPath(parentPath(node.target()));
      const ModuleInfo* holder = parentPath(node.target()).empty() ? &m : model.module(owner);
      const std::string name = localName(node.target());
      bool found = false;
      if (holder) {
        for (const auto& slot : holder->parameters) found |= slot.first == name;
        for (const auto& slot : holder->buffers) found |= slot.first == name;
        for (const auto& child : holder->children) found |= child == name;
        found |= holder->attribute(name) != nullptr;
      }
      if (!found)
        fail(at, "get_attr target '" + node.target() + "' names no parameter, buffer, attribute or "
                 "submodule of " + describe(m.path));
    }
  }
}

void decodeModules(Model& model, const OJson& modules, const SafetensorsFile* weights) {
  expectArray(modules, "modules");
  if (modules.empty()) fail("modules", "expected at least the root module");
  std::unordered_set<std::string> declared; // full paths listed in some module's children
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const std::string where = element("modules", i);
    ModuleInfo m = decodeModule(modules[i], where, i == 0, weights);
    const std::string pathWhere = member(where, "path");
    if (i == 0) {
      if (!m.path.empty()) fail(pathWhere, "the root module (path '') must come first, got '" + m.path + "'");
    } else {
      if (model.module(m.path)) fail(pathWhere, "duplicate module path " + describe(m.path));
      const std::string parent = parentPath(m.path);
      if (!model.module(parent))
        fail(pathWhere, "parent '" + parent + "' of module '" + m.path + "' must come before it");
      if (!declared.count(m.path))
        fail(pathWhere, "module '" + m.path + "' is not listed in the children of " + describe(parent));
    }
    for (const std::string& child : m.children) declared.insert(m.childPath(child));
    model.addModule(std::move(m));
  }
  for (std::size_t i = 0; i < model.modules().size(); ++i) {
    const ModuleInfo& m = model.modules()[i];
    const std::string where = element("modules", i);
    for (std::size_t c = 0; c < m.children.size(); ++c)
      if (!model.module(m.childPath(m.children[c])))
        fail(element(member(where, "children"), c),
             "no module record for child '" + m.children[c] + "' (path '" + m.childPath(m.children[c]) + "')");
  }
  for (std::size_t i = 0; i < model.modules().size(); ++i)
    checkGraphTargets(model, model.modules()[i], element("modules", i));
}

Model decodeDocument(const OJson& doc, const SafetensorsFile* weights) {
  if (!doc.is_object()) fail("", "expected a JSON object at the top level, got " + typeName(doc));
  const std::string format = expectString(require(doc, "format", ""), "format");
  if (format != "lattice-fx-archive") fail("format", "expected 'lattice-fx-archive', got '" + format + "'");
  const int64_t version = expectInt(require(doc, "version", ""), "version");
  if (version != kArchiveVersion)
    fail("", "unsupported archive version " + std::to_string(version) + " (this reader supports " +
                 std::to_string(kArchiveVersion) + ")");

  Model model;
  if (const OJson* producer = optional(doc, "producer"); producer && !producer->is_null()) {
    expectObject(*producer, "producer");
    if (const OJson* name = optional(*producer, "name")) model.producerName = expectString(*name, "producer.name");
    if (const OJson* v = optional(*producer, "version")) model.producerVersion = expectString(*v, "producer.version");
  }
  decodeModules(model, require(doc, "modules", ""), weights);
  if (const OJson* inputs = optional(doc, "example_inputs"); inputs && !inputs->is_null())
    model.exampleInputs = parseExampleInputs(*inputs, "example_inputs");
  if (const OJson* lowering = optional(doc, "lowering"); lowering && !lowering->is_null())
    model.lowering = parseLowering(*lowering, "lowering");

  if (weights)
    for (const NamedTensor& named : weights->tensors()) model.setTensor(named.key, named.tensor);
  return model;
}

/// The deepest nesting of arrays and objects model.json may have. The document is decoded (and
/// later traced and lowered) by recursive functions, so an unbounded depth could exhaust the
/// stack; real archives nest a few dozen levels at most.
constexpr std::size_t kMaxJsonDepth = 256;

/// "LINE:COL" (1-based; columns count bytes) of byte `offset` of `text`.
std::string lineColumn(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

/// Calls `fn(offset)` for every byte of `text` outside string literals; stops when it returns
/// true and gives that offset, else npos. One linear pass: strings and their escapes are skipped.
template <typename Fn>
std::size_t scanOutsideStrings(const std::string& text, Fn&& fn) {
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
      continue;
    }
    if (fn(i)) return i;
  }
  return std::string::npos;
}

/// The offset of the first '[' or '{' that opens a level deeper than kMaxJsonDepth, or npos.
/// Brackets are counted as they come, matched or not: the parser reports mismatches itself.
std::size_t tooDeep(const std::string& text) {
  std::size_t depth = 0;
  return scanOutsideStrings(text, [&](std::size_t i) {
    const char c = text[i];
    if (c == '[' || c == '{') return ++depth > kMaxJsonDepth;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    return false;
  });
}

bool numberChar(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

/// The offset of the first number token equal to `token` outside strings, or npos. The parser
/// stops at the first number it cannot represent, so that is the one it complained about.
std::size_t findNumber(const std::string& text, const std::string& token) {
  if (token.empty()) return std::string::npos;
  return scanOutsideStrings(text, [&](std::size_t i) {
    if (!numberChar(text[i]) || (i > 0 && numberChar(text[i - 1]))) return false;
    std::size_t end = i;
    while (end < text.size() && numberChar(text[end])) ++end;
    return text.compare(i, end - i, token) == 0 && end - i == token.size();
  });
}

/// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 12: syntax error
/// ..." → "syntax error ..." (the location is reported separately).
std::string jsonErrorDetail(const std::string& what) {
  std::string text = what;
  if (text.rfind("[json.exception.", 0) == 0) {
    const std::size_t close = text.find("] ");
    if (close != std::string::npos) text = text.substr(close + 2);
  }
  const std::string prefix = "parse error at ";
  if (text.rfind(prefix, 0) == 0) {
    const std::size_t colon = text.find(": ");
    if (colon != std::string::npos) return text.substr(colon + 2);
  }
  const std::string bare = "parse error: ";
  if (text.rfind(bare, 0) == 0) return text.substr(bare.size());
  return text;
}

/// The document builder nlohmann's parser drives (its SAX interface). nlohmann's own builder
/// adds each key of an order-preserving object with a linear search for an equal earlier key,
/// so an object of n keys costs O(n²); this one appends a key, and an object past
/// kIndexedFrom keys keeps a hash index of its keys, so a repeated key is still found in
/// constant time. As with nlohmann's builder and Python's json, a repeated key keeps its first
/// position and takes its last value.
class OrderedDocumentBuilder {
public:
  using number_integer_t = OJson::number_integer_t;
  using number_unsigned_t = OJson::number_unsigned_t;
  using number_float_t = OJson::number_float_t;
  using string_t = OJson::string_t;
  using binary_t = OJson::binary_t;

  explicit OrderedDocumentBuilder(OJson& root) : m_root(root) {}

  bool null() { return put(nullptr); }
  bool boolean(bool value) { return put(value); }
  bool number_integer(number_integer_t value) { return put(value); }
  bool number_unsigned(number_unsigned_t value) { return put(value); }
  bool number_float(number_float_t value, const string_t&) { return put(value); }
  bool string(string_t& value) { return put(std::move(value)); }
  bool binary(binary_t& value) { return put(OJson::binary(std::move(value))); }
  bool start_object(std::size_t) {
    m_open.push_back({place(OJson::object()), {}});
    return true;
  }
  bool key(string_t& key) {
    Open& open = m_open.back();
    // The object's entries as the vector they are (ordered_map's own operator[] and emplace
    // search by key).
    OJson::object_t::Container& object = open.value->get_ref<OJson::object_t&>();
    std::size_t at = object.size();
    if (open.index) {
      at = open.index->emplace(key, object.size()).first->second;
    } else {
      for (std::size_t i = 0; i < object.size(); ++i)
        if (object[i].first == key) {
          at = i;
          break;
        }
    }
    if (at == object.size()) {
      object.emplace_back(std::move(key), nullptr);
      if (!open.index && object.size() > kIndexedFrom) {
        open.index = std::make_unique<absl::flat_hash_map<std::string, std::size_t>>();
        open.index->reserve(2 * object.size());
        for (std::size_t i = 0; i < object.size(); ++i) open.index->emplace(object[i].first, i);
      }
    }
    m_element = &object[at].second;
    return true;
  }
  bool end_object() {
    m_open.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    m_open.push_back({place(OJson::array()), {}});
    return true;
  }
  bool end_array() {
    m_open.pop_back();
    return true;
  }
  template <typename Error>
  bool parse_error(std::size_t, const std::string&, const Error& error) {
    throw error; // the caller words it with the location
  }

private:
  static constexpr std::size_t kIndexedFrom = 16;

  struct Open {
    OJson* value; // stable while it is open: only the innermost open value grows
    std::unique_ptr<absl::flat_hash_map<std::string, std::size_t>> index; // objects past kIndexedFrom keys
  };

  template <typename Value>
  bool put(Value&& value) {
    place(OJson(std::forward<Value>(value)));
    return true;
  }
  OJson* place(OJson value) {
    if (m_open.empty()) {
      m_root = std::move(value);
      return &m_root;
    }
    OJson* parent = m_open.back().value;
    if (parent->is_array()) {
      OJson::array_t& array = parent->get_ref<OJson::array_t&>();
      array.push_back(std::move(value));
      return &array.back();
    }
    *m_element = std::move(value);
    return m_element;
  }

  OJson& m_root;
  std::vector<Open> m_open;
  OJson* m_element = nullptr; // the value of the object key just read
};

/// Parses `jsonText` or throws Exception "LOCATION:LINE:COL: invalid JSON: ..." (every nlohmann
/// exception is caught here; the nesting depth is bounded before parsing).
OJson parseDocument(const std::string& jsonText, const std::string& location) {
  if (const std::size_t deep = tooDeep(jsonText); deep != std::string::npos)
    throw Exception{location + ":" + lineColumn(jsonText, deep) + ": invalid JSON: nesting deeper than " +
                    std::to_string(kMaxJsonDepth) + " levels"};
  try {
    OJson doc;
    OrderedDocumentBuilder builder(doc);
    OJson::sax_parse(jsonText, &builder);
    return doc;
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte counts the bytes read, the offending one included.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string detail = jsonErrorDetail(e.what());
    // A document cut short ends inside a value: nlohmann says "unexpected end of input", or
    // "missing closing quote" when the cut falls inside a string.
    if (!jsonText.empty() && offset + 1 >= jsonText.size() &&
        (detail.find("unexpected end of input") != std::string::npos ||
         detail.find("missing closing quote") != std::string::npos))
      detail += " (the file is truncated)";
    throw Exception{location + ":" + lineColumn(jsonText, offset) + ": invalid JSON: " + detail};
  } catch (const nlohmann::json::out_of_range& e) {
    // "number overflow parsing '1e708'": no position in the exception; find the token.
    const std::string detail = jsonErrorDetail(e.what());
    std::string token;
    if (const std::size_t open = detail.find('\''); open != std::string::npos) {
      const std::size_t close = detail.find('\'', open + 1);
      if (close != std::string::npos) token = detail.substr(open + 1, close - open - 1);
    }
    const std::size_t at = findNumber(jsonText, token);
    const std::string where = at == std::string::npos ? location : location + ":" + lineColumn(jsonText, at);
    throw Exception{where + ": invalid JSON: " + detail};
  } catch (const nlohmann::json::exception& e) {
    throw Exception{location + ": invalid JSON: " + jsonErrorDetail(e.what())};
  }
}

/// "<location>: file is larger than the reader limit (<size> > <limit> bytes)", as the MLIR
/// reader words it.
std::string sizeError(const std::string& location, std::uint64_t size) {
  return location + ": file is larger than the reader limit (" + std::to_string(size) + " > " +
         std::to_string(kMaxArchiveJsonBytes) + " bytes)";
}

/// `jsonLocation` names the file in JSON syntax errors (with line:column), `fileName` starts
/// the messages about the document's content.
Expected<Model> parseArchiveJsonAt(const std::string& jsonText, const std::string& fileName,
                                   const std::string& jsonLocation, const SafetensorsFile* weights) {
  if (jsonText.size() > kMaxArchiveJsonBytes) return makeError(sizeError(jsonLocation, jsonText.size()));
  OJson doc;
  try {
    doc = parseDocument(jsonText, jsonLocation);
  } catch (const Exception& e) {
    return makeError(e.message);
  }
  try {
    return decodeDocument(doc, weights);
  } catch (const Exception& e) {
    return makeError(fileName + ": " + e.message);
  } catch (const nlohmann::json::exception& e) {
    return makeError(fileName + ": " + jsonErrorDetail(e.what()));
  }
}

} // namespace

Expected<Model> parseArchiveJson(const std::string& jsonText, const std::string& fileName,
                                 const SafetensorsFile* weights) {
  return parseArchiveJsonAt(jsonText, fileName, fileName, weights);
}

Expected<Model> parseArchiveJson(const std::string& jsonText, const std::string& fileName) {
  return parseArchiveJson(jsonText, fileName, nullptr);
}

Expected<Model> readArchive(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A permission problem reads as the artifact reader words it: "FILE: cannot read file: REASON".
  if (!fs::exists(dir, ec))
    return makeError(ec ? dir + ": cannot read file: " + ec.message() : dir + ": no such archive directory");
  if (!fs::is_directory(dir, ec))
    return makeError(dir + ": not a directory (an .ltfx archive is a directory with model.json and weights.safetensors)");
  const fs::path jsonPath = fs::path(dir) / "model.json";
  if (!fs::exists(jsonPath, ec))
    return makeError(ec ? jsonPath.string() + ": cannot read file: " + ec.message() : dir + ": missing model.json");
  // The size first: a file over the limit is refused before it is read, and no more than the
  // size found is read (a file that grows meanwhile is cut there and parsed as it is).
  const std::uintmax_t size = fs::file_size(jsonPath, ec);
  if (ec) return makeError(jsonPath.string() + ": cannot read file: " + ec.message());
  if (size > kMaxArchiveJsonBytes) return makeError(sizeError(jsonPath.string(), size));
  errno = 0;
  std::ifstream in(jsonPath, std::ios::binary);
  if (!in.is_open())
    return makeError(jsonPath.string() + ": cannot read file: " + std::strerror(errno ? errno : EIO));
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad() || (!in && !in.eof())) return makeError(jsonPath.string() + ": cannot read file: read error");
  text.resize(static_cast<std::size_t>(in.gcount()));

  const fs::path weightsPath = fs::path(dir) / "weights.safetensors";
  std::optional<SafetensorsFile> weights;
  if (fs::exists(weightsPath, ec)) {
    auto opened = SafetensorsFile::open(weightsPath.string());
    if (!opened) return opened.error();
    weights = std::move(*opened);
  }
  auto model = parseArchiveJsonAt(text, "model.json", jsonPath.string(), weights ? &*weights : nullptr);
  if (!model) return model;
  if (!weights) {
    for (const ModuleInfo& m : model->modules())
      for (const auto* slots : {&m.parameters, &m.buffers})
        for (const auto& slot : *slots)
          if (slot.second)
            return makeError(dir + ": missing weights.safetensors (model.json records tensor '" + slot.second->key + "')");
  }
  model->source = dir;
  return model;
}

} // namespace lattice
