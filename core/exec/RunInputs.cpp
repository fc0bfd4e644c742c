// The inputs of a run: random from the ABI, a file, or an archive's recorded ones.
#include "exec/RunInputs.h"

#include "support/ParseNumber.h"

#include <cstdint>

namespace lattice {

namespace {

Expected<RunInputs> fromSafetensors(const SafetensorsFile& file) {
  Expected<runtime::RuntimeInputs> bound = runtime::RuntimeInputs::fromFile(file);
  if (!bound) return bound.error();
  RunInputs out;
  out.tensors = file.tensors();
  out.bound = std::move(*bound);
  return out;
}

} // namespace

Expected<RunInputs> makeRunInputs(const RunInputSpec& spec, const runtime::RuntimePlan& plan,
                                  const ArchiveRecordings* recordings) {
  switch (spec.source) {
  case RunInputSpec::Source::Recorded:
    if (!recordings || !recordings->inputs)
      return makeError("the model has no recorded inputs (" + std::string(kArchiveInputsFile) + ")");
    return fromSafetensors(*recordings->inputs);
  case RunInputSpec::Source::File: {
    if (spec.file.empty()) return makeError("no inputs file given");
    Expected<SafetensorsFile> file = SafetensorsFile::open(spec.file);
    if (!file) return file.error();
    return fromSafetensors(*file);
  }
  case RunInputSpec::Source::Random:
    break;
  }
  Expected<std::vector<NamedTensor>> tensors = runtime::randomInputs(plan, spec.random);
  if (!tensors) return tensors.error();
  RunInputs out;
  out.tensors = std::move(*tensors);
  out.bound.named = out.tensors;
  return out;
}

std::optional<runtime::RandomInputOptions> parseRandomInputs(const std::string& text,
                                                             runtime::RandomInputOptions options) {
  const std::size_t colon = text.find(':');
  std::int64_t points = 0, seed = 0;
  if (!parseCount(text.substr(0, colon), points) || points < 1) return std::nullopt;
  if (colon != std::string::npos && !parseCount(text.substr(colon + 1), seed)) return std::nullopt;
  options.points = points;
  options.seed = static_cast<std::uint64_t>(seed);
  return options;
}

} // namespace lattice
