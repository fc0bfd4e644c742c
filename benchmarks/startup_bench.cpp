// lattice-bench --startup: how long lattice-cli takes from exec to exit for the commands that
// need no LibTorch: `--version`, and `validate` of a small artifact (by default one it lowers
// from example:chain:2 into a temporary directory; --artifact DIR for another). Each command
// runs N times after one warm-up; the median and the fastest wall times are printed, with the
// shared libraries the executable loads (the dynamic loader's own list, as ldd prints it).
// --baseline PATH times another lattice-cli (an older build) on the same commands, its runs
// interleaved with ours so that both see the same load, and prints the ratio of the medians.
//
//   lattice-bench --startup [--runs N] [--cli PATH] [--baseline PATH] [--artifact DIR] [--json]

#include "startup_bench.h"

#include "BenchSupport.h"

#include "lowering/Lowering.h"
#include "model/LoadModel.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace lattice;

namespace {

using bench::median;
using bench::selfDir;

/// Runs `argv` with its output to `out`: the wall time in milliseconds, or -1 when it failed.
double runOnce(const std::vector<std::string>& argv, const std::vector<std::string>& extraEnv = {},
               const std::string& out = "/dev/null") {
  const bench::ProcessRun run = bench::runProcess(argv, extraEnv, out);
  return run.ok ? run.wallMs : -1.0;
}

/// The shared libraries `exe` loads, as the dynamic loader lists them for ldd.
std::vector<std::string> loadedLibraries(const std::string& exe, const fs::path& scratch) {
  const std::string listFile = (scratch / "libraries.txt").string();
  std::vector<std::string> libs;
  if (runOnce({exe}, {"LD_TRACE_LOADED_OBJECTS=1"}, listFile) < 0) return libs;
  std::ifstream in(listFile);
  std::string line;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t") != std::string::npos) libs.push_back(line);
  return libs;
}

struct Timing {
  std::string command;
  std::vector<double> ms; // one per timed run
  double medianMs() const { return median(ms); }
  double minMs() const { return *std::min_element(ms.begin(), ms.end()); }
};

/// One lattice-cli under test: its path, the libraries it loads, its timings per command.
struct Subject {
  std::string cli;
  std::vector<std::string> libs;
  bool torch = false;
  std::vector<Timing> timings;
};

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

nlohmann::json subjectJson(const Subject& s) {
  nlohmann::json out = {{"cli", s.cli},
                        {"shared_libraries", s.libs.size()},
                        {"libtorch_linked", s.torch},
                        {"commands", nlohmann::json::array()}};
  for (const Timing& t : s.timings)
    out["commands"].push_back({{"command", t.command}, {"median_ms", t.medianMs()}, {"min_ms", t.minMs()}});
  return out;
}

} // namespace

int startupBenchMain(int argc, char** argv) {
  int runs = 20;
  bool json = false;
  std::string cli = selfDir() + "/lattice-cli";
  std::string baseline;
  std::string artifact;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--startup") continue;
    if (a == "--json") json = true;
    else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cli" && i + 1 < argc) cli = argv[++i];
    else if (a == "--baseline" && i + 1 < argc) baseline = argv[++i];
    else if (a == "--artifact" && i + 1 < argc) artifact = argv[++i];
    else {
      std::cerr << "usage: lattice-bench --startup [--runs N] [--cli PATH] [--baseline PATH] [--artifact DIR] [--json]\n";
      return 2;
    }
  }
  if (!executable(cli)) {
    std::cerr << "lattice-bench: " << cli << ": not an executable (build lattice-cli, or pass --cli PATH)\n";
    return 1;
  }
  if (!baseline.empty() && !executable(baseline)) {
    std::cerr << "lattice-bench: --baseline " << baseline << ": not an executable\n";
    return 1;
  }
  const bench::ScratchDir dir("startup");
  const fs::path& scratch = dir.path();

  std::string artifactLabel = artifact;
  if (artifact.empty()) {
    const std::string model = "example:chain:2";
    auto loaded = loadModel(model);
    if (!loaded) {
      std::cerr << "lattice-bench: " << loaded.message() << '\n';
      return 1;
    }
    artifact = (scratch / "chain2.lattice").string();
    if (Status s = saveLatticeModelArtifact(*loaded, artifact); !s) {
      std::cerr << "lattice-bench: lowering " << model << ": " << s.message() << '\n';
      return 1;
    }
    artifactLabel = model + " lowered";
  }
  std::size_t ops = 0;
  {
    std::ifstream graph(fs::path(artifact) / "graph.mlir");
    std::string line;
    while (std::getline(graph, line))
      if (line.find("= \"lattice.") != std::string::npos || line.find("= lattice.") != std::string::npos) ++ops;
  }

  std::vector<Subject> subjects;
  for (const std::string& path : {cli, baseline}) {
    if (path.empty()) continue;
    Subject s;
    s.cli = path;
    s.libs = loadedLibraries(path, scratch);
    s.torch = std::any_of(s.libs.begin(), s.libs.end(),
                          [](const std::string& l) { return l.find("libtorch") != std::string::npos; });
    subjects.push_back(std::move(s));
  }

  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"lattice-cli --version", {"--version"}},
      {"lattice-cli validate (" + std::to_string(ops) + " ops)", {"validate", artifact}}};
  for (const auto& [label, args] : commands) {
    for (Subject& s : subjects) s.timings.push_back({label, {}});
    // Run i of every subject before run i + 1 of any: a burst of load hits both alike. The first
    // run of each warms the page cache and is not counted.
    for (int i = 0; i <= runs; ++i)
      for (Subject& s : subjects) {
        std::vector<std::string> argv = {s.cli};
        argv.insert(argv.end(), args.begin(), args.end());
        const double ms = runOnce(argv);
        if (ms < 0) {
          std::cerr << "lattice-bench: " << s.cli << ' ' << args[0] << " failed\n";
          return 1;
        }
        if (i > 0) s.timings.back().ms.push_back(ms);
      }
  }

  if (json) {
    nlohmann::json out = {{"artifact", artifactLabel}, {"artifact_ops", ops}, {"runs", runs}};
    out.update(subjectJson(subjects.front()));
    if (subjects.size() > 1) out["baseline"] = subjectJson(subjects[1]);
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  for (const Subject& s : subjects)
    std::printf("%s%s: %zu shared libraries, LibTorch %s\n", &s == &subjects.front() ? "" : "baseline ",
                s.cli.c_str(), s.libs.size(), s.torch ? "linked" : "not linked (loaded on demand for TorchScript)");
  std::printf("validate artifact: %s, %zu ops\n\n", artifactLabel.c_str(), ops);
  std::printf("%-34s %10s %10s", "command", "median ms", "min ms");
  if (subjects.size() > 1) std::printf(" %14s %14s %8s", "base median ms", "base min ms", "speed-up");
  std::printf("   (%d runs after one warm-up)\n", runs);
  for (std::size_t c = 0; c < commands.size(); ++c) {
    const Timing& t = subjects.front().timings[c];
    std::printf("%-34s %10.1f %10.1f", t.command.c_str(), t.medianMs(), t.minMs());
    if (subjects.size() > 1) {
      const Timing& b = subjects[1].timings[c];
      std::printf(" %14.1f %14.1f %7.0fx", b.medianMs(), b.minMs(), b.medianMs() / std::max(t.medianMs(), 1e-9));
    }
    std::printf("\n");
  }
  std::printf("target: <= 100 ms wall for each on an idle machine\n");
  return 0;
}
