#pragma once
/// \file torch.fx's unique naming (`_Namespace.create_name` and `Graph._target_to_str`),
/// specified in fx-archive.md "Tracing an archive" step 4.

#include "fx/Node.h"

#include <string>
#include <string_view>
#include "support/StringMap.h"

namespace lattice::fx {

/// The candidate name torch.fx derives from an op and target before uniquing:
/// placeholder/get_attr/call_module: the target; call_function: the function's own name (last
/// dotted component); call_method: the method name with `__dunder__` underscores stripped;
/// output: "output". Then snake-cased (`_` before an upper-case letter that follows a
/// lower-case one, all lower-cased).
std::string candidateName(Op op, std::string_view target);

/// Hands out unique, legal Python identifiers.
class Namespace {
public:
  /// Sanitises `candidate` (runs of illegal characters → `_`, leading digit → `_` prefix),
  /// splits a `_<digits>` suffix, and counts up while the name is taken, a Python keyword, a
  /// Python builtin or one of torch.fx's reserved names. Takes the candidate by value: its
  /// buffer becomes the returned name.
  std::string createName(std::string candidate);
  /// Marks `name` as used (e.g. when copying a graph verbatim).
  void reserve(const std::string& name);
  bool isUsed(std::string_view name) const { return m_used.contains(name); }

private:
  StringMap<bool> m_used;               // a set: every value is true
  StringMap<long long> m_baseCount;
};

} // namespace lattice::fx
