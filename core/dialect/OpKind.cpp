// OpKind: the name and family tables expanded from LATTICE_DIALECT_OPS, and the lookup of a
// name. It knows nothing of operands or attributes; those are the schema table's.

#include "dialect/OpKind.h"

#include <array>

namespace lattice {
namespace {

constexpr std::array<std::string_view, kOpKindCount> kNames = {
#define LATTICE_OP_NAME(e, name, family) name,
    LATTICE_DIALECT_OPS(LATTICE_OP_NAME)
#undef LATTICE_OP_NAME
};

constexpr std::array<OpFamily, kOpKindCount> kFamilies = {
#define LATTICE_OP_FAMILY(e, name, family) OpFamily::family,
    LATTICE_DIALECT_OPS(LATTICE_OP_FAMILY)
#undef LATTICE_OP_FAMILY
};

} // namespace

OpKind opKindFromName(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<OpKind>(i);
  }
  return OpKind::None;
}

std::string_view opName(OpKind kind) {
  const auto i = static_cast<std::size_t>(kind);
  return i < kNames.size() ? kNames[i] : std::string_view();
}

OpFamily opFamily(OpKind kind) {
  return kFamilies[static_cast<std::size_t>(kind)];
}

} // namespace lattice
