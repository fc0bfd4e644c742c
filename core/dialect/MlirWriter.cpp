// MlirModuleWriter: schema-checked ops rendered to the writer form (format spec sec. 3, 6, 8, 9).
// Values are printed by MlirAttributes; this file owns layout, operand/attribute order, the three
// assembly styles, the value table and SSA naming. It does not verify semantics beyond what the
// schema says (shapes, dtypes and sparse rules are the verifier's job).

#include "dialect/MlirWriter.h"

#include "dialect/MlirTypes.h"

#include <algorithm>

namespace lattice {
namespace {

constexpr std::size_t kHeaderLines = 10; // "module attributes {", 7 attributes, "} {", "func.func"
constexpr std::string_view kIndent = "    "; // before every op line

bool hasControlCharacter(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

bool isInputRole(std::string_view role) {
  return role == "tensor" || role == "sparse_coords" || role == "sparse_features" || role == "sparse_active";
}

std::string quoteName(std::string_view text) {
  return "'" + printableForMessage(text) + "'";
}

/// Where a character may stand in the name grammars, one table lookup per character.
enum CharClass : unsigned char {
  kDigit = 1,       // [0-9]
  kSsaFirst = 2,    // [a-zA-Z$._-]
  kSsaRest = 4,     // [a-zA-Z0-9$._-]
  kSymbolFirst = 8, // [A-Za-z_]
  kSymbolRest = 16, // [A-Za-z0-9_$.]
};

struct CharClasses {
  unsigned char of[256] = {};
  constexpr CharClasses() {
    for (int c = 0; c < 256; ++c) {
      const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      const bool digit = c >= '0' && c <= '9';
      const bool ssaPunct = c == '$' || c == '.' || c == '_' || c == '-';
      of[c] = static_cast<unsigned char>((digit ? kDigit : 0) | (letter || ssaPunct ? kSsaFirst : 0) |
                                         (letter || digit || ssaPunct ? kSsaRest : 0) |
                                         (letter || c == '_' ? kSymbolFirst : 0) |
                                         (letter || digit || c == '_' || c == '$' || c == '.' ? kSymbolRest : 0));
    }
  }
  /// True when every character of `text` from `from` on is in `cls`.
  bool all(std::string_view text, std::size_t from, unsigned char cls) const {
    for (std::size_t i = from; i < text.size(); ++i)
      if (!(of[static_cast<unsigned char>(text[i])] & cls)) return false;
    return true;
  }
};
constexpr CharClasses kChars;

/// How errors name an op: `lattice.conv3d 'stem'`.
std::string opContext(const SchemaOp& schema, std::string_view firstStem) {
  return "lattice." + schema.name + " " + quoteName(firstStem);
}

/// `%a, %b` of `ids` (anything with size() and operator[] giving ValueIds), appended to `out`.
// Single characters go in with push_back (inline); only names, types and longer literals are
// copied with append.
template <typename Ids> void appendNames(std::string& out, const MlirModuleWriter& w, const Ids& ids) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) (out += ',') += ' ';
    out += '%';
    out += w.name(ids[i]);
  }
}

/// `t1, t2` of `ids`, appended to `out`.
template <typename Ids> void appendTypes(std::string& out, const MlirModuleWriter& w, const Ids& ids) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) (out += ',') += ' ';
    out += w.type(ids[i]);
  }
}

} // namespace

std::string normalizeSsaStem(std::string_view stem) {
  std::string out(stem);
  std::replace(out.begin(), out.end(), '.', '_');
  return out;
}

bool isValidSsaName(std::string_view name) {
  // `[0-9]+` or `[a-zA-Z$._-][a-zA-Z0-9$._-]*`: the first character decides which.
  if (name.empty()) return false;
  if (kChars.all(name, 0, kDigit)) return true;
  return kChars.all(name.substr(0, 1), 0, kSsaFirst) && kChars.all(name, 1, kSsaRest);
}

bool isValidSymbolName(std::string_view symbol) {
  return !symbol.empty() && kChars.all(symbol.substr(0, 1), 0, kSymbolFirst) && kChars.all(symbol, 1, kSymbolRest);
}

void MlirModuleWriter::reserve(std::size_t ops) {
  m_ops.reserve(m_ops.size() + ops);
  m_tables->uses.reserve(m_tables->uses.size() + ops); // about one new stem per op
}

ValueId MlirModuleWriter::define(std::string_view stem, TypeText type) {
  // Sec. 9: the first use of a stem is the stem itself, later ones append the count (`add`,
  // `add1`). A stem's counter is keyed by the name of the value that used it first.
  Tables& t = *m_tables;
  const ValueId id{static_cast<std::uint32_t>(t.values.size())};
  Tables::Value& value = t.values.emplace_back(Tables::Value{std::pmr::string(stem, &t.memory), type});
  const auto [uses, first] = t.uses.try_emplace(value.name, 1);
  if (!first) value.name += std::to_string(uses->second++);
  return id;
}

Expected<ValueId> MlirModuleWriter::addArgument(std::string_view name, TypeText type, std::string role) {
  const std::string stem = normalizeSsaStem(name);
  if (!isValidSsaName(stem)) return makeError("invalid ssa name " + quoteName(name) + " for function argument");
  if (!isInputRole(role)) {
    return makeError("function argument " + quoteName(name) + ": unknown input role " + quoteName(role));
  }
  if (!type.valueType()) {
    return makeError("function argument " + quoteName(name) + ": expected a tensor or lattice type, got " +
                     quoteName(type));
  }
  const ValueId value = define(stem, type);
  m_arguments.push_back({value, std::move(role)});
  return value;
}

// Every check runs before anything is named or emitted.
Expected<OpResults> MlirModuleWriter::addOp(const OpSpec& record) {
  const SchemaOp* schema = dialectSchema().findOp(record.op);
  if (!schema) return makeError("unknown lattice op " + quoteName(record.op));

  // Result stems first: they name the op in every later message.
  const std::size_t resultCount = schema->results.size();
  std::vector<std::string>& stems = m_resultStems; // never shrinks: its strings keep their capacity
  if (stems.size() < resultCount) stems.resize(resultCount);
  for (std::size_t i = 0; i < resultCount; ++i) {
    const bool given = i < record.resultStems.size() && !record.resultStems[i].empty();
    stems[i].assign(given ? record.resultStems[i] : schema->pythonName);
    std::replace(stems[i].begin(), stems[i].end(), '.', '_');
  }
  const std::string_view firstStem = resultCount == 0 ? std::string_view() : std::string_view(stems[0]);
  const auto context = [&] { return opContext(*schema, firstStem); };
  for (std::size_t i = 0; i < resultCount; ++i) {
    if (!isValidSsaName(stems[i])) return makeError(context() + ": invalid ssa name " + quoteName(stems[i]));
  }
  if (record.resultStems.size() > resultCount) {
    return makeError(context() + ": " + std::to_string(record.resultStems.size()) + " result names for " +
                     std::to_string(resultCount) + " results");
  }
  if (record.resultTypes.size() != resultCount) {
    return makeError(context() + ": expected " + std::to_string(resultCount) + " result types, got " +
                     std::to_string(record.resultTypes.size()));
  }
  for (std::size_t i = 0; i < resultCount; ++i) {
    if (record.resultTypes[i].valueType() != schema->results[i].type) {
      return makeError(context() + ": result '" + schema->results[i].name + "' expects a " +
                       std::string(schemaName(schema->results[i].type)) + " type, got " +
                       quoteName(record.resultTypes[i]));
    }
  }

  // Operands: the SSA operands of the schema in order, optional ones trailing.
  std::size_t ssaCount = 0;
  std::size_t required = 0;
  for (const SchemaOperand& operand : schema->operands) {
    if (operand.kind != SchemaOperandKind::Ssa) continue;
    ++ssaCount;
    if (!operand.optional) required = ssaCount;
  }
  if (record.operands.size() < required || record.operands.size() > ssaCount) {
    return makeError(context() + ": expected " + std::to_string(required) +
                     (required == ssaCount ? "" : " to " + std::to_string(ssaCount)) + " operands, got " +
                     std::to_string(record.operands.size()));
  }
  std::size_t given = 0;
  for (const SchemaOperand& operand : schema->operands) {
    if (operand.kind != SchemaOperandKind::Ssa || given == record.operands.size()) continue;
    const ValueId id = record.operands[given++];
    if (!isDefined(id)) {
      return makeError(context() + ": operand '" + operand.name + "' uses undefined value #" +
                       std::to_string(id.index));
    }
    if (type(id).valueType() != operand.type) {
      return makeError(context() + ": operand '" + operand.name + "' expects a " +
                       std::string(schemaName(operand.type)) + " value, got " + quoteName(type(id)));
    }
  }
  const bool isWeight = schema->assembly == SchemaAssembly::Weight;
  if (isWeight && !isValidSymbolName(record.symbol))
    return makeError(context() + ": invalid weight symbol " + quoteName(record.symbol));
  if (!isWeight && !record.symbol.empty()) return makeError(context() + ": only lattice.weight takes a symbol");
  if (Status s = renderAttributes(*schema, record.attributes, firstStem); !s) return s.error();

  // Everything is valid: name the results and render the line (sec. 6).
  OpResults results{{static_cast<std::uint32_t>(valueCount())}, resultCount};
  for (std::size_t i = 0; i < resultCount; ++i)
    define(stems[i], record.resultTypes[i]);
  // Stored as printed, indent and newline included, so that render() copies it at once.
  std::string& line = m_line;
  line.assign(kIndent);
  appendNames(line, *this, results);
  line += " = lattice.";
  line += schema->name;
  switch (schema->assembly) {
  case SchemaAssembly::Weight:
    (line += ' ') += '@';
    line += record.symbol;
    line += ' ';
    line += m_attrDict;
    line += " : ";
    line += type(results[0]);
    break;
  case SchemaAssembly::Decompose:
    line += ' ';
    appendNames(line, *this, record.operands);
    line += " : ";
    appendTypes(line, *this, record.operands);
    line += " -> (";
    appendTypes(line, *this, results);
    line += ')';
    break;
  case SchemaAssembly::Functional:
    // With no attributes the dict is empty text, which leaves two spaces before ':' (sec. 6.1).
    line += ' ';
    appendNames(line, *this, record.operands);
    line += ' ';
    line += m_attrDict;
    line += " : (";
    appendTypes(line, *this, record.operands);
    line += ") -> ";
    line += type(results[0]);
    break;
  }
  line += '\n';
  const std::string_view printed = m_lines.store(line);
  m_ops.push_back({schema->name, printed.substr(kIndent.size(), printed.size() - kIndent.size() - 1), results});
  return results;
}

Status MlirModuleWriter::renderAttributes(const SchemaOp& schema, Span<const NamedAttr> attributes,
                                          std::string_view firstStem) {
  const auto context = [&] { return opContext(schema, firstStem); };
  for (std::size_t i = 0; i < attributes.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (attributes[i].name == attributes[j].name)
        return makeError(context() + ": duplicate attribute " + quoteName(attributes[i].name));
    }
  }
  // Attributes in schema order (sec. 8).
  std::string& dict = m_attrDict;
  dict.clear();
  for (const SchemaOpAttribute& attr : schema.attributes) {
    const auto given = std::find_if(attributes.begin(), attributes.end(),
                                    [&](const NamedAttr& a) { return a.name == attr.name; });
    if (given == attributes.end()) {
      if (attr.name == "accumulation") {
        dict += dict.empty() ? "{" : ", ";
        dict += "accumulation = \"canonical_f32\"";
        continue;
      }
      if (attr.required) return makeError(context() + ": missing required attribute '" + attr.name + "'");
      continue;
    }
    if (dict.empty())
      dict += '{';
    else
      (dict += ',') += ' ';
    dict += attr.name;
    ((dict += ' ') += '=') += ' ';
    if (Status s = appendAttrValue(dict, attr.kind, given->value); !s)
      return makeError(context() + ": attribute '" + attr.name + "': " + s.message());
  }
  if (!dict.empty()) dict += '}';
  return {};
}

Status MlirModuleWriter::setReturn(std::vector<ValueId> values, std::vector<std::string> names,
                                   std::vector<std::string> roles) {
  if (values.empty()) return makeError("return needs at least one value");
  for (const ValueId id : values) {
    if (!isDefined(id)) return makeError("return uses undefined value #" + std::to_string(id.index));
  }
  if (!names.empty() && names.size() != values.size())
    return makeError("output names must match the number of artifact outputs");
  if (!roles.empty() && roles.size() != values.size())
    return makeError("output roles must match the number of artifact outputs");
  if (names.empty()) {
    for (const ValueId id : values)
      names.emplace_back(name(id));
  }
  if (roles.empty()) {
    for (const ValueId id : values)
      roles.push_back(type(id).valueType() == SchemaValueType::SparseTensor ? "sparse_tensor" : "tensor");
  }
  for (const std::vector<std::string>* list : {&names, &roles}) {
    for (const std::string& item : *list) {
      if (hasControlCharacter(item))
        return makeError("output name or role " + quoteName(item) + " contains a control character");
    }
  }
  m_returnValues = std::move(values);
  m_outputNames = std::move(names);
  m_outputRoles = std::move(roles);
  return {};
}

Expected<std::string> MlirModuleWriter::str() const {
  if (m_returnValues.empty()) return makeError("mlir module has no return values");
  return render();
}

std::string MlirModuleWriter::partialText() const {
  return render();
}

std::string MlirModuleWriter::render() const {
  // Before setReturn() (partialText): the result type is `?` and the text ends after the last op.
  const bool complete = !m_returnValues.empty();
  std::vector<std::string> inputNames;
  std::vector<std::string> inputRoles;
  for (const MlirArgument& argument : m_arguments) {
    inputNames.emplace_back(name(argument.value));
    inputRoles.push_back(argument.role);
  }
  std::string resultTypes;
  appendTypes(resultTypes, *this, m_returnValues);
  if (m_returnValues.size() > 1) resultTypes = "(" + resultTypes + ")";
  if (!complete) resultTypes = "?";

  std::size_t size = 1024 + resultTypes.size() * 2;
  for (const MlirArgument& argument : m_arguments)
    size += name(argument.value).size() * 2 + type(argument.value).size() + 32;
  for (const EmittedOp& op : m_ops)
    size += op.text.size() + 5;

  std::string out;
  out.reserve(size);
  out += "module attributes {\n";
  out += "  lattice.ir_version = " + std::to_string(kDialectIrVersion) + ",\n";
  out += "  lattice.schema_digest = \"" + schemaDigest() + "\",\n";
  out += "  lattice.input_names = " + formatStringArray(inputNames) + ",\n";
  out += "  lattice.input_roles = " + formatStringArray(inputRoles) + ",\n";
  out += "  lattice.output_names = " + formatStringArray(m_outputNames) + ",\n";
  out += "  lattice.output_roles = " + formatStringArray(m_outputRoles) + ",\n";
  out += "  lattice.weight_file = \"weights.safetensors\"\n";
  out += "} {\n";
  out += "  func.func @forward(\n";
  out += "    ";
  for (std::size_t i = 0; i < m_arguments.size(); ++i) {
    if (i > 0) out += ",\n    ";
    out += '%';
    out += name(m_arguments[i].value);
    out += ": ";
    out += type(m_arguments[i].value);
  }
  out += "\n  ) -> ";
  out += resultTypes;
  out += " {\n";
  for (const EmittedOp& op : m_ops)
    out.append(op.text.data() - kIndent.size(), kIndent.size() + op.text.size() + 1); // as stored
  if (!complete) {
    out.pop_back(); // end on the last op's line (or the `) -> ? {` line) without a newline
    return out;
  }
  if (m_ops.empty()) out += '\n'; // no op: the body is one empty line (returnLine() counts it)
  out += "    return ";
  appendNames(out, *this, m_returnValues);
  out += " : ";
  appendTypes(out, *this, m_returnValues);
  out += "\n  }\n}\n";
  return out;
}

std::size_t MlirModuleWriter::argumentLine(std::size_t index) const {
  return kHeaderLines + 1 + index;
}

std::size_t MlirModuleWriter::opLine(std::size_t index) const {
  // Arguments take at least one line (an empty argument list leaves a line of 4 spaces), then
  // the ") -> ..." line.
  return kHeaderLines + std::max<std::size_t>(1, m_arguments.size()) + 2 + index;
}

std::size_t MlirModuleWriter::returnLine() const {
  return opLine(0) + std::max<std::size_t>(1, m_ops.size());
}

} // namespace lattice
