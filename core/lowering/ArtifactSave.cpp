// The atomic artifact writer (lowering.md §6.3) and the payload validation (§6.4).
// Files are written into a temporary directory beside the target and swapped into place, so the
// target is always either the complete previous artifact or the complete new one. The swap is one
// renameat2(RENAME_EXCHANGE) where the filesystem has it; elsewhere two renames, and a kill
// between them leaves the previous artifact in `.<name>-XXXXXX.previous`, which the next save of
// the same target puts back.
// A save records itself in `.<name>-XXXXXX.save` beside the target before it makes its first
// directory and removes the record after its last is gone, holding an flock on it throughout (and
// on its temporary directory, and on the target while it swaps). The next save touches a
// directory named like a leftover only when a record it can lock proves a save made it, so a
// running save's directories and a user's folder that merely has such a name are never touched;
// of the proven ones, only directories that hold nothing but artifact files are removed. POSIX
// only; storage keys are found by a plain text scan: this file does not parse MLIR.

#include "lowering/ArtifactSave.h"

#include "dialect/DialectSchema.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lattice {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPreviousSuffix = ".previous";
constexpr std::string_view kRecordSuffix = ".save";
constexpr std::size_t kTempSuffixLength = 6;
/// What a save writes into its record: a file named like a record holds exactly this or is not
/// one of ours.
constexpr std::string_view kRecordText =
    "lattice artifact save: the directories named like this file without '.save' are its own\n";

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

void warn(const SaveOptions& options, const std::string& message) {
  if (options.warn)
    options.warn(message);
}

// The record of a running save (see the file comment): created exclusively, locked, then filled.
// A clean-up that removed the name between our create and our lock shows as a link count of 0,
// and the caller tries another name.
class SaveRecord {
public:
  SaveRecord() = default;
  SaveRecord(const SaveRecord&) = delete;
  SaveRecord& operator=(const SaveRecord&) = delete;
  ~SaveRecord() { close(); }

  // false with errno: EEXIST when the name is taken (or was just removed by a clean-up).
  bool create(const fs::path& path) {
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (m_fd < 0)
      return false;
    m_path = path;
    while (::flock(m_fd, LOCK_EX) != 0) {
      if (errno != EINTR)
        return abandon(errno);
    }
    struct stat info {};
    if (::fstat(m_fd, &info) != 0)
      return abandon(errno);
    if (info.st_nlink == 0) { // removed by another save's clean-up before we held the lock
      close();
      errno = EEXIST;
      return false;
    }
    std::string_view text = kRecordText;
    while (!text.empty()) {
      const ssize_t n = ::write(m_fd, text.data(), text.size());
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return abandon(n < 0 ? errno : EIO);
      text.remove_prefix(static_cast<std::size_t>(n));
    }
    if (::fdatasync(m_fd) != 0)
      return abandon(errno);
    return true;
  }
  // Removes the record (once nothing of the save is left beside the target).
  void remove() {
    if (m_fd >= 0)
      ::unlink(m_path.c_str());
    close();
  }
  // Lets go of the record but keeps it: what the save left is for the next save to recover.
  void close() {
    if (m_fd >= 0)
      ::close(m_fd);
    m_fd = -1;
  }

private:
  bool abandon(int error) {
    remove();
    errno = error;
    return false;
  }

  int m_fd = -1;
  fs::path m_path;
};

// The parent's entries after the swap; the "sync-parent" fault point fails it as an I/O error.
// The directory is named as a path the user can find ("." as the working directory).
Status syncParent(const fs::path& parent, const SaveOptions& options) {
  std::error_code ec;
  fs::path shown = parent == "." ? fs::current_path(ec) : parent;
  if (ec)
    shown = parent;
  int error = 0;
  if (faultAt(options, "sync-parent")) {
    error = EIO;
  } else {
    const int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      error = errno;
    } else {
      if (::fsync(fd) != 0)
        error = errno;
      ::close(fd);
    }
  }
  if (error != 0)
    return makeError("cannot sync directory " + shown.string() + ": " + errnoText(error));
  return {};
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
                           std::string(kNotAnArtifactMarker) + ": " + list,
                       ErrorCode::NotAnArtifact);
    }
  }
  return checkRemovable(target.path, options.force, target.path);
}

// What a save of NAME makes beside its target, by name.
enum class LeftoverKind { Temp, Previous, Record };

// `.NAME-XXXXXX`, `.NAME-XXXXXX.previous` or `.NAME-XXXXXX.save`: the XXXXXX in `id`.
bool isLeftoverName(const std::string& entry, const std::string& name, std::string& id,
                    LeftoverKind& kind) {
  const std::string stem = "." + name + "-";
  if (entry.compare(0, stem.size(), stem) != 0)
    return false;
  std::string_view rest = std::string_view(entry).substr(stem.size());
  kind = LeftoverKind::Temp;
  for (const auto& [suffix, k] : {std::pair{kPreviousSuffix, LeftoverKind::Previous},
                                  std::pair{kRecordSuffix, LeftoverKind::Record}}) {
    if (rest.size() > suffix.size() && rest.substr(rest.size() - suffix.size()) == suffix) {
      rest.remove_suffix(suffix.size());
      kind = k;
      break;
    }
  }
  if (rest.size() != kTempSuffixLength ||
      !std::all_of(rest.begin(), rest.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      }))
    return false;
  id = std::string(rest);
  return true;
}

// What one save's leftovers look like beside the target.
struct LeftoverGroup {
  fs::path temp, previous, record; // set when present (directories, and the record as any entry)
};

enum class RecordState { Missing, InUse, Ours, Empty, NotOurs };

// Opens and locks (without waiting) the record of a save, and says what it is. The lock is held
// in `fd` (closed by the caller) while the save's directories are dealt with.
RecordState openRecord(const fs::path& path, int& fd) {
  fd = -1;
  if (path.empty())
    return RecordState::Missing;
  fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? RecordState::Missing : RecordState::NotOurs;
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    return RecordState::NotOurs;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EINTR)
      return RecordState::InUse;
  }
  if (::fstat(fd, &info) != 0 || info.st_nlink == 0)
    return RecordState::Missing; // removed since we opened it
  if (info.st_size == 0)
    return RecordState::Empty;
  if (static_cast<std::uint64_t>(info.st_size) != kRecordText.size())
    return RecordState::NotOurs;
  std::string text(kRecordText.size(), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return RecordState::NotOurs;
    got += static_cast<std::size_t>(n);
  }
  return text == kRecordText ? RecordState::Ours : RecordState::NotOurs;
}

std::string foreignList(const fs::path& dir) {
  constexpr std::size_t kShown = 3;
  const std::vector<std::string> foreign = foreignArtifactEntries(dir.string(), kShown + 1);
  std::string list;
  for (std::size_t i = 0; i < foreign.size() && i < kShown; ++i)
    list += (i ? ", " : "") + foreign[i];
  if (foreign.size() > kShown)
    list += ", ...";
  return list;
}

// A directory of a proven save: the previous artifact goes back to a missing target; otherwise
// the directory is removed when it holds only artifact files. False when it stays.
bool recoverDirectory(const fs::path& dir, bool previous, const Target& target,
                      const SaveOptions& options) {
  DirectoryLock lock;
  if (!lock.lock(dir, false))
    return false; // held by a running save, or not a directory we can open
  if (previous && !pathExists(target.path) && ::rename(dir.c_str(), target.path.c_str()) == 0)
    return true;
  const std::string foreign = foreignList(dir);
  if (!foreign.empty()) {
    warn(options, dir.string() + ": left alone: an interrupted save of " + target.path.string() +
                      " left it, but it holds files that are " + std::string(kNotAnArtifactMarker) +
                      ": " + foreign);
    return false;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return !ec;
}

// What interrupted saves of the same target left: a previous artifact moved aside goes back to a
// missing target; the other directories are removed when they hold only artifact files. Only
// what a save's record proves is ours is touched, and nothing a running save holds; every other
// directory named like a leftover is named in a warning.
void recoverLeftovers(const Target& target, const SaveOptions& options) {
  std::error_code ec;
  std::map<std::string, LeftoverGroup> groups; // by XXXXXX, in name order
  for (fs::directory_iterator it(target.parent, ec), end; !ec && it != end; it.increment(ec)) {
    std::string id;
    LeftoverKind kind;
    if (!isLeftoverName(it->path().filename().string(), target.name, id, kind))
      continue;
    std::error_code typeError;
    const bool directory = it->symlink_status(typeError).type() == fs::file_type::directory;
    LeftoverGroup& group = groups[id];
    if (kind == LeftoverKind::Record)
      group.record = it->path();
    else if (directory)
      (kind == LeftoverKind::Previous ? group.previous : group.temp) = it->path();
  }
  for (const auto& [id, group] : groups) {
    int fd = -1;
    const RecordState state = openRecord(group.record, fd);
    struct Closer {
      int fd;
      ~Closer() {
        if (fd >= 0)
          ::close(fd);
      }
    } closer{fd};
    if (state == RecordState::InUse)
      continue; // a running save's
    if (state != RecordState::Ours) {
      if (state == RecordState::Empty && group.temp.empty() && group.previous.empty()) {
        ::unlink(group.record.c_str()); // a save killed while it made its record
        continue;
      }
      for (const fs::path& dir : {group.temp, group.previous})
        if (!dir.empty())
          warn(options, dir.string() + ": left alone: it is named like what an interrupted save of " +
                            target.path.string() + " leaves behind, but no save recorded it");
      continue;
    }
    bool kept = false;
    if (!group.previous.empty())
      kept |= !recoverDirectory(group.previous, true, target, options);
    if (!group.temp.empty())
      kept |= !recoverDirectory(group.temp, false, target, options);
    if (!kept)
      ::unlink(group.record.c_str());
  }
}

// A new `.NAME-XXXXXX` directory beside the target, made with mkdir(0777) so the umask sets
// its mode, and locked; its record `.NAME-XXXXXX.save` is made (and locked) first. A name is
// used only when none of the three entries exists.
Expected<fs::path> makeTempDir(const Target& target, SaveRecord& record, DirectoryLock& lock) {
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
    const fs::path previous(temp.string() + std::string(kPreviousSuffix));
    if (pathExists(temp) || pathExists(previous))
      continue;
    if (!record.create(temp.string() + std::string(kRecordSuffix))) {
      if (errno == EEXIST)
        continue;
      return makeError("cannot create temporary directory in " + target.parent.string() + ": " +
                       errnoText(errno));
    }
    if (pathExists(previous)) { // made since we looked: not ours
      record.remove();
      continue;
    }
    if (::mkdir(temp.c_str(), 0777) == 0) {
      if (!lock.lock(temp, false)) {
        const int error = errno;
        std::error_code ec;
        fs::remove(temp, ec);
        record.remove();
        return makeError("cannot lock temporary directory " + temp.string() + ": " +
                         errnoText(error));
      }
      return temp;
    }
    const int error = errno;
    record.remove();
    if (error != EEXIST)
      return makeError("cannot create temporary directory in " + target.parent.string() + ": " +
                       errnoText(error));
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
  if (cancelled) return makeError("artifact save cancelled: " + target.string(), ErrorCode::Cancelled);
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
  recoverLeftovers(target, options);
  if (Status s = checkTarget(target, options); !s)
    return s;

  SaveRecord record;
  DirectoryLock tempLock;
  Expected<fs::path> made = makeTempDir(target, record, tempLock);
  if (!made)
    return made.error();
  const fs::path temp = *made;
  const fs::path backup(temp.string() + std::string(kPreviousSuffix));
  // The record goes once nothing of this save is left beside the target; otherwise it stays,
  // so the next save can tell what is left is ours.
  auto finish = [&](Status status) {
    if (!pathExists(temp) && !pathExists(backup))
      record.remove();
    return status;
  };

  Status status = writePayload(temp, target.path, mlirText, weights, options);
  Swapped state = Swapped::Nothing;
  DirectoryLock targetLock; // the previous artifact, while it sits under a leftover's name
  if (status) {
    if (pathExists(target.path))
      targetLock.lock(target.path, true);
    status = swapIntoPlace(temp, target.path, backup, options, state);
  }
  if (!status)
    return finish(rollBack(status, temp, target.path, backup, state));

  // Step 4.6: the previous artifact goes. The new one is in place from here on, so what fails
  // now does not fail the save: it is a warning.
  const Status synced = syncParent(target.parent, options);
  const fs::path old = state == Swapped::Exchanged ? temp : backup;
  if (pathExists(old)) {
    fs::remove_all(old, ec);
    if (ec)
      warn(options, target.path.string() + ": the new artifact is in place, but the previous one "
                    "could not be removed from " + old.string() + ": " + ec.message());
  }
  if (!synced)
    warn(options, target.path.string() + ": the new artifact is in place, but its durability "
                  "could not be confirmed: " + synced.message());
  return finish({});
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
