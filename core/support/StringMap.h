#pragma once
/// \file StringMap: a hash map from strings to small values for the hot paths of the lowering
/// (SSA name counters, the weight index), where `std::unordered_map<std::string, V>` costs two
/// allocations per key and a cache miss per probe.
///
/// Open addressing with linear probing over a power-of-two index of 8-byte slots (part of the
/// hash and an entry number), at most half full; the entries (key, value, hash) sit in insertion
/// order beside it. A probe touches only the small index, so a lookup of an absent key (every
/// new SSA stem) costs about one cache line, and the entries of recent keys stay in cache. The
/// key bytes live in a StringArena (chunks that never move), so a key is a string_view and
/// lookups take a string_view without building a std::string. No erase (the users only add).
/// find() first compares the few entries after the one it found last: lookups that follow
/// insertion order (a model's modules and tensors, asked for in model order) skip the hash and
/// the index.
///
/// A map of KeyGrouping::ByNumberedPrefix (the second template argument) whose index reserve()
/// sizes at kGroupFromSlots slots or more probes first at a place chosen by the key's *numbered
/// prefix* (the key up to its last digit: "blocks_3_1" for "blocks_3_1_running_mean"), two cache
/// lines of slots that keys of one prefix share, and only then, when those are full, at the
/// place its own hash chooses. The SSA stems and weight keys of one module share that prefix,
/// and a lowering makes them one after another: on a model with megabytes of names, a module
/// then misses the cache once or twice in the index instead of once per name. Keys without a
/// digit are placed by their hash as usual. A smaller index stays in cache, where grouping
/// would only cost work (finding the prefix, hashing in two parts, longer probes: a tenth more
/// instructions for a 100-block chain's lowering), so it is grouped only from that size on.
///
/// \code
///   StringMap<std::size_t> counts;
///   std::size_t& n = counts["add"];   // inserted as 0
///   ++n;
///   if (const std::size_t* c = counts.find("add")) ...
/// \endcode

#include "support/StringArena.h"

#include <algorithm>
#include <atomic>
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
  // The last 1..7 bytes as memcpy would put them in a word, reading no byte outside the key (a
  // memcpy of a variable length is a library call): two overlapping 4-byte loads, or 3 bytes.
  const auto partialWord = [](const char* p, std::size_t n) -> std::uint64_t {
    if (n >= 4) {
      std::uint32_t lo, hi;
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + n - 4, 4);
      return lo | (std::uint64_t(hi) << (8 * (n - 4))); // the bytes both loads read are equal
    }
    const auto byte = [&](std::size_t i) { return std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i); };
    return byte(0) | byte(n / 2) | byte(n - 1);
  };
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
    h = ((h << 5) | (h >> 59)) ^ partialWord(p, n);
    h *= kMul;
  }
  h ^= h >> 32;
  h *= kMul;
  return h ^ (h >> 29);
}

/// The length of `key` up to and including its last decimal digit; 0 when it has none. Eight
/// bytes at a time from the end: a byte b is a digit exactly when x = b ^ '0' is 0..9, that is
/// when neither x's bit 7 nor bit 7 of (x & 0x7f) + 0x76 is set (the sum stays below 0x100, so
/// no carry crosses into the next byte).
inline std::size_t numberedPrefixLength(std::string_view key) {
  const char* p = key.data();
  std::size_t n = key.size();
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  for (; n >= 8; n -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p + n - 8, 8);
    const std::uint64_t x = word ^ 0x3030303030303030ull;
    const std::uint64_t digits = ~(((x & 0x7F7F7F7F7F7F7F7Full) + 0x7676767676767676ull) | x) & kHigh;
    if (digits != 0) return n - 8 + static_cast<std::size_t>(63 - __builtin_clzll(digits)) / 8 + 1;
  }
#endif
  while (n > 0 && (p[n - 1] < '0' || p[n - 1] > '9'))
    --n;
  return n;
}

/// Where a StringMap looks for a key first (see the file comment).
enum class KeyGrouping : unsigned char { None, ByNumberedPrefix };

template <typename V, KeyGrouping Grouping = KeyGrouping::None> class StringMap {
public:
  StringMap() = default;
  StringMap(StringMap&& other) noexcept { *this = std::move(other); }
  StringMap& operator=(StringMap&& other) noexcept {
    if (this == &other) return *this;
    m_index = std::move(other.m_index);
    m_entries = std::move(other.m_entries);
    m_mask = other.m_mask;
    m_grouped = other.m_grouped;
    m_keys = std::move(other.m_keys);
    m_next.store(other.m_next.load(std::memory_order_relaxed), std::memory_order_relaxed);
    other.clear(); // reusable, like a new map
    return *this;
  }
  StringMap(const StringMap& other) { *this = other; }
  StringMap& operator=(const StringMap& other) {
    if (this == &other) return *this;
    clear();
    m_grouped = other.m_grouped; // the copy is filled like the original
    other.forEach([this](std::string_view key, const V& value) { insert(key, value); });
    return *this;
  }

  std::size_t size() const { return m_entries.size(); }
  bool empty() const { return m_entries.empty(); }

  /// The value stored under `key`, or nullptr. Valid until the next insertion.
  /// Lookups often come in insertion order (a model's modules and tensors are asked for in the
  /// order they were added), so the few entries after the last one found are compared first; a
  /// hit there costs no hash and no probe of the index.
  const V* find(std::string_view key) const {
    const std::size_t next = m_next.load(std::memory_order_relaxed);
    const std::size_t end = std::min(m_entries.size(), next + kNearby);
    for (std::size_t n = next; n < end; ++n)
      if (m_entries[n].key() == key) {
        m_next.store(n + 1, std::memory_order_relaxed);
        return &m_entries[n].value;
      }
    return findHashed(key, hashKey(key));
  }

  /// Where a key is placed: its own hash and, in a grouped map, its numbered prefix's
  /// stringMapHash. Computed once for a key that is prefetched, looked up and then inserted;
  /// valid until the next reserve() (which may turn grouping on).
  struct KeyHash {
    std::uint64_t own = 0; // stringMapHash(key); with a group, the group's mixed with the rest's
    std::uint64_t group = 0;
    bool grouped = false;
  };
  KeyHash hashKey(std::string_view key) const {
    KeyHash k;
    if (grouped()) {
      const std::size_t prefix = numberedPrefixLength(key);
      if (prefix > 0) {
        // The key's bytes are hashed once: as its prefix, and the rest, which are then mixed.
        k.group = stringMapHash(key.substr(0, prefix));
        k.own = k.group;
        if (prefix < key.size()) {
          std::uint64_t h = k.group ^ (stringMapHash(key.substr(prefix)) * 0x9E3779B97F4A7C15ull);
          h ^= h >> 32;
          h *= 0x9E3779B97F4A7C15ull;
          k.own = h ^ (h >> 29);
        }
        k.grouped = true;
        return k;
      }
    }
    k.own = stringMapHash(key);
    return k;
  }

  /// find() for a key whose hashKey the caller has already.
  const V* findHashed(std::string_view key, const KeyHash& h) const {
    if (m_index.empty()) return nullptr;
    const std::uint64_t tag = h.own & kTagMask;
    const V* found = nullptr;
    probeUntil(h, [&](std::size_t i) {
      const std::uint64_t slot = m_index[i];
      if (slot == 0) return true;
      if ((slot & kTagMask) != tag) return false;
      const Entry& e = m_entries[(slot & ~kTagMask) - 1];
      if (e.key() != key) return false;
      m_next.store((slot & ~kTagMask), std::memory_order_relaxed); // the entry after e
      found = &e.value;
      return true;
    });
    return found;
  }
  V* find(std::string_view key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  /// The value under `key`, inserted value-initialised when absent.
  V& operator[](std::string_view key) { return *insert(key, V{}).first; }

  /// Inserts (key, value) unless the key is present; returns the stored value (valid until the
  /// next insertion) and whether it was inserted.
  std::pair<V*, bool> insert(std::string_view key, V value) {
    const Slot slot = insertWithKey(key, std::move(value));
    return {slot.value, slot.inserted};
  }

  /// What insertWithKey answers: the stored key (a view of the map's own copy, valid until
  /// clear() or destruction, also across insertions and moves), the value (valid until the next
  /// insertion) and whether it was inserted.
  struct Slot {
    std::string_view key;
    V* value;
    bool inserted;
  };
  /// insert() that also answers the stored copy of the key.
  Slot insertWithKey(std::string_view key, V value) { return insertHashed(key, hashKey(key), std::move(value)); }
  /// insertWithKey for a key whose hashKey is `h`.
  Slot insertHashed(std::string_view key, const KeyHash& h, V value) {
    if ((m_entries.size() + 1) * 2 > m_index.size()) grow();
    const std::uint64_t tag = h.own & kTagMask;
    Entry* present = nullptr;
    const std::size_t i = probeUntil(h, [&](std::size_t at) {
      const std::uint64_t slot = m_index[at];
      if (slot == 0) return true;
      if ((slot & kTagMask) != tag) return false;
      Entry& e = m_entries[(slot & ~kTagMask) - 1];
      if (e.key() != key) return false;
      present = &e;
      return true;
    });
    if (present) return {present->key(), &present->value, false};
    const std::string_view stored = m_keys.store(key);
    m_entries.push_back(Entry{stored.data(), stored.size(), h.own, std::move(value)});
    m_index[i] = tag | m_entries.size();
    return {stored, &m_entries.back().value, true};
  }

  /// Starts loading the index line a key of hashKey `h` is probed at first, so that a lookup or
  /// insertion issued a little later (after other work) does not wait for memory. Only a hint.
  void prefetch(const KeyHash& h) const {
#if defined(__GNUC__)
    if (!m_index.empty()) __builtin_prefetch(m_index.data() + firstSlot(h));
#else
    (void)h;
#endif
  }

  /// Room for `count` keys without growing: the index is sized once (growing rehashes every
  /// key, which on a large map is a cache miss per key) and the entries are allocated once.
  void reserve(std::size_t count) {
    if (count * 2 <= m_index.size()) return;
    std::size_t capacity = m_index.empty() ? 8 : m_index.size();
    while (count * 2 > capacity)
      capacity *= 2;
    m_entries.reserve(count);
    if constexpr (Grouping == KeyGrouping::ByNumberedPrefix) m_grouped = capacity >= kGroupFromSlots;
    rehash(capacity);
  }

  /// The index size from which a ByNumberedPrefix map groups its keys: 16 Ki slots (128 KiB),
  /// for about 8000 keys.
  static constexpr std::size_t kGroupFromSlots = std::size_t(1) << 14;
  /// True when keys are placed by their numbered prefix.
  bool grouped() const {
    if constexpr (Grouping == KeyGrouping::ByNumberedPrefix) return m_grouped;
    return false;
  }

  void clear() {
    m_next.store(0, std::memory_order_relaxed);
    m_index.clear();
    m_entries.clear();
    m_keys.clear();
    m_mask = 0;
    m_grouped = false;
  }

  /// Calls fn(key, value) for every entry, in insertion order.
  template <typename Fn> void forEach(Fn&& fn) const {
    for (const Entry& e : m_entries)
      fn(e.key(), e.value);
  }

private:
  /// The high 32 bits of an index slot are the high half of the key's hash; the low 32 bits are
  /// the entry's position + 1 (0 marks an empty slot). At most 2^32 - 1 entries.
  static constexpr std::uint64_t kTagMask = 0xFFFFFFFF00000000ull;

  struct Entry {
    const char* data;
    std::size_t size;
    std::uint64_t hash; // hashKey(key).own, kept so that growing an ungrouped map rehashes no key
    V value;
    std::string_view key() const { return {data, size}; }
  };

  void grow() {
    // At most half full: linear probing stays short, also for the misses of a first insertion.
    rehash(m_index.empty() ? 8 : m_index.size() * 2);
  }

  void rehash(std::size_t capacity) {
    m_index.assign(capacity, 0);
    m_mask = capacity - 1;
    for (std::size_t n = 0; n < m_entries.size(); ++n) {
      Entry& e = m_entries[n];
      // A grouped map hashes each key again for its group. That also gives the keys inserted
      // before reserve() turned grouping on their grouped hash, the one lookups now compute.
      const KeyHash h = grouped() ? hashKey(e.key()) : KeyHash{e.hash};
      e.hash = h.own;
      const std::size_t i = probeUntil(h, [&](std::size_t at) { return m_index[at] == 0; });
      m_index[i] = (e.hash & kTagMask) | (n + 1);
    }
  }

  /// Visits a key's probe sequence until `stop(slot)` answers true, and returns that slot. With a
  /// group: the kGroupSlots slots (two cache lines) its numbered prefix hashes to, from the one
  /// its own hash picks among them and round (so a key usually stops at the first), then on from
  /// its own hash; without: on from its own hash. Every insertion and lookup of a key follows the
  /// same sequence, and slots are never emptied, so a lookup that meets an empty slot has not
  /// missed its key. The index is never full, so the sequence ends.
  template <typename Stop> std::size_t probeUntil(const KeyHash& h, Stop&& stop) const {
    if (h.grouped) { // from firstSlot(h) round the group
      const std::size_t base = groupBase(h);
      const std::size_t mask = groupSize() - 1;
      for (std::size_t j = 0; j <= mask; ++j) {
        const std::size_t i = base + ((h.own + j) & mask);
        if (stop(i)) return i;
      }
    }
    for (std::size_t i = h.own & m_mask;; i = (i + 1) & m_mask)
      if (stop(i)) return i;
  }
  /// The slot probeUntil visits first.
  std::size_t firstSlot(const KeyHash& h) const {
    return h.grouped ? groupBase(h) + (h.own & (groupSize() - 1)) : h.own & m_mask;
  }
  std::size_t groupSize() const { return std::min(kGroupSlots, m_index.size()); }
  std::size_t groupBase(const KeyHash& h) const { return h.group & m_mask & ~(groupSize() - 1); }
  static constexpr std::size_t kGroupSlots = 16; // two cache lines of 8-byte slots

  std::vector<std::uint64_t> m_index; // the probed table: 8 bytes a slot, 8 slots a cache line
  std::vector<Entry> m_entries;       // keys and values in insertion order
  std::size_t m_mask = 0;             // m_index.size() - 1 (a power of two)
  bool m_grouped = false;             // see grouped(); only a ByNumberedPrefix map sets it
  StringArena m_keys;                 // key bytes (stable: chunks never move)
  /// The entry after the last one find() found: a hint, checked against the key before use
  /// (atomic only so that concurrent const lookups are not a data race).
  mutable std::atomic<std::size_t> m_next{0};
  static constexpr std::size_t kNearby = 4;
};

} // namespace lattice
