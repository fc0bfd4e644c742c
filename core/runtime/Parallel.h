#pragma once
/// \file The runtime's compute backend: matrix products and parallel loops. Implemented with
/// LibTorch (TorchBackend.cpp, the one runtime file that includes ATen): GEMMs run on the BLAS
/// LibTorch links (OpenBLAS when libopenblas0-pthread is installed), loops on LibTorch's
/// intra-op thread pool. Nothing here is a hand-written GEMM.

#include <cstdint>
#include <functional>
#include <string>

namespace lattice::runtime {

/// C (m × n) = A (m × k) · B (k × n), or C += A · B when `accumulate`; A and C row-major and
/// contiguous, B's element (i, j) at b[i·bRowStride + j·bColStride] (so a transposed or strided
/// B, such as one kernel row of a (C_out, K, C_in) conv weight, is read in place).
void gemm(const float* a, const float* b, std::int64_t bRowStride, std::int64_t bColStride, float* c, std::int64_t m,
          std::int64_t k, std::int64_t n, bool accumulate);
/// The same in f64 (the exact mode: products of f32 values are exact in f64).
void gemm(const double* a, const double* b, std::int64_t bRowStride, std::int64_t bColStride, double* c,
          std::int64_t m, std::int64_t k, std::int64_t n, bool accumulate);
/// Contiguous row-major B.
inline void gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n, bool accumulate) {
  gemm(a, b, n, 1, c, m, k, n, accumulate);
}
inline void gemm(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n,
                 bool accumulate) {
  gemm(a, b, n, 1, c, m, k, n, accumulate);
}

/// Calls fn(begin, end) on consecutive chunks covering [0, n), each at least `grain` long
/// (except the last), on up to threads() threads. fn must not throw.
void parallelFor(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& fn);

/// The number of threads parallel loops and GEMMs use (LibTorch's intra-op setting, which the
/// BLAS follows). setThreads(0) means every core.
void setThreads(int threads);
int threads();
/// The path of the BLAS library mapped into the process (LibTorch's GEMMs run there), for
/// reports: `/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3`.
std::string blasLibrary();

} // namespace lattice::runtime
