#pragma once
/// \file What every lattice-bench part needs: a clock, the median, where the executables are,
/// and a child process's wall time and peak memory.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace lattice::bench {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// The median of `v` (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> v);

/// This executable's path, and its directory (where lattice-cli and lattice-studio are built).
std::string selfExe();
std::string selfDir();

/// A scratch directory of this process (`<tmp>/lattice-bench-<what>-<pid>`), removed with all it
/// holds when the object goes.
class ScratchDir {
public:
  explicit ScratchDir(const std::string& what);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

/// What one child process did.
struct ProcessRun {
  bool ok = false;        ///< it ran and exited 0
  double wallMs = 0.0;    ///< from spawn to exit
  double peakRssMb = 0.0; ///< its peak resident set (ru_maxrss)
};

/// Runs `argv` (argv[0] a path) with `extraEnv` added to the environment, its standard output
/// into `out` and its standard error into `err`.
ProcessRun runProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extraEnv = {},
                      const std::string& out = "/dev/null", const std::string& err = "/dev/null");

} // namespace lattice::bench
