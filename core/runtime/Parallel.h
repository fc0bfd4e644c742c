#pragma once
/// \file The runtime's compute backend: matrix products and parallel loops (CpuBackend.cpp).
/// GEMMs are cblas_sgemm / cblas_dgemm of the system BLAS, libblas.so.3 (OpenBLAS when the
/// alternatives select libopenblas0-pthread: the kernels LibTorch's CPU matrix products run too),
/// loaded by the first GEMM; loops run on a pool of std::threads. Nothing here is a hand-written
/// GEMM.

#include <cstdint>
#include <functional>
#include <string>

namespace lattice::runtime {

/// C (m × n) = A (m × k) · B (k × n), or C += A · B when `accumulate`; A and C row-major and
/// contiguous, B's element (i, j) at b[i·bRowStride + j·bColStride] (so a transposed or strided
/// B, such as one kernel row of a (C_out, K, C_in) conv weight, is read in place when one stride
/// is 1, as the BLAS takes it; other strides are copied first). Throws Exception when k or n
/// exceeds the BLAS's 32-bit dimensions, or when the BLAS cannot be loaded.
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

/// Calls fn(begin, end) on consecutive chunks covering [0, n) on up to threads() threads: the
/// caller and the pool's workers, one chunk each; min(threads(), ⌈n / grain⌉) chunks of equal
/// length (the last shorter), and fn(0, n) on the caller when n ≤ grain. A loop inside a chunk, or one started on another thread while a loop runs, runs
/// serially on its own thread. When fn throws, the first exception is rethrown here once every
/// chunk has ended.
void parallelFor(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& fn);

/// The number of threads parallel loops use. setThreads also sets OpenBLAS's own thread count,
/// now or when it is loaded (when the BLAS is OpenBLAS; without a setThreads it keeps its
/// default: every core, or OPENBLAS_NUM_THREADS). setThreads(0), and the default, mean every CPU
/// the process may run on.
void setThreads(int threads);
int threads();
/// The path of the BLAS library the GEMMs run in (loaded if it was not), for reports:
/// `/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3`.
std::string blasLibrary();

} // namespace lattice::runtime
