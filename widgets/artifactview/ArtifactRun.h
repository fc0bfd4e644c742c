#pragma once
/// \file ArtifactRunBar: an opened artifact executed on the CPU runtime (exec/ArtifactRun.h, as
/// `lattice-cli check ARTIFACT --inputs … --expected …` runs it). The run bar above an ArtifactView's op graph chooses the inputs (random points from the ABI, or an inputs
/// file) and, optionally, an expected-outputs file as the golden; Run (or Debug ▸ Run on Inputs,
/// Ctrl+R, with the artifact's tab current) executes it on a worker with progress and cancel
/// (Esc), and the overlay colours the op graph by each op's wall time or, for the ops that make
/// the outputs, by their error against the golden (sec. 10.6: allclose with rtol / atol).
/// Opening a conformance case (`case/expected.lattice` next to `inputs.safetensors` and
/// `expected.safetensors`) picks those files.

#include "exec/ArtifactRun.h"

#include <QFutureWatcher>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <atomic>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSpinBox;
class QToolButton;

namespace lattice::studio {

class ElidedLabel;

enum class ArtifactOverlay { Categories, Time, Accuracy };

/// The run bar of an ArtifactView: inputs, golden, Run / Cancel, progress, the result line and
/// the overlay choice. Settings (points, seed, overlay) persist.
class ArtifactRunBar : public QWidget {
  Q_OBJECT

public:
  explicit ArtifactRunBar(QWidget* parent = nullptr);
  ~ArtifactRunBar() override;

  /// The artifact the bar runs; picks a conformance case's inputs and expected outputs, else
  /// keeps random inputs and no golden. Drops the previous result.
  void setArtifact(const QString& path);

  /// Inputs file ("" for random points) and expected-outputs file ("" for none).
  void setInputsFile(const QString& file);
  void setExpectedFile(const QString& file);
  ArtifactRunRequest request() const;

  bool isRunning() const { return m_running; }
  /// The last finished (or failed) run; nullptr before one, and after the artifact changed.
  const ArtifactRunResult* result() const { return m_result.get(); }

  ArtifactOverlay overlay() const;
  void setOverlay(ArtifactOverlay overlay);

public Q_SLOTS:
  /// Starts a run on a worker (nothing when one is running).
  void run();
  /// Asks a running run to stop; it finishes with the error "cancelled".
  void cancel();

Q_SIGNALS:
  void runningChanged(bool running);
  /// A run finished or failed: result() holds it.
  void finished();
  void overlayChanged();

private:
  void onFinished();
  void updateWidgets();
  QString chooseFile(const QString& title);

  QString m_artifact;
  QString m_inputsFile;
  QString m_expectedFile;
  bool m_running = false;
  bool m_stale = false; ///< the running job was for an artifact shown before
  std::unique_ptr<ArtifactRunResult> m_result;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  std::shared_ptr<std::atomic<int>> m_progress, m_total;
  QFutureWatcher<std::shared_ptr<ArtifactRunResult>> m_watcher;

  QToolButton* m_runButton;
  QComboBox* m_inputs;
  QSpinBox* m_points;
  QSpinBox* m_seed;
  QToolButton* m_expectedButton;
  ElidedLabel* m_expectedLabel;
  QWidget* m_tolerances; ///< rtol and atol with their labels (shown with a golden)
  QLineEdit* m_rtol;
  QLineEdit* m_atol;
  QComboBox* m_overlay;
  QProgressBar* m_progressBar;
  ElidedLabel* m_status;
  class QTimer* m_poll;
};

/// The fill of op-graph node `op`'s box under `overlay` for `result`, or an invalid colour when
/// the op keeps its category style (not run, or no golden for it). Time: the op's share of the
/// slowest op's time; Accuracy: an output's error against the golden (red when it failed).
QColor artifactOverlayColour(ArtifactOverlay overlay, const ArtifactRunResult& result, int op);

/// One line of rich text for the legend ("" for Categories or without a result).
QString artifactOverlayLegend(ArtifactOverlay overlay, const ArtifactRunResult* result);

} // namespace lattice::studio
