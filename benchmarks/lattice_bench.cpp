// lattice-bench: in-process timings of trace, lower (no IO) and full save (with validation)
// for the built-in models, median of N runs after one warm-up. Prints a table, or JSON with
// --json. Run on demand; it is not a test.
//
//   lattice-bench [--dir DIR] [--runs N] [--cases a,b,...] [--json] [--phases]
//   lattice-bench --runtime [--json] [--runs N] [--threads N] [--cases a,b,...]   (runtime_bench.cpp)
//   lattice-bench --startup [--runs N] [--cli PATH] [--baseline PATH] [--artifact DIR] [--json]   (startup_bench.cpp)
//   lattice-bench --validation [--runs N] [--sizes a,b,...]   (validation_bench.cpp)
//   lattice-bench --quant-plan [--model M] [--points N] [--candidates int4,int8] [--runs N] [--json]   (quant_bench.cpp)
//
// --phases adds, per case, the split of "lower" into prepare (resolve + trace), interpret
// (finishLowering), text (toMlir) and teardown (destroying the builder and graph).
// The last lines of the table are two within-run ratios (per-block lowering cost at N = 10000 against N = 100, from the medians and
// from the fastest runs, and the SparseResUNet42 save against a sequential write of its bytes)
// when their cases ran.

#include "BenchSupport.h"
#include "quant_bench.h"
#include "runtime_bench.h"
#include "startup_bench.h"
#include "validation_bench.h"

#include "lowering/Lowering.h"
#include "model/LoadModel.h"
#include "trace/Tracer.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace lattice;

namespace {

using bench::Clock;
using bench::median;
using bench::msSince;

/// Median of `runs` timings of `fn` after one warm-up; aborts the process on failure. `fastest`,
/// when given, receives the fastest of those runs.
double timeMedian(int runs, const std::function<Status()>& fn, const char* what, double* fastest = nullptr) {
  std::vector<double> times;
  for (int i = 0; i <= runs; ++i) {
    const auto t0 = Clock::now();
    Status s = fn();
    const double ms = msSince(t0);
    if (!s) {
      std::cerr << "lattice-bench: " << what << ": " << s.message() << '\n';
      std::exit(1);
    }
    if (i > 0) times.push_back(ms);
  }
  if (fastest) *fastest = *std::min_element(times.begin(), times.end());
  return median(times);
}

struct Case {
  std::string name;
  std::string model;
  std::optional<int64_t> quantize;
};

struct Result {
  std::string name;
  std::size_t nodes = 0;
  uint64_t weightBytes = 0;
  double traceMs = 0, lowerMs = 0, saveMs = 0, writeMbS = 0;
  double fastestLowerMs = 0; // the fastest of the lower runs (the ratio lines show it beside the median)
};

/// Sequential write speed of `bytes` into `dir` (one file, 4 MiB writes, fsync), in MB/s.
double measureDiskWrite(const fs::path& dir, uint64_t bytes) {
  const fs::path file = dir / ".lattice-bench-disk";
  std::vector<char> block(4u << 20, 'x');
  std::vector<double> speeds;
  for (int run = 0; run < 3; ++run) {
    const auto t0 = Clock::now();
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return 0.0;
    uint64_t left = bytes;
    while (left > 0) {
      const std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(left, block.size()));
      if (::write(fd, block.data(), n) != static_cast<ssize_t>(n)) break;
      left -= n;
    }
    ::fsync(fd);
    ::close(fd);
    speeds.push_back(static_cast<double>(bytes) / 1e6 / (msSince(t0) / 1000.0));
  }
  fs::remove(file);
  return median(speeds);
}

} // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--runtime") return runtimeBenchMain(argc, argv);
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--startup") return startupBenchMain(argc, argv);
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--validation") return validationBenchMain(argc, argv);
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--quant-plan") return quantBenchMain(argc, argv);
  std::string dirArg;
  std::string casesArg;
  int runs = 5;
  bool json = false;
  bool phases = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") json = true;
    else if (a == "--phases") phases = true;
    else if (a == "--dir" && i + 1 < argc) dirArg = argv[++i];
    else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cases" && i + 1 < argc) casesArg = argv[++i];
    else {
      std::cerr << "usage: lattice-bench [--dir DIR] [--runs N] [--cases a,b,...] [--json] [--phases]\n"
                   "       lattice-bench --runtime [--json] [--runs N] [--threads N] [--cases a,b,...]\n"
                   "       lattice-bench --startup [--runs N] [--cli PATH] [--baseline PATH] [--artifact DIR] [--json]\n"
                   "       lattice-bench --validation [--runs N] [--sizes a,b,...]\n"
                   "       lattice-bench --quant-plan [--model M] [--points N] [--candidates int4,int8] [--runs N] [--json]\n";
      return 2;
    }
  }

  std::vector<Case> cases = {
      {"sparse_resnet21d", "example:sparse_resnet21d", std::nullopt},
      {"sparse_resunet42", "example:sparse_resunet42", std::nullopt},
      {"sparse_resunet42_int4", "example:sparse_resunet42", 4},
      {"chain_100", "example:chain:100", std::nullopt},
      {"chain_1000", "example:chain:1000", std::nullopt},
      {"chain_3000", "example:chain:3000", std::nullopt},
      {"chain_10000", "example:chain:10000", std::nullopt},
  };
  if (!casesArg.empty()) {
    std::vector<Case> chosen;
    for (const Case& c : cases)
      if (("," + casesArg + ",").find("," + c.name + ",") != std::string::npos) chosen.push_back(c);
    cases = chosen;
  }

  fs::path dir = dirArg.empty() ? fs::temp_directory_path() / ("lattice-bench-" + std::to_string(::getpid()))
                                : fs::path(dirArg);
  std::error_code ec;
  fs::create_directories(dir, ec);
  const bool removeDir = dirArg.empty();

  std::vector<Result> results;
  uint64_t largest = 0;
  for (const Case& c : cases) {
    auto model = loadModel(c.model);
    if (!model) {
      std::cerr << "lattice-bench: " << model.message() << '\n';
      return 1;
    }
    Result r;
    r.name = c.name;
    ExportOptions options;
    options.quantizeBits = c.quantize;

    LatticeTracer tracer;
    r.traceMs = timeMedian(runs, [&]() -> Status {
      auto g = tracer.trace(*model);
      if (!g) return g.error();
      r.nodes = (*g)->size();
      return {};
    }, "trace");

    r.lowerMs = timeMedian(runs, [&]() -> Status {
      auto p = prepareLowering(*model, options);
      if (!p) return p.error();
      if (Status s = finishLowering(*p); !s) return s;
      auto text = p->builder->toMlir();
      if (!text) return text.error();
      r.weightBytes = 0;
      for (const NamedTensor& t : p->builder->weights()) r.weightBytes += t.tensor.byteSize();
      return {};
    }, "lower", &r.fastestLowerMs);

    if (phases) {
      std::vector<double> prepare, interpret, text, teardown;
      for (int i = 0; i <= runs; ++i) {
        auto t0 = Clock::now();
        auto p = std::make_unique<Expected<PreparedLowering>>(prepareLowering(*model, options));
        if (!*p) return 1;
        const double a = msSince(t0);
        t0 = Clock::now();
        if (!finishLowering(**p)) return 1;
        const double b = msSince(t0);
        t0 = Clock::now();
        if (!(**p).builder->toMlir()) return 1;
        const double c = msSince(t0);
        t0 = Clock::now();
        p.reset();
        const double d = msSince(t0);
        if (i == 0) continue;
        prepare.push_back(a), interpret.push_back(b), text.push_back(c), teardown.push_back(d);
      }
      std::fprintf(stderr, "%-24s prepare %.2f ms, interpret %.2f ms, text %.2f ms, teardown %.2f ms\n",
                   c.name.c_str(), median(prepare), median(interpret), median(text), median(teardown));
    }

    const std::string target = (dir / (c.name + ".lattice")).string();
    r.saveMs = timeMedian(runs, [&]() { return saveLatticeModelArtifact(*model, target, options); }, "save");
    r.writeMbS = static_cast<double>(r.weightBytes) / 1e6 / (r.saveMs / 1000.0);
    fs::remove_all(target, ec);
    largest = std::max(largest, r.weightBytes);
    results.push_back(r);
    if (!json)
      std::fprintf(stderr, "%-24s done\n", c.name.c_str());
  }

  const double disk = measureDiskWrite(dir, std::max<uint64_t>(largest, 1u << 20));
  if (removeDir) fs::remove_all(dir, ec);

  if (json) {
    nlohmann::json out;
    out["disk_seq_write_mb_s"] = disk;
    out["cases"] = nlohmann::json::array();
    for (const Result& r : results)
      out["cases"].push_back({{"name", r.name}, {"nodes", r.nodes}, {"weight_bytes", r.weightBytes},
                              {"trace_ms", r.traceMs}, {"lower_ms", r.lowerMs}, {"save_ms", r.saveMs},
                              {"write_mb_s", r.writeMbS}});
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  std::printf("disk sequential write: %.0f MB/s (%s)\n\n", disk, dir.c_str());
  std::printf("%-24s %7s %12s %10s %10s %10s %10s\n", "case", "nodes", "weight MB", "trace ms", "lower ms",
              "save ms", "write MB/s");
  for (const Result& r : results)
    std::printf("%-24s %7zu %12.1f %10.2f %10.2f %10.2f %10.0f\n", r.name.c_str(), r.nodes,
                static_cast<double>(r.weightBytes) / 1e6, r.traceMs, r.lowerMs, r.saveMs, r.writeMbS);

  // Two of the targets are ratios within one run: print them when their cases ran.
  const auto find = [&](const char* name) -> const Result* {
    for (const Result& r : results)
      if (r.name == name) return &r;
    return nullptr;
  };
  const Result* small = find("chain_100");
  const Result* large = find("chain_10000");
  // Beside the medians, the same ratio of the fastest runs: this machine's neighbours slow it
  // down in bursts, and when the two ratios differ much, one case ran in a burst.
  if (small && large && small->lowerMs > 0 && small->fastestLowerMs > 0)
    std::printf("\nlower per block, chain_10000 / chain_100: %.2f µs / %.2f µs = %.2fx"
                " (fastest runs: %.2f µs / %.2f µs = %.2fx)\n",
                1000.0 * large->lowerMs / 10000, 1000.0 * small->lowerMs / 100,
                (large->lowerMs / 10000) / (small->lowerMs / 100), 1000.0 * large->fastestLowerMs / 10000,
                1000.0 * small->fastestLowerMs / 100,
                (large->fastestLowerMs / 10000) / (small->fastestLowerMs / 100));
  if (const Result* unet = find("sparse_resunet42"); unet && disk > 0) {
    const double sequentialMs = static_cast<double>(unet->weightBytes) / 1e6 / disk * 1000.0;
    std::printf("sparse_resunet42 save / sequential write of its %.1f MB: %.2f ms / %.2f ms = %.2fx\n",
                static_cast<double>(unet->weightBytes) / 1e6, unet->saveMs, sequentialMs,
                unet->saveMs / sequentialMs);
  }
  return 0;
}
