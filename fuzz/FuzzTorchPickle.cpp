// libFuzzer target: the torch.save pickle reader (core/model/TorchPickle.cpp) on arbitrary
// bytes, as the data.pkl of a checkpoint. Every storage record it asks for is a private buffer
// of kStorageBytes, so ASan catches a tensor view or copy that reads outside it. It must reject
// bad pickles with a message (no crash, no unbounded recursion or allocation, no leak of
// self-referential objects) and, when it accepts one, hand out tensors whose bytes match
// dtype × shape and can all be read.

#include "model/torchscript/TorchPickle.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

constexpr std::size_t kStorageBytes = 256;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lattice;
  const std::string pickle(reinterpret_cast<const char*>(data), size);
  auto load = [](const std::string& key) {
    auto* bytes = new std::uint8_t[kStorageBytes];
    for (std::size_t i = 0; i < kStorageBytes; ++i) bytes[i] = static_cast<std::uint8_t>(i + key.size());
    std::shared_ptr<const void> owner(bytes, [](const void* p) { delete[] static_cast<const std::uint8_t*>(p); });
    return TorchStorageBytes{bytes, kStorageBytes, owner};
  };
  Expected<std::vector<NamedTensor>> tensors = unpickleTorchTensors(pickle, load, "fuzz.pt");
  if (!tensors) {
    if (tensors.message().empty()) std::abort();
    return 0;
  }
  unsigned checksum = 0;
  for (const NamedTensor& t : *tensors) {
    const TensorData& tensor = t.tensor;
    if (tensor.byteSize() != static_cast<std::size_t>(tensor.numel()) * dtypeSize(tensor.dtype())) {
      std::fprintf(stderr, "tensor '%s': %zu bytes for %lld elements\n", t.key.c_str(), tensor.byteSize(),
                   static_cast<long long>(tensor.numel()));
      std::abort();
    }
    for (std::size_t i = 0; i < tensor.byteSize(); ++i) checksum += tensor.data()[i];
  }
  volatile unsigned sink = checksum;
  (void)sink;
  return 0;
}
