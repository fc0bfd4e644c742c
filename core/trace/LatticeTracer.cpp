// The lattice tracer's leaf policy (fx-archive.md, last paragraph; lowering.md §1.1): the
// module-lowering registry's keys, in registry order, and the isinstance-style check against a
// module's type and bases. The lowerings themselves live in core/lowering; this file only knows
// which types have one.

#include "trace/Tracer.h"

#include <absl/container/flat_hash_set.h>


namespace lattice {

const std::vector<std::string>& latticeSupportedModuleTypes() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> t = {
        "torch_lattice.nn.modules.conv.Conv3d",
        "torch_lattice.nn.modules.conv.SubmConv3d",
        "torch_lattice.nn.modules.conv.NormalizedSubmConv3d",
        "torch_lattice.nn.modules.conv.ConvTranspose3d",
        "torch_lattice.nn.modules.conv.NormalizedConvTranspose3d",
        "torch_lattice.nn.modules.conv.GenerativeConvTranspose3d",
        "torch_lattice.nn.modules.conv.NormalizedGenerativeConvTranspose3d",
        "torch_lattice.nn.modules.pooling.Pool3d",
        "torch_lattice.nn.modules.pooling.PoolTranspose3d",
        "torch_lattice.nn.modules.pooling.TrilinearUpsample3d",
        "torch_lattice.nn.modules.norm.BatchNorm",
        "torch_lattice.nn.modules.norm.LayerNorm",
        "torch.nn.modules.normalization.LayerNorm",
        "torch_lattice.nn.modules.norm.RMSNorm",
        "torch.nn.modules.normalization.RMSNorm",
    };
    // Rows 16–29: each torch_lattice activation followed by its torch base.
    for (const char* name : {"ReLU", "LeakyReLU", "SiLU", "GELU", "Sigmoid", "Tanh", "Softplus"}) {
      t.push_back(std::string("torch_lattice.nn.modules.activation.") + name);
      t.push_back(std::string("torch.nn.modules.activation.") + name);
    }
    t.insert(t.end(), {
                          "torch_lattice.nn.modules.pooling.GlobalAvgPool",
                          "torch_lattice.nn.modules.pooling.GlobalMaxPool",
                          "torch_lattice.nn.modules.pooling.GlobalSumPool",
                          "torch.nn.modules.linear.Linear",
                          "torch.nn.modules.dropout.Dropout",
                          "torch.nn.modules.flatten.Flatten",
                          "torch.nn.modules.linear.Identity",
                          "torch_lattice.nn.modules.norm.InstanceNorm",
                          "torch_lattice.nn.modules.norm.GroupNorm",
                          "torch_lattice.nn.modules.crop.SparseCrop",
                      });
    return t;
  }();
  return types;
}

bool hasLatticeLowering(const ModuleInfo& module) {
  static const absl::flat_hash_set<std::string> supported(latticeSupportedModuleTypes().begin(),
                                                         latticeSupportedModuleTypes().end());
  if (supported.count(module.type) != 0) return true;
  for (const std::string& base : module.bases)
    if (supported.count(base) != 0) return true;
  return false;
}

bool LatticeTracer::isLeafModule(const ModuleInfo& module, const std::string& qualifiedName) const {
  return hasLatticeLowering(module) || Tracer::isLeafModule(module, qualifiedName);
}

} // namespace lattice
