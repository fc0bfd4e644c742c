// Safetensors writing with the reference writer's byte conventions (lattice-artifact-format.md
// §13.1): compact header JSON with `__metadata__` first and entry keys in the order dtype, shape,
// data_offsets; tensors sorted by dtype rank descending, then key by bytes; data packed without
// gaps; header padded with spaces to a multiple of 8. Strings are escaped as serde_json does.
// Writing is not atomic: a failed or cancelled write removes the partial file, nothing more.

#include "tensor/Safetensors.h"

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>

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
  absl::flat_hash_set<std::string_view> keys;
  keys.reserve(tensors.size());
  for (const NamedTensor& t : tensors) {
    if (t.key == "__metadata__")
      return makeError(path + ": tensor key '__metadata__' is reserved for metadata");
    if (!keys.insert(t.key).second) return makeError(path + ": duplicate tensor key '" + t.key + "'");
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

// The tensor data of a file as the pieces it is written in: bytes [offset, offset + size) of one
// tensor. A tensor whose bytes exist is written straight from them in pieces of kChunkSize (the
// progress granularity). A deferred tensor is computed piece by piece into a scratch buffer: in
// pieces of about kProducePiece whole slices when its producer computes slices (a re-laid conv
// weight, one output channel a slice), else whole.
struct Piece {
  const TensorData* tensor;
  std::size_t offset;
  std::size_t size;
  bool produced; // computed into a scratch buffer, not read from the tensor's bytes
  bool sliced;   // computed by produceRangeInto (else whole, by produceInto)
};

constexpr std::size_t kProducePiece = std::size_t(1) << 20; // two of them stay in a core's L2

std::vector<Piece> splitIntoPieces(const std::vector<const NamedTensor*>& sorted) {
  std::vector<Piece> pieces;
  for (const NamedTensor* t : sorted) {
    const TensorData& tensor = t->tensor;
    const std::size_t total = tensor.byteSize();
    if (total == 0) continue;
    if (!tensor.isDeferred()) {
      for (std::size_t at = 0; at < total; at += kChunkSize)
        pieces.push_back({&tensor, at, std::min(kChunkSize, total - at), false, false});
      continue;
    }
    const std::size_t slice = tensor.rangeGranularity();
    if (slice == 0) {
      pieces.push_back({&tensor, 0, total, true, false});
      continue;
    }
    const std::size_t step = std::max(slice, kProducePiece / slice * slice);
    for (std::size_t at = 0; at < total; at += step)
      pieces.push_back({&tensor, at, std::min(step, total - at), true, true});
  }
  return pieces;
}

// Computes produced pieces, one at a time, into one scratch buffer (about 1 MiB, so it stays in
// cache between the re-layout that fills it and the write that copies it into the file).
class PieceProducer {
public:
  explicit PieceProducer(const std::vector<Piece>& pieces) : m_pieces(pieces) {}

  const uint8_t* take(std::size_t index) {
    const Piece& p = m_pieces[index];
    if (m_buffer.size() < p.size) m_buffer.resize(p.size);
    if (p.sliced)
      p.tensor->produceRangeInto(m_buffer.data(), p.offset, p.size);
    else
      p.tensor->produceInto(m_buffer.data());
    return m_buffer.data();
  }

private:
  const std::vector<Piece>& m_pieces;
  std::vector<uint8_t> m_buffer;
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
  const std::vector<Piece> pieces = splitIntoPieces(sorted);
  PieceProducer producer(pieces);
  for (std::size_t i = 0; status && i < pieces.size(); ++i) {
    const Piece& piece = pieces[i];
    const uint8_t* bytes = piece.produced ? producer.take(i) : piece.tensor->data() + piece.offset;
    status = put(bytes, piece.size);
  }
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
