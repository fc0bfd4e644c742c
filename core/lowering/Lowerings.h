#pragma once
/// \file The lowerings as the builder sees them: the module registry (lowering.md sec. 1.1) and
/// sec. 3.1 dispatch, the function dispatch (sec. 4), and the one Python coercion the builder's
/// option checks share. The lowerings themselves and what they share are in LoweringSupport.h
/// (private to core/lowering); this header does not include the builder, so the builder can
/// include it without a cycle.

#include "fx/Value.h"
#include "lowering/ArtifactValue.h"
#include "model/Model.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lattice {
class TorchLatticeArtifactBuilder;
}

namespace lattice::lowering {

struct ModuleCall; // LoweringSupport.h

/// `_triple(v)`: int → (v, v, v); list/tuple of 3 → int() of each; else
/// "expected an int or length-3 tuple, got <repr>."
std::array<int64_t, 3> intTriple(const fx::Value& v);

using ModuleLoweringFn = ArtifactValuePtr (*)(ModuleCall&);

/// One registry row: qualified type, accepted input counts (ascending), lowering.
struct ModuleLowering {
  std::string type;
  std::vector<std::size_t> arities;
  ModuleLoweringFn fn;
};

/// The registry in §1.1 order.
const std::vector<ModuleLowering>& moduleLoweringRegistry();
/// The first row matching `module.type`, then `module.bases`; nullptr when none.
const ModuleLowering* findModuleLowering(const ModuleInfo& module);
/// §3.1 dispatch (lookup, arity check, lowering). Throws.
ArtifactValuePtr lowerModuleCall(TorchLatticeArtifactBuilder& b, const std::string& name,
                                 const ModuleInfo& module, const Model& model,
                                 std::vector<ArtifactValuePtr> inputs);

/// The canonical name `target` stands for ("" when unknown): itself, or the canonical name of an
/// accepted alias spelling.
std::string canonicalFunctionName(const std::string& target);
/// Canonical names in §1.2(a) order.
const std::vector<std::string>& functionLoweringNameList();
/// §4 dispatch; "unsupported FX function for lattice artifact: <target>" for unknown targets.
/// Throws.
ArtifactValuePtr lowerFunctionCall(TorchLatticeArtifactBuilder& b, const std::string& target,
                                   const fx::ValueList& args, const fx::Kwargs& kwargs);

} // namespace lattice::lowering
