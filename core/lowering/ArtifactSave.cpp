// The atomic artifact writer (lowering.md §6.3) and the payload validation (§6.4).
// Files are written into a temporary directory beside the target and swapped into place, so the
// target is always either the complete previous artifact or the complete new one. The swap is one
// renameat2(RENAME_EXCHANGE) where the filesystem has it; elsewhere two renames, and a kill
// between them leaves the previous artifact in `.<name>-XXXXXX.previous`, which the next save of
// the same target puts back. A running save holds an flock on its temporary directory (and on the
// target while it swaps), so the next save's clean-up never touches a directory still in use.
// Only directories that hold nothing but artifact files are ever removed, unless the user forced
// the replacement of that target. POSIX only; storage keys are found by a plain text scan: this
// file does not parse MLIR.

#include "lowering/ArtifactSave.h"

#include "dialect/DialectSchema.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lattice {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPreviousSuffix = ".previous";
constexpr std::size_t kTempSuffixLength = 6;

std::string errnoText(int error) { return std::strerror(error); }

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool pathExists(const fs::path& path) {
  std::error_code ec;
  return fs::symlink_status(path, ec).type() != fs::file_type::not_found && !ec;
}

bool isArtifactFileName(std::string_view name) {
  return name == kArtifactGraphFile || name == kArtifactWeightFile;
}

// The file modes the umask gives (0666 & ~umask): a file of ours is like any file the user
// makes, and a directory made with mkdir(0777) likewise.
Status writeFileSynced(const fs::path& path, std::string_view data) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    return makeError(path.string() + ": cannot create: " + errnoText(errno));
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return makeError(path.string() + ": cannot write: " + errnoText(error));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    return makeError(path.string() + ": cannot write: " + errnoText(errno));
  return {};
}

// fsync on a read-only descriptor flushes a file written elsewhere, or a directory's entries.
Status syncPath(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0)
    return makeError(path.string() + ": cannot open for sync: " + errnoText(errno));
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0)
    return makeError(path.string() + ": cannot sync: " + errnoText(error));
  return {};
}

Status renamePath(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    return makeError("cannot rename " + from.string() + " to " + to.string() + ": " +
                     errnoText(errno));
  return {};
}

// An exclusive flock on a directory, released when this goes out of scope (or the process
// dies). A save holds one on its temporary directory; the clean-up of leftovers skips any
// directory it cannot lock.
class DirectoryLock {
public:
  DirectoryLock() = default;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock() {
    if (m_fd >= 0)
      ::close(m_fd);
  }
  bool lock(const fs::path& dir, bool wait) {
    m_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (m_fd < 0)
      return false;
    while (::flock(m_fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
      if (errno == EINTR)
        continue;
      ::close(m_fd);
      m_fd = -1;
      return false;
    }
    return true;
  }

private:
  int m_fd = -1;
};

Error injectedFault(std::string_view point) {
  return makeError("injected fault at '" + std::string(point) + "'");
}

bool faultAt(const SaveOptions& options, std::string_view point, uint64_t bytes = 0) {
  return options.injectFault && options.injectFault(point, bytes);
}

// The target named by a save: the directory itself, its parent and its name.
struct Target {
  fs::path path;
  fs::path parent;
  std::string name;
};

Expected<Target> resolveTarget(const std::string& artifactDir) {
  fs::path target(artifactDir);
  if (!target.empty() && target.filename().empty()) // "out/" names "out"
    target = target.parent_path();
  const std::string name = target.filename().string();
  if (name.empty() || name == "." || name == "..")
    return makeError("invalid artifact directory path: '" + artifactDir + "'");
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  return Target{target, parent, name};
}

void collectForeign(const fs::path& dir, const std::string& prefix, bool top, std::size_t limit,
                    bool recursive, std::vector<std::string>& out) {
  std::error_code ec;
  std::vector<fs::directory_entry> children;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    children.push_back(*it);
  std::sort(children.begin(), children.end(),
            [](const fs::directory_entry& a, const fs::directory_entry& b) {
              return a.path().filename() < b.path().filename();
            });
  for (const fs::directory_entry& child : children) {
    if (out.size() >= limit)
      return;
    const std::string name = child.path().filename().string();
    const fs::file_type type = child.symlink_status(ec).type();
    if (top && isArtifactFileName(name) && type == fs::file_type::regular)
      continue;
    const bool directory = type == fs::file_type::directory;
    out.push_back(prefix + name + (directory ? "/" : ""));
    if (recursive && directory)
      collectForeign(child.path(), prefix + name + "/", false, limit, true, out);
  }
}

// A directory and every directory below it (symlinks not followed) must let us remove their
// entries; checked before anything is written, so a target we cannot replace fails first.
Status checkRemovable(const fs::path& dir, bool deep, const fs::path& shown) {
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return makeError(shown.string() + ": cannot replace it: the entries of " + dir.string() +
                     " cannot be removed (" + errnoText(errno) + ")");
  if (!deep)
    return {};
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->symlink_status(ec).type() != fs::file_type::directory)
      continue;
    if (Status s = checkRemovable(it->path(), true, shown); !s)
      return s;
  }
  if (ec)
    return makeError(shown.string() + ": cannot replace it: cannot list " + dir.string() + " (" +
                     ec.message() + ")");
  return {};
}

Status checkTarget(const Target& target, const SaveOptions& options) {
  if (!pathExists(target.path))
    return {};
  if (!options.clean)
    return makeError("artifact directory already exists: " + target.path.string());
  std::error_code ec;
  if (!fs::is_directory(target.path, ec))
    return makeError("artifact path exists and is not a directory: " + target.path.string());
  if (!options.force) {
    constexpr std::size_t kShown = 3;
    const std::vector<std::string> foreign =
        foreignArtifactEntries(target.path.string(), kShown + 1);
    if (!foreign.empty()) {
      std::string list;
      for (std::size_t i = 0; i < foreign.size() && i < kShown; ++i)
        list += (i ? ", " : "") + foreign[i];
      if (foreign.size() > kShown)
        list += ", ...";
      return makeError(target.path.string() + ": not replaced: it holds files that are " +
                       std::string(kNotAnArtifactMarker) + ": " + list);
    }
  }
  return checkRemovable(target.path, options.force, target.path);
}

// `.NAME-XXXXXX` or `.NAME-XXXXXX.previous`: a directory a save of NAME made.
bool isLeftoverName(const std::string& entry, const std::string& name, bool& previous) {
  const std::string stem = "." + name + "-";
  if (entry.compare(0, stem.size(), stem) != 0)
    return false;
  std::string_view rest = std::string_view(entry).substr(stem.size());
  previous = rest.size() > kPreviousSuffix.size() &&
             rest.substr(rest.size() - kPreviousSuffix.size()) == kPreviousSuffix;
  if (previous)
    rest.remove_suffix(kPreviousSuffix.size());
  return rest.size() == kTempSuffixLength &&
         std::all_of(rest.begin(), rest.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
         });
}

// What an interrupted save of the same target left: a previous artifact moved aside goes back to
// a missing target; the other leftovers are removed when they hold only artifact files and no
// running save holds them.
void recoverLeftovers(const Target& target) {
  std::error_code ec;
  std::vector<std::pair<fs::path, bool>> leftovers;
  for (fs::directory_iterator it(target.parent, ec), end; !ec && it != end; it.increment(ec)) {
    bool previous = false;
    if (isLeftoverName(it->path().filename().string(), target.name, previous) &&
        it->symlink_status(ec).type() == fs::file_type::directory)
      leftovers.emplace_back(it->path(), previous);
  }
  std::sort(leftovers.begin(), leftovers.end());
  for (const auto& [path, previous] : leftovers) {
    DirectoryLock lock;
    if (!lock.lock(path, false))
      continue; // in use by a running save, or gone
    if (previous && !pathExists(target.path)) {
      if (::rename(path.c_str(), target.path.c_str()) == 0)
        continue;
    }
    if (foreignArtifactEntries(path.string(), 1).empty())
      fs::remove_all(path, ec);
  }
}

// A new `.NAME-XXXXXX` directory beside the target, made with mkdir(0777) so the umask sets
// its mode, and locked.
Expected<fs::path> makeTempDir(const Target& target, DirectoryLock& lock) {
  static constexpr char kChars[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device seed;
  std::mt19937 random(seed());
  std::uniform_int_distribution<std::size_t> pick(0, sizeof kChars - 2);
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = "." + target.name + "-";
    for (std::size_t i = 0; i < kTempSuffixLength; ++i)
      name += kChars[pick(random)];
    const fs::path temp = target.parent / name;
    if (pathExists(fs::path(temp.string() + std::string(kPreviousSuffix))))
      continue;
    if (::mkdir(temp.c_str(), 0777) == 0) {
      if (!lock.lock(temp, false)) {
        const int error = errno;
        std::error_code ec;
        fs::remove(temp, ec);
        return makeError("cannot lock temporary directory " + temp.string() + ": " +
                         errnoText(error));
      }
      return temp;
    }
    if (errno != EEXIST)
      return makeError("cannot create temporary directory in " + target.parent.string() + ": " +
                       errnoText(errno));
  }
  return makeError("cannot create temporary directory in " + target.parent.string() +
                   ": every name tried exists");
}

// Steps 4.1-4.3 of §6.3: the new artifact's files inside the temporary directory.
Status writePayload(const fs::path& temp, const fs::path& target, const std::string& mlirText,
                    const std::vector<NamedTensor>& weights, const SaveOptions& options) {
  if (Status s = writeFileSynced(temp / kArtifactGraphFile, mlirText); !s)
    return s;
  if (faultAt(options, "after-graph"))
    return injectedFault("after-graph");

  const fs::path weightsPath = temp / kArtifactWeightFile;
  bool faulted = false;
  bool cancelled = false;
  auto progress = [&](uint64_t done, uint64_t total) {
    if (faultAt(options, "during-weights", done)) {
      faulted = true;
      return false;
    }
    if (options.progress && !options.progress(done, total)) {
      cancelled = true;
      return false;
    }
    return true;
  };
  Status written = writeSafetensors(weightsPath.string(), weights, torchWeightsMetadata(), progress);
  if (faulted)
    return injectedFault("during-weights");
  if (cancelled)
    return makeError("artifact save cancelled: " + target.string());
  if (!written)
    return written;
  if (Status s = syncPath(weightsPath, false); !s)
    return s;
  if (Status s = syncPath(temp, true); !s)
    return s;

  if (options.validate) {
    Expected<SafetensorsFile> file = SafetensorsFile::open(weightsPath.string());
    if (!file)
      return file.error();
    std::vector<std::string> keys;
    keys.reserve(file->tensors().size());
    for (const NamedTensor& t : file->tensors())
      keys.push_back(t.key);
    if (Status s = validateArtifactPayload(mlirText, keys); !s)
      return s;
  }
  return {};
}

// Where the swap left the two artifacts.
enum class Swapped {
  Nothing,    // the new one is still at `temp`, the previous one (if any) at the target
  Exchanged,  // the new one at the target, the previous one at `temp`
  MovedAside, // the previous one at `backup`, the new one still at `temp`
  Renamed,    // the new one at the target, the previous one (if any) at `backup`
};

bool exchangePaths(const fs::path& a, const fs::path& b, int& error) {
  if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0)
    return true;
  error = errno;
  return false;
}

// Steps 4.4-4.5 of §6.3: the new artifact into place; `state` says how far it got.
Status swapIntoPlace(const fs::path& temp, const fs::path& target, const fs::path& backup,
                     const SaveOptions& options, Swapped& state) {
  if (faultAt(options, "before-swap"))
    return injectedFault("before-swap");
  if (pathExists(target)) {
    int error = 0;
    if (!options.noExchange && exchangePaths(temp, target, error)) {
      state = Swapped::Exchanged;
      if (faultAt(options, "after-backup"))
        return injectedFault("after-backup");
      return {};
    }
    // Filesystems without RENAME_EXCHANGE answer EINVAL (or ENOSYS on old kernels).
    if (!options.noExchange && error != EINVAL && error != ENOSYS && error != ENOTSUP)
      return makeError("cannot swap " + temp.string() + " with " + target.string() + ": " +
                       errnoText(error));
    if (Status s = renamePath(target, backup); !s)
      return s;
    state = Swapped::MovedAside;
  }
  if (faultAt(options, "after-backup"))
    return injectedFault("after-backup");
  if (Status s = renamePath(temp, target); !s)
    return s;
  state = Swapped::Renamed;
  return {};
}

// §6.3 step 5: after a failure, the previous artifact back at the target and the new one gone.
Status rollBack(Status status, const fs::path& temp, const fs::path& target,
                const fs::path& backup, Swapped state) {
  std::error_code ec;
  if (state == Swapped::Exchanged) {
    int error = 0;
    if (!exchangePaths(temp, target, error))
      return makeError(status.message() + "; the previous artifact was left at " + temp.string() +
                       ": " + errnoText(error));
  }
  fs::remove_all(temp, ec);
  if (state == Swapped::MovedAside && !pathExists(target) && ::rename(backup.c_str(), target.c_str()) != 0)
    return makeError(status.message() + "; the previous artifact was left at " + backup.string() +
                     ": " + errnoText(errno));
  return status;
}

} // namespace

std::vector<std::string> foreignArtifactEntries(const std::string& dir, std::size_t limit,
                                                bool recursive) {
  std::vector<std::string> out;
  std::error_code ec;
  if (limit > 0 && fs::is_directory(dir, ec))
    collectForeign(dir, "", true, limit, recursive, out);
  return out;
}

Status checkArtifactTarget(const std::string& artifactDir, const SaveOptions& options) {
  Expected<Target> target = resolveTarget(artifactDir);
  if (!target)
    return target.error();
  return checkTarget(*target, options);
}

Status saveArtifactFiles(const std::string& artifactDir, const std::string& mlirText,
                         const std::vector<NamedTensor>& weights, const SaveOptions& options) {
  Expected<Target> resolved = resolveTarget(artifactDir);
  if (!resolved)
    return resolved.error();
  const Target& target = *resolved;
  if (mlirText.size() > kMaxArtifactGraphBytes)
    return makeError(target.path.string() + ": not written: graph.mlir would be " +
                     std::to_string(mlirText.size()) + " bytes, over the reader's limit of " +
                     std::to_string(kMaxArtifactGraphBytes) + " bytes");

  std::error_code ec;
  fs::create_directories(target.parent, ec);
  if (ec)
    return makeError("cannot create directory " + target.parent.string() + ": " + ec.message());
  recoverLeftovers(target);
  if (Status s = checkTarget(target, options); !s)
    return s;

  DirectoryLock tempLock;
  Expected<fs::path> made = makeTempDir(target, tempLock);
  if (!made)
    return made.error();
  const fs::path temp = *made;
  const fs::path backup(temp.string() + std::string(kPreviousSuffix));

  Status status = writePayload(temp, target.path, mlirText, weights, options);
  Swapped state = Swapped::Nothing;
  DirectoryLock targetLock; // the previous artifact, while it sits under a leftover's name
  if (status) {
    if (pathExists(target.path))
      targetLock.lock(target.path, true);
    status = swapIntoPlace(temp, target.path, backup, options, state);
  }
  if (!status)
    return rollBack(status, temp, target.path, backup, state);

  // Step 4.6: the previous artifact goes.
  if (Status s = syncPath(target.parent, true); !s)
    return s;
  const fs::path old = state == Swapped::Exchanged ? temp : backup;
  if (pathExists(old)) {
    fs::remove_all(old, ec);
    if (ec)
      return makeError("the new artifact is in place at " + target.path.string() +
                       ", but the previous one could not be removed from " + old.string() + ": " +
                       ec.message());
  }
  return {};
}

std::vector<std::string> extractStorageKeys(std::string_view text) {
  static constexpr std::string_view kWord = "storage_key";
  std::vector<std::string> keys;
  std::size_t pos = 0;
  while ((pos = text.find(kWord, pos)) != std::string_view::npos) {
    std::size_t p = pos + kWord.size();
    pos += 1; // a failed match resumes at the next character, as a regex search would
    while (p < text.size() && isSpace(text[p]))
      ++p;
    if (p >= text.size() || text[p] != '=')
      continue;
    ++p;
    while (p < text.size() && isSpace(text[p]))
      ++p;
    if (p >= text.size() || text[p] != '"')
      continue;
    const std::size_t begin = p + 1;
    const std::size_t end = text.find('"', begin);
    // No closing quote after this one means no later value can close either: stop (and stay
    // linear).
    if (end == std::string_view::npos)
      break;
    if (end == begin)
      continue;
    keys.emplace_back(text.substr(begin, end - begin));
    pos = end + 1;
  }
  return keys;
}

Status validateArtifactPayload(std::string_view mlirText,
                               const std::vector<std::string>& storedKeys) {
  const std::string required[] = {
      "lattice.ir_version = " + std::to_string(kDialectIrVersion),
      "lattice.schema_digest = \"" + std::string(kDialectSchemaDigest) + "\"",
      "lattice.weight_file = \"" + std::string(kArtifactWeightFile) + "\"",
      "func.func @forward(",
      "return ",
  };
  std::string missing;
  for (const std::string& item : required) {
    if (mlirText.find(item) == std::string_view::npos)
      missing += (missing.empty() ? "" : ", ") + item;
  }
  if (!missing.empty())
    return makeError("artifact graph is missing contract metadata: " + missing);

  const std::vector<std::string> storageKeys = extractStorageKeys(mlirText);
  // One pass over the stored keys: a stored key backs a storage key equal to it or to one of its
  // prefixes ending before a '.' (`stem.weight` for `stem.weight.scales`).
  absl::flat_hash_map<std::string_view, bool> backed; // storage key -> has a tensor
  backed.reserve(storageKeys.size());
  for (const std::string& key : storageKeys)
    backed.emplace(key, false);
  std::vector<std::string> unreferenced;
  for (const std::string& key : storedKeys) {
    bool referenced = false;
    auto mark = [&](std::string_view candidate) {
      if (auto it = backed.find(candidate); it != backed.end()) {
        it->second = true;
        referenced = true;
      }
    };
    mark(key);
    for (std::size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1))
      mark(std::string_view(key).substr(0, dot));
    if (!referenced)
      unreferenced.push_back(key);
  }
  for (const std::string& key : storageKeys) {
    if (!backed[key])
      return makeError("artifact weight is missing storage key '" + key + "'");
  }
  if (!unreferenced.empty()) {
    std::sort(unreferenced.begin(), unreferenced.end());
    std::string list;
    for (const std::string& key : unreferenced)
      list += (list.empty() ? "" : ", ") + key;
    return makeError("artifact contains unreferenced weights: " + list);
  }
  return {};
}

} // namespace lattice
