// Safetensors reading: SafetensorsFile::open (the whole file read into anonymous memory) and
// ::parse, which checks every bound before touching the data section (lattice-artifact-format.md
// §13.1). Nothing is allocated from a declared size: open allocates the file's size once, after
// checking it against the memory the process can get, the header length is compared with the
// file size first, and tensors are views into the caller's bytes. Any tensor order, gaps between tensors
// and any metadata content are accepted; the reference byte conventions are the writer's concern
// (SafetensorsWriter.cpp).

#include "tensor/Safetensors.h"

#include <absl/container/flat_hash_map.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <unordered_set>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

namespace lattice {

namespace {

using Json = nlohmann::json;

// Deeper than any valid header ({key: {shape: [..]}} is 3 levels); bounds the parser's stack.
constexpr int kMaxJsonDepth = 64;

constexpr const char* kMetadataKey = "__metadata__";

struct ParseFailure {
  std::string message;
};

// Keys are arbitrary JSON strings; keep messages on one line by escaping control characters.
std::string printable(const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

std::string rangeText(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

// A JSON integer in [0, INT64_MAX]; floats, negatives and larger values are rejected.
std::optional<uint64_t> nonNegativeInt(const Json& value) {
  if (!value.is_number_unsigned()) return std::nullopt;
  const uint64_t v = value.get<uint64_t>();
  if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return v;
}

// The parsed header: each top-level value in the order its key first appeared. nlohmann::json
// objects are sorted maps that keep the last of duplicated keys; a header of thousands of tensors
// is therefore not built as one DOM. One SAX pass builds each top-level value on its own (small
// objects: last duplicate wins, as in a DOM), records key order, finds duplicated top-level keys
// and bounds the nesting depth.
struct Header {
  bool isObject = false;
  std::vector<std::pair<std::string, Json>> values; // top-level keys in header order, first occurrence
  std::vector<std::string> metadataKeys;            // `__metadata__` keys in header order
};

class HeaderScanner {
public:
  explicit HeaderScanner(Header& header) : m_header(header) {}

  std::string duplicate; // first duplicated top-level key
  bool tooDeep = false;
  std::size_t errorByte = 0; // set when the JSON is invalid
  bool invalid = false;

  bool null() { return put(Json()); }
  bool boolean(bool v) { return put(Json(v)); }
  bool number_integer(Json::number_integer_t v) { return put(Json(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return put(Json(v)); }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return put(Json(v)); }
  bool string(Json::string_t& v) { return put(Json(std::move(v))); }
  bool binary(Json::binary_t&) { return put(Json()); } // not produced by the text parser
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(Json::string_t& key) {
    if (m_depth == 1) {
      m_inMetadata = key == kMetadataKey;
      const auto [seen, inserted] = m_seen.emplace(key, m_header.values.size());
      if (inserted) {
        m_header.values.emplace_back(key, Json());
        m_target = &m_header.values.back().second;
      } else {
        if (duplicate.empty()) duplicate = key;
        m_target = &m_header.values[seen->second].second; // last wins, as in a DOM
      }
    } else {
      if (m_depth == 2 && m_inMetadata) m_header.metadataKeys.push_back(key);
      m_key = std::move(key);
    }
    return true;
  }

  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception&) {
    invalid = true;
    errorByte = byte;
    return false;
  }

private:
  // Stores a value at the current position: the top-level value being built, an array
  // element or an object member. Values outside the root object (a non-object root) are dropped.
  Json* place(Json&& value) {
    if (m_stack.empty()) {
      if (!m_target) return nullptr;
      *m_target = std::move(value);
      return m_target;
    }
    Json& parent = *m_stack.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    Json& member = parent[m_key];
    member = std::move(value);
    return &member;
  }
  bool put(Json&& value) {
    if (m_depth == 0) return true; // a scalar root: not an object, reported after the scan
    place(std::move(value));
    return true;
  }
  bool open(Json&& container) {
    if (++m_depth > kMaxJsonDepth) {
      tooDeep = true;
      return false;
    }
    if (m_depth == 1) {
      m_header.isObject = container.is_object();
      return true;
    }
    if (Json* placed = place(std::move(container))) m_stack.push_back(placed);
    else m_stack.push_back(&m_scratch); // inside a non-object root: build and forget
    return true;
  }
  bool close() {
    // Metadata keys are only those directly inside `__metadata__`'s own object.
    if (--m_depth == 1) m_inMetadata = false;
    if (!m_stack.empty()) m_stack.pop_back();
    if (m_depth <= 1) m_target = nullptr;
    return true;
  }

  Header& m_header;
  int m_depth = 0;
  bool m_inMetadata = false;
  absl::flat_hash_map<std::string, std::size_t> m_seen; // top-level key -> position in values
  Json* m_target = nullptr;       // the top-level value being built
  std::vector<Json*> m_stack;     // open containers below the root
  std::string m_key;              // the pending member key below the root
  Json m_scratch;
};

Header parseHeaderJson(const uint8_t* begin, std::size_t length, const std::string& name) {
  Header header;
  HeaderScanner scanner(header);
  const bool valid = Json::sax_parse(begin, begin + length, &scanner);
  if (scanner.tooDeep)
    throw ParseFailure{name + ": header nests deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
  if (!valid || scanner.invalid)
    throw ParseFailure{name + ": header is not valid JSON (error at header byte " +
                       std::to_string(scanner.errorByte) + ")"};
  if (!header.isObject) throw ParseFailure{name + ": header is not a JSON object"};
  if (!scanner.duplicate.empty())
    throw ParseFailure{name + ": duplicate key '" + printable(scanner.duplicate) + "' in the header"};
  return header;
}

SafetensorsMetadata parseMetadata(const Json& value, const std::vector<std::string>& order,
                                  const std::string& name) {
  if (!value.is_object()) throw ParseFailure{name + ": __metadata__ is not a map of strings to strings"};
  SafetensorsMetadata metadata;
  // A duplicated metadata key keeps its last value, at the position of its first occurrence.
  std::unordered_set<std::string> seen;
  for (const std::string& key : order) {
    if (!seen.insert(key).second) continue;
    const auto it = value.find(key);
    if (it == value.end() || !it->is_string())
      throw ParseFailure{name + ": __metadata__ entry '" + printable(key) + "' is not a string"};
    metadata.emplace_back(key, it->get<std::string>());
  }
  return metadata;
}

struct Entry {
  std::string key;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin;
  uint64_t end;
};

Entry parseEntry(const std::string& key, const Json& value, uint64_t dataSize, const std::string& name) {
  // The message prefix, built only for an error.
  const auto where = [&] { return name + ": tensor '" + printable(key) + "': "; };
  if (!value.is_object()) throw ParseFailure{where() + "entry is not an object"};

  const auto dtypeIt = value.find("dtype");
  if (dtypeIt == value.end() || !dtypeIt->is_string())
    throw ParseFailure{where() + "dtype is missing or not a string"};
  const std::string dtypeText = dtypeIt->get<std::string>();
  const std::optional<DType> dtype = parseDType(dtypeText);
  if (!dtype) throw ParseFailure{where() + "unknown dtype '" + printable(dtypeText) + "'"};

  const auto shapeIt = value.find("shape");
  if (shapeIt == value.end() || !shapeIt->is_array())
    throw ParseFailure{where() + "shape is missing or not a list of non-negative integers"};
  std::vector<int64_t> shape;
  shape.reserve(shapeIt->size());
  for (const Json& dim : *shapeIt) {
    const std::optional<uint64_t> d = nonNegativeInt(dim);
    if (!d)
      throw ParseFailure{where() + "shape is not a list of non-negative integers (found " +
                         printable(dim.dump().substr(0, 40)) + ")"};
    shape.push_back(static_cast<int64_t>(*d));
  }

  const auto offsetsIt = value.find("data_offsets");
  std::optional<uint64_t> begin, end;
  if (offsetsIt != value.end() && offsetsIt->is_array() && offsetsIt->size() == 2) {
    begin = nonNegativeInt((*offsetsIt)[0]);
    end = nonNegativeInt((*offsetsIt)[1]);
  }
  if (!begin || !end) throw ParseFailure{where() + "data_offsets is missing or not two non-negative integers"};
  if (*begin > *end)
    throw ParseFailure{where() + "data_offsets " + rangeText(*begin, *end) + " end before they begin"};
  if (*end > dataSize)
    throw ParseFailure{where() + "data_offsets " + rangeText(*begin, *end) + " exceed the data section (" +
                       std::to_string(dataSize) + " bytes): the file is truncated"};

  const int64_t numel = shapeNumel(shape);
  const std::size_t elementSize = dtypeSize(*dtype);
  if (numel < 0 || static_cast<uint64_t>(numel) > std::numeric_limits<uint64_t>::max() / elementSize)
    throw ParseFailure{where() + "shape " + shapeText(shape) + " has too many elements"};
  const uint64_t needed = static_cast<uint64_t>(numel) * elementSize;
  if (needed != *end - *begin)
    throw ParseFailure{where() + "data_offsets " + rangeText(*begin, *end) + " hold " +
                       std::to_string(*end - *begin) + " bytes but " + dtypeText + " shape " +
                       shapeText(shape) + " needs " + std::to_string(needed) + " bytes"};
  return Entry{key, *dtype, std::move(shape), *begin, *end};
}

// Empty ranges overlap nothing; among the others, sorted by begin, each must start at or after
// the previous one's end.
void checkOverlaps(const std::vector<Entry>& entries, const std::string& name) {
  std::vector<const Entry*> byBegin;
  for (const Entry& e : entries) {
    if (e.begin != e.end) byBegin.push_back(&e);
  }
  std::sort(byBegin.begin(), byBegin.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  for (std::size_t i = 1; i < byBegin.size(); ++i) {
    const Entry& prev = *byBegin[i - 1];
    const Entry& cur = *byBegin[i];
    if (cur.begin < prev.end)
      throw ParseFailure{name + ": tensor '" + printable(cur.key) + "': data_offsets " +
                         rangeText(cur.begin, cur.end) + " overlap tensor '" + printable(prev.key) + "' " +
                         rangeText(prev.begin, prev.end)};
  }
}

// Owns the bytes of an opened file: anonymous memory the file was read into, read-only once
// filled. The shared keep-alive of every view into the file. Anonymous memory, not a mapping of
// the file: another program truncating or rewriting the file cannot take these pages away (a
// file mapping, private or shared, faults with SIGBUS on pages past a truncation).
struct FileBytes {
  void* address = nullptr;
  std::size_t length = 0;
  FileBytes(void* a, std::size_t l) : address(a), length(l) {}
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes() { ::munmap(address, length); }
};

struct FileDescriptor {
  int fd = -1;
  explicit FileDescriptor(int f) : fd(f) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

std::string errnoText(int error) {
  return std::strerror(error);
}

// "1.5 GiB (1610612736 bytes)", or "512 bytes".
std::string sizeText(uint64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return std::string(text) + " (" + std::to_string(bytes) + " bytes)";
}

// The most memory one more allocation can get, and what bounds it: the address space left under
// the process's limit (ulimit -v), the data limit (ulimit -d), or the machine's RAM and swap.
struct MemoryRoom {
  uint64_t bytes = std::numeric_limits<uint64_t>::max();
  std::string what;
};

MemoryRoom memoryRoom() {
  MemoryRoom room;
  const auto consider = [&](uint64_t bytes, const std::function<std::string()>& what) {
    if (bytes < room.bytes) room = MemoryRoom{bytes, what()};
  };
  // Pages of the whole address space and of the data segment, as the kernel counts them
  // against RLIMIT_AS and RLIMIT_DATA.
  uint64_t addressSpace = 0, data = 0;
  if (std::FILE* statm = std::fopen("/proc/self/statm", "re")) {
    unsigned long long size = 0, resident = 0, shared = 0, text = 0, lib = 0, dataPages = 0;
    if (std::fscanf(statm, "%llu %llu %llu %llu %llu %llu", &size, &resident, &shared, &text, &lib, &dataPages) == 6) {
      const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
      addressSpace = size * page;
      data = dataPages * page;
    }
    std::fclose(statm);
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const uint64_t cap = limit.rlim_cur;
    consider(cap > addressSpace ? cap - addressSpace : 0, [&] {
      return "the address space left under this process's limit (ulimit -v " + std::to_string(cap / 1024) + ")";
    });
  }
  if (::getrlimit(RLIMIT_DATA, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const uint64_t cap = limit.rlim_cur;
    consider(cap > data ? cap - data : 0, [&] {
      return "the data segment left under this process's limit (ulimit -d " + std::to_string(cap / 1024) + ")";
    });
  }
  struct sysinfo info {};
  if (::sysinfo(&info) == 0) {
    const uint64_t total = (static_cast<uint64_t>(info.totalram) + info.totalswap) * info.mem_unit;
    consider(total, [&] { return "this machine's memory (" + sizeText(total) + " of RAM and swap)"; });
  }
  return room;
}

enum class ReadOutcome { Complete, Shrank, Failed };

// Reads `size` bytes from the start of `fd` into `buffer`; `error` gets errno on failure.
ReadOutcome readInto(int fd, uint8_t* buffer, std::size_t size, int& error) {
  // Linux moves at most about 2 GiB per read call.
  constexpr std::size_t kMaxChunk = std::size_t(1) << 30;
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n =
        ::pread(fd, buffer + done, std::min(size - done, kMaxChunk), static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = errno;
      return ReadOutcome::Failed;
    }
    if (n == 0) return ReadOutcome::Shrank;
    done += static_cast<std::size_t>(n);
  }
  return ReadOutcome::Complete;
}

bool sameFileState(const struct stat& a, const struct stat& b) {
  return a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec &&
         a.st_ctim.tv_sec == b.st_ctim.tv_sec && a.st_ctim.tv_nsec == b.st_ctim.tv_nsec;
}

// A file another program writes while it is read is read again this many times in all.
constexpr int kReadAttempts = 3;

} // namespace

Expected<SafetensorsFile> SafetensorsFile::parse(const uint8_t* data, std::size_t size, std::string name,
                                                 std::shared_ptr<const void> keepAlive) {
  try {
    if (size < 8)
      throw ParseFailure{name + ": file is too short for a safetensors header (" + std::to_string(size) +
                         " bytes, need at least 8): the file is truncated"};
    uint64_t headerLength = 0;
    for (int i = 7; i >= 0; --i)
      headerLength = (headerLength << 8) | data[i];
    if (headerLength > size - 8)
      throw ParseFailure{name + ": header length " + std::to_string(headerLength) +
                         " exceeds the file size (" + std::to_string(size) +
                         " bytes): the file is truncated"};
    const uint8_t* dataSection = data + 8 + headerLength;
    const uint64_t dataSize = size - 8 - headerLength;

    const Header header = parseHeaderJson(data + 8, static_cast<std::size_t>(headerLength), name);

    SafetensorsFile file;
    file.m_name = name;
    std::vector<Entry> entries;
    entries.reserve(header.values.size());
    for (const auto& [key, value] : header.values) {
      if (key == kMetadataKey) {
        file.m_metadata = parseMetadata(value, header.metadataKeys, file.m_name);
        file.m_hasMetadata = true;
        continue;
      }
      entries.push_back(parseEntry(key, value, dataSize, file.m_name));
    }
    checkOverlaps(entries, file.m_name);

    file.m_tensors.reserve(entries.size());
    file.m_index.reserve(entries.size());
    for (Entry& e : entries) {
      file.m_index.emplace_back(e.key, file.m_tensors.size());
      file.m_tensors.push_back(NamedTensor{
          std::move(e.key), TensorData::view(e.dtype, std::move(e.shape), dataSection + e.begin,
                                             static_cast<std::size_t>(e.end - e.begin), keepAlive)});
    }
    std::sort(file.m_index.begin(), file.m_index.end());
    return file;
  } catch (const ParseFailure& failure) {
    return makeError(failure.message);
  } catch (const std::bad_alloc&) {
    return makeError(name + ": out of memory while parsing the header");
  }
}

Expected<SafetensorsFile> SafetensorsFile::open(const std::string& path) {
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.fd < 0) return makeError(path + ": cannot open: " + errnoText(errno));
  for (int attempt = 1;; ++attempt) {
    struct stat before {};
    if (::fstat(file.fd, &before) != 0) return makeError(path + ": cannot stat: " + errnoText(errno));
    if (!S_ISREG(before.st_mode)) return makeError(path + ": not a regular file");
    if (before.st_size < 0 || static_cast<uint64_t>(before.st_size) > std::numeric_limits<std::size_t>::max())
      return makeError(path + ": file is too large to read");
    const auto size = static_cast<std::size_t>(before.st_size);
    if (size == 0) {
      static const uint8_t kNothing = 0;
      return parse(&kNothing, 0, path, nullptr);
    }
    // Checked before anything is allocated: a huge (possibly sparse) file is refused with its
    // size, not by an allocation failing somewhere below.
    const MemoryRoom room = memoryRoom();
    if (size > room.bytes)
      return makeError(path + ": the file holds " + sizeText(size) + ", more than " + room.what +
                       " can hold: it cannot be read into memory");
    void* address = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (address == MAP_FAILED)
      return makeError(path + ": cannot allocate " + sizeText(size) + " to read the file into: " + errnoText(errno));
    // Huge pages where the kernel has them: one fault per 2 MiB instead of per 4 KiB makes the
    // read about eight times cheaper (87 MB: 35 ms of CPU instead of 300), and later reads of the
    // weights miss the TLB less. Only advice: without it the read is slower, not wrong.
    ::madvise(address, size, MADV_HUGEPAGE);
    std::shared_ptr<const FileBytes> bytes;
    try {
      bytes = std::make_shared<const FileBytes>(address, size);
    } catch (const std::bad_alloc&) {
      ::munmap(address, size);
      return makeError(path + ": out of memory while reading the file");
    }
    int error = 0;
    const ReadOutcome outcome = readInto(file.fd, static_cast<uint8_t*>(address), size, error);
    if (outcome == ReadOutcome::Failed) return makeError(path + ": cannot read: " + errnoText(error));
    struct stat after {};
    if (::fstat(file.fd, &after) != 0) return makeError(path + ": cannot stat: " + errnoText(errno));
    if (outcome == ReadOutcome::Complete && sameFileState(before, after)) {
      ::mprotect(address, size, PROT_READ); // views only read; a stray write faults here, not in the file
      return parse(static_cast<const uint8_t*>(address), size, path, bytes);
    }
    // Another program truncated or wrote the file meanwhile: what was read may mix two versions.
    if (attempt == kReadAttempts)
      return makeError(path + ": the file changed while it was being read (another program is writing it); "
                              "open it again once it is complete");
  }
}

const TensorData* SafetensorsFile::find(const std::string& key) const {
  const auto it = std::lower_bound(
      m_index.begin(), m_index.end(), key,
      [](const std::pair<std::string, std::size_t>& entry, const std::string& k) { return entry.first < k; });
  if (it == m_index.end() || it->first != key) return nullptr;
  return &m_tensors[it->second].tensor;
}

} // namespace lattice
