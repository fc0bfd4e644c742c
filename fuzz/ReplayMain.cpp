// A libFuzzer-compatible driver for builds without libFuzzer (gcc): feeds every seed file to
// LLVMFuzzerTestOneInput, then a fixed number of deterministic mutations of them (bit flips,
// byte edits, dictionary tokens, cuts, duplications, splices, deep nesting, huge numbers).
// It is a regression check that the normal build can run in ctest, not a coverage-guided
// fuzzer: use the clang build (LATTICE_BUILD_FUZZERS=ON) for real fuzzing.
//
//   lattice_replay_<target> [--mutations N] [--seed S] [--max-len BYTES] FILE_OR_DIR...

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

using Bytes = std::string;

// xorshift64*: deterministic across platforms and runs.
class Rng {
public:
  explicit Rng(std::uint64_t seed) : m_state(seed ? seed : 0x9E3779B97F4A7C15ull) {}
  std::uint64_t next() {
    m_state ^= m_state >> 12;
    m_state ^= m_state << 25;
    m_state ^= m_state >> 27;
    return m_state * 0x2545F4914F6CDD1Dull;
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

private:
  std::uint64_t m_state;
};

// Tokens of both input formats, to reach past the first syntax check.
const char* const kDictionary[] = {
    "{",
    "}",
    "<",
    ">",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "=",
    "->",
    "%",
    "@",
    "#",
    "!",
    "\"",
    "\\",
    "//",
    "\n",
    "?",
    "x",
    "-",
    "0x",
    "1.0e-05",
    "9999999999999999999999",
    "-9223372036854775808",
    "0",
    "module",
    "attributes",
    "func.func",
    "@forward",
    "return",
    "lattice.",
    "lattice.weight",
    "lattice.sparse.decompose",
    "lattice.conv3d",
    "tensor<",
    "?x4xi32",
    "f32",
    "i4",
    "!lattice.sparse_tensor<",
    "!lattice.weight<",
    "#lattice.packing<",
    "#lattice.pool_mode<",
    "array<i64:",
    "array<f64:",
    ": f32",
    "rank = ",
    "dtype = ",
    "^bb1:",
    "\"dtype\":",
    "\"shape\":",
    "\"data_offsets\":",
    "\"__metadata__\":",
    "\"F32\"",
    "\"U32\"",
    "[18446744073709551615]",
    "[4294967296,4294967296]",
    "null",
    "\xff\xff\xff\xff\xff\xff\xff\x7f",
    "\x10\x00\x00\x00\x00\x00\x00\x00",
};

void mutate(Bytes& b, const std::vector<Bytes>& seeds, Rng& rng, std::size_t maxLen) {
  const std::size_t steps = 1 + rng.below(4);
  for (std::size_t s = 0; s < steps; ++s) {
    const std::size_t pos = rng.below(b.size() + 1);
    switch (rng.below(10)) {
    case 0: // flip a bit
      if (!b.empty()) b[rng.below(b.size())] ^= static_cast<char>(1u << rng.below(8));
      break;
    case 1: // set a byte
      if (!b.empty()) b[rng.below(b.size())] = static_cast<char>(rng.below(256));
      break;
    case 2: { // insert a dictionary token
      const char* token = kDictionary[rng.below(sizeof kDictionary / sizeof *kDictionary)];
      b.insert(pos, token, std::strlen(token) ? std::strlen(token) : 1);
      break;
    }
    case 3: // erase a range
      if (!b.empty()) b.erase(rng.below(b.size()), 1 + rng.below(std::min<std::size_t>(b.size(), 64)));
      break;
    case 4: // duplicate a range
      if (!b.empty()) {
        const std::size_t from = rng.below(b.size());
        const std::size_t len = 1 + rng.below(std::min<std::size_t>(b.size() - from, 128));
        b.insert(pos, b.substr(from, len));
      }
      break;
    case 5: // truncate
      b.resize(rng.below(b.size() + 1));
      break;
    case 6: { // splice with another seed
      const Bytes& other = seeds[rng.below(seeds.size())];
      if (!other.empty()) {
        const std::size_t from = rng.below(other.size());
        b = b.substr(0, pos) + other.substr(from, 1 + rng.below(other.size() - from));
      }
      break;
    }
    case 7: // deep nesting
      b.insert(pos, std::string(1 + rng.below(200), "[(<{"[rng.below(4)]));
      break;
    case 8: // swap two bytes
      if (b.size() > 1) std::swap(b[rng.below(b.size())], b[rng.below(b.size())]);
      break;
    default: { // a digit run becomes a huge or negative number
      const std::size_t at = b.find_first_of("0123456789", pos);
      if (at != Bytes::npos) b.insert(at, rng.below(2) ? "99999999999999999999" : "-");
      break;
    }
    }
    if (b.size() > maxLen) b.resize(maxLen);
  }
}

bool readFile(const std::string& path, Bytes& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

void collect(const std::string& path, std::vector<std::string>& files) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "replay: cannot read '%s'\n", path.c_str());
    std::exit(2);
  }
  if (!S_ISDIR(st.st_mode)) {
    files.push_back(path);
    return;
  }
  DIR* dir = ::opendir(path.c_str());
  std::vector<std::string> entries;
  while (dirent* e = dir ? ::readdir(dir) : nullptr)
    if (e->d_name[0] != '.') entries.push_back(path + "/" + e->d_name);
  if (dir) ::closedir(dir);
  std::sort(entries.begin(), entries.end());
  for (const std::string& e : entries)
    collect(e, files);
}

void run(const Bytes& input) {
  // An exact-size heap copy, so a read past the end is an error under ASan.
  std::vector<std::uint8_t> copy(input.begin(), input.end());
  LLVMFuzzerTestOneInput(copy.data(), copy.size());
}

} // namespace

int main(int argc, char** argv) {
  std::size_t mutations = 2000;
  std::uint64_t seed = 1;
  std::size_t maxLen = 1 << 16;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--mutations" || arg == "--seed" || arg == "--max-len") && i + 1 < argc) {
      const unsigned long long value = std::strtoull(argv[++i], nullptr, 10);
      if (arg == "--mutations")
        mutations = value;
      else if (arg == "--seed")
        seed = value;
      else
        maxLen = value;
    } else {
      collect(arg, files);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s [--mutations N] [--seed S] [--max-len BYTES] FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  std::vector<Bytes> seeds;
  for (const std::string& f : files) {
    Bytes b;
    if (!readFile(f, b)) {
      std::fprintf(stderr, "replay: cannot read '%s'\n", f.c_str());
      return 2;
    }
    seeds.push_back(std::move(b));
  }
  const auto start = std::chrono::steady_clock::now();
  for (const Bytes& s : seeds)
    run(s);
  Rng rng(seed);
  for (std::size_t i = 0; i < mutations; ++i) {
    Bytes b = seeds[rng.below(seeds.size())];
    mutate(b, seeds, rng, maxLen);
    run(b);
  }
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  std::printf("replay: %zu seeds and %zu mutations (seed %llu) in %lld ms, no failure\n", seeds.size(),
              mutations, static_cast<unsigned long long>(seed), static_cast<long long>(ms.count()));
  return 0;
}
