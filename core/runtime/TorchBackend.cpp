// The compute backend of Parallel.h on LibTorch: at::mm / addmm_ over tensors that view the
// runtime's buffers (no copies), at::parallel_for for loops, at::set_num_threads for the thread
// count. This is the only runtime file that includes ATen (its compile cost is paid once).

#include "runtime/Parallel.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <fstream>
#include <string>
#include <thread>

namespace lattice::runtime {

namespace {

template <typename T>
void gemmImpl(const T* a, const T* b, std::int64_t bRowStride, std::int64_t bColStride, T* c, std::int64_t m,
              std::int64_t k, std::int64_t n, bool accumulate, at::ScalarType type) {
  if (m == 0 || n == 0) return;
  const auto options = at::TensorOptions().dtype(type);
  at::Tensor out = at::from_blob(c, {m, n}, options);
  if (k == 0) {
    if (!accumulate) out.zero_();
    return;
  }
  const at::Tensor lhs = at::from_blob(const_cast<T*>(a), {m, k}, options);
  const at::Tensor rhs = at::from_blob(const_cast<T*>(b), {k, n}, {bRowStride, bColStride}, options);
  if (accumulate)
    out.addmm_(lhs, rhs);
  else
    at::mm_out(out, lhs, rhs);
}

} // namespace

void gemm(const float* a, const float* b, std::int64_t bRowStride, std::int64_t bColStride, float* c, std::int64_t m,
          std::int64_t k, std::int64_t n, bool accumulate) {
  gemmImpl(a, b, bRowStride, bColStride, c, m, k, n, accumulate, at::kFloat);
}

void gemm(const double* a, const double* b, std::int64_t bRowStride, std::int64_t bColStride, double* c,
          std::int64_t m, std::int64_t k, std::int64_t n, bool accumulate) {
  gemmImpl(a, b, bRowStride, bColStride, c, m, k, n, accumulate, at::kDouble);
}

void parallelFor(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  if (n <= grain || at::get_num_threads() <= 1) {
    fn(0, n);
    return;
  }
  at::parallel_for(0, n, grain, [&](std::int64_t begin, std::int64_t end) { fn(begin, end); });
}

void setThreads(int count) {
  if (count <= 0) count = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(count);
}

int threads() { return at::get_num_threads(); }

std::string blasLibrary() {
  // The mapped file is the resolved one: Debian's libblas.so.3 is an alternatives link that
  // points at OpenBLAS (openblas-pthread/) or at the reference BLAS (blas/).
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const std::string file = path.substr(path.rfind('/') + 1);
    if (file.find("blas") != std::string::npos) return path;
  }
  return "none loaded";
}

} // namespace lattice::runtime
