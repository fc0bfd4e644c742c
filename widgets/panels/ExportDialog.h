#pragma once
/// \file ExportDialog: File ▸ Export Artifact… It starts from the archive's
/// lowering hints (or the options last used for this model, kept in QSettings), lets the user
/// edit them (batch size; input dtype; output names; quantization none/int8/int4 with group size
/// and scale dtype; the target directory) and the inputs (an InputSpecEditor over the session's
/// one input list, which the interpreter uses too: add, remove, reorder; per input sparse/dense,
/// dtype, channels, stride or tensor type), then runs saveLatticeModelArtifact
/// on a worker thread with a cancellable progress dialog. Cancelling leaves no partial artifact
/// (the previous one stays). At the end a summary page offers "Open Artifact".
///
/// Everything the buttons do is reachable programmatically (setters, startExport(),
/// cancelExport()), so tests and automation drive the dialog without clicking.

#include "lowering/Lowering.h"

#include <QDialog>
#include <QStringList>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressDialog;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableView;

namespace lattice::studio {

class ExportJob;
class InputSpecEditor;
class InputSpecModel;
class StudioSession;

class ExportDialog : public QDialog {
  Q_OBJECT

public:
  explicit ExportDialog(StudioSession* session, QWidget* parent = nullptr);
  ~ExportDialog() override;

  /// The session's inputs (edits apply to the session at once).
  InputSpecModel* inputModel() const { return m_inputs; }
  InputSpecEditor* inputEditor() const { return m_inputEditor; }
  ExportJob* job() const { return m_job; }

  QString targetDirectory() const;
  void setTargetDirectory(const QString& directory);
  /// nullopt: no static batch size (only offered when the archive has none).
  void setBatchSize(std::optional<int64_t> batchSize);
  /// nullopt: the inputs' dtype (or the archive's hint).
  void setInputDtype(std::optional<QString> dtype);
  /// Bits 4 or 8, or nullopt for none (not offered when the archive asks for quantization).
  void setQuantization(std::optional<int> bits, int groupSize = 32,
                       const QString& scaleDtype = QStringLiteral("f16"));
  /// A per-layer plan (the Quantization dock's) replacing the quantization fields, described as
  /// `summary` ("mixed plan: 12 int4, 3 int8, 2 dense"); null: the fields decide.
  void setQuantizationPlan(std::shared_ptr<const QuantizationPlan> plan, const QString& summary);
  /// Empty: the archive's names or the defaults (`output`, `output_0`, ...).
  void setOutputNames(const QStringList& names);
  void setValidate(bool validate);

  /// The options the fields describe (without the target directory); an error message when a
  /// field is invalid.
  Expected<ExportOptions> exportOptions() const;
  bool isExporting() const;
  /// True while the summary page is shown.
  bool showsSummary() const;

public Q_SLOTS:
  /// The Export button: validates, remembers the options, starts the worker and the progress
  /// dialog. Emits exportFailed at once when the fields are invalid or the target cannot be
  /// replaced. A target folder that holds anything but an artifact is replaced only after the
  /// user has seen what would be deleted and said yes (the question defaults to No); hidden,
  /// the dialog never replaces such a folder.
  void startExport();
  /// The progress dialog's Cancel.
  void cancelExport();
  /// Opens a directory chooser for the target.
  void browse();

Q_SIGNALS:
  /// An artifact was written into `directory`.
  void artifactExported(const QString& directory);
  /// The export failed or was cancelled (`message` says which).
  void exportFailed(const QString& message);
  /// The summary's "Open Artifact" button.
  void openArtifactRequested(const QString& directory);

protected:
  /// The size it was left at is where it opens next time.
  void hideEvent(QHideEvent* event) override;

private:
  void buildUi();
  void loadDefaults();
  void loadSettings();
  void saveSettings() const;
  QString settingsKey() const;
  void onFinished();
  void onProgress(quint64 written, quint64 total);
  void showSummary();
  bool confirmDeletion(const QString& target, const std::vector<std::string>& entries);

  StudioSession* m_session;
  InputSpecEditor* m_inputEditor;
  InputSpecModel* m_inputs;
  ExportJob* m_job;
  bool m_archiveQuantizes = false;
  bool m_archiveHasBatch = false;

  QStackedWidget* m_pages = nullptr;
  QTableView* m_inputView = nullptr;
  QSpinBox* m_batch = nullptr;
  QComboBox* m_inputDtype = nullptr;
  QLineEdit* m_outputNames = nullptr;
  QComboBox* m_quantize = nullptr;
  QSpinBox* m_groupSize = nullptr;
  QComboBox* m_scaleDtype = nullptr;
  QCheckBox* m_validate = nullptr;
  QLabel* m_planLabel = nullptr;
  std::shared_ptr<const QuantizationPlan> m_plan;
  QString m_planSummary;
  QLineEdit* m_target = nullptr;
  QLabel* m_error = nullptr;
  QPushButton* m_exportButton = nullptr;
  QLabel* m_summary = nullptr;
  QProgressDialog* m_progress = nullptr;
};

} // namespace lattice::studio
