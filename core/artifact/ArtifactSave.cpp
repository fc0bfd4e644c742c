// The atomic artifact writer (lowering.md §6.3) and the payload validation (§6.4).
// Files are written into a temporary directory beside the target and renamed into place, so the
// target is always either the complete previous artifact or the complete new one; a crash can
// leave a `.<name>-XXXXXX` directory behind, never a half-written target. POSIX only (rename,
// fsync, mkdtemp). Storage keys are found by a plain text scan: this file does not parse MLIR.

#include "artifact/ArtifactSave.h"

#include "artifact/DialectSchema.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include <fcntl.h>
#include <unistd.h>

namespace lattice {
namespace fs = std::filesystem;

namespace {

std::string errnoText(int error) { return std::strerror(error); }

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool pathExists(const fs::path& path) {
  std::error_code ec;
  return fs::symlink_status(path, ec).type() != fs::file_type::not_found && !ec;
}

Status writeFileSynced(const fs::path& path, std::string_view data) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
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

Error injectedFault(std::string_view point) {
  return makeError("injected fault at '" + std::string(point) + "'");
}

bool faultAt(const SaveOptions& options, std::string_view point, uint64_t bytes = 0) {
  return options.injectFault && options.injectFault(point, bytes);
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

// Steps 4.4-4.6 of §6.3. `backup` is only created here.
Status swapIntoPlace(const fs::path& temp, const fs::path& target, const fs::path& backup,
                     const fs::path& parent, const SaveOptions& options) {
  if (faultAt(options, "before-swap"))
    return injectedFault("before-swap");
  if (pathExists(target)) {
    if (Status s = renamePath(target, backup); !s)
      return s;
  }
  if (faultAt(options, "after-backup"))
    return injectedFault("after-backup");
  if (Status s = renamePath(temp, target); !s)
    return s;
  if (Status s = syncPath(parent, true); !s)
    return s;
  if (pathExists(backup)) {
    std::error_code ec;
    fs::remove_all(backup, ec);
    if (ec)
      return makeError("cannot remove previous artifact " + backup.string() + ": " + ec.message());
  }
  return {};
}

} // namespace

Status saveArtifactFiles(const std::string& artifactDir, const std::string& mlirText,
                         const std::vector<NamedTensor>& weights, const SaveOptions& options) {
  fs::path target(artifactDir);
  if (!target.empty() && target.filename().empty()) // "out/" names "out"
    target = target.parent_path();
  const std::string name = target.filename().string();
  if (name.empty() || name == "." || name == "..")
    return makeError("invalid artifact directory path: '" + artifactDir + "'");
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");

  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec)
    return makeError("cannot create directory " + parent.string() + ": " + ec.message());
  if (pathExists(target)) {
    if (!options.clean)
      return makeError("artifact directory already exists: " + target.string());
    if (!fs::is_directory(target, ec))
      return makeError("artifact path exists and is not a directory: " + target.string());
  }

  std::string pattern = (parent / ("." + name + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return makeError("cannot create temporary directory in " + parent.string() + ": " +
                     errnoText(errno));
  const fs::path temp(pattern);
  const fs::path backup(pattern + ".previous");

  Status status = writePayload(temp, target, mlirText, weights, options);
  if (status)
    status = swapIntoPlace(temp, target, backup, parent, options);
  if (status)
    return status;

  // §6.3 step 5: drop the temporary directory and put the previous artifact back.
  fs::remove_all(temp, ec);
  if (pathExists(backup) && !pathExists(target)) {
    if (::rename(backup.c_str(), target.c_str()) != 0)
      return makeError(status.message() + "; the previous artifact was left at " +
                       backup.string() + ": " + errnoText(errno));
  }
  return status;
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
  std::unordered_map<std::string_view, bool> backed; // storage key -> has a tensor
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
