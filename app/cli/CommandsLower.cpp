// lattice-cli lower: a model to a lattice artifact (graph.mlir + weights.safetensors), saved
// atomically and validated.
#include "CliArgs.h"
#include "Commands.h"
#include "InputSpecParser.h"

#include "artifact/Lowering.h"
#include "model/Examples.h"

#include <chrono>
#include <cstdio>
#include <iostream>

namespace lattice::cli {

namespace {

bool parseInt(const std::string& text, int64_t& out) {
  if (text.empty()) return false;
  std::size_t used = 0;
  try {
    out = std::stoll(text, &used);
  } catch (...) {
    return false;
  }
  return used == text.size();
}

int usageError(const std::string& error) {
  std::cerr << "lattice-cli lower: " << error << "\n(see 'lattice-cli --help')\n";
  return ExitUsage;
}

} // namespace

int runLower(const std::vector<std::string>& rawArgs) {
  std::vector<std::string> args;
  for (const std::string& a : rawArgs) args.push_back(a == "-o" ? "--output" : a);
  CommandSpec spec;
  spec.flags = {"no-validate", "allow-partial"};
  spec.options = {"output", "input", "batch-size", "input-dtype", "quantize", "group-size", "weights",
                  "scale-dtype", "output-name"};
  spec.minPositional = spec.maxPositional = 1;
  ParsedArgs parsed;
  std::string error;
  if (!parseArgs(args, spec, parsed, error)) return usageError(error);
  const std::string dir = parsed.value("output");
  if (dir.empty()) return usageError("missing -o DIR");

  ExportOptions options;
  if (!parsed.values("input").empty()) {
    std::vector<InputSpec> inputs;
    for (const std::string& text : parsed.values("input")) {
      auto spec = parseInputSpec(text);
      if (!spec) return usageError(spec.message());
      inputs.push_back(std::move(*spec));
    }
    options.inputs = std::move(inputs);
  }
  int64_t n = 0;
  if (parsed.options.count("batch-size")) {
    if (!parseInt(parsed.value("batch-size"), n) || n < 0)
      return usageError("--batch-size expects a non-negative integer, got '" + parsed.value("batch-size") + "'");
    options.batchSize = n;
  }
  if (parsed.options.count("input-dtype")) {
    const std::string d = parsed.value("input-dtype");
    if (d != "f32" && d != "f16") return usageError("--input-dtype must be f32 or f16, not '" + d + "'");
    options.inputDtype = d;
  }
  if (parsed.options.count("quantize")) {
    if (!parseInt(parsed.value("quantize"), n) || (n != 4 && n != 8))
      return usageError("--quantize must be 4 or 8, not '" + parsed.value("quantize") + "'");
    options.quantizeBits = n;
  }
  if (parsed.options.count("group-size")) {
    if (!parseInt(parsed.value("group-size"), n) || n <= 0)
      return usageError("--group-size expects a positive integer, got '" + parsed.value("group-size") + "'");
    options.groupSize = n;
  }
  if (parsed.options.count("scale-dtype")) {
    const std::string d = parsed.value("scale-dtype");
    if (d != "f32" && d != "f16") return usageError("--scale-dtype must be f16 or f32, not '" + d + "'");
    options.scaleDtype = d;
  }
  if (!parsed.values("output-name").empty()) options.outputNames = parsed.values("output-name");
  options.validate = !parsed.has("no-validate");

  const auto started = std::chrono::steady_clock::now();
  auto model = loadModel(parsed.positional[0]);
  if (!model) return fail(ExitBadInput, model.message());
  if (int code = applyWeights(parsed, *model)) return code;

  auto prepared = prepareLowering(*model, options);
  if (!prepared) return fail(ExitBadInput, parsed.positional[0] + ": " + prepared.message());
  Status lowered = finishLowering(*prepared);
  if (!lowered) {
    // One line: the failing FX node and its target, then the lowering's own message (the FX
    // "While executing" trailer is folded into the node prefix).
    const std::string& message = lowered.message();
    const std::string first = message.substr(0, message.find('\n'));
    const fx::Node* node = prepared->interpreter ? prepared->interpreter->failedNode() : nullptr;
    if (!node) return fail(ExitBadInput, parsed.positional[0] + ": " + first);
    return fail(ExitBadInput, parsed.positional[0] + ": while executing %" + node->name() + " (" +
                                  std::string(fx::opName(node->op())) + " " + node->target() + "): " + first);
  }
  SaveOptions save = options.save;
  save.validate = options.validate;
  Status saved = prepared->builder->save(dir, save);
  if (!saved) return fail(ExitBadInput, saved.message());
  const auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started);

  uint64_t bytes = 0;
  for (const NamedTensor& t : prepared->builder->weights()) bytes += t.tensor.byteSize();
  std::printf("%s: %zu ops, %zu weights, %llu bytes, %.0f ms\n", dir.c_str(),
              prepared->builder->writer().opCount(), prepared->builder->weights().size(),
              static_cast<unsigned long long>(bytes), elapsed.count());
  return ExitOk;
}

} // namespace lattice::cli
