#pragma once
/// \file SHA-256 (FIPS 180-4) for content digests: the dialect schema digest and any other
/// byte-exact fingerprint the artifact layer needs. Small, dependency-free, not constant-time
/// (nothing here is secret).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace lattice {

/// Incremental SHA-256. Feed bytes with update(), then call finish() once.
class Sha256 {
public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256();

  /// Appends `size` bytes to the message.
  void update(const void* data, std::size_t size);
  /// Appends the bytes of `data` to the message.
  void update(std::string_view data) { update(data.data(), data.size()); }

  /// Pads the message and returns the 32-byte digest. The object must not be reused afterwards.
  Digest finish();

  /// Lowercase hex (64 characters) of a digest.
  static std::string toHex(const Digest& digest);

private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> m_state;
  std::array<std::uint8_t, 64> m_buffer{};
  std::size_t m_buffered = 0;
  std::uint64_t m_totalBytes = 0;
};

/// Lowercase hex SHA-256 of `data` (what `sha256sum` prints).
std::string sha256Hex(std::string_view data);

} // namespace lattice
