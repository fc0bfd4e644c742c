// The archive's recorded inputs and activations (fx-archive.md, top section): finding and mapping
// the two optional files, splitting activation keys by the naming rule, grouping each node's
// tensors into recorded values, and warning about tensors that fit no node.
#include "model/ArchiveRecordings.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_set>

namespace lattice {

namespace {

bool isIdentifierChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool isIndex(const std::string& text) {
  if (text.empty() || text.size() > 18) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return text.size() == 1 || text[0] != '0';
}

bool isSparsePart(const std::string& text) { return text == "coords" || text == "features" || text == "active"; }

std::string joinPath(const std::string& dir, const char* file) {
  return (std::filesystem::path(dir) / file).string();
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// The problem with a sparse value's three parts, or "" when they fit together: coords I32
/// (n, 4), features (n, C), active I32 (1,) with 0 <= active <= n.
std::string sparseProblem(const RecordedValue& v) {
  const TensorData& c = v.coords;
  const TensorData& f = v.features;
  const TensorData& a = v.active;
  if (c.dtype() != DType::I32 || c.shape().size() != 2 || c.shape()[1] != 4)
    return "coords must be I32 (n, 4), got " + std::string(dtypeName(c.dtype())) + " " + shapeText(c.shape());
  if (a.dtype() != DType::I32 || a.shape() != std::vector<int64_t>{1})
    return "active must be I32 [1], got " + std::string(dtypeName(a.dtype())) + " " + shapeText(a.shape());
  if (f.shape().size() != 2 || f.shape()[0] != c.shape()[0])
    return "features must be (n, C) with n = " + std::to_string(c.shape()[0]) + " coords rows, got " +
           shapeText(f.shape());
  std::int32_t active = 0;
  std::memcpy(&active, a.data(), sizeof active); // views may be unaligned
  if (active < 0 || active > c.shape()[0])
    return "active is " + std::to_string(active) + ", outside [0, " + std::to_string(c.shape()[0]) + "]";
  return {};
}

bool indicesLess(const RecordedValue& x, const RecordedValue& y, const std::map<std::string, ActivationKey>& keys) {
  return keys.at(x.name).indices < keys.at(y.name).indices;
}

} // namespace

std::string ActivationKey::valueName() const {
  std::string out = node;
  for (int64_t i : indices) out += "." + std::to_string(i);
  return out;
}

std::optional<ActivationKey> parseActivationKey(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t dot = key.find('.', begin);
    parts.push_back(key.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin));
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  ActivationKey out;
  out.node = parts[0];
  if (out.node.empty() || !std::all_of(out.node.begin(), out.node.end(), isIdentifierChar)) return std::nullopt;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (isIndex(parts[i])) {
      out.indices.push_back(std::stoll(parts[i]));
    } else if (i + 1 == parts.size() && isSparsePart(parts[i])) {
      out.part = parts[i];
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::string ArchiveRecordings::metadata(const std::string& key) const {
  for (const std::shared_ptr<const SafetensorsFile>& file : {activations, inputs}) {
    if (!file) continue;
    for (const auto& [k, v] : file->metadata())
      if (k == key) return v;
  }
  return {};
}

std::vector<RecordedValue> ArchiveRecordings::valuesOf(const std::string& nodeName) const {
  auto it = byNode.find(nodeName);
  return it == byNode.end() ? std::vector<RecordedValue>{} : it->second;
}

ArchiveRecordingFiles findArchiveRecordings(const std::string& dir) {
  std::error_code ec;
  ArchiveRecordingFiles files;
  files.inputs = std::filesystem::exists(joinPath(dir, kArchiveInputsFile), ec);
  files.activations = std::filesystem::exists(joinPath(dir, kArchiveActivationsFile), ec);
  return files;
}

namespace {

bool physicalCoords(const SafetensorsFile& file) {
  for (const auto& [k, v] : file.metadata())
    if (k == kRecordedCoordsKey) return v == kRecordedCoordsPhysical;
  return false;
}

} // namespace

Expected<ArchiveRecordings> readArchiveRecordings(const std::string& dir, const std::vector<std::string>& nodeNames) {
  ArchiveRecordings r;
  r.dir = dir;
  const ArchiveRecordingFiles files = findArchiveRecordings(dir);
  if (files.inputs) {
    Expected<SafetensorsFile> f = SafetensorsFile::open(joinPath(dir, kArchiveInputsFile));
    if (!f) return f.error();
    r.inputs = std::make_shared<const SafetensorsFile>(std::move(*f));
    r.inputsPhysical = physicalCoords(*r.inputs);
  }
  if (!files.activations) return r;
  Expected<SafetensorsFile> f = SafetensorsFile::open(joinPath(dir, kArchiveActivationsFile));
  if (!f) return f.error();
  r.activations = std::make_shared<const SafetensorsFile>(std::move(*f));
  r.activationsPhysical = physicalCoords(*r.activations);

  const std::string file = kArchiveActivationsFile;
  const std::unordered_set<std::string> nodes(nodeNames.begin(), nodeNames.end());
  std::vector<const NamedTensor*> sorted;
  for (const NamedTensor& t : r.activations->tensors()) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(), [](const NamedTensor* a, const NamedTensor* b) { return a->key < b->key; });

  // Value name → its parts, in key order; then grouped per node.
  std::map<std::string, ActivationKey> keys; // value name → parsed key (without part)
  std::map<std::string, RecordedValue> values;
  std::map<std::string, std::set<std::string>> sparseParts;
  std::set<std::string> dense;
  for (const NamedTensor* t : sorted) {
    std::optional<ActivationKey> key = parseActivationKey(t->key);
    if (!key) {
      r.warnings.push_back(file + ": tensor '" + t->key +
                           "' is not named NODE, NODE.<index>... or NODE[.<index>...].coords|features|active");
      continue;
    }
    if (!nodes.empty() && !nodes.count(key->node)) {
      r.warnings.push_back(file + ": tensor '" + t->key + "' matches no node of the traced graph");
      continue;
    }
    const std::string name = key->valueName();
    RecordedValue& v = values[name];
    v.name = name;
    v.node = key->node;
    if (key->part.empty()) {
      v.tensor = t->tensor;
      dense.insert(name);
    } else {
      v.sparse = true;
      (key->part == "coords" ? v.coords : key->part == "features" ? v.features : v.active) = t->tensor;
      sparseParts[name].insert(key->part);
    }
    key->part.clear();
    keys.emplace(name, std::move(*key));
  }
  for (auto& [name, v] : values) {
    if (v.sparse && dense.count(name)) {
      r.warnings.push_back(file + ": '" + name + "' is recorded both as a tensor and as a sparse value");
      continue;
    }
    if (v.sparse) {
      const std::set<std::string>& have = sparseParts[name];
      std::string missing;
      for (const char* part : {"coords", "features", "active"})
        if (!have.count(part)) missing += (missing.empty() ? "" : ", ") + name + "." + part;
      if (!missing.empty()) {
        r.warnings.push_back(file + ": sparse value '" + name + "' lacks " + missing);
        continue;
      }
      if (std::string problem = sparseProblem(v); !problem.empty()) {
        r.warnings.push_back(file + ": sparse value '" + name + "': " + problem);
        continue;
      }
    }
    r.byNode[v.node].push_back(v);
  }
  for (auto& [node, list] : r.byNode)
    std::stable_sort(list.begin(), list.end(),
                     [&](const RecordedValue& a, const RecordedValue& b) { return indicesLess(a, b, keys); });
  return r;
}

} // namespace lattice
