// libFuzzer target: the .ltfx reader's model.json decoding (core/model/ArchiveReader.cpp) on
// arbitrary bytes, without weights. It must reject malformed documents with a one-line
// message (never throw, overflow the stack on deep nesting, or abort on a number out of range)
// and, when it accepts one, hand out a module tree whose records can be walked.

#include "model/Archive.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lattice;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Expected<Model> model = parseArchiveJson(text, "fuzz.ltfx/model.json");
  if (!model) {
    const std::string& m = model.message();
    if (m.empty() || m.find('\n') != std::string::npos) {
      std::fprintf(stderr, "bad error message: '%s'\n", m.c_str());
      std::abort();
    }
    return 0;
  }
  std::size_t count = 0;
  for (const ModuleInfo& m : model->modules()) {
    count += m.path.size() + m.type.size() + m.children.size() + m.attributes.size();
    if (m.graph) count += m.graph->size();
  }
  volatile std::size_t sink = count;
  (void)sink;
  return 0;
}
