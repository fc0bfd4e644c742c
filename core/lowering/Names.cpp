// The §5.6 sanitisers. Byte-oriented: a multi-byte UTF-8 character
// is a run of non-ASCII bytes and therefore collapses to a single `_`, as the reference's regex
// does with one non-ASCII code point.

#include "lowering/Names.h"

namespace lattice {
namespace {

/// Which bytes a sanitiser keeps: `[0-9A-Za-z_]`, plus `.` for keys.
struct KeptBytes {
  bool keep[256] = {};
  constexpr explicit KeptBytes(bool dot) {
    for (int c = 0; c < 256; ++c)
      keep[c] = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
                (dot && c == '.');
  }
  bool operator()(char c) const { return keep[static_cast<unsigned char>(c)]; }
};
constexpr KeptBytes kValueBytes(false);
constexpr KeptBytes kKeyBytes(true);

// Replaces every run of bytes not accepted by `keep` with one `_`, then strips `chars` from both
// ends (Python's re.sub(...).strip(chars)), into `out` (its capacity is reused). One pass.
void collapseAndStrip(std::string& out, std::string_view text, const KeptBytes& keep, std::string_view chars) {
  out.resize(text.size());
  char* const begin = out.data();
  char* w = begin;
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
  const std::string_view collapsed(begin, static_cast<std::size_t>(w - begin));
  const std::size_t first = collapsed.find_first_not_of(chars);
  if (first == std::string_view::npos) {
    out.clear();
    return;
  }
  const std::size_t end = collapsed.find_last_not_of(chars) + 1;
  out.resize(end);
  if (first > 0) out.erase(0, first);
}

} // namespace

std::string safeValueName(std::string_view name) {
  std::string out;
  collapseAndStrip(out, name, kValueBytes, "_");
  if (out.empty()) out = "value";
  else if (out.front() >= '0' && out.front() <= '9') out.insert(0, "v_");
  return out;
}

std::string safeKey(std::string_view name) {
  std::string out;
  collapseAndStrip(out, name, kKeyBytes, "._");
  return out.empty() ? std::string("layer") : out;
}

std::string weightStorageKey(std::string_view moduleName, std::string_view parameter) {
  std::string key;
  key.reserve(moduleName.size() + 1 + parameter.size());
  collapseAndStrip(key, moduleName, kKeyBytes, "._");
  if (key.empty()) key = "layer";
  key += '.';
  key += parameter;
  return key;
}

} // namespace lattice
