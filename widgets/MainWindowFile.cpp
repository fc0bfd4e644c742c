// MainWindow's File menu bodies: open a model or an example; the built-in export (a directory
// chooser and saveLatticeModelArtifact on a worker thread with progress and cancel, used until
// the export dialog replaces it through setExportHandler); and the graph image export. Artifact
// tabs, comparisons and Load Weights… are in MainWindowArtifacts.cpp.

#include "MainWindow.h"

#include "StudioSession.h"
#include "graph/GraphWidget.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <memory>

namespace lattice::studio {

void MainWindow::openModel(const QString& reference) {
  if (reference.isEmpty()) return;
  if (!reference.startsWith(QStringLiteral("example:")))
    m_lastDirectory = QFileInfo(reference).absolutePath();
  m_session->openModel(reference);
}

namespace {

/// True for an `.ltfx` archive directory (fx-archive.md: `model.json` + `weights.safetensors`).
bool isArchiveDirectory(const QString& path) {
  const QFileInfo info(path);
  return info.isDir() && QFileInfo::exists(QDir(path).filePath(QStringLiteral("model.json")));
}

/// A file dialog that opens either a file (TorchScript `.pt`) or an archive directory: choosing
/// an `.ltfx` directory and pressing Open selects it instead of entering it, and choosing the
/// `model.json` inside one selects the archive.
class ModelFileDialog : public QFileDialog {
public:
  ModelFileDialog(QWidget* parent, const QString& directory)
      : QFileDialog(parent, MainWindow::tr("Open Model"), directory) {
    setOption(QFileDialog::DontUseNativeDialog); // native dialogs cannot choose both kinds
    setFileMode(QFileDialog::ExistingFile);
    setNameFilters({MainWindow::tr("Models (*.ltfx *.pt *.pth model.json)"),
                    MainWindow::tr("TorchScript (*.pt *.pth)"), MainWindow::tr("All files (*)")});
  }

  QString chosen() const { return m_chosen; }

protected:
  void accept() override {
    const QString first = selectedFiles().value(0);
    if (isArchiveDirectory(first)) {
      m_chosen = first;
      QDialog::accept();
      return;
    }
    QFileDialog::accept(); // a file closes the dialog; another directory is entered
    if (result() == QDialog::Accepted) {
      m_chosen = selectedFiles().value(0);
      const QFileInfo info(m_chosen);
      if (info.fileName() == QLatin1String("model.json") && isArchiveDirectory(info.absolutePath()))
        m_chosen = info.absolutePath();
    }
  }

private:
  QString m_chosen;
};

} // namespace

void MainWindow::onOpenModel() {
  ModelFileDialog dialog(this, m_lastDirectory);
  if (dialog.exec() == QDialog::Accepted && !dialog.chosen().isEmpty()) openModel(dialog.chosen());
}

void MainWindow::onOpenExample(const QString& name) {
  openModel(QStringLiteral("example:") + name);
}

void MainWindow::onOpenChain() {
  bool ok = false;
  const int blocks = QInputDialog::getInt(
      this, tr("Open Chain Example"), tr("Number of conv blocks (3 nodes each):"), 100, 1, 100000, 1, &ok);
  if (ok) openModel(QStringLiteral("example:chain:") + QString::number(blocks));
}

void MainWindow::onOpenArtifact() {
  const QString dir =
      QFileDialog::getExistingDirectory(this, tr("Open Artifact (.lattice directory)"), m_lastDirectory);
  if (!dir.isEmpty()) openArtifact(dir);
}

void MainWindow::onExportArtifact() {
  if (m_exportHandler) {
    m_exportHandler();
    return;
  }
  const Model* model = m_session->model();
  if (!model) return;
  QString suggested = QFileInfo(m_session->modelReference()).completeBaseName();
  if (suggested.startsWith(QStringLiteral("example:")) || suggested.isEmpty())
    suggested = m_session->modelReference().section(QLatin1Char(':'), 1, 1);
  const QString target = QFileDialog::getSaveFileName(
      this, tr("Export Artifact"), QDir(m_lastDirectory).filePath(suggested + QStringLiteral(".lattice")),
      tr("Lattice artifact directory (*.lattice)"), nullptr, QFileDialog::DontConfirmOverwrite);
  if (target.isEmpty()) return;

  // The worker reads the model; the progress dialog is modal, so nothing replaces it meanwhile.
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto progress = std::make_shared<std::atomic<int>>(0);
  ExportOptions options = m_session->exportOptions();
  options.tracer = &m_session->tracer();
  options.save.progress = [cancel, progress](uint64_t written, uint64_t total) {
    progress->store(total ? int(written * 1000 / total) : 1000);
    return !cancel->load();
  };
  auto* dialog = new QProgressDialog(tr("Lowering and writing weights…"), tr("Cancel"), 0, 1000, this);
  dialog->setWindowModality(Qt::WindowModal);
  dialog->setMinimumDuration(300);
  dialog->setAutoClose(false);
  dialog->setAutoReset(false);
  auto* poll = new QTimer(dialog);
  connect(poll, &QTimer::timeout, dialog, [dialog, progress] { dialog->setValue(progress->load()); });
  poll->start(100);
  connect(dialog, &QProgressDialog::canceled, dialog, [cancel] { cancel->store(true); });

  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, dialog, target, cancel] {
    const QString error = watcher->result();
    watcher->deleteLater();
    dialog->deleteLater();
    if (cancel->load()) {
      statusBar()->showMessage(tr("Export cancelled; nothing was written"), 5000);
      return;
    }
    if (!error.isEmpty()) {
      QMessageBox::critical(this, tr("Export Artifact"), error);
      return;
    }
    m_lastDirectory = QFileInfo(target).absolutePath();
    m_session->recordExport(target);
    QMessageBox box(QMessageBox::Information, tr("Export Artifact"), tr("Artifact written to %1").arg(target),
                    QMessageBox::Close, this);
    QPushButton* open = box.addButton(tr("Open Artifact"), QMessageBox::AcceptRole);
    box.exec();
    if (box.clickedButton() == open) openArtifact(target);
  });
  const Model* m = model;
  const std::string dir = target.toStdString();
  watcher->setFuture(QtConcurrent::run([m, dir, options] {
    Status s = saveLatticeModelArtifact(*m, dir, options);
    return s ? QString() : QString::fromStdString(s.message());
  }));
}

void MainWindow::onExportImage() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export Graph Image"), QDir(m_lastDirectory).filePath(QStringLiteral("graph.svg")),
      tr("SVG image (*.svg);;PNG image (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  if (!m_graph->exportImage(path, &error))
    QMessageBox::critical(this, tr("Export Graph Image"), error);
  else
    statusBar()->showMessage(tr("Graph written to %1").arg(path), 5000);
}

} // namespace lattice::studio
