#pragma once
/// \file Source locations and diagnostics of the artifact reader and verifier, rendered the MLIR
/// way: `file:line:col: error: message`.

#include <cstdint>
#include <string>
#include <vector>

namespace lattice {

/// A 1-based line and column (in bytes) in a text file. Line 0 means "no position" (a
/// diagnostic about a whole file, such as weights.safetensors).
struct SourceLoc {
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  bool valid() const { return line != 0; }
  bool operator==(const SourceLoc& o) const { return line == o.line && column == o.column; }
  bool operator!=(const SourceLoc& o) const { return !(*this == o); }
};

/// Severity of a diagnostic. Notes attach secondary locations to the error before them.
enum class Severity { Error, Note };

/// One diagnostic: file, position, severity and a one-line message (lower-case start, no
/// trailing period, names quoted with single quotes).
struct Diagnostic {
  std::string file;
  SourceLoc loc;
  Severity severity = Severity::Error;
  std::string message;

  /// `file:line:col: error: message`, or `file: error: message` without a position.
  std::string str() const;
};

/// Every diagnostic rendered with str(), one per line (each ending in `\n`).
std::string renderDiagnostics(const std::vector<Diagnostic>& diagnostics);

/// True when at least one diagnostic is an error.
bool hasErrors(const std::vector<Diagnostic>& diagnostics);

} // namespace lattice
