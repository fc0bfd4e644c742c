// Checked access to model.json values with JSON-location messages (see ArchiveJson.h).
#include "model/ArchiveJson.h"

namespace lattice::archive {

void fail(const std::string& where, const std::string& what) {
  throw Exception{where.empty() ? what : where + ": " + what};
}

std::string member(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

std::string element(const std::string& where, std::size_t index) {
  return where + "[" + std::to_string(index) + "]";
}

std::string typeName(const OJson& json) {
  if (json.is_null()) return "null";
  if (json.is_boolean()) return "a boolean";
  if (json.is_number_integer()) return "an integer";
  if (json.is_number_float()) return "a float";
  if (json.is_string()) return "a string";
  if (json.is_array()) return "an array";
  if (json.is_object()) return "an object";
  return "an unsupported JSON value";
}

const OJson& require(const OJson& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end()) fail(where, std::string("missing required key '") + key + "'");
  return *it;
}

const OJson* optional(const OJson& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

void expectObject(const OJson& json, const std::string& where) {
  if (!json.is_object()) fail(where, "expected an object, got " + typeName(json));
}

void expectArray(const OJson& json, const std::string& where) {
  if (!json.is_array()) fail(where, "expected an array, got " + typeName(json));
}

std::string expectString(const OJson& json, const std::string& where) {
  if (!json.is_string()) fail(where, "expected a string, got " + typeName(json));
  return json.get<std::string>();
}

bool expectBool(const OJson& json, const std::string& where) {
  if (!json.is_boolean()) fail(where, "expected a boolean, got " + typeName(json));
  return json.get<bool>();
}

int64_t expectInt(const OJson& json, const std::string& where) {
  if (json.is_number_unsigned()) {
    const auto v = json.get<uint64_t>();
    if (v > static_cast<uint64_t>(INT64_MAX)) fail(where, "integer " + json.dump() + " is too large");
    return static_cast<int64_t>(v);
  }
  if (!json.is_number_integer()) fail(where, "expected an integer, got " + typeName(json));
  return json.get<int64_t>();
}

} // namespace lattice::archive
