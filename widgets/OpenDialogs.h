#pragma once
/// \file OpenDialogs: what File ▸ Open asks and what a drop means. Each returns the reference to
/// open (a model path, an example:NAME or an artifact path), empty when the user cancelled.

#include <QFileDialog>
#include <QString>

#include <functional>

class QMenu;
class QWidget;

namespace lattice::studio {

/// File ▸ Open Artifact…'s chooser: an artifact is a directory (graph.mlir and
/// weights.safetensors) or a lone `.mlir` file, as lattice-cli takes them. Qt's own dialog
/// (native ones cannot choose both): Open on an artifact directory selects it instead of
/// entering it, and choosing the graph.mlir inside one selects the directory.
class ArtifactFileDialog : public QFileDialog {
public:
  ArtifactFileDialog(QWidget* parent, const QString& directory);
  /// What to open after exec() returned Accepted.
  QString chosen() const { return m_chosen; }
  /// Open pressed (public so tests can press it).
  void accept() override;

private:
  QString m_chosen;
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
