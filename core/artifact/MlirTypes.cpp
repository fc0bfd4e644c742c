// Type texts of the writer form (format spec sec. 4). No parsing: the reader owns that.

#include "artifact/MlirTypes.h"

#include <algorithm>
#include <array>
#include <string>
#include <charconv>
#include <cstring>

namespace lattice {
namespace {

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

/// Concatenates short pieces on the stack and interns the result (no heap block unless the text
/// is new; longer texts fall back to a std::string).
class TypeBuffer {
public:
  TypeBuffer& operator<<(std::string_view piece) {
    if (m_long.empty() && m_size + piece.size() <= sizeof m_bytes) {
      std::memcpy(m_bytes + m_size, piece.data(), piece.size());
    } else {
      if (m_long.empty()) m_long.assign(m_bytes, m_size);
      m_long.append(piece);
    }
    m_size += piece.size();
    return *this;
  }
  TypeText intern() const { return m_long.empty() ? TypeText(std::string_view(m_bytes, m_size)) : TypeText(m_long); }

private:
  char m_bytes[192];
  std::size_t m_size = 0;
  std::string m_long; // the text once it outgrows m_bytes
};

/// The last few types a constructor built on this thread, under a short key of its arguments
/// (`f32`, `16|f32`, `channel|f32`): a lowering asks for the same few types on every op, and a
/// hit skips building the text and interning it (hashing ~90 bytes under a lock).
class RecentTypes {
public:
  template <typename Build> TypeText get(std::string_view key, Build&& build) {
    Entry& e = m_entries[(key.size() * 31 + static_cast<unsigned char>(key.front()) +
                          static_cast<unsigned char>(key.back()) * 7) % kSize];
    if (!e.key.empty() && e.key == key) return e.type;
    e.type = build();
    e.key.assign(key);
    return e.type;
  }

private:
  static constexpr std::size_t kSize = 8;
  struct Entry {
    std::string key;
    TypeText type;
  };
  std::array<Entry, kSize> m_entries;
};

/// `a|b` in `buffer` (for RecentTypes keys of short arguments).
std::string_view joinKey(char (&buffer)[64], std::string_view a, std::string_view b) {
  if (a.size() + b.size() + 1 > sizeof buffer) return {};
  std::memcpy(buffer, a.data(), a.size());
  buffer[a.size()] = '|';
  std::memcpy(buffer + a.size() + 1, b.data(), b.size());
  return {buffer, a.size() + b.size() + 1};
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
  const auto build = [&] {
    TypeBuffer b;
    b << "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = " << dtype << ">";
    return b.intern();
  };
  thread_local RecentTypes recent;
  char key[64];
  const std::string_view k = joinKey(key, "", dtype);
  return k.empty() ? build() : recent.get(k, build);
}

TypeText weightType(std::string_view family, std::string_view dtype) {
  const auto build = [&] {
    TypeBuffer b;
    b << "!lattice.weight<" << family << ", " << dtype << ">";
    return b.intern();
  };
  thread_local RecentTypes recent;
  char key[64];
  const std::string_view k = joinKey(key, family, dtype);
  return k.empty() ? build() : recent.get(k, build);
}

TypeText featureTensorType(std::optional<std::int64_t> channels, std::string_view dtype) {
  char digits[24] = "?";
  std::size_t n = 1;
  if (channels) n = static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, *channels).ptr - digits);
  const auto build = [&] {
    TypeBuffer b;
    b << "tensor<?x" << std::string_view(digits, n) << "x" << dtype << ">";
    return b.intern();
  };
  thread_local RecentTypes recent;
  char key[64];
  const std::string_view k = joinKey(key, std::string_view(digits, n), dtype);
  return k.empty() ? build() : recent.get(k, build);
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

std::optional<SchemaValueType> valueTypeOf(std::string_view typeText) {
  if (startsWith(typeText, "!lattice.sparse_tensor<")) return SchemaValueType::SparseTensor;
  if (startsWith(typeText, "!lattice.weight<")) return SchemaValueType::Weight;
  if (startsWith(typeText, "tensor<")) return SchemaValueType::Tensor;
  return std::nullopt;
}

} // namespace lattice
