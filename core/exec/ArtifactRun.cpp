// An artifact on disk run on the CPU runtime, and the conformance files around it.
#include "exec/ArtifactRun.h"

#include "runtime/Runtime.h"
#include "runtime/ValueSummary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

namespace lattice {

bool ArtifactRunResult::allOk() const {
  return std::all_of(checks.begin(), checks.end(), [](const runtime::OutputCheck& c) { return c.ok; });
}

ArtifactRunResult runArtifact(const ArtifactRunRequest& request, const std::atomic<bool>& cancel,
                              std::atomic<int>& progress, std::atomic<int>& total) {
  ArtifactRunResult result;
  Expected<runtime::Runtime> rt = runtime::Runtime::open(request.artifact);
  if (!rt) {
    result.error = rt.message();
    return result;
  }
  const runtime::RuntimePlan& plan = rt->plan();
  total.store(static_cast<int>(plan.ops.size()));
  Expected<RunInputs> inputs = makeRunInputs(request.inputs, plan);
  if (!inputs) {
    result.error = inputs.message();
    return result;
  }
  std::optional<SafetensorsFile> expected;
  if (!request.expectedFile.empty()) {
    Expected<SafetensorsFile> file = SafetensorsFile::open(request.expectedFile);
    if (!file) {
      result.error = file.message();
      return result;
    }
    expected = std::move(*file);
  }
  if (Status s = rt->start(inputs->bound); !s) {
    result.error = s.message();
    return result;
  }
  while (!rt->finished()) {
    if (cancel.load()) {
      result.error = "cancelled";
      result.cancelled = true;
      break;
    }
    if (Status s = rt->step(); !s) {
      result.error = s.message();
      result.failedOp = rt->currentOp();
      if (result.failedOp >= 0 && result.failedOp < static_cast<int>(plan.ops.size()))
        result.failedOpName = plan.ops[static_cast<std::size_t>(result.failedOp)].name();
      break;
    }
    progress.store(rt->currentOp());
  }
  for (int op = 0; op < static_cast<int>(plan.ops.size()); ++op) {
    const runtime::OpStats& stats = rt->stats(op);
    result.opMs.push_back(stats.ran ? stats.ms : -1.0);
    if (stats.ran) result.totalMs += stats.ms;
  }
  if (result.error.empty()) result.warnings = runtime::nonFiniteOutputs(*rt);
  if (!result.error.empty() || !expected) return result;

  Expected<std::vector<runtime::OutputCheck>> checks = rt->checkOutputs(*expected, request.rtol, request.atol);
  if (!checks) {
    result.error = checks.message();
    return result;
  }
  result.checks = std::move(*checks);
  for (const runtime::PlanOutput& o : plan.outputs)
    result.checkOps.push_back(plan.producer[static_cast<std::size_t>(o.slot)]);
  return result;
}

ConformanceFiles conformanceFilesNextTo(const std::string& artifact) {
  namespace fs = std::filesystem;
  ConformanceFiles out;
  std::error_code ec;
  // `case/expected.lattice/` (a directory) or `case/expected.lattice/graph.mlir`.
  const fs::path given = fs::canonical(artifact, ec);
  if (ec) return out;
  const fs::path artifactDir = fs::is_directory(given, ec) ? given : given.parent_path();
  const fs::path caseDir = artifactDir.parent_path();
  const auto existing = [&](const char* name) {
    const fs::path path = caseDir / name;
    std::error_code e;
    return fs::is_regular_file(path, e) ? path.string() : std::string();
  };
  out.inputs = existing("inputs.safetensors");
  out.expected = existing("expected.safetensors");
  if (!caseDir.has_parent_path() || caseDir.parent_path() == caseDir) return out;
  const fs::path root = caseDir.parent_path().parent_path();
  std::ifstream manifest(root / "manifest.json", std::ios::binary);
  if (!manifest) return out;
  std::string text(std::size_t(1) << 20, '\0');
  manifest.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(manifest.gcount()));
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("cases") || !doc["cases"].is_array()) return out;
  for (const nlohmann::json& c : doc["cases"]) {
    if (!c.is_object() || !c.contains("expected_artifact") || !c["expected_artifact"].is_string()) continue;
    std::error_code e;
    const fs::path expectedArtifact = fs::canonical(root / c["expected_artifact"].get<std::string>(), e);
    if (e || expectedArtifact != artifactDir) continue;
    const auto tolerance = [&](const char* key) {
      return c.contains(key) && c[key].is_number() ? c[key].get<double>() : -1.0;
    };
    const double rtol = tolerance("rtol"), atol = tolerance("atol");
    if (rtol >= 0 && atol >= 0) {
      out.rtol = rtol;
      out.atol = atol;
      out.fromManifest = true;
    }
    break;
  }
  return out;
}

} // namespace lattice
