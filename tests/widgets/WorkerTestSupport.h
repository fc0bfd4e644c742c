#pragma once
// Helpers shared by the tests of the studio's workers (header-only): a latch that holds worker
// threads where a test wants them.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace lattice::widgettest {

/// Holds every thread that calls hold() until release(), for at most a minute (then expired()).
class Latch {
public:
  void hold() {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_held.fetch_add(1);
    if (!m_cv.wait_for(lock, std::chrono::seconds(60), [this] { return m_open; })) m_expired = true;
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_open = true;
    }
    m_cv.notify_all();
  }
  int held() const { return m_held.load(); }
  bool expired() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_expired;
  }

private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_open = false;
  bool m_expired = false;
  std::atomic<int> m_held{0};
};

} // namespace lattice::widgettest
