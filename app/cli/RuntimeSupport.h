#pragma once
/// \file What the commands that execute artifacts share (`run`, `check`, `diff --inputs`): opening
/// an artifact or lowering a model in memory into a Runtime, the inputs (`--inputs FILE` or
/// `--random-inputs N[:SEED]` with `--batch-size B`, saved with `--save-inputs FILE`), and the
/// thread count (`--threads N`).

#include "CliArgs.h"
#include "LowerSupport.h"

#include "dialect/ArtifactFiles.h"
#include "runtime/Runtime.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace lattice::cli {

/// Options taking a value of the executing commands (lowering options included).
const std::set<std::string>& runOptionNames();

/// Opens `what` as an artifact (parse, verify, plan) or lowers it as a MODEL in memory (nothing
/// is written). Returns 0 or the exit code after printing one line.
int openRuntime(const std::string& what, const ParsedArgs& parsed, std::optional<runtime::Runtime>& out);

/// Lowers MODEL `what` in memory (lowerModel) and opens the result as a runtime, keeping the
/// lowering (its graph and interpreter say which value each FX node became).
int lowerIntoRuntime(const std::string& what, const ParsedArgs& parsed, LoweredModel& lowered,
                     std::optional<runtime::Runtime>& out);

/// The run's inputs from --inputs or --random-inputs (exactly one of them), saving random ones
/// to --save-inputs. Returns 0 or the exit code after printing one line.
int prepareInputs(const ParsedArgs& parsed, const runtime::RuntimePlan& plan, runtime::RuntimeInputs& out,
                  const std::string& command);

/// Prints each line as `lattice-cli COMMAND: warning: LINE` on stderr (the NaN and ±inf a run's
/// inputs or outputs hold: runtime::nonFiniteInputs, nonFiniteOutputs).
void printWarnings(const std::string& command, const std::vector<std::string>& lines);

/// Applies --threads N (default: every core). Returns 0 or the usage exit code.
int applyThreads(const ParsedArgs& parsed, const std::string& command);

/// Parses a non-negative finite number (tolerances); false when `text` is not one.
bool parseNonNegative(const std::string& text, double& out);

} // namespace lattice::cli
