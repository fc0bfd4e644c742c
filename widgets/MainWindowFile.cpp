// MainWindow's File menu bodies: open a model or an example; the built-in export (a directory
// chooser and saveLatticeModelArtifact on a worker thread with progress and cancel, used until
// the export dialog replaces it through setExportHandler); and the graph image export. Artifact
// tabs, comparisons and Load Weights… are in MainWindowArtifacts.cpp.

#include "MainWindow.h"

#include "ModelFileDialog.h"
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
    setLastDirectory(QFileInfo(reference).absolutePath());
  m_session->openModel(reference);
}

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
  // Starts beside the last export (or the last artifact opened), with it selected: Open takes
  // it again, a sibling is one click away.
  QFileDialog dialog(this, tr("Open Artifact (.lattice directory)"));
  dialog.setFileMode(QFileDialog::Directory);
  dialog.setOption(QFileDialog::ShowDirsOnly);
  const QFileInfo last(m_lastArtifact);
  if (!m_lastArtifact.isEmpty() && last.exists()) {
    dialog.setDirectory(last.absolutePath());
    dialog.selectFile(last.fileName());
  } else {
    dialog.setDirectory(m_lastDirectory);
  }
  if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return;
  openArtifact(dialog.selectedFiles().front());
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
    setLastDirectory(QFileInfo(target).absolutePath());
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
