// MainWindow's artifact side and File ▸ Load Weights…: artifact tabs
// (ArtifactView), comparisons (CompareView) from Tools ▸ Compare Artifacts… and Compare with
// Last Export, and the checkpoint flow (read on a worker, report, partial-apply question). The
// views do the work; this file only decides what to open where.

#include "MainWindow.h"

#include "StudioSession.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactRun.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/CompareArtifactsDialog.h"
#include "artifactview/CompareView.h"
#include "graph/GraphView.h"
#include "graph/GraphWidget.h"
#include "model/torchscript/Checkpoint.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QtConcurrent/QtConcurrentRun>

namespace lattice::studio {

namespace {

QString absolute(const QString& path) {
  return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

QString displayName(const QString& path) {
  return QFileInfo(QDir::cleanPath(path)).fileName();
}

} // namespace

// --- tabs --------------------------------------------------------------------------------------

QList<ArtifactView*> MainWindow::artifactViews() const {
  QList<ArtifactView*> out;
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto* v = qobject_cast<ArtifactView*>(m_tabs->widget(i))) out << v;
  return out;
}

QList<CompareView*> MainWindow::compareViews() const {
  QList<CompareView*> out;
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto* v = qobject_cast<CompareView*>(m_tabs->widget(i))) out << v;
  return out;
}

ArtifactView* MainWindow::artifactView(const QString& path) const {
  const QString wanted = absolute(path);
  for (ArtifactView* v : artifactViews())
    if (absolute(v->path()) == wanted) return v;
  return nullptr;
}

GraphView* MainWindow::currentGraphView() const {
  QWidget* current = m_tabs->currentWidget();
  if (auto* a = qobject_cast<ArtifactView*>(current)) return a->graphView()->view();
  if (auto* c = qobject_cast<CompareView*>(current)) return c->graphA()->view(); // B follows A
  return m_graph->view();
}

void MainWindow::closeTab(int index) {
  if (index <= 0 || index >= m_tabs->count()) return; // the model tab stays
  QWidget* w = m_tabs->widget(index);
  m_diskChanges.remove(w);
  m_tabs->removeTab(index);
  w->deleteLater();
  updateModelTabVisibility();
  updateChangedBar();
}

void MainWindow::openArtifact(const QString& directory) {
  if (directory.isEmpty()) return;
  setLastDirectory(QFileInfo(directory).absolutePath());
  if (m_artifactOpener) {
    m_artifactOpener(directory);
    addRecent(directory);
    return;
  }
  ArtifactView* view = artifactView(directory);
  if (view) {
    reloadTab(view);
  } else {
    view = new ArtifactView(m_tabs);
    m_tabs->addTab(view, tr("Artifact: %1").arg(displayName(directory)));
    m_tabs->setTabToolTip(m_tabs->indexOf(view), directory);
    connect(view->runBar(), &ArtifactRunBar::runningChanged, this, &MainWindow::updateActions);
    connect(view->runBar(), &ArtifactRunBar::finished, this, [this, view] {
      const ArtifactRunResult* r = view->runBar()->result();
      if (r && r->cancelled)
        statusBar()->showMessage(tr("Run cancelled"), 15000);
      else if (r && !r->error.empty())
        statusBar()->showMessage(
            tr("Run failed: %1").arg(QString::fromStdString(r->error).section(QLatin1Char('\n'), 0, 0)), 15000);
    });
    connect(view, &ArtifactView::documentLoaded, this, [this, view] {
      const auto doc = view->document();
      if (doc && !doc->loadError.isEmpty())
        statusBar()->showMessage(tr("Artifact: %1").arg(doc->loadError), 8000);
      // Recent Files and Open Artifact… remember an artifact that validated, not a mistake.
      if (doc && doc->valid()) {
        addRecent(view->path());
        setLastArtifact(view->path());
      }
      updateActions();
    });
    watchTabFiles(view, artifactFiles(directory)); // before the worker reads them
    view->open(directory);
  }
  m_tabs->setCurrentWidget(view);
  updateModelTabVisibility();
  updateActions();
}

// --- compare -----------------------------------------------------------------------------------

CompareView* MainWindow::compareArtifacts(const QString& a, const QString& b) {
  auto* view = new CompareView(m_tabs);
  const int index = m_tabs->addTab(view, tr("Compare: %1 ↔ %2").arg(displayName(a), displayName(b)));
  m_tabs->setTabToolTip(index, tr("A (before): %1\nB (after): %2").arg(a, b));
  m_tabs->setCurrentIndex(index);
  updateModelTabVisibility();
  connect(view, &CompareView::compareFailed, this, [this](const QString& message) {
    statusBar()->showMessage(tr("Compare failed: %1").arg(message), 8000);
  });
  connect(view, &CompareView::runBothFinished, this, &MainWindow::updateActions);
  connect(view, &CompareView::runBothFailed, this, [this](const QString& message) {
    statusBar()->showMessage(tr("Run Both failed: %1").arg(message), 8000);
  });
  // An artifact already open in a tab is not read again.
  std::shared_ptr<const LoadedArtifact> loadedA;
  std::shared_ptr<const LoadedArtifact> loadedB;
  if (ArtifactView* v = artifactView(a); v && v->document() && !v->isLoading())
    loadedA = v->document()->artifact;
  if (ArtifactView* v = artifactView(b); v && v->document() && !v->isLoading())
    loadedB = v->document()->artifact;
  watchTabFiles(view, artifactFiles(a) + artifactFiles(b));
  view->compare(a, loadedA, b, loadedB);
  m_compareA = a;
  m_compareB = b;
  QSettings s;
  s.setValue(QStringLiteral("paths/compareA"), a);
  s.setValue(QStringLiteral("paths/compareB"), b);
  return view;
}

void MainWindow::onCompareArtifacts() {
  CompareArtifactsDialog dialog(this);
  QString a = m_compareA;
  QString b = m_compareB;
  // The current artifact tab is a natural A.
  if (auto* current = qobject_cast<ArtifactView*>(m_tabs->currentWidget())) a = current->path();
  dialog.setPaths(a, b);
  if (dialog.exec() != QDialog::Accepted) return;
  compareArtifacts(dialog.pathA(), dialog.pathB());
}

std::pair<QString, QString> MainWindow::lastExportComparison() const {
  QString b = m_session->lastExport();
  if (b.isEmpty() && isArtifactPath(m_rememberedExport)) b = m_rememberedExport;
  if (b.isEmpty()) return {};
  const QString bAbs = absolute(b);
  if (auto* current = qobject_cast<ArtifactView*>(m_tabs->currentWidget()))
    if (absolute(current->path()) != bAbs) return {current->path(), b};
  for (const QString& previous : m_session->exportedArtifacts())
    if (absolute(previous) != bAbs && isArtifactPath(previous)) return {previous, b};
  const QList<ArtifactView*> views = artifactViews();
  for (auto it = views.rbegin(); it != views.rend(); ++it)
    if (absolute((*it)->path()) != bAbs) return {(*it)->path(), b};
  return {QString(), b};
}

CompareView* MainWindow::compareWithLastExport() {
  auto [a, b] = lastExportComparison();
  if (b.isEmpty()) {
    statusBar()->showMessage(tr("Nothing exported yet: export an artifact first (Ctrl+E)"), 6000);
    return nullptr;
  }
  if (a.isEmpty()) {
    a = QFileDialog::getExistingDirectory(this, tr("Compare with Last Export: choose artifact A (before)"),
                                          QFileInfo(b).absolutePath());
    if (a.isEmpty()) return nullptr;
  }
  return compareArtifacts(a, b);
}

// --- Load Weights… ---------------------------------------------------------------------------

void MainWindow::onLoadWeights() {
  if (!m_session->model()) return;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Load Weights"), m_weightsDirectory,
                                   tr("Checkpoints (*.safetensors *.pt *.pth *.bin *.ckpt);;All files (*)"));
  if (!path.isEmpty()) loadWeights(path);
}

void MainWindow::loadWeights(const QString& path) {
  if (!m_session->model()) {
    QMessageBox::warning(this, tr("Load Weights"),
                         tr("Open a model before loading weights from '%1'").arg(path));
    return;
  }
  m_weightsDirectory = QFileInfo(path).absolutePath();
  QSettings().setValue(QStringLiteral("paths/weightsDirectory"), m_weightsDirectory);
  struct Read {
    std::shared_ptr<Checkpoint> checkpoint;
    QString error;
  };
  auto* progress =
      new QProgressDialog(tr("Reading %1…").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 0, this);
  progress->setWindowModality(Qt::WindowModal);
  progress->setMinimumDuration(400);
  auto* watcher = new QFutureWatcher<std::shared_ptr<Read>>(this);
  const QString reference = m_session->modelReference();
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, progress, path, reference] {
    watcher->deleteLater();
    const bool cancelled = progress->wasCanceled();
    progress->deleteLater();
    if (cancelled) {
      statusBar()->showMessage(tr("Loading weights cancelled"), 4000);
      return;
    }
    if (m_session->modelReference() != reference || !m_session->model()) return; // another model meanwhile
    const std::shared_ptr<Read> read = watcher->result();
    if (!read->checkpoint) {
      QMessageBox::critical(this, tr("Load Weights"),
                            tr("Cannot load weights from '%1':\n%2").arg(path, read->error));
      return;
    }
    applyCheckpointInteractively(path, read->checkpoint);
  });
  const std::string file = path.toStdString();
  watcher->setFuture(QtConcurrent::run([file] {
    auto out = std::make_shared<Read>();
    Expected<Checkpoint> checkpoint = readCheckpoint(file);
    if (checkpoint)
      out->checkpoint = std::make_shared<Checkpoint>(std::move(*checkpoint));
    else
      out->error = QString::fromStdString(checkpoint.message());
    return out;
  }));
}

void MainWindow::applyCheckpointInteractively(const QString& path,
                                              const std::shared_ptr<Checkpoint>& checkpoint) {
  const CheckpointReport report = m_session->compareWeights(*checkpoint);
  const QString summary = QString::fromStdString(report.summary());
  bool partial = false;
  if (!report.clean()) {
    QStringList issues;
    for (const CheckpointIssue& issue : report.issues)
      issues << QString::fromStdString(issue.message);
    QMessageBox box(QMessageBox::Warning, tr("Load Weights"),
                    tr("'%1' does not match the model exactly:\n%2").arg(QFileInfo(path).fileName(), summary),
                    QMessageBox::Cancel, this);
    box.setDetailedText(issues.join(QLatin1Char('\n')));
    QPushButton* apply = nullptr;
    if (report.matched > 0) {
      box.setInformativeText(tr("Apply the %n matching tensor(s) and keep the model's own for the rest?",
                                nullptr, int(report.matched)));
      apply = box.addButton(tr("Apply Partially"), QMessageBox::AcceptRole);
      box.setDefaultButton(QMessageBox::Cancel);
    } else {
      box.setInformativeText(tr("No tensor matches: nothing can be applied."));
    }
    box.exec();
    if (!apply || box.clickedButton() != apply) {
      statusBar()->showMessage(tr("Weights not loaded: %1").arg(summary), 8000);
      return;
    }
    partial = true;
  }
  Expected<CheckpointReport> applied = m_session->applyWeights(*checkpoint, partial);
  if (!applied) {
    QMessageBox::critical(
        this, tr("Load Weights"),
        tr("Cannot load weights from '%1':\n%2").arg(path, QString::fromStdString(applied.message())));
    return;
  }
  statusBar()->showMessage(tr("Weights loaded: %1").arg(QString::fromStdString(applied->summary())), 8000);
  if (partial)
    QMessageBox::information(this, tr("Load Weights"),
                             tr("Applied partially: %1\nThe next export uses these weights.")
                                 .arg(QString::fromStdString(applied->summary())));
}

void MainWindow::updateTitle() {
  QString title = m_session->modelReference();
  if (!m_session->weightsSource().isEmpty())
    title += tr(" [weights: %1]").arg(QFileInfo(m_session->weightsSource()).fileName());
  setWindowTitle(title.isEmpty() ? tr("Lattice Studio") : tr("%1 — Lattice Studio").arg(title));
}

} // namespace lattice::studio
