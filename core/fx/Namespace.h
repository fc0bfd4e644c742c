#pragma once
/// \file torch.fx's unique naming (`_Namespace.create_name` and `Graph._target_to_str`),
/// specified in fx-archive.md "Tracing an archive" step 4.

#include "fx/Node.h"

#include <string>
#include <string_view>
#include <absl/container/flat_hash_map.h>

namespace lattice::fx {

/// The candidate name torch.fx derives from an op and target before uniquing:
/// placeholder/get_attr/call_module: the target; call_function: the function's own name (last
/// dotted component); call_method: the method name with `__dunder__` underscores stripped;
/// output: "output". Then snake-cased (`_` before an upper-case letter that follows a
/// lower-case one, all lower-cased).
std::string candidateName(Op op, std::string_view target);

/// Hands out unique, legal Python identifiers, and remembers which node, if any, holds each name
/// (torch's `_Namespace` likewise maps its names to objects): a graph's name index is its
/// namespace.
class Namespace {
public:
  /// Sanitises `candidate` (runs of illegal characters → `_`, leading digit → `_` prefix),
  /// splits a `_<digits>` suffix, and counts up while the name is taken, a Python keyword, a
  /// Python builtin or one of torch.fx's reserved names. The name is recorded as held by `owner`.
  /// Takes the candidate by value: its buffer becomes the returned name.
  std::string createName(std::string candidate, Node* owner = nullptr);
  /// Marks `name` as used (e.g. when copying a graph verbatim), held by `owner`; no effect on a
  /// name already used.
  void reserve(const std::string& name, Node* owner = nullptr);
  bool isUsed(const std::string& name) const { return m_used.count(name) != 0; }
  /// The node holding `name`; nullptr when the name is free, reserved without a node or released.
  Node* owner(const std::string& name) const {
    const auto it = m_used.find(name);
    return it == m_used.end() ? nullptr : it->second;
  }
  /// Forgets the node holding `name`. The name stays used: torch.fx never hands out the name of
  /// an erased node again.
  void release(const std::string& name) {
    const auto it = m_used.find(name);
    if (it != m_used.end()) it->second = nullptr;
  }
  /// How many names are held by a node.
  std::size_t ownedCount() const;

private:
  absl::flat_hash_map<std::string, Node*> m_used; // every name handed out or reserved → its node or nullptr
  absl::flat_hash_map<std::string, long long> m_baseCount; // base → its counter
};

} // namespace lattice::fx
