// MainWindow's File menu bodies: open a model or an example; export (the export dialog of
// panels/ExportDialog.h); and the graph image export. Artifact tabs, comparisons and Load
// Weights… are in MainWindowArtifacts.cpp.

#include "MainWindow.h"

#include "ModelFileDialog.h"
#include "StudioSession.h"
#include "graph/GraphWidget.h"
#include "panels/Panels.h"

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
  runExportDialog(m_session, this, [this](const QString& directory) { openArtifact(directory); });
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
