#pragma once
/// \file Tracing a Model into one flat fx::Graph (fx-archive.md "Tracing an archive"): leaf
/// modules stay `call_module` nodes, others are inlined from their one-level graphs.

#include "fx/Graph.h"
#include "model/Model.h"
#include "support/Expected.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace lattice {

class Tracer {
public:
  virtual ~Tracer();

  /// Policy hook. Default: torch.fx's rule (type starts with `torch.nn` or `torch.ao.nn` and
  /// neither type nor bases is torch.nn.modules.container.Sequential).
  virtual bool isLeafModule(const ModuleInfo& module, const std::string& qualifiedName) const;

  /// Per-path overrides, consulted before isLeafModule (the studio's expand/collapse).
  void setLeafOverride(const std::string& path, bool leaf) { m_overrides[path] = leaf; }
  void clearLeafOverride(const std::string& path) { m_overrides.erase(path); }
  const std::map<std::string, bool>& leafOverrides() const { return m_overrides; }
  /// Effective decision: override if any, else isLeafModule. The root is never a leaf.
  bool isLeaf(const ModuleInfo& module) const;

  /// Traces the root. Errors name the module path: a non-leaf module without a graph, a call to
  /// a missing module, recursion, wrong arity. Runs in time linear in the emitted graph.
  /// `operator.getitem` with a constant index on a literal list/tuple/dict (the output of an
  /// inlined module) is folded away, as a one-pass torch.fx trace indexes the Python container.
  Expected<std::unique_ptr<fx::Graph>> trace(const Model& model) const;

private:
  std::map<std::string, bool> m_overrides;
};

/// Qualified types with a lattice module lowering, in registry order (lowering.md §1.1).
const std::vector<std::string>& latticeSupportedModuleTypes();
/// True when `module`'s type or any base is a supported type.
bool hasLatticeLowering(const ModuleInfo& module);

/// The lattice tracer's default policy (fx-archive.md last paragraph): supported lattice module
/// types (or subclasses) are leaves, then torch.fx's rule.
class LatticeTracer : public Tracer {
public:
  bool isLeafModule(const ModuleInfo& module, const std::string& qualifiedName) const override;
};

} // namespace lattice
