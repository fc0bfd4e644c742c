// The §5.6 sanitisers. Byte-oriented: a multi-byte UTF-8 character
// is a run of non-ASCII bytes and therefore collapses to a single `_`, as the reference's regex
// does with one non-ASCII code point.

#include "artifact/Names.h"

namespace lattice {
namespace {

bool isAlnumOrUnderscore(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

// Replaces every run of bytes not accepted by `keep` with one `_`.
template <typename Keep> std::string collapseRuns(std::string_view text, Keep keep) {
  std::string out;
  out.reserve(text.size());
  bool inRun = false;
  for (char c : text) {
    if (keep(c)) {
      out.push_back(c);
      inRun = false;
    } else if (!inRun) {
      out.push_back('_');
      inRun = true;
    }
  }
  return out;
}

std::string strip(const std::string& text, std::string_view chars) {
  const std::size_t begin = text.find_first_not_of(chars);
  if (begin == std::string::npos) return {};
  const std::size_t end = text.find_last_not_of(chars);
  return text.substr(begin, end - begin + 1);
}

} // namespace

std::string safeValueName(std::string_view name) {
  std::string out = strip(collapseRuns(name, isAlnumOrUnderscore), "_");
  if (out.empty()) return "value";
  if (out.front() >= '0' && out.front() <= '9') out.insert(0, "v_");
  return out;
}

std::string safeKey(std::string_view name) {
  std::string out =
      strip(collapseRuns(name, [](char c) { return isAlnumOrUnderscore(c) || c == '.'; }), "._");
  return out.empty() ? std::string("layer") : out;
}

std::string weightStorageKey(std::string_view moduleName, std::string_view parameter) {
  return safeKey(moduleName) + "." + std::string(parameter);
}

} // namespace lattice
