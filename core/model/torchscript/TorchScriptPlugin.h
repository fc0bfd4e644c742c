#pragma once
/// \file Internal: the interface between lattice_model and the TorchScript plugin
/// (`lattice-torchscript.so`), the one binary of the project that links LibTorch. The programs
/// load it with dlopen the first time they read a PyTorch archive (TorchScriptLoader.cpp), so a
/// run that reads none never maps LibTorch. The plugin holds TorchScriptImporter.cpp and
/// TorchScriptGraph.cpp, and its own copies of the core code they use (every symbol but the
/// entry point hidden). It is built from the same sources with the same compiler as the
/// programs, so the C++ types below cross the boundary as they are; the ABI tag refuses a
/// plugin from another build. Never unloaded: the tensors it returns keep LibTorch memory alive.

#include "model/Model.h"
#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <string>
#include <vector>

namespace lattice {

/// What the plugin implements (TorchScriptImporter.h documents both).
struct TorchScriptPlugin {
  Expected<Model> (*importTorchScript)(const std::string& path);
  Expected<std::vector<NamedTensor>> (*readTorchTensors)(const std::string& path);
};

/// The plugin's one exported symbol, `extern "C"`: the functions when `abi` equals the plugin's
/// own torchScriptPluginAbi(), else null.
constexpr const char* kTorchScriptPluginEntry = "lattice_torchscript_plugin";
using TorchScriptPluginEntry = const TorchScriptPlugin* (*)(const char* abi);

/// What must agree between the plugin and the program that loads it: the compiler, the
/// sanitizers and the layouts of the types that cross.
inline std::string torchScriptPluginAbi() {
  std::string tag = "lattice-torchscript 1, " __VERSION__;
#if defined(__SANITIZE_ADDRESS__)
  tag += ", asan";
#endif
#if defined(_GLIBCXX_DEBUG)
  tag += ", glibcxx-debug";
#endif
  for (std::size_t size : {sizeof(Model), sizeof(ModuleInfo), sizeof(SignatureParam), sizeof(fx::Value),
                           sizeof(fx::Graph), sizeof(fx::Node), sizeof(TensorData), sizeof(NamedTensor),
                           sizeof(Error), sizeof(Expected<Model>)})
    tag += " " + std::to_string(size);
  return tag;
}

} // namespace lattice
