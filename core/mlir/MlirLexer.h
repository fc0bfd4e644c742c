#pragma once
/// \file MlirLexer: the tokens of the textual subset of MLIR that lattice artifacts use
/// (lattice-artifact-format.md sec. 10): identifiers with their sigils, string, integer and
/// float literals, punctuation, `//` comments and any whitespace. Used by MlirParser; tokens
/// are views into the caller's buffer.

#include "mlir/Diagnostic.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace lattice {

enum class TokenKind {
  Eof,
  Error,        ///< lexing failed; MlirLexer::errorMessage() says why
  BareIdent,    ///< `module`, `lattice.conv3d`, `f32`, `x4xi32`
  PercentIdent, ///< `%name` (text without `%`)
  AtIdent,      ///< `@name` (text without `@`; a quoted symbol is in Token::string)
  HashIdent,    ///< `#lattice.pool_mode`, or `#1` selecting a result of a group (text with `#`)
  BangIdent,    ///< `!lattice.weight` (text without `!`)
  CaretIdent,   ///< `^bb0` (text without `^`)
  String,       ///< `"..."` (text with quotes; Token::string unescaped)
  Integer,      ///< `12`, `0x1F`
  Float,        ///< `1.0`, `1.0e-05`
  LParen,
  RParen,
  LBrace,
  RBrace,
  LSquare,
  RSquare,
  Less,
  Greater,
  Comma,
  Colon,
  Equal,
  Arrow, ///< `->`
  Question,
  Star,
  Minus,
  Plus,
};

/// One token. `text` views the source; `offset` is its byte offset.
struct Token {
  TokenKind kind = TokenKind::Eof;
  std::string_view text;
  SourceLoc loc;
  std::size_t offset = 0;
  /// String tokens and quoted `@"sym"`: the unescaped value.
  std::string string;

  bool is(TokenKind k) const { return kind == k; }
  bool isKeyword(std::string_view word) const { return kind == TokenKind::BareIdent && text == word; }
};

/// Spelling of a token kind for messages: `'('`, `identifier`, `string`, ...
std::string_view tokenKindName(TokenKind kind);

/// Produces tokens on demand from a buffer the caller keeps alive, tracking line and column.
class MlirLexer {
public:
  explicit MlirLexer(std::string_view buffer) : m_buffer(buffer) {}

  /// The next token; Eof at the end (repeatedly), Error on a lexical error.
  Token next();

  /// Restarts lexing `skip` bytes into `token` (which must lie on one line), e.g. after the
  /// `x` of `x4xi32` in a tensor shape.
  void resetInto(const Token& token, std::size_t skip);

  /// Why the last Error token was produced.
  const std::string& errorMessage() const { return m_error; }

private:
  Token make(TokenKind kind, std::size_t start, SourceLoc loc);
  Token fail(std::string message, std::size_t start, SourceLoc loc);
  void skipTrivia();
  SourceLoc here() const;
  Token lexIdentifierTail(TokenKind kind, std::size_t start, SourceLoc loc, bool suffixId);
  Token lexNumber(std::size_t start, SourceLoc loc);
  Token lexString(std::size_t start, SourceLoc loc);

  std::string_view m_buffer;
  std::size_t m_pos = 0;
  std::size_t m_lineStart = 0;
  std::uint32_t m_line = 1;
  std::string m_error;
};

} // namespace lattice
