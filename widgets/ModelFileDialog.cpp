// ModelFileDialog: see the header. Only accept() differs from QFileDialog.

#include "ModelFileDialog.h"

#include <QDir>
#include <QFileInfo>

namespace lattice::studio {

bool isArchiveDirectory(const QString& path) {
  return QFileInfo(path).isDir() && QFileInfo::exists(QDir(path).filePath(QStringLiteral("model.json")));
}

ModelFileDialog::ModelFileDialog(QWidget* parent, const QString& directory)
    : QFileDialog(parent, tr("Open Model"), directory) {
  setOption(QFileDialog::DontUseNativeDialog); // native dialogs cannot choose both kinds
  setFileMode(QFileDialog::ExistingFile);
  setNameFilters({tr("Models (*.ltfx *.pt *.pth model.json)"), tr("TorchScript (*.pt *.pth)"),
                  tr("All files (*)")});
}

void ModelFileDialog::accept() {
  const QString first = selectedFiles().value(0);
  if (isArchiveDirectory(first)) {
    m_chosen = first;
    QDialog::accept();
    return;
  }
  QFileDialog::accept(); // a file closes the dialog; any other directory is entered
  if (result() != QDialog::Accepted) return;
  m_chosen = selectedFiles().value(0);
  const QFileInfo info(m_chosen);
  if (info.fileName() == QLatin1String("model.json") && isArchiveDirectory(info.absolutePath()))
    m_chosen = info.absolutePath();
}

} // namespace lattice::studio
