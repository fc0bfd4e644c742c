// lattice-cli run and check: execute an artifact (or a model lowered in memory) on the CPU
// runtime (core/runtime), write its outputs, and compare them with expected outputs by the
// conformance protocol. Inputs and outputs that hold NaN or ±inf are named in a warning.
#include "CliArgs.h"
#include "Commands.h"
#include "RuntimeSupport.h"

#include "exec/RecordingCheck.h"
#include "exec/RunInputs.h"
#include "model/ArchiveRecordings.h"
#include "runtime/Compare.h"
#include "runtime/Parallel.h"
#include "runtime/ValueSummary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

namespace lattice::cli {

namespace {

const char* const kRunUsage =
    R"(usage: lattice-cli run ARTIFACT (--inputs IN.safetensors | --random-inputs N[:SEED] [--batch-size B]
        [--save-inputs FILE]) [-o OUT.safetensors] [--exact] [--threads N] [--profile]
        [--values FILE.safetensors] [lowering options of 'lower' when ARTIFACT is a model]
example: lattice-cli run model.lattice --inputs inputs.safetensors -o outputs.safetensors
         lattice-cli run example:sparse_resnet21d --random-inputs 100000:7 --profile
)";

const char* const kCheckUsage =
    R"(usage: lattice-cli check ARTIFACT --inputs IN.safetensors --expected EXPECTED.safetensors
        [--rtol R] [--atol A] [--exact] [--threads N]
       lattice-cli check MODEL.ltfx [--inputs IN.safetensors] [--tolerance T] [--json] [--exact]
        [--threads N] [lowering options of 'lower']
example: lattice-cli check case/expected.lattice --inputs case/inputs.safetensors
         --expected case/expected.safetensors --rtol 1e-5 --atol 1e-5
         lattice-cli check model.ltfx   (an archive exported with --record-activations)
exit status of 'check MODEL.ltfx': 0 every node within tolerance, 1 a node diverges, 3 the artifact
differs only where torch-lattice and mlx-lattice compute different things by design (each named)
)";

int usage(const std::string& command, const std::string& error, const char* text) {
  std::cerr << "lattice-cli " << command << ": " << error << "\n" << text;
  return ExitUsage;
}

std::vector<std::string> withOutputOption(const std::vector<std::string>& raw) {
  std::vector<std::string> args;
  for (const std::string& a : raw) args.push_back(a == "-o" ? "--output" : a);
  return args;
}

std::string describeOutputs(const runtime::Runtime& rt) {
  std::string text;
  for (const runtime::PlanOutput& o : rt.plan().outputs)
    text += (text.empty() ? "" : ", ") + o.abiName + " (" + runtime::describeValue(rt.value(o.slot)) + ")";
  return text;
}

void printProfile(const runtime::Runtime& rt, double totalMs) {
  const runtime::RuntimePlan& plan = rt.plan();
  std::vector<int> order;
  for (std::size_t i = 0; i < plan.ops.size(); ++i)
    if (rt.stats(static_cast<int>(i)).ran) order.push_back(static_cast<int>(i));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rt.stats(a).ms > rt.stats(b).ms; });
  std::printf("%10s %7s %10s %9s %9s  %s\n", "ms", "share", "rows", "GFLOP/s", "map ms", "op");
  for (int i : order) {
    const runtime::OpStats& s = rt.stats(i);
    const double gflops = s.flops > 0 && s.ms > 0 ? s.flops / (s.ms * 1e6) : 0.0;
    std::printf("%10.3f %6.1f%% %10lld %9.2f %9.3f  %%%s (%s)\n", s.ms, totalMs > 0 ? 100.0 * s.ms / totalMs : 0.0,
                static_cast<long long>(s.rows), gflops, s.kernelMapMs, plan.ops[static_cast<std::size_t>(i)].name().c_str(),
                std::string(opName(plan.ops[static_cast<std::size_t>(i)].kind)).c_str());
  }
}

} // namespace

int runRun(const std::vector<std::string>& raw) {
  CommandSpec spec;
  spec.flags = {"exact", "profile", "allow-partial"};
  spec.options = runOptionNames();
  spec.options.insert({"output", "values"});
  spec.minPositional = spec.maxPositional = 1;
  ParsedArgs parsed;
  std::string error;
  if (raw.empty()) return usage("run", "missing ARTIFACT", kRunUsage);
  if (!parseArgs(withOutputOption(raw), spec, parsed, error)) return usage("run", error, kRunUsage);
  if (int code = applyThreads(parsed, "run")) return code;
  const std::string& what = parsed.positional[0];
  std::optional<runtime::Runtime> rt;
  if (int code = openRuntime(what, parsed, rt)) return code;
  runtime::RuntimeInputs inputs;
  if (int code = prepareInputs(parsed, rt->plan(), inputs, "run")) return code;
  printWarnings("run", runtime::nonFiniteInputs(rt->plan(), inputs));

  runtime::RuntimeOptions options;
  options.numerics = parsed.has("exact") ? runtime::Numerics::Exact : runtime::Numerics::Default;
  options.keepValues = parsed.options.count("values") != 0;
  if (Status s = rt->start(inputs, options); !s) return fail(ExitBadInput, what + ": " + s.message());
  const auto started = std::chrono::steady_clock::now();
  if (Status s = rt->run(); !s) return fail(ExitBadInput, s.message());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  printWarnings("run", runtime::nonFiniteOutputs(*rt));

  if (parsed.options.count("output")) {
    Expected<std::vector<NamedTensor>> outputs = rt->outputs();
    if (!outputs) return fail(ExitBadInput, outputs.message());
    if (Status s = writeSafetensors(parsed.value("output"), *outputs, std::nullopt); !s) return fail(ExitBadInput, s.message());
  }
  if (parsed.options.count("values"))
    if (Status s = writeSafetensors(parsed.value("values"), rt->values(), std::nullopt); !s)
      return fail(ExitBadInput, s.message());
  std::printf("%s: %zu ops in %.1f ms (kernel maps %.1f ms, %d threads%s): %s\n", what.c_str(), rt->plan().ops.size(),
              ms, rt->kernelMapMs(), runtime::threads(), parsed.has("exact") ? ", exact" : "",
              describeOutputs(*rt).c_str());
  if (parsed.has("profile")) printProfile(*rt, ms);
  return ExitOk;
}

namespace {

/// `check MODEL.ltfx`: the archive's recorded activations are the golden of every node.
int checkRecorded(const ParsedArgs& parsed) {
  const std::string& what = parsed.positional[0];
  double tolerance = 1e-4;
  if (parsed.options.count("tolerance") && !parseNonNegative(parsed.value("tolerance"), tolerance))
    return usage("check", "--tolerance expects a non-negative number, got '" + parsed.value("tolerance") + "'",
                 kCheckUsage);
  if (int code = applyThreads(parsed, "check")) return code;
  const ArchiveRecordingFiles files = findArchiveRecordings(what);
  if (!files.activations)
    return usage("check",
                 what + " has no recorded activations (" + kArchiveActivationsFile +
                     "): export it with --record-activations, or give --expected EXPECTED.safetensors",
                 kCheckUsage);
  LoweredModel lowered;
  std::optional<runtime::Runtime> rt;
  if (lowerIntoRuntime(what, parsed, lowered, rt)) return ExitUsage;
  if (lowered.lowering.direct())
    return fail(ExitUsage, what + ": the root module is lowered as one op, so no FX node has a value of its "
                                  "own to compare; compare the outputs with --expected");
  std::vector<std::string> nodeNames;
  for (const fx::Node& node : lowered.lowering.graph->nodes()) nodeNames.push_back(node.name());
  Expected<ArchiveRecordings> recordings = readArchiveRecordings(what, nodeNames);
  if (!recordings) return fail(ExitUsage, recordings.message());
  for (const std::string& w : recordings->warnings) std::cerr << "lattice-cli check: warning: " << w << "\n";

  runtime::RuntimeInputs inputs;
  if (parsed.options.count("inputs") || parsed.options.count("random-inputs")) {
    if (prepareInputs(parsed, rt->plan(), inputs, "check")) return ExitUsage;
  } else if (!recordings->inputs) {
    return usage("check", what + " has no recorded inputs (" + kArchiveInputsFile + "): give --inputs FILE",
                 kCheckUsage);
  } else {
    Expected<RunInputs> recorded = makeRunInputs(RunInputSpec::recorded(), rt->plan(), &*recordings);
    if (!recorded) return fail(ExitUsage, recorded.message());
    inputs = std::move(recorded->bound);
  }
  printWarnings("check", runtime::nonFiniteInputs(rt->plan(), inputs));
  runtime::RuntimeOptions options;
  options.keepValues = true;
  options.numerics = parsed.has("exact") ? runtime::Numerics::Exact : runtime::Numerics::Default;
  if (Status s = rt->start(inputs, options); !s) return fail(ExitUsage, what + ": " + s.message());
  if (Status s = rt->run(); !s) return fail(ExitBadInput, s.message());
  printWarnings("check", runtime::nonFiniteOutputs(*rt));

  const RecordingCheck check = checkAgainstRecording(
      artifactValuesByNode(*lowered.lowering.graph, *lowered.lowering.interpreter), *rt, *recordings, tolerance);
  for (const std::string& w : check.warnings) std::cerr << "lattice-cli check: warning: " << w << "\n";
  if (parsed.has("json"))
    std::cout << recordingCheckToJson(check).dump(2) << "\n";
  else
    std::cout << formatRecordingCheck(check);
  if (check.nodes.empty()) return fail(ExitBadInput, what + ": no FX node has both a recorded activation and a value");
  if (check.onlyKnownDifferences()) return ExitKnownDifference;
  return check.withinTolerance() ? ExitOk : ExitBadInput;
}

} // namespace

int runCheck(const std::vector<std::string>& raw) {
  CommandSpec spec;
  spec.flags = {"exact", "allow-partial", "json"};
  spec.options = runOptionNames();
  spec.options.insert({"expected", "rtol", "atol", "tolerance"});
  spec.minPositional = spec.maxPositional = 1;
  ParsedArgs parsed;
  std::string error;
  if (raw.empty()) return usage("check", "missing ARTIFACT", kCheckUsage);
  if (!parseArgs(raw, spec, parsed, error)) return usage("check", error, kCheckUsage);
  if (!parsed.options.count("expected") && !isArtifactPath(parsed.positional[0])) return checkRecorded(parsed);
  if (!parsed.options.count("expected")) return usage("check", "missing --expected FILE", kCheckUsage);
  double rtol = 1e-5, atol = 1e-8; // numpy.allclose's defaults
  if (parsed.options.count("rtol") && !parseNonNegative(parsed.value("rtol"), rtol))
    return usage("check", "--rtol expects a non-negative number, got '" + parsed.value("rtol") + "'", kCheckUsage);
  if (parsed.options.count("atol") && !parseNonNegative(parsed.value("atol"), atol))
    return usage("check", "--atol expects a non-negative number, got '" + parsed.value("atol") + "'", kCheckUsage);
  if (int code = applyThreads(parsed, "check")) return code;
  // Exit 2 for what cannot be read (artifact, inputs, expected), 1 for what does not match.
  const std::string& what = parsed.positional[0];
  std::optional<runtime::Runtime> rt;
  if (openRuntime(what, parsed, rt)) return ExitUsage;
  runtime::RuntimeInputs inputs;
  if (prepareInputs(parsed, rt->plan(), inputs, "check")) return ExitUsage;
  printWarnings("check", runtime::nonFiniteInputs(rt->plan(), inputs));
  Expected<SafetensorsFile> expected = SafetensorsFile::open(parsed.value("expected"));
  if (!expected) return fail(ExitUsage, expected.message());

  runtime::RuntimeOptions options;
  options.numerics = parsed.has("exact") ? runtime::Numerics::Exact : runtime::Numerics::Default;
  if (Status s = rt->start(inputs, options); !s) return fail(ExitUsage, what + ": " + s.message());
  if (Status s = rt->run(); !s) return fail(ExitBadInput, s.message());
  printWarnings("check", runtime::nonFiniteOutputs(*rt));
  Expected<std::vector<runtime::OutputCheck>> checks = rt->checkOutputs(*expected, rtol, atol);
  if (!checks) return fail(ExitBadInput, checks.message());
  bool ok = true;
  for (const runtime::OutputCheck& c : *checks) {
    ok = ok && c.ok;
    if (!c.problem.empty()) {
      std::printf("%s: FAIL: %s\n", c.name.c_str(), c.problem.c_str());
      continue;
    }
    const runtime::Divergence& d = c.divergence;
    std::string worst = d.worstRow < 0 ? "-" : "row " + std::to_string(d.worstRow);
    if (c.worstCoord.size() == 4)
      worst += " (" + std::to_string(c.worstCoord[0]) + ", " + std::to_string(c.worstCoord[1]) + ", " +
               std::to_string(c.worstCoord[2]) + ", " + std::to_string(c.worstCoord[3]) + ")";
    std::printf("%s: %s: max |d| %.3g, max rel d %.3g, worst %s; %lld of %lld values outside rtol %g atol %g\n",
                c.name.c_str(), c.ok ? "ok" : "FAIL", d.maxAbs, d.maxRel, worst.c_str(),
                static_cast<long long>(d.outside), static_cast<long long>(d.elements), rtol, atol);
  }
  return ok ? ExitOk : ExitBadInput;
}

} // namespace lattice::cli
