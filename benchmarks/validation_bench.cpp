// lattice-bench --validation: validateArtifactPayload (the check every save runs before it swaps
// the artifact in) on synthetic graphs of N dense and N packed weights (3 stored tensors each),
// once with every stored key referenced and once with one orphan, median of --runs runs. The
// check is meant to be linear: the last line is the time per stored key at the largest N
// against the smallest (about 1 when linear, about N_max / N_min when quadratic).
//
//   lattice-bench --validation [--runs N] [--sizes a,b,...]

#include "validation_bench.h"

#include "BenchSupport.h"

#include "dialect/ArtifactFiles.h"
#include "dialect/DialectSchema.h"
#include "lowering/ArtifactSave.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace lattice;

namespace {

using bench::Clock;
using bench::median;

struct Payload {
  std::string text;
  std::vector<std::string> stored;
};

Payload makePayload(int n) {
  Payload p;
  p.text = "module attributes {\n  lattice.ir_version = " + std::to_string(kDialectIrVersion) +
           ",\n  lattice.schema_digest = \"" + std::string(kDialectSchemaDigest) +
           "\",\n  lattice.weight_file = \"" + std::string(kArtifactWeightFile) +
           "\"\n} {\n  func.func @forward(\n  ) {\n";
  auto weightOp = [](const std::string& key) {
    return "    %w = lattice.weight @w {storage_key = \"" + key +
           "\", layout = #lattice.weight_layout<bias_c>} : !lattice.weight<bias, f32>\n";
  };
  for (int i = 0; i < n; ++i) {
    const std::string dense = "layer" + std::to_string(i) + ".bias";
    const std::string packed = "layer" + std::to_string(i) + ".weight";
    p.text += weightOp(dense) + weightOp(packed);
    p.stored.push_back(dense);
    for (const char* part : {".weight", ".scales", ".biases"})
      p.stored.push_back(packed + part);
  }
  p.text += "    return %x : tensor<?x2xf32>\n  }\n}\n";
  return p;
}

} // namespace

int validationBenchMain(int argc, char** argv) {
  int runs = 5;
  std::vector<int> sizes = {5000, 50000, 200000};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--validation") continue;
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::istringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');)
        if (std::atoi(item.c_str()) > 0) sizes.push_back(std::atoi(item.c_str()));
    } else {
      std::cerr << "usage: lattice-bench --validation [--runs N] [--sizes a,b,...]\n";
      return 2;
    }
  }
  if (sizes.empty()) {
    std::cerr << "lattice-bench --validation: no sizes\n";
    return 2;
  }
  std::sort(sizes.begin(), sizes.end());
  std::printf("%-10s %12s %14s %14s %16s\n", "weights", "stored keys", "valid (ms)", "orphan (ms)",
              "ns per key");
  double firstPerKey = 0;
  double lastPerKey = 0;
  for (int n : sizes) {
    Payload p = makePayload(n);
    std::vector<std::string> withOrphan = p.stored;
    withOrphan.push_back("orphan");
    std::vector<double> valid;
    std::vector<double> orphan;
    for (int r = 0; r <= runs; ++r) { // the first run warms up
      auto t0 = Clock::now();
      Status ok = validateArtifactPayload(p.text, p.stored);
      const double validMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      t0 = Clock::now();
      Status refused = validateArtifactPayload(p.text, withOrphan);
      const double orphanMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (!ok || refused) {
        std::cerr << "lattice-bench --validation: unexpected result at " << n
                  << " weights: " << (!ok ? ok.message() : std::string("the orphan was accepted")) << '\n';
        return 1;
      }
      if (r > 0) {
        valid.push_back(validMs);
        orphan.push_back(orphanMs);
      }
    }
    const double validMedian = median(valid);
    const double perKey = validMedian * 1e6 / static_cast<double>(p.stored.size());
    if (n == sizes.front()) firstPerKey = perKey;
    lastPerKey = perKey;
    std::printf("%-10d %12zu %14.2f %14.2f %16.1f\n", 2 * n, p.stored.size(), validMedian, median(orphan),
                perKey);
  }
  if (sizes.size() > 1 && firstPerKey > 0)
    std::printf("time per key at %d weights / at %d weights: %.2f (linear: about 1; quadratic: about %.0f)\n",
                2 * sizes.back(), 2 * sizes.front(), lastPerKey / firstPerKey,
                static_cast<double>(sizes.back()) / sizes.front());
  return 0;
}
