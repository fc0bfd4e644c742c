// SHA-256 as specified by FIPS 180-4 (sections 4.1.2, 4.2.2, 5.1.1, 6.2). Byte-oriented input
// only: messages whose length is not a whole number of bytes are deliberately not supported.

#include "support/Sha256.h"

#include <algorithm>
#include <cstring>

namespace lattice {
namespace {

constexpr std::uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

} // namespace

Sha256::Sha256()
    : m_state{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void Sha256::compress(const std::uint8_t* block) {
  std::uint32_t w[64];
  for (int t = 0; t < 16; ++t) {
    w[t] = (std::uint32_t(block[4 * t]) << 24) | (std::uint32_t(block[4 * t + 1]) << 16) |
           (std::uint32_t(block[4 * t + 2]) << 8) | std::uint32_t(block[4 * t + 3]);
  }
  for (int t = 16; t < 64; ++t) {
    const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  std::uint32_t a = m_state[0], b = m_state[1], c = m_state[2], d = m_state[3];
  std::uint32_t e = m_state[4], f = m_state[5], g = m_state[6], h = m_state[7];
  for (int t = 0; t < 64; ++t) {
    const std::uint32_t bigSigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const std::uint32_t choose = (e & f) ^ (~e & g);
    const std::uint32_t t1 = h + bigSigma1 + choose + kRoundConstants[t] + w[t];
    const std::uint32_t bigSigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = bigSigma0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  m_state[0] += a;
  m_state[1] += b;
  m_state[2] += c;
  m_state[3] += d;
  m_state[4] += e;
  m_state[5] += f;
  m_state[6] += g;
  m_state[7] += h;
}

void Sha256::update(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  m_totalBytes += size;
  if (m_buffered > 0) {
    const std::size_t take = std::min(size, m_buffer.size() - m_buffered);
    std::memcpy(m_buffer.data() + m_buffered, bytes, take);
    m_buffered += take;
    bytes += take;
    size -= take;
    if (m_buffered < m_buffer.size()) return;
    compress(m_buffer.data());
    m_buffered = 0;
  }
  for (; size >= 64; bytes += 64, size -= 64)
    compress(bytes);
  if (size > 0) {
    std::memcpy(m_buffer.data(), bytes, size);
    m_buffered = size;
  }
}

Sha256::Digest Sha256::finish() {
  const std::uint64_t bitLength = m_totalBytes * 8;
  // Padding: a single 1 bit, zeros up to 56 mod 64, then the 64-bit big-endian bit length.
  std::uint8_t padding[72] = {0x80};
  const std::size_t padLength = (m_buffered < 56 ? 56 : 120) - m_buffered;
  std::uint8_t lengthBytes[8];
  for (int i = 0; i < 8; ++i)
    lengthBytes[i] = std::uint8_t(bitLength >> (56 - 8 * i));
  update(padding, padLength);
  update(lengthBytes, 8);

  Digest digest;
  for (int i = 0; i < 8; ++i) {
    digest[4 * i] = std::uint8_t(m_state[i] >> 24);
    digest[4 * i + 1] = std::uint8_t(m_state[i] >> 16);
    digest[4 * i + 2] = std::uint8_t(m_state[i] >> 8);
    digest[4 * i + 3] = std::uint8_t(m_state[i]);
  }
  return digest;
}

std::string Sha256::toHex(const Digest& digest) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (std::uint8_t byte : digest) {
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0x0f]);
  }
  return out;
}

std::string sha256Hex(std::string_view data) {
  Sha256 hasher;
  hasher.update(data);
  return Sha256::toHex(hasher.finish());
}

} // namespace lattice
