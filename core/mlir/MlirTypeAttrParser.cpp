// The artifact reader's value level: builtin types (`tensor<?x4xi32>`, `f32`, `i4`), the two
// lattice types with their fixed parameter order (format spec sec. 4, validation spec sec. 3),
// and attribute values: integers and floats with optional `: type`, strings, symbols, arrays,
// `array<i64: ...>` / `array<f64: ...>`, the lattice enum attributes and `#lattice.packing`.
// Enum values are not checked here (validation spec sec. 3: that is class V).

#include "mlir/MlirParserImpl.h"
#include "tensor/TensorConvert.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_set>

namespace lattice::detail {
namespace {

bool allDigits(std::string_view s) {
  if (s.empty() || s.size() > 8) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool isFloatTypeName(std::string_view name) {
  return name == "f16" || name == "bf16" || name == "f32" || name == "f64" || name == "tf32" ||
         name == "f80" || name == "f128";
}

bool isIntegerTypeName(std::string_view name) {
  if (name == "index") return true;
  if (name.substr(0, 2) == "si" || name.substr(0, 2) == "ui") return allDigits(name.substr(2));
  return name.substr(0, 1) == "i" && allDigits(name.substr(1));
}

bool isScalarTypeName(std::string_view name) {
  return isFloatTypeName(name) || isIntegerTypeName(name);
}

// Magnitude of a decimal or `0x` integer token; false on overflow of uint64.
bool parseMagnitude(std::string_view text, std::uint64_t& out) {
  out = 0;
  const bool hex = text.size() > 2 && text[0] == '0' && text[1] == 'x';
  const unsigned base = hex ? 16 : 10;
  for (char c : hex ? text.substr(2) : text) {
    unsigned digit = 0;
    if (c >= '0' && c <= '9')
      digit = unsigned(c - '0');
    else if (c >= 'a' && c <= 'f')
      digit = unsigned(c - 'a' + 10);
    else
      digit = unsigned(c - 'A' + 10);
    if (out > (std::numeric_limits<std::uint64_t>::max() - digit) / base) return false;
    out = out * base + digit;
  }
  return true;
}

bool isHexLiteral(std::string_view text) {
  return text.size() > 2 && text[0] == '0' && text[1] == 'x';
}

} // namespace

std::vector<ArtifactType> MlirParserImpl::parseTypeListParens() {
  expect(TokenKind::LParen, "'('");
  std::vector<ArtifactType> types;
  if (consumeIf(TokenKind::RParen)) return types;
  while (true) {
    types.push_back(parseType());
    if (!consumeIf(TokenKind::Comma)) break;
  }
  expect(TokenKind::RParen, "')'");
  return types;
}

ArtifactType MlirParserImpl::parseType() {
  Nest nest(*this);
  const SourceLoc loc = m_tok.loc;
  if (m_tok.is(TokenKind::BangIdent)) {
    const std::string name(m_tok.text.substr(1));
    if (name == "lattice.sparse_tensor") {
      consume();
      return parseSparseTensorType(loc);
    }
    if (name == "lattice.weight") {
      consume();
      return parseWeightType(loc);
    }
    if (name.substr(0, 8) == "lattice.")
      fail(loc, "unknown lattice type '" + shortText(name.substr(8)) + "'");
    fail(loc, "unsupported dialect type '!" + shortText(name) + "'");
  }
  if (m_tok.is(TokenKind::BareIdent)) {
    if (m_tok.text == "tensor") {
      consume();
      return parseTensorType(loc);
    }
    if (isScalarTypeName(m_tok.text)) {
      ArtifactType t;
      t.kind = ArtifactType::Kind::Scalar;
      t.loc = loc;
      t.elementType = std::string(m_tok.text);
      consume();
      return t;
    }
    fail(loc, "expected type, got '" + shortText(m_tok.text) + "'");
  }
  failHere("type");
}

ArtifactType MlirParserImpl::parseImpliedType(ArtifactType::Kind kind) {
  if (!m_tok.is(TokenKind::Less)) return parseType();
  // MLIR prints a dialect type in its own dialect's op without the `!lattice.mnemonic` prefix
  // where the op's assembly names the type class (`type($result)` of a TypeDef constraint).
  Nest nest(*this);
  const SourceLoc loc = m_tok.loc;
  return kind == ArtifactType::Kind::Weight ? parseWeightType(loc) : parseSparseTensorType(loc);
}

ArtifactType MlirParserImpl::parseTensorType(SourceLoc loc) {
  expect(TokenKind::Less, "'<'");
  ArtifactType t;
  t.kind = ArtifactType::Kind::Tensor;
  t.loc = loc;
  // The `x` between extents is lexed as part of an identifier (`x4xi32`): consume just the
  // `x` and lex the rest again, as MLIR does.
  auto expectX = [this] {
    if (!m_tok.is(TokenKind::BareIdent) || m_tok.text[0] != 'x') failHere("'x' in dimension list");
    if (m_tok.text.size() == 1) {
      consume();
    } else {
      m_lexer.resetInto(m_tok, 1);
      consume();
    }
  };
  if (m_tok.is(TokenKind::Star)) {
    consume();
    t.ranked = false;
    expectX();
  } else {
    while (true) {
      if (m_tok.is(TokenKind::Question)) {
        t.shape.push_back(kDynamicExtent);
        consume();
      } else if (m_tok.is(TokenKind::Integer)) {
        if (isHexLiteral(m_tok.text)) {
          // `0x4xi32` lexes as the hex literal `0x4`: it is the extent 0 followed by `x`.
          t.shape.push_back(0);
          m_lexer.resetInto(m_tok, 1);
          consume();
        } else {
          std::uint64_t extent = 0;
          if (!parseMagnitude(m_tok.text, extent) ||
              extent > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
            fail(m_tok.loc, "tensor dimension is too large");
          t.shape.push_back(static_cast<std::int64_t>(extent));
          consume();
        }
      } else {
        break;
      }
      expectX();
    }
  }
  if (!m_tok.is(TokenKind::BareIdent) || !isScalarTypeName(m_tok.text)) failHere("tensor element type");
  t.elementType = std::string(m_tok.text);
  consume();
  expect(TokenKind::Greater, "'>'");
  return t;
}

ArtifactType MlirParserImpl::parseSparseTensorType(SourceLoc loc) {
  ArtifactType t;
  t.kind = ArtifactType::Kind::SparseTensor;
  t.loc = loc;
  expect(TokenKind::Less, "'<'");
  expectKeyword("rank");
  expect(TokenKind::Equal, "'='");
  const Token rank = expect(TokenKind::Integer, "unsigned integer");
  if (!parseMagnitude(rank.text, t.rank)) fail(rank.loc, "integer value too large");
  expect(TokenKind::Comma, "','");
  expectKeyword("coord");
  expect(TokenKind::Equal, "'='");
  t.coord = parseKeyword("coordinate convention keyword");
  expect(TokenKind::Comma, "','");
  expectKeyword("feature");
  expect(TokenKind::Equal, "'='");
  t.feature = parseKeyword("feature layout keyword");
  expect(TokenKind::Comma, "','");
  expectKeyword("dtype");
  expect(TokenKind::Equal, "'='");
  t.dtype = parseType().str();
  expect(TokenKind::Greater, "'>'");
  return t;
}

ArtifactType MlirParserImpl::parseWeightType(SourceLoc loc) {
  ArtifactType t;
  t.kind = ArtifactType::Kind::Weight;
  t.loc = loc;
  expect(TokenKind::Less, "'<'");
  t.family = parseKeyword("weight family keyword");
  expect(TokenKind::Comma, "','");
  t.dtype = parseType().str();
  expect(TokenKind::Greater, "'>'");
  return t;
}

std::string MlirParserImpl::parseKeyword(std::string_view what) {
  if (m_tok.is(TokenKind::BareIdent)) {
    std::string out(m_tok.text);
    consume();
    return out;
  }
  if (m_tok.is(TokenKind::String)) {
    std::string out = std::move(m_tok.string);
    consume();
    return out;
  }
  failHere(std::string(what));
}

std::vector<ArtifactAttribute> MlirParserImpl::parseAttrDict() {
  expect(TokenKind::LBrace, "'{'");
  std::vector<ArtifactAttribute> entries;
  if (consumeIf(TokenKind::RBrace)) return entries;
  std::unordered_set<std::string> seen;
  while (true) {
    ArtifactAttribute entry;
    entry.loc = m_tok.loc;
    if (m_tok.is(TokenKind::BareIdent))
      entry.name = std::string(m_tok.text);
    else if (m_tok.is(TokenKind::String))
      entry.name = m_tok.string;
    else
      failHere("attribute name");
    consume();
    if (!seen.insert(entry.name).second)
      fail(entry.loc, "duplicate key '" + shortText(entry.name) + "' in dictionary attribute");
    if (consumeIf(TokenKind::Equal)) {
      entry.value = parseAttrValue();
    } else {
      entry.value.kind = ArtifactAttrValue::Kind::Unit;
      entry.value.loc = entry.loc;
    }
    entries.push_back(std::move(entry));
    if (!consumeIf(TokenKind::Comma)) break;
  }
  expect(TokenKind::RBrace, "'}'");
  return entries;
}

ArtifactAttrValue MlirParserImpl::parseAttrValue() {
  Nest nest(*this);
  const SourceLoc loc = m_tok.loc;
  ArtifactAttrValue v;
  v.loc = loc;
  switch (m_tok.kind) {
  case TokenKind::LSquare:
    consume();
    v.kind = ArtifactAttrValue::Kind::Array;
    if (!m_tok.is(TokenKind::RSquare)) {
      while (true) {
        v.elements.push_back(parseAttrValue());
        if (!consumeIf(TokenKind::Comma)) break;
      }
    }
    expect(TokenKind::RSquare, "']'");
    return v;
  case TokenKind::String:
    v.kind = ArtifactAttrValue::Kind::String;
    v.text = std::move(m_tok.string);
    consume();
    return v;
  case TokenKind::AtIdent:
    v.kind = ArtifactAttrValue::Kind::Symbol;
    v.text = std::move(m_tok.string);
    consume();
    return v;
  case TokenKind::Minus:
  case TokenKind::Integer:
  case TokenKind::Float:
    return parseNumber(loc);
  case TokenKind::HashIdent:
    return parseLatticeAttr(loc);
  case TokenKind::BareIdent:
    if (m_tok.text == "true" || m_tok.text == "false") {
      v.kind = ArtifactAttrValue::Kind::Bool;
      v.boolean = m_tok.text == "true";
      consume();
      return v;
    }
    if (m_tok.text == "unit") {
      v.kind = ArtifactAttrValue::Kind::Unit;
      consume();
      return v;
    }
    if (m_tok.text == "array") return parseDenseArray(loc);
    break;
  default:
    break;
  }
  failHere("attribute value");
}

ArtifactAttrValue MlirParserImpl::parseNumber(SourceLoc loc) {
  ArtifactAttrValue v;
  v.loc = loc;
  const bool negative = consumeIf(TokenKind::Minus);
  if (!m_tok.is(TokenKind::Integer) && !m_tok.is(TokenKind::Float)) failHere("integer or float literal");
  const Token number = std::move(m_tok);
  consume();
  std::string type;
  if (consumeIf(TokenKind::Colon)) {
    const ArtifactType t = parseType();
    if (t.kind != ArtifactType::Kind::Scalar) fail(t.loc, "expected integer or float type");
    type = t.elementType;
  }
  if (number.is(TokenKind::Float)) {
    if (!type.empty() && !isFloatTypeName(type))
      fail(number.loc, "floating point value not valid for specified type");
    const std::string text(number.text);
    errno = 0;
    const double value = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(value)) fail(number.loc, "floating point literal out of range");
    v.kind = ArtifactAttrValue::Kind::Float;
    v.number = negative ? -value : value;
    v.type = type;
    return v;
  }
  std::uint64_t magnitude = 0;
  const bool fits = parseMagnitude(number.text, magnitude);
  if (isFloatTypeName(type)) {
    if (!isHexLiteral(number.text))
      fail(number.loc, "unexpected decimal integer literal for a floating point value");
    if (negative) fail(number.loc, "hexadecimal float literal should not have a leading minus");
    double value = 0.0;
    if (fits && type == "f32" && magnitude <= 0xFFFFFFFFu) {
      const auto bits = static_cast<std::uint32_t>(magnitude);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      value = f;
    } else if (fits && type == "f64") {
      std::memcpy(&value, &magnitude, sizeof value);
    } else if (fits && type == "f16" && magnitude <= 0xFFFFu) {
      value = halfToFloat(static_cast<std::uint16_t>(magnitude));
    } else {
      fail(number.loc, "hexadecimal float literal does not fit type '" + type + "'");
    }
    if (!std::isfinite(value)) fail(number.loc, "non-finite float values are not supported");
    v.kind = ArtifactAttrValue::Kind::Float;
    v.number = value;
    v.type = type;
    return v;
  }
  const std::uint64_t limit = std::uint64_t(std::numeric_limits<std::int64_t>::max()) + (negative ? 1u : 0u);
  if (!fits || magnitude > limit) fail(number.loc, "integer constant out of range for attribute");
  v.kind = ArtifactAttrValue::Kind::Integer;
  v.integer = negative ? static_cast<std::int64_t>(0u - magnitude) : static_cast<std::int64_t>(magnitude);
  v.type = type;
  return v;
}

ArtifactAttrValue MlirParserImpl::parseDenseArray(SourceLoc loc) {
  consume(); // array
  expect(TokenKind::Less, "'<'");
  if (!m_tok.is(TokenKind::BareIdent) || !isScalarTypeName(m_tok.text)) failHere("array element type");
  ArtifactAttrValue v;
  v.loc = loc;
  v.type = std::string(m_tok.text);
  const bool floats = isFloatTypeName(v.type);
  v.kind = floats ? ArtifactAttrValue::Kind::F64Array : ArtifactAttrValue::Kind::I64Array;
  consume();
  if (consumeIf(TokenKind::Colon)) {
    while (true) {
      // Reuse the scalar rules with the array's element type.
      const SourceLoc at = m_tok.loc;
      const bool negative = m_tok.is(TokenKind::Minus);
      if (negative) consume();
      if (!m_tok.is(TokenKind::Integer) && !m_tok.is(TokenKind::Float)) failHere("integer or float literal");
      if (floats) {
        if (m_tok.is(TokenKind::Integer) && !isHexLiteral(m_tok.text))
          fail(m_tok.loc, "unexpected decimal integer literal for a floating point value");
        if (m_tok.is(TokenKind::Integer))
          fail(m_tok.loc, "hexadecimal literals are not supported in float arrays");
        const std::string text(m_tok.text);
        const double value = std::strtod(text.c_str(), nullptr);
        if (!std::isfinite(value)) fail(m_tok.loc, "floating point literal out of range");
        v.f64s.push_back(negative ? -value : value);
      } else {
        if (m_tok.is(TokenKind::Float)) fail(m_tok.loc, "floating point value not valid for specified type");
        std::uint64_t magnitude = 0;
        const std::uint64_t limit =
            std::uint64_t(std::numeric_limits<std::int64_t>::max()) + (negative ? 1u : 0u);
        if (!parseMagnitude(m_tok.text, magnitude) || magnitude > limit)
          fail(at, "integer constant out of range for attribute");
        v.i64s.push_back(negative ? static_cast<std::int64_t>(0u - magnitude)
                                  : static_cast<std::int64_t>(magnitude));
      }
      consume();
      if (!consumeIf(TokenKind::Comma)) break;
    }
  }
  expect(TokenKind::Greater, "'>'");
  return v;
}

ArtifactAttrValue MlirParserImpl::parseLatticeAttr(SourceLoc loc) {
  const std::string name(m_tok.text.substr(1));
  if (name.substr(0, 8) != "lattice.") fail(loc, "unsupported attribute '#" + shortText(name) + "'");
  const std::string mnemonic = name.substr(8);
  ArtifactAttrValue v;
  v.loc = loc;
  if (mnemonic == "packing") {
    consume();
    v.kind = ArtifactAttrValue::Kind::Packing;
    expect(TokenKind::Less, "'<'");
    v.packing.kind = parseKeyword("packing kind");
    if (v.packing.kind == "dense" && consumeIf(TokenKind::Greater)) return v;
    expect(TokenKind::Comma, "','");
    expectKeyword("group_size");
    expect(TokenKind::Equal, "'='");
    const Token group = expect(TokenKind::Integer, "unsigned integer");
    std::uint64_t groupSize = 0;
    if (!parseMagnitude(group.text, groupSize) ||
        groupSize > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      fail(group.loc, "integer value too large");
    v.packing.groupSize = static_cast<std::int64_t>(groupSize);
    expect(TokenKind::Comma, "','");
    expectKeyword("scale_dtype");
    expect(TokenKind::Equal, "'='");
    v.packing.scaleDtype = parseType().str();
    expect(TokenKind::Comma, "','");
    expectKeyword("mode");
    expect(TokenKind::Equal, "'='");
    v.packing.mode = parseKeyword("packing mode keyword");
    expect(TokenKind::Greater, "'>'");
    v.packingLongForm = true;
    return v;
  }
  if (!dialectSchema().findAttr(mnemonic))
    fail(loc, "unknown lattice attribute '" + shortText(mnemonic) + "'");
  consume();
  v.kind = ArtifactAttrValue::Kind::Enum;
  v.mnemonic = mnemonic;
  expect(TokenKind::Less, "'<'");
  v.text = parseKeyword("'" + mnemonic + "' value");
  expect(TokenKind::Greater, "'>'");
  return v;
}

} // namespace lattice::detail
