// Type texts of the writer form (format spec sec. 4). No parsing: the reader owns that.

#include "artifact/MlirTypes.h"

#include <charconv>

namespace lattice {
namespace {

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

} // namespace

std::string sparseTensorType(std::string_view dtype) {
  constexpr std::string_view prefix =
      "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = ";
  std::string out;
  out.reserve(prefix.size() + dtype.size() + 1);
  out += prefix;
  out += dtype;
  out += '>';
  return out;
}

std::string weightType(std::string_view family, std::string_view dtype) {
  constexpr std::string_view prefix = "!lattice.weight<";
  std::string out;
  out.reserve(prefix.size() + family.size() + dtype.size() + 3);
  out += prefix;
  out += family;
  out += ", ";
  out += dtype;
  out += '>';
  return out;
}

std::string featureTensorType(std::optional<std::int64_t> channels, std::string_view dtype) {
  char digits[24] = "?";
  std::size_t n = 1;
  if (channels) n = static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, *channels).ptr - digits);
  std::string out;
  out.reserve(11 + n + dtype.size());
  out += "tensor<?x";
  out.append(digits, n);
  out += 'x';
  out += dtype;
  out += '>';
  return out;
}

std::string rankedTensorType(const std::vector<std::int64_t>& shape, std::string_view dtype) {
  std::string out = "tensor<";
  for (std::int64_t extent : shape) {
    out += extent < 0 ? std::string("?") : std::to_string(extent);
    out += 'x';
  }
  out += dtype;
  out += '>';
  return out;
}

std::optional<SchemaValueType> valueTypeOf(std::string_view typeText) {
  if (startsWith(typeText, "!lattice.sparse_tensor<")) return SchemaValueType::SparseTensor;
  if (startsWith(typeText, "!lattice.weight<")) return SchemaValueType::Weight;
  if (startsWith(typeText, "tensor<")) return SchemaValueType::Tensor;
  return std::nullopt;
}

} // namespace lattice
