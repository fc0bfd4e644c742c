#pragma once
/// \file StringMap: a hash map from strings to small values for the hot paths of the lowering
/// (SSA name counters, the weight index), where `std::unordered_map<std::string, V>` costs two
/// allocations per key and a cache miss per probe.
///
/// Open addressing with linear probing over a power-of-two table, at most half full, of
/// {key pointer, length, hash, value} slots;
/// the key bytes live in a StringArena (chunks that never move), so a key is a string_view and
/// lookups take a string_view without building a std::string. No erase (the users only add).
///
/// \code
///   StringMap<std::size_t> counts;
///   std::size_t& n = counts["add"];   // inserted as 0
///   ++n;
///   if (const std::size_t* c = counts.find("add")) ...
/// \endcode

#include "support/StringArena.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace lattice {

/// The hash StringMap uses: 8 bytes at a time (multiply-rotate), inline, then mixed so that the
/// low bits (the table index) depend on every byte. Not for untrusted-input DoS resistance: the
/// keys are names the tool itself builds.
inline std::uint64_t stringMapHash(std::string_view key) {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = key.size() * kMul;
  const char* p = key.data();
  std::size_t n = key.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    h = ((h << 5) | (h >> 59)) ^ word;
    h *= kMul;
  }
  if (n > 0) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, n);
    h = ((h << 5) | (h >> 59)) ^ word;
    h *= kMul;
  }
  h ^= h >> 32;
  h *= kMul;
  return h ^ (h >> 29);
}

template <typename V> class StringMap {
public:
  StringMap() = default;
  StringMap(StringMap&&) noexcept = default;
  StringMap& operator=(StringMap&&) noexcept = default;
  StringMap(const StringMap& other) { *this = other; }
  StringMap& operator=(const StringMap& other) {
    if (this == &other) return *this;
    clear();
    other.forEach([this](std::string_view key, const V& value) { insert(key, value); });
    return *this;
  }

  std::size_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }

  /// The value stored under `key`, or nullptr.
  const V* find(std::string_view key) const {
    if (m_slots.empty()) return nullptr;
    const std::uint64_t h = stringMapHash(key);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & m_mask;; i = (i + 1) & m_mask) {
      const Slot& s = m_slots[i];
      if (!s.used()) return nullptr;
      if (s.tag == tag && s.key() == key) return &s.value;
    }
  }
  V* find(std::string_view key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  /// The value under `key`, inserted value-initialised when absent.
  V& operator[](std::string_view key) { return *insert(key, V{}).first; }

  /// Inserts (key, value) unless the key is present; returns the stored value and whether it was
  /// inserted.
  std::pair<V*, bool> insert(std::string_view key, V value) {
    if ((m_size + 1) * 2 > m_slots.size()) grow();
    const std::uint64_t h = stringMapHash(key);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    std::size_t i = h & m_mask;
    for (;; i = (i + 1) & m_mask) {
      Slot& s = m_slots[i];
      if (!s.used()) break;
      if (s.tag == tag && s.key() == key) return {&s.value, false};
    }
    Slot& s = m_slots[i];
    const std::string_view stored = m_keys.store(key);
    s.data = stored.data();
    s.size = static_cast<std::uint32_t>(stored.size()) | kUsed;
    s.tag = tag;
    s.lowHash = static_cast<std::uint32_t>(h);
    s.value = std::move(value);
    ++m_size;
    return {&s.value, true};
  }

  void clear() {
    m_slots.clear();
    m_keys.clear();
    m_size = 0;
    m_mask = 0;
  }

  /// Calls fn(key, value) for every entry, in no particular order.
  template <typename Fn> void forEach(Fn&& fn) const {
    for (const Slot& s : m_slots)
      if (s.used()) fn(s.key(), s.value);
  }

private:
  static constexpr std::uint32_t kUsed = 0x80000000u;

  /// 16 bytes + the value: the table is probed on every lookup, so slots stay small (more of
  /// them per cache line) and keep enough of the hash to skip most key comparisons and to move
  /// without rehashing. Keys are at most 2 GiB (the top bit of `size` marks a used slot).
  struct Slot {
    const char* data = nullptr;
    std::uint32_t size = 0;    // key length | kUsed
    std::uint32_t tag = 0;     // high half of the hash
    std::uint32_t lowHash = 0; // low half (the home index)
    V value{};
    bool used() const { return size & kUsed; }
    std::string_view key() const { return {data, size & ~kUsed}; }
  };

  void grow() {
    std::vector<Slot> old = std::move(m_slots);
    // At most half full: linear probing stays short, also for the misses of a first insertion.
    const std::size_t capacity = old.empty() ? 8 : old.size() * 2;
    m_slots.assign(capacity, Slot{});
    m_mask = capacity - 1;
    for (Slot& s : old) {
      if (!s.used()) continue;
      std::size_t i = s.lowHash & m_mask;
      while (m_slots[i].used())
        i = (i + 1) & m_mask;
      m_slots[i] = std::move(s);
    }
  }

  std::vector<Slot> m_slots;
  std::size_t m_mask = 0; // capacity - 1 (a power of two); the home index is lowHash & m_mask
  std::size_t m_size = 0;
  StringArena m_keys; // key bytes (stable: chunks never move)
};

} // namespace lattice
