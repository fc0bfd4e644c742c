// Lowering options and in-memory lowering shared by lattice-cli's lower, run, check and diff.
#include "LowerSupport.h"

#include "Commands.h"
#include "InputSpecParser.h"

#include "model/LoadModel.h"
#include "support/ParseNumber.h"

namespace lattice::cli {

namespace {

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

} // namespace

const std::set<std::string>& lowerOptionNames() {
  static const std::set<std::string> names = {"input",       "batch-size",  "input-dtype",   "quantize",
                                              "group-size",  "scale-dtype", "quantize-plan", "keep-dense",
                                              "output-name", "weights"};
  return names;
}

std::string parseExportOptions(const ParsedArgs& parsed, ExportOptions& options) {
  if (!parsed.values("input").empty()) {
    std::vector<InputSpec> inputs;
    for (const std::string& text : parsed.values("input")) {
      auto spec = parseInputSpec(text);
      if (!spec) return spec.message();
      inputs.push_back(std::move(*spec));
    }
    options.inputs = std::move(inputs);
  }
  int64_t n = 0;
  if (parsed.options.count("batch-size")) {
    if (!parseInteger(parsed.value("batch-size"), n) || n < 0)
      return "--batch-size expects a non-negative integer, got '" + parsed.value("batch-size") + "'";
    options.batchSize = n;
  }
  if (parsed.options.count("input-dtype")) {
    const std::string d = parsed.value("input-dtype");
    if (d != "f32" && d != "f16") return "--input-dtype must be f32 or f16, not '" + d + "'";
    options.inputDtype = d;
  }
  if (parsed.options.count("quantize")) {
    if (!parseInteger(parsed.value("quantize"), n) || (n != 4 && n != 8))
      return "--quantize must be 4 or 8, not '" + parsed.value("quantize") + "'";
    options.quantizeBits = n;
  }
  if (parsed.options.count("group-size")) {
    if (!parseInteger(parsed.value("group-size"), n) || n <= 0)
      return "--group-size expects a positive integer, got '" + parsed.value("group-size") + "'";
    options.groupSize = n;
  }
  if (parsed.options.count("scale-dtype")) {
    const std::string d = parsed.value("scale-dtype");
    if (d != "f32" && d != "f16") return "--scale-dtype must be f16 or f32, not '" + d + "'";
    options.scaleDtype = d;
  }
  if (parsed.options.count("quantize-plan")) {
    for (const char* uniform : {"quantize", "group-size", "scale-dtype"})
      if (parsed.options.count(uniform))
        return std::string("--quantize-plan gives every layer's format: drop --") + uniform;
    if (parsed.value("quantize-plan").empty()) return "--quantize-plan expects a plan file";
  }
  for (const std::string& pattern : parsed.values("keep-dense")) {
    if (pattern.empty()) return "--keep-dense expects a module path or pattern (e.g. 'stem.*')";
    options.keepDense.push_back(pattern);
  }
  if (!parsed.values("output-name").empty()) options.outputNames = parsed.values("output-name");
  return "";
}

int lowerModel(const std::string& modelSpec, const ParsedArgs& parsed, const ExportOptions& options,
               LoweredModel& out) {
  auto model = loadModel(modelSpec);
  if (!model) return fail(ExitBadInput, model.message());
  out.model = std::make_unique<Model>(std::move(*model));
  if (int code = applyWeights(parsed, *out.model)) return code;

  // The plan file is read here: an unreadable or invalid plan is bad input, not a usage error.
  ExportOptions withPlan;
  const bool planned = parsed.options.count("quantize-plan") != 0;
  if (planned) {
    Expected<QuantizationPlan> plan = QuantizationPlan::readFile(parsed.value("quantize-plan"));
    if (!plan) return fail(ExitBadInput, plan.message());
    withPlan = options;
    withPlan.quantizationPlan = std::make_shared<const QuantizationPlan>(std::move(*plan));
  }
  auto prepared = prepareLowering(*out.model, planned ? withPlan : options);
  if (!prepared) {
    std::string message = modelSpec + ": " + prepared.message();
    // A TorchScript file carries no example inputs: say how to give them.
    if (!options.inputs && prepared.code() == ErrorCode::NoInputs)
      message += "; " + missingInputsHint(*out.model);
    return fail(ExitBadInput, message);
  }
  out.lowering = std::move(*prepared);
  Status lowered = finishLowering(out.lowering);
  if (!lowered) {
    // One line: the failing FX node and its target, then the lowering's own message (the FX
    // "While executing" trailer is folded into the node prefix).
    const std::string& message = lowered.message();
    const std::string first = message.substr(0, message.find('\n'));
    const fx::Node* node = out.lowering.interpreter ? out.lowering.interpreter->failedNode() : nullptr;
    if (!node) return fail(ExitBadInput, modelSpec + ": " + first);
    return fail(ExitBadInput, modelSpec + ": while executing %" + node->name() + " (" +
                                  std::string(fx::opName(node->op())) + " " + node->target() + "): " + first);
  }
  return ExitOk;
}

} // namespace lattice::cli
