// lattice-cli validate: an artifact directory or a lone graph file checked against every rule
// of lattice-artifact-validation.md (core/verify). Diagnostics go to stderr as
// `file:line:col: error: message`; a one-line verdict per path follows.
#include "CliArgs.h"
#include "Commands.h"

#include "verify/ArtifactValidation.h"

#include <iostream>

namespace lattice::cli {

int runValidate(const std::vector<std::string>& args) {
  CommandSpec spec;
  spec.minPositional = 1;
  spec.maxPositional = 1000;
  ParsedArgs parsed;
  std::string error;
  if (!parseArgs(args, spec, parsed, error)) {
    std::cerr << "lattice-cli validate: " << error << "\n(see 'lattice-cli --help')\n";
    return ExitUsage;
  }
  int code = ExitOk;
  for (const std::string& path : parsed.positional) {
    const ArtifactValidation v = validateArtifact(path);
    std::size_t errors = 0;
    for (const Diagnostic& d : v.diagnostics) {
      std::cerr << d.str() << '\n';
      if (d.severity == Severity::Error) ++errors;
    }
    if (errors > 0) {
      std::cerr << path << ": invalid (" << errors << (errors == 1 ? " error" : " errors") << ")\n";
      code = ExitBadInput;
      continue;
    }
    std::size_t ops = 0;
    for (const ArtifactFunction& f : v.graph->functions)
      ops += f.ops.size();
    std::cout << path << ": valid (" << ops << " ops"
              << (v.weightsChecked ? ", weights checked" : ", graph only") << ")\n";
  }
  return code;
}

} // namespace lattice::cli
