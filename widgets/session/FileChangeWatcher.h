#pragma once
/// \file FileChangeWatcher: whether the files a document was read from are still what was read.

#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>

#include <vector>

class QFileSystemWatcher;
class QTimer;

namespace lattice::studio {

/// Watches the files a document was read from (a model, an artifact) and says, once the writes
/// to them have settled, that they are no longer what was read. QFileSystemWatcher watches each
/// file, its folder and the folder above: a program that replaces a file or a whole artifact
/// folder by a rename (an atomic save) leaves the old watches on the old inodes, so every check
/// adds the paths again. Every event restarts a settle timer (a training script writing a large
/// file makes one report, not hundreds); when it fires, each file's identity (device, inode),
/// size and modification and change times are compared with the state recorded before it was
/// read. A file that did not exist counts as changed once it does.
class FileChangeWatcher : public QObject {
  Q_OBJECT

public:
  /// One file's identity, size and times (exists false: no such file).
  struct FileState {
    bool exists = false;
    quint64 device = 0;
    quint64 inode = 0;
    qint64 size = -1;
    qint64 modifiedNs = 0;
    qint64 changedNs = 0;
    bool operator==(const FileState& o) const {
      return exists == o.exists && device == o.device && inode == o.inode && size == o.size &&
             modifiedNs == o.modifiedNs && changedNs == o.changedNs;
    }
    bool operator!=(const FileState& o) const { return !(*this == o); }
  };
  /// The state of a set of files at one moment: taken before they are read, so a write while
  /// they are read shows as a change afterwards.
  struct Snapshot {
    QStringList files;
    std::vector<FileState> states;
  };
  static FileState stateOf(const QString& file);
  static Snapshot snapshot(const QStringList& files);

  explicit FileChangeWatcher(QObject* parent = nullptr);

  /// Watches `read.files` (absolute paths), comparing them with `read.states` from now on; no
  /// change is pending afterwards until the check this schedules (after the settle time) finds a
  /// file written while it was read. An empty snapshot watches nothing.
  void watch(const Snapshot& read);
  void watch(const QStringList& files) { watch(snapshot(files)); }
  /// Adds `file`, as it is now (nothing when already watched).
  void addFile(const QString& file);
  QStringList files() const { return m_read.files; }
  /// Takes the files as they are now for what was read (Ignore): no change is pending.
  void acceptCurrent();
  /// The watched files that differ from what was read, checked now.
  QStringList changedFiles() const;
  /// True from a changed() with files until acceptCurrent() or watch().
  bool hasPendingChange() const { return !m_reported.empty(); }
  /// How long no event may touch the files before a change is reported (ms, default 400).
  int settleTime() const;
  void setSettleTime(int ms);
  /// Compares the files now and reports a change not reported yet (the settle timer calls it).
  void check();

Q_SIGNALS:
  /// `files` differ from what was read and no event touched them for settleTime(). Emitted
  /// again when they change further; with an empty list when they are back to what was read.
  void changed(const QStringList& files);

private:
  /// Adds the files, their folders and the folders above to the watcher where it lost them.
  void rewatch();
  std::vector<FileState> currentStates() const;

  QFileSystemWatcher* m_watcher;
  QTimer* m_settle;
  Snapshot m_read;
  std::vector<FileState> m_reported; ///< the states last reported as changed; empty when none
  QHash<QString, quint64> m_watchedInodes; ///< the inode each watched path had when added
};

} // namespace lattice::studio
