#pragma once
// Private to the reader: the recursive-descent parser state shared by MlirParser.cpp (module,
// functions, ops) and MlirTypeAttrParser.cpp (types and attribute values).

#include "mlir/ArtifactGraph.h"
#include "mlir/MlirLexer.h"
#include "mlir/MlirParser.h"

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace lattice::detail {

/// Thrown inside the parser only; parseArtifactGraph turns it into the diagnostic.
struct ParseFailure {
  SourceLoc loc;
  std::string message;
};

class MlirParserImpl {
public:
  MlirParserImpl(std::string_view text, const ReaderLimits& limits) : m_lexer(text), m_limits(limits) {}

  /// The whole file (throws ParseFailure).
  ArtifactGraph parseFile();

  // --- token helpers -----------------------------------------------------------------------
  const Token& tok() const { return m_tok; }
  void consume();
  [[noreturn]] void fail(SourceLoc loc, std::string message) const;
  [[noreturn]] void failHere(const std::string& expected) const;
  /// Consumes a token of `kind` or fails with "expected <what>".
  Token expect(TokenKind kind, std::string_view what);
  /// Consumes the bare keyword `word` or fails with "expected 'word'".
  void expectKeyword(std::string_view word);
  bool consumeIf(TokenKind kind);

  // --- types and attribute values (MlirTypeAttrParser.cpp) ------------------------------
  ArtifactType parseType();
  /// A type that the op's assembly implies to be `kind` (a lattice type): the full
  /// `!lattice.weight<...>` or, as MLIR prints it, just the parameters `<...>`.
  ArtifactType parseImpliedType(ArtifactType::Kind kind);
  /// `(T, T) -> ...`'s parenthesized list, the `(` being the current token.
  std::vector<ArtifactType> parseTypeListParens();
  ArtifactAttrValue parseAttrValue();
  /// `{a = v, b}`; the `{` being the current token.
  std::vector<ArtifactAttribute> parseAttrDict();
  /// A keyword parameter: a bare identifier or a string.
  std::string parseKeyword(std::string_view what);

  /// Enters one nesting level (types, attribute values); fails beyond the limit.
  struct Nest {
    explicit Nest(MlirParserImpl& p);
    ~Nest() { --m_parser.m_depth; }
    MlirParserImpl& m_parser;
  };

private:
  ArtifactFunction parseFunction();
  void parseBody(ArtifactFunction& function);
  ArtifactOp parseOp();
  void parseLatticeOpTail(ArtifactOp& op);
  void parseForeignOpTail(ArtifactOp& op);
  /// `{attrs}? : (operand types) -> result type(s)`, the operand count checked against the
  /// types; `expectedParen` is the error when the '(' is missing.
  void parseAttributesAndFunctionalType(ArtifactOp& op, const std::string& expectedParen);
  /// `%name` or `%group#N`.
  ArtifactValueUse parseValueUse();
  std::vector<ArtifactValueUse> parseOperandList();
  void parseReturn(ArtifactFunction& function);
  void bindResultTypes(ArtifactOp& op, std::vector<ArtifactType> types, SourceLoc typeLoc);

  ArtifactType parseTensorType(SourceLoc loc);
  ArtifactType parseSparseTensorType(SourceLoc loc);
  ArtifactType parseWeightType(SourceLoc loc);
  ArtifactAttrValue parseNumber(SourceLoc loc);
  ArtifactAttrValue parseDenseArray(SourceLoc loc);
  ArtifactAttrValue parseLatticeAttr(SourceLoc loc);

  MlirLexer m_lexer;
  ReaderLimits m_limits;
  Token m_tok;
  unsigned m_depth = 0;
  /// Most results one op may define (a group `%0:N` is expanded into N definitions).
  static constexpr std::size_t kMaxResults = 4096;
  /// Names of the result groups (`%0:3`) defined so far in the current function.
  std::unordered_set<std::string> m_groups;
};

/// A token's text shortened for messages.
std::string shortText(std::string_view text);

} // namespace lattice::detail
