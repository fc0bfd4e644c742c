#pragma once
/// \file The runtime's compute backend: matrix products and parallel loops. Implemented with
/// LibTorch (TorchBackend.cpp, the one runtime file that includes ATen): GEMMs run on the BLAS
/// LibTorch links (OpenBLAS when libopenblas0-pthread is installed), loops on LibTorch's
/// intra-op thread pool. Nothing here is a hand-written GEMM.

#include <cstdint>
#include <functional>
#include <string>

namespace lattice::runtime {

/// C (m × n) = A (m × k) · B (k × n), or C += A · B when `accumulate`; row-major, contiguous.
void gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n, bool accumulate);
/// The same in f64 (the exact mode: products of f32 values are exact in f64).
void gemm(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n,
          bool accumulate);

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
