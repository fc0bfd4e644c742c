#pragma once
/// \file ExportJob: saveLatticeModelArtifact on a worker thread (QtConcurrent) with progress and
/// cancellation, for the export dialog. Progress is the bytes of
/// weights.safetensors written (SaveOptions::progress), polled on the UI thread; cancelling makes
/// the next progress report refuse, so the atomic save removes its temporary directory and the
/// previous artifact stays as it was.

#include "lowering/Lowering.h"
#include "trace/Tracer.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>

class QTimer;

namespace lattice::studio {

/// What a finished export reports.
struct ExportResult {
  bool ok = false;
  bool cancelled = false;
  QString directory;
  QString message; ///< the error (empty on success)
  /// What the save warned about and went on (SaveOptions::warn): a folder beside the target
  /// named like a leftover that it left alone, the new artifact in place but its durability
  /// unconfirmed. Possible on success and on failure.
  QStringList warnings;
  qint64 elapsedMs = 0;
  qint64 graphBytes = 0;   ///< size of graph.mlir
  qint64 weightsBytes = 0; ///< size of weights.safetensors
  int mlirLines = 0;
};

/// Why an export into `directory` cannot write there, checked before anything is asked or
/// written: the nearest existing folder above it is not a writable directory, or the existing
/// artifact's entries cannot be replaced. Empty when it can.
QString exportTargetProblem(const QString& directory);

class ExportJob : public QObject {
  Q_OBJECT

public:
  explicit ExportJob(QObject* parent = nullptr);
  /// Waits for a running export (it cannot be abandoned: it writes files).
  ~ExportJob() override;

  /// Starts exporting `model` into `directory` with `options` (its `tracer` is replaced by a
  /// copy of `tracer`, so the caller's may change meanwhile). `model` must stay alive and
  /// unchanged until exportFinished. False (and nothing started) while another export runs.
  bool start(const Model& model, const QString& directory, ExportOptions options,
             const LatticeTracer& tracer = LatticeTracer());
  /// Asks the running export to stop at its next progress report.
  void cancel() { m_cancel.store(true); }
  bool isRunning() const { return m_running; }
  bool cancelRequested() const { return m_cancel.load(); }
  /// Test hook handed to every export as SaveOptions::injectFault (runs on the worker thread).
  void setFaultHook(std::function<bool(std::string_view point, uint64_t bytes)> hook) {
    m_faultHook = std::move(hook);
  }
  /// The last result (valid after exportFinished).
  const ExportResult& result() const { return m_result; }

Q_SIGNALS:
  /// Bytes of weights.safetensors written so far and the total (0 until the save starts).
  void progressed(quint64 written, quint64 total);
  /// The export ended: succeeded, failed or was cancelled (see result()).
  void exportFinished();

private:
  void onFinished();

  std::atomic<bool> m_cancel{false};
  std::atomic<quint64> m_written{0};
  std::atomic<quint64> m_total{0};
  std::unique_ptr<LatticeTracer> m_tracer;
  std::function<bool(std::string_view, uint64_t)> m_faultHook;
  /// What the worker hands back: the error (empty on success) and the warnings.
  struct Outcome {
    QString error;
    bool cancelled = false; ///< the error is the save's cancel (ErrorCode::Cancelled)
    QStringList warnings;
  };
  QFutureWatcher<Outcome> m_watcher;
  QTimer* m_poll;
  QElapsedTimer m_clock;
  bool m_running = false;
  ExportResult m_result;
};

} // namespace lattice::studio
