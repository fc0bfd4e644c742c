#pragma once
/// \file Writing a small text file atomically: the bytes go to a temporary file beside `path`,
/// which then replaces `path` by a rename, so a reader sees the old file or the new one, never
/// a part, and a failed write leaves the old file as it was.

#include "support/Expected.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

namespace lattice {

inline Status writeFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  const auto failure = [&](const std::string& target) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    return Status(makeError("cannot write file: " + target + ": " + reason));
  };
  std::FILE* f = std::fopen(temporary.c_str(), "wb");
  if (!f) return failure(path);
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  if (std::fclose(f) != 0 || !written || !flushed) return failure(path);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return failure(path);
  return {};
}

} // namespace lattice
