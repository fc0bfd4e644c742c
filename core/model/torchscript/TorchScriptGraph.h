#pragma once
/// \file Internal to the TorchScript importer: what TorchScriptImporter.cpp (module tree,
/// entry points) and TorchScriptGraph.cpp (forward graphs) share. LibTorch types are only
/// forward-declared; the public API is TorchScriptImporter.h.

#include "fx/Graph.h"
#include "model/Model.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace c10 {
struct IValue;
struct FunctionSchema;
} // namespace c10

namespace torch::jit {
struct Module;
struct Method;
} // namespace torch::jit

namespace lattice {

/// "__torch__.torch.nn.modules.linear.___torch_mangle_2.Linear" → "torch.nn.modules.linear.Linear".
std::string cleanTorchScriptTypeName(const std::string& qualified);

/// None, bool, int, float, str, device and lists/tuples of those; nullopt for anything else.
std::optional<fx::Value> torchScriptLiteral(const c10::IValue& value);

/// A method's parameters after `self`, with defaults that are literals.
std::vector<SignatureParam> torchScriptSignature(const c10::FunctionSchema& schema);

/// The one-level graph of `module`'s forward (`path` and `type` for messages, `file` starts
/// them). Throws lattice::Exception for what cannot be converted; LibTorch may throw too.
std::shared_ptr<fx::Graph> convertTorchScriptForward(const torch::jit::Module& module,
                                                     const torch::jit::Method& forward,
                                                     const std::string& path, const std::string& type,
                                                     const std::string& file);

} // namespace lattice
