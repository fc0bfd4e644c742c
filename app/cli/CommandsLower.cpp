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

const char* const kLowerUsage = R"(usage: lattice-cli lower MODEL -o DIR [--input NAME:sparse:DTYPE:CHANNELS[:SX,SY,SZ]]...
        [--input NAME:dense:TENSOR_TYPE]... [--batch-size N] [--input-dtype f32|f16]
        [--quantize 4|8] [--group-size N] [--scale-dtype f16|f32]
        [--output-name NAME]... [--no-validate] [--force] [--weights FILE [--allow-partial]]
example: lattice-cli lower example:sparse_resnet21d -o resnet.lattice
         lattice-cli lower model.pt -o model.lattice --input x:sparse:f32:4
(see 'lattice-cli --help' for MODEL and the other commands)
)";

int usageError(const std::string& error) {
  std::cerr << "lattice-cli lower: " << error << "\n" << kLowerUsage;
  return ExitUsage;
}

// What to pass when the model has no example inputs: one --input per forward input, named after
// the forward's parameters, in both forms (the dense one quoted: `<` and `?` mean something to a
// shell). One line.
std::string missingInputsHint(const Model& model) {
  std::vector<std::string> names;
  if (!model.modules().empty())
    for (const SignatureParam& p : model.root().signature)
      if (p.kind == ParamKind::PositionalOnly || p.kind == ParamKind::PositionalOrKeyword)
        names.push_back(p.name);
  std::string forward;
  for (const std::string& n : names)
    forward += (forward.empty() ? "" : ", ") + n;
  const std::vector<std::string> shown = names.empty() ? std::vector<std::string>{"x"} : names;
  std::string sparse, dense;
  for (const std::string& n : shown) {
    sparse += (sparse.empty() ? "" : " ") + std::string("--input ") + n + ":sparse:f32:4";
    dense += (dense.empty() ? "" : " ") + std::string("--input '") + n + ":dense:tensor<?x4xf32>'";
  }
  return "the model has no example inputs: pass them with --input, one per forward input" +
         (forward.empty() ? std::string() : " (" + forward + ")") + " in order, e.g. " + sparse +
         " (sparse, f32 features, 4 channels) or " + dense + " (dense)";
}

// A refusal to replace a folder that is not an artifact says how to replace it anyway.
std::string targetError(const std::string& message) {
  if (message.find(kNotAnArtifactMarker) == std::string::npos) return message;
  return message + " (pass --force to replace it)";
}

} // namespace

int runLower(const std::vector<std::string>& rawArgs) {
  std::vector<std::string> args;
  for (const std::string& a : rawArgs) args.push_back(a == "-o" ? "--output" : a);
  CommandSpec spec;
  spec.flags = {"no-validate", "allow-partial", "force"};
  spec.options = {"output", "input", "batch-size", "input-dtype", "quantize", "group-size", "weights",
                  "scale-dtype", "output-name"};
  spec.minPositional = spec.maxPositional = 1;
  ParsedArgs parsed;
  std::string error;
  if (args.empty()) return usageError("missing MODEL");
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
  options.save.force = parsed.has("force");

  // A target that would be refused is refused before the lowering, not after it.
  if (Status target = checkArtifactTarget(dir, options.save); !target)
    return fail(ExitBadInput, targetError(target.message()));

  const auto started = std::chrono::steady_clock::now();
  auto model = loadModel(parsed.positional[0]);
  if (!model) return fail(ExitBadInput, model.message());
  if (int code = applyWeights(parsed, *model)) return code;

  auto prepared = prepareLowering(*model, options);
  if (!prepared) {
    std::string message = parsed.positional[0] + ": " + prepared.message();
    // A TorchScript file carries no example inputs: say how to give them.
    if (!options.inputs && prepared.message().find("example_inputs must be a non-empty tuple") != std::string::npos)
      message += "; " + missingInputsHint(*model);
    return fail(ExitBadInput, message);
  }
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
  if (!saved) return fail(ExitBadInput, targetError(saved.message()));
  const auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started);

  uint64_t bytes = 0;
  for (const NamedTensor& t : prepared->builder->weights()) bytes += t.tensor.byteSize();
  std::printf("%s: %zu ops, %zu weights, %llu bytes, %.0f ms\n", dir.c_str(),
              prepared->builder->writer().opCount(), prepared->builder->weights().size(),
              static_cast<unsigned long long>(bytes), elapsed.count());
  return ExitOk;
}

} // namespace lattice::cli
