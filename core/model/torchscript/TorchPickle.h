#pragma once
/// \file Internal to the TorchScript importer: a restricted unpickler for the `data.pkl` of a
/// `torch.save` zip archive. LibTorch 1.13's own unpickler (torch::pickle_load) turns
/// `collections.OrderedDict`, which is what `state_dict()` returns, into None and treats BUILD as
/// REDUCE, so it cannot read an ordinary state_dict (pytorch/pytorch#100741, fixed only in
/// later releases). This one reads the pickle opcodes of protocols 2 to 5 that torch.save emits
/// and the few globals a state_dict uses; any other object is kept opaque. No LibTorch here: the
/// zip records come through a callback.

#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lattice {

/// The bytes of one storage record (`data/<key>` in the archive) and their owner.
struct TorchStorageBytes {
  const uint8_t* data = nullptr;
  std::size_t size = 0;
  std::shared_ptr<const void> keepAlive;
};

/// Loads a storage record by key; may throw.
using TorchStorageLoader = std::function<TorchStorageBytes(const std::string& key)>;

/// The tensors of a pickled dict of tensors, in pickle order; a dict whose "state_dict" entry
/// is a dict is unwrapped. Contiguous tensors are views of their storage; others are copied.
/// Errors start with `file` and name the key when one is involved.
Expected<std::vector<NamedTensor>>
unpickleTorchTensors(const std::string& pickle, const TorchStorageLoader& load, const std::string& file);

} // namespace lattice
