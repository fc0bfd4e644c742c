#pragma once
/// \file NodeValues: node → value, for the interpreter's environment and the tracer's frames.
/// Every node is looked up by the nodes that use it and stored once, so this is an
/// open-addressing table keyed by the node's address (graphs keep nodes in place): a lookup
/// reads one 16-byte slot, where `std::unordered_map` chases a bucket list into a heap node per
/// entry. A graph allocates its nodes one after another in chunks, and an interpreter sets their
/// values in that order, so the home slot keeps address order within a stretch of the address
/// space as long as the table: consecutive nodes get slots a line or so apart, and a long run
/// writes the index front to back instead of missing the cache at a random slot per node. Each
/// stretch starts at a hashed offset, so nodes far apart in memory do not pile up. Values live
/// in a deque in the order they were first set, so a `const Value*` stays valid until clear().
/// clear() keeps the table's capacity and costs the number of values, so a tracer can reuse one
/// table for every frame at a depth.

#include "fx/Value.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace lattice::fx {

class Node;

class NodeValues {
public:
  std::size_t size() const { return m_values.size(); }
  bool empty() const { return m_values.empty(); }

  /// The value of `node`, or nullptr when it has none.
  const Value* find(const Node* node) const {
    if (m_index.empty()) return nullptr;
    for (std::size_t i = home(node);; i = (i + 1) & m_mask) {
      const Slot& s = m_index[i];
      if (!s.node) return nullptr;
      if (s.node == node) return &m_values[s.entry].second;
    }
  }

  /// Room for `count` values without growing the table.
  void reserve(std::size_t count) {
    std::size_t capacity = m_index.empty() ? 16 : m_index.size();
    while (count * 2 > capacity)
      capacity *= 2;
    if (capacity != m_index.size()) rehash(capacity);
  }

  /// Sets (or replaces) the value of `node` (not nullptr).
  void set(const Node* node, Value value) {
    if ((m_values.size() + 1) * 2 > m_index.size()) rehash(m_index.empty() ? 16 : m_index.size() * 2);
    std::size_t i = home(node);
    for (; m_index[i].node; i = (i + 1) & m_mask) {
      if (m_index[i].node == node) {
        m_values[m_index[i].entry].second = std::move(value);
        return;
      }
    }
    m_index[i] = {node, m_values.size()};
    m_slotOf.push_back(i);
    m_values.emplace_back(node, std::move(value));
  }

  /// Forgets every value; keeps the table's capacity.
  void clear() {
    for (std::size_t slot : m_slotOf)
      m_index[slot] = Slot{};
    m_slotOf.clear();
    m_values.clear();
  }

  /// (node, value) pairs in the order they were first set.
  const std::deque<std::pair<const Node*, Value>>& entries() const { return m_values; }

private:
  struct Slot {
    const Node* node = nullptr;
    std::size_t entry = 0;
  };

  /// The node's 64-byte line (a node is larger, so no two share one) plus a hashed offset for
  /// the stretch of `m_index.size()` lines it lies in.
  std::size_t home(const Node* node) const {
    const std::uint64_t line = reinterpret_cast<std::uintptr_t>(node) >> 6;
    const std::uint64_t stretch = (line >> m_bits) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(line + (stretch >> 32)) & m_mask;
  }

  /// Rebuilds the table with `capacity` slots (a power of two, more than twice the values).
  void rehash(std::size_t capacity) {
    m_index.assign(capacity, Slot{});
    m_mask = capacity - 1;
    m_bits = 0;
    while ((std::size_t(1) << m_bits) < capacity)
      ++m_bits;
    for (std::size_t n = 0; n < m_values.size(); ++n) {
      std::size_t i = home(m_values[n].first);
      while (m_index[i].node)
        i = (i + 1) & m_mask;
      m_index[i] = {m_values[n].first, n};
      m_slotOf[n] = i;
    }
  }

  std::vector<Slot> m_index; // at most half full
  std::deque<std::pair<const Node*, Value>> m_values;
  std::vector<std::size_t> m_slotOf; // each value's slot, so clear() touches only those
  std::size_t m_mask = 0;
  unsigned m_bits = 0; // log2 of the index size
};

} // namespace lattice::fx
