// Type texts of the writer form (format spec sec. 4). No parsing: the reader owns that.

#include "dialect/MlirTypes.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>

namespace lattice {
namespace {

/// The pieces joined into one text, interned. Types are short: the text is assembled on the stack
/// (a type seen before is then found without allocating), on the heap only when it is long.
TypeText joined(std::initializer_list<std::string_view> pieces) {
  std::size_t size = 0;
  for (std::string_view piece : pieces)
    size += piece.size();
  std::array<char, 256> buffer;
  std::string heap;
  char* out = buffer.data();
  if (size > buffer.size()) {
    heap.resize(size);
    out = heap.data();
  }
  char* end = out;
  for (std::string_view piece : pieces)
    end = std::copy(piece.begin(), piece.end(), end);
  return TypeText(std::string_view(out, size));
}

} // namespace

TypeText coordsTensorType() {
  static const TypeText type(kCoordsTensorType);
  return type;
}

TypeText activeTensorType() {
  static const TypeText type(kActiveTensorType);
  return type;
}

TypeText sparseTensorType(std::string_view dtype) {
  return joined({"!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = ", dtype, ">"});
}

TypeText weightType(std::string_view family, std::string_view dtype) {
  return joined({"!lattice.weight<", family, ", ", dtype, ">"});
}

TypeText featureTensorType(std::optional<std::int64_t> channels, std::string_view dtype) {
  return joined({"tensor<?x", channels ? std::to_string(*channels) : std::string("?"), "x", dtype, ">"});
}

TypeText rankedTensorType(const std::vector<std::int64_t>& shape, std::string_view dtype) {
  std::string out = "tensor<";
  for (std::int64_t extent : shape) {
    out += extent < 0 ? std::string("?") : std::to_string(extent);
    out += 'x';
  }
  out += dtype;
  out += '>';
  return TypeText(out);
}

} // namespace lattice
