// The TorchScript plugin (lattice-torchscript.so, the one binary that links LibTorch; see
// TorchScriptPlugin.h): TorchScript archives and torch.save'd tensors through LibTorch, the module
// tree (types, attributes, weights, signatures) and the plugin's entry point. The forward graphs
// are converted in TorchScriptGraph.cpp; a torch.save'd pickle is read by TorchPickle.cpp from
// the zip records LibTorch's PyTorchStreamReader hands out. Deliberately not supported: the
// legacy (pre-1.6, non-zip) torch.save format, and anything the graph converter refuses.
// LibTorch exceptions stop here.
#include "model/torchscript/TorchScriptImporter.h"

#include "model/torchscript/TorchPickle.h"
#include "tensor/TensorData.h"
#include "model/torchscript/TorchScriptGraph.h"
#include "model/torchscript/TorchScriptPlugin.h"

#include <torch/script.h>
#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/versions.h>

#include <algorithm>
#include <cctype>
#include <fstream>

namespace lattice {

namespace jit = torch::jit;

namespace {

constexpr const char* kModuleType = "torch.nn.modules.module.Module";
constexpr const char* kSequentialType = "torch.nn.modules.container.Sequential";

std::optional<DType> dtypeOf(c10::ScalarType type) {
  switch (type) {
  case c10::ScalarType::Bool: return DType::Bool;
  case c10::ScalarType::Byte: return DType::U8;
  case c10::ScalarType::Char: return DType::I8;
  case c10::ScalarType::Short: return DType::I16;
  case c10::ScalarType::Half: return DType::F16;
  case c10::ScalarType::BFloat16: return DType::BF16;
  case c10::ScalarType::Int: return DType::I32;
  case c10::ScalarType::Float: return DType::F32;
  case c10::ScalarType::Double: return DType::F64;
  case c10::ScalarType::Long: return DType::I64;
  default: return std::nullopt;
  }
}

/// Refuses a tensor whose offset, sizes and strides reach outside its storage: an archive's
/// data.pkl may claim any of them, LibTorch does not check them on load, and contiguous() would
/// read past the storage. Overflow-checked. Throws Exception.
void checkExtent(const at::Tensor& tensor, const std::string& file, const std::string& key) {
  if (!tensor.has_storage() || tensor.numel() == 0) return;
  const std::string tooSmall = file + ": tensor '" + key + "': storage (" +
                               std::to_string(tensor.storage().nbytes()) +
                               " bytes) is too small for the tensor's offset, size and stride";
  if (tensor.storage_offset() < 0) throw Exception{tooSmall};
  for (int64_t d = 0; d < tensor.dim(); ++d)
    if (tensor.size(d) != 1 && tensor.stride(d) < 0) throw Exception{file + ": tensor '" + key + "': negative stride"};
  int64_t last = lastStridedIndex(tensor.storage_offset(), tensor.sizes().vec(), tensor.strides().vec());
  if (last < 0) throw Exception{tooSmall}; // overflow
  int64_t endByte = 0;
  if (__builtin_add_overflow(last, int64_t(1), &last) ||
      __builtin_mul_overflow(last, static_cast<int64_t>(tensor.element_size()), &endByte) ||
      static_cast<uint64_t>(endByte) > tensor.storage().nbytes())
    throw Exception{tooSmall};
}

/// A CPU, contiguous view of `tensor` that keeps the LibTorch tensor alive. Throws Exception.
TensorData toTensorData(const at::Tensor& tensor, const std::string& file, const std::string& key) {
  const auto dtype = dtypeOf(tensor.scalar_type());
  if (!dtype)
    throw Exception{file + ": tensor '" + key + "': unsupported dtype " +
                    c10::toString(tensor.scalar_type())};
  checkExtent(tensor, file, key);
  auto held = std::make_shared<at::Tensor>(tensor.detach().to(at::kCPU).contiguous());
  std::vector<int64_t> shape = held->sizes().vec();
  if (held->nbytes() == 0) return TensorData::zeros(*dtype, std::move(shape));
  const auto* data = static_cast<const uint8_t*>(held->data_ptr());
  return TensorData::view(*dtype, std::move(shape), data, held->nbytes(), held);
}

/// torch.fx's leaf rule on a cleaned type: library modules are not given a graph.
bool isLibraryLeaf(const std::string& type) {
  const bool library = type.rfind("torch.nn.", 0) == 0 || type.rfind("torch.ao.nn.", 0) == 0;
  return library && type != kSequentialType;
}

class TreeBuilder {
public:
  explicit TreeBuilder(std::string file) : m_file(std::move(file)) {}

  Model build(const jit::Module& root) {
    m_model.source = m_file;
    m_model.producerName = "torchscript";
    addModule(root, "");
    return std::move(m_model);
  }

private:
  void addModule(const jit::Module& module, const std::string& path) {
    const c10::ClassTypePtr& type = module.type();
    ModuleInfo info;
    info.path = path;
    info.type = cleanTorchScriptTypeName(type->name() ? type->name()->qualifiedName() : type->str());
    if (info.type != kModuleType) info.bases = {kModuleType};
    info.training = module.is_training();

    std::vector<std::pair<std::string, jit::Module>> children;
    for (std::size_t slot = 0; slot < type->numAttributes(); ++slot) {
      const std::string name = type->getAttributeName(slot);
      const c10::IValue value = module._ivalue()->getSlot(slot);
      if (type->getAttribute(slot)->is_module()) {
        info.children.push_back(name);
        children.emplace_back(name, jit::Module(value.toObject()));
      } else if (type->is_parameter(slot)) {
        info.parameters.emplace_back(name, record(info, name, value));
      } else if (type->is_buffer(slot)) {
        info.buffers.emplace_back(name, record(info, name, value));
      } else if (name != "training" && name.rfind('_', 0) != 0) {
        if (auto literal = torchScriptLiteral(value)) info.attributes.emplace_back(name, std::move(*literal));
      }
    }
    for (std::size_t slot = 0; slot < type->numConstants(); ++slot) {
      const std::string& name = type->getConstantName(slot);
      if (name.rfind('_', 0) == 0 || info.attribute(name)) continue;
      if (auto literal = torchScriptLiteral(type->getConstant(slot)))
        info.attributes.emplace_back(name, std::move(*literal));
    }

    if (auto forward = module.find_method("forward")) {
      info.signature = torchScriptSignature(forward->function().getSchema());
      if (!isLibraryLeaf(info.type))
        info.graph = convertTorchScriptForward(module, *forward, path, info.type, m_file);
    }

    m_model.addModule(std::move(info));
    for (const auto& [name, child] : children) addModule(child, path.empty() ? name : path + "." + name);
  }

  std::optional<TensorRecord> record(const ModuleInfo& owner, const std::string& name,
                                     const c10::IValue& value) {
    if (value.isNone()) return std::nullopt;
    const std::string key = owner.childPath(name);
    if (!value.isTensor())
      throw Exception{m_file + ": '" + key + "' is registered as a tensor but holds " + value.tagKind()};
    TensorData tensor = toTensorData(value.toTensor(), m_file, key);
    TensorRecord rec{key, tensor.dtype(), tensor.shape()};
    m_model.setTensor(key, std::move(tensor));
    return rec;
  }

  std::string m_file;
  Model m_model;
};

/// The first non-blank line of `text` (TorchScript's parser errors start with a newline).
std::string firstLine(const char* text) {
  std::string line(text);
  line.erase(0, line.find_first_not_of(" \r\n"));
  line = line.substr(0, line.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

/// Runs `fn`, turning every exception into an Error naming `file`; LibTorch's own messages
/// (`[enforce fail at inline_container.cc:...] ...`) are put after `what` ("not a TorchScript
/// archive"), so the line says what we were reading before what LibTorch saw.
template <typename T, typename Fn>
Expected<T> guarded(const std::string& file, const char* what, Fn&& fn) {
  try {
    return fn();
  } catch (const Exception& e) {
    return makeError(e.message);
  } catch (const c10::Error& e) {
    return makeError(file + ": " + what + ": " + firstLine(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return makeError(file + ": " + what + ": " + firstLine(e.what()));
  }
}

bool hasCode(caffe2::serialize::PyTorchStreamReader& reader) {
  for (const std::string& name : reader.getAllRecords())
    if (name.rfind("code/", 0) == 0) return true;
  return false;
}

/// Refuses class-level assignments that LibTorch 1.13's importer cannot take: `NAME = value`
/// without a type, other than the four special names it knows. It files such a line as a class
/// constant and then reads the absent type annotation (undefined behaviour: a crash or a
/// garbage error), so a corrupt or hand-edited code record must not reach it. The code torch
/// writes is regular (a class body indented by two spaces, methods by `def` at that indent), so
/// a line scan is enough. Throws Exception naming the record and line.
void checkCodeRecords(caffe2::serialize::PyTorchStreamReader& reader, const std::string& path,
                      const std::string& what) {
  static const char* const kSpecial[] = {"__parameters__", "__buffers__", "__forward_pre_hooks__",
                                         "__forward_hooks__"};
  for (const std::string& name : reader.getAllRecords()) {
    if (name.rfind("code/", 0) != 0 || name.size() < 3 || name.compare(name.size() - 3, 3, ".py") != 0) continue;
    auto [data, size] = reader.getRecord(name);
    const std::string text(static_cast<const char*>(data.get()), size);
    bool inClass = false;
    std::size_t lineNo = 0;
    for (std::size_t start = 0; start < text.size();) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      const std::string line = text.substr(start, end - start);
      start = end + 1;
      ++lineNo;
      if (line.rfind("class ", 0) == 0) inClass = true;
      else if (!line.empty() && line[0] != ' ') inClass = false;
      // Class level: exactly two spaces, then an identifier.
      if (!inClass || line.size() < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ') continue;
      std::size_t i = 2;
      while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_')) ++i;
      if (i == 2) continue;
      const std::string ident = line.substr(2, i - 2);
      while (i < line.size() && line[i] == ' ') ++i;
      if (i >= line.size() || line[i] != '=' || (i + 1 < line.size() && line[i + 1] == '=')) continue;
      if (std::find(std::begin(kSpecial), std::end(kSpecial), ident) != std::end(kSpecial)) continue;
      throw Exception{path + ": " + what + ": " + name + ":" + std::to_string(lineNo) + ": class attribute '" +
                      ident + "' is assigned without a type (a corrupt archive)"};
    }
  }
}

uint32_t readLE(const uint8_t* p, int n) {
  uint32_t v = 0;
  for (int i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}
uint64_t readLE64(const uint8_t* p) { return uint64_t(readLE(p, 4)) | uint64_t(readLE(p + 4, 4)) << 32; }

uint32_t crc32(const std::string& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : bytes) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/// Reads `n` bytes at `offset`, or throws `fail` when the file is shorter.
std::string readAt(std::ifstream& in, uint64_t offset, uint64_t n, const std::string& fail) {
  std::string out(static_cast<std::size_t>(n), '\0');
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(out.data(), static_cast<std::streamsize>(n));
  if (!in || static_cast<uint64_t>(in.gcount()) != n) throw Exception{fail};
  return out;
}

/// Checks, without LibTorch, what PyTorchStreamReader's constructor checks after it has opened
/// the zip: a file list, a top folder, and a readable, supported `version` record. LibTorch
/// 1.13 leaks the zip reader's state when its constructor throws after opening (it frees it only
/// in the destructor, which a throwing constructor never runs), so a file it would refuse there
/// must not reach it. A zip with a structure this reader cannot follow is refused here too.
/// Also refuses files LibTorch would misreport: missing, not a zip (with a hint for the legacy
/// torch.save format). `what` ("not a TorchScript archive") starts the reason. Throws Exception.
void checkZip(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Exception{path + ": cannot open file"};
  char magic[4] = {};
  in.read(magic, 4);
  const bool zip = in.gcount() == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
  if (!zip && in.gcount() >= 1 && static_cast<unsigned char>(magic[0]) == 0x80)
    throw Exception{path + ": legacy torch.save format (a bare pickle) is not supported; re-save it with "
                           "torch.save from PyTorch 1.6 or later (zip format)"};
  if (!zip) throw Exception{path + ": not a PyTorch archive (not a zip file)"};

  const std::string bad = path + ": " + what + ": ";
  in.clear();
  in.seekg(0, std::ios::end);
  const uint64_t fileSize = static_cast<uint64_t>(in.tellg());

  // End of central directory: the last 22 bytes, or earlier by a comment of up to 65535 bytes.
  const uint64_t tailSize = std::min<uint64_t>(fileSize, 22 + 65535);
  const std::string tail = readAt(in, fileSize - tailSize, tailSize, bad + "truncated zip file");
  std::size_t eocd = std::string::npos;
  for (std::size_t i = tail.size() >= 22 ? tail.size() - 22 + 1 : 0; i-- > 0;)
    if (readLE(reinterpret_cast<const uint8_t*>(tail.data() + i), 4) == 0x06054b50u) {
      eocd = i;
      break;
    }
  if (eocd == std::string::npos) throw Exception{bad + "zip end of central directory not found"};
  const auto* e = reinterpret_cast<const uint8_t*>(tail.data() + eocd);
  uint64_t entries = readLE(e + 10, 2);
  uint64_t cdSize = readLE(e + 12, 4);
  uint64_t cdOffset = readLE(e + 16, 4);
  const uint64_t eocdAt = fileSize - tailSize + eocd;
  if (entries == 0xFFFF || cdSize == 0xFFFFFFFFu || cdOffset == 0xFFFFFFFFu) {
    // Zip64: a locator 20 bytes before, pointing at the zip64 end record.
    if (eocdAt < 20) throw Exception{bad + "zip64 end of central directory not found"};
    const std::string loc = readAt(in, eocdAt - 20, 20, bad + "truncated zip file");
    const auto* l = reinterpret_cast<const uint8_t*>(loc.data());
    if (readLE(l, 4) != 0x07064b50u) throw Exception{bad + "zip64 end of central directory not found"};
    const uint64_t at = readLE64(l + 8);
    if (at > fileSize || fileSize - at < 56) throw Exception{bad + "zip64 end of central directory out of range"};
    const std::string rec = readAt(in, at, 56, bad + "truncated zip file");
    const auto* r = reinterpret_cast<const uint8_t*>(rec.data());
    if (readLE(r, 4) != 0x06064b50u) throw Exception{bad + "zip64 end of central directory not found"};
    entries = readLE64(r + 32);
    cdSize = readLE64(r + 40);
    cdOffset = readLE64(r + 48);
  }
  if (entries == 0) throw Exception{bad + "the archive holds no files"};
  if (cdOffset > fileSize || cdSize > fileSize - cdOffset)
    throw Exception{bad + "zip central directory out of range"};
  const std::string cd = readAt(in, cdOffset, cdSize, bad + "truncated zip file");

  struct Entry {
    std::string name;
    uint32_t method, crc;
    uint64_t compressed, size, local;
  };
  std::vector<Entry> list;
  std::size_t pos = 0;
  for (uint64_t n = 0; n < entries; ++n) {
    if (cd.size() - pos < 46) throw Exception{bad + "truncated zip central directory"};
    const auto* h = reinterpret_cast<const uint8_t*>(cd.data() + pos);
    if (readLE(h, 4) != 0x02014b50u) throw Exception{bad + "corrupt zip central directory"};
    const std::size_t nameLen = readLE(h + 28, 2), extraLen = readLE(h + 30, 2), commentLen = readLE(h + 32, 2);
    if (cd.size() - pos - 46 < nameLen + extraLen + commentLen) throw Exception{bad + "truncated zip central directory"};
    Entry entry{cd.substr(pos + 46, nameLen), readLE(h + 10, 2), readLE(h + 16, 4),
                readLE(h + 20, 4), readLE(h + 24, 4), readLE(h + 42, 4)};
    // Zip64 extra field (id 1): the 64-bit values of the fields that hold 0xFFFFFFFF, in order.
    const uint8_t* x = h + 46 + nameLen;
    for (std::size_t k = 0; k + 4 <= extraLen;) {
      const uint32_t id = readLE(x + k, 2), len = readLE(x + k + 2, 2);
      if (k + 4 + len > extraLen) break;
      if (id == 1) {
        std::size_t f = k + 4;
        for (uint64_t* field : {&entry.size, &entry.compressed, &entry.local})
          if (*field == 0xFFFFFFFFu && f + 8 <= k + 4 + len) {
            *field = readLE64(x + f);
            f += 8;
          }
      }
      k += 4 + len;
    }
    list.push_back(std::move(entry));
    pos += 46 + nameLen + extraLen + commentLen;
  }

  const std::string& first = list.front().name;
  const std::size_t slash = first.find('/');
  if (slash == std::string::npos) throw Exception{bad + "file in archive is not in a subdirectory: " + first};
  const std::string prefix = first.substr(0, slash + 1);
  const Entry* version = nullptr;
  for (const char* name : {".data/version", "version"}) {
    for (const Entry& entry : list)
      if (entry.name == prefix + name) version = &entry;
    if (version) break;
  }
  if (!version) throw Exception{bad + "the archive has no version record"};
  if (version->method != 0) return; // compressed: torch never writes that; LibTorch reads it
  if (version->size != version->compressed || version->size > 32)
    throw Exception{bad + "unreadable version record"};
  if (version->local > fileSize || fileSize - version->local < 30)
    throw Exception{bad + "version record out of range"};
  const std::string local = readAt(in, version->local, 30, bad + "truncated zip file");
  const auto* lh = reinterpret_cast<const uint8_t*>(local.data());
  if (readLE(lh, 4) != 0x04034b50u) throw Exception{bad + "corrupt zip local header of the version record"};
  const uint64_t dataAt = version->local + 30 + readLE(lh + 26, 2) + readLE(lh + 28, 2);
  if (dataAt > fileSize || fileSize - dataAt < version->size) throw Exception{bad + "version record out of range"};
  const std::string text = readAt(in, dataAt, version->size, bad + "truncated zip file");
  if (crc32(text) != version->crc) throw Exception{bad + "version record fails its CRC check"};

  // As LibTorch parses it: optional blanks, decimal digits, then anything (torch writes "3\n").
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  uint64_t value = 0;
  const std::size_t digits = i;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && value < 1000000; ++i)
    value = value * 10 + static_cast<uint64_t>(text[i] - '0');
  std::string shown;
  for (char c : text)
    shown += std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : std::string("?");
  if (i == digits) throw Exception{bad + "version record '" + shown + "' is not a number"};
  if (value < caffe2::serialize::kMinSupportedFileFormatVersion ||
      value > caffe2::serialize::kMaxSupportedFileFormatVersion)
    throw Exception{bad + "unsupported archive format version " + std::to_string(value) + " (supported: " +
                    std::to_string(caffe2::serialize::kMinSupportedFileFormatVersion) + " to " +
                    std::to_string(caffe2::serialize::kMaxSupportedFileFormatVersion) + ")"};
}

} // namespace

std::string cleanTorchScriptTypeName(const std::string& qualified) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = qualified.find('.', start);
    const std::string part =
        qualified.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const bool drop = (start == 0 && part == "__torch__") || part.rfind("___torch_mangle_", 0) == 0;
    if (!drop) out += (out.empty() ? "" : ".") + part;
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

std::optional<fx::Value> torchScriptLiteral(const c10::IValue& value) {
  if (value.isNone()) return fx::Value::none();
  if (value.isBool()) return fx::Value::boolean(value.toBool());
  if (value.isInt()) return fx::Value::integer(value.toInt());
  if (value.isDouble()) return fx::Value::floating(value.toDouble());
  if (value.isString()) return fx::Value::string(value.toStringRef());
  if (value.isDevice()) return fx::Value::device(value.toDevice().str());
  if (value.isTuple() || value.isList()) {
    fx::ValueList items;
    auto convert = [&](const c10::IValue& item) {
      auto v = torchScriptLiteral(item);
      if (v) items.push_back(std::move(*v));
      return v.has_value();
    };
    if (value.isTuple()) {
      for (const c10::IValue& item : value.toTupleRef().elements())
        if (!convert(item)) return std::nullopt;
      return fx::Value::tuple(std::move(items));
    }
    for (const c10::IValue& item : value.toListRef())
      if (!convert(item)) return std::nullopt;
    return fx::Value::list(std::move(items));
  }
  return std::nullopt;
}

std::vector<SignatureParam> torchScriptSignature(const c10::FunctionSchema& schema) {
  std::vector<SignatureParam> params;
  const auto& args = schema.arguments();
  for (std::size_t i = 1; i < args.size(); ++i) { // 0 is self
    SignatureParam p;
    p.name = args[i].name();
    p.kind = args[i].kwarg_only() ? ParamKind::KeywordOnly : ParamKind::PositionalOrKeyword;
    if (args[i].default_value()) p.defaultValue = torchScriptLiteral(*args[i].default_value());
    params.push_back(std::move(p));
  }
  return params;
}

namespace {

Expected<Model> importModule(const std::string& path) {
  constexpr const char* kWhat = "not a TorchScript archive";
  return guarded<Model>(path, kWhat, [&]() -> Expected<Model> {
    checkZip(path, kWhat);
    {
      caffe2::serialize::PyTorchStreamReader reader(path);
      if (!hasCode(reader))
        return makeError(path + ": not a TorchScript module (the archive holds no code; a torch.save'd "
                                "state_dict carries weights only: apply it to a model as a checkpoint)");
      checkCodeRecords(reader, path, kWhat);
    }
    jit::Module module = jit::load(path, c10::Device(c10::kCPU));
    return TreeBuilder(path).build(module);
  });
}

Expected<std::vector<NamedTensor>> readTensors(const std::string& path) {
  constexpr const char* kWhat = "not a torch.save checkpoint";
  return guarded<std::vector<NamedTensor>>(path, kWhat, [&]() -> Expected<std::vector<NamedTensor>> {
    checkZip(path, kWhat);
    std::vector<NamedTensor> out;
    caffe2::serialize::PyTorchStreamReader reader(path);
    if (hasCode(reader)) {
      checkCodeRecords(reader, path, kWhat);
      jit::Module module = jit::load(path, c10::Device(c10::kCPU));
      for (const auto& p : module.named_parameters(true))
        out.push_back({p.name, toTensorData(p.value, path, p.name)});
      for (const auto& b : module.named_buffers(true))
        out.push_back({b.name, toTensorData(b.value, path, b.name)});
      return out;
    }
    if (!reader.hasRecord("data.pkl")) return makeError(path + ": not a torch.save archive (no data.pkl)");
    auto [pickleData, pickleSize] = reader.getRecord("data.pkl");
    const std::string pickle(static_cast<const char*>(pickleData.get()), pickleSize);
    auto load = [&reader](const std::string& key) {
      auto [data, size] = reader.getRecord("data/" + key);
      auto held = std::make_shared<at::DataPtr>(std::move(data));
      return TorchStorageBytes{static_cast<const uint8_t*>(held->get()), size, held};
    };
    return unpickleTorchTensors(pickle, load, path);
  });
}

} // namespace

} // namespace lattice

/// The plugin's entry point (TorchScriptPlugin.h); every other symbol of the plugin is hidden.
extern "C" __attribute__((visibility("default"))) const lattice::TorchScriptPlugin*
lattice_torchscript_plugin(const char* abi) {
  static const lattice::TorchScriptPlugin plugin{&lattice::importModule, &lattice::readTensors};
  return abi && lattice::torchScriptPluginAbi() == abi ? &plugin : nullptr;
}
