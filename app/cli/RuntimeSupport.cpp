// Opening runtimes and preparing inputs for lattice-cli's run, check and diff --inputs.
#include "RuntimeSupport.h"

#include "Commands.h"
#include "LowerSupport.h"

#include "exec/LoweredRun.h"
#include "exec/RunInputs.h"
#include "mlir/MlirParser.h"
#include "runtime/Parallel.h"
#include "support/ParseNumber.h"
#include "verify/ArtifactValidation.h"

#include <cmath>
#include <iostream>

namespace lattice::cli {

const std::set<std::string>& runOptionNames() {
  static const std::set<std::string> names = [] {
    std::set<std::string> n = lowerOptionNames();
    n.insert({"inputs", "random-inputs", "save-inputs", "threads"});
    return n;
  }();
  return names;
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
  RunInputSpec spec = RunInputSpec::fromFile(parsed.value("inputs"));
  if (random) {
    const std::string text = parsed.value("random-inputs");
    std::optional<runtime::RandomInputOptions> options = parseRandomInputs(text);
    if (!options)
      return fail(ExitUsage, command + ": --random-inputs expects N[:SEED] with N >= 1, got '" + text + "'");
    if (parsed.options.count("batch-size") &&
        (!parseCount(parsed.value("batch-size"), options->batchSize) || options->batchSize < 1))
      return fail(ExitUsage,
                  command + ": --batch-size expects a positive integer, got '" + parsed.value("batch-size") + "'");
    spec = RunInputSpec::randomPoints(*options);
  }
  Expected<RunInputs> inputs = makeRunInputs(spec, plan);
  if (!inputs) return fail(ExitBadInput, inputs.message());
  if (random && parsed.options.count("save-inputs"))
    if (Status s = writeSafetensors(parsed.value("save-inputs"), inputs->tensors, std::nullopt); !s)
      return fail(ExitBadInput, s.message());
  out = std::move(inputs->bound);
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
