// Writer text of attribute values (format spec sec. 3.1, 5, 5.1, 5.2, hazards H1-H3). Printing
// only: which attributes an op carries and in which order is MlirWriter's business.

#include "dialect/MlirAttributes.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace lattice {
namespace {

const char* alternativeName(const AttrValue& value) {
  switch (value.index()) {
  case 0:
    return "an integer";
  case 1:
    return "a float";
  case 2:
    return "an integer list";
  case 3:
    return "a float list";
  case 4:
    return "a string";
  case 5:
    return "a packing";
  }
  return "a value";
}

void appendInt(std::string& out, std::int64_t v) {
  char buffer[24];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, r.ptr);
}

/// `array<i64: a, b, c>`, formatted on the stack and appended at once.
void appendI64Triple(std::string& out, const std::array<std::int64_t, 3>& t) {
  constexpr std::string_view open = "array<i64: ";
  char buffer[open.size() + 3 * 22 + 1];
  char* p = std::copy(open.begin(), open.end(), buffer);
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      *p++ = ',';
      *p++ = ' ';
    }
    p = std::to_chars(p, buffer + sizeof buffer, t[i]).ptr;
  }
  *p++ = '>';
  out.append(buffer, p);
}

/// `#lattice.<mnemonic><` of an enum-like kind (built once per kind).
std::string_view enumPrefix(SchemaAttrKind kind) {
  static const auto prefixes = [] {
    std::array<std::string, static_cast<std::size_t>(SchemaAttrKind::Packing) + 1> out;
    for (std::size_t k = 0; k < out.size(); ++k)
      out[k] = "#lattice." + std::string(schemaName(static_cast<SchemaAttrKind>(k))) + "<";
    return out;
  }();
  return prefixes[static_cast<std::size_t>(kind)];
}

// The schema definition of an attribute kind (looked up once per kind).
const SchemaAttrDef* attrDefOf(SchemaAttrKind kind) {
  static const auto defs = [] {
    std::array<const SchemaAttrDef*, static_cast<std::size_t>(SchemaAttrKind::Packing) + 1> out{};
    for (std::size_t k = 0; k < out.size(); ++k)
      out[k] = dialectSchema().findAttr(schemaName(static_cast<SchemaAttrKind>(k)));
    return out;
  }();
  return defs[static_cast<std::size_t>(kind)];
}

Error wrongValue(SchemaAttrKind kind, const AttrValue& value) {
  return makeError("expected a value for attribute kind '" + std::string(schemaName(kind)) + "', got " +
                   alternativeName(value));
}

// Python int(float): truncation toward zero; refuses what int() would raise on.
Expected<std::int64_t> truncateToInt(double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 9.2233720368547758e18)
    return makeError("cannot convert float " + formatPythonFloatRepr(v) + " to an integer");
  return static_cast<std::int64_t>(std::trunc(v));
}

Expected<std::array<std::int64_t, 3>> i64Triple(const AttrValue& value) {
  if (const auto* v = std::get_if<std::int64_t>(&value)) return std::array<std::int64_t, 3>{*v, *v, *v};
  if (const auto* list = std::get_if<I64Array>(&value)) {
    if (list->size() != 3) return makeError("expected 3 items, got " + std::to_string(list->size()));
    return std::array<std::int64_t, 3>{(*list)[0], (*list)[1], (*list)[2]};
  }
  if (const auto* list = std::get_if<F64Array>(&value)) {
    if (list->size() != 3) return makeError("expected 3 items, got " + std::to_string(list->size()));
    std::array<std::int64_t, 3> out{};
    for (int i = 0; i < 3; ++i) {
      Expected<std::int64_t> item = truncateToInt((*list)[i]);
      if (!item) return item.error();
      out[i] = *item;
    }
    return out;
  }
  return wrongValue(SchemaAttrKind::I64Triple, value);
}

Expected<std::array<double, 3>> f64Triple(const AttrValue& value) {
  if (const auto* v = std::get_if<double>(&value)) return std::array<double, 3>{*v, *v, *v};
  if (const auto* v = std::get_if<std::int64_t>(&value)) {
    const double d = static_cast<double>(*v);
    return std::array<double, 3>{d, d, d};
  }
  if (const auto* list = std::get_if<F64Array>(&value)) {
    if (list->size() != 3) return makeError("expected 3 items, got " + std::to_string(list->size()));
    return std::array<double, 3>{(*list)[0], (*list)[1], (*list)[2]};
  }
  if (const auto* list = std::get_if<I64Array>(&value)) {
    if (list->size() != 3) return makeError("expected 3 items, got " + std::to_string(list->size()));
    return std::array<double, 3>{double((*list)[0]), double((*list)[1]), double((*list)[2])};
  }
  return wrongValue(SchemaAttrKind::F64Triple, value);
}

Status appendPacking(std::string& out, const PackingAttr& p) {
  const SchemaAttrDef* def = attrDefOf(SchemaAttrKind::Packing);
  if (std::find(def->values.begin(), def->values.end(), p.kind) == def->values.end())
    return makeError("unknown packing kind '" + printableForMessage(p.kind) + "'");
  if (p.kind == "dense") {
    out += "#lattice.packing<dense>";
    return {};
  }
  if (p.groupSize <= 0)
    return makeError("packing group_size must be positive, got " + std::to_string(p.groupSize));
  if (p.scaleDtype != "f16" && p.scaleDtype != "f32")
    return makeError("packing scale_dtype must be 'f16' or 'f32', got '" + printableForMessage(p.scaleDtype) +
                     "'");
  if (p.mode != "affine")
    return makeError("packing mode must be 'affine', got '" + printableForMessage(p.mode) + "'");
  out += "#lattice.packing<" + p.kind + ", group_size = " + std::to_string(p.groupSize) +
         ", scale_dtype = " + p.scaleDtype + ", mode = " + p.mode + ">";
  return {};
}

void appendDecimalFloat(std::string& out, double value) {
  // A whole number prints as itself with ".0" (what the general path gives it; -0 prints "0.0").
  if (std::fabs(value) < 1e15 && value == std::trunc(value)) {
    char buffer[24];
    char* p = std::to_chars(buffer, buffer + sizeof buffer - 2, static_cast<std::int64_t>(value)).ptr;
    *p++ = '.';
    *p++ = '0';
    out.append(buffer, p);
    return;
  }
  // printf("%.12f") without printf: to_chars with a precision is correctly rounded from the exact
  // binary value (ties to even), as glibc's printf is. inf/nan follow the spec's table.
  char buffer[400]; // |v| <= DBL_MAX has 309 integer digits, + sign, '.', 12 decimals
  std::string_view text;
  if (std::isfinite(value)) {
    const std::to_chars_result r =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, 12);
    text = std::string_view(buffer, static_cast<std::size_t>(r.ptr - buffer));
  } else {
    text = std::isnan(value) ? "nan" : (value < 0 ? "-inf" : "inf");
  }
  // rstrip('0') then rstrip('.'): the '.' stops the first strip, so integer zeros survive.
  while (!text.empty() && text.back() == '0')
    text.remove_suffix(1);
  while (!text.empty() && text.back() == '.')
    text.remove_suffix(1);
  if (text.empty() || text == "-0") {
    out += "0.0";
    return;
  }
  out += text;
  if (text.find('.') == std::string_view::npos) out += ".0";
}

} // namespace

std::string formatDecimalFloat(double value) {
  std::string out;
  appendDecimalFloat(out, value);
  return out;
}

std::string formatPythonFloatRepr(double value) {
  if (std::isnan(value)) return "nan";
  const std::string sign = std::signbit(value) ? "-" : "";
  if (std::isinf(value)) return sign + "inf";
  if (value == 0.0) return sign + "0.0";

  // Shortest round-trip digits, nearest to the exact value on ties (to_chars guarantees both).
  char buffer[64];
  const std::to_chars_result r =
      std::to_chars(buffer, buffer + sizeof buffer, std::fabs(value), std::chars_format::scientific);
  const std::string_view sci(buffer, static_cast<std::size_t>(r.ptr - buffer)); // d[.ddd]e±XX
  const std::size_t ePos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, ePos)) {
    if (c != '.') digits.push_back(c);
  }
  const int exponent = std::stoi(std::string(sci.substr(ePos + 1)));
  const int n = static_cast<int>(digits.size());
  const int decpt = exponent + 1; // |v| = 0.d1..dn × 10^decpt

  std::string out = sign;
  if (-4 < decpt && decpt <= 16) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-decpt), '0');
      out += digits;
    } else if (decpt >= n) {
      out += digits;
      out.append(static_cast<std::size_t>(decpt - n), '0');
      out += ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(decpt));
      out += '.';
      out += digits.substr(static_cast<std::size_t>(decpt));
    }
    return out;
  }
  out += digits[0];
  if (n > 1) {
    out += '.';
    out += digits.substr(1);
  }
  out += 'e';
  out += exponent < 0 ? '-' : '+';
  const std::string expDigits = std::to_string(exponent < 0 ? -exponent : exponent);
  if (expDigits.size() < 2) out += '0';
  out += expDigits;
  return out;
}

std::string formatStringArray(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += '"';
    for (char c : items[i]) {
      if (c == '\\' || c == '"') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += ']';
  return out;
}

std::string printableForMessage(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e) c = '?';
  }
  return out;
}

namespace {

/// Printable ASCII without `"` or `\` (hazard H3: str attributes and storage keys are written
/// unescaped).
bool isSafeUnescapedString(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\'; });
}

Status appendStringAttr(std::string& out, SchemaAttrKind kind, std::string_view s) {
  if (kind == SchemaAttrKind::Str) {
    if (!isSafeUnescapedString(s))
      return makeError("string '" + printableForMessage(s) + "' must be printable ascii without '\"' or '\\'");
    out += '"';
    out += s;
    out += '"';
    return {};
  }
  // The enum-like kinds: #lattice.<mnemonic><value>, the value from the schema's set.
  if (!isEnumAttrKind(kind)) return wrongValue(kind, std::string(s));
  const std::string_view mnemonic = schemaName(kind);
  const SchemaAttrDef* def = attrDefOf(kind);
  bool known = false;
  for (const std::string& v : def->values)
    known = known || v == s;
  if (!known)
    return makeError("unknown " + std::string(mnemonic) + " value '" + printableForMessage(s) + "'");
  out += enumPrefix(kind);
  out += s;
  out += '>';
  return {};
}

} // namespace

Status appendAttrValue(std::string& out, SchemaAttrKind kind, const AttrValue& value) {
  switch (kind) {
  case SchemaAttrKind::I64Triple: {
    Expected<std::array<std::int64_t, 3>> t = i64Triple(value);
    if (!t) return t.error();
    appendI64Triple(out, *t);
    return {};
  }
  case SchemaAttrKind::F64Triple: {
    Expected<std::array<double, 3>> t = f64Triple(value);
    if (!t) return t.error();
    std::string text = "array<f64: ";
    for (int i = 0; i < 3; ++i) {
      const double v = (*t)[i];
      if (!std::isfinite(v))
        return makeError("non-finite float " + formatPythonFloatRepr(v) + " is not valid mlir");
      const std::string repr = formatPythonFloatRepr(v);
      if (repr.find('.') == std::string::npos) {
        return makeError("float " + repr +
                         " has no '.' in its repr form and would not parse as an mlir float");
      }
      if (i > 0) text += ", ";
      text += repr;
    }
    out += text;
    out += '>';
    return {};
  }
  case SchemaAttrKind::I64: {
    if (const auto* v = std::get_if<std::int64_t>(&value)) {
      appendInt(out, *v);
      return {};
    }
    if (const auto* v = std::get_if<double>(&value)) {
      Expected<std::int64_t> i = truncateToInt(*v);
      if (!i) return i.error();
      appendInt(out, *i);
      return {};
    }
    return wrongValue(kind, value);
  }
  case SchemaAttrKind::F32: {
    double v = 0.0;
    if (const auto* d = std::get_if<double>(&value))
      v = *d;
    else if (const auto* i = std::get_if<std::int64_t>(&value))
      v = static_cast<double>(*i);
    else
      return wrongValue(kind, value);
    if (!std::isfinite(v))
      return makeError("non-finite float " + formatPythonFloatRepr(v) + " is not valid mlir");
    appendDecimalFloat(out, v);
    out += " : f32";
    return {};
  }
  case SchemaAttrKind::Packing: {
    const auto* p = std::get_if<PackingAttr>(&value);
    if (!p) return wrongValue(kind, value);
    return appendPacking(out, *p);
  }
  default:
    break;
  }
  // Str and the enum-like kinds.
  const auto* s = std::get_if<std::string>(&value);
  if (!s) return wrongValue(kind, value);
  return appendStringAttr(out, kind, *s);
}

Expected<std::string> formatAttrValue(SchemaAttrKind kind, const AttrValue& value) {
  std::string out;
  if (Status s = appendAttrValue(out, kind, value); !s) return s.error();
  return out;
}

} // namespace lattice
