#pragma once
/// \file OpenDialogs: what File ▸ Open asks and what a drop means. Each returns the reference to
/// open (a model path, an example:NAME or an artifact path), empty when the user cancelled.

#include <QString>

class QWidget;

namespace lattice::studio {

/// Open Example ▸ chain:N: asks for the number of conv blocks; "example:chain:N".
QString chooseChainExample(QWidget* parent);
/// Open Artifact…: a directory dialog that starts beside `lastArtifact` with it selected (Open
/// takes it again, a sibling is one click away), else in `lastDirectory`.
QString chooseArtifact(QWidget* parent, const QString& lastArtifact, const QString& lastDirectory);
/// What a file or folder dropped on the window stands for: a file inside an archive or an
/// artifact stands for its directory; a lone .mlir is an artifact of its own.
QString droppedReference(const QString& path);

} // namespace lattice::studio
