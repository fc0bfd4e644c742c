// ExportDialog: the form (built here), option assembly and persistence, and the hand-off to
// ExportJob; the summary page. It does not lower or write anything itself. The inputs are the
// session's one list (an InputSpecEditor, shared with the interpreter and remembered per model
// by the session); the other options are the dialog's own, remembered per model here.

#include "panels/ExportDialog.h"

#include "StudioSession.h"
#include "WindowFit.h"
#include "panels/ExportJob.h"
#include "panels/InputSpecEditor.h"
#include "panels/InputSpecModel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace lattice::studio {

namespace {
/// How many entries of a folder to be replaced the question lists.
constexpr std::size_t kListedEntries = 50;
} // namespace


namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// A default artifact directory name for a model reference ("example:chain:3" → "chain_3.lattice").
QString artifactName(const QString& reference) {
  QString base = reference;
  if (base.startsWith(QStringLiteral("example:")))
    base = base.mid(8);
  else
    base = QFileInfo(QDir::cleanPath(base)).completeBaseName();
  base.replace(QLatin1Char(':'), QLatin1Char('_'));
  if (base.isEmpty() || base == QStringLiteral("model")) {
    // An archive is usually <case>/model.ltfx: name the artifact after the folder.
    const QString folder = QFileInfo(QFileInfo(QDir::cleanPath(reference)).path()).fileName();
    base = folder.isEmpty() ? QStringLiteral("model") : folder;
  }
  return base + QStringLiteral(".lattice");
}

QString humanBytes(qint64 bytes) {
  return QLocale().formattedDataSize(bytes);
}

/// The save's warnings under the summary's table, one item each (empty when there are none).
QString warningsHtml(const QStringList& warnings) {
  if (warnings.isEmpty()) return {};
  QString html = QStringLiteral("<p><b>Warnings</b></p><ul>");
  for (const QString& w : warnings) html += QStringLiteral("<li>%1</li>").arg(w.toHtmlEscaped());
  return html + QStringLiteral("</ul>");
}

} // namespace

ExportDialog::ExportDialog(StudioSession* session, QWidget* parent)
    : QDialog(parent), m_session(session), m_inputEditor(new InputSpecEditor(session, this)),
      m_inputs(m_inputEditor->model()), m_job(new ExportJob(this)) {
  setObjectName(QStringLiteral("exportDialog"));
  setWindowTitle(QStringLiteral("Export Lattice Artifact"));
  buildUi();
  loadDefaults();
  loadSettings();
  connect(m_job, &ExportJob::progressed, this, &ExportDialog::onProgress);
  connect(m_job, &ExportJob::exportFinished, this, &ExportDialog::onFinished);
}

ExportDialog::~ExportDialog() = default;

void ExportDialog::buildUi() {
  m_pages = new QStackedWidget(this);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_pages);

  // --- the form ---
  auto* form = new QWidget(m_pages);
  auto* formLayout = new QVBoxLayout(form);
  auto* model = new QLabel(form);
  model->setText(QStringLiteral("Model: <b>%1</b>").arg(m_session->modelReference().toHtmlEscaped()));
  formLayout->addWidget(model);

  auto* inputsLabel = new QLabel(QStringLiteral("Inputs (the forward signature's order; shared with the "
                                                "interpreter, remembered for this model):"),
                                 form);
  inputsLabel->setWordWrap(true);
  formLayout->addWidget(inputsLabel);
  m_inputEditor->setParent(form);
  m_inputView = m_inputEditor->view();
  formLayout->addWidget(m_inputEditor, 1);

  auto* options = new QFormLayout();
  m_batch = new QSpinBox(form);
  m_batch->setRange(-1, 1 << 20);
  m_batch->setSpecialValueText(QStringLiteral("none"));
  m_batch->setToolTip(QStringLiteral("static batch size for global pools"));
  options->addRow(QStringLiteral("Batch size:"), m_batch);

  m_inputDtype = new QComboBox(form);
  m_inputDtype->addItem(QStringLiteral("from the inputs"), QString());
  m_inputDtype->addItem(QStringLiteral("f32"), QStringLiteral("f32"));
  m_inputDtype->addItem(QStringLiteral("f16"), QStringLiteral("f16"));
  options->addRow(QStringLiteral("Input dtype:"), m_inputDtype);

  m_outputNames = new QLineEdit(form);
  m_outputNames->setPlaceholderText(QStringLiteral("output (or output_0, output_1, …)"));
  m_outputNames->setToolTip(QStringLiteral("comma-separated; empty for the defaults"));
  options->addRow(QStringLiteral("Output names:"), m_outputNames);

  m_quantize = new QComboBox(form);
  m_quantize->addItem(QStringLiteral("none"), 0);
  m_quantize->addItem(QStringLiteral("int8"), 8);
  m_quantize->addItem(QStringLiteral("int4"), 4);
  m_groupSize = new QSpinBox(form);
  m_groupSize->setRange(1, 1 << 16);
  m_groupSize->setValue(32);
  m_scaleDtype = new QComboBox(form);
  m_scaleDtype->addItems({QStringLiteral("f16"), QStringLiteral("f32")});
  auto* quantRow = new QHBoxLayout();
  quantRow->addWidget(m_quantize);
  quantRow->addWidget(new QLabel(QStringLiteral("group size"), form));
  quantRow->addWidget(m_groupSize);
  quantRow->addWidget(new QLabel(QStringLiteral("scale dtype"), form));
  quantRow->addWidget(m_scaleDtype);
  quantRow->addStretch(1);
  options->addRow(QStringLiteral("Quantization:"), quantRow);
  m_planLabel = new QLabel(form);
  m_planLabel->setObjectName(QStringLiteral("exportPlan"));
  m_planLabel->hide();
  options->addRow(QString(), m_planLabel);
  auto updateQuant = [this] {
    const bool on = m_quantize->currentData().toInt() != 0 && !m_plan;
    m_groupSize->setEnabled(on);
    m_scaleDtype->setEnabled(on);
  };
  connect(m_quantize, &QComboBox::currentIndexChanged, this, updateQuant);
  updateQuant();

  m_validate = new QCheckBox(QStringLiteral("validate the written payload"), form);
  m_validate->setChecked(true);
  options->addRow(QString(), m_validate);

  m_target = new QLineEdit(form);
  auto* browseButton = new QPushButton(QStringLiteral("Browse…"), form);
  connect(browseButton, &QPushButton::clicked, this, &ExportDialog::browse);
  auto* targetRow = new QHBoxLayout();
  targetRow->addWidget(m_target, 1);
  targetRow->addWidget(browseButton);
  options->addRow(QStringLiteral("Artifact directory:"), targetRow);
  formLayout->addLayout(options);

  m_error = new QLabel(form);
  m_error->setStyleSheet(QStringLiteral("color: #b71c1c"));
  m_error->setWordWrap(true);
  m_error->hide();
  formLayout->addWidget(m_error);

  auto* buttons = new QDialogButtonBox(form);
  m_exportButton = buttons->addButton(QStringLiteral("Export"), QDialogButtonBox::AcceptRole);
  buttons->addButton(QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, this, &ExportDialog::startExport);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  formLayout->addWidget(buttons);
  m_pages->addWidget(form);

  // --- the summary ---
  auto* summary = new QWidget(m_pages);
  auto* summaryLayout = new QVBoxLayout(summary);
  m_summary = new QLabel(summary);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setWordWrap(true);
  summaryLayout->addWidget(m_summary, 1);
  auto* summaryButtons = new QDialogButtonBox(summary);
  QPushButton* open =
      summaryButtons->addButton(QStringLiteral("Open Artifact"), QDialogButtonBox::AcceptRole);
  summaryButtons->addButton(QDialogButtonBox::Close);
  connect(open, &QPushButton::clicked, this, [this] {
    Q_EMIT openArtifactRequested(m_job->result().directory);
    accept();
  });
  connect(summaryButtons, &QDialogButtonBox::rejected, this, &QDialog::accept);
  summaryLayout->addWidget(summaryButtons);
  m_pages->addWidget(summary);

  restoreWindowSize(this, QStringLiteral("export"), QSize(680, 560));
}

void ExportDialog::hideEvent(QHideEvent* event) {
  saveWindowSize(this, QStringLiteral("export"));
  QDialog::hideEvent(event);
}

void ExportDialog::loadDefaults() {
  const Model* model = m_session->model();
  const ExportOptions& current = m_session->exportOptions();
  const LoweringOptions hints = model && model->lowering ? *model->lowering : LoweringOptions{};
  m_archiveQuantizes = hints.quantizeBits.has_value();
  m_archiveHasBatch = hints.batchSize.has_value();

  // The inputs are the session's (m_inputs follows them).
  // ExportOptions can only add to the archive's hints, not remove them: "none" is offered only
  // when the archive has no batch size / no quantization.
  m_batch->setMinimum(m_archiveHasBatch ? 0 : -1);
  setBatchSize(current.batchSize ? current.batchSize : hints.batchSize);
  setInputDtype(current.inputDtype ? std::optional<QString>(qs(*current.inputDtype)) : std::nullopt);
  std::optional<int> bits;
  if (current.quantizeBits)
    bits = static_cast<int>(*current.quantizeBits);
  else if (hints.quantizeBits)
    bits = *hints.quantizeBits;
  setQuantization(bits, static_cast<int>(current.groupSize.value_or(hints.quantizeGroupSize)),
                  qs(current.scaleDtype.value_or(hints.quantizeScaleDtype)));
  if (auto* items = qobject_cast<QStandardItemModel*>(m_quantize->model()); items && m_archiveQuantizes) {
    items->item(0)->setEnabled(false);
    items->item(0)->setToolTip(QStringLiteral("the archive asks for quantization"));
  }
  QStringList names;
  if (const auto& list = current.outputNames ? current.outputNames : hints.outputNames)
    for (const std::string& n : *list)
      names << qs(n);
  setOutputNames(names);
  setValidate(current.validate);
}

QString ExportDialog::settingsKey() const {
  const QByteArray hash =
      QCryptographicHash::hash(m_session->modelReference().toUtf8(), QCryptographicHash::Sha1)
          .toHex()
          .left(16);
  return QStringLiteral("export/models/") + QString::fromLatin1(hash);
}

void ExportDialog::loadSettings() {
  QSettings settings;
  const QString lastParent = settings.value(QStringLiteral("export/lastParent"), QDir::homePath()).toString();
  QString target = QDir(lastParent).filePath(artifactName(m_session->modelReference()));
  settings.beginGroup(settingsKey());
  if (settings.value(QStringLiteral("reference")).toString() == m_session->modelReference()) {
    target = settings.value(QStringLiteral("directory"), target).toString();
    const QVariant batch = settings.value(QStringLiteral("batchSize"));
    if (batch.isValid())
      setBatchSize(batch.toLongLong() < 0 ? std::nullopt : std::optional<int64_t>(batch.toLongLong()));
    const QString dtype = settings.value(QStringLiteral("inputDtype")).toString();
    setInputDtype(dtype.isEmpty() ? std::nullopt : std::optional<QString>(dtype));
    const int bits = settings.value(QStringLiteral("quantizeBits"), m_quantize->currentData()).toInt();
    setQuantization(bits ? std::optional<int>(bits) : std::nullopt,
                    settings.value(QStringLiteral("groupSize"), m_groupSize->value()).toInt(),
                    settings.value(QStringLiteral("scaleDtype"), m_scaleDtype->currentText()).toString());
    setOutputNames(settings.value(QStringLiteral("outputNames")).toStringList());
    setValidate(settings.value(QStringLiteral("validate"), true).toBool());
  }
  settings.endGroup();
  m_target->setText(QDir::toNativeSeparators(target));
}

void ExportDialog::saveSettings() const {
  QSettings settings;
  const QString target = targetDirectory();
  settings.setValue(QStringLiteral("export/lastParent"), QFileInfo(target).absolutePath());
  settings.beginGroup(settingsKey());
  settings.setValue(QStringLiteral("reference"), m_session->modelReference());
  settings.setValue(QStringLiteral("directory"), target);
  settings.remove(QStringLiteral("inputs")); // the session remembers them now (inputSettingsGroup)
  settings.setValue(QStringLiteral("batchSize"), m_batch->value());
  settings.setValue(QStringLiteral("inputDtype"), m_inputDtype->currentData().toString());
  settings.setValue(QStringLiteral("quantizeBits"), m_quantize->currentData().toInt());
  settings.setValue(QStringLiteral("groupSize"), m_groupSize->value());
  settings.setValue(QStringLiteral("scaleDtype"), m_scaleDtype->currentText());
  QStringList names;
  for (const QString& n : m_outputNames->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
    names << n.trimmed();
  settings.setValue(QStringLiteral("outputNames"), names);
  settings.setValue(QStringLiteral("validate"), m_validate->isChecked());
  settings.endGroup();
}

QString ExportDialog::targetDirectory() const {
  return QDir::cleanPath(QDir::fromNativeSeparators(m_target->text().trimmed()));
}

void ExportDialog::setTargetDirectory(const QString& directory) {
  m_target->setText(QDir::toNativeSeparators(directory));
}

void ExportDialog::setBatchSize(std::optional<int64_t> batchSize) {
  m_batch->setValue(batchSize ? static_cast<int>(*batchSize) : m_batch->minimum());
}

void ExportDialog::setInputDtype(std::optional<QString> dtype) {
  const int index = dtype ? m_inputDtype->findData(*dtype) : 0;
  m_inputDtype->setCurrentIndex(index < 0 ? 0 : index);
}

void ExportDialog::setQuantization(std::optional<int> bits, int groupSize, const QString& scaleDtype) {
  int index = m_quantize->findData(bits ? *bits : 0);
  if (index == 0 && m_archiveQuantizes)
    index = m_quantize->currentIndex() > 0 ? m_quantize->currentIndex() : 1;
  m_quantize->setCurrentIndex(index < 0 ? 0 : index);
  m_groupSize->setValue(groupSize);
  const int scale = m_scaleDtype->findText(scaleDtype);
  if (scale >= 0) m_scaleDtype->setCurrentIndex(scale);
}

void ExportDialog::setQuantizationPlan(std::shared_ptr<const QuantizationPlan> plan, const QString& summary) {
  m_plan = std::move(plan);
  m_planSummary = summary;
  m_quantize->setEnabled(!m_plan);
  m_groupSize->setEnabled(!m_plan && m_quantize->currentData().toInt() != 0);
  m_scaleDtype->setEnabled(m_groupSize->isEnabled());
  m_planLabel->setText(QStringLiteral("Quantization dock's %1").arg(summary));
  m_planLabel->setVisible(m_plan != nullptr);
}

void ExportDialog::setOutputNames(const QStringList& names) {
  m_outputNames->setText(names.join(QStringLiteral(", ")));
}

void ExportDialog::setValidate(bool validate) {
  m_validate->setChecked(validate);
}

Expected<ExportOptions> ExportDialog::exportOptions() const {
  ExportOptions o;
  if (m_inputs->specs().empty())
    return makeError("the model has no example inputs: add one row per forward input in the Inputs table "
                     "(Add Input)");
  o.inputs = m_inputs->specs();
  if (m_batch->value() >= 0) o.batchSize = m_batch->value();
  const QString dtype = m_inputDtype->currentData().toString();
  if (!dtype.isEmpty()) o.inputDtype = dtype.toStdString();
  const int bits = m_quantize->currentData().toInt();
  if (m_plan) {
    o.quantizationPlan = m_plan; // per layer, instead of the fields
  } else {
    if (bits) o.quantizeBits = bits;
    o.groupSize = m_groupSize->value();
    o.scaleDtype = m_scaleDtype->currentText().toStdString();
  }
  std::vector<std::string> names;
  for (const QString& part : m_outputNames->text().split(QLatin1Char(','))) {
    const QString name = part.trimmed();
    if (name.isEmpty()) {
      if (!m_outputNames->text().trimmed().isEmpty()) return makeError("output names must not be empty");
      continue;
    }
    names.push_back(name.toStdString());
  }
  if (!names.empty()) o.outputNames = std::move(names);
  o.validate = m_validate->isChecked();
  return o;
}

bool ExportDialog::isExporting() const {
  return m_job->isRunning();
}

bool ExportDialog::showsSummary() const {
  return m_pages->currentIndex() == 1;
}

void ExportDialog::browse() {
  const QString chosen = QFileDialog::getSaveFileName(
      this, QStringLiteral("Export Artifact To"), targetDirectory(),
      QStringLiteral("Lattice artifacts (*.lattice)"), nullptr, QFileDialog::DontConfirmOverwrite);
  if (!chosen.isEmpty()) setTargetDirectory(chosen);
}

void ExportDialog::startExport() {
  if (m_job->isRunning()) return;
  auto fail = [this](const QString& message) {
    m_error->setText(message);
    m_error->show();
    Q_EMIT exportFailed(message);
  };
  const Model* model = m_session->model();
  if (!model || m_session->isLoading())
    return fail(QStringLiteral("no model is open (or one is still loading)"));
  Expected<ExportOptions> options = exportOptions();
  if (!options) return fail(qs(options.message()));
  const QString target = targetDirectory();
  if (target.isEmpty() || target == QStringLiteral("."))
    return fail(QStringLiteral("choose an artifact directory"));
  // Nothing is asked about a target that cannot be written anyway.
  if (const QString problem = exportTargetProblem(target); !problem.isEmpty()) return fail(problem);
  // A folder with anything but an artifact in it is replaced only when the user, shown what
  // would be deleted, says so.
  bool force = false;
  if (QFileInfo::exists(target)) {
    const std::vector<std::string> foreign =
        foreignArtifactEntries(target.toStdString(), kListedEntries + 1, true);
    if (!foreign.empty() && isVisible()) {
      if (!confirmDeletion(target, foreign)) return;
      force = true;
    } else if (foreign.empty() && isVisible()) {
      const auto answer = QMessageBox::question(this, QStringLiteral("Replace Artifact"),
                                                QStringLiteral("'%1' exists. Replace it?").arg(target));
      if (answer != QMessageBox::Yes) return;
    }
  }
  SaveOptions targetCheck;
  targetCheck.force = force;
  if (Status s = checkArtifactTarget(target.toStdString(), targetCheck); !s) return fail(qs(s.message()));
  options->save.force = force;
  m_error->hide();
  saveSettings();
  m_exportButton->setEnabled(false);

  m_progress = new QProgressDialog(QStringLiteral("Lowering and writing the artifact…"),
                                   QStringLiteral("Cancel"), 0, 0, this);
  m_progress->setWindowTitle(QStringLiteral("Exporting"));
  m_progress->setWindowModality(Qt::WindowModal);
  m_progress->setMinimumDuration(300);
  m_progress->setAutoClose(false);
  m_progress->setAutoReset(false);
  connect(m_progress, &QProgressDialog::canceled, this, &ExportDialog::cancelExport);
  m_job->start(*model, target, std::move(*options), m_session->tracer());
}

bool ExportDialog::confirmDeletion(const QString& target, const std::vector<std::string>& entries) {
  QStringList shown;
  for (std::size_t i = 0; i < entries.size() && i < kListedEntries; ++i) shown << qs(entries[i]);
  if (entries.size() > kListedEntries) shown << QStringLiteral("… and more");
  QMessageBox box(QMessageBox::Warning, QStringLiteral("Replace Folder"),
                  QStringLiteral("'%1' is not a lattice artifact.").arg(target),
                  QMessageBox::Yes | QMessageBox::No, this);
  box.setObjectName(QStringLiteral("replaceFolderQuestion"));
  box.setInformativeText(QStringLiteral("Exporting there deletes everything it holds besides graph.mlir and "
                                        "weights.safetensors, starting with: %1.\n\nDelete these files and export?")
                             .arg(shown.mid(0, 3).join(QStringLiteral(", "))));
  box.setDetailedText(QStringLiteral("Would be deleted:\n") + shown.join(QLatin1Char('\n')));
  box.button(QMessageBox::Yes)->setText(QStringLiteral("Delete and Export"));
  box.setDefaultButton(QMessageBox::No);
  box.setEscapeButton(QMessageBox::No);
  return box.exec() == QMessageBox::Yes;
}

void ExportDialog::cancelExport() {
  if (!m_job->isRunning()) return;
  m_job->cancel();
  if (m_progress) m_progress->setLabelText(QStringLiteral("Cancelling…"));
}

void ExportDialog::onProgress(quint64 written, quint64 total) {
  if (!m_progress || total == 0 || m_job->cancelRequested()) return;
  m_progress->setLabelText(
      QStringLiteral("Writing weights: %1 of %2")
          .arg(humanBytes(static_cast<qint64>(written)), humanBytes(static_cast<qint64>(total))));
  m_progress->setMaximum(1000);
  m_progress->setValue(static_cast<int>(written * 1000 / total));
}

void ExportDialog::onFinished() {
  if (m_progress) {
    m_progress->disconnect(this);
    m_progress->deleteLater();
    m_progress = nullptr;
  }
  m_exportButton->setEnabled(true);
  const ExportResult& r = m_job->result();
  if (!r.ok) {
    const QString message = r.cancelled
                                ? QStringLiteral("export cancelled; '%1' was left as it was").arg(r.directory)
                                : r.message;
    m_error->setText(message.section(QLatin1Char('\n'), 0, 0));
    m_error->setToolTip(r.warnings.isEmpty() ? message
                                             : message + QStringLiteral("\n\n") + r.warnings.join(QLatin1Char('\n')));
    m_error->show();
    Q_EMIT exportFailed(message);
    return;
  }
  showSummary();
  m_session->recordExport(r.directory); // Tools ▸ Compare with Last Export
  Q_EMIT artifactExported(r.directory);
}

void ExportDialog::showSummary() {
  const ExportResult& r = m_job->result();
  const Expected<ExportOptions> o = exportOptions();
  QString quant = QStringLiteral("none");
  if (o && o->quantizationPlan)
    quant = m_planSummary.toHtmlEscaped();
  else if (o && o->quantizeBits)
    quant = QStringLiteral("int%1, group size %2, %3 scales")
                .arg(*o->quantizeBits)
                .arg(o->groupSize.value_or(32))
                .arg(qs(o->scaleDtype.value_or("f16")));
  m_summary->setText(QStringLiteral("<h3>Artifact exported</h3>"
                                    "<p><b>%1</b></p>"
                                    "<table>"
                                    "<tr><td>graph.mlir</td><td>%2 lines, %3</td></tr>"
                                    "<tr><td>weights.safetensors</td><td>%4</td></tr>"
                                    "<tr><td>inputs</td><td>%5</td></tr>"
                                    "<tr><td>quantization</td><td>%6</td></tr>"
                                    "<tr><td>time</td><td>%7 ms</td></tr>"
                                    "</table>")
                         .arg(r.directory.toHtmlEscaped())
                         .arg(r.mlirLines)
                         .arg(humanBytes(r.graphBytes), humanBytes(r.weightsBytes))
                         .arg(m_inputs->specs().size())
                         .arg(quant)
                         .arg(r.elapsedMs) +
                     warningsHtml(r.warnings));
  m_pages->setCurrentIndex(1);
}

} // namespace lattice::studio
