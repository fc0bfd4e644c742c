// FileChangeWatcher: QFileSystemWatcher on each file, its folder and the folder above, with a
// settle timer and a comparison of each file's stat() with the state before it was read. It does
// not read the files: what changed is for its owner to read again.

#include "session/FileChangeWatcher.h"

#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

#include <sys/stat.h>

namespace lattice::studio {


namespace {

constexpr int kDefaultSettleMs = 400;

/// The folders whose entries a replace by rename changes: the file's own and the one above (an
/// artifact folder swapped whole).
QStringList foldersOf(const QString& file) {
  const QString folder = QFileInfo(file).absolutePath();
  QStringList out{folder};
  const QString above = QFileInfo(folder).absolutePath();
  if (above != folder) out << above;
  return out;
}

} // namespace

FileChangeWatcher::FileState FileChangeWatcher::stateOf(const QString& file) {
  FileState state;
  struct stat info {};
  if (::stat(QFile::encodeName(file).constData(), &info) != 0) return state;
  state.exists = true;
  state.device = static_cast<quint64>(info.st_dev);
  state.inode = static_cast<quint64>(info.st_ino);
  state.size = static_cast<qint64>(info.st_size);
  state.modifiedNs = qint64(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
  state.changedNs = qint64(info.st_ctim.tv_sec) * 1000000000 + info.st_ctim.tv_nsec;
  return state;
}

FileChangeWatcher::Snapshot FileChangeWatcher::snapshot(const QStringList& files) {
  Snapshot out;
  out.files = files;
  out.states.reserve(static_cast<std::size_t>(files.size()));
  for (const QString& file : files)
    out.states.push_back(stateOf(file));
  return out;
}

FileChangeWatcher::FileChangeWatcher(QObject* parent)
    : QObject(parent), m_watcher(new QFileSystemWatcher(this)), m_settle(new QTimer(this)) {
  m_settle->setSingleShot(true);
  m_settle->setInterval(kDefaultSettleMs);
  // Every event restarts the timer: a burst of writes ends in one check.
  connect(m_watcher, &QFileSystemWatcher::fileChanged, m_settle, qOverload<>(&QTimer::start));
  connect(m_watcher, &QFileSystemWatcher::directoryChanged, m_settle, qOverload<>(&QTimer::start));
  connect(m_settle, &QTimer::timeout, this, &FileChangeWatcher::check);
}

int FileChangeWatcher::settleTime() const {
  return m_settle->interval();
}

void FileChangeWatcher::setSettleTime(int ms) {
  m_settle->setInterval(ms < 0 ? 0 : ms);
}

void FileChangeWatcher::watch(const Snapshot& read) {
  m_settle->stop();
  const QStringList watched = m_watcher->files() + m_watcher->directories();
  if (!watched.isEmpty()) m_watcher->removePaths(watched);
  m_watchedInodes.clear();
  m_read = read;
  m_reported.clear();
  rewatch();
  // A file written while it was read differs from the state taken before: a check after the
  // settle time reports it, though its events came before this call.
  if (!m_read.files.isEmpty()) m_settle->start();
}

void FileChangeWatcher::addFile(const QString& file) {
  if (file.isEmpty() || m_read.files.contains(file)) return;
  m_read.files << file;
  m_read.states.push_back(stateOf(file));
  if (!m_reported.empty()) m_reported.push_back(m_read.states.back());
  rewatch();
}

void FileChangeWatcher::acceptCurrent() {
  m_read.states = currentStates();
  m_reported.clear();
  rewatch();
}

std::vector<FileChangeWatcher::FileState> FileChangeWatcher::currentStates() const {
  return snapshot(m_read.files).states;
}

QStringList FileChangeWatcher::changedFiles() const {
  QStringList out;
  const std::vector<FileState> now = currentStates();
  for (std::size_t i = 0; i < now.size(); ++i)
    if (now[i] != m_read.states[i]) out << m_read.files[static_cast<int>(i)];
  return out;
}

void FileChangeWatcher::rewatch() {
  // A watch follows an inode: the watcher drops a path whose file was deleted or renamed away,
  // and a path whose folder was renamed away keeps watching the old file. Each path is watched
  // again when the inode at it is not the one its watch was added for.
  QStringList paths;
  for (const QString& file : std::as_const(m_read.files)) {
    paths << file;
    paths << foldersOf(file);
  }
  paths.removeDuplicates();
  const QStringList watched = m_watcher->files() + m_watcher->directories();
  QStringList stale;
  QStringList missing;
  for (const QString& path : std::as_const(paths)) {
    const FileState state = stateOf(path);
    const bool isWatched = watched.contains(path);
    if (!state.exists) continue;
    if (isWatched && m_watchedInodes.value(path) == state.inode) continue;
    if (isWatched) stale << path;
    missing << path;
    m_watchedInodes.insert(path, state.inode);
  }
  if (!stale.isEmpty()) m_watcher->removePaths(stale);
  if (!missing.isEmpty()) m_watcher->addPaths(missing);
}

void FileChangeWatcher::check() {
  rewatch();
  const std::vector<FileState> now = currentStates();
  QStringList differ;
  for (std::size_t i = 0; i < now.size(); ++i)
    if (now[i] != m_read.states[i]) differ << m_read.files[static_cast<int>(i)];
  if (differ.isEmpty()) {
    if (m_reported.empty()) return;
    m_reported.clear();
    Q_EMIT changed(QStringList()); // back to what was read
    return;
  }
  if (now == m_reported) return; // reported already
  m_reported = now;
  Q_EMIT changed(differ);
}

} // namespace lattice::studio
