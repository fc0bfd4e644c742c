// Writer-form printing of parsed artifact graphs (format spec sec. 3-6). It prints what the
// graph holds; it does not check it against the dialect (the verifier does).

#include "mlir/ArtifactPrinter.h"

#include <cctype>
#include <cstdio>

namespace lattice {
namespace {

bool isBareIdent(std::string_view text) {
  if (text.empty()) return false;
  const unsigned char first = static_cast<unsigned char>(text[0]);
  if (!(std::isalpha(first) || first == '_')) return false;
  for (unsigned char c : text)
    if (!(std::isalnum(c) || c == '_' || c == '$' || c == '.')) return false;
  return true;
}

// MLIR suffix-id: [0-9]+ or [a-zA-Z$._-][a-zA-Z0-9$._-]*.
bool isSuffixId(std::string_view text) {
  if (text.empty()) return false;
  bool digits = true;
  for (unsigned char c : text)
    digits = digits && std::isdigit(c);
  if (digits) return true;
  const unsigned char first = static_cast<unsigned char>(text[0]);
  if (!(std::isalpha(first) || first == '$' || first == '.' || first == '_' || first == '-')) return false;
  for (unsigned char c : text)
    if (!(std::isalnum(c) || c == '$' || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

// Length of the well-formed UTF-8 sequence starting at `i` (a lead byte >= 0x80), or 0.
std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  std::size_t n = 0;
  unsigned int cp = 0;
  if ((c & 0xE0) == 0xC0)
    n = 1, cp = c & 0x1Fu;
  else if ((c & 0xF0) == 0xE0)
    n = 2, cp = c & 0x0Fu;
  else if ((c & 0xF8) == 0xF0)
    n = 3, cp = c & 0x07u;
  else
    return 0;
  for (std::size_t k = 1; k <= n; ++k) {
    if (i + k >= text.size()) return 0;
    const unsigned char d = static_cast<unsigned char>(text[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3Fu);
  }
  const unsigned int minimum[] = {0, 0x80, 0x800, 0x10000};
  if (cp < minimum[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n + 1;
}

std::string symbolText(std::string_view name) {
  return "@" + (isSuffixId(name) ? std::string(name) : quoteMlirString(name));
}

// Python repr, with `.0` inserted into a dot-less exponent form (`1e-05` -> `1.0e-05`) so the
// text stays a valid MLIR float literal.
std::string floatLiteral(double value) {
  std::string text = formatPythonFloatRepr(value);
  if (text.find('.') == std::string::npos) {
    const std::size_t e = text.find('e');
    if (e != std::string::npos)
      text.insert(e, ".0");
    else if (text.find_first_not_of("-0123456789") == std::string::npos)
      text += ".0";
  }
  return text;
}

template <typename Items, typename Fn>
std::string joined(const Items& items, Fn&& fn, const char* separator = ", ") {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    first = false;
    out += fn(item);
  }
  return out;
}

std::string typeList(const std::vector<ArtifactType>& types) {
  return joined(types, [](const ArtifactType& t) { return printType(t); });
}

// A result type list: one type bare, otherwise parenthesized.
std::string resultTypeList(const std::vector<ArtifactValueDef>& results) {
  std::string list = joined(results, [](const ArtifactValueDef& r) { return printType(r.type); });
  return results.size() == 1 ? list : "(" + list + ")";
}

// `name#index` when `def` is a member of a result group (`%0:3` defines `0#0`, `0#1`, `0#2`).
bool groupMember(const std::string& name, std::string_view& group, std::size_t& index) {
  const std::size_t hash = name.rfind('#');
  if (hash == std::string::npos || hash + 1 == name.size()) return false;
  index = 0;
  for (std::size_t i = hash + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    index = index * 10 + std::size_t(name[i] - '0');
  }
  group = std::string_view(name).substr(0, hash);
  return true;
}

std::string resultPrefix(const ArtifactOp& op) {
  if (op.results.empty()) return "";
  std::string out;
  for (std::size_t i = 0; i < op.results.size();) {
    if (i) out += ", ";
    std::string_view group;
    std::size_t index = 0;
    if (!groupMember(op.results[i].name, group, index) || index != 0) {
      out += "%" + op.results[i].name;
      ++i;
      continue;
    }
    // A run `G#0, G#1, ..., G#k-1` prints as the group `%G:k`.
    std::size_t n = 1;
    for (std::string_view g; i + n < op.results.size(); ++n)
      if (!groupMember(op.results[i + n].name, g, index) || g != group || index != n) break;
    out += "%" + std::string(group) + ":" + std::to_string(n);
    i += n;
  }
  return out + " = ";
}

std::string operandList(const std::vector<ArtifactValueUse>& operands) {
  return joined(operands, [](const ArtifactValueUse& u) { return "%" + u.name; });
}

} // namespace

std::string quoteMlirString(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\\' || c == '"') {
      out += '\\';
      out += ch;
    } else if (c >= 0x80 && utf8SequenceLength(text, i) > 0) {
      // Well-formed UTF-8 stays raw, as the writer emits it.
      const std::size_t n = utf8SequenceLength(text, i);
      out.append(text.substr(i, n));
      i += n - 1;
    } else if (c < 0x20 || c >= 0x7f) {
      char buffer[4];
      std::snprintf(buffer, sizeof buffer, "\\%02X", c);
      out += buffer;
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

std::string printKeyword(std::string_view text) {
  return isBareIdent(text) ? std::string(text) : quoteMlirString(text);
}

std::string printType(const ArtifactType& type) {
  switch (type.kind) {
  case ArtifactType::Kind::Tensor: {
    std::string out = "tensor<";
    if (!type.ranked) {
      out += "*x";
    } else {
      for (std::int64_t extent : type.shape) {
        out += extent < 0 ? std::string("?") : std::to_string(extent);
        out += 'x';
      }
    }
    return out + type.elementType + ">";
  }
  case ArtifactType::Kind::SparseTensor:
    return "!lattice.sparse_tensor<rank = " + std::to_string(type.rank) +
           ", coord = " + printKeyword(type.coord) + ", feature = " + printKeyword(type.feature) +
           ", dtype = " + type.dtype + ">";
  case ArtifactType::Kind::Weight:
    return "!lattice.weight<" + printKeyword(type.family) + ", " + type.dtype + ">";
  case ArtifactType::Kind::Scalar:
    return type.elementType;
  }
  return type.elementType;
}

std::string printAttrValue(const ArtifactAttrValue& v) {
  using Kind = ArtifactAttrValue::Kind;
  switch (v.kind) {
  case Kind::Unit:
    return "unit";
  case Kind::Bool:
    return v.boolean ? "true" : "false";
  case Kind::Integer: {
    std::string out = std::to_string(v.integer);
    if (!v.type.empty() && v.type != "i64") out += " : " + v.type;
    return out;
  }
  case Kind::Float:
    if (v.type == "f32") return formatDecimalFloat(v.number) + " : f32";
    return floatLiteral(v.number) + (v.type.empty() || v.type == "f64" ? "" : " : " + v.type);
  case Kind::String:
    return quoteMlirString(v.text);
  case Kind::Symbol:
    return symbolText(v.text);
  case Kind::Array:
    return "[" + joined(v.elements, [](const ArtifactAttrValue& e) { return printAttrValue(e); }) + "]";
  case Kind::I64Array:
    if (v.i64s.empty()) return "array<" + v.type + ">";
    return "array<" + v.type + ": " + joined(v.i64s, [](std::int64_t i) { return std::to_string(i); }) + ">";
  case Kind::F64Array:
    if (v.f64s.empty()) return "array<" + v.type + ">";
    return "array<" + v.type + ": " + joined(v.f64s, [](double d) { return floatLiteral(d); }) + ">";
  case Kind::Enum:
    return "#lattice." + v.mnemonic + "<" + printKeyword(v.text) + ">";
  case Kind::Packing:
    if (!v.packingLongForm) return "#lattice.packing<" + printKeyword(v.packing.kind) + ">";
    return "#lattice.packing<" + printKeyword(v.packing.kind) +
           ", group_size = " + std::to_string(v.packing.groupSize) +
           ", scale_dtype = " + v.packing.scaleDtype + ", mode = " + printKeyword(v.packing.mode) + ">";
  }
  return "";
}

std::string printAttrDict(const std::vector<ArtifactAttribute>& attributes) {
  if (attributes.empty()) return "";
  return "{" +
         joined(attributes,
                [](const ArtifactAttribute& a) {
                  const std::string name = printKeyword(a.name);
                  if (a.value.kind == ArtifactAttrValue::Kind::Unit) return name;
                  return name + " = " + printAttrValue(a.value);
                }) +
         "}";
}

std::string printOp(const ArtifactOp& op) {
  std::string out = resultPrefix(op) + op.name;
  if (op.schema && op.schema->assembly == SchemaAssembly::Weight) {
    const std::string attrs = printAttrDict(op.attributes);
    out += " " + symbolText(op.symbol) + " " + (attrs.empty() ? std::string("{}") : attrs) + " : " +
           resultTypeList(op.results);
    return out;
  }
  if (op.schema && op.schema->assembly == SchemaAssembly::Decompose) {
    out += " " + operandList(op.operands);
    if (!op.attributes.empty()) out += " " + printAttrDict(op.attributes);
    out += " : " + typeList(op.operandTypes) + " -> (" +
           joined(op.results, [](const ArtifactValueDef& r) { return printType(r.type); }) + ")";
    return out;
  }
  if (op.schema) {
    // Functional form: `{OPERANDS} {ATTRS}` leaves two spaces when there are no attributes.
    if (!op.operands.empty()) out += " " + operandList(op.operands);
    out += " " + printAttrDict(op.attributes) + " : (" + typeList(op.operandTypes) + ") -> " +
           resultTypeList(op.results);
    return out;
  }
  if (op.hasSymbol) out += " " + symbolText(op.symbol);
  if (op.parenthesizedOperands)
    out += "(" + operandList(op.operands) + ")";
  else if (!op.operands.empty())
    out += " " + operandList(op.operands);
  if (!op.attributes.empty()) out += " " + printAttrDict(op.attributes);
  out += " : (" + typeList(op.operandTypes) + ") -> " + resultTypeList(op.results);
  return out;
}

std::string printArtifactGraph(const ArtifactGraph& graph) {
  std::string out = "module";
  if (!graph.moduleAttributes.empty()) {
    out += " attributes {\n";
    out += joined(
        graph.moduleAttributes,
        [](const ArtifactAttribute& a) {
          const std::string name = "  " + printKeyword(a.name);
          if (a.value.kind == ArtifactAttrValue::Kind::Unit) return name;
          return name + " = " + printAttrValue(a.value);
        },
        ",\n");
    out += "\n}";
  }
  out += " {\n";
  for (const ArtifactFunction& f : graph.functions) {
    out += "  func.func " + symbolText(f.name) + "(\n    ";
    out += joined(
        f.arguments, [](const ArtifactValueDef& a) { return "%" + a.name + ": " + printType(a.type); },
        ",\n    ");
    out += "\n  )";
    if (f.resultTypes.size() == 1)
      out += " -> " + printType(f.resultTypes.front());
    else if (!f.resultTypes.empty())
      out += " -> (" + typeList(f.resultTypes) + ")";
    if (!f.hasBody) {
      out += "\n";
      continue;
    }
    out += " {\n";
    out += joined(
        f.ops, [](const ArtifactOp& op) { return "    " + printOp(op); }, "\n");
    out += "\n    return";
    if (!f.ret.operands.empty()) out += " " + operandList(f.ret.operands) + " : " + typeList(f.ret.types);
    out += "\n  }\n";
  }
  out += "}\n";
  return out;
}

std::string ArtifactType::str() const {
  return printType(*this);
}

std::string ArtifactAttrValue::str() const {
  return printAttrValue(*this);
}

} // namespace lattice
