// Safetensors writing with the reference writer's byte conventions (lattice-artifact-format.md
// §13.1): compact header JSON with `__metadata__` first and entry keys in the order dtype, shape,
// data_offsets; tensors sorted by dtype rank descending, then key by bytes; data packed without
// gaps; header padded with spaces to a multiple of 8. Strings are escaped as serde_json does.
// Writing is not atomic: a failed or cancelled write removes the partial file, nothing more.

#include "tensor/Safetensors.h"

#include "support/StringMap.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <future>
#include <limits>
#include <memory>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lattice {

namespace {

constexpr std::size_t kBufferSize = std::size_t(1) << 20; // coalesces small tensors
constexpr std::size_t kChunkSize = std::size_t(8) << 20;  // progress granularity for large ones

void appendJsonString(std::string& out, const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  out += '"';
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (u < 0x20) {
        out += "\\u00";
        out += kHex[u >> 4];
        out += kHex[u & 15];
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

std::string errnoText(int error) {
  return std::strerror(error);
}

// Buffered writes straight to a file descriptor; the first failure is kept in `error`.
class FileWriter {
public:
  explicit FileWriter(std::string path) : m_path(std::move(path)) {}
  ~FileWriter() {
    if (m_fd >= 0) ::close(m_fd);
  }
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  Status open() {
    m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (m_fd < 0) return makeError(m_path + ": cannot create: " + errnoText(errno));
    // Only a regular file we truncated is ours to delete on failure (never /dev/null or a fifo).
    struct stat info {};
    m_removable = ::fstat(m_fd, &info) == 0 && S_ISREG(info.st_mode);
    m_buffer.reserve(kBufferSize);
    return {};
  }

  Status write(const uint8_t* data, std::size_t size) {
    if (m_buffer.size() + size <= kBufferSize) {
      m_buffer.insert(m_buffer.end(), data, data + size);
      return {};
    }
    Status flushed = flush();
    if (!flushed) return flushed;
    if (size <= kBufferSize) {
      m_buffer.insert(m_buffer.end(), data, data + size);
      return {};
    }
    return writeDirect(data, size);
  }

  Status flush() {
    Status status = writeDirect(m_buffer.data(), m_buffer.size());
    m_buffer.clear();
    return status;
  }

  Status close() {
    Status flushed = flush();
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0 && flushed) return makeError(m_path + ": cannot write: " + errnoText(errno));
    return flushed;
  }

  // Closes (ignoring errors) and deletes the partial file.
  void discard() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
    if (m_removable) ::unlink(m_path.c_str());
  }

private:
  Status writeDirect(const uint8_t* data, std::size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(m_fd, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return makeError(m_path + ": cannot write: " + errnoText(errno));
      data += n;
      size -= static_cast<std::size_t>(n);
    }
    return {};
  }

  std::string m_path;
  int m_fd = -1;
  bool m_removable = false;
  std::vector<uint8_t> m_buffer;
};

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// The reader's invariants, checked before anything touches the disk.
Status checkTensors(const std::string& path, const std::vector<NamedTensor>& tensors) {
  StringMap<bool> keys;
  for (const NamedTensor& t : tensors) {
    if (t.key == "__metadata__")
      return makeError(path + ": tensor key '__metadata__' is reserved for metadata");
    if (!keys.insert(t.key, true).second) return makeError(path + ": duplicate tensor key '" + t.key + "'");
    const int64_t numel = t.tensor.numel();
    const std::size_t elementSize = dtypeSize(t.tensor.dtype());
    if (numel < 0 || static_cast<uint64_t>(numel) > std::numeric_limits<std::size_t>::max() / elementSize ||
        static_cast<std::size_t>(numel) * elementSize != t.tensor.byteSize())
      return makeError(path + ": tensor '" + t.key + "': " + std::to_string(t.tensor.byteSize()) +
                       " bytes do not match " + std::string(dtypeName(t.tensor.dtype())) + " shape " +
                       shapeText(t.tensor.shape()));
  }
  return {};
}

// Produces the deferred tensors of `sorted`, in order, one ahead of the writer: take(i) returns
// tensor i's bytes (waiting for the worker when it was started, producing in place otherwise);
// startAfter(i) starts the next deferred tensor after i on a worker into the other buffer (only
// when it is at least 1 MiB: smaller ones are produced in place).
class DeferredPipeline {
public:
  explicit DeferredPipeline(const std::vector<const NamedTensor*>& sorted) : m_sorted(sorted) {}
  ~DeferredPipeline() { finish(); }
  DeferredPipeline(const DeferredPipeline&) = delete;
  DeferredPipeline& operator=(const DeferredPipeline&) = delete;

  const uint8_t* take(std::size_t index) {
    if (m_pendingIndex == index) {
      m_pending.get();
      m_pendingIndex = kNone;
      m_current = m_pendingSlot;
      return m_buffers[m_current].get();
    }
    finish();
    m_current = 0;
    uint8_t* dst = reserve(m_current, m_sorted[index]->tensor.byteSize());
    m_sorted[index]->tensor.produceInto(dst);
    return dst;
  }

  void startAfter(std::size_t index) {
    if (m_pendingIndex != kNone) return;
    std::size_t next = index + 1;
    while (next < m_sorted.size() && !m_sorted[next]->tensor.isDeferred()) ++next;
    if (next >= m_sorted.size()) return;
    const TensorData* tensor = &m_sorted[next]->tensor;
    if (tensor->byteSize() < kOverlapMinBytes) return; // a thread costs more than it saves
    m_pendingSlot = m_current ^ 1u;
    uint8_t* dst = reserve(m_pendingSlot, tensor->byteSize());
    m_pending = std::async(std::launch::async, [tensor, dst] { tensor->produceInto(dst); });
    m_pendingIndex = next;
  }

  /// Waits for a started production (its buffer must outlive it).
  void finish() {
    if (m_pending.valid()) m_pending.wait();
    m_pending = {};
    m_pendingIndex = kNone;
  }

private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  static constexpr std::size_t kOverlapMinBytes = std::size_t(1) << 20;

  uint8_t* reserve(unsigned slot, std::size_t size) {
    if (m_sizes[slot] < size) {
      m_buffers[slot].reset(new uint8_t[size]);
      m_sizes[slot] = size;
    }
    return m_buffers[slot].get();
  }

  const std::vector<const NamedTensor*>& m_sorted;
  std::unique_ptr<uint8_t[]> m_buffers[2];
  std::size_t m_sizes[2] = {0, 0};
  unsigned m_current = 0;
  unsigned m_pendingSlot = 1;
  std::size_t m_pendingIndex = kNone;
  std::future<void> m_pending;
};

} // namespace

void sortForSafetensors(std::vector<const NamedTensor*>& tensors) {
  std::stable_sort(tensors.begin(), tensors.end(), [](const NamedTensor* a, const NamedTensor* b) {
    const int rankA = dtypeRank(a->tensor.dtype());
    const int rankB = dtypeRank(b->tensor.dtype());
    if (rankA != rankB) return rankA > rankB;
    // std::string compares through char_traits<char>, which orders like memcmp (unsigned bytes).
    return a->key < b->key;
  });
}

std::string safetensorsHeader(const std::vector<const NamedTensor*>& sortedTensors,
                              const std::optional<SafetensorsMetadata>& metadata) {
  std::string json = "{";
  bool first = true;
  if (metadata) {
    json += "\"__metadata__\":{";
    for (std::size_t i = 0; i < metadata->size(); ++i) {
      if (i) json += ',';
      appendJsonString(json, (*metadata)[i].first);
      json += ':';
      appendJsonString(json, (*metadata)[i].second);
    }
    json += '}';
    first = false;
  }
  uint64_t offset = 0;
  for (const NamedTensor* t : sortedTensors) {
    if (!first) json += ',';
    first = false;
    appendJsonString(json, t->key);
    json += ":{\"dtype\":\"";
    json += dtypeName(t->tensor.dtype());
    json += "\",\"shape\":[";
    const std::vector<int64_t>& shape = t->tensor.shape();
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (i) json += ',';
      json += std::to_string(shape[i]);
    }
    const uint64_t end = offset + t->tensor.byteSize();
    json += "],\"data_offsets\":[" + std::to_string(offset) + ',' + std::to_string(end) + "]}";
    offset = end;
  }
  json += '}';
  json.append((8 - json.size() % 8) % 8, ' ');

  std::string out(8, '\0');
  uint64_t length = json.size();
  for (std::size_t i = 0; i < 8; ++i, length >>= 8)
    out[i] = static_cast<char>(length & 0xff);
  return out + json;
}

Status writeSafetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                        const std::optional<SafetensorsMetadata>& metadata,
                        const std::function<bool(uint64_t, uint64_t)>& progress) {
  Status valid = checkTensors(path, tensors);
  if (!valid) return valid;

  std::vector<const NamedTensor*> sorted;
  sorted.reserve(tensors.size());
  for (const NamedTensor& t : tensors)
    sorted.push_back(&t);
  sortForSafetensors(sorted);
  const std::string header = safetensorsHeader(sorted, metadata);

  uint64_t total = header.size();
  for (const NamedTensor* t : sorted)
    total += t->tensor.byteSize();

  FileWriter file(path);
  Status opened = file.open();
  if (!opened) return opened;

  uint64_t written = 0;
  // Writes one piece and reports it; an error or a cancellation removes the partial file.
  auto put = [&](const uint8_t* data, std::size_t size) -> Status {
    Status status = file.write(data, size);
    if (!status) {
      file.discard();
      return status;
    }
    written += size;
    if (progress && !progress(written, total)) {
      file.discard();
      return makeError(path + ": writing cancelled");
    }
    return {};
  };

  Status status = put(reinterpret_cast<const uint8_t*>(header.data()), header.size());
  // Deferred tensors are produced into one of two scratch buffers, never kept: while tensor i is
  // written, the next deferred tensor is produced on a worker thread into the other buffer, so
  // re-laying weights overlaps with the write.
  DeferredPipeline pipeline(sorted);
  for (std::size_t i = 0; status && i < sorted.size(); ++i) {
    const TensorData& tensor = sorted[i]->tensor;
    const uint8_t* bytes = tensor.isDeferred() ? pipeline.take(i) : tensor.data();
    pipeline.startAfter(i);
    std::size_t done = 0;
    do {
      const std::size_t piece = std::min(kChunkSize, tensor.byteSize() - done);
      status = put(bytes + done, piece);
      done += piece;
    } while (status && done < tensor.byteSize());
  }
  pipeline.finish();
  if (!status) return status;
  Status closed = file.close();
  if (!closed) {
    file.discard();
    return closed;
  }
  return {};
}

SafetensorsMetadata torchWeightsMetadata() {
  return {{"format", "torch"}};
}

} // namespace lattice
