#pragma once
/// \file ModelFileDialog: File ▸ Open Model…'s chooser. A model is either a file (a TorchScript
/// `.pt`/`.pth`) or a directory (an `.ltfx` archive, fx-archive.md), and no native dialog picks
/// both, so this is Qt's own dialog with one change: pressing Open on an archive directory
/// selects it instead of entering it, and choosing the `model.json` inside one selects the archive.

#include <QFileDialog>

namespace lattice::studio {

/// True for an `.ltfx` archive directory (it holds `model.json`).
bool isArchiveDirectory(const QString& path);

class ModelFileDialog : public QFileDialog {
public:
  ModelFileDialog(QWidget* parent, const QString& directory);

  /// What to open after exec() returned Accepted: a `.pt` file or an archive directory.
  QString chosen() const { return m_chosen; }

  /// Open pressed (public so tests can press it).
  void accept() override;

private:
  QString m_chosen;
};

} // namespace lattice::studio
