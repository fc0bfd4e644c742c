#pragma once
// What every fuzzed run of the CPU runtime must keep, shared by the runtime's fuzz targets: a
// failure has a message (an op's names its graph.mlir location and %name), a failed run is not
// finished, and a finished run hands out outputs whose sizes match their shapes (every byte is
// read, so ASan sees an output that lies about its size). A broken property aborts.

#include "runtime/Runtime.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace lattice::fuzz {

[[noreturn]] inline void failWith(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

/// Starts `rt` on `inputs` and runs it to the end, checking the properties above.
inline void runAndCheck(runtime::Runtime& rt, const runtime::RuntimeInputs& inputs,
                        const runtime::RuntimeOptions& options = {}) {
  if (Status s = rt.start(inputs, options); !s) {
    if (s.message().empty()) failWith("start failed without a message", "");
    return;
  }
  if (Status s = rt.run(); !s) {
    // An op's error reads `graph.mlir:L:C: error: 'lattice.X' op %name: ...`.
    if (s.message().rfind("graph.mlir:", 0) != 0 || s.message().find("' op %") == std::string::npos)
      failWith("an op failed without its location", s.message());
    if (rt.finished()) failWith("a failed run is finished", s.message());
    return;
  }
  Expected<std::vector<NamedTensor>> outputs = rt.outputs();
  if (!outputs) failWith("a finished run has no outputs", outputs.message());
  unsigned checksum = 0;
  for (const NamedTensor& t : *outputs) {
    if (t.tensor.byteSize() != static_cast<std::size_t>(t.tensor.numel()) * dtypeSize(t.tensor.dtype()))
      failWith("an output's size does not match its shape", t.key);
    for (std::size_t i = 0; i < t.tensor.byteSize(); ++i)
      checksum += t.tensor.data()[i];
  }
  volatile unsigned sink = checksum;
  (void)sink;
}

} // namespace lattice::fuzz
