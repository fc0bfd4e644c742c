// Opening runtimes and preparing inputs for lattice-cli's run, check and diff --inputs.
#include "RuntimeSupport.h"

#include "Commands.h"
#include "LowerSupport.h"

#include "diff/LoweredRun.h"
#include "runtime/Parallel.h"
#include "runtime/RandomInputs.h"
#include "verify/ArtifactValidation.h"
#include "verify/MlirParser.h"

#include <cmath>
#include <iostream>

namespace lattice::cli {

namespace {

bool parseCount(const std::string& text, std::int64_t& out) {
  if (text.empty() || text[0] == '-') return false;
  std::size_t used = 0;
  try {
    out = std::stoll(text, &used);
  } catch (...) {
    return false;
  }
  return used == text.size();
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

const std::set<std::string>& runOptionNames() {
  static const std::set<std::string> names = [] {
    std::set<std::string> n = lowerOptionNames();
    n.insert({"inputs", "random-inputs", "save-inputs", "threads"});
    return n;
  }();
  return names;
}

bool isArtifactPath(const std::string& path) {
  if (isDirectoryPath(path)) return isRegularFilePath(artifactFilePath(path, "graph.mlir"));
  return endsWith(path, ".mlir") && isRegularFilePath(path);
}

int openRuntime(const std::string& what, const ParsedArgs& parsed, std::optional<runtime::Runtime>& out) {
  if (isArtifactPath(what)) {
    Expected<runtime::Runtime> rt = runtime::Runtime::open(what);
    if (!rt) return fail(ExitBadInput, rt.message());
    out.emplace(std::move(*rt));
    return ExitOk;
  }
  LoweredModel lowered;
  return lowerIntoRuntime(what, parsed, lowered, out);
}

int lowerIntoRuntime(const std::string& what, const ParsedArgs& parsed, LoweredModel& lowered,
                     std::optional<runtime::Runtime>& out) {
  ExportOptions options;
  if (std::string problem = parseExportOptions(parsed, options); !problem.empty()) return fail(ExitUsage, problem);
  if (int code = lowerModel(what, parsed, options, lowered)) return code;
  Expected<LoweredRun> run = runLowering(lowered.lowering, what);
  if (!run) return fail(ExitBadInput, run.message());
  out.emplace(std::move(run->runtime));
  return ExitOk;
}

int prepareInputs(const ParsedArgs& parsed, const runtime::RuntimePlan& plan, runtime::RuntimeInputs& out,
                  const std::string& command) {
  const bool file = parsed.options.count("inputs") != 0, random = parsed.options.count("random-inputs") != 0;
  if (file == random) return fail(ExitUsage, command + ": give exactly one of --inputs FILE and --random-inputs N[:SEED]");
  if (file) {
    const std::string path = parsed.value("inputs");
    Expected<SafetensorsFile> f = SafetensorsFile::open(path);
    if (!f) return fail(ExitBadInput, f.message());
    Expected<runtime::RuntimeInputs> inputs = runtime::RuntimeInputs::fromFile(*f);
    if (!inputs) return fail(ExitBadInput, inputs.message());
    out = std::move(*inputs);
    return ExitOk;
  }
  const std::string spec = parsed.value("random-inputs");
  runtime::RandomInputOptions options;
  const auto colon = spec.find(':');
  std::int64_t seed = 0;
  if (!parseCount(spec.substr(0, colon), options.points) || options.points < 1 ||
      (colon != std::string::npos && !parseCount(spec.substr(colon + 1), seed)))
    return fail(ExitUsage, command + ": --random-inputs expects N[:SEED] with N >= 1, got '" + spec + "'");
  options.seed = static_cast<std::uint64_t>(seed);
  if (parsed.options.count("batch-size") && (!parseCount(parsed.value("batch-size"), options.batchSize) || options.batchSize < 1))
    return fail(ExitUsage, command + ": --batch-size expects a positive integer, got '" + parsed.value("batch-size") + "'");
  Expected<std::vector<NamedTensor>> tensors = runtime::randomInputs(plan, options);
  if (!tensors) return fail(ExitBadInput, tensors.message());
  if (parsed.options.count("save-inputs")) {
    const std::string path = parsed.value("save-inputs");
    if (Status s = writeSafetensors(path, *tensors, std::nullopt); !s) return fail(ExitBadInput, s.message());
  }
  out = runtime::RuntimeInputs{};
  out.named = std::move(*tensors);
  return ExitOk;
}

void printWarnings(const std::string& command, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) std::cerr << "lattice-cli " << command << ": warning: " << line << "\n";
}

int applyThreads(const ParsedArgs& parsed, const std::string& command) {
  std::int64_t threads = 0;
  if (parsed.options.count("threads") && (!parseCount(parsed.value("threads"), threads) || threads < 1 || threads > 1024))
    return fail(ExitUsage, command + ": --threads expects a positive integer, got '" + parsed.value("threads") + "'");
  runtime::setThreads(static_cast<int>(threads));
  return ExitOk;
}

bool parseNonNegative(const std::string& text, double& out) {
  std::size_t used = 0;
  try {
    out = std::stod(text, &used);
  } catch (...) {
    return false;
  }
  return used == text.size() && std::isfinite(out) && out >= 0.0;
}

} // namespace lattice::cli
