// lattice-cli diff: the structural and weight diff of two artifacts (core/diff), or with --inputs /
// --random-inputs their numeric diff (both run on the same inputs), as text or JSON on stdout.
// Exit codes follow diff(1): 0 equal (within tolerance), 1 different, 2 usage or unreadable input.
#include "CliArgs.h"
#include "Commands.h"
#include "RuntimeSupport.h"

#include "diff/ArtifactDiff.h"
#include "diff/NumericDiff.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace lattice::cli {

namespace {

int usageError(const std::string& error) {
  std::cerr << "lattice-cli diff: " << error << "\n(see 'lattice-cli --help')\n";
  return ExitUsage;
}

// Numeric mode: both artifacts run on the same inputs, values compared op by op.
int runNumericDiff(const ParsedArgs& parsed, const std::string& pathA, const std::string& pathB) {
  if (int code = applyThreads(parsed, "diff")) return code;
  std::optional<runtime::Runtime> a, b;
  if (openRuntime(pathA, parsed, a) || openRuntime(pathB, parsed, b)) return ExitUsage;
  runtime::RuntimeInputs inputs;
  if (prepareInputs(parsed, a->plan(), inputs, "diff")) return ExitUsage;
  NumericDiffOptions options;
  if (parsed.options.count("tolerance") && !parseNonNegative(parsed.value("tolerance"), options.tolerance))
    return usageError("--tolerance expects a non-negative number, got '" + parsed.value("tolerance") + "'");
  options.numerics = parsed.has("exact") ? runtime::Numerics::Exact : runtime::Numerics::Default;
  Expected<NumericDiff> diff = numericDiff(*a, *b, inputs, options);
  if (!diff) return fail(ExitUsage, diff.message());
  if (parsed.has("json"))
    std::cout << numericDiffToJson(*diff).dump(2) << '\n';
  else
    std::cout << formatNumericDiff(*diff, pathA, pathB);
  return diff->withinTolerance() ? ExitOk : ExitBadInput;
}

} // namespace

int runDiff(const std::vector<std::string>& args) {
  CommandSpec spec;
  spec.flags = {"json", "no-values", "exact", "allow-partial"};
  spec.options = runOptionNames();
  spec.options.insert("tolerance");
  spec.minPositional = 2;
  spec.maxPositional = 2;
  ParsedArgs parsed;
  std::string error;
  if (!parseArgs(args, spec, parsed, error)) return usageError(error);
  const std::string& pathA = parsed.positional[0];
  const std::string& pathB = parsed.positional[1];
  if (parsed.options.count("inputs") || parsed.options.count("random-inputs")) return runNumericDiff(parsed, pathA, pathB);
  DiffOptions options;
  options.compareValues = !parsed.has("no-values");
  if (!parsed.values("tolerance").empty()) {
    const std::string t = parsed.values("tolerance").back();
    if (!parseNonNegative(t, options.tolerance))
      return usageError("--tolerance expects a non-negative number, got '" + t + "'");
  }

  Expected<LoadedArtifact> a = loadArtifact(pathA);
  if (!a) return fail(ExitUsage, a.message());
  Expected<LoadedArtifact> b = loadArtifact(pathB);
  if (!b) return fail(ExitUsage, b.message());

  const ArtifactDiff diff = diffArtifacts(*a, *b, options);
  if (parsed.has("json"))
    std::cout << diffToJson(diff).dump(2) << '\n';
  else
    std::cout << formatDiff(diff, pathA, pathB);
  return diff.equal() ? ExitOk : ExitBadInput;
}

} // namespace lattice::cli
