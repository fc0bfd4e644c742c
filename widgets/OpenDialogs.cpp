// OpenDialogs: the dialogs of File ▸ Open and the meaning of a drop; opening is the window's.

#include "OpenDialogs.h"

#include "artifactview/ArtifactDocument.h"
#include "model/Examples.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>

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

void fillExamplesMenu(QMenu* menu, QWidget* parent, const std::function<void(const QString&)>& open) {
  for (const std::string& name : exampleNames()) {
    const QString n = QString::fromStdString(name);
    if (n.startsWith(QStringLiteral("chain:")))
      QObject::connect(menu->addAction(tr("chain:N (synthetic)…")), &QAction::triggered, menu,
                       [parent, open] {
                         if (const QString chosen = chooseChainExample(parent); !chosen.isEmpty())
                           open(chosen);
                       });
    else
      QObject::connect(menu->addAction(n), &QAction::triggered, menu,
                       [n, open] { open(QStringLiteral("example:") + n); });
  }
}

bool isArchiveDirectory(const QString& path) {
  return QFileInfo(path).isDir() && QFileInfo::exists(QDir(path).filePath(QStringLiteral("model.json")));
}

DocumentFileDialog::DocumentFileDialog(QWidget* parent, const QString& title, const QString& directory,
                                       const QStringList& filters)
    : QFileDialog(parent, title, directory) {
  setOption(QFileDialog::DontUseNativeDialog); // native dialogs cannot choose both kinds
  setFileMode(QFileDialog::ExistingFile);
  setNameFilters(filters);
}

void DocumentFileDialog::accept() {
  const QString first = selectedFiles().value(0);
  if (isDocumentDirectory(first)) {
    m_chosen = first;
    QDialog::accept();
    return;
  }
  QFileDialog::accept(); // a file closes the dialog; any other directory is entered
  if (result() != QDialog::Accepted) return;
  m_chosen = standsFor(selectedFiles().value(0));
}

ModelFileDialog::ModelFileDialog(QWidget* parent, const QString& directory)
    : DocumentFileDialog(parent, tr("Open Model"), directory,
                         {tr("Models (*.ltfx *.pt *.pth model.json)"), tr("TorchScript (*.pt *.pth)"),
                          tr("All files (*)")}) {}

bool ModelFileDialog::isDocumentDirectory(const QString& path) const {
  return isArchiveDirectory(path);
}

QString ModelFileDialog::standsFor(const QString& file) const {
  const QFileInfo info(file);
  return info.fileName() == QLatin1String("model.json") && isArchiveDirectory(info.absolutePath())
             ? info.absolutePath()
             : file;
}

ArtifactFileDialog::ArtifactFileDialog(QWidget* parent, const QString& directory)
    : DocumentFileDialog(parent, tr("Open Artifact (.lattice directory or .mlir file)"), directory,
                         {tr("Artifacts (*.lattice *.mlir)"), tr("All files (*)")}) {
  setObjectName(QStringLiteral("artifactFileDialog"));
}

bool ArtifactFileDialog::isDocumentDirectory(const QString& path) const {
  return QFileInfo(path).isDir() && isArtifactPath(path);
}

QString ArtifactFileDialog::standsFor(const QString& file) const {
  const QString directory = QFileInfo(file).absolutePath();
  return isArtifactPath(directory) ? directory : file;
}

QString chooseArtifact(QWidget* parent, const QString& lastArtifact, const QString& lastDirectory) {
  const QFileInfo last(lastArtifact);
  const bool hasLast = !lastArtifact.isEmpty() && last.exists();
  ArtifactFileDialog dialog(parent, hasLast ? last.absolutePath() : lastDirectory);
  if (hasLast) dialog.selectFile(last.fileName());
  if (dialog.exec() != QDialog::Accepted) return {};
  return dialog.chosen();
}

QString droppedReference(const QString& path) {
  const QFileInfo info(path);
  const bool loneMlir =
      info.isFile() && info.suffix() == QLatin1String("mlir") && !isArtifactPath(info.absolutePath());
  return info.isFile() && !loneMlir ? info.absolutePath() : path;
}

} // namespace lattice::studio
