#pragma once
/// \file A small command-line parser for lattice-cli: positional arguments, `--flag`,
/// `--option VALUE` / `--option=VALUE`, repeatable options. Usage errors exit with code 2.

#include <map>
#include <set>
#include <string>
#include <vector>

namespace lattice::cli {

/// 3: `check MODEL.ltfx` found differences only where torch-lattice and the artifact differ by
/// design (TrainerDifferences.h); every other node matched.
enum ExitCode { ExitOk = 0, ExitBadInput = 1, ExitUsage = 2, ExitKnownDifference = 3 };

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> options; ///< name (without --) -> values
  std::set<std::string> flags;

  bool has(const std::string& flag) const { return flags.count(flag) != 0; }
  /// Last value of an option, or `fallback`.
  std::string value(const std::string& name, const std::string& fallback = {}) const;
  const std::vector<std::string>& values(const std::string& name) const;
};

/// Declares what a command accepts.
struct CommandSpec {
  std::set<std::string> flags;      ///< options without a value
  std::set<std::string> options;    ///< options taking one value
  std::size_t minPositional = 0;
  std::size_t maxPositional = 0;
};

/// Parses `args` against `spec`; on error returns false and sets `error`.
bool parseArgs(const std::vector<std::string>& args, const CommandSpec& spec, ParsedArgs& out,
               std::string& error);

} // namespace lattice::cli
