// The compute backend of Parallel.h: GEMMs through the CBLAS interface of the system BLAS and
// parallel loops on a small pool of std::threads. The BLAS is LATTICE_BLAS_LIBRARY
// (libblas.so.3, which Debian's alternatives point at OpenBLAS, openblas-pthread, when
// libopenblas0-pthread is installed), loaded when the first GEMM runs: a process that multiplies
// no matrices (lattice-cli --version, validate) does not pay for OpenBLAS's start-up, its many
// symbol relocations and its threads, which cost about as much as the rest of the process.

#include "runtime/Parallel.h"

#include "support/Expected.h"

#include <cblas.h>
#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <exception>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace lattice::runtime {

namespace {

// ---- The BLAS ---------------------------------------------------------------------------------

#ifndef LATTICE_BLAS_LIBRARY
#error "LATTICE_BLAS_LIBRARY: the BLAS library to load (core/runtime/CMakeLists.txt)"
#endif

struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  void (*setThreads)(int) = nullptr; // openblas_set_num_threads; absent from other BLASes
  std::string error;                 // why there is no sgemm / dgemm
};

// The thread count setThreads asked for (0: none yet), applied when the BLAS is loaded.
std::atomic<int> g_blasThreads{0};
// The loaded BLAS, once blas() has returned.
std::atomic<const Blas*> g_blas{nullptr};

// Loaded once and kept for the life of the process.
const Blas& blas() {
  static const Blas instance = [] {
    Blas b;
    void* handle = ::dlopen(LATTICE_BLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = ::dlerror();
      b.error = std::string("the runtime's GEMMs need a BLAS: cannot load ") + LATTICE_BLAS_LIBRARY + ": " +
                (why ? why : "dlopen failed") + " (Debian: libopenblas0-pthread)";
      return b;
    }
    b.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(::dlsym(handle, "cblas_sgemm"));
    b.dgemm = reinterpret_cast<decltype(&cblas_dgemm)>(::dlsym(handle, "cblas_dgemm"));
    b.setThreads = reinterpret_cast<void (*)(int)>(::dlsym(handle, "openblas_set_num_threads"));
    if (!b.sgemm || !b.dgemm) {
      b.error = std::string("the runtime's GEMMs need a BLAS with CBLAS: ") + LATTICE_BLAS_LIBRARY +
                " has no cblas_sgemm or cblas_dgemm";
      b.sgemm = nullptr;
      b.dgemm = nullptr;
    }
    if (b.setThreads && g_blasThreads > 0) b.setThreads(g_blasThreads);
    return b;
  }();
  g_blas = &instance;
  return instance;
}

// OpenBLAS's own thread count: now when the BLAS is loaded, else when it will be.
void setBlasThreads(int count) {
  g_blasThreads = count;
  if (const Blas* loaded = g_blas; loaded && loaded->setThreads) loaded->setThreads(count);
}

// ---- GEMM -------------------------------------------------------------------------------------

void blasGemm(CBLAS_TRANSPOSE transB, int m, int n, int k, const float* a, int lda, const float* b, int ldb,
              float beta, float* c, int ldc) {
  const Blas& library = blas();
  if (!library.sgemm) throw Exception{library.error};
  library.sgemm(CblasRowMajor, CblasNoTrans, transB, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}

void blasGemm(CBLAS_TRANSPOSE transB, int m, int n, int k, const double* a, int lda, const double* b, int ldb,
              double beta, double* c, int ldc) {
  const Blas& library = blas();
  if (!library.dgemm) throw Exception{library.error};
  library.dgemm(CblasRowMajor, CblasNoTrans, transB, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
}

bool fitsInt(std::int64_t v) { return v >= 0 && v <= INT_MAX; }

// Row blocks of this many rows keep every BLAS argument within its 32-bit integers.
constexpr std::int64_t kMaxRowsPerCall = std::int64_t(1) << 30;

template <typename T>
void gemmImpl(const T* a, const T* b, std::int64_t bRowStride, std::int64_t bColStride, T* c, std::int64_t m,
              std::int64_t k, std::int64_t n, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate) std::fill(c, c + m * n, T(0));
    return;
  }
  if (!fitsInt(k) || !fitsInt(n))
    throw Exception{"GEMM of " + std::to_string(m) + " x " + std::to_string(k) + " by " + std::to_string(k) + " x " +
                    std::to_string(n) + " exceeds the BLAS's 32-bit dimensions"};
  // B as the BLAS takes it: row-major (k × n, leading dimension ldb) or transposed (stored as
  // n × k). A stride along an axis of extent 1 is never used, so it does not decide the layout.
  CBLAS_TRANSPOSE transB = CblasNoTrans;
  std::int64_t ldb = 0;
  std::vector<T> packed;
  if ((bColStride == 1 || n == 1) && (k == 1 || bRowStride >= n)) {
    ldb = k == 1 ? n : bRowStride;
  } else if ((bRowStride == 1 || k == 1) && (n == 1 || bColStride >= k)) {
    transB = CblasTrans;
    ldb = n == 1 ? k : bColStride;
  } else {
    ldb = 0; // general strides: copied below
  }
  if (ldb == 0 || !fitsInt(ldb)) {
    packed.resize(static_cast<std::size_t>(k * n));
    for (std::int64_t i = 0; i < k; ++i)
      for (std::int64_t j = 0; j < n; ++j) packed[static_cast<std::size_t>(i * n + j)] = b[i * bRowStride + j * bColStride];
    b = packed.data();
    transB = CblasNoTrans;
    ldb = n;
  }
  const T beta = accumulate ? T(1) : T(0);
  for (std::int64_t row = 0; row < m; row += kMaxRowsPerCall) {
    const std::int64_t rows = std::min(kMaxRowsPerCall, m - row);
    blasGemm(transB, static_cast<int>(rows), static_cast<int>(n), static_cast<int>(k), a + row * k, static_cast<int>(k), b,
             static_cast<int>(ldb), beta, c + row * n, static_cast<int>(n));
  }
}

// ---- Threads ----------------------------------------------------------------------------------

// The CPUs the process may run on when it starts (its affinity mask), at least 1.
int defaultThreads() {
  static const int count = [] {
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return count;
}

std::atomic<int> g_threads{0}; // 0: defaultThreads()

// True on a thread while it runs a chunk of a parallel loop: a loop inside it runs serially.
thread_local bool t_inParallel = false;

// Workers that, with the calling thread, run the chunks of one parallel loop at a time. A loop
// started while another one runs (on another thread) runs serially on its own thread instead of
// waiting. Workers sleep on a condition variable between loops, so they leave the CPU to the
// BLAS's own threads.
class Pool {
public:
  ~Pool() {
    std::lock_guard<std::mutex> owner(m_owner);
    resize(0);
  }

  /// Runs task(i) for every i in [0, chunks), chunks - 1 of them on workers (at least that many
  /// exist afterwards); the first error is rethrown here once every chunk has finished. Returns
  /// false, having run nothing, when another loop holds the pool.
  bool run(std::int64_t chunks, const std::function<void(std::int64_t)>& task) {
    std::unique_lock<std::mutex> owner(m_owner, std::try_to_lock);
    if (!owner.owns_lock()) return false;
    if (static_cast<std::int64_t>(m_workers.size()) < chunks - 1) resize(static_cast<int>(chunks - 1));
    Job job{&task, chunks, chunks, nullptr};
    std::unique_lock<std::mutex> lock(m_mutex);
    m_job = &job;
    m_next = 0;
    lock.unlock();
    for (std::int64_t i = 1; i < chunks; ++i) m_wake.notify_one();
    lock.lock();
    while (m_next < job.chunks) {
      const std::int64_t i = m_next++;
      lock.unlock();
      std::exception_ptr error = runChunk(job, i);
      lock.lock();
      finish(job, error);
    }
    m_done.wait(lock, [&] { return job.remaining == 0; });
    m_job = nullptr;
    lock.unlock();
    if (job.error) std::rethrow_exception(job.error);
    return true;
  }

private:
  struct Job {
    const std::function<void(std::int64_t)>* task;
    std::int64_t chunks;
    std::int64_t remaining;
    std::exception_ptr error;
  };

  static std::exception_ptr runChunk(const Job& job, std::int64_t i) {
    std::exception_ptr error;
    t_inParallel = true;
    try {
      (*job.task)(i);
    } catch (...) {
      error = std::current_exception();
    }
    t_inParallel = false;
    return error;
  }

  // With m_mutex held.
  void finish(Job& job, std::exception_ptr error) {
    if (error && !job.error) job.error = std::move(error);
    if (--job.remaining == 0) m_done.notify_all();
  }

  void worker() {
    std::unique_lock<std::mutex> lock(m_mutex);
    while (true) {
      m_wake.wait(lock, [&] { return m_stop || (m_job && m_next < m_job->chunks); });
      if (m_stop) return;
      Job& job = *m_job;
      const std::int64_t i = m_next++;
      lock.unlock();
      std::exception_ptr error = runChunk(job, i);
      lock.lock();
      finish(job, std::move(error));
    }
  }

  // With m_owner held: no loop is running.
  void resize(int workers) {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    for (std::thread& t : m_workers) t.join();
    m_workers.clear();
    m_stop = false;
    for (int i = 0; i < workers; ++i) m_workers.emplace_back([this] { worker(); });
  }

  std::mutex m_owner; // held by the thread whose loop runs on the workers
  std::mutex m_mutex; // guards m_job, m_next, m_stop and the running job's remaining and error
  std::condition_variable m_wake, m_done;
  std::vector<std::thread> m_workers;
  Job* m_job = nullptr;
  std::int64_t m_next = 0;
  bool m_stop = false;
};

Pool& pool() {
  static Pool instance;
  return instance;
}

} // namespace

void gemm(const float* a, const float* b, std::int64_t bRowStride, std::int64_t bColStride, float* c, std::int64_t m,
          std::int64_t k, std::int64_t n, bool accumulate) {
  gemmImpl(a, b, bRowStride, bColStride, c, m, k, n, accumulate);
}

void gemm(const double* a, const double* b, std::int64_t bRowStride, std::int64_t bColStride, double* c,
          std::int64_t m, std::int64_t k, std::int64_t n, bool accumulate) {
  gemmImpl(a, b, bRowStride, bColStride, c, m, k, n, accumulate);
}

void parallelFor(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  const int count = threads();
  if (n <= grain || count <= 1 || t_inParallel) {
    fn(0, n);
    return;
  }
  // As many chunks as threads (fewer when the grain allows fewer), each a contiguous range.
  const std::int64_t chunks = std::min<std::int64_t>(count, (n + grain - 1) / grain);
  const std::int64_t size = (n + chunks - 1) / chunks;
  const std::function<void(std::int64_t)> task = [&](std::int64_t i) {
    const std::int64_t begin = i * size;
    if (begin < n) fn(begin, std::min(n, begin + size));
  };
  if (!pool().run(chunks, task)) fn(0, n);
}

void setThreads(int count) {
  if (count <= 0) count = defaultThreads();
  g_threads = count;
  setBlasThreads(count);
}

int threads() {
  const int count = g_threads;
  return count > 0 ? count : defaultThreads();
}

std::string blasLibrary() {
  blas();
  // The mapped file is the resolved one: Debian's libblas.so.3 is an alternatives link that
  // points at OpenBLAS (openblas-pthread/, which maps libopenblas too) or at the reference BLAS
  // (blas/). The library the GEMMs are called in, libblas.so.3, is named first.
  std::ifstream maps("/proc/self/maps");
  std::string line, other;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const std::string file = path.substr(path.rfind('/') + 1);
    if (file.rfind("libblas.so", 0) == 0) return path;
    if (other.empty() && file.find("blas") != std::string::npos) other = path;
  }
  return other.empty() ? "none loaded" : other;
}

} // namespace lattice::runtime
