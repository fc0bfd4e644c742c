#pragma once
// Fixtures shared by the artifact save tests (tst_artifact_save, tst_artifact_save_recovery):
// the reference exporter's conformance artifacts as payloads, directory snapshots, hand-written
// graph texts, and a save run in a child process that is killed at a chosen point.

#include "lowering/ArtifactSave.h"
#include "tensor/Safetensors.h"

#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

namespace lattice::test {

namespace fs = std::filesystem;

inline const std::string kModels = std::string(LATTICE_TEST_DATA_DIR) + "/conformance/models/";
inline const std::string kDigest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad";

inline std::string readBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void writeBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A reference artifact: its graph text, its tensors and the weights file bytes.
struct Payload {
  std::string graph;
  std::vector<NamedTensor> weights;
  std::string weightBytes;
};

inline Payload referencePayload(const std::string& caseName) {
  const fs::path dir = kModels + caseName + "/expected.lattice";
  Payload p;
  p.graph = readBytes(dir / "graph.mlir");
  p.weightBytes = readBytes(dir / "weights.safetensors");
  Expected<SafetensorsFile> file = SafetensorsFile::open((dir / "weights.safetensors").string());
  if (!file)
    qFatal("%s", file.message().c_str());
  p.weights = file->tensors(); // views that keep the mapping alive
  return p;
}

// Relative path -> bytes of every file below `dir` (directories as "<dir>/").
inline std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  if (!fs::exists(dir))
    return files;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(e.path(), dir).string();
    files[e.is_directory() ? rel + "/" : rel] = e.is_directory() ? "" : readBytes(e.path());
  }
  return files;
}

inline std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    names.insert(e.path().filename().string());
  return names;
}

inline std::string header(bool digest = true) {
  return "module attributes {\n  lattice.ir_version = 2,\n" +
         (digest ? "  lattice.schema_digest = \"" + kDigest + "\",\n" : std::string()) +
         "  lattice.weight_file = \"weights.safetensors\"\n} {\n  func.func @forward(\n  ) {\n";
}

inline std::string weightOp(const std::string& key) {
  return "    %w = lattice.weight @w {storage_key = \"" + key + "\", layout = "
         "#lattice.weight_layout<bias_c>} : !lattice.weight<bias, f32>\n";
}

inline const std::string kFooter = "    return %x : tensor<?x2xf32>\n  }\n}\n";

inline QString qs(const std::string& s) { return QString::fromStdString(s); }

// Runs a save in a child process that SIGKILLs itself when the save reaches `point`; true when
// the child died of that signal.
inline bool killedSave(const fs::path& target, const Payload& p, const std::string& point, bool noExchange,
                bool force = false) {
  const pid_t child = ::fork();
  if (child < 0)
    return false;
  if (child == 0) {
    SaveOptions options;
    options.noExchange = noExchange;
    options.force = force;
    options.injectFault = [point](std::string_view at, uint64_t) {
      if (at == point)
        ::raise(SIGKILL);
      return false;
    };
    (void)saveArtifactFiles(target.string(), p.graph, p.weights, options);
    ::_exit(0);
  }
  int status = 0;
  return ::waitpid(child, &status, 0) == child && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// Save options that collect the save's warnings.
inline SaveOptions collecting(std::vector<std::string>& warnings) {
  SaveOptions options;
  options.warn = [&warnings](const std::string& message) { warnings.push_back(message); };
  return options;
}

inline QStringList qsl(const std::vector<std::string>& list) {
  QStringList out;
  for (const std::string& s : list)
    out << qs(s);
  return out;
}

} // namespace lattice::test
