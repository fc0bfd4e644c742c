// lattice-cli lower: a model to a lattice artifact (graph.mlir + weights.safetensors), saved
// atomically and validated.
#include "CliArgs.h"
#include "Commands.h"
#include "LowerSupport.h"

#include "lowering/Lowering.h"

#include <chrono>
#include <cstdio>
#include <iostream>

namespace lattice::cli {

namespace {

const char* const kLowerUsage = R"(usage: lattice-cli lower MODEL -o DIR [--input NAME:sparse:DTYPE:CHANNELS[:SX,SY,SZ]]...
        [--input NAME:dense:TENSOR_TYPE]... [--batch-size N] [--input-dtype f32|f16]
        [--quantize 4|8] [--group-size N] [--scale-dtype f16|f32] [--keep-dense PATTERN]...
        [--quantize-plan PLAN.json]
        [--output-name NAME]... [--no-validate] [--force] [--weights FILE [--allow-partial]]
PLAN.json: {"default": "int8", "layers": {"stem.*": "dense",
            "classifier": {"kind": "int4", "group_size": 64, "scale_dtype": "f16"}}}
        (module paths as 'lattice-cli trace' prints them, or globs; group size 32, 64
        or 128). --keep-dense PATTERN keeps those layers dense on top of --quantize.
example: lattice-cli lower example:sparse_resnet21d -o resnet.lattice
         lattice-cli lower model.pt -o model.lattice --input x:sparse:f32:4
(see 'lattice-cli --help' for MODEL and the other commands)
)";

int usageError(const std::string& error) {
  std::cerr << "lattice-cli lower: " << error << "\n" << kLowerUsage;
  return ExitUsage;
}

// A refusal to replace a folder that is not an artifact says how to replace it anyway.
std::string targetError(const Error& error) {
  if (error.code != ErrorCode::NotAnArtifact) return error.message;
  return error.message + " (pass --force to replace it)";
}

} // namespace

int runLower(const std::vector<std::string>& rawArgs) {
  std::vector<std::string> args;
  for (const std::string& a : rawArgs) args.push_back(a == "-o" ? "--output" : a);
  CommandSpec spec;
  spec.flags = {"no-validate", "allow-partial", "force"};
  spec.options = lowerOptionNames();
  spec.options.insert("output");
  spec.minPositional = spec.maxPositional = 1;
  ParsedArgs parsed;
  std::string error;
  if (args.empty()) return usageError("missing MODEL");
  if (!parseArgs(args, spec, parsed, error)) return usageError(error);
  const std::string dir = parsed.value("output");
  if (dir.empty()) return usageError("missing -o DIR");

  ExportOptions options;
  if (std::string problem = parseExportOptions(parsed, options); !problem.empty()) return usageError(problem);
  options.validate = !parsed.has("no-validate");
  options.save.force = parsed.has("force");

  // A target that would be refused is refused before the lowering, not after it.
  if (Status target = checkArtifactTarget(dir, options.save); !target)
    return fail(ExitBadInput, targetError(target.error()));

  const auto started = std::chrono::steady_clock::now();
  LoweredModel lowered;
  if (int code = lowerModel(parsed.positional[0], parsed, options, lowered)) return code;
  const PreparedLowering* prepared = &lowered.lowering;
  SaveOptions save = options.save;
  save.validate = options.validate;
  save.warn = [](const std::string& message) { std::cerr << "lattice-cli lower: warning: " << message << "\n"; };
  Status saved = prepared->builder->save(dir, save);
  if (!saved) return fail(ExitBadInput, targetError(saved.error()));
  const auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started);

  uint64_t bytes = 0;
  for (const NamedTensor& t : prepared->builder->weights()) bytes += t.tensor.byteSize();
  std::printf("%s: %zu ops, %zu weights, %llu bytes, %.0f ms\n", dir.c_str(),
              prepared->builder->writer().opCount(), prepared->builder->weights().size(),
              static_cast<unsigned long long>(bytes), elapsed.count());
  return ExitOk;
}

} // namespace lattice::cli
