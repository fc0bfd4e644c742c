// libFuzzer target: the safetensors reader (core/tensor) on arbitrary bytes. It must reject
// malformed headers with a message and, when it accepts a file, hand out tensors whose views
// lie inside the buffer (every byte is read here, so ASan catches an out-of-bounds view) and
// whose byte size matches dtype and shape.

#include "tensor/Safetensors.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lattice;
  // A private copy sized exactly, so reads past the end are caught by ASan.
  auto* copy = new std::uint8_t[size ? size : 1];
  for (std::size_t i = 0; i < size; ++i)
    copy[i] = data[i];
  std::shared_ptr<const void> keepAlive(copy,
                                        [](const void* p) { delete[] static_cast<const std::uint8_t*>(p); });
  Expected<SafetensorsFile> file = SafetensorsFile::parse(copy, size, "fuzz.safetensors", keepAlive);
  if (!file) {
    if (file.message().empty()) std::abort();
    return 0;
  }
  unsigned checksum = 0;
  for (const NamedTensor& t : file->tensors()) {
    const TensorData& tensor = t.tensor;
    if (tensor.byteSize() != static_cast<std::size_t>(tensor.numel()) * dtypeSize(tensor.dtype())) {
      std::fprintf(stderr, "tensor '%s': %zu bytes for %lld elements\n", t.key.c_str(), tensor.byteSize(),
                   static_cast<long long>(tensor.numel()));
      std::abort();
    }
    for (std::size_t i = 0; i < tensor.byteSize(); ++i)
      checksum += tensor.data()[i];
    if (file->find(t.key) == nullptr) std::abort();
  }
  for (const auto& [key, value] : file->metadata())
    checksum += static_cast<unsigned>(key.size() + value.size());
  volatile unsigned sink = checksum;
  (void)sink;
  return 0;
}
