// Tests for core/lowering/ArtifactSave: the atomic writer of lowering.md §6.3 (success,
// replacement, injected faults, cancellation, bad targets; recovery after a killed save is
// tst_artifact_save_recovery.cpp) and the payload validation of §6.4.
// Fixtures are the reference exporter's conformance artifacts.

#include "ArtifactSaveTestSupport.h"
#include "lowering/ArtifactSave.h"
#include "tensor/Safetensors.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <csignal>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace lattice;
using namespace lattice::test;
namespace fs = std::filesystem;


class TestArtifactSave : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void init();

  void savesNewArtifact();
  void modesFollowTheUmask_data();
  void modesFollowTheUmask();
  void replacesExistingArtifact();
  void replacesEmptyDirectory();
  void refusesForeignEntries_data();
  void refusesForeignEntries();
  void foreignEntriesListsWhatWouldBeDeleted();
  void parentSyncFailureAfterTheSwapIsAWarning_data();
  void parentSyncFailureAfterTheSwapIsAWarning();
  void unremovableTargetFailsFirst();
  void refusesAGraphOverTheReaderLimit();
  void trailingSlash();
  void refusesExistingWithoutClean();
  void faultKeepsPreviousArtifact_data();
  void faultKeepsPreviousArtifact();
  void cancelKeepsPreviousArtifact();
  void progressReportsBytes();
  void validationFailureKeepsPrevious();
  void targetIsFile();
  void parentIsFile();
  void parentNotWritable();

  void validatePayload_data();
  void validatePayload();
  void extractStorageKeys_data();
  void extractStorageKeys();
  void validationOfManyWeights();

private:
  std::unique_ptr<QTemporaryDir> m_tmp;
  fs::path m_parent;
  fs::path m_target;
};

void TestArtifactSave::init() {
  m_tmp = std::make_unique<QTemporaryDir>();
  QVERIFY(m_tmp->isValid());
  m_parent = fs::path(m_tmp->path().toStdString()) / "out";
  m_target = m_parent / "model.lattice";
}

void TestArtifactSave::savesNewArtifact() {
  const Payload p = referencePayload("sparse_classifier");
  const fs::path parent = m_parent / "nested" / "deeper"; // created on demand
  const fs::path target = parent / "model.lattice";
  Status s = saveArtifactFiles(target.string(), p.graph, p.weights);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(entries(target), (std::set<std::string>{"graph.mlir", "weights.safetensors"}));
  QCOMPARE(readBytes(target / "graph.mlir"), p.graph);
  // The reference's own weights file comes back byte for byte.
  QCOMPARE(readBytes(target / "weights.safetensors"), p.weightBytes);
  QCOMPARE(entries(parent), std::set<std::string>{"model.lattice"});
}

// The folder and files get the modes the umask gives, like anything the user makes.
void TestArtifactSave::modesFollowTheUmask_data() {
  QTest::addColumn<unsigned>("mask");
  QTest::addColumn<unsigned>("dirMode");
  QTest::addColumn<unsigned>("fileMode");
  QTest::newRow("022") << 022u << 0755u << 0644u;
  QTest::newRow("027") << 027u << 0750u << 0640u;
  QTest::newRow("077") << 077u << 0700u << 0600u;
}

void TestArtifactSave::modesFollowTheUmask() {
  QFETCH(unsigned, mask);
  QFETCH(unsigned, dirMode);
  QFETCH(unsigned, fileMode);
  const Payload p = referencePayload("sparse_classifier");
  const mode_t saved = ::umask(static_cast<mode_t>(mask));
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights);
  ::umask(saved);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  struct stat info {};
  QCOMPARE(::stat(m_target.c_str(), &info), 0);
  QCOMPARE(unsigned(info.st_mode & 0777), dirMode);
  for (const char* file : {"graph.mlir", "weights.safetensors"}) {
    QCOMPARE(::stat((m_target / file).c_str(), &info), 0);
    QCOMPARE(unsigned(info.st_mode & 0777), fileMode);
  }
}

void TestArtifactSave::replacesExistingArtifact() {
  const Payload old = referencePayload("quantized_classifier_int8");
  QVERIFY(saveArtifactFiles(m_target.string(), old.graph, old.weights).ok());
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(entries(m_target), (std::set<std::string>{"graph.mlir", "weights.safetensors"}));
  QCOMPARE(readBytes(m_target / "graph.mlir"), p.graph);
  QCOMPARE(readBytes(m_target / "weights.safetensors"), p.weightBytes);
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
}

void TestArtifactSave::replacesEmptyDirectory() {
  fs::create_directories(m_target);
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(entries(m_target), (std::set<std::string>{"graph.mlir", "weights.safetensors"}));
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
}

// A folder with anything but graph.mlir and weights.safetensors in it is refused
// whole, naming the first foreign entries; `force` replaces it.
void TestArtifactSave::refusesForeignEntries_data() {
  QTest::addColumn<QStringList>("files"); // relative paths to create, "dir/" for a directory
  QTest::addColumn<QString>("listed");
  QTest::newRow("user folder") << QStringList{"readme.txt", "sub/", "sub/important.csv"}
                               << "readme.txt, sub/";
  QTest::newRow("artifact plus a note") << QStringList{"graph.mlir", "weights.safetensors", "notes.txt"}
                                        << "notes.txt";
  QTest::newRow("graph.mlir as a directory") << QStringList{"graph.mlir/"} << "graph.mlir/";
  QTest::newRow("many") << QStringList{"a", "b", "c", "d", "e"} << "a, b, c, ...";
  QTest::newRow("hidden") << QStringList{".git/"} << ".git/";
}

void TestArtifactSave::refusesForeignEntries() {
  QFETCH(QStringList, files);
  QFETCH(QString, listed);
  fs::create_directories(m_target);
  for (const QString& f : files) {
    const std::string rel = f.toStdString();
    if (rel.back() == '/')
      fs::create_directories(m_target / rel);
    else
      writeBytes(m_target / rel, "user data: " + rel);
  }
  const auto before = snapshot(m_target);
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights);
  QVERIFY(!s.ok());
  QCOMPARE(qs(s.message()), qs(m_target.string() + ": not replaced: it holds files that are not part of "
                               "a lattice artifact: ") + listed);
  QVERIFY(s.message().find(kNotAnArtifactMarker) != std::string::npos);
  QVERIFY(s.code() == ErrorCode::NotAnArtifact);
  QVERIFY(checkArtifactTarget(m_target.string()).code() == ErrorCode::NotAnArtifact);
  QCOMPARE(snapshot(m_target), before);
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
  QCOMPARE(qs(checkArtifactTarget(m_target.string()).message()), qs(s.message()));

  SaveOptions options;
  options.force = true;
  QVERIFY(checkArtifactTarget(m_target.string(), options).ok());
  s = saveArtifactFiles(m_target.string(), p.graph, p.weights, options);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(entries(m_target), (std::set<std::string>{"graph.mlir", "weights.safetensors"}));
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
}

void TestArtifactSave::foreignEntriesListsWhatWouldBeDeleted() {
  fs::create_directories(m_target / "sub" / "deeper");
  writeBytes(m_target / "graph.mlir", "ours");
  writeBytes(m_target / "sub" / "b.csv", "x");
  writeBytes(m_target / "sub" / "deeper" / "c.bin", "x");
  writeBytes(m_target / "a.txt", "x");
  QCOMPARE(foreignArtifactEntries(m_target.string(), 100),
           (std::vector<std::string>{"a.txt", "sub/"}));
  QCOMPARE(foreignArtifactEntries(m_target.string(), 100, true),
           (std::vector<std::string>{"a.txt", "sub/", "sub/b.csv", "sub/deeper/", "sub/deeper/c.bin"}));
  QCOMPARE(foreignArtifactEntries(m_target.string(), 2, true), (std::vector<std::string>{"a.txt", "sub/"}));
  QVERIFY(foreignArtifactEntries((m_parent / "missing").string(), 100).empty());
}

// Without RENAME_EXCHANGE a save is two renames; a SIGKILL between them leaves the
// previous artifact in `.NAME-XXXXXX.previous` and no target. The next save puts it back, then
// replaces it, and leaves nothing behind.
void TestArtifactSave::parentSyncFailureAfterTheSwapIsAWarning_data() {
  QTest::addColumn<bool>("noExchange");
  QTest::newRow("exchange") << false;
  QTest::newRow("two renames") << true;
}

void TestArtifactSave::parentSyncFailureAfterTheSwapIsAWarning() {
  QFETCH(bool, noExchange);
  const Payload old = referencePayload("quantized_classifier_int8");
  QVERIFY(saveArtifactFiles(m_target.string(), old.graph, old.weights).ok());
  std::vector<std::string> warnings;
  SaveOptions options = collecting(warnings);
  options.noExchange = noExchange;
  options.injectFault = [](std::string_view at, uint64_t) { return at == "sync-parent"; };
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights, options);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(readBytes(m_target / "graph.mlir"), p.graph);
  QCOMPARE(readBytes(m_target / "weights.safetensors"), p.weightBytes);
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
  QCOMPARE(qsl(warnings), QStringList{qs(m_target.string() + ": the new artifact is in place, but its durability "
                                      "could not be confirmed: cannot sync directory " + m_parent.string() +
                                      ": Input/output error")});
}

// A target whose entries cannot be removed fails before anything is written or
// swapped, not after the new artifact is in place.
void TestArtifactSave::unremovableTargetFailsFirst() {
  if (::geteuid() == 0)
    QSKIP("root ignores directory permissions");
  const Payload old = referencePayload("quantized_classifier_int8");
  QVERIFY(saveArtifactFiles(m_target.string(), old.graph, old.weights).ok());
  fs::permissions(m_target, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights);
  fs::permissions(m_target, fs::perms::owner_all);
  QVERIFY(!s.ok());
  QVERIFY2(s.message().rfind(m_target.string() + ": cannot replace it: the entries of ", 0) == 0, s.message().c_str());
  QCOMPARE(readBytes(m_target / "graph.mlir"), old.graph);
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
}

// `lower` never writes a graph.mlir the reader would refuse.
void TestArtifactSave::refusesAGraphOverTheReaderLimit() {
  const Payload p = referencePayload("sparse_classifier");
  std::string huge = p.graph;
  huge.resize(kMaxArtifactGraphBytes + 1, ' ');
  Status s = saveArtifactFiles(m_target.string(), huge, p.weights);
  QVERIFY(!s.ok());
  QCOMPARE(qs(s.message()), qs(m_target.string() + ": not written: graph.mlir would be " +
                               std::to_string(kMaxArtifactGraphBytes + 1) +
                               " bytes, over the reader's limit of " +
                               std::to_string(kMaxArtifactGraphBytes) + " bytes"));
  QVERIFY(!fs::exists(m_parent) || entries(m_parent).empty());
}

void TestArtifactSave::trailingSlash() {
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string() + "/", p.graph, p.weights);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
  QCOMPARE(readBytes(m_target / "graph.mlir"), p.graph);
}

void TestArtifactSave::refusesExistingWithoutClean() {
  const Payload p = referencePayload("sparse_classifier");
  QVERIFY(saveArtifactFiles(m_target.string(), p.graph, p.weights).ok());
  const auto before = snapshot(m_target);
  SaveOptions options;
  options.clean = false;
  const Payload other = referencePayload("quantized_classifier_int8");
  Status s = saveArtifactFiles(m_target.string(), other.graph, other.weights, options);
  QVERIFY(!s.ok());
  QCOMPARE(qs(s.message()), qs("artifact directory already exists: " + m_target.string()));
  QVERIFY(s.code() == ErrorCode::Failed);
  QCOMPARE(snapshot(m_target), before);
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
}

void TestArtifactSave::faultKeepsPreviousArtifact_data() {
  QTest::addColumn<QString>("point");
  QTest::addColumn<bool>("previous");
  QTest::addColumn<bool>("noExchange");
  for (const char* point : {"after-graph", "during-weights", "before-swap", "after-backup"}) {
    for (bool noExchange : {false, true}) {
      const char* swap = noExchange ? "two renames" : "exchange";
      QTest::addRow("%s, over a previous artifact, %s", point, swap) << QString::fromLatin1(point) << true << noExchange;
      QTest::addRow("%s, new target, %s", point, swap) << QString::fromLatin1(point) << false << noExchange;
    }
  }
}

void TestArtifactSave::faultKeepsPreviousArtifact() {
  QFETCH(QString, point);
  QFETCH(bool, previous);
  QFETCH(bool, noExchange);
  std::map<std::string, std::string> before;
  if (previous) {
    const Payload old = referencePayload("quantized_classifier_int8");
    QVERIFY(saveArtifactFiles(m_target.string(), old.graph, old.weights).ok());
    writeBytes(m_target / "notes.txt", "kept byte for byte");
    before = snapshot(m_target);
  }
  const std::string wanted = point.toStdString();
  std::vector<uint64_t> weightBytesSeen;
  SaveOptions options;
  options.force = true; // the previous folder holds a note of the user's: it survives a failure
  options.noExchange = noExchange;
  options.injectFault = [&](std::string_view at, uint64_t bytes) {
    if (at != wanted)
      return false;
    if (at != "during-weights")
      return true;
    // Fail once the header and at least one tensor are written.
    weightBytesSeen.push_back(bytes);
    return weightBytesSeen.size() == 2;
  };
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights, options);
  QVERIFY(!s.ok());
  QCOMPARE(qs(s.message()), QStringLiteral("injected fault at '%1'").arg(point));
  if (wanted == "during-weights") {
    QCOMPARE(weightBytesSeen.size(), std::size_t(2));
    QVERIFY(weightBytesSeen[1] > weightBytesSeen[0]);
  }
  if (previous) {
    QCOMPARE(snapshot(m_target), before);
    QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
  } else {
    QVERIFY(entries(m_parent).empty()); // no temporary left
  }
}

void TestArtifactSave::cancelKeepsPreviousArtifact() {
  const Payload old = referencePayload("quantized_classifier_int8");
  QVERIFY(saveArtifactFiles(m_target.string(), old.graph, old.weights).ok());
  const auto before = snapshot(m_target);
  SaveOptions options;
  int calls = 0;
  options.progress = [&](uint64_t, uint64_t) { return ++calls < 2; };
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights, options);
  QVERIFY(!s.ok());
  QCOMPARE(calls, 2);
  QCOMPARE(qs(s.message()), qs("artifact save cancelled: " + m_target.string()));
  QVERIFY(s.code() == ErrorCode::Cancelled);
  QCOMPARE(snapshot(m_target), before);
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
}

void TestArtifactSave::progressReportsBytes() {
  const Payload p = referencePayload("sparse_classifier");
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  SaveOptions options;
  options.progress = [&](uint64_t done, uint64_t total) {
    calls.emplace_back(done, total);
    return true;
  };
  QVERIFY(saveArtifactFiles(m_target.string(), p.graph, p.weights, options).ok());
  QVERIFY(!calls.empty());
  for (std::size_t i = 1; i < calls.size(); ++i)
    QVERIFY(calls[i].first > calls[i - 1].first);
  QCOMPARE(calls.back().first, uint64_t(p.weightBytes.size()));
  QCOMPARE(calls.back().second, uint64_t(p.weightBytes.size()));
}

void TestArtifactSave::validationFailureKeepsPrevious() {
  const Payload old = referencePayload("quantized_classifier_int8");
  QVERIFY(saveArtifactFiles(m_target.string(), old.graph, old.weights).ok());
  const auto before = snapshot(m_target);

  const Payload p = referencePayload("sparse_classifier");
  std::vector<NamedTensor> extra = p.weights;
  extra.push_back({"zz.extra", p.weights.front().tensor});
  extra.push_back({"aa.extra", p.weights.front().tensor});
  Status s = saveArtifactFiles(m_target.string(), p.graph, extra);
  QVERIFY(!s.ok());
  QCOMPARE(qs(s.message()), QStringLiteral("artifact contains unreferenced weights: aa.extra, zz.extra"));
  QCOMPARE(snapshot(m_target), before);
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});

  // Without validation the same payload is written.
  SaveOptions options;
  options.validate = false;
  s = saveArtifactFiles(m_target.string(), p.graph, extra, options);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  Expected<SafetensorsFile> written = SafetensorsFile::open((m_target / "weights.safetensors").string());
  QVERIFY(written.ok());
  QCOMPARE(written->tensors().size(), extra.size());
}

void TestArtifactSave::targetIsFile() {
  fs::create_directories(m_parent);
  writeBytes(m_target, "not a directory");
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights);
  QVERIFY(!s.ok());
  QCOMPARE(qs(s.message()), qs("artifact path exists and is not a directory: " + m_target.string()));
  QCOMPARE(readBytes(m_target), std::string("not a directory"));
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
}

void TestArtifactSave::parentIsFile() {
  fs::create_directories(m_parent);
  writeBytes(m_parent / "file", "x");
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles((m_parent / "file" / "model.lattice").string(), p.graph, p.weights);
  QVERIFY(!s.ok());
  QVERIFY2(s.message().rfind("cannot create directory " + (m_parent / "file").string() + ": ", 0) == 0,
           s.message().c_str());
  QCOMPARE(entries(m_parent), std::set<std::string>{"file"});
}

void TestArtifactSave::parentNotWritable() {
  if (::geteuid() == 0)
    QSKIP("root ignores directory permissions");
  fs::create_directories(m_parent);
  fs::permissions(m_parent, fs::perms::owner_read | fs::perms::owner_exec);
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights);
  fs::permissions(m_parent, fs::perms::owner_all);
  QVERIFY(!s.ok());
  QVERIFY2(s.message().rfind("cannot create temporary directory in " + m_parent.string(), 0) == 0,
           s.message().c_str());
  QVERIFY(entries(m_parent).empty());
}

void TestArtifactSave::validatePayload_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QStringList>("keys");
  QTest::addColumn<QString>("message"); // empty: valid
  const QString valid = qs(header() + weightOp("stem.bias") + kFooter);
  QTest::newRow("dense key") << valid << QStringList{"stem.bias"} << "";
  QTest::newRow("quantized keys")
      << qs(header() + weightOp("stem.weight") + kFooter)
      << QStringList{"stem.weight.weight", "stem.weight.scales", "stem.weight.biases"} << "";
  QTest::newRow("no weights") << qs(header() + kFooter) << QStringList{} << "";
  QTest::newRow("missing digest")
      << qs(header(false) + kFooter) << QStringList{}
      << qs("artifact graph is missing contract metadata: lattice.schema_digest = \"" + kDigest + "\"");
  QTest::newRow("empty text") << "" << QStringList{}
      << qs("artifact graph is missing contract metadata: lattice.ir_version = 2, "
            "lattice.schema_digest = \"" + kDigest + "\", lattice.weight_file = "
            "\"weights.safetensors\", func.func @forward(, return ");
  QTest::newRow("missing storage key")
      << qs(header() + weightOp("stem.bias") + weightOp("head.bias") + kFooter)
      << QStringList{"stem.bias"} << "artifact weight is missing storage key 'head.bias'";
  QTest::newRow("prefix without a dot is not a match")
      << valid << QStringList{"stem.biasX"} << "artifact weight is missing storage key 'stem.bias'";
  QTest::newRow("unreferenced, sorted")
      << valid << QStringList{"z", "stem.bias", "b.x", "stem"}
      << "artifact contains unreferenced weights: b.x, stem, z";
}

void TestArtifactSave::validatePayload() {
  QFETCH(QString, text);
  QFETCH(QStringList, keys);
  QFETCH(QString, message);
  std::vector<std::string> stored;
  for (const QString& k : keys)
    stored.push_back(k.toStdString());
  Status s = validateArtifactPayload(text.toStdString(), stored);
  QCOMPARE(s.ok() ? QString() : qs(s.message()), message);
}

void TestArtifactSave::extractStorageKeys_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QStringList>("keys");
  QTest::newRow("writer form") << R"({storage_key = "a.b", x = 1} {storage_key = "c"})"
                               << QStringList{"a.b", "c"};
  QTest::newRow("free spacing") << "storage_key\n  =\t\"k1\" storage_key=\"k2\""
                                << QStringList{"k1", "k2"};
  QTest::newRow("empty value is skipped") << R"(storage_key = "" storage_key = "k")"
                                          << QStringList{"k"};
  QTest::newRow("no equals sign") << R"(storage_key "x" storage_key = "y")" << QStringList{"y"};
  QTest::newRow("unterminated") << R"(storage_key = "a" storage_key = "b)" << QStringList{"a"};
  QTest::newRow("other attributes") << R"(sym_name = "x", layout = "y")" << QStringList{};
}

void TestArtifactSave::extractStorageKeys() {
  QFETCH(QString, text);
  QFETCH(QStringList, keys);
  QStringList got;
  for (const std::string& k : lattice::extractStorageKeys(text.toStdString()))
    got << qs(k);
  QCOMPARE(got, keys);
}

void TestArtifactSave::validationOfManyWeights() {
  // 10k weights, half quantized (three stored tensors each); `lattice-bench --validation` times
  // the check on up to 400k.
  const int n = 5000;
  std::string text = header();
  std::vector<std::string> stored;
  for (int i = 0; i < n; ++i) {
    const std::string dense = "layer" + std::to_string(i) + ".bias";
    const std::string packed = "layer" + std::to_string(i) + ".weight";
    text += weightOp(dense) + weightOp(packed);
    stored.push_back(dense);
    for (const char* part : {".weight", ".scales", ".biases"})
      stored.push_back(packed + part);
  }
  text += kFooter;
  Status s = validateArtifactPayload(text, stored);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  stored.push_back("orphan");
  s = validateArtifactPayload(text, stored);
  QCOMPARE(qs(s.ok() ? "" : s.message()), QStringLiteral("artifact contains unreferenced weights: orphan"));
  // Without the orphan and the three stored tensors of the last packed weight: that weight's key
  // is the first one without a tensor.
  stored.resize(stored.size() - 4);
  s = validateArtifactPayload(text, stored);
  QCOMPARE(qs(s.ok() ? "" : s.message()),
           qs("artifact weight is missing storage key 'layer" + std::to_string(n - 1) + ".weight'"));
}

QTEST_APPLESS_MAIN(TestArtifactSave)
#include "tst_artifact_save.moc"
