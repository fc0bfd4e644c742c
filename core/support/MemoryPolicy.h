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
///   walk. It also gives mimalloc an arena: address space the size of physical memory, on 2 MiB
///   pages too, reserved but not committed (a page exists once touched). mimalloc allocates from
///   it first and does not unmap what is freed there. By itself mimalloc keeps freed segments for
///   reuse, but unmaps at free the blocks too large for a segment (over 16 MiB, like the lowered
///   text: 45 MB for a 10000-block chain), so every lowering faulted its text in afresh, one
///   zeroed 2 MiB page at a time. From the arena such blocks are reused.
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
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>

#include <mimalloc.h>
#elif defined(__GLIBC__)
#include <malloc.h>
#endif

namespace lattice {

#if defined(LATTICE_WITH_MIMALLOC)
namespace detail {
/// Bytes of the arena applyHeapPolicy() gave mimalloc; 0 before, or when it could not reserve one.
inline std::size_t& heapArenaBytes() {
  static std::size_t bytes = 0;
  return bytes;
}

/// Reserves `bytes` of address space (rounded down to whole 64 MiB, and aligned to that, a
/// multiple of mimalloc's segment alignment), asks for 2 MiB pages in it and hands it to mimalloc
/// as memory it may use and need never decommit. Returns the bytes given, 0 when the reservation failed (a
/// strict overcommit policy or an address-space limit refuses it; mimalloc then maps memory as
/// it does by default).
inline std::size_t giveMimallocArena(std::size_t bytes) {
  constexpr std::size_t kAlign = std::size_t(64) << 20;
  bytes &= ~(kAlign - 1);
  if (bytes == 0) return 0;
  void* mapped = ::mmap(nullptr, bytes + kAlign, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
  if (mapped == MAP_FAILED) return 0;
  // Keep the aligned middle: unmap the head below the first aligned address and the tail.
  const auto base = reinterpret_cast<std::uintptr_t>(mapped);
  const std::uintptr_t start = (base + kAlign - 1) & ~std::uintptr_t(kAlign - 1);
  if (start > base) ::munmap(mapped, start - base);
  if (const std::size_t tail = base + bytes + kAlign - (start + bytes); tail > 0)
    ::munmap(reinterpret_cast<void*>(start + bytes), tail);
  void* arena = reinterpret_cast<void*>(start);
#if defined(MADV_HUGEPAGE)
  ::madvise(arena, bytes, MADV_HUGEPAGE);
#endif
  // Committed (readable and writable as mapped: mimalloc decommits only arenas it has to
  // commit), not pinned large-page memory, zero-filled, any NUMA node.
  if (!mi_manage_os_memory(arena, bytes, /*is_committed=*/true, /*is_large=*/false, /*is_zero=*/true, -1)) {
    ::munmap(arena, bytes);
    return 0;
  }
  return bytes;
}
} // namespace detail
#endif

inline void applyHeapPolicy() {
#if defined(LATTICE_WITH_MIMALLOC)
  mi_option_enable(mi_option_large_os_pages);
  if (detail::heapArenaBytes() == 0) {
    // As much address space as there is memory: a lowering never needs more, and what it does
    // not touch costs nothing. (64 GiB at most: the arena's bookkeeping grows with its size.)
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0)
      detail::heapArenaBytes() = detail::giveMimallocArena(
          std::min(std::size_t(pages) * std::size_t(pageSize), std::size_t(64) << 30));
  }
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
  const bool thpOff = modes.empty() || modes.find("[never]") != std::string::npos;
  text += thpOff ? ", 4 KiB pages (transparent huge pages are off)" : ", 2 MiB pages";
  if (const std::size_t arena = detail::heapArenaBytes(); arena >= (std::size_t(1) << 30))
    text += ", " + std::to_string(arena >> 30) + " GiB arena";
  else if (arena > 0)
    text += ", " + std::to_string(arena >> 20) + " MiB arena";
  return text;
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
