// Lexer for the MLIR subset of lattice artifacts (format spec sec. 10). It follows MLIR's
// lexical rules for identifiers (bare ids with `.`/`$`, suffix ids after `%`, `^`), string
// escapes (`\"`, `\\`, `\n`, `\t`, `\XX`) and numbers; `-` is its own token as in MLIR. It does
// not validate UTF-8 (the parser does that once for the whole buffer) and never allocates
// beyond the unescaped string of the current token.

#include "mlir/MlirLexer.h"

#include <cstdio>

namespace lattice {
namespace {

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int hexValue(char c) {
  if (isDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

} // namespace

std::string_view tokenKindName(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Error:
    return "error";
  case TokenKind::BareIdent:
    return "identifier";
  case TokenKind::PercentIdent:
    return "SSA value";
  case TokenKind::AtIdent:
    return "symbol";
  case TokenKind::HashIdent:
    return "attribute alias";
  case TokenKind::BangIdent:
    return "dialect type";
  case TokenKind::CaretIdent:
    return "block label";
  case TokenKind::String:
    return "string";
  case TokenKind::Integer:
    return "integer";
  case TokenKind::Float:
    return "float";
  case TokenKind::LParen:
    return "'('";
  case TokenKind::RParen:
    return "')'";
  case TokenKind::LBrace:
    return "'{'";
  case TokenKind::RBrace:
    return "'}'";
  case TokenKind::LSquare:
    return "'['";
  case TokenKind::RSquare:
    return "']'";
  case TokenKind::Less:
    return "'<'";
  case TokenKind::Greater:
    return "'>'";
  case TokenKind::Comma:
    return "','";
  case TokenKind::Colon:
    return "':'";
  case TokenKind::Equal:
    return "'='";
  case TokenKind::Arrow:
    return "'->'";
  case TokenKind::Question:
    return "'?'";
  case TokenKind::Star:
    return "'*'";
  case TokenKind::Minus:
    return "'-'";
  case TokenKind::Plus:
    return "'+'";
  }
  return "token";
}

SourceLoc MlirLexer::here() const {
  return {m_line, static_cast<std::uint32_t>(m_pos - m_lineStart + 1)};
}

Token MlirLexer::make(TokenKind kind, std::size_t start, SourceLoc loc) {
  Token t;
  t.kind = kind;
  t.text = m_buffer.substr(start, m_pos - start);
  t.loc = loc;
  t.offset = start;
  return t;
}

Token MlirLexer::fail(std::string message, std::size_t start, SourceLoc loc) {
  m_error = std::move(message);
  Token t;
  t.kind = TokenKind::Error;
  t.text = m_buffer.substr(start, m_pos > start ? m_pos - start : 0);
  t.loc = loc;
  t.offset = start;
  return t;
}

void MlirLexer::resetInto(const Token& token, std::size_t skip) {
  m_pos = token.offset + skip;
  m_line = token.loc.line;
  m_lineStart = token.offset - (token.loc.column - 1);
}

void MlirLexer::skipTrivia() {
  while (m_pos < m_buffer.size()) {
    const char c = m_buffer[m_pos];
    if (c == '\n') {
      ++m_pos;
      ++m_line;
      m_lineStart = m_pos;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++m_pos;
    } else if (c == '/' && m_pos + 1 < m_buffer.size() && m_buffer[m_pos + 1] == '/') {
      while (m_pos < m_buffer.size() && m_buffer[m_pos] != '\n')
        ++m_pos;
    } else {
      return;
    }
  }
}

Token MlirLexer::next() {
  skipTrivia();
  const std::size_t start = m_pos;
  const SourceLoc loc = here();
  if (m_pos >= m_buffer.size()) return make(TokenKind::Eof, start, loc);
  const char c = m_buffer[m_pos++];
  switch (c) {
  case '(':
    return make(TokenKind::LParen, start, loc);
  case ')':
    return make(TokenKind::RParen, start, loc);
  case '{':
    return make(TokenKind::LBrace, start, loc);
  case '}':
    return make(TokenKind::RBrace, start, loc);
  case '[':
    return make(TokenKind::LSquare, start, loc);
  case ']':
    return make(TokenKind::RSquare, start, loc);
  case '<':
    return make(TokenKind::Less, start, loc);
  case '>':
    return make(TokenKind::Greater, start, loc);
  case ',':
    return make(TokenKind::Comma, start, loc);
  case ':':
    return make(TokenKind::Colon, start, loc);
  case '=':
    return make(TokenKind::Equal, start, loc);
  case '?':
    return make(TokenKind::Question, start, loc);
  case '*':
    return make(TokenKind::Star, start, loc);
  case '+':
    return make(TokenKind::Plus, start, loc);
  case '-':
    if (m_pos < m_buffer.size() && m_buffer[m_pos] == '>') {
      ++m_pos;
      return make(TokenKind::Arrow, start, loc);
    }
    return make(TokenKind::Minus, start, loc);
  case '"':
    return lexString(start, loc);
  case '%':
    return lexIdentifierTail(TokenKind::PercentIdent, start, loc, true);
  case '^':
    return lexIdentifierTail(TokenKind::CaretIdent, start, loc, true);
  case '#':
    // `#1` after an SSA name selects a result of a group (`%0#1`); otherwise an attribute name.
    if (m_pos < m_buffer.size() && isDigit(m_buffer[m_pos])) {
      while (m_pos < m_buffer.size() && isDigit(m_buffer[m_pos]))
        ++m_pos;
      return make(TokenKind::HashIdent, start, loc);
    }
    return lexIdentifierTail(TokenKind::HashIdent, start, loc, false);
  case '!':
    return lexIdentifierTail(TokenKind::BangIdent, start, loc, false);
  case '@': {
    if (m_pos < m_buffer.size() && m_buffer[m_pos] == '"') {
      Token s = lexString(m_pos++, loc);
      if (s.kind == TokenKind::Error) return s;
      Token t = make(TokenKind::AtIdent, start, loc);
      t.string = std::move(s.string);
      return t;
    }
    Token t = lexIdentifierTail(TokenKind::AtIdent, start, loc, true);
    if (t.kind == TokenKind::AtIdent) t.string = std::string(t.text.substr(1));
    return t;
  }
  default:
    break;
  }
  if (isDigit(c)) return lexNumber(start, loc);
  if (isAlpha(c) || c == '_') {
    while (m_pos < m_buffer.size()) {
      const char d = m_buffer[m_pos];
      if (!(isAlpha(d) || isDigit(d) || d == '_' || d == '$' || d == '.')) break;
      ++m_pos;
    }
    return make(TokenKind::BareIdent, start, loc);
  }
  const unsigned char u = static_cast<unsigned char>(c);
  if (u < 0x20 || u >= 0x7f) {
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "0x%02X", u);
    return fail(std::string("unexpected character (byte ") + buffer + ")", start, loc);
  }
  return fail(std::string("unexpected character '") + c + "'", start, loc);
}

// After the sigil: a suffix id (`[0-9]+` or `[a-zA-Z$._-][a-zA-Z0-9$._-]*`) for `%`, `^`, `@`,
// or a bare id (`[a-zA-Z_][a-zA-Z0-9_$.]*`) for `#` and `!`.
Token MlirLexer::lexIdentifierTail(TokenKind kind, std::size_t start, SourceLoc loc, bool suffixId) {
  const char sigil = m_buffer[start];
  if (m_pos >= m_buffer.size())
    return fail(std::string("expected identifier after '") + sigil + "'", start, loc);
  const char first = m_buffer[m_pos];
  if (suffixId && isDigit(first)) {
    while (m_pos < m_buffer.size() && isDigit(m_buffer[m_pos]))
      ++m_pos;
  } else {
    const bool ok =
        isAlpha(first) || first == '_' || (suffixId && (first == '$' || first == '.' || first == '-'));
    if (!ok) return fail(std::string("expected identifier after '") + sigil + "'", start, loc);
    while (m_pos < m_buffer.size()) {
      const char d = m_buffer[m_pos];
      if (!(isAlpha(d) || isDigit(d) || d == '_' || d == '$' || d == '.' || (suffixId && d == '-'))) break;
      ++m_pos;
    }
  }
  return make(kind, start, loc);
}

// `[0-9]+`, `0x[0-9a-fA-F]+`, or `[0-9]+[.][0-9]*([eE][-+]?[0-9]+)?`.
Token MlirLexer::lexNumber(std::size_t start, SourceLoc loc) {
  if (m_buffer[start] == '0' && m_pos + 1 < m_buffer.size() && m_buffer[m_pos] == 'x' &&
      isHexDigit(m_buffer[m_pos + 1])) {
    ++m_pos;
    while (m_pos < m_buffer.size() && isHexDigit(m_buffer[m_pos]))
      ++m_pos;
    return make(TokenKind::Integer, start, loc);
  }
  while (m_pos < m_buffer.size() && isDigit(m_buffer[m_pos]))
    ++m_pos;
  if (m_pos >= m_buffer.size() || m_buffer[m_pos] != '.') return make(TokenKind::Integer, start, loc);
  ++m_pos;
  while (m_pos < m_buffer.size() && isDigit(m_buffer[m_pos]))
    ++m_pos;
  if (m_pos < m_buffer.size() && (m_buffer[m_pos] == 'e' || m_buffer[m_pos] == 'E')) {
    std::size_t p = m_pos + 1;
    if (p < m_buffer.size() && (m_buffer[p] == '-' || m_buffer[p] == '+')) ++p;
    if (p < m_buffer.size() && isDigit(m_buffer[p])) {
      m_pos = p;
      while (m_pos < m_buffer.size() && isDigit(m_buffer[m_pos]))
        ++m_pos;
    }
  }
  return make(TokenKind::Float, start, loc);
}

Token MlirLexer::lexString(std::size_t start, SourceLoc loc) {
  std::string value;
  while (true) {
    if (m_pos >= m_buffer.size()) return fail("expected '\"' in string literal", start, loc);
    const char c = m_buffer[m_pos];
    if (c == '"') {
      ++m_pos;
      break;
    }
    if (c == '\n' || c == '\0') return fail("expected '\"' in string literal", start, loc);
    if (c != '\\') {
      value += c;
      ++m_pos;
      continue;
    }
    if (m_pos + 1 >= m_buffer.size()) return fail("expected '\"' in string literal", start, loc);
    const char e = m_buffer[m_pos + 1];
    if (e == '"' || e == '\\') {
      value += e;
      m_pos += 2;
    } else if (e == 'n') {
      value += '\n';
      m_pos += 2;
    } else if (e == 't') {
      value += '\t';
      m_pos += 2;
    } else if (m_pos + 2 < m_buffer.size() && isHexDigit(e) && isHexDigit(m_buffer[m_pos + 2])) {
      value += static_cast<char>(hexValue(e) * 16 + hexValue(m_buffer[m_pos + 2]));
      m_pos += 3;
    } else {
      return fail("unknown escape in string literal", start, loc);
    }
  }
  Token t = make(TokenKind::String, start, loc);
  t.string = std::move(value);
  return t;
}

} // namespace lattice
