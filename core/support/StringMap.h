#pragma once
/// \file StringMap: a hash map from strings to small values for the hot paths of the lowering
/// (SSA name counters, the weight index), where `std::unordered_map<std::string, V>` costs two
/// allocations per key and a cache miss per probe.
///
/// Open addressing with linear probing over a power-of-two table of {hash, key, value} slots;
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
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace lattice {

template <typename V> class StringMap {
public:
  StringMap() = default;
  StringMap(StringMap&&) noexcept = default;
  StringMap& operator=(StringMap&&) noexcept = default;
  StringMap(const StringMap& other) { *this = other; }
  StringMap& operator=(const StringMap& other) {
    if (this == &other) return *this;
    clear();
    for (const Slot& s : other.m_slots)
      if (s.used) insert(s.key, s.value);
    return *this;
  }

  std::size_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }

  /// The value stored under `key`, or nullptr.
  const V* find(std::string_view key) const {
    if (m_slots.empty()) return nullptr;
    const std::size_t h = hashOf(key);
    for (std::size_t i = h & m_mask;; i = (i + 1) & m_mask) {
      const Slot& s = m_slots[i];
      if (!s.used) return nullptr;
      if (s.hash == h && s.key == key) return &s.value;
    }
  }
  V* find(std::string_view key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  /// The value under `key`, inserted value-initialised when absent.
  V& operator[](std::string_view key) { return *insert(key, V{}).first; }

  /// Inserts (key, value) unless the key is present; returns the stored value and whether it was
  /// inserted.
  std::pair<V*, bool> insert(std::string_view key, V value) {
    if ((m_size + 1) * 4 > m_slots.size() * 3) grow();
    const std::size_t h = hashOf(key);
    std::size_t i = h & m_mask;
    for (;; i = (i + 1) & m_mask) {
      Slot& s = m_slots[i];
      if (!s.used) break;
      if (s.hash == h && s.key == key) return {&s.value, false};
    }
    Slot& s = m_slots[i];
    s.used = true;
    s.hash = h;
    s.key = m_keys.store(key);
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
      if (s.used) fn(s.key, s.value);
  }

private:
  struct Slot {
    std::size_t hash = 0;
    std::string_view key;
    V value{};
    bool used = false;
  };

  static std::size_t hashOf(std::string_view key) { return std::hash<std::string_view>{}(key); }

  void grow() {
    std::vector<Slot> old = std::move(m_slots);
    const std::size_t capacity = old.empty() ? 8 : old.size() * 2;
    m_slots.assign(capacity, Slot{});
    m_mask = capacity - 1;
    for (Slot& s : old) {
      if (!s.used) continue;
      std::size_t i = s.hash & m_mask;
      while (m_slots[i].used)
        i = (i + 1) & m_mask;
      m_slots[i] = std::move(s);
    }
  }

  std::vector<Slot> m_slots;
  std::size_t m_mask = 0;
  std::size_t m_size = 0;
  StringArena m_keys; // key bytes (stable: chunks never move)
};

} // namespace lattice
