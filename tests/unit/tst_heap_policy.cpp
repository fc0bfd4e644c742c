// Tests for the tools' heap policy (support/MemoryPolicy.h), linked here as the tools link it
// (lattice_heap): a lowering frees and allocates again blocks of tens of megabytes (its text,
// its tables), and the policy's point is that the second allocation reuses the pages of the
// first instead of faulting them in again. With the allocators' defaults it does not: mimalloc
// unmaps blocks over 16 MiB at free, and glibc maps every block from 128 KiB up afresh.

#include "support/MemoryPolicy.h"

#include <QtTest/QtTest>

#include <sys/resource.h>

#include <cstdlib>

using namespace lattice;

namespace {

/// Minor page faults of this process so far.
long minorFaults() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

/// Page faults taken while a fresh block of `bytes` is allocated, written once per 4 KiB page,
/// and freed.
long faultsOfTouchingBlock(std::size_t bytes) {
  const long before = minorFaults();
  auto* block = static_cast<volatile char*>(std::malloc(bytes));
  if (!block) return -1;
  for (std::size_t i = 0; i < bytes; i += 4096)
    block[i] = 1; // volatile: the stores, and so the block, cannot be optimised away
  const long faults = minorFaults() - before;
  std::free(const_cast<char*>(block));
  return faults;
}

} // namespace

class TestHeapPolicy : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void largeBlockIsReusedAfterFree();
};

void TestHeapPolicy::largeBlockIsReusedAfterFree() {
#if defined(__SANITIZE_ADDRESS__)
  QSKIP("AddressSanitizer brings its own allocator; the policy does not apply");
#endif
  applyHeapPolicy();
#if defined(LATTICE_WITH_MIMALLOC)
  QVERIFY2(heapDescription().find("not served") == std::string::npos, heapDescription().c_str());
#endif
  // Over mimalloc's largest in-segment block (16 MiB) and under the mmap threshold the glibc
  // policy sets (32 MiB): the size where each allocator's defaults fault it in every time.
  constexpr std::size_t kBytes = std::size_t(24) << 20;
  const long first = faultsOfTouchingBlock(kBytes);
  QVERIFY(first >= 0);
  // The first touch may fault (fresh memory) or not (memory the process had already touched);
  // the same block again must not: 6144 faults with 4 KiB pages, 12 with 2 MiB ones.
  for (int round = 0; round < 3; ++round) {
    const long again = faultsOfTouchingBlock(kBytes);
    QVERIFY2(again >= 0 && again <= 2, qPrintable(QStringLiteral("round %1: %2 page faults (the first block took %3)")
                                                      .arg(round)
                                                      .arg(again)
                                                      .arg(first)));
  }
}

QTEST_GUILESS_MAIN(TestHeapPolicy)
#include "tst_heap_policy.moc"
