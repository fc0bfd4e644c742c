// lattice-bench --runtime: the CPU runtime on SparseResNet21D and SparseResUNet42 (lowered in
// memory) at 10 000 and 100 000 points sampled on surfaces, on a chain of 16→16 subm convs, and
// on example:chain at 1 000 and 10 000 blocks, whose time per op must not grow with the graph.
// Each case runs in its own process (so its peak RSS is its own) and reports, for the median of
// the timed runs: total time, kernel-map time and its share, conv GFLOP/s (2·edges·C_in·C_out per
// second of conv time without kernel maps), the same-run roofline (runtime::gemm, the cblas_sgemm
// the convs call, on exactly the GEMM shapes they ran, on contiguous operands, without gather or
// scatter), the peak RSS of the run against 2 × (weights + the two largest activations), and the
// exact mode's time. The case studio_vs_cli runs lattice-studio and lattice-cli on the same
// saved inputs of SparseResUNet42 at 100 000 points and compares their peak RSS and run times.
//
//   lattice-bench --runtime [--json] [--runs N] [--cases a,b] [--threads N]

#include "runtime_bench.h"

#include "BenchSupport.h"
#include "studio_vs_cli.h"

#include "exec/LoweredRun.h"
#include "mlir/MlirParser.h"
#include "model/LoadModel.h"
#include "runtime/Parallel.h"
#include "runtime/RandomInputs.h"
#include "runtime/Runtime.h"

#include <nlohmann/json.hpp>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace lattice;

namespace {

using bench::Clock;
using bench::median;
using bench::msSince;

struct BenchCase {
  std::string name;
  std::string model; // example:..., or "chain" for the subm chain
  std::int64_t points;
};

const std::vector<BenchCase>& allCases() {
  static const std::vector<BenchCase> cases = {
      {"sparse_resnet21d_10k", "example:sparse_resnet21d", 10000},
      {"sparse_resnet21d_100k", "example:sparse_resnet21d", 100000},
      {"sparse_resunet42_10k", "example:sparse_resunet42", 10000},
      {"sparse_resunet42_100k", "example:sparse_resunet42", 100000},
      {"chain_subm16", "chain", 100000},
      {"chain_1000", "example:chain:1000", 1000},
      {"chain_10000", "example:chain:10000", 1000},
  };
  return cases;
}

/// /proc/self/status field in kB (VmRSS, VmHWM), or 0.
double statusMb(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field, 0) == 0) return std::stod(line.substr(std::string(field).size() + 1)) / 1024.0;
  return 0.0;
}

/// Resets the peak RSS (VmHWM) to the current RSS (Linux >= 4.0).
void resetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

/// The chain: sparse.make, then 8 subm convs 16→16 with a 3×3×3 kernel.
Expected<runtime::Runtime> chainRuntime() {
  const int convs = 8;
  const std::string S = "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>";
  std::string text = "module attributes {\n  lattice.ir_version = 2,\n  lattice.schema_digest = \"" +
                     std::string(kDialectSchemaDigest) +
                     "\",\n  lattice.input_names = [\"x_coords\", \"x_features\", \"x_active\"],\n"
                     "  lattice.input_roles = [\"sparse_coords\", \"sparse_features\", \"sparse_active\"],\n"
                     "  lattice.output_names = [\"output\"],\n  lattice.output_roles = [\"sparse_tensor\"],\n"
                     "  lattice.weight_file = \"weights.safetensors\"\n} {\n"
                     "  func.func @forward(%x_coords: tensor<?x4xi32>, %x_features: tensor<?x16xf32>, %x_active: tensor<1xi32>) -> " +
                     S + " {\n    %c0 = lattice.sparse.make %x_coords, %x_features, %x_active {stride = array<i64: 1, 1, 1>, "
                         "coord_order = #lattice.coord<batch_x_y_z>} : (tensor<?x4xi32>, tensor<?x16xf32>, tensor<1xi32>) -> " +
                     S + "\n";
  std::vector<NamedTensor> weights;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f / std::sqrt(27.0f * 16.0f));
  for (int i = 0; i < convs; ++i) {
    const std::string w = "w" + std::to_string(i);
    text += "    %" + w + " = lattice.weight @" + w + " {storage_key = \"" + w +
            "\", layout = #lattice.weight_layout<conv3d_o_xyz_i>, packing = #lattice.packing<dense>} : "
            "!lattice.weight<conv3d, f32>\n";
    text += "    %c" + std::to_string(i + 1) + " = lattice.subm_conv3d %c" + std::to_string(i) + ", %" + w +
            " {kernel_size = array<i64: 3, 3, 3>, dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"} : (" +
            S + ", !lattice.weight<conv3d, f32>) -> " + S + "\n";
    std::vector<float> values(16 * 27 * 16);
    for (float& v : values) v = normal(rng);
    std::vector<std::uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    weights.push_back({w, TensorData::owning(DType::F32, {16, 3, 3, 3, 16}, std::move(bytes))});
  }
  text += "    return %c" + std::to_string(convs) + " : " + S + "\n  }\n}\n";
  ArtifactParseResult graph = parseArtifactGraph(text, "chain_subm16/graph.mlir");
  if (!graph.ok()) return makeError(graph.error.str());
  return runtime::Runtime::fromGraph(std::move(*graph.graph), runtime::WeightSource::fromTensors(weights));
}

Expected<runtime::Runtime> modelRuntime(const std::string& spec) {
  Expected<Model> model = loadModel(spec);
  if (!model) return model.error();
  Expected<PreparedLowering> lowering = prepareLowering(*model, ExportOptions{});
  if (!lowering) return lowering.error();
  if (Status s = finishLowering(*lowering); !s) return s.error();
  Expected<LoweredRun> run = runLowering(*lowering, spec);
  if (!run) return run.error();
  return std::move(run->runtime);
}

/// Runs one case in this process and returns its figures. `startupMb`: the RSS of the process
/// before it loaded anything (code and libraries), which the run's own memory is counted above.
nlohmann::json runCase(const BenchCase& c, int runs, double startupMb) {
  Expected<runtime::Runtime> rt = c.model == "chain" ? chainRuntime() : modelRuntime(c.model);
  if (!rt) throw std::runtime_error(rt.message());
  ::malloc_trim(0); // the lowering's memory is gone; what stays is the runtime's
  runtime::RandomInputOptions options;
  options.points = c.points;
  options.seed = 1;
  Expected<std::vector<NamedTensor>> tensors = runtime::randomInputs(rt->plan(), options);
  if (!tensors) throw std::runtime_error(tensors.message());
  runtime::RuntimeInputs inputs;
  inputs.named = *tensors;
  std::uint64_t inputBytes = 0;
  for (const NamedTensor& t : *tensors) inputBytes += t.tensor.byteSize();
  std::uint64_t weightBytes = 0;
  for (const runtime::PlanOp& op : rt->plan().ops)
    if (op.kind == OpKind::Weight) {
      const std::string key = op.text("storage_key");
      for (const std::string& k : {key, key + ".weight", key + ".scales", key + ".biases"})
        if (const TensorData* t = rt->weights().find(k)) weightBytes += t->byteSize();
    }

  auto runOnce = [&](runtime::Numerics numerics, bool keep) {
    runtime::RuntimeOptions o;
    o.numerics = numerics;
    o.keepValues = keep;
    if (Status s = rt->start(inputs, o); !s) throw std::runtime_error(s.message());
    const auto t0 = Clock::now();
    if (Status s = rt->run(); !s) throw std::runtime_error(s.message());
    return msSince(t0);
  };
  // Warm-up with every value kept: prepares the weights and measures every activation's size.
  runOnce(runtime::Numerics::Default, true);
  // Every value kept again, as the studio runs (weights prepared, memory of the warm-up reused).
  const double keptMs = runOnce(runtime::Numerics::Default, true);
  std::vector<std::uint64_t> activations;
  for (const runtime::PlanOp& op : rt->plan().ops)
    for (int slot : op.results) activations.push_back(runtime::valueBytes(rt->value(slot)));
  std::sort(activations.rbegin(), activations.rend());
  const std::uint64_t twoLargest = (activations.size() > 0 ? activations[0] : 0) + (activations.size() > 1 ? activations[1] : 0);
  if (Status s = rt->start(inputs, {}); !s) throw std::runtime_error(s.message()); // drops the kept values
  ::malloc_trim(0);
  const double baseMb = statusMb("VmRSS:");
  resetPeakRss();

  std::vector<double> totals, maps, convMs, convFlops;
  double workingSetMb = 0; // the largest live values + cached maps after any op
  std::vector<std::array<std::int64_t, 3>> shapes;
  for (int r = 0; r < runs; ++r) {
    totals.push_back(runOnce(runtime::Numerics::Default, false));
    maps.push_back(rt->kernelMapMs());
    double ms = 0, flops = 0;
    for (std::size_t i = 0; i < rt->plan().ops.size(); ++i) {
      const runtime::OpStats& s = rt->stats(static_cast<int>(i));
      workingSetMb = std::max(workingSetMb, static_cast<double>(s.liveBytes + s.mapBytes) / (1024.0 * 1024.0));
      if (!isConv(rt->plan().ops[i].kind)) continue;
      ms += s.ms - s.kernelMapMs;
      flops += s.flops;
      if (r == 0) shapes.insert(shapes.end(), s.gemms.begin(), s.gemms.end());
    }
    convMs.push_back(ms);
    convFlops.push_back(flops);
  }
  const double peakMb = statusMb("VmHWM:");

  // The roofline: the same GEMM shapes, on contiguous operands, through the same backend.
  std::int64_t maxA = 0, maxB = 0, maxC = 0;
  for (const auto& s : shapes) maxA = std::max(maxA, s[0] * s[1]), maxB = std::max(maxB, s[1] * s[2]), maxC = std::max(maxC, s[0] * s[2]);
  std::vector<float> a(static_cast<std::size_t>(maxA), 0.5f), b(static_cast<std::size_t>(maxB), 0.25f), out(static_cast<std::size_t>(maxC));
  std::vector<double> gemmMs;
  double gemmFlops = 0;
  for (const auto& s : shapes) gemmFlops += 2.0 * static_cast<double>(s[0]) * static_cast<double>(s[1]) * static_cast<double>(s[2]);
  for (int r = 0; r < std::max(3, runs); ++r) {
    const auto t0 = Clock::now();
    for (const auto& s : shapes) runtime::gemm(a.data(), b.data(), out.data(), s[0], s[1], s[2], false);
    gemmMs.push_back(msSince(t0));
  }
  const double exactMs = runOnce(runtime::Numerics::Exact, false);

  const double total = median(totals), mapMs = median(maps), conv = median(convMs);
  const double convGflops = conv > 0 ? convFlops.front() / (conv * 1e6) : 0.0;
  const double roofline = median(gemmMs) > 0 ? gemmFlops / (median(gemmMs) * 1e6) : 0.0;
  const double boundMb = 2.0 * static_cast<double>(weightBytes + twoLargest) / (1024.0 * 1024.0);
  return {{"name", c.name},
          {"points", c.points},
          {"ops", rt->plan().ops.size()},
          {"total_ms", total},
          {"kernel_map_ms", mapMs},
          {"kernel_map_share", total > 0 ? mapMs / total : 0.0},
          {"conv_ms", conv},
          {"conv_gflops", convGflops},
          {"roofline_gflops", roofline},
          {"roofline_share", roofline > 0 ? convGflops / roofline : 0.0},
          {"peak_rss_mb", peakMb},
          {"base_rss_mb", baseMb},
          {"startup_rss_mb", startupMb},
          {"run_rss_mb", peakMb - startupMb},
          {"rss_bound_mb", boundMb},
          {"working_set_mb", workingSetMb},
          {"weights_mb", static_cast<double>(weightBytes) / (1024.0 * 1024.0)},
          {"inputs_mb", static_cast<double>(inputBytes) / (1024.0 * 1024.0)},
          {"two_largest_activations_mb", static_cast<double>(twoLargest) / (1024.0 * 1024.0)},
          {"exact_ms", exactMs},
          {"kept_ms", keptMs},
          {"threads", runtime::threads()}};
}

} // namespace

int runtimeBenchMain(int argc, char** argv) {
  // The process's own footprint before a case loads anything: code, libraries, and the compute
  // backend's threads and GEMM buffers (started by one small GEMM and one parallel loop).
  runtime::setThreads(0);
  {
    std::vector<float> a(256 * 256, 1.0f), c(256 * 256);
    runtime::gemm(a.data(), a.data(), c.data(), 256, 256, 256, false);
    runtime::parallelFor(1 << 16, 1, [](std::int64_t, std::int64_t) {});
  }
  const double startupMb = statusMb("VmRSS:");
  bool json = false;
  int runs = 3, threads = 0;
  std::string only, casesArg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runtime") continue;
    if (a == "--json") json = true;
    else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--threads" && i + 1 < argc) threads = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cases" && i + 1 < argc) casesArg = argv[++i];
    else if (a == "--one" && i + 1 < argc) only = argv[++i]; // internal: run one case in this process
    else {
      std::cerr << "usage: lattice-bench --runtime [--json] [--runs N] [--threads N] [--cases a,b,...]\n";
      return 2;
    }
  }
  runtime::setThreads(threads);
  if (!only.empty()) {
    for (const BenchCase& c : allCases())
      if (c.name == only) {
        try {
          std::cout << runCase(c, runs, startupMb).dump() << std::endl;
          return 0;
        } catch (const std::exception& e) {
          std::cerr << "lattice-bench: " << c.name << ": " << e.what() << '\n';
          return 1;
        }
      }
    std::cerr << "lattice-bench: unknown case " << only << '\n';
    return 2;
  }
  nlohmann::json cases = nlohmann::json::array();
  for (const BenchCase& c : allCases()) {
    if (!casesArg.empty() && ("," + casesArg + ",").find("," + c.name + ",") == std::string::npos) continue;
    const std::string command = "'" + bench::selfExe() + "' --runtime --one " + c.name + " --runs " +
                                std::to_string(runs) +
                                (threads > 0 ? " --threads " + std::to_string(threads) : "");
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string output;
    char buf[4096];
    while (pipe && std::fgets(buf, sizeof buf, pipe)) output += buf;
    if (!pipe || ::pclose(pipe) != 0) {
      std::cerr << "lattice-bench: case " << c.name << " failed\n";
      return 1;
    }
    cases.push_back(nlohmann::json::parse(output));
    if (!json) std::fprintf(stderr, "%-22s done\n", c.name.c_str());
  }
  // The studio against the CLI on the same inputs: two other processes, measured from outside.
  nlohmann::json studio;
  if (casesArg.empty() || ("," + casesArg + ",").find(",studio_vs_cli,") != std::string::npos) {
    studio = bench::studioVsCli("example:sparse_resunet42", 100000, runs);
    if (studio.contains("error")) {
      std::cerr << "lattice-bench: studio_vs_cli: " << studio["error"].get<std::string>() << '\n';
      return 1;
    }
    if (!json) std::fprintf(stderr, "%-22s done\n", "studio_vs_cli");
  }
  if (json) {
    nlohmann::json out{{"runtime_cases", cases}};
    if (!studio.is_null()) out["studio_vs_cli"] = studio;
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  if (!cases.empty()) {
    std::printf("runtime on %d threads, BLAS: %s\n\n", runtime::threads(), runtime::blasLibrary().c_str());
    std::printf("%-22s %8s %10s %10s %6s %9s %9s %6s %9s %9s %10s\n", "case", "points", "total ms", "map ms",
                "map%", "conv GF/s", "roof GF/s", "roof%", "peak MB", "bound MB", "exact ms");
    for (const nlohmann::json& r : cases)
      std::printf("%-22s %8lld %10.1f %10.1f %5.1f%% %9.2f %9.2f %5.0f%% %9.0f %9.0f %10.1f\n",
                  r["name"].get<std::string>().c_str(), r["points"].get<long long>(),
                  r["total_ms"].get<double>(), r["kernel_map_ms"].get<double>(),
                  100.0 * r["kernel_map_share"].get<double>(), r["conv_gflops"].get<double>(),
                  r["roofline_gflops"].get<double>(), 100.0 * r["roofline_share"].get<double>(),
                  r["peak_rss_mb"].get<double>(), r["rss_bound_mb"].get<double>(),
                  r["exact_ms"].get<double>());
  }
  auto find = [&](const char* name) -> const nlohmann::json* {
    for (const nlohmann::json& r : cases)
      if (r["name"] == name) return &r;
    return nullptr;
  };
  for (const char* model : {"sparse_resnet21d", "sparse_resunet42"}) {
    const nlohmann::json* small = find((std::string(model) + "_10k").c_str());
    const nlohmann::json* large = find((std::string(model) + "_100k").c_str());
    if (small && large)
      std::printf("%s: 100k / 10k total = %.2fx (target <= 12x)\n", model,
                  (*large)["total_ms"].get<double>() / (*small)["total_ms"].get<double>());
  }
  const nlohmann::json* shortChain = find("chain_1000");
  const nlohmann::json* longChain = find("chain_10000");
  if (shortChain && longChain) {
    auto perOp = [](const nlohmann::json& r, const char* field) {
      return r[field].get<double>() / std::max(1.0, r["ops"].get<double>());
    };
    for (const char* field : {"total_ms", "kept_ms"})
      std::printf("chain per op (%s): %.4f ms at %lld ops, %.4f ms at %lld ops: ratio %.2fx (target <= 1.5x)\n",
                  std::string(field) == "kept_ms" ? "every value kept" : "values freed", perOp(*shortChain, field),
                  (*shortChain)["ops"].get<long long>(), perOp(*longChain, field), (*longChain)["ops"].get<long long>(),
                  perOp(*longChain, field) / perOp(*shortChain, field));
  }
  if (studio.contains("skipped")) {
    std::printf("studio vs CLI: skipped (%s)\n", studio["skipped"].get<std::string>().c_str());
  } else if (!studio.is_null()) {
    std::printf("studio vs CLI, %s at %lld points (median of %d): peak RSS %.0f MB vs %.0f MB: ratio %.2fx "
                "(target <= 1.5x); run %.0f ms vs %.0f ms: ratio %.2fx (target <= 1.2x)\n",
                studio["model"].get<std::string>().c_str(), studio["points"].get<long long>(),
                studio["runs"].get<int>(), studio["studio_peak_rss_mb"].get<double>(),
                studio["cli_peak_rss_mb"].get<double>(), studio["memory_ratio"].get<double>(),
                studio["studio_run_ms"].get<double>(), studio["cli_run_ms"].get<double>(),
                studio["time_ratio"].get<double>());
  }
  std::printf("targets: conv >= 50%% of roofline on sparse_resunet42_100k; kernel maps <= 25%% of total; "
              "peak RSS <= bound (2 x (weights + two largest activations))\n");
  return 0;
}
