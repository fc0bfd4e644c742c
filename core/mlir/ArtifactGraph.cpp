// Small accessors of the parsed artifact graph (the data itself is in ArtifactGraph.h).

#include "mlir/ArtifactGraph.h"

namespace lattice {

const ArtifactAttribute* findAttribute(const std::vector<ArtifactAttribute>& attributes,
                                       std::string_view name) {
  for (const ArtifactAttribute& a : attributes)
    if (a.name == name) return &a;
  return nullptr;
}

std::string_view ArtifactOp::shortName() const {
  std::string_view n = name;
  constexpr std::string_view prefix = "lattice.";
  if (schema && n.substr(0, prefix.size()) == prefix) n.remove_prefix(prefix.size());
  return n;
}

} // namespace lattice
