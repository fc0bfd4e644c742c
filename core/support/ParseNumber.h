#pragma once
/// \file Whole-text number parsing for command-line values and settings: the entire text must be
/// the number (no sign for counts, no spaces, no trailing characters), out of range is a failure.

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace lattice {

/// A decimal count of digits only (`0`, `1000`); false for anything else or beyond int64.
inline bool parseCount(std::string_view text, std::int64_t& out) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return false;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  out = value;
  return true;
}

/// A decimal integer with an optional leading `-` (`-1`, `42`); false for anything else or beyond
/// int64.
inline bool parseInteger(std::string_view text, std::int64_t& out) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return false;
  out = value;
  return true;
}

} // namespace lattice
