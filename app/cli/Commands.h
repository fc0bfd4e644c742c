#pragma once
/// \file lattice-cli commands. Each takes the arguments after the command name and returns the
/// process exit code (0 ok, 1 bad input with one line per diagnostic on stderr, 2 usage).

#include <string>
#include <vector>

namespace lattice {
class Model;
}

namespace lattice::cli {

struct ParsedArgs;

int runTrace(const std::vector<std::string>& args);
int runInfo(const std::vector<std::string>& args);
int runSaveExample(const std::vector<std::string>& args);
int runLower(const std::vector<std::string>& args);
int runValidate(const std::vector<std::string>& args);
/// `diff A B`: exit 0 when equal, 1 when different, 2 on usage or read errors.
int runDiff(const std::vector<std::string>& args);
/// `run ARTIFACT`: execute on the CPU runtime and write the outputs.
int runRun(const std::vector<std::string>& args);
/// `check ARTIFACT`: run and compare with expected outputs; exit 0 within tolerance, 1 outside,
/// 2 on usage or unreadable input.
int runCheck(const std::vector<std::string>& args);

/// `quant-plan MODEL`: per-layer sensitivity to int4/int8 and a plan for a budget; exit 1 when
/// no plan meets it.
int runQuantPlan(const std::vector<std::string>& args);

/// Prints "lattice-cli: <message>" to stderr and returns the code.
int fail(int code, const std::string& message);

/// `--weights FILE [--allow-partial]`: replaces `model`'s weights from a checkpoint; a partial
/// checkpoint's issues go to stderr as warnings. Returns 0 or the exit code (already reported).
int applyWeights(const ParsedArgs& parsed, Model& model);

} // namespace lattice::cli
