#pragma once
/// \file The artifact reader: parses `graph.mlir` text (the writer's one-line form and free
/// hand-written layouts: any whitespace and line breaks between tokens, `//` comments, quoted
/// keywords, attributes in any order) into an ArtifactGraph (lattice-artifact-format.md sec.
/// 10). It also reads what MLIR tools print back: result groups (`%0:3`, `%0#1`) and the lattice
/// types without `!lattice.` where the op implies them (`lattice.weight`'s result,
/// `lattice.sparse.decompose`'s operand). Parse errors (class P of lattice-artifact-validation.md sec. 3) stop at the first one,
/// like MLIR; everything else (ODS, op and module rules) is left to the verifier.
///
/// Robustness: input size and nesting depth are bounded (ReaderLimits); memory is linear in the
/// input; every loop consumes a token, so malformed input ends in one diagnostic, never a crash
/// or hang.

#include "dialect/ArtifactFiles.h"
#include "mlir/ArtifactGraph.h"
#include "mlir/Diagnostic.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace lattice {

/// Bounds on what the reader accepts.
struct ReaderLimits {
  /// Largest text accepted (bytes): what a save may write.
  std::size_t maxBytes = kMaxArtifactGraphBytes;
  /// Deepest nesting of types and attribute values (arrays in arrays, dtype parameters).
  unsigned maxNesting = 32;
};

/// The graph, or the first parse error (`file:line:col: error: message` via error.str()).
struct ArtifactParseResult {
  std::optional<ArtifactGraph> graph;
  Diagnostic error;

  bool ok() const { return graph.has_value(); }
};

/// Parses `text`; `fileName` names the file in diagnostics (and becomes graph->fileName).
/// Errors include: invalid UTF-8, "custom op 'lattice.quantized_conv3d' is unknown",
/// "expected 'rank'", "unknown lattice attribute 'foo'", "3 operands present, but expected 2",
/// "'lattice.sparse.decompose' needs exactly 3 result types", "duplicate key 'eps' in dictionary
/// attribute", "unexpected decimal integer literal for a floating point value".
ArtifactParseResult parseArtifactGraph(std::string_view text, std::string fileName,
                                       const ReaderLimits& limits = {});

/// Reads `path` (refusing files over limits.maxBytes) and parses it. `displayName` names the file
/// in diagnostics; empty means `path`.
ArtifactParseResult readArtifactGraphFile(const std::string& path, std::string displayName = {},
                                          const ReaderLimits& limits = {});

} // namespace lattice
