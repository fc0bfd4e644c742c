// Checkpoints: reading (safetensors here, PyTorch archives through TorchScriptImporter.cpp),
// comparing with a model's parameter and buffer records, and applying. Dtypes are never
// converted: a tensor of another dtype or shape is a mismatch, not something to coerce.
#include "model/torchscript/Checkpoint.h"

#include "model/torchscript/TorchScriptImporter.h"

#include <set>
#include <unordered_map>

namespace lattice {

namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The model's records, one per key, in module order (parameters, then buffers).
std::vector<const TensorRecord*> modelRecords(const Model& model) {
  std::vector<const TensorRecord*> records;
  std::set<std::string> seen;
  auto add = [&](const auto& slots) {
    for (const auto& slot : slots)
      if (slot.second && seen.insert(slot.second->key).second) records.push_back(&*slot.second);
  };
  for (const ModuleInfo& module : model.modules()) {
    add(module.parameters);
    add(module.buffers);
  }
  return records;
}

/// Compares; `matches` (optional) receives the checkpoint tensors that can be applied.
CheckpointReport compare(const Model& model, const Checkpoint& checkpoint,
                         std::vector<const NamedTensor*>* matches) {
  CheckpointReport report;
  report.source = checkpoint.source;
  const std::vector<const TensorRecord*> records = modelRecords(model);
  report.modelTensors = records.size();

  std::unordered_map<std::string, const NamedTensor*> byKey;
  for (const NamedTensor& t : checkpoint.tensors) byKey.emplace(t.key, &t);

  std::vector<CheckpointIssue> missing, unexpected, mismatched;
  std::set<std::string> known;
  using Kind = CheckpointIssue::Kind;
  for (const TensorRecord* record : records) {
    known.insert(record->key);
    auto it = byKey.find(record->key);
    if (it == byKey.end()) {
      missing.push_back({Kind::Missing, record->key, "'" + record->key + "': missing from the checkpoint"});
      continue;
    }
    const TensorData& tensor = it->second->tensor;
    std::vector<std::string> diffs;
    if (tensor.dtype() != record->dtype)
      diffs.push_back("dtype " + std::string(dtypeName(tensor.dtype())) + " in the checkpoint, " +
                      std::string(dtypeName(record->dtype)) + " in the model");
    if (tensor.shape() != record->shape)
      diffs.push_back("shape " + shapeText(tensor.shape()) + " in the checkpoint, " +
                      shapeText(record->shape) + " in the model");
    if (diffs.empty()) {
      ++report.matched;
      if (matches) matches->push_back(it->second);
      continue;
    }
    std::string message = "'" + record->key + "': " + diffs[0];
    if (diffs.size() > 1) message += "; " + diffs[1];
    mismatched.push_back({Kind::Mismatch, record->key, std::move(message)});
  }
  for (const NamedTensor& t : checkpoint.tensors)
    if (!known.count(t.key))
      unexpected.push_back(
          {Kind::Unexpected, t.key, "'" + t.key + "': not a parameter or buffer of the model"});

  for (auto* list : {&missing, &unexpected, &mismatched})
    for (CheckpointIssue& issue : *list) report.issues.push_back(std::move(issue));
  return report;
}

std::string refusal(const CheckpointReport& report) {
  constexpr std::size_t kShown = 3;
  std::string details;
  for (std::size_t i = 0; i < report.issues.size() && i < kShown; ++i)
    details += (i ? "; " : "") + report.issues[i].message;
  if (report.issues.size() > kShown)
    details += "; and " + std::to_string(report.issues.size() - kShown) + " more";
  const std::string what = report.matched == 0 ? "no tensor of the checkpoint matches the model"
                                               : "checkpoint does not match the model";
  const std::string counts = report.summary().substr(report.source.size() + 2);
  return report.source + ": " + what + " (" + counts + "): " + details;
}

} // namespace

std::string CheckpointReport::summary() const {
  std::size_t counts[3] = {0, 0, 0};
  for (const CheckpointIssue& issue : issues) ++counts[static_cast<int>(issue.kind)];
  std::string out =
      source + ": " + std::to_string(matched) + " of " + std::to_string(modelTensors) + " tensors matched";
  const char* names[3] = {"missing", "unexpected", "mismatched"};
  for (int i = 0; i < 3; ++i)
    if (counts[i]) out += ", " + std::to_string(counts[i]) + " " + names[i];
  return out;
}

Expected<Checkpoint> readCheckpoint(const std::string& path) {
  Checkpoint checkpoint;
  checkpoint.source = path;
  // Content decides; the extension only routes a non-zip .pt (a legacy pickle) to the reader
  // that can say so.
  if (isZipFile(path) || endsWith(path, ".pt") || endsWith(path, ".pth") || endsWith(path, ".ckpt")) {
    auto tensors = readTorchTensors(path);
    if (!tensors) return tensors.error();
    checkpoint.tensors = std::move(*tensors);
    return checkpoint;
  }
  auto file = SafetensorsFile::open(path);
  if (!file) return file.error();
  checkpoint.tensors = file->tensors(); // views that keep the file's bytes alive
  return checkpoint;
}

CheckpointReport compareCheckpoint(const Model& model, const Checkpoint& checkpoint) {
  return compare(model, checkpoint, nullptr);
}

Expected<CheckpointReport> applyCheckpoint(Model& model, const Checkpoint& checkpoint,
                                           const CheckpointOptions& options) {
  std::vector<const NamedTensor*> matches;
  CheckpointReport report = compare(model, checkpoint, &matches);
  if (!report.clean() && (!options.allowPartial || report.matched == 0)) return makeError(refusal(report));
  for (const NamedTensor* t : matches) model.setTensor(t->key, t->tensor);
  return report;
}

Expected<CheckpointReport> loadWeights(Model& model, const std::string& path,
                                       const CheckpointOptions& options) {
  auto checkpoint = readCheckpoint(path);
  if (!checkpoint) return checkpoint.error();
  return applyCheckpoint(model, *checkpoint, options);
}

} // namespace lattice
