// The artifact reader's structure level (format spec sec. 10): the module with its attribute
// dictionary, `func.func` signatures and bodies, ops in the three lattice assembly styles plus
// a generic form for foreign ops (`func.call @f(%x) : (T) -> T`, which the verifier then rejects
// with rule M17), and `return`. Types and attribute values are in MlirTypeAttrParser.cpp.
// MLIR's printed form is read too: result groups (`%0:3 = ...`, used as `%0#1`) and lattice
// types without their `!lattice.` prefix where the op's assembly implies them (MlirTypeAttrParser.cpp).
// Deliberately not supported: MLIR's generic `"op"(...)` syntax, regions inside ops, attribute
// aliases and dialects other than `lattice`, `func` and builtin.

#include "mlir/MlirParser.h"
#include "mlir/MlirParserImpl.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>
#include <sys/stat.h>

namespace lattice {
namespace detail {

std::string shortText(std::string_view text) {
  std::string s = printableForMessage(text.substr(0, 48));
  if (text.size() > 48) s += "...";
  return s;
}

void MlirParserImpl::consume() {
  m_tok = m_lexer.next();
  if (m_tok.is(TokenKind::Error)) fail(m_tok.loc, m_lexer.errorMessage());
}

void MlirParserImpl::fail(SourceLoc loc, std::string message) const {
  // What was expected is missing because the text stops: most often a file cut short.
  if (m_tok.is(TokenKind::Eof) && loc == m_tok.loc) message += " (the file ends here: is it truncated?)";
  throw ParseFailure{loc, std::move(message)};
}

void MlirParserImpl::failHere(const std::string& expected) const {
  fail(m_tok.loc, "expected " + expected);
}

Token MlirParserImpl::expect(TokenKind kind, std::string_view what) {
  if (!m_tok.is(kind)) failHere(std::string(what));
  Token t = std::move(m_tok);
  consume();
  return t;
}

void MlirParserImpl::expectKeyword(std::string_view word) {
  if (!m_tok.isKeyword(word)) failHere("'" + std::string(word) + "'");
  consume();
}

bool MlirParserImpl::consumeIf(TokenKind kind) {
  if (!m_tok.is(kind)) return false;
  consume();
  return true;
}

MlirParserImpl::Nest::Nest(MlirParserImpl& p) : m_parser(p) {
  if (++p.m_depth > p.m_limits.maxNesting)
    p.fail(p.m_tok.loc, "nesting too deep (more than " + std::to_string(p.m_limits.maxNesting) + " levels)");
}

ArtifactGraph MlirParserImpl::parseFile() {
  consume();
  ArtifactGraph graph;
  graph.moduleLoc = m_tok.loc;
  if (!m_tok.isKeyword("module")) {
    // An implicit module: top-level functions only (MLIR wraps them in a module).
    while (m_tok.isKeyword("func.func"))
      graph.functions.push_back(parseFunction());
    if (!m_tok.is(TokenKind::Eof)) failHere("'module' or 'func.func'");
    return graph;
  }
  consume();
  if (m_tok.is(TokenKind::AtIdent)) consume(); // a module name is allowed and ignored
  if (m_tok.isKeyword("attributes")) {
    consume();
    if (!m_tok.is(TokenKind::LBrace)) failHere("'{'");
    graph.moduleAttributes = parseAttrDict();
  }
  expect(TokenKind::LBrace, "'{'");
  while (!m_tok.is(TokenKind::RBrace)) {
    if (!m_tok.isKeyword("func.func")) failHere("'func.func' or '}'");
    graph.functions.push_back(parseFunction());
  }
  consume();
  if (!m_tok.is(TokenKind::Eof)) failHere("end of file after the module");
  return graph;
}

ArtifactFunction MlirParserImpl::parseFunction() {
  m_groups.clear(); // result groups are named per function body
  ArtifactFunction f;
  f.loc = m_tok.loc;
  consume(); // func.func
  if (m_tok.isKeyword("private") || m_tok.isKeyword("public") || m_tok.isKeyword("nested")) consume();
  f.nameLoc = m_tok.loc;
  f.name = expect(TokenKind::AtIdent, "function name").string;
  expect(TokenKind::LParen, "'('");
  if (!m_tok.is(TokenKind::RParen)) {
    while (true) {
      ArtifactValueDef arg;
      arg.loc = m_tok.loc;
      arg.name = std::string(expect(TokenKind::PercentIdent, "argument name").text.substr(1));
      expect(TokenKind::Colon, "':'");
      arg.type = parseType();
      f.arguments.push_back(std::move(arg));
      if (!consumeIf(TokenKind::Comma)) break;
    }
  }
  expect(TokenKind::RParen, "')'");
  if (consumeIf(TokenKind::Arrow)) {
    if (m_tok.is(TokenKind::LParen))
      f.resultTypes = parseTypeListParens();
    else
      f.resultTypes.push_back(parseType());
  }
  if (m_tok.isKeyword("attributes")) {
    consume();
    if (!m_tok.is(TokenKind::LBrace)) failHere("'{'");
    parseAttrDict(); // function attributes carry nothing the contract uses
  }
  if (m_tok.is(TokenKind::LBrace)) {
    f.hasBody = true;
    parseBody(f);
  }
  return f;
}

void MlirParserImpl::parseBody(ArtifactFunction& f) {
  consume(); // {
  f.blockCount = 1;
  bool atEntryStart = true; // a label before anything else names the entry block
  bool terminated = false;
  bool haveReturn = false;
  while (true) {
    if (m_tok.is(TokenKind::CaretIdent)) {
      if (!atEntryStart) {
        if (!terminated) fail(m_tok.loc, "block with no terminator");
        ++f.blockCount;
      }
      atEntryStart = false;
      terminated = false;
      consume();
      if (consumeIf(TokenKind::LParen)) {
        while (!m_tok.is(TokenKind::RParen)) {
          expect(TokenKind::PercentIdent, "block argument name");
          expect(TokenKind::Colon, "':'");
          parseType();
          if (!consumeIf(TokenKind::Comma)) break;
        }
        expect(TokenKind::RParen, "')'");
      }
      expect(TokenKind::Colon, "':'");
      continue;
    }
    atEntryStart = false;
    if (m_tok.is(TokenKind::RBrace)) {
      if (!terminated) fail(m_tok.loc, "block with no terminator");
      consume();
      return;
    }
    if (terminated) failHere("'}' or a block label after 'return'");
    if (m_tok.isKeyword("return") || m_tok.isKeyword("func.return")) {
      const bool first = !haveReturn;
      haveReturn = true;
      terminated = true;
      ArtifactFunction scratch;
      parseReturn(first ? f : scratch);
      continue;
    }
    if (m_tok.is(TokenKind::Eof)) failHere("'}' to close the function body");
    f.ops.push_back(parseOp());
  }
}

void MlirParserImpl::parseReturn(ArtifactFunction& f) {
  ArtifactReturn r;
  r.loc = m_tok.loc;
  consume();
  if (m_tok.is(TokenKind::PercentIdent)) {
    r.operands = parseOperandList();
    expect(TokenKind::Colon, "':'");
    while (true) {
      r.types.push_back(parseType());
      if (!consumeIf(TokenKind::Comma)) break;
    }
  }
  if (r.operands.size() != r.types.size())
    fail(r.loc, std::to_string(r.operands.size()) + " operands present, but expected " +
                    std::to_string(r.types.size()));
  f.ret = std::move(r);
}

ArtifactValueUse MlirParserImpl::parseValueUse() {
  const Token t = expect(TokenKind::PercentIdent, "SSA operand");
  ArtifactValueUse use{std::string(t.text.substr(1)), t.loc};
  if (m_tok.is(TokenKind::HashIdent) && m_tok.text.size() > 1 && m_tok.text[1] >= '0' && m_tok.text[1] <= '9') {
    // `%0#1`: result 1 of the group `%0:N` (the name keeps the `#1`, as the group defined it).
    if (m_tok.text.size() > 10) fail(m_tok.loc, "result number is too large");
    use.name += std::string(m_tok.text);
    consume();
  } else if (m_groups.count(use.name)) {
    use.name += "#0"; // a group's name alone is its first result
  }
  return use;
}

std::vector<ArtifactValueUse> MlirParserImpl::parseOperandList() {
  std::vector<ArtifactValueUse> operands;
  if (!m_tok.is(TokenKind::PercentIdent)) return operands;
  while (true) {
    operands.push_back(parseValueUse());
    if (!consumeIf(TokenKind::Comma)) break;
  }
  return operands;
}

ArtifactOp MlirParserImpl::parseOp() {
  ArtifactOp op;
  if (m_tok.is(TokenKind::PercentIdent)) {
    while (true) {
      const Token t = expect(TokenKind::PercentIdent, "SSA result name");
      ArtifactValueDef def;
      def.name = std::string(t.text.substr(1));
      def.loc = t.loc;
      if (consumeIf(TokenKind::Colon)) {
        // `%0:3`: a group of three results, defined as `%0#0`, `%0#1`, `%0#2` (MLIR's printed form).
        const Token count = expect(TokenKind::Integer, "result group size");
        std::size_t n = 0;
        for (char c : count.text) {
          if (c < '0' || c > '9') fail(count.loc, "expected decimal result group size");
          n = std::min<std::size_t>(n * 10 + std::size_t(c - '0'), kMaxResults + 1);
        }
        if (n == 0) fail(count.loc, "expected named operation to have at least 1 result");
        if (n + op.results.size() > kMaxResults)
          fail(count.loc, "result group is too large (more than " + std::to_string(kMaxResults) + " results)");
        m_groups.insert(def.name);
        for (std::uint64_t i = 0; i < n; ++i) {
          ArtifactValueDef member = def;
          member.name += "#" + std::to_string(i);
          op.results.push_back(std::move(member));
        }
      } else {
        op.results.push_back(std::move(def));
      }
      if (!consumeIf(TokenKind::Comma)) break;
    }
    expect(TokenKind::Equal, "'='");
  }
  if (m_tok.is(TokenKind::String)) fail(m_tok.loc, "the generic operation form is not supported");
  // MLIR locates a custom-format op at its name, where its diagnostics point.
  op.nameLoc = m_tok.loc;
  op.loc = m_tok.loc;
  op.name = std::string(expect(TokenKind::BareIdent, "operation name").text);
  constexpr std::string_view prefix = "lattice.";
  if (std::string_view(op.name).substr(0, prefix.size()) == prefix) {
    op.schema = dialectSchema().findOp(std::string_view(op.name).substr(prefix.size()));
    if (!op.schema) fail(op.nameLoc, "custom op '" + shortText(op.name) + "' is unknown");
    op.kind = op.schema->kind;
    parseLatticeOpTail(op);
  } else {
    parseForeignOpTail(op);
  }
  return op;
}

void MlirParserImpl::bindResultTypes(ArtifactOp& op, std::vector<ArtifactType> types, SourceLoc typeLoc) {
  if (types.size() != op.results.size())
    fail(op.results.empty() ? typeLoc : op.results.front().loc, "operation defines " + std::to_string(types.size()) +
                                                    " results but was provided " +
                                                    std::to_string(op.results.size()) + " to bind");
  for (std::size_t i = 0; i < types.size(); ++i)
    op.results[i].type = std::move(types[i]);
}

void MlirParserImpl::parseLatticeOpTail(ArtifactOp& op) {
  switch (op.schema->assembly) {
  case SchemaAssembly::Weight: {
    op.symbolLoc = m_tok.loc;
    op.symbol = expect(TokenKind::AtIdent, "symbol name").string;
    op.hasSymbol = true;
    if (!m_tok.is(TokenKind::LBrace)) failHere("attribute dictionary");
    op.attributes = parseAttrDict();
    expect(TokenKind::Colon, "':'");
    const SourceLoc typeLoc = m_tok.loc;
    bindResultTypes(op, {parseImpliedType(ArtifactType::Kind::Weight)}, typeLoc);
    return;
  }
  case SchemaAssembly::Decompose: {
    op.operands.push_back(parseValueUse());
    if (m_tok.is(TokenKind::LBrace)) op.attributes = parseAttrDict();
    expect(TokenKind::Colon, "':'");
    op.operandTypes.push_back(parseImpliedType(ArtifactType::Kind::SparseTensor));
    expect(TokenKind::Arrow, "'->'");
    const SourceLoc typeLoc = m_tok.loc;
    if (!m_tok.is(TokenKind::LParen)) failHere("'('");
    std::vector<ArtifactType> types = parseTypeListParens();
    if (types.size() != 3)
      fail(typeLoc, "'" + op.name + "' needs exactly 3 result types, got " + std::to_string(types.size()));
    bindResultTypes(op, std::move(types), typeLoc);
    return;
  }
  case SchemaAssembly::Functional:
    break;
  }
  op.operands = parseOperandList();
  parseAttributesAndFunctionalType(op, "'(' to start the functional type");
}

void MlirParserImpl::parseForeignOpTail(ArtifactOp& op) {
  if (m_tok.is(TokenKind::AtIdent)) {
    op.symbolLoc = m_tok.loc;
    op.symbol = m_tok.string;
    op.hasSymbol = true;
    consume();
  }
  if (consumeIf(TokenKind::LParen)) {
    op.parenthesizedOperands = true;
    op.operands = parseOperandList();
    expect(TokenKind::RParen, "')'");
  } else {
    op.operands = parseOperandList();
  }
  parseAttributesAndFunctionalType(op, "'(' to start the functional type of '" + shortText(op.name) + "'");
}

void MlirParserImpl::parseAttributesAndFunctionalType(ArtifactOp& op, const std::string& expectedParen) {
  if (m_tok.is(TokenKind::LBrace)) op.attributes = parseAttrDict();
  expect(TokenKind::Colon, "':'");
  const SourceLoc typesLoc = m_tok.loc;
  if (!m_tok.is(TokenKind::LParen)) failHere(expectedParen);
  op.operandTypes = parseTypeListParens();
  expect(TokenKind::Arrow, "'->'");
  const SourceLoc resultLoc = m_tok.loc;
  std::vector<ArtifactType> results;
  if (m_tok.is(TokenKind::LParen))
    results = parseTypeListParens();
  else
    results.push_back(parseType());
  if (op.operands.size() != op.operandTypes.size())
    fail(typesLoc, std::to_string(op.operands.size()) + " operands present, but expected " +
                       std::to_string(op.operandTypes.size()));
  bindResultTypes(op, std::move(results), resultLoc);
}

} // namespace detail

namespace {

// The position of the first byte that is not part of a well-formed UTF-8 sequence, or npos.
std::size_t firstInvalidUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    std::size_t n = 0;
    unsigned int cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0)
      n = 1, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0)
      n = 2, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0)
      n = 3, cp = c & 0x07;
    else
      return i;
    for (std::size_t k = 1; k <= n; ++k) {
      if (i + k >= text.size()) return i;
      const unsigned char d = static_cast<unsigned char>(text[i + k]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3F);
    }
    const unsigned int minimum[] = {0, 0x80, 0x800, 0x10000};
    if (cp < minimum[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

SourceLoc locationOf(std::string_view text, std::size_t offset) {
  SourceLoc loc{1, 1};
  std::size_t lineStart = 0;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      lineStart = i + 1;
    }
  }
  loc.column = static_cast<std::uint32_t>(offset - lineStart + 1);
  return loc;
}

ArtifactParseResult failure(std::string file, SourceLoc loc, std::string message) {
  ArtifactParseResult r;
  r.error.file = std::move(file);
  r.error.loc = loc;
  r.error.message = std::move(message);
  return r;
}

} // namespace

ArtifactParseResult parseArtifactGraph(std::string_view text, std::string fileName,
                                       const ReaderLimits& limits) {
  if (text.size() > limits.maxBytes)
    return failure(std::move(fileName), {},
                   "file is larger than the reader limit (" + std::to_string(text.size()) + " > " +
                       std::to_string(limits.maxBytes) + " bytes)");
  const std::size_t bad = firstInvalidUtf8(text);
  if (bad != std::string_view::npos)
    return failure(std::move(fileName), locationOf(text, bad), "invalid UTF-8 byte sequence");
  try {
    detail::MlirParserImpl parser(text, limits);
    ArtifactParseResult result;
    result.graph = parser.parseFile();
    result.graph->fileName = std::move(fileName);
    return result;
  } catch (const detail::ParseFailure& f) {
    return failure(std::move(fileName), f.loc, f.message);
  } catch (const std::bad_alloc&) {
    return failure(std::move(fileName), {}, "out of memory while parsing");
  }
}

ArtifactParseResult readArtifactGraphFile(const std::string& path, std::string displayName,
                                          const ReaderLimits& limits) {
  if (displayName.empty()) displayName = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return failure(displayName, {},
                   errno == ENOENT ? "cannot read file: no such file" : "cannot read file: " + std::string(std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return failure(displayName, {}, "cannot read file: not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > limits.maxBytes)
    return failure(displayName, {},
                   "file is larger than the reader limit (" + std::to_string(st.st_size) + " > " +
                       std::to_string(limits.maxBytes) + " bytes)");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return failure(displayName, {}, "cannot read file: " + std::string(std::strerror(errno ? errno : EIO)));
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parseArtifactGraph(text, std::move(displayName), limits);
}

} // namespace lattice
