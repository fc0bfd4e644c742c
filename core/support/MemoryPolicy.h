#pragma once
/// \file The heap of the lattice tools (studio, lattice-cli, lattice-bench): which allocator they
/// run on and how it is set up. The library itself sets no policy (that is the application's
/// choice); ARCHITECTURE.md, "Memory", has the figures behind each choice.
///
/// **The allocator.** Built with `LATTICE_USE_MIMALLOC` (the default when Debian's
/// libmimalloc-dev is installed) the tools link mimalloc, which then serves every malloc and
/// operator new of the process (its dynamic override), Qt's and LibTorch's included. A lowering
/// is millions of small, short-lived blocks (names, graph nodes, op records); mimalloc hands them
/// out of per-size pages in allocation order, so what a lowering builds one after another sits
/// together, and freeing it at the end needs no consolidation pass.
///
/// **The policy.** applyHeapPolicy(), called first thing in main():
/// - with mimalloc: backs its segments by 2 MiB pages (transparent huge pages, asked for with
///   madvise). A large lowering touches hundreds of megabytes scattered over the heap; with 4 KiB
///   pages nearly every cold line is also a TLB miss, which on a virtual machine is a nested page
///   walk.
/// - with glibc: blocks up to 32 MiB come from the heap (not from a fresh mmap per request) and
///   up to 256 MiB of free heap top is kept, so a repeated lowering reuses pages already mapped
///   instead of page-faulting on all it touches (a fault costs about 1.5 µs on the project's
///   virtual machines). glibc raises its mmap threshold by itself once it frees a large mapped
///   block; the policy makes that independent of the process's history.
/// Either way the cost is a resident size that stays nearer its peak.
///
/// Call once, early in main(), before other threads start.

#include <cstdlib> // defines __GLIBC__ on glibc
#include <optional>
#include <string>

#if defined(LATTICE_WITH_MIMALLOC)
#include <fstream>

#include <mimalloc.h>
#elif defined(__GLIBC__)
#include <malloc.h>
#endif

namespace lattice {

inline void applyHeapPolicy() {
#if defined(LATTICE_WITH_MIMALLOC)
  mi_option_enable(mi_option_large_os_pages);
#elif defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024); // glibc's largest allowed value
  mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

/// The allocator that serves this process's malloc, as a tool reports it ("mimalloc 2.0.9, 2 MiB
/// pages"). With mimalloc linked this checks that a fresh malloc block really comes from
/// mimalloc's heap: if the override were lost (link order, a static link), it says so.
inline std::string heapDescription() {
#if defined(LATTICE_WITH_MIMALLOC)
  void* probe = std::calloc(1, 64);
  const bool overridden = mi_is_in_heap_region(probe);
  std::free(probe);
  const int v = mi_version(); // major * 100 + minor
  std::string text = "mimalloc " + std::to_string(v / 100) + "." + std::to_string(v % 100 / 10) + "." +
                     std::to_string(v % 10);
  if (!overridden) return text + " linked, but malloc is not served by it";
  if (!mi_option_is_enabled(mi_option_large_os_pages)) return text + ", 4 KiB pages";
  // The pages are asked for with madvise, which the kernel honours unless transparent huge
  // pages are off ("[never]", or no such file).
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(thp, modes);
  if (modes.empty() || modes.find("[never]") != std::string::npos)
    return text + ", 4 KiB pages (transparent huge pages are off)";
  return text + ", 2 MiB pages";
#elif defined(__GLIBC__)
  return "glibc malloc";
#else
  return "system malloc";
#endif
}

/// Megabytes of heap in use (small blocks plus mapped ones), for the benchmark's memory figures;
/// nullopt where the allocator does not count them cheaply (mimalloc counts only in its
/// statistics builds; its committed memory includes the pages it keeps for reuse).
inline std::optional<double> heapMegabytesInUse() {
#if !defined(LATTICE_WITH_MIMALLOC) && defined(__GLIBC__)
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd) / 1e6;
#else
  return std::nullopt;
#endif
}

} // namespace lattice
