// lattice-cli quant-plan: each conv and linear layer's measured sensitivity to int4/int8, a plan
// for an error or size budget, and the Pareto front of the plans measured (core/quant).
#include "CliArgs.h"
#include "Commands.h"
#include "RuntimeSupport.h"

#include "exec/RunInputs.h"
#include "support/AtomicFile.h"
#include "model/ArchiveRecordings.h"
#include "model/LoadModel.h"
#include "quant/QuantPlanner.h"
#include "support/ParseNumber.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <sstream>

namespace lattice::cli {

namespace {

const char* const kQuantPlanUsage =
    R"(usage: lattice-cli quant-plan MODEL [--inputs IN.safetensors | --random-inputs N[:SEED] [--batch-size B]]
        [--candidates int4,int8] [--group-sizes 32,64,128] [--scale-dtype f16|f32]
        [--budget REL_L2 | --max-bytes N] [-o PLAN.json] [--json] [--threads N]
        [lowering options of 'lower'] [WEIGHTS]
        measure, for every conv and linear layer and every candidate format, the relative L2
        error at the model's outputs with only that layer quantized (against the dense run on
        the same inputs; an archive's recorded inputs by default); then the smallest plan whose
        measured error stays within --budget (default 1e-2), or the most accurate one within
        --max-bytes; -o writes it for 'lower --quantize-plan'
example: lattice-cli quant-plan example:sparse_resnet21d --random-inputs 5000 --budget 1e-2 -o plan.json
         lattice-cli lower example:sparse_resnet21d --quantize-plan plan.json -o mixed.lattice
)";

int usage(const std::string& error) {
  std::cerr << "lattice-cli quant-plan: " << error << "\n" << kQuantPlanUsage;
  return ExitUsage;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ','))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::vector<std::string> withOutputOption(const std::vector<std::string>& raw) {
  std::vector<std::string> args;
  for (const std::string& a : raw) args.push_back(a == "-o" ? "--output" : a);
  return args;
}

// The candidate formats: each kind with each group size. Returns "" or the usage error.
std::string parseCandidates(const ParsedArgs& parsed, std::vector<WeightFormat>& out) {
  const std::string scale = parsed.value("scale-dtype", "f16");
  if (scale != "f16" && scale != "f32") return "--scale-dtype must be f16 or f32, not '" + scale + "'";
  out.clear();
  std::vector<std::int64_t> groups;
  for (const std::string& g : split(parsed.value("group-sizes", "32"))) {
    std::int64_t n = 0;
    if (!parseCount(g, n) || (n != 32 && n != 64 && n != 128))
      return "--group-sizes takes 32, 64 or 128 (the sizes mlx-lattice accepts), not '" + g + "'";
    groups.push_back(n);
  }
  if (groups.empty()) return "--group-sizes is empty";
  for (const std::string& kind : split(parsed.value("candidates", "int4,int8"))) {
    if (kind != "int4" && kind != "int8") return "--candidates takes int4 and int8, not '" + kind + "'";
    for (std::int64_t g : groups) out.push_back(WeightFormat::quantized(kind == "int4" ? 4 : 8, g, scale));
  }
  if (out.empty()) return "--candidates is empty";
  return "";
}

} // namespace

int runQuantPlan(const std::vector<std::string>& raw) {
  CommandSpec spec;
  spec.flags = {"json", "allow-partial"};
  spec.options = runOptionNames();
  spec.options.insert({"candidates", "group-sizes", "budget", "max-bytes", "output"});
  spec.minPositional = spec.maxPositional = 1;
  ParsedArgs parsed;
  std::string error;
  if (raw.empty()) return usage("missing MODEL");
  if (!parseArgs(withOutputOption(raw), spec, parsed, error)) return usage(error);
  if (int code = applyThreads(parsed, "quant-plan")) return code;
  const std::string& what = parsed.positional[0];
  if (isArtifactPath(what)) return usage(what + " is an artifact: quant-plan needs the MODEL it was lowered from");
  if (parsed.options.count("quantize") || parsed.options.count("quantize-plan") || parsed.options.count("keep-dense"))
    return usage("quant-plan measures its own formats: leave out --quantize, --quantize-plan and --keep-dense");

  QuantPlannerOptions options;
  if (std::string problem = parseCandidates(parsed, options.candidates); !problem.empty()) return usage(problem);
  if (std::string problem = parseExportOptions(parsed, options.exportOptions); !problem.empty()) return usage(problem);
  if (parsed.options.count("budget") && parsed.options.count("max-bytes")) return usage("give --budget or --max-bytes, not both");
  PlanBudget budget = PlanBudget::relativeL2(1e-2);
  if (parsed.options.count("budget")) {
    double b = 0.0;
    if (!parseNonNegative(parsed.value("budget"), b) || b <= 0.0)
      return usage("--budget expects a positive relative L2 error, got '" + parsed.value("budget") + "'");
    budget = PlanBudget::relativeL2(b);
  }
  if (parsed.options.count("max-bytes")) {
    std::int64_t b = 0;
    if (!parseCount(parsed.value("max-bytes"), b) || b < 1)
      return usage("--max-bytes expects a positive number of bytes, got '" + parsed.value("max-bytes") + "'");
    budget = PlanBudget::maxBytes(static_cast<std::uint64_t>(b));
  }

  const bool file = parsed.options.count("inputs") != 0, random = parsed.options.count("random-inputs") != 0;
  if (file && random) return usage("give --inputs FILE or --random-inputs N[:SEED], not both");
  std::optional<ArchiveRecordings> recordings;
  if (random) {
    std::optional<runtime::RandomInputOptions> r = parseRandomInputs(parsed.value("random-inputs"));
    if (!r) return usage("--random-inputs expects N[:SEED] with N >= 1, got '" + parsed.value("random-inputs") + "'");
    if (parsed.options.count("batch-size") && (!parseCount(parsed.value("batch-size"), r->batchSize) || r->batchSize < 1))
      return usage("--batch-size expects a positive integer, got '" + parsed.value("batch-size") + "'");
    options.inputs = RunInputSpec::randomPoints(*r);
  } else if (file) {
    options.inputs = RunInputSpec::fromFile(parsed.value("inputs"));
  } else {
    if (!findArchiveRecordings(what).inputs)
      return usage(what + " has no recorded inputs (" + kArchiveInputsFile +
                   "): give --inputs FILE or --random-inputs N[:SEED]");
    Expected<ArchiveRecordings> read = readArchiveRecordings(what, {});
    if (!read) return fail(ExitBadInput, read.message());
    recordings = std::move(*read);
    options.inputs = RunInputSpec::recorded();
  }

  Expected<Model> model = loadModel(what);
  if (!model) return fail(ExitBadInput, model.message());
  if (int code = applyWeights(parsed, *model)) return code;
  Expected<std::unique_ptr<QuantPlanner>> planner =
      QuantPlanner::create(*model, options, recordings ? &*recordings : nullptr);
  if (!planner) return fail(ExitBadInput, what + ": " + planner.message());
  const bool json = parsed.has("json");
  Expected<QuantSensitivity> sensitivity = (*planner)->analyze([&](int done, int total) {
    if (!json) std::cerr << "\rmeasuring " << done << " / " << total << std::flush;
  });
  if (!json) std::cerr << "\r" << std::string(32, ' ') << "\r";
  if (!sensitivity) return fail(ExitBadInput, what + ": " + sensitivity.message());
  Expected<PlanSearch> found = (*planner)->search(*sensitivity, budget);
  if (!found) return fail(ExitBadInput, what + ": " + found.message());

  if (parsed.options.count("output")) {
    const std::string path = parsed.value("output");
    const std::string text = (*planner)->toPlan(found->chosen.formats).toJson();
    if (Status s = writeFileAtomically(path, text); !s) return fail(ExitBadInput, s.message());
  }
  if (json)
    std::cout << quantReportToJson(*sensitivity, &*found).dump(2) << "\n";
  else
    std::cout << formatQuantReport(*sensitivity, &*found);
  if (!found->met) return fail(ExitBadInput, what + ": no plan meets the budget");
  return ExitOk;
}

} // namespace lattice::cli
