#pragma once
/// \file StringArena: append-only storage for many small immutable strings (map keys, emitted MLIR
/// lines) without one heap block per string. Bytes live in chunks that are never reallocated, so
/// a stored string is a `string_view` that stays valid until the arena is cleared or destroyed
/// (moving the arena keeps it valid too). Chunks double from 256 bytes to 64 KiB, so an arena of a
/// few strings stays small and a large one costs one allocation per 64 KiB; a string longer than
/// that gets a chunk of its own size.
///
/// \code
///   StringArena arena;
///   std::string_view a = arena.store("blocks_0_1_weight");
///   char* p = arena.allocate(n);   // fill n bytes, then std::string_view(p, n)
/// \endcode

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace lattice {

class StringArena {
public:
  StringArena() = default;
  StringArena(StringArena&&) noexcept = default;
  StringArena& operator=(StringArena&&) noexcept = default;
  StringArena(const StringArena&) = delete;
  StringArena& operator=(const StringArena&) = delete;

  /// `size` uninitialised bytes that never move; nullptr for 0.
  char* allocate(std::size_t size) {
    if (size == 0) return nullptr;
    if (size > m_left) {
      m_chunkSize = m_chunkSize == 0 ? kFirstChunk : std::min(m_chunkSize * 2, kMaxChunk);
      const std::size_t chunk = std::max(m_chunkSize, size);
      m_chunks.emplace_back(new char[chunk]); // uninitialised: every byte is written before use
      m_next = m_chunks.back().get();
      m_left = chunk;
    }
    char* out = m_next;
    m_next += size;
    m_left -= size;
    m_used += size;
    return out;
  }

  /// A copy of `text` in the arena.
  std::string_view store(std::string_view text) {
    char* p = allocate(text.size());
    if (p) std::memcpy(p, text.data(), text.size());
    return {p, text.size()};
  }

  /// Bytes handed out so far.
  std::size_t used() const { return m_used; }

  /// Frees every chunk (every stored view dangles afterwards).
  void clear() {
    m_chunks.clear();
    m_next = nullptr;
    m_left = 0;
    m_chunkSize = 0;
    m_used = 0;
  }

private:
  static constexpr std::size_t kFirstChunk = 256;
  static constexpr std::size_t kMaxChunk = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> m_chunks;
  char* m_next = nullptr;
  std::size_t m_left = 0;
  std::size_t m_chunkSize = 0;
  std::size_t m_used = 0;
};

} // namespace lattice
