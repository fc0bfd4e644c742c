#pragma once
/// \file An artifact on disk executed on the CPU runtime, as `lattice-cli check ARTIFACT --inputs
/// … --expected …` does it and the studio's artifact run bar shows it: open (parse, verify,
/// plan), make the inputs (RunInputs), run op by op with progress and cancel, time each op, and
/// check the outputs against an expected-outputs file (sec. 10.6: allclose with rtol / atol).
/// Also the conformance layout around an artifact, which picks those files.

#include "exec/RunInputs.h"
#include "runtime/Compare.h"

#include <atomic>
#include <string>
#include <vector>

namespace lattice {

/// What to run: the artifact, its inputs and the golden.
struct ArtifactRunRequest {
  std::string artifact;     ///< an artifact directory or its graph.mlir
  RunInputSpec inputs;      ///< random points from the ABI or an inputs file
  std::string expectedFile; ///< an expected-outputs .safetensors; empty: no golden
  double rtol = 1e-5;       ///< numpy.allclose's defaults, as `lattice-cli check`
  double atol = 1e-8;
};

/// What a run gives back.
struct ArtifactRunResult {
  std::string error; ///< empty when the run finished
  bool cancelled = false;
  int failedOp = -1; ///< the plan op that raised `error` (-1: before any op ran)
  std::string failedOpName;
  std::vector<double> opMs; ///< per plan op: its wall time, -1 when it did not run
  double totalMs = 0.0;
  /// Per output when an expected file was given (runtime::checkOutputs), with the plan op that
  /// produced it (-1: an argument returned as is).
  std::vector<runtime::OutputCheck> checks;
  std::vector<int> checkOps;
  /// Outputs that hold NaN or ±inf (runtime::nonFiniteOutputs), after a finished run.
  std::vector<std::string> warnings;

  bool hasGolden() const { return !checks.empty(); }
  bool allOk() const;
};

/// Runs `request` to the end (or until `cancel` is set: error "cancelled"), storing the ops done
/// in `progress` and the op count in `total` as it goes. Runs on any thread.
ArtifactRunResult runArtifact(const ArtifactRunRequest& request, const std::atomic<bool>& cancel,
                              std::atomic<int>& progress, std::atomic<int>& total);

/// The conformance layout around an artifact: `inputs.safetensors` and `expected.safetensors` in
/// the directory that holds it (empty when absent), and the case's tolerances from a
/// `manifest.json` two levels up whose `expected_artifact` is this artifact (else numpy's).
struct ConformanceFiles {
  std::string inputs;
  std::string expected;
  double rtol = 1e-5;
  double atol = 1e-8;
  bool fromManifest = false;
};
ConformanceFiles conformanceFilesNextTo(const std::string& artifact);

} // namespace lattice
