// The §5.6 sanitisers. Byte-oriented: a multi-byte UTF-8 character
// is a run of non-ASCII bytes and therefore collapses to a single `_`, as the reference's regex
// does with one non-ASCII code point.

#include "artifact/Names.h"

namespace lattice {
namespace {

bool isAlnumOrUnderscore(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

// Replaces every run of bytes not accepted by `keep` with one `_`, then strips `chars` from both
// ends (Python's re.sub(...).strip(chars)). One pass into one buffer.
template <typename Keep> std::string collapseAndStrip(std::string_view text, Keep keep, std::string_view chars) {
  std::string out(text.size(), '\0');
  char* w = out.data();
  bool inRun = false;
  for (char c : text) {
    if (keep(c)) {
      *w++ = c;
      inRun = false;
    } else if (!inRun) {
      *w++ = '_';
      inRun = true;
    }
  }
  const std::string_view collapsed(out.data(), static_cast<std::size_t>(w - out.data()));
  const std::size_t begin = collapsed.find_first_not_of(chars);
  if (begin == std::string_view::npos) return {};
  const std::size_t end = collapsed.find_last_not_of(chars) + 1;
  out.resize(end);
  out.erase(0, begin);
  return out;
}

} // namespace

std::string safeValueName(std::string_view name) {
  std::string out = collapseAndStrip(name, isAlnumOrUnderscore, "_");
  if (out.empty()) return "value";
  if (out.front() >= '0' && out.front() <= '9') out.insert(0, "v_");
  return out;
}

std::string safeKey(std::string_view name) {
  std::string out =
      collapseAndStrip(name, [](char c) { return isAlnumOrUnderscore(c) || c == '.'; }, "._");
  return out.empty() ? std::string("layer") : out;
}

std::string weightStorageKey(std::string_view moduleName, std::string_view parameter) {
  std::string key = safeKey(moduleName);
  key.reserve(key.size() + 1 + parameter.size());
  key += '.';
  key += parameter;
  return key;
}

} // namespace lattice
