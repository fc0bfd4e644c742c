#pragma once
/// \file The inputs of a run, from one of three sources: random points made from the artifact's
/// ABI (`--random-inputs N[:SEED] --batch-size B`, the studio's Random), an inputs file
/// (`--inputs FILE`), or an archive's recorded `inputs.safetensors`. One loader for
/// `lattice-cli run`, `check` and `diff --inputs`, the studio's model runs and its artifact run bar.

#include "model/ArchiveRecordings.h"
#include "runtime/RandomInputs.h"
#include "runtime/Runtime.h"
#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <optional>
#include <string>
#include <vector>

namespace lattice {

struct RunInputSpec {
  enum class Source { Random, File, Recorded };
  Source source = Source::Random;
  /// Source::Random: points, seed and batch count.
  runtime::RandomInputOptions random;
  /// Source::File: the inputs .safetensors.
  std::string file;

  static RunInputSpec randomPoints(const runtime::RandomInputOptions& options) {
    RunInputSpec spec;
    spec.random = options;
    return spec;
  }
  static RunInputSpec fromFile(std::string path) {
    RunInputSpec spec;
    spec.source = Source::File;
    spec.file = std::move(path);
    return spec;
  }
  static RunInputSpec recorded() {
    RunInputSpec spec;
    spec.source = Source::Recorded;
    return spec;
  }
};

struct RunInputs {
  /// The tensors as an inputs.safetensors names them (what `--save-inputs` and Save Inputs write).
  std::vector<NamedTensor> tensors;
  /// The same inputs as the runtime binds them (ABI names and `NAME.coords` shorthands).
  runtime::RuntimeInputs bound;
};

/// The inputs `spec` describes for `plan`. `recordings` serves Source::Recorded (nullptr: the
/// model has none, which is an error for that source). Errors: the file's (one line naming it),
/// the generator's (an argument type it cannot fill), no recorded inputs.
Expected<RunInputs> makeRunInputs(const RunInputSpec& spec, const runtime::RuntimePlan& plan,
                                  const ArchiveRecordings* recordings = nullptr);

/// Parses `N[:SEED]` (`--random-inputs`): N >= 1, SEED >= 0. Leaves `options.batchSize` as it is.
/// nullopt when the text is not of that form.
std::optional<runtime::RandomInputOptions> parseRandomInputs(const std::string& text,
                                                             runtime::RandomInputOptions options = {});

} // namespace lattice
