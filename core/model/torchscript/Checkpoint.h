#pragma once
/// \file Checkpoints: replacing a model's weights with the tensors of a `.safetensors` file or
/// a `torch.save`d state_dict, checked key by key against the model's parameter and buffer
/// records. The module tree, graphs and records never change; only `Model::tensors()` does.
///
/// The studio's File ▸ Load Weights… and lattice-cli's `--weights FILE [--allow-partial]` both
/// call loadWeights(); the next trace or export then uses the new tensors.

#include "model/Model.h"
#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <string>
#include <vector>

namespace lattice {

/// Named tensors read from a checkpoint file.
struct Checkpoint {
  std::string source;               ///< the file, for messages
  std::vector<NamedTensor> tensors; ///< in file order
};

/// Reads a checkpoint by its content, not its name: a zip is a PyTorch archive (a
/// `torch.save`d state_dict, optionally wrapped as {"state_dict": ...}, or a TorchScript
/// module's parameters and buffers); anything else is read as safetensors. Errors name the file.
Expected<Checkpoint> readCheckpoint(const std::string& path);

/// One way a checkpoint disagrees with a model.
struct CheckpointIssue {
  enum class Kind : unsigned char { Missing, Unexpected, Mismatch };
  Kind kind = Kind::Missing;
  std::string key;
  /// One line naming the key: "'2.bias': missing from the checkpoint",
  /// "'0.weight': shape [6, 4] in the checkpoint, [8, 4] in the model".
  std::string message;
};

/// What comparing (and applying) a checkpoint found.
struct CheckpointReport {
  std::string source;
  std::size_t modelTensors = 0; ///< distinct parameter/buffer keys the model records
  std::size_t matched = 0;      ///< keys present with equal dtype and shape (applied by apply)
  /// Missing keys (model order), then unexpected keys (checkpoint order), then mismatches.
  std::vector<CheckpointIssue> issues;

  bool clean() const { return issues.empty(); }
  /// "<source>: 4 of 4 tensors matched" plus ", 1 missing, 1 unexpected, 2 mismatched" when so.
  std::string summary() const;
};

struct CheckpointOptions {
  /// Apply the matching tensors even when some keys are missing, unexpected or mismatched.
  bool allowPartial = false;
};

/// Compares without changing anything. The model's keys are the keys of its parameter and
/// buffer records (None slots have none); tensors the model holds without a record are ignored.
CheckpointReport compareCheckpoint(const Model& model, const Checkpoint& checkpoint);

/// Replaces the tensor of every matching key. Refuses (an error listing the first issues; the
/// model unchanged) when the report is not clean and `allowPartial` is false, and always when
/// issues exist but not a single key matched.
Expected<CheckpointReport> applyCheckpoint(Model& model, const Checkpoint& checkpoint,
                                           const CheckpointOptions& options = {});

/// readCheckpoint + applyCheckpoint: the one call the CLI and the studio make.
Expected<CheckpointReport> loadWeights(Model& model, const std::string& path,
                                       const CheckpointOptions& options = {});

} // namespace lattice
