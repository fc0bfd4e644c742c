// libFuzzer target: the artifact reader and verifier on arbitrary bytes. Beyond "no crash, no
// hang, no unbounded allocation" (the sanitizers and libFuzzer's limits watch those) it checks
// two properties and aborts when they fail: a parse error has a message, and the printer's
// output of any parsed graph parses again and prints to the same text (a fixed point).

#include "mlir/ArtifactPrinter.h"
#include "mlir/MlirParser.h"
#include "verify/ArtifactVerifier.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lattice;
  ReaderLimits limits;
  limits.maxBytes = std::size_t(1) << 20;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ArtifactParseResult parsed = parseArtifactGraph(text, "fuzz.mlir", limits);
  if (!parsed.ok()) {
    if (parsed.error.message.empty()) {
      std::fprintf(stderr, "parse error without a message\n");
      std::abort();
    }
    return 0;
  }
  const std::vector<Diagnostic> diagnostics = verifyArtifactGraph(*parsed.graph);
  for (const Diagnostic& d : diagnostics)
    if (d.message.empty()) std::abort();
  const std::string printed = printArtifactGraph(*parsed.graph);
  ArtifactParseResult again = parseArtifactGraph(printed, "printed.mlir", limits);
  if (!again.ok()) {
    std::fprintf(stderr, "printed graph does not parse: %s\n--- printed ---\n%s\n", again.error.str().c_str(),
                 printed.c_str());
    std::abort();
  }
  const std::string reprinted = printArtifactGraph(*again.graph);
  if (reprinted != printed) {
    std::fprintf(stderr, "printing is not a fixed point\n--- first ---\n%s\n--- second ---\n%s\n",
                 printed.c_str(), reprinted.c_str());
    std::abort();
  }
  return 0;
}
