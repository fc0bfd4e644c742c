// Implements fx::Value (construction, accessors that answer an empty payload for other kinds,
// equality, type names) and the Python text forms used by every printer: repr(float) and repr() of
// argument values. The torch.fx `str()`-based argument formatting of Node::format lives in
// Printer.cpp.

#include "fx/Value.h"

#include "fx/Node.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace lattice::fx {

Object::~Object() = default;

std::string Object::repr() const {
  return "<" + typeName() + " object>";
}

Value& Value::operator=(const Value& other) {
  if (this != &other) *this = Value(other); // the copy is taken before this value changes
  return *this;
}

Value& Value::operator=(Value&& other) noexcept {
  if (this != &other) {
    Value taken(std::move(other)); // `other` may live inside this value's payload
    m_kind = taken.m_kind;
    m_payload = std::move(taken.m_payload);
  }
  return *this;
}

const std::string& Value::asString() const {
  static const std::string empty;
  const std::string* p = std::get_if<std::string>(&m_payload);
  return p ? *p : empty;
}

const ValueList& Value::items() const {
  static const ValueList empty;
  const ValueList* p = std::get_if<ValueList>(&m_payload);
  return p ? *p : empty;
}

ValueList& Value::items() {
  thread_local ValueList scratch;
  ValueList* p = std::get_if<ValueList>(&m_payload);
  if (p) return *p;
  scratch.clear();
  return scratch;
}

const Kwargs& Value::dictItems() const {
  static const Kwargs empty;
  const Kwargs* p = std::get_if<Kwargs>(&m_payload);
  return p ? *p : empty;
}

Kwargs& Value::dictItems() {
  thread_local Kwargs scratch;
  Kwargs* p = std::get_if<Kwargs>(&m_payload);
  if (p) return *p;
  scratch.clear();
  return scratch;
}

const std::shared_ptr<const Object>& Value::asObject() const {
  static const std::shared_ptr<const Object> empty;
  const auto* p = std::get_if<std::shared_ptr<const Object>>(&m_payload);
  return p ? *p : empty;
}

Value Value::boolean(bool v) {
  return Value(Kind::Bool, int64_t(v ? 1 : 0));
}

Value Value::integer(int64_t v) {
  return Value(Kind::Int, v);
}

Value Value::floating(double v) {
  return Value(Kind::Float, v);
}

Value Value::string(std::string v) {
  return Value(Kind::String, std::move(v));
}

Value Value::node(Node* n) {
  return Value(Kind::NodeRef, n);
}

Value Value::list(ValueList items) {
  return Value(Kind::List, std::move(items));
}

Value Value::tuple(ValueList items) {
  return Value(Kind::Tuple, std::move(items));
}

Value Value::dict(Kwargs items) {
  return Value(Kind::Dict, std::move(items));
}

Value Value::slice(Value start, Value stop, Value step) {
  ValueList items;
  items.reserve(3);
  items.push_back(std::move(start));
  items.push_back(std::move(stop));
  items.push_back(std::move(step));
  return Value(Kind::Slice, std::move(items));
}

Value Value::dtype(std::string name) {
  return Value(Kind::DType, std::move(name));
}

Value Value::device(std::string name) {
  return Value(Kind::Device, std::move(name));
}

Value Value::repr(std::string text) {
  return Value(Kind::Repr, std::move(text));
}

Value Value::object(std::shared_ptr<const Object> object) {
  return Value(Kind::Object, std::move(object));
}

std::string Value::typeName() const {
  switch (m_kind) {
  case Kind::None:
    return "NoneType";
  case Kind::Bool:
    return "bool";
  case Kind::Int:
    return "int";
  case Kind::Float:
    return "float";
  case Kind::String:
    return "str";
  case Kind::NodeRef:
    return "Node";
  case Kind::List:
    return "list";
  case Kind::Tuple:
    return "tuple";
  case Kind::Dict:
    return "dict";
  case Kind::Slice:
    return "slice";
  case Kind::DType:
    return "dtype";
  case Kind::Device:
    return "device";
  case Kind::Repr:
    return "object";
  case Kind::Object:
    return asObject() ? asObject()->typeName() : "object";
  }
  return "object";
}

bool Value::operator==(const Value& other) const {
  return m_kind == other.m_kind && m_payload == other.m_payload;
}

std::string pythonFloatRepr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";

  // Shortest round-trip digits in scientific form, e.g. "-1.2345e+02", then re-laid out the way
  // CPython's float_repr does: fixed notation for decimal exponents in [-4, 16), else exponent.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string out;
  std::size_t pos = 0;
  if (sci[pos] == '-') {
    out += '-';
    ++pos;
  }
  const std::size_t ePos = sci.find('e', pos);
  std::string digits;
  for (std::size_t i = pos; i < ePos; ++i)
    if (sci[i] != '.') digits += sci[i];
  const int exp = std::atoi(sci.c_str() + ePos + 1);
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();

  if (exp < -4 || exp >= 16) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += ebuf;
    return out;
  }
  const int decpt = exp + 1; // digits before the decimal point
  if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-decpt), '0');
    out += digits;
  } else if (static_cast<std::size_t>(decpt) < digits.size()) {
    out.append(digits, 0, static_cast<std::size_t>(decpt));
    out += '.';
    out.append(digits, static_cast<std::size_t>(decpt), std::string::npos);
  } else {
    out += digits;
    out.append(static_cast<std::size_t>(decpt) - digits.size(), '0');
    out += ".0";
  }
  return out;
}

namespace {

// Python's repr(str): single quotes unless the text holds a single quote and no double quote;
// control characters escaped; other (UTF-8) text kept as is.
std::string stringRepr(const std::string& s) {
  const bool hasSingle = s.find('\'') != std::string::npos;
  const bool hasDouble = s.find('"') != std::string::npos;
  const char quote = (hasSingle && !hasDouble) ? '"' : '\'';
  std::string out;
  out.reserve(s.size() + 2);
  out += quote;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == static_cast<unsigned char>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      // C1 control characters (U+0080..U+009F) are not printable either.
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(s[i + 1]));
      out += hex;
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += quote;
  return out;
}

std::string deviceRepr(const std::string& name) {
  const auto colon = name.find(':');
  if (colon == std::string::npos) return "device(type=" + stringRepr(name) + ")";
  return "device(type=" + stringRepr(name.substr(0, colon)) + ", index=" + name.substr(colon + 1) + ")";
}

} // namespace

std::string pythonRepr(const Value& v, bool nodePrefix) {
  switch (v.kind()) {
  case Value::Kind::None:
    return "None";
  case Value::Kind::Bool:
    return v.asBool() ? "True" : "False";
  case Value::Kind::Int:
    return std::to_string(v.asInt());
  case Value::Kind::Float:
    return pythonFloatRepr(v.asFloat());
  case Value::Kind::String:
    return stringRepr(v.asString());
  case Value::Kind::NodeRef: {
    const std::string name = v.asNode() ? v.asNode()->name() : std::string("<null>");
    return nodePrefix ? "%" + name : name;
  }
  case Value::Kind::List:
  case Value::Kind::Tuple: {
    const bool isList = v.kind() == Value::Kind::List;
    std::string out(1, isList ? '[' : '(');
    const ValueList& items = v.items();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i) out += ", ";
      out += pythonRepr(items[i], nodePrefix);
    }
    if (!isList && items.size() == 1) out += ',';
    out += isList ? ']' : ')';
    return out;
  }
  case Value::Kind::Dict: {
    std::string out = "{";
    bool first = true;
    for (const auto& kv : v.dictItems()) {
      if (!first) out += ", ";
      first = false;
      out += stringRepr(kv.first);
      out += ": ";
      out += pythonRepr(kv.second, nodePrefix);
    }
    return out + "}";
  }
  case Value::Kind::Slice: {
    std::string out = "slice(";
    for (std::size_t i = 0; i < v.items().size(); ++i) {
      if (i) out += ", ";
      out += pythonRepr(v.items()[i], nodePrefix);
    }
    return out + ")";
  }
  case Value::Kind::DType:
    return "torch." + v.asString();
  case Value::Kind::Device:
    return deviceRepr(v.asString());
  case Value::Kind::Repr:
    return v.asString();
  case Value::Kind::Object:
    return v.asObject() ? v.asObject()->repr() : "None";
  }
  return {};
}

std::string pythonStr(const Value& v) {
  switch (v.kind()) {
  case Value::Kind::String:
  case Value::Kind::Device:
    return v.asString();
  default:
    return pythonRepr(v, false);
  }
}

} // namespace lattice::fx
