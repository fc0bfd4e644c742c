// Fuzz target: a whole artifact through the artifact reader, the verifier and the CPU runtime
// together, as `lattice-cli run --random-inputs` takes it. The bytes are an artifact in one
// buffer: graph.mlir, then the separator line below, then weights.safetensors (the seeds are the
// conformance artifacts, joined so by fuzz/CMakeLists.txt). The graph
// is parsed and verified against the weights (Runtime::fromGraph); a valid artifact gets inputs
// made from its ABI (a few points, the seed taken from the bytes) and runs, in the default or the
// exact numerics. Whatever the bytes, every step either succeeds or fails with a message (an
// op's failure names its graph.mlir location), and a finished run's outputs have sizes that
// match their shapes; never a crash or a hang.

#include "FuzzRunChecks.h"

#include "mlir/MlirParser.h"
#include "runtime/RandomInputs.h"
#include "runtime/Runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace lattice;

constexpr std::string_view kSeparator = "\n// lattice-fuzz: weights.safetensors\n";

std::uint64_t hashBytes(const std::uint8_t* data, std::size_t size) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < size; ++i)
    h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lattice;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = all.find(kSeparator);
  const std::string_view text = all.substr(0, cut);

  ReaderLimits limits;
  limits.maxBytes = std::size_t(1) << 20;
  ArtifactParseResult parsed = parseArtifactGraph(text, "graph.mlir", limits);
  if (!parsed.ok()) {
    if (parsed.error.message.empty()) fuzz::failWith("parse error without a message", "");
    return 0;
  }

  // The weights in a private buffer sized exactly, so reads past the end are caught by ASan.
  std::vector<NamedTensor> none;
  runtime::WeightSource weights = runtime::WeightSource::fromTensors(none);
  if (cut != std::string_view::npos) {
    const std::size_t begin = cut + kSeparator.size();
    const std::size_t n = size - begin;
    auto* copy = new std::uint8_t[n ? n : 1];
    std::memcpy(copy, data + begin, n);
    std::shared_ptr<const void> keepAlive(copy, [](const void* p) { delete[] static_cast<const std::uint8_t*>(p); });
    Expected<SafetensorsFile> file = SafetensorsFile::parse(copy, n, "weights.safetensors", keepAlive);
    if (!file) {
      if (file.message().empty()) fuzz::failWith("weights error without a message", "");
      return 0;
    }
    weights = runtime::WeightSource::fromFile(std::make_shared<const SafetensorsFile>(std::move(*file)));
  }

  Expected<runtime::Runtime> rt = runtime::Runtime::fromGraph(std::move(*parsed.graph), std::move(weights));
  if (!rt) {
    if (rt.message().empty()) fuzz::failWith("an invalid artifact without a message", "");
    return 0;
  }

  const std::uint64_t h = hashBytes(data, size);
  runtime::RandomInputOptions options;
  options.points = 1 + static_cast<std::int64_t>(h % 48);
  options.seed = h >> 8;
  options.batchSize = 1 + static_cast<std::int64_t>((h >> 16) % 2);
  Expected<std::vector<NamedTensor>> made = runtime::randomInputs(rt->plan(), options);
  if (!made) {
    if (made.message().empty()) fuzz::failWith("inputs refused without a message", "");
    return 0;
  }
  runtime::RuntimeInputs inputs;
  inputs.named = std::move(*made);
  runtime::RuntimeOptions runOptions;
  runOptions.numerics = (h >> 24) % 4 == 0 ? runtime::Numerics::Exact : runtime::Numerics::Default;
  fuzz::runAndCheck(*rt, inputs, runOptions);
  return 0;
}
