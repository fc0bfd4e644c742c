#pragma once
/// \file Printing an ArtifactGraph in the writer form (lattice-artifact-format.md sec. 3-6): a
/// graph parsed from a writer-form `graph.mlir` prints back to the same bytes. Free layouts print
/// canonically (one op per line, bare keywords, `%.12f`-trim f32 values, attributes in source
/// order). Multi-block bodies are printed flattened (the verifier rejects them anyway).

#include "mlir/ArtifactGraph.h"

#include <string>
#include <string_view>

namespace lattice {

/// Canonical type text, e.g. `!lattice.weight<conv3d, f32>`.
std::string printType(const ArtifactType& type);

/// Canonical attribute value text, e.g. `#lattice.pool_mode<avg>`, `0.00001 : f32`.
std::string printAttrValue(const ArtifactAttrValue& value);

/// `{name = value, ...}` in source order; "" for no entries.
std::string printAttrDict(const std::vector<ArtifactAttribute>& attributes);

/// One op in its assembly form (functional, weight, decompose, or the generic form of a foreign
/// op), without indentation or newline.
std::string printOp(const ArtifactOp& op);

/// The whole module, ending in a single `\n`.
std::string printArtifactGraph(const ArtifactGraph& graph);

/// A string literal: `"` + text + `"` with `\` and `"` escaped, and control bytes as `\XX`.
std::string quoteMlirString(std::string_view text);

/// `text` bare when it is an MLIR bare identifier, otherwise as a quoted string.
std::string printKeyword(std::string_view text);

} // namespace lattice
