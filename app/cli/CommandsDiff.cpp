// lattice-cli diff: the structural and weight diff of two artifacts (core/diff), as text or
// JSON on stdout. Exit codes follow diff(1): 0 equal, 1 different, 2 usage or unreadable input.
#include "CliArgs.h"
#include "Commands.h"

#include "diff/ArtifactDiff.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>

namespace lattice::cli {

namespace {

int usageError(const std::string& error) {
  std::cerr << "lattice-cli diff: " << error << "\n(see 'lattice-cli --help')\n";
  return ExitUsage;
}

bool parseTolerance(const std::string& text, double& out) {
  std::size_t used = 0;
  try {
    out = std::stod(text, &used);
  } catch (...) {
    return false;
  }
  return used == text.size() && std::isfinite(out) && out >= 0.0;
}

} // namespace

int runDiff(const std::vector<std::string>& args) {
  CommandSpec spec;
  spec.flags = {"json", "no-values"};
  spec.options = {"tolerance"};
  spec.minPositional = 2;
  spec.maxPositional = 2;
  ParsedArgs parsed;
  std::string error;
  if (!parseArgs(args, spec, parsed, error)) return usageError(error);
  DiffOptions options;
  options.compareValues = !parsed.has("no-values");
  if (!parsed.values("tolerance").empty()) {
    const std::string t = parsed.values("tolerance").back();
    if (!parseTolerance(t, options.tolerance))
      return usageError("--tolerance expects a non-negative number, got '" + t + "'");
  }

  const std::string& pathA = parsed.positional[0];
  const std::string& pathB = parsed.positional[1];
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
