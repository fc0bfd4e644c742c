// ExportJob: runs saveLatticeModelArtifact off the UI thread. The worker touches only the model
// (read-only), its own copy of the options and tracer, and three atomics; the UI thread polls
// the atomics with a timer and learns the end through a QFutureWatcher. It does not lower or
// write anything itself.

#include "panels/ExportJob.h"

#include "artifactview/ArtifactDocument.h"
#include "dialect/ArtifactFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace lattice::studio {

QString exportTargetProblem(const QString& directory) {
  const QString target = QDir::cleanPath(QFileInfo(directory).absoluteFilePath());
  // The save makes its folder's missing parents, then writes beside the target: the nearest
  // folder that exists must take new entries.
  QString existing = QFileInfo(target).absolutePath();
  while (!QFileInfo::exists(existing) && QFileInfo(existing).absolutePath() != existing)
    existing = QFileInfo(existing).absolutePath();
  if (!QFileInfo(existing).isDir())
    return QStringLiteral("%1: cannot export there: %2 is not a directory").arg(target, existing);
  if (::access(QFile::encodeName(existing).constData(), W_OK | X_OK) != 0)
    return QStringLiteral("%1: cannot export there: %2: %3").arg(target, existing, QString::fromLocal8Bit(std::strerror(errno)));
  if (QFileInfo::exists(target)) {
    SaveOptions check;
    check.force = true; // foreign files are the question's business; only writability here
    if (Status s = checkArtifactTarget(QFile::encodeName(target).toStdString(), check); !s)
      return QString::fromStdString(s.message());
  }
  return {};
}

ExportJob::ExportJob(QObject* parent) : QObject(parent), m_poll(new QTimer(this)) {
  m_poll->setInterval(50);
  connect(m_poll, &QTimer::timeout, this, [this] { Q_EMIT progressed(m_written.load(), m_total.load()); });
  connect(&m_watcher, &QFutureWatcherBase::finished, this, &ExportJob::onFinished);
}

ExportJob::~ExportJob() {
  if (m_running) {
    m_cancel.store(true);
    m_watcher.waitForFinished();
  }
}

bool ExportJob::start(const Model& model, const QString& directory, ExportOptions options,
                      const LatticeTracer& tracer) {
  if (m_running) return false;
  m_running = true;
  m_cancel.store(false);
  m_written.store(0);
  m_total.store(0);
  m_result = ExportResult();
  m_result.directory = directory;
  m_tracer = std::make_unique<LatticeTracer>(tracer);
  options.tracer = m_tracer.get();
  options.save.clean = true;
  if (m_faultHook) options.save.injectFault = m_faultHook;
  options.save.progress = [this](uint64_t written, uint64_t total) {
    m_written.store(written);
    m_total.store(total);
    return !m_cancel.load();
  };
  const std::string dir = QDir::cleanPath(directory).toStdString();
  const Model* m = &model;
  m_clock.start();
  m_poll->start();
  m_watcher.setFuture(QtConcurrent::run([m, dir, options]() mutable {
    Outcome outcome;
    // Called on this worker thread only, so the list needs no lock.
    options.save.warn = [&outcome](const std::string& message) {
      outcome.warnings.append(QString::fromStdString(message));
    };
    Status saved = saveLatticeModelArtifact(*m, dir, options);
    if (!saved) {
      outcome.error = QString::fromStdString(saved.message());
      outcome.cancelled = saved.code() == ErrorCode::Cancelled;
    }
    return outcome;
  }));
  return true;
}

void ExportJob::onFinished() {
  m_poll->stop();
  m_running = false;
  const Outcome outcome = m_watcher.result();
  const QString& error = outcome.error;
  m_result.warnings = outcome.warnings;
  m_result.elapsedMs = m_clock.elapsed();
  m_result.ok = error.isEmpty();
  m_result.message = error;
  // A cancel that arrived after the last progress report did not stop the save: it succeeded.
  m_result.cancelled = !m_result.ok && m_cancel.load() && outcome.cancelled;
  if (m_result.ok) {
    const QDir dir(m_result.directory);
    const QString graph = dir.filePath(artifactFileName(kArtifactGraphFile));
    m_result.graphBytes = QFileInfo(graph).size();
    m_result.weightsBytes = QFileInfo(dir.filePath(artifactFileName(kArtifactWeightFile))).size();
    QFile file(graph);
    if (file.open(QIODevice::ReadOnly)) m_result.mlirLines = file.readAll().count('\n');
  }
  Q_EMIT progressed(m_written.load(), m_total.load());
  Q_EMIT exportFinished();
}

} // namespace lattice::studio
