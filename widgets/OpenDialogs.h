#pragma once
/// \file OpenDialogs: what File ▸ Open asks (the model and artifact choosers, the examples) and
/// what a drop means. Each gives the reference to open (a model path, an example:NAME or an
/// artifact path), empty when the user cancelled.

#include <QFileDialog>
#include <QString>

#include <functional>

class QMenu;
class QWidget;

namespace lattice::studio {

/// True for an `.ltfx` archive directory (it holds `model.json`).
bool isArchiveDirectory(const QString& path);

/// A chooser of documents that are either a file or a directory (a model archive, an artifact):
/// no native dialog picks both, so this is Qt's own dialog with one change. Open on a document
/// directory selects it instead of entering it, and a file inside one stands for the directory.
class DocumentFileDialog : public QFileDialog {
public:
  /// What to open after exec() returned Accepted.
  QString chosen() const { return m_chosen; }
  /// Open pressed (public so tests can press it).
  void accept() override;

protected:
  DocumentFileDialog(QWidget* parent, const QString& title, const QString& directory,
                     const QStringList& filters);
  /// True when `path` is a directory that is a document of its own.
  virtual bool isDocumentDirectory(const QString& path) const = 0;
  /// What a chosen file stands for: the document directory it is part of, else itself.
  virtual QString standsFor(const QString& file) const = 0;

private:
  QString m_chosen;
};

/// File ▸ Open Model…'s chooser: a TorchScript `.pt`/`.pth` file or an `.ltfx` archive directory
/// (fx-archive.md), whose `model.json` stands for the archive.
class ModelFileDialog : public DocumentFileDialog {
public:
  ModelFileDialog(QWidget* parent, const QString& directory);

protected:
  bool isDocumentDirectory(const QString& path) const override;
  QString standsFor(const QString& file) const override;
};

/// File ▸ Open Artifact…'s chooser: an artifact directory (graph.mlir and weights.safetensors),
/// whose files stand for it as a drop of them does, or a lone `.mlir` file, as lattice-cli takes
/// them.
class ArtifactFileDialog : public DocumentFileDialog {
public:
  ArtifactFileDialog(QWidget* parent, const QString& directory);

protected:
  bool isDocumentDirectory(const QString& path) const override;
  QString standsFor(const QString& file) const override;
};

/// Open Example ▸ chain:N: asks for the number of conv blocks; "example:chain:N".
QString chooseChainExample(QWidget* parent);
/// Fills File ▸ Open Example: one entry per built-in model, and chain:N, which asks for N (over
/// `parent`). A chosen example goes to `open` as "example:NAME".
void fillExamplesMenu(QMenu* menu, QWidget* parent, const std::function<void(const QString&)>& open);
/// Open Artifact…: an ArtifactFileDialog that starts beside `lastArtifact` with it selected
/// (Open takes it again, a sibling is one click away), else in `lastDirectory`.
QString chooseArtifact(QWidget* parent, const QString& lastArtifact, const QString& lastDirectory);
/// What a file or folder dropped on the window stands for: a file inside an archive or an
/// artifact stands for its directory; a lone .mlir is an artifact of its own.
QString droppedReference(const QString& path);

} // namespace lattice::studio
