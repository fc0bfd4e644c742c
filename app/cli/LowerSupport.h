#pragma once
/// \file What `lower` shares with the commands that execute a model (`run`, `check`, `diff`):
/// the lowering options (`--input`, `--batch-size`, `--quantize`, ...) and lowering a MODEL in
/// memory with one-line errors that name the failing FX node.

#include "CliArgs.h"

#include "lowering/Lowering.h"
#include "model/Model.h"

#include <memory>
#include <set>
#include <string>

namespace lattice::cli {

/// Options taking a value that configure a lowering: input, batch-size, input-dtype, quantize,
/// group-size, scale-dtype, quantize-plan, keep-dense, output-name, weights.
const std::set<std::string>& lowerOptionNames();

/// Reads the lowering options of `parsed` into `options`; returns "" or the usage error.
std::string parseExportOptions(const ParsedArgs& parsed, ExportOptions& options);

/// A model and its finished lowering (the builder holds the MLIR text and the weights).
struct LoweredModel {
  std::unique_ptr<Model> model;
  PreparedLowering lowering;
};

/// Loads MODEL (applying --weights) and the --quantize-plan file, prepares and finishes its
/// lowering. Returns 0, or the exit
/// code after printing one line (the missing-inputs hint included when the model has none).
int lowerModel(const std::string& modelSpec, const ParsedArgs& parsed, const ExportOptions& options,
               LoweredModel& out);

} // namespace lattice::cli
