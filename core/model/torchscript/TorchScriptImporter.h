#pragma once
/// \file PyTorch's own files read through LibTorch: TorchScript archives (`torch.jit.save`) as a
/// Model, and the tensors of `torch.save`d state_dicts. No LibTorch type appears here, and the
/// programs do not link LibTorch: the first call loads the TorchScript plugin
/// (`lattice-torchscript.so`, TorchScriptPlugin.h) from `../lib/lattice-studio/` beside the
/// executable (or from the path in the environment variable LATTICE_TORCHSCRIPT_PLUGIN), and
/// LibTorch with it; when it cannot be loaded, both functions return an error saying why.
///
/// What a TorchScript archive cannot tell us, and how the imported model differs from what
/// `torch.fx.symbolic_trace` records for the same Python module (tests/unit/tst_torchscript.cpp
/// lists the same differences):
/// - `bases` is only `torch.nn.modules.module.Module`: TorchScript keeps no class hierarchy.
/// - Tensor methods become functions where torch has one (`y.mean()` → `torch.mean`); a few
///   method-only operations (`view`, `size`, `contiguous`, `to`, ...) stay `call_method`.
/// - `x * 2.0` (a tensor and a number) is `torch.mul`; only two tensors, or two numbers, give
///   `operator.mul` (likewise add and sub). `-x` is `torch.neg`.
/// - Arguments are positional as the schema orders them; trailing arguments equal to their
///   schema default are dropped (`torch.flatten(x, 1)`), keyword-only ones become kwargs.
/// - Scripted free functions (`F.relu`) are `call_function` with their qualified name.
/// - Attributes that are plain numbers (`self.scale`) and `self.training` are literals, as a
///   symbolic trace would see them.

#include "model/Model.h"
#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <string>
#include <vector>

namespace lattice {

/// Imports the TorchScript archive at `path` (`torch.jit.script(m).save(path)`) as a Model:
/// the module tree with types cleaned of `__torch__.` and `___torch_mangle_N`, attributes (the
/// instance's public attributes and the class constants that are numbers, bools, strings, None
/// or lists/tuples of those), parameters, buffers (the weights, keyed like the state_dict),
/// the training flag, the forward signature (names and defaults from the method schema), and
/// for every module that is not a library leaf (torch.fx's rule) and has a `forward`, a
/// one-level graph converted from the TorchScript graph. Errors are one line starting with
/// `path`; control flow, calls of methods other than forward and tensor constants are errors
/// naming the module, the method and the source line TorchScript recorded. Never throws.
/// The model has no example inputs (TorchScript records none); `source` is `path`.
Expected<Model> importTorchScript(const std::string& path);

/// The tensors of a PyTorch zip archive at `path`, keyed like a state_dict, in file order:
/// a `torch.save`d dict of tensors (a dict whose "state_dict" entry is such a dict is
/// unwrapped), or a TorchScript archive (its parameters and buffers). Tensors are moved to
/// CPU and made contiguous; they keep LibTorch's memory alive. Errors name the file (and the
/// key); the legacy non-zip `torch.save` format is refused with a hint. Never throws.
Expected<std::vector<NamedTensor>> readTorchTensors(const std::string& path);

/// True when the file at `path` starts with a zip local-file signature ("PK\3\4"), the
/// container of both `torch.save` (PyTorch ≥ 1.6) and `torch.jit.save`.
bool isZipFile(const std::string& path);

} // namespace lattice
