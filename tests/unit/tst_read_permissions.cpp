// A model or an artifact that cannot be read says so in one wording, naming the file:
// "FILE: cannot read file: Permission denied" — for an unreadable model.json or graph.mlir and
// for a directory that cannot be searched. Root reads everything, so the readers run in a child
// process that gives up root (as nobody) when the test runs as root.

#include "diff/ArtifactDiff.h"
#include "model/Archive.h"
#include "verify/ArtifactValidation.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cstring>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using lattice::Expected;

namespace {

/// `read()`'s message, computed without root's permissions (in a child as nobody when root).
std::string withoutRoot(const std::function<std::string()>& read) {
  if (::geteuid() != 0) return read();
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    const std::string message = read();
    const ssize_t written = ::write(fds[1], message.data(), message.size());
    ::_exit(written == static_cast<ssize_t>(message.size()) ? 0 : 3);
  }
  ::close(fds[1]);
  std::string out;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

bool copyTree(const QString& from, const QString& to) {
  QDir().mkpath(to);
  for (const QFileInfo& f : QDir(from).entryInfoList(QDir::Files))
    if (!QFile::copy(f.filePath(), to + QLatin1Char('/') + f.fileName())) return false;
  return true;
}

std::string archiveMessage(const QString& dir) {
  Expected<lattice::Model> model = lattice::readArchive(dir.toStdString());
  return model ? std::string("read") : model.message();
}

std::string artifactMessage(const QString& dir) {
  Expected<lattice::LoadedArtifact> artifact = lattice::loadArtifact(dir.toStdString());
  std::string out = artifact ? std::string("read") : artifact.message();
  const lattice::ArtifactValidation v = lattice::validateArtifact(dir.toStdString());
  out += "\n";
  if (!v.diagnostics.empty()) out += v.diagnostics.front().file + ": " + v.diagnostics.front().message;
  return out;
}

} // namespace

class TestReadPermissions : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void unreadableFilesAndFolders();
};

void TestReadPermissions::unreadableFilesAndFolders() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  ::chmod(QFile::encodeName(tmp.path()).constData(), 0755); // nobody reaches inside
  const QString model = tmp.filePath(QStringLiteral("m.ltfx"));
  const QString artifact = tmp.filePath(QStringLiteral("a.lattice"));
  QVERIFY(copyTree(QStringLiteral(LATTICE_TEST_DATA_DIR "/real-torch-lattice/transposed.ltfx"), model));
  QVERIFY(copyTree(QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/sparse_classifier/expected.lattice"), artifact));
  for (const QString& dir : {model, artifact}) ::chmod(QFile::encodeName(dir).constData(), 0755);
  const std::string denied = std::strerror(EACCES);
  const std::string json = QString(model + QStringLiteral("/model.json")).toStdString();
  const std::string graph = QString(artifact + QStringLiteral("/graph.mlir")).toStdString();

  // The file itself unreadable.
  ::chmod(json.c_str(), 0);
  ::chmod(graph.c_str(), 0);
  QCOMPARE(withoutRoot([&] { return archiveMessage(model); }), json + ": cannot read file: " + denied);
  QCOMPARE(withoutRoot([&] { return artifactMessage(artifact); }),
           graph + ": cannot read file: " + denied + "\n" + graph + ": cannot read file: " + denied);

  // The folder cannot be searched: the same words, not "missing".
  ::chmod(json.c_str(), 0644);
  ::chmod(graph.c_str(), 0644);
  ::chmod(QFile::encodeName(model).constData(), 0);
  ::chmod(QFile::encodeName(artifact).constData(), 0);
  QCOMPARE(withoutRoot([&] { return archiveMessage(model); }), json + ": cannot read file: " + denied);
  QCOMPARE(withoutRoot([&] { return artifactMessage(artifact); }),
           graph + ": cannot read file: " + denied + "\n" + graph + ": cannot read file: " + denied);
  for (const QString& dir : {model, artifact}) ::chmod(QFile::encodeName(dir).constData(), 0755);
}

QTEST_APPLESS_MAIN(TestReadPermissions)
#include "tst_read_permissions.moc"
