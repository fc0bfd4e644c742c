// OpenDialogs: the dialogs of File ▸ Open and the meaning of a drop; opening is the window's.

#include "OpenDialogs.h"

#include "artifactview/ArtifactDocument.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>

namespace lattice::studio {

namespace {

/// The texts keep the main window's translation context.
QString tr(const char* text) {
  return QCoreApplication::translate("lattice::studio::MainWindow", text);
}

} // namespace

QString chooseChainExample(QWidget* parent) {
  bool ok = false;
  const int blocks = QInputDialog::getInt(parent, tr("Open Chain Example"),
                                          tr("Number of conv blocks (3 nodes each):"), 100, 1, 100000, 1,
                                          &ok);
  return ok ? QStringLiteral("example:chain:") + QString::number(blocks) : QString();
}

QString chooseArtifact(QWidget* parent, const QString& lastArtifact, const QString& lastDirectory) {
  QFileDialog dialog(parent, tr("Open Artifact (.lattice directory)"));
  dialog.setFileMode(QFileDialog::Directory);
  dialog.setOption(QFileDialog::ShowDirsOnly);
  const QFileInfo last(lastArtifact);
  if (!lastArtifact.isEmpty() && last.exists()) {
    dialog.setDirectory(last.absolutePath());
    dialog.selectFile(last.fileName());
  } else {
    dialog.setDirectory(lastDirectory);
  }
  if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return {};
  return dialog.selectedFiles().front();
}

QString droppedReference(const QString& path) {
  const QFileInfo info(path);
  const bool loneMlir =
      info.isFile() && info.suffix() == QLatin1String("mlir") && !isArtifactPath(info.absolutePath());
  return info.isFile() && !loneMlir ? info.absolutePath() : path;
}

} // namespace lattice::studio
