// MainWindow's File menu bodies: open a model or an example; export (the export dialog of
// panels/ExportDialog.h); the graph image export; File ▸ Reload and the changed-on-disk bar.
// Artifact tabs, comparisons and Load Weights… are in MainWindowArtifacts.cpp.

#include "MainWindow.h"

#include "ModelFileDialog.h"
#include "StudioSession.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/CompareView.h"
#include "graph/GraphWidget.h"
#include "panels/Panels.h"

#include "dialect/ArtifactFiles.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
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

// --- files changed on disk -------------------------------------------------------------------

namespace {

/// "<b>weights.safetensors</b>", "<b>model.json</b> and <b>weights.safetensors</b>".
QString fileList(const QStringList& files) {
  QStringList names;
  for (const QString& f : files)
    names << QStringLiteral("<b>%1</b>").arg(QFileInfo(f).fileName().toHtmlEscaped());
  if (names.size() <= 1) return names.value(0);
  const QString last = names.takeLast();
  return MainWindow::tr("%1 and %2").arg(names.join(QStringLiteral(", ")), last);
}

} // namespace

QStringList MainWindow::artifactFiles(const QString& path) {
  const QFileInfo info(path);
  if (!info.isDir()) return {QDir::cleanPath(info.absoluteFilePath())};
  const QDir dir(info.absoluteFilePath());
  return {QDir::cleanPath(dir.filePath(artifactFileName(kArtifactGraphFile))),
          QDir::cleanPath(dir.filePath(artifactFileName(kArtifactWeightFile)))};
}

void MainWindow::createChangedBar() {
  m_changedBar = new QFrame(this);
  m_changedBar->setObjectName(QStringLiteral("changedOnDiskBar"));
  m_changedBar->setFrameShape(QFrame::NoFrame);
  m_changedBar->setAutoFillBackground(true);
  // An information bar as editors show one: amber, one line, never modal.
  m_changedBar->setStyleSheet(QStringLiteral(
      "QFrame#changedOnDiskBar { background: #fff4d0; border-bottom: 1px solid #e0b84a; }"
      "QFrame#changedOnDiskBar QLabel { color: #4a3800; }"));
  m_changedText = new QLabel(m_changedBar);
  m_changedText->setObjectName(QStringLiteral("changedOnDiskText"));
  m_changedText->setTextFormat(Qt::RichText);
  m_changedText->setWordWrap(true);
  m_changedText->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* reload = new QPushButton(tr("Reload"), m_changedBar);
  reload->setObjectName(QStringLiteral("changedOnDiskReload"));
  auto* ignore = new QPushButton(tr("Ignore"), m_changedBar);
  ignore->setObjectName(QStringLiteral("changedOnDiskIgnore"));
  ignore->setToolTip(tr("Keep what is shown; a later change is reported again"));
  auto* layout = new QHBoxLayout(m_changedBar);
  layout->setContentsMargins(10, 4, 6, 4);
  layout->setSpacing(6);
  layout->addWidget(m_changedText, 1);
  layout->addWidget(reload);
  layout->addWidget(ignore);
  connect(reload, &QPushButton::clicked, this, [this] { reloadTab(m_tabs->currentWidget()); });
  connect(ignore, &QPushButton::clicked, this, &MainWindow::ignoreChange);
  m_changedBar->hide();
}

FileChangeWatcher* MainWindow::fileWatcher(QWidget* tab) const {
  if (!tab) return nullptr;
  if (tab == m_graph) return m_session->modelWatcher();
  return tab->findChild<FileChangeWatcher*>(QStringLiteral("tabFileWatcher"), Qt::FindDirectChildrenOnly);
}

void MainWindow::watchTabFiles(QWidget* tab, const QStringList& files) {
  FileChangeWatcher* watcher = fileWatcher(tab);
  if (!watcher) {
    watcher = new FileChangeWatcher(tab);
    watcher->setObjectName(QStringLiteral("tabFileWatcher"));
    connect(watcher, &FileChangeWatcher::changed, this,
            [this, tab](const QStringList& changed) { onFilesChanged(tab, changed); });
  }
  watcher->watch(files);
  m_diskChanges.remove(tab);
  updateChangedBar();
}

void MainWindow::onFilesChanged(QWidget* tab, const QStringList& files) {
  if (files.isEmpty())
    m_diskChanges.remove(tab);
  else
    m_diskChanges[tab] = DiskChange{files, QString()};
  updateChangedBar();
}

void MainWindow::updateChangedBar() {
  QWidget* tab = m_tabs->currentWidget();
  const auto it = m_diskChanges.constFind(tab);
  if (!tab || it == m_diskChanges.constEnd()) {
    m_changedBar->hide();
    return;
  }
  QString what; // what the tab shows
  if (tab == m_graph)
    what = QFileInfo(QDir::cleanPath(m_session->modelReference())).fileName();
  else if (auto* artifact = qobject_cast<ArtifactView*>(tab))
    what = QFileInfo(QDir::cleanPath(artifact->path())).fileName();
  else if (auto* compare = qobject_cast<CompareView*>(tab))
    what = tr("%1 ↔ %2").arg(QFileInfo(QDir::cleanPath(compare->pathA())).fileName(),
                             QFileInfo(QDir::cleanPath(compare->pathB())).fileName());
  what = what.toHtmlEscaped();
  QString text;
  if (!it->reloadError.isEmpty()) {
    text = tr("Reloading <b>%1</b> failed: %2<br>The model read before is still shown; Reload again once the "
              "files are complete.")
               .arg(what, it->reloadError.section(QLatin1Char('\n'), 0, 0).toHtmlEscaped());
  } else {
    QStringList changed, gone;
    for (const QString& f : it->files)
      (QFileInfo::exists(f) ? changed : gone) << f;
    QStringList parts;
    if (!changed.isEmpty())
      parts << tr("%1 changed on disk").arg(fileList(changed));
    if (!gone.isEmpty())
      parts << (gone.size() == 1 ? tr("%1 was deleted") : tr("%1 were deleted")).arg(fileList(gone));
    text = tab == m_graph ? tr("%1 (%2). The model shown, stepped, run and exported is the one read before; "
                               "Reload reads it again, keeping breakpoints, leaf overrides and inputs.")
                          : tr("%1 (%2). The tab shows what was read before; Reload reads it again.");
    text = text.arg(parts.join(tr("; ")), what);
  }
  m_changedText->setText(text);
  if (auto* reload = m_changedBar->findChild<QPushButton*>(QStringLiteral("changedOnDiskReload")))
    reload->setToolTip(tr("Read the files again (File ▸ Reload, %1)")
                           .arg(action(QStringLiteral("file.reload"))->shortcut().toString(QKeySequence::NativeText)));
  m_changedBar->show();
}

void MainWindow::ignoreChange() {
  QWidget* tab = m_tabs->currentWidget();
  if (FileChangeWatcher* watcher = fileWatcher(tab)) watcher->acceptCurrent();
  m_diskChanges.remove(tab);
  updateChangedBar();
}

void MainWindow::reloadTab(QWidget* tab) {
  if (!tab) return;
  if (tab == m_graph) {
    if (!m_session->model() || m_session->modelReference().isEmpty()) return;
    m_session->reloadModel(); // clears the tab's change when the load starts
    return;
  }
  if (auto* artifact = qobject_cast<ArtifactView*>(tab)) {
    if (artifact->path().isEmpty()) return;
    watchTabFiles(artifact, artifactFiles(artifact->path()));
    artifact->reload();
    statusBar()->showMessage(tr("Reloading %1…").arg(artifact->path()), 4000);
  } else if (auto* compare = qobject_cast<CompareView*>(tab)) {
    const QString a = compare->pathA(), b = compare->pathB();
    watchTabFiles(compare, artifactFiles(a) + artifactFiles(b));
    compare->compare(a, b);
  }
  updateActions();
}

} // namespace lattice::studio
