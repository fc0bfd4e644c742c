#include "InputSpecParser.h"

#include <sstream>
#include <vector>

namespace lattice::cli {

namespace {

std::vector<std::string> split(const std::string& text, char sep, std::size_t maxParts) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (parts.size() + 1 < maxParts) {
    std::size_t at = text.find(sep, start);
    if (at == std::string::npos) break;
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

bool toInt(const std::string& s, int64_t& out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 12) return false;
  out = std::stoll(s);
  return true;
}

} // namespace

Expected<InputSpec> parseInputSpec(const std::string& text) {
  const std::string where = "--input '" + text + "': ";
  std::vector<std::string> head = split(text, ':', 3);
  if (head.size() < 3 || head[0].empty())
    return makeError(where + "expected NAME:sparse:DTYPE:CHANNELS[:SX,SY,SZ] or NAME:dense:TENSOR_TYPE");
  InputSpec spec;
  spec.name = head[0];
  if (head[1] == "dense") {
    spec.kind = InputSpec::Kind::Dense;
    spec.type = head[2];
    if (spec.type.rfind("tensor<", 0) != 0 || spec.type.back() != '>')
      return makeError(where + "expected an MLIR tensor type such as tensor<?x3xf32>");
    return spec;
  }
  if (head[1] != "sparse") return makeError(where + "kind must be 'sparse' or 'dense', not '" + head[1] + "'");
  spec.kind = InputSpec::Kind::Sparse;
  std::vector<std::string> rest = split(head[2], ':', 3);
  if (rest.size() < 2) return makeError(where + "expected DTYPE:CHANNELS after 'sparse'");
  if (rest[0] != "f32" && rest[0] != "f16") return makeError(where + "dtype must be f32 or f16, not '" + rest[0] + "'");
  spec.dtype = rest[0];
  if (rest[1] != "?") {
    int64_t channels = 0;
    if (!toInt(rest[1], channels)) return makeError(where + "channels must be a non-negative integer or '?'");
    spec.channels = channels;
  }
  if (rest.size() == 3) {
    std::vector<std::string> s = split(rest[2], ',', 4);
    if (s.size() != 3) return makeError(where + "stride must be SX,SY,SZ");
    for (int i = 0; i < 3; ++i)
      if (!toInt(s[i], spec.stride[i]) || spec.stride[i] <= 0)
        return makeError(where + "stride must be three positive integers");
  }
  return spec;
}

} // namespace lattice::cli
