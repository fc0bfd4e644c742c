// Tests for core/lowering/ArtifactSave's recovery (lowering.md §6.3): a save killed (SIGKILL in a
// child process) at each point between its renames leaves the previous artifact or the new one,
// and the next save recovers it; leftovers still in use, foreign, or merely named like ours are
// never deleted. Fixtures are the reference exporter's conformance artifacts.

#include "ArtifactSaveTestSupport.h"
#include "lowering/ArtifactSave.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <filesystem>
#include <memory>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace lattice;
using namespace lattice::test;
namespace fs = std::filesystem;

class TestArtifactSaveRecovery : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void init();

  void recoversFromAKillBetweenTheRenames();
  void recoversWhatAKilledSaveLeft_data();
  void recoversWhatAKilledSaveLeft();
  void recoversAForcedPreviousWhole();
  void leftoversInUseOrForeignAreKept();
  void userFolderNamedLikeAPreviousIsLeftAlone_data();
  void userFolderNamedLikeAPreviousIsLeftAlone();
  void userCopiesNamedLikeLeftoversAreLeftAlone_data();
  void userCopiesNamedLikeLeftoversAreLeftAlone();

private:
  std::unique_ptr<QTemporaryDir> m_tmp;
  fs::path m_parent;
  fs::path m_target;
};

void TestArtifactSaveRecovery::init() {
  m_tmp = std::make_unique<QTemporaryDir>();
  QVERIFY(m_tmp->isValid());
  m_parent = fs::path(m_tmp->path().toStdString()) / "out";
  m_target = m_parent / "model.lattice";
}

void TestArtifactSaveRecovery::recoversFromAKillBetweenTheRenames() {
  const Payload old = referencePayload("quantized_classifier_int8");
  QVERIFY(saveArtifactFiles(m_target.string(), old.graph, old.weights).ok());
  const Payload p = referencePayload("sparse_classifier");
  const pid_t child = ::fork();
  QVERIFY(child >= 0);
  if (child == 0) {
    SaveOptions options;
    options.noExchange = true;
    options.injectFault = [](std::string_view at, uint64_t) {
      if (at == "after-backup")
        ::raise(SIGKILL);
      return false;
    };
    (void)saveArtifactFiles(m_target.string(), p.graph, p.weights, options);
    ::_exit(0);
  }
  int status = 0;
  QCOMPARE(::waitpid(child, &status, 0), child);
  QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  // What the kill left: no target, the previous artifact moved aside, the new one complete, and
  // the record of the save beside them.
  std::set<std::string> left = entries(m_parent);
  fs::path previous;
  for (const std::string& name : left)
    if (name.size() > 9 && name.compare(name.size() - 9, 9, ".previous") == 0)
      previous = m_parent / name;
  QVERIFY(!previous.empty());
  const std::string stem = previous.filename().string().substr(0, previous.filename().string().size() - 9);
  QCOMPARE(left, (std::set<std::string>{stem, stem + ".previous", stem + ".save"}));
  QCOMPARE(readBytes(previous / "graph.mlir"), old.graph);

  // A failing save still recovers the previous artifact first.
  SaveOptions failing;
  failing.injectFault = [](std::string_view at, uint64_t) { return at == "before-swap"; };
  QVERIFY(!saveArtifactFiles(m_target.string(), p.graph, p.weights, failing).ok());
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
  QCOMPARE(readBytes(m_target / "graph.mlir"), old.graph);

  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(readBytes(m_target / "graph.mlir"), p.graph);
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
}

// What a save killed at any point leaves beside the target is recovered or removed by the next
// save of the same target: only the target is left, holding the new artifact, and nothing is
// reported. A kill after the swap ("sync-parent") leaves the previous artifact behind.
void TestArtifactSaveRecovery::recoversWhatAKilledSaveLeft_data() {
  QTest::addColumn<QString>("point");
  QTest::addColumn<bool>("previous");
  QTest::addColumn<bool>("noExchange");
  for (const char* point : {"after-graph", "during-weights", "before-swap", "after-backup", "sync-parent"}) {
    for (bool noExchange : {false, true}) {
      const char* swap = noExchange ? "two renames" : "exchange";
      QTest::addRow("%s, over a previous artifact, %s", point, swap) << QString::fromLatin1(point) << true << noExchange;
      QTest::addRow("%s, new target, %s", point, swap) << QString::fromLatin1(point) << false << noExchange;
    }
  }
}

void TestArtifactSaveRecovery::recoversWhatAKilledSaveLeft() {
  QFETCH(QString, point);
  QFETCH(bool, previous);
  QFETCH(bool, noExchange);
  const Payload old = referencePayload("quantized_classifier_int8");
  if (previous)
    QVERIFY(saveArtifactFiles(m_target.string(), old.graph, old.weights).ok());
  const Payload p = referencePayload("sparse_classifier");
  QVERIFY(killedSave(m_target, p, point.toStdString(), noExchange));
  QVERIFY(entries(m_parent) != std::set<std::string>{"model.lattice"}); // the kill left something

  std::vector<std::string> warnings;
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights, collecting(warnings));
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(qsl(warnings), QStringList());
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
  QCOMPARE(entries(m_target), (std::set<std::string>{"graph.mlir", "weights.safetensors"}));
  QCOMPARE(readBytes(m_target / "graph.mlir"), p.graph);
}

// A forced save killed between its two renames leaves the previous folder, a note of the user's
// included, under the leftover name: the next save puts it back whole, and without force then
// refuses to replace it.
void TestArtifactSaveRecovery::recoversAForcedPreviousWhole() {
  const Payload old = referencePayload("quantized_classifier_int8");
  QVERIFY(saveArtifactFiles(m_target.string(), old.graph, old.weights).ok());
  writeBytes(m_target / "notes.txt", "kept byte for byte");
  const auto before = snapshot(m_target);
  const Payload p = referencePayload("sparse_classifier");
  QVERIFY(killedSave(m_target, p, "after-backup", true, true));
  QVERIFY(!fs::exists(m_target));

  std::vector<std::string> warnings;
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights, collecting(warnings));
  QVERIFY(!s.ok());
  QVERIFY2(s.message().find(kNotAnArtifactMarker) != std::string::npos, s.message().c_str());
  QCOMPARE(qsl(warnings), QStringList());
  QCOMPARE(snapshot(m_target), before);
  QCOMPARE(entries(m_parent), std::set<std::string>{"model.lattice"});
}

// Directories named like leftovers that no save of ours recorded, or that a running save holds,
// are never touched; other targets' leftovers are not even looked at. Each one left alone is
// named in a warning.
void TestArtifactSaveRecovery::leftoversInUseOrForeignAreKept() {
  fs::create_directories(m_parent);
  const fs::path inUse = m_parent / ".model.lattice-AbC123";
  const fs::path foreign = m_parent / ".model.lattice-zzzzzz";
  const fs::path stale = m_parent / ".model.lattice-q1w2e3";
  const fs::path otherTarget = m_parent / ".other-abcdef";
  const fs::path notOurs = m_parent / ".model.lattice-toolongname";
  for (const fs::path& d : {inUse, foreign, stale, otherTarget, notOurs})
    fs::create_directories(d);
  writeBytes(stale / "graph.mlir", "half written");
  writeBytes(foreign / "mine.txt", "user data");
  const int fd = ::open(inUse.c_str(), O_RDONLY | O_DIRECTORY);
  QVERIFY(fd >= 0);
  QCOMPARE(::flock(fd, LOCK_EX), 0);

  const Payload p = referencePayload("sparse_classifier");
  std::vector<std::string> warnings;
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights, collecting(warnings));
  ::close(fd);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(entries(m_parent), (std::set<std::string>{"model.lattice", ".model.lattice-AbC123",
                                                     ".model.lattice-zzzzzz", ".model.lattice-q1w2e3",
                                                     ".other-abcdef", ".model.lattice-toolongname"}));
  QCOMPARE(readBytes(foreign / "mine.txt"), std::string("user data"));
  QCOMPARE(readBytes(stale / "graph.mlir"), std::string("half written"));
  QCOMPARE(warnings.size(), std::size_t(3));
  for (const fs::path& d : {inUse, stale, foreign}) // in name order
    QVERIFY2(std::count_if(warnings.begin(), warnings.end(), [&](const std::string& w) {
               return w.rfind(d.string() + ": left alone: ", 0) == 0;
             }) == 1,
             d.c_str());
}

// A user's folder that happens to be named like the previous artifact a killed save moved aside
// (`.NAME-XXXXXX.previous`) is neither put in the target's place nor deleted, with or without
// force: the save writes the new artifact and names the folder in a warning
// (tests/data/repro/force_deletes_previous_named_dir.sh).
void TestArtifactSaveRecovery::userFolderNamedLikeAPreviousIsLeftAlone_data() {
  QTest::addColumn<bool>("force");
  QTest::newRow("without force") << false;
  QTest::newRow("with force") << true;
}

void TestArtifactSaveRecovery::userFolderNamedLikeAPreviousIsLeftAlone() {
  QFETCH(bool, force);
  const fs::path mine = m_parent / ".model.lattice-qwerty.previous";
  fs::create_directories(mine / "photos");
  writeBytes(mine / "notes.txt", "user data\n");
  writeBytes(mine / "photos" / "1.jpg", "jpg\n");
  const auto before = snapshot(mine);

  std::vector<std::string> warnings;
  SaveOptions options = collecting(warnings);
  options.force = force;
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights, options);
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(entries(m_target), (std::set<std::string>{"graph.mlir", "weights.safetensors"}));
  QCOMPARE(readBytes(m_target / "graph.mlir"), p.graph);
  QCOMPARE(snapshot(mine), before);
  QCOMPARE(entries(m_parent), (std::set<std::string>{"model.lattice", ".model.lattice-qwerty.previous"}));
  QCOMPARE(warnings.size(), std::size_t(1));
  QVERIFY2(warnings[0].rfind(mine.string() + ": left alone: ", 0) == 0, warnings[0].c_str());
}

// Copies of an artifact (only graph.mlir and weights.safetensors) under leftover names are not
// proof that a save made them: they are kept whether the target exists or not.
void TestArtifactSaveRecovery::userCopiesNamedLikeLeftoversAreLeftAlone_data() {
  QTest::addColumn<bool>("targetExists");
  QTest::newRow("target exists") << true;
  QTest::newRow("no target") << false;
}

void TestArtifactSaveRecovery::userCopiesNamedLikeLeftoversAreLeftAlone() {
  QFETCH(bool, targetExists);
  const Payload old = referencePayload("quantized_classifier_int8");
  const fs::path copy = m_parent / ".model.lattice-AbCdEf.previous";
  const fs::path half = m_parent / ".model.lattice-q1w2e3";
  fs::create_directories(copy);
  fs::create_directories(half);
  writeBytes(copy / "graph.mlir", old.graph);
  writeBytes(copy / "weights.safetensors", old.weightBytes);
  writeBytes(half / "graph.mlir", "half written");
  if (targetExists)
    QVERIFY(saveArtifactFiles(m_target.string(), old.graph, old.weights).ok());
  const auto copyBefore = snapshot(copy);
  const auto halfBefore = snapshot(half);

  std::vector<std::string> warnings;
  const Payload p = referencePayload("sparse_classifier");
  Status s = saveArtifactFiles(m_target.string(), p.graph, p.weights, collecting(warnings));
  QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
  QCOMPARE(readBytes(m_target / "graph.mlir"), p.graph);
  QCOMPARE(snapshot(copy), copyBefore);
  QCOMPARE(snapshot(half), halfBefore);
  QCOMPARE(entries(m_parent), (std::set<std::string>{"model.lattice", ".model.lattice-AbCdEf.previous",
                                                     ".model.lattice-q1w2e3"}));
  QCOMPARE(warnings.size(), std::size_t(2));
}

// An I/O error syncing the parent directory after the swap does not fail the save: the new
// artifact is in place and the previous one gone, and a warning says that its durability could
// not be confirmed (EIO's text is "Input/output error").
QTEST_APPLESS_MAIN(TestArtifactSaveRecovery)
#include "tst_artifact_save_recovery.moc"
