#pragma once
/// \file The process's heap policy for the lattice tools (studio, lattice-cli, lattice-bench):
/// keep freed memory for reuse instead of handing it back to the kernel at once.
///
/// Why: a lowering builds tens of megabytes of short-lived structures (op lines, name tables, the
/// MLIR text) and frees them when it ends; the studio lowers the same model again at every
/// re-run, step-through and export. With glibc's defaults, blocks of 128 KiB and more are mapped
/// anew for each request and unmapped at free, and the top of the heap is given back once
/// 128 KiB of it is free, so every lowering pays a page fault per 4 KiB it touches for the first
/// time. On the virtual machines the project is measured on a fault costs about 1.5 µs; when this
/// policy came in it was about 8 ms of chain_3000's 60–70 ms lowering, most of it in writing the
/// text. glibc raises its mmap threshold by itself once it frees a large mapped block, so a
/// process that already has (every lowering since the tables are reserved up front) fares
/// about as well; the policy makes that independent of the process's history (ARCHITECTURE.md,
/// "Memory"; `lattice-bench --default-heap` shows the figures without it).
/// With this policy blocks up to 32 MiB come from the heap, and up to 256 MiB of free heap top
/// is kept, so a repeated lowering reuses pages that are already mapped. The cost is a resident
/// size that stays near its peak (bounded by that 256 MiB of retained free memory).
///
/// Call once, early in main(), before other threads start. Elsewhere than glibc it does nothing.

#include <cstdlib> // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace lattice {

inline void keepFreedMemoryForReuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024); // glibc's largest allowed value
  mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

} // namespace lattice
