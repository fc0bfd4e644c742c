// MlirModuleWriter: schema-checked op records rendered to the writer form (format spec sec. 3,
// 6, 8, 9). Values are printed by MlirAttributes; this file owns layout, operand/attribute
// order, the three assembly styles and SSA naming. It does not verify semantics beyond what
// the schema says (shapes, dtypes and sparse rules are the verifier's job).

#include "artifact/MlirWriter.h"

#include "artifact/MlirTypes.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lattice {
namespace {

constexpr std::size_t kMaxResults = 4;
constexpr std::size_t kMaxOperands = 16;
constexpr std::size_t kHeaderLines = 10; // "module attributes {", 7 attributes, "} {", "func.func"
constexpr std::string_view kIndent = "    "; // before every op line

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

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

void appendJoinedNames(std::string& out, const std::vector<MlirValue>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += '%';
    out += values[i].name;
  }
}

void appendJoinedTypes(std::string& out, const std::vector<MlirValue>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += values[i].type;
  }
}

} // namespace

void MlirModuleWriter::Pieces::names(Span<const MlirValue> values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    add(i > 0 ? ", %" : "%");
    add(values[i].name);
  }
}

void MlirModuleWriter::Pieces::types(Span<const MlirValue> values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) add(", ");
    add(values[i].type);
  }
}

namespace {

// Copies a short piece without a library call: a line is ~20 pieces of 1-90 bytes, where the
// call and size dispatch of memcpy cost more than the copy. Fixed-size memcpy compiles to moves.
#if defined(__SSE2__)
using Bytes16 = __m128i; // one unaligned load and store per 16 bytes
#else
struct Bytes16 {
  std::uint64_t a, b;
};
#endif

inline void copy16(char* dst, const char* src) {
  Bytes16 w;
  std::memcpy(&w, src, 16);
  std::memcpy(dst, &w, 16);
}

// n bytes for sizeof(Word) <= n <= 2 * sizeof(Word): the first and the last word (overlapping).
template <typename Word> void copyEnds(char* dst, const char* src, std::size_t n) {
  Word first, last;
  std::memcpy(&first, src, sizeof(Word));
  std::memcpy(&last, src + n - sizeof(Word), sizeof(Word));
  std::memcpy(dst, &first, sizeof(Word));
  std::memcpy(dst + n - sizeof(Word), &last, sizeof(Word));
}

inline void copyPiece(char* dst, const char* src, std::size_t n) {
  if (n >= 16) {
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
      copy16(dst + i, src + i);
      copy16(dst + i + 16, src + i + 16);
    }
    if (i + 16 <= n) {
      copy16(dst + i, src + i);
      i += 16;
    }
    if (i < n) copy16(dst + n - 16, src + n - 16); // the last 16 bytes, overlapping copied ones
  } else if (n >= 8) {
    copyEnds<std::uint64_t>(dst, src, n);
  } else if (n >= 4) {
    copyEnds<std::uint32_t>(dst, src, n);
  } else if (n > 0) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
}

} // namespace

std::string_view MlirModuleWriter::Pieces::storeIn(StringArena& arena) const {
  // The longest line (decompose: names and types of 4 results and 16 operands) fits.
  static_assert(kCapacity >= 4 * kMaxResults + 4 * kMaxOperands + 8);
  // Stored as it is printed, "    " + line + "\n", so that render() copies runs of lines at once.
  char* const out = arena.allocate(kIndent.size() + m_size + 1);
  std::memcpy(out, kIndent.data(), kIndent.size());
  char* p = out + kIndent.size();
  for (std::size_t i = 0; i < m_count; ++i) {
    copyPiece(p, m_pieces[i].data(), m_pieces[i].size());
    p += m_pieces[i].size();
  }
  *p = '\n';
  return {out + kIndent.size(), m_size};
}

std::string normalizeSsaStem(std::string_view stem) {
  std::string out(stem);
  std::replace(out.begin(), out.end(), '.', '_');
  return out;
}

namespace {

/// Character classes of the name grammars, one table lookup per character.
enum CharClass : unsigned char {
  kDigit = 1,       // [0-9]
  kSsaFirst = 2,    // [a-zA-Z$._-]
  kSymbolFirst = 4, // [A-Za-z_]
  kSymbolRest = 8,  // [A-Za-z0-9_$.]
  kSsaRest = 16,    // [a-zA-Z0-9$._-]
};

struct CharClasses {
  unsigned char of[256] = {};
  constexpr CharClasses() {
    for (int c = 0; c < 256; ++c) {
      const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      const bool digit = c >= '0' && c <= '9';
      unsigned char bits = 0;
      if (digit) bits |= kDigit;
      if (letter || c == '$' || c == '.' || c == '_' || c == '-') bits |= kSsaFirst;
      if (letter || c == '_') bits |= kSymbolFirst;
      if (letter || digit || c == '_' || c == '$' || c == '.') bits |= kSymbolRest;
      if (letter || digit || c == '$' || c == '.' || c == '_' || c == '-') bits |= kSsaRest;
      of[c] = bits;
    }
  }
  unsigned char operator()(char c) const { return of[static_cast<unsigned char>(c)]; }
};
constexpr CharClasses kCharClass;

} // namespace

bool isValidSsaName(std::string_view name) {
  // `[0-9]+` or `[a-zA-Z$._-][a-zA-Z0-9$._-]*`: the first character decides which.
  if (name.empty()) return false;
  const unsigned char rest = (kCharClass(name[0]) & kDigit) ? kDigit : kSsaRest;
  if (!(kCharClass(name[0]) & (kDigit | kSsaFirst))) return false;
  // Eight characters per branch: names are short, but every result and weight has one.
  std::size_t i = 1;
  for (; i + 8 <= name.size(); i += 8) {
    const unsigned char all = kCharClass(name[i]) & kCharClass(name[i + 1]) & kCharClass(name[i + 2]) &
                              kCharClass(name[i + 3]) & kCharClass(name[i + 4]) & kCharClass(name[i + 5]) &
                              kCharClass(name[i + 6]) & kCharClass(name[i + 7]);
    if (!(all & rest)) return false;
  }
  for (; i < name.size(); ++i)
    if (!(kCharClass(name[i]) & rest)) return false;
  return true;
}

bool isValidSymbolName(std::string_view symbol) {
  if (symbol.empty() || !(kCharClass(symbol[0]) & kSymbolFirst)) return false;
  for (std::size_t i = 1; i < symbol.size(); ++i)
    if (!(kCharClass(symbol[i]) & kSymbolRest)) return false;
  return true;
}

std::string_view MlirModuleWriter::uniqueName(std::string_view stem) {
  if (stem.find('.') == std::string_view::npos) return nameFor(stem);
  std::string normalized = normalizeSsaStem(stem);
  return nameFor(normalized);
}

std::string_view MlirModuleWriter::nameFor(std::string_view stem, const StemHash& h) {
  // The first use of a stem is the stem itself: the map's stored key. Later ones are the stem
  // and the count in decimal, stored once.
  const auto slot = m_nameCounts.insertHashed(stem, h, 0);
  const std::size_t count = (*slot.value)++;
  std::string_view name = slot.key;
  if (count > 0) {
    char digits[24];
    const auto n = static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, count).ptr - digits);
    char* out = m_names.allocate(stem.size() + n);
    std::memcpy(out, stem.data(), stem.size());
    std::memcpy(out + stem.size(), digits, n);
    name = {out, stem.size() + n};
  }
  m_handedOut[(reinterpret_cast<std::uintptr_t>(name.data()) >> 3) % m_handedOut.size()] = {name.data(), name.size()};
  return name;
}

std::string_view MlirModuleWriter::joinedStem(const ResultStem& stem, std::string& scratch) {
  const bool dotted = stem.head.find('.') != std::string_view::npos || stem.tail.find('.') != std::string_view::npos;
  if (stem.tail.empty() && !dotted) return stem.head;
  scratch.assign(stem.head);
  scratch.append(stem.tail);
  if (dotted) std::replace(scratch.begin(), scratch.end(), '.', '_');
  return scratch;
}

bool MlirModuleWriter::isDefined(std::string_view name) const {
  // Every defined name came from uniqueName: a stem S with count 0 (the name is S) or with
  // count c ≥ 1 (S followed by c in decimal). So the name is defined when it was handed out as a
  // stem, or when some split into S + digits (no leading zero) has S's counter past c. No set of
  // names is kept: this costs one lookup per trailing-digit split of an operand name. Most
  // operands are names handed out a few ops earlier, still viewed where nameFor put them: those
  // are found by address first.
  const HandedOut& recent = m_handedOut[(reinterpret_cast<std::uintptr_t>(name.data()) >> 3) % m_handedOut.size()];
  if (recent.data == name.data() && recent.size == name.size() && recent.data) return true;
  if (m_nameCounts.contains(name)) return true;
  std::size_t digits = name.size();
  while (digits > 0 && isDigit(name[digits - 1])) --digits;
  for (std::size_t split = digits; split < name.size(); ++split) {
    if (name[split] == '0' || name.size() - split > 18) continue; // "add01" is never produced
    const std::size_t* stemCount = m_nameCounts.find(name.substr(0, split));
    if (!stemCount) continue;
    std::size_t count = 0;
    std::from_chars(name.data() + split, name.data() + name.size(), count);
    if (*stemCount > count) return true;
  }
  return false;
}

const SchemaOp* MlirModuleWriter::findOp(std::string_view op) {
  FoundOp& slot = m_foundOps[(reinterpret_cast<std::uintptr_t>(op.data()) >> 3) % m_foundOps.size()];
  // The address only picks the slot: a buffer may hold another name of the same length later
  // (an OpRecord's short string), so the name itself is compared too.
  if (slot.name == op.data() && slot.op && slot.op->name == op) return slot.op;
  const SchemaOp* schema = dialectSchema().findOp(op);
  if (schema) slot = {op.data(), schema};
  return schema;
}

Expected<MlirValue> MlirModuleWriter::addArgument(std::string_view name, TypeText type, std::string role) {
  const std::string stem = normalizeSsaStem(name);
  if (!isValidSsaName(stem)) return makeError("invalid ssa name " + quoteName(name) + " for function argument");
  if (!isInputRole(role)) {
    return makeError("function argument " + quoteName(name) + ": unknown input role " + quoteName(role));
  }
  if (!type.valueType()) {
    return makeError("function argument " + quoteName(name) + ": expected a tensor or lattice type, got " +
                     quoteName(type));
  }
  MlirValue value{nameFor(stem), std::move(type)};
  m_arguments.push_back({value, std::move(role)});
  return value;
}

// Every check runs before anything is named or emitted; the attribute text is rendered into a
// reused buffer while it is checked (or found in the cache), so a valid op costs its result names
// and its line.
Expected<OpResults> MlirModuleWriter::addOp(const OpSpec& record) {
  const Span<const TypeText> resultTypes = record.resultTypes;
  const SchemaOp* schema = findOp(record.op);
  if (!schema) return makeError("unknown lattice op " + quoteName(record.op));

  // Result stems first: they name the op in every later message. `.`→`_` does not change
  // validity (both are identifier characters), so joined stems are checked normalized.
  const std::size_t resultCount = schema->results.size();
  std::array<std::string_view, kMaxResultStems> stems{};
  if (resultCount > kMaxResultStems) return makeError("lattice." + schema->name + ": too many results");
  for (std::size_t i = 0; i < resultCount; ++i) {
    const bool given = i < record.resultStems.size() && !record.resultStems[i].empty();
    stems[i] = given ? joinedStem(record.resultStems[i], m_stemScratch[i])
                     : std::string_view(schema->pythonName);
  }
  // Naming a result probes the counter table, a cache miss on a large model (one per module's
  // group of stems): the lines are requested now and arrive while the operands and attributes
  // are checked.
  std::array<StemHash, kMaxResultStems> stemHashes{};
  for (std::size_t i = 0; i < resultCount; ++i) {
    stemHashes[i] = m_nameCounts.hashKey(stems[i]);
    m_nameCounts.prefetch(stemHashes[i]);
  }
  // Built only for an error message: most ops have none.
  const auto context = [&] { return "lattice." + schema->name + " " + quoteName(stems[0]); };
  for (std::size_t i = 0; i < resultCount; ++i) {
    if (!isValidSsaName(stems[i])) return makeError(context() + ": invalid ssa name " + quoteName(stems[i]));
  }
  if (record.resultStems.size() > resultCount) {
    return makeError(context() + ": " + std::to_string(record.resultStems.size()) + " result names for " +
                     std::to_string(resultCount) + " results");
  }
  if (resultTypes.size() != resultCount) {
    return makeError(context() + ": expected " + std::to_string(resultCount) + " result types, got " +
                     std::to_string(resultTypes.size()));
  }
  for (std::size_t i = 0; i < resultCount; ++i) {
    const TypeText& type = resultTypes[i];
    if (type.valueType() != schema->results[i].type) {
      return makeError(context() + ": result '" + schema->results[i].name + "' expects a " +
                       std::string(schemaName(schema->results[i].type)) + " type, got " + quoteName(type));
    }
  }

  // Operands: the SSA operands of the schema in order, optional ones trailing.
  std::array<const SchemaOperand*, kMaxOperands> ssaOperands{};
  std::size_t ssaCount = 0;
  std::size_t required = 0;
  for (const SchemaOperand& operand : schema->operands) {
    if (operand.kind != SchemaOperandKind::Ssa) continue;
    if (ssaCount == kMaxOperands) return makeError("lattice." + schema->name + ": too many operands");
    ssaOperands[ssaCount++] = &operand;
    if (!operand.optional) required = ssaCount;
  }
  if (record.operands.size() < required || record.operands.size() > ssaCount) {
    return makeError(context() + ": expected " + std::to_string(required) +
                     (required == ssaCount ? "" : " to " + std::to_string(ssaCount)) + " operands, got " +
                     std::to_string(record.operands.size()));
  }
  for (std::size_t i = 0; i < record.operands.size(); ++i) {
    const MlirValue& value = record.operands[i];
    const SchemaOperand& operand = *ssaOperands[i];
    if (!isDefined(value.name)) {
      return makeError(context() + ": operand '" + operand.name + "' uses undefined value %" +
                       printableForMessage(value.name));
    }
    if (value.type.valueType() != operand.type) {
      return makeError(context() + ": operand '" + operand.name + "' expects a " +
                       std::string(schemaName(operand.type)) + " value, got " + quoteName(value.type));
    }
  }
  const bool isWeight = schema->assembly == SchemaAssembly::Weight;
  if (isWeight && !isValidSymbolName(record.symbol))
    return makeError(context() + ": invalid weight symbol " + quoteName(record.symbol));
  if (!isWeight && !record.symbol.empty()) return makeError(context() + ": only lattice.weight takes a symbol");

  const Expected<std::string_view> attrDict = attributeDict(*schema, record.attributes, stems[0]);
  if (!attrDict) return attrDict.error();

  // Everything is valid: name the results and render the line (sec. 6).
  OpResults results;
  for (std::size_t i = 0; i < resultCount; ++i)
    results.push_back({nameFor(stems[i], stemHashes[i]), resultTypes[i]});
  const Span<const MlirValue> resultSpan(results.begin(), results.size());
  // The line is gathered as pieces and copied once into the line arena.
  Pieces& line = m_pieces;
  line.clear();
  line.names(resultSpan);
  line.add(" = lattice.");
  line.add(schema->name);
  switch (schema->assembly) {
  case SchemaAssembly::Weight:
    line.add(" @");
    line.add(record.symbol);
    line.add(" ");
    line.add(*attrDict);
    line.add(" : ");
    line.add(results[0].type);
    break;
  case SchemaAssembly::Decompose:
    line.add(" ");
    line.names(record.operands);
    line.add(" : ");
    line.types(record.operands);
    line.add(" -> (");
    line.types(resultSpan);
    line.add(")");
    break;
  case SchemaAssembly::Functional:
    // With no attributes the dict is empty text, which leaves two spaces before ':' (sec. 6.1).
    line.add(" ");
    line.names(record.operands);
    line.add(" ");
    line.add(*attrDict);
    line.add(" : (");
    line.types(record.operands);
    line.add(") -> ");
    line.add(results[0].type);
    break;
  }
  EmittedOp& emitted = m_ops.emplace_back();
  emitted.op = schema->name;
  emitted.text = line.storeIn(m_lines);
  return results;
}

OpSpec specOf(const OpRecord& record, std::vector<ResultStem>& stems) {
  stems.assign(record.resultStems.begin(), record.resultStems.end());
  return {record.op, record.operands, record.symbol, record.attributes, stems, record.resultTypes};
}

Expected<std::vector<MlirValue>> MlirModuleWriter::addOp(const OpRecord& record) {
  std::vector<ResultStem> stems;
  Expected<OpResults> results = addOp(specOf(record, stems));
  if (!results) return results.error();
  return std::vector<MlirValue>(results->begin(), results->end());
}

namespace {

// Attribute values compared for the attribute cache: floats by their bits (-0.0 and 0.0 print
// differently as f64 reprs), everything else by value.
bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

bool sameAttrValue(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<double>(&a)) return sameBits(*x, std::get<double>(b));
  if (const auto* x = std::get_if<F64Array>(&a)) {
    const F64Array& y = std::get<F64Array>(b);
    return x->size() == y.size() && std::equal(x->begin(), x->end(), y.begin(), sameBits);
  }
  return a == b;
}

bool sameAttributes(const std::vector<NamedAttr>& cached, Span<const NamedAttr> given) {
  if (cached.size() != given.size()) return false;
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (cached[i].name != given[i].name || !sameAttrValue(cached[i].value, given[i].value)) return false;
  }
  return true;
}

} // namespace

Expected<std::string_view> MlirModuleWriter::attributeDict(const SchemaOp& schema, Span<const NamedAttr> attributes,
                                                           std::string_view firstStem) {
  AttrCache& cache = m_attrCache[(reinterpret_cast<std::uintptr_t>(&schema) >> 4) % m_attrCache.size()];
  if (cache.op == &schema && sameAttributes(cache.attributes, attributes)) return std::string_view(cache.text);

  const auto context = [&] { return "lattice." + schema.name + " " + quoteName(firstStem); };
  for (std::size_t i = 0; i < attributes.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (attributes[i].name == attributes[j].name)
        return makeError(context() + ": duplicate attribute " + quoteName(attributes[i].name));
    }
  }
  // Attributes in schema order (sec. 8).
  std::string& attrDict = m_attrScratch;
  attrDict.clear();
  for (const SchemaOpAttribute& attr : schema.attributes) {
    const auto given = std::find_if(attributes.begin(), attributes.end(),
                                    [&](const NamedAttr& a) { return a.name == attr.name; });
    if (given == attributes.end()) {
      if (attr.name == "accumulation") {
        attrDict += attrDict.empty() ? "{" : ", ";
        attrDict += "accumulation = \"canonical_f32\"";
        continue;
      }
      if (attr.required) return makeError(context() + ": missing required attribute '" + attr.name + "'");
      continue;
    }
    attrDict += attrDict.empty() ? "{" : ", ";
    attrDict += attr.name;
    attrDict += " = ";
    if (Status s = appendAttrValue(attrDict, attr.kind, given->value); !s)
      return makeError(context() + ": attribute '" + attr.name + "': " + s.message());
  }
  if (!attrDict.empty()) attrDict += '}';
  cache.op = &schema;
  cache.attributes.assign(attributes.begin(), attributes.end());
  cache.text = attrDict;
  return std::string_view(cache.text);
}

Expected<MlirValue> MlirModuleWriter::addWeight(std::string_view symbol, std::string_view storageKey,
                                                std::string_view layout, const PackingAttr& packing,
                                                TypeText type) {
  static const SchemaOp* const schema = dialectSchema().findOp("weight");
  // The dict is built as `{storage_key = "..."` + the (layout, packing) text, which holds while
  // the schema lists exactly these three attributes in this order; otherwise the general path.
  static const bool keyLayoutPacking = schema->attributes.size() == 3 &&
                                       schema->attributes[0].name == "storage_key" &&
                                       schema->attributes[1].name == "layout" &&
                                       schema->attributes[2].name == "packing";
  if (!keyLayoutPacking) {
    const NamedAttr attributes[] = {{"storage_key", std::string(storageKey)},
                                    {"layout", std::string(layout)},
                                    {"packing", packing}};
    const ResultStem stems[] = {symbol};
    const TypeText types[] = {type};
    Expected<OpResults> results = addOp({"weight", {}, symbol, attributes, stems, types});
    if (!results) return results.error();
    return results->front();
  }
  // addOp's checks in its order, for a record with resultStems {symbol}.
  const std::string_view stem = symbol.empty() ? std::string_view(schema->pythonName) : symbol;
  // As in addOp: the normalized stem, hashed now so that its counter arrives during the checks.
  std::string_view named = stem;
  if (stem.find('.') != std::string_view::npos) named = m_stemScratch[0] = normalizeSsaStem(stem);
  const StemHash stemHash = m_nameCounts.hashKey(named);
  m_nameCounts.prefetch(stemHash);
  const auto context = [&] { return "lattice." + schema->name + " " + quoteName(normalizeSsaStem(stem)); };
  // `[A-Za-z_][A-Za-z0-9_$.]*` is a subset of the SSA grammar: a valid symbol is a valid stem.
  const bool validSymbol = isValidSymbolName(symbol);
  if (!validSymbol && !isValidSsaName(stem))
    return makeError(context() + ": invalid ssa name " + quoteName(normalizeSsaStem(stem)));
  if (type.valueType() != schema->results[0].type) {
    return makeError(context() + ": result '" + schema->results[0].name + "' expects a " +
                     std::string(schemaName(schema->results[0].type)) + " type, got " + quoteName(type));
  }
  if (!validSymbol) return makeError(context() + ": invalid weight symbol " + quoteName(symbol));
  if (!isSafeUnescapedString(storageKey)) {
    std::string unused;
    const Status s = appendStringAttr(unused, schema->attributes[0].kind, storageKey);
    return makeError(context() + ": attribute 'storage_key': " + s.message());
  }
  const Expected<std::string_view> tail = weightAttrTail(layout, packing);
  if (!tail) return makeError(context() + ": " + tail.message());

  MlirValue result{nameFor(named, stemHash), std::move(type)};
  Pieces& line = m_pieces;
  line.clear();
  line.add("%");
  line.add(result.name);
  line.add(" = lattice.weight @");
  line.add(symbol);
  line.add(" {storage_key = \"");
  line.add(storageKey);
  line.add("\"");
  line.add(*tail);
  line.add(" : ");
  line.add(result.type);
  EmittedOp& emitted = m_ops.emplace_back();
  emitted.op = schema->name;
  emitted.text = line.storeIn(m_lines);
  return result;
}

Expected<std::string_view> MlirModuleWriter::weightAttrTail(std::string_view layout, const PackingAttr& packing) {
  for (const WeightTail& t : m_weightTails)
    if (t.layout == layout && t.packing == packing) return std::string_view(t.text);
  static const SchemaOp* const schema = dialectSchema().findOp("weight");
  std::string text = ", layout = ";
  if (Status s = appendStringAttr(text, schema->attributes[1].kind, layout); !s)
    return makeError("attribute 'layout': " + s.message());
  text += ", packing = ";
  if (Status s = appendPackingAttr(text, packing); !s) return makeError("attribute 'packing': " + s.message());
  text += '}';
  // A module has a handful of (layout, packing) pairs; a bounded list keeps a pathological
  // caller from growing it.
  if (m_weightTails.size() == 32) m_weightTails.erase(m_weightTails.begin());
  m_weightTails.push_back({std::string(layout), packing, std::move(text)});
  return std::string_view(m_weightTails.back().text);
}

Status MlirModuleWriter::setReturn(std::vector<MlirValue> values, std::vector<std::string> names,
                                   std::vector<std::string> roles) {
  if (values.empty()) return makeError("return needs at least one value");
  for (const MlirValue& value : values) {
    if (!isDefined(value.name))
      return makeError("return uses undefined value %" + printableForMessage(value.name));
    if (!valueTypeOf(value.type) || hasControlCharacter(value.type))
      return makeError("return value %" + value.name + " has invalid type " + quoteName(value.type));
  }
  if (!names.empty() && names.size() != values.size())
    return makeError("output names must match the number of artifact outputs");
  if (!roles.empty() && roles.size() != values.size())
    return makeError("output roles must match the number of artifact outputs");
  if (names.empty()) {
    for (const MlirValue& value : values)
      names.emplace_back(value.name);
  }
  if (roles.empty()) {
    for (const MlirValue& value : values) {
      roles.push_back(valueTypeOf(value.type) == SchemaValueType::SparseTensor ? "sparse_tensor" : "tensor");
    }
  }
  for (const std::vector<std::string>* list : {&names, &roles}) {
    for (const std::string& item : *list) {
      if (hasControlCharacter(item))
        return makeError("output name or role " + quoteName(item) + " contains a control character");
    }
  }
  // The caller's names may view its own strings: keep copies.
  for (MlirValue& value : values)
    value.name = m_names.store(value.name);
  m_returnValues = std::move(values);
  m_outputNames = std::move(names);
  m_outputRoles = std::move(roles);
  return {};
}

Expected<std::string> MlirModuleWriter::str() const {
  if (m_returnValues.empty()) return makeError("mlir module has no return values");
  return render();
}

std::string MlirModuleWriter::partialText() const { return render(); }

std::string MlirModuleWriter::render() const {
  // Before setReturn() (partialText): the result type is `?` and the text ends after the last op.
  const bool complete = !m_returnValues.empty();
  std::vector<std::string> inputNames;
  std::vector<std::string> inputRoles;
  for (const MlirArgument& argument : m_arguments) {
    inputNames.emplace_back(argument.value.name);
    inputRoles.push_back(argument.role);
  }
  std::string resultTypes;
  appendJoinedTypes(resultTypes, m_returnValues);
  if (m_returnValues.size() > 1) resultTypes = "(" + resultTypes + ")";
  if (!complete) resultTypes = "?";

  std::size_t size = 1024 + resultTypes.size() * 2;
  for (const MlirArgument& argument : m_arguments)
    size += argument.value.name.size() * 2 + argument.value.type.size() + 32;
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
    out += m_arguments[i].value.name;
    out += ": ";
    out += m_arguments[i].value.type;
  }
  out += "\n  ) -> ";
  out += resultTypes;
  out += " {\n";
  // Each line is stored as printed ("    " + text + "\n"), and lines stored one after another
  // sit side by side in the line arena: copy each such run at once.
  for (std::size_t i = 0; i < m_ops.size();) {
    const char* const begin = m_ops[i].text.data() - kIndent.size();
    const char* end = m_ops[i].text.data() + m_ops[i].text.size() + 1;
    for (++i; i < m_ops.size() && m_ops[i].text.data() - kIndent.size() == end; ++i)
      end = m_ops[i].text.data() + m_ops[i].text.size() + 1;
    out.append(begin, static_cast<std::size_t>(end - begin));
  }
  if (!complete) {
    out.pop_back(); // end on the last op's line (or the `) -> ? {` line) without a newline
    return out;
  }
  if (m_ops.empty()) out += '\n'; // no op: the body is one empty line (returnLine() counts it)
  out += "    return ";
  appendJoinedNames(out, m_returnValues);
  out += " : ";
  appendJoinedTypes(out, m_returnValues);
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
