// WeightsLoader: the Load Weights… flow. Reading is the worker's; comparing and applying are the
// session's (StudioSession::compareWeights, applyWeights); this file only asks and reports.

#include "WeightsLoader.h"

#include "StudioSession.h"
#include "model/torchscript/Checkpoint.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>

namespace lattice::studio {

WeightsLoader::WeightsLoader(StudioSession* session, QWidget* dialogParent)
    : QObject(dialogParent), m_session(session), m_parent(dialogParent) {}

QWidget* WeightsLoader::dialogParent() const {
  return m_parent->window();
}

void WeightsLoader::chooseAndLoad() {
  if (!m_session->model()) return;
  const QString path =
      QFileDialog::getOpenFileName(dialogParent(), tr("Load Weights"), m_directory,
                                   tr("Checkpoints (*.safetensors *.pt *.pth *.bin *.ckpt);;All files (*)"));
  if (!path.isEmpty()) load(path);
}

void WeightsLoader::load(const QString& path) {
  if (!m_session->model()) {
    QMessageBox::warning(dialogParent(), tr("Load Weights"),
                         tr("Open a model before loading weights from '%1'").arg(path));
    return;
  }
  m_directory = QFileInfo(path).absolutePath();
  QSettings().setValue(QStringLiteral("paths/weightsDirectory"), m_directory);
  struct Read {
    std::shared_ptr<Checkpoint> checkpoint;
    QString error;
  };
  auto* progress = new QProgressDialog(tr("Reading %1…").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 0,
                                       dialogParent());
  progress->setWindowModality(Qt::WindowModal);
  progress->setMinimumDuration(400);
  auto* watcher = new QFutureWatcher<std::shared_ptr<Read>>(this);
  const QString reference = m_session->modelReference();
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, progress, path, reference] {
    watcher->deleteLater();
    const bool cancelled = progress->wasCanceled();
    progress->deleteLater();
    if (cancelled) {
      Q_EMIT statusMessage(tr("Loading weights cancelled"), 4000);
      return;
    }
    if (m_session->modelReference() != reference || !m_session->model()) return; // another model meanwhile
    const std::shared_ptr<Read> read = watcher->result();
    if (!read->checkpoint) {
      QMessageBox::critical(dialogParent(), tr("Load Weights"),
                            tr("Cannot load weights from '%1':\n%2").arg(path, read->error));
      return;
    }
    applyInteractively(path, read->checkpoint);
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

void WeightsLoader::applyInteractively(const QString& path, const std::shared_ptr<Checkpoint>& checkpoint) {
  const CheckpointReport report = m_session->compareWeights(*checkpoint);
  const QString summary = QString::fromStdString(report.summary());
  bool partial = false;
  if (!report.clean()) {
    QStringList issues;
    for (const CheckpointIssue& issue : report.issues)
      issues << QString::fromStdString(issue.message);
    QMessageBox box(QMessageBox::Warning, tr("Load Weights"),
                    tr("'%1' does not match the model exactly:\n%2").arg(QFileInfo(path).fileName(), summary),
                    QMessageBox::Cancel, dialogParent());
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
      Q_EMIT statusMessage(tr("Weights not loaded: %1").arg(summary), 8000);
      return;
    }
    partial = true;
  }
  Expected<CheckpointReport> applied = m_session->applyWeights(*checkpoint, partial);
  if (!applied) {
    QMessageBox::critical(
        dialogParent(), tr("Load Weights"),
        tr("Cannot load weights from '%1':\n%2").arg(path, QString::fromStdString(applied.message())));
    return;
  }
  Q_EMIT statusMessage(tr("Weights loaded: %1").arg(QString::fromStdString(applied->summary())), 8000);
  if (partial)
    QMessageBox::information(dialogParent(), tr("Load Weights"),
                             tr("Applied partially: %1\nThe next export uses these weights.")
                                 .arg(QString::fromStdString(applied->summary())));
}

} // namespace lattice::studio
