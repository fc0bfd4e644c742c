#pragma once
/// \file ArtifactRun: an opened artifact executed on the CPU runtime, as
/// `lattice-cli run` / `lattice-cli check ARTIFACT --inputs … --expected …` do it. The run bar
/// above an ArtifactView's op graph chooses the inputs (random points from the ABI, or an inputs
/// file) and, optionally, an expected-outputs file as the golden; Run (or Debug ▸ Run on Inputs,
/// Ctrl+R, with the artifact's tab current) executes it on a worker with progress and cancel
/// (Esc), and the overlay colours the op graph by each op's wall time or, for the ops that make
/// the outputs, by their error against the golden (sec. 10.6: allclose with rtol / atol).
/// Opening a conformance case (`case/expected.lattice` next to `inputs.safetensors` and
/// `expected.safetensors`) picks those files.

#include "runtime/Compare.h"

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

/// What to run: the artifact, its inputs and the golden.
struct ArtifactRunRequest {
  QString artifact;    ///< an artifact directory or its graph.mlir
  QString inputsFile;  ///< an inputs.safetensors; empty: random points from the ABI
  qint64 points = 1000;
  quint64 seed = 0;
  QString expectedFile; ///< an expected-outputs .safetensors; empty: no golden
  double rtol = 1e-5;   ///< numpy.allclose's defaults, as `lattice-cli check`
  double atol = 1e-8;
};

/// What a run gives back.
struct ArtifactRunResult {
  QString error;     ///< empty when the run finished
  int failedOp = -1; ///< the plan op that raised `error` (-1: before any op ran)
  QString failedOpName;
  std::vector<double> opMs; ///< per plan op: its wall time, -1 when it did not run
  double totalMs = 0.0;
  /// Per output when an expected file was given (runtime::checkOutputs), with the plan op that
  /// produced it (-1: an argument returned as is).
  std::vector<runtime::OutputCheck> checks;
  std::vector<int> checkOps;
  /// Outputs that hold NaN or ±inf (runtime::nonFiniteOutputs), after a finished run.
  QStringList warnings;
  bool hasGolden() const { return !checks.empty(); }
  bool allOk() const;
};

/// Runs `request` to the end (or until `cancel` is set: error "cancelled"), storing the ops done
/// in `progress` and the op count in `total` as it goes. Runs on any thread.
ArtifactRunResult runArtifact(const ArtifactRunRequest& request, const std::atomic<bool>& cancel,
                              std::atomic<int>& progress, std::atomic<int>& total);

/// The conformance layout around an artifact: `inputs.safetensors` and `expected.safetensors` in
/// the directory that holds it (empty when absent), and the case's tolerances from a
/// `manifest.json` two levels up whose `expected_artifact` is this artifact (else numpy's).
struct ConformanceFiles {
  QString inputs;
  QString expected;
  double rtol = 1e-5;
  double atol = 1e-8;
  bool fromManifest = false;
};
ConformanceFiles conformanceFilesNextTo(const QString& artifact);

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
  QLabel* m_expectedLabel;
  QLineEdit* m_rtol;
  QLineEdit* m_atol;
  QComboBox* m_overlay;
  QProgressBar* m_progressBar;
  QLabel* m_status;
  class QTimer* m_poll;
};

/// The fill of op-graph node `op`'s box under `overlay` for `result`, or an invalid colour when
/// the op keeps its category style (not run, or no golden for it). Time: the op's share of the
/// slowest op's time; Accuracy: an output's error against the golden (red when it failed).
QColor artifactOverlayColour(ArtifactOverlay overlay, const ArtifactRunResult& result, int op);

/// One line of rich text for the legend ("" for Categories or without a result).
QString artifactOverlayLegend(ArtifactOverlay overlay, const ArtifactRunResult* result);

} // namespace lattice::studio
