#include "studio_vs_cli.h"

#include "BenchSupport.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace lattice::bench {

namespace {

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The run time a side printed ("588 ops in 5821.5 ms"), or -1.
double printedRunMs(const std::string& text) {
  static const std::regex ran(R"((\d+) ops in ([0-9.]+) ms)");
  std::smatch m;
  return std::regex_search(text, m, ran) ? std::stod(m[2].str()) : -1.0;
}

struct Side {
  std::vector<double> rssMb, runMs;
};

} // namespace

nlohmann::json studioVsCli(const std::string& model, std::int64_t points, int runs) {
  const std::string cli = selfDir() + "/lattice-cli", studio = selfDir() + "/lattice-studio";
  if (::access(studio.c_str(), X_OK) != 0) return {{"skipped", studio + " is not built"}};
  const ScratchDir dir("studio");
  const fs::path& scratch = dir.path();
  fs::create_directories(scratch / "config");
  const std::string inputs = (scratch / "inputs.safetensors").string();
  const std::string outputs = (scratch / "outputs.safetensors").string();
  const std::string printed = (scratch / "printed.txt").string();
  const std::string errors = (scratch / "errors.txt").string();
  const auto failed = [&](const std::string& what) {
    return nlohmann::json{{"error", what + ": " + readText(errors)}};
  };
  if (!runProcess({cli, "run", model, "--random-inputs", std::to_string(points) + ":1", "--save-inputs",
                   inputs, "-o", outputs},
                  {}, "/dev/null", errors)
           .ok)
    return failed("lattice-cli could not save inputs");

  // The studio headless, with settings of its own: the default values budget, no saved layout.
  const std::vector<std::string> studioEnv = {"QT_QPA_PLATFORM=offscreen",
                                              "XDG_CONFIG_HOME=" + (scratch / "config").string()};
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> commands = {
      {{cli, "run", model, "--inputs", inputs, "-o", outputs}, {}},
      {{studio, model, "--inputs", inputs, "--run", "--screenshot", (scratch / "window.png").string()},
       studioEnv}};
  Side sides[2];
  // Run i of both before run i + 1 of either, so that a burst of load hits both alike; the first
  // pair warms the page cache and is not counted.
  for (int i = 0; i <= runs; ++i)
    for (int s = 0; s < 2; ++s) {
      const ProcessRun run = runProcess(commands[s].first, commands[s].second, printed, errors);
      const double ms = printedRunMs(readText(printed));
      if (!run.ok || ms < 0) return failed(commands[s].first.front() + " did not finish its run");
      if (i == 0) continue;
      sides[s].rssMb.push_back(run.peakRssMb);
      sides[s].runMs.push_back(ms);
    }
  const double cliRss = median(sides[0].rssMb), studioRss = median(sides[1].rssMb);
  const double cliMs = median(sides[0].runMs), studioMs = median(sides[1].runMs);
  return {{"model", model},
          {"points", points},
          {"runs", runs},
          {"cli_peak_rss_mb", cliRss},
          {"studio_peak_rss_mb", studioRss},
          {"memory_ratio", studioRss / cliRss},
          {"cli_run_ms", cliMs},
          {"studio_run_ms", studioMs},
          {"time_ratio", studioMs / cliMs}};
}

} // namespace lattice::bench
