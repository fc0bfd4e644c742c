// readArtifactDocument: loadArtifact, validateArtifact and the text, one after the other on the
// calling (worker) thread. The graph is parsed twice (once by each core call); both are linear
// and keep their own contracts, so the view does not re-implement either.

#include "artifactview/ArtifactDocument.h"

#include "dialect/ArtifactFiles.h"
#include "diff/ArtifactDiff.h"
#include "verify/ArtifactValidation.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace lattice::studio {

QString artifactGraphFile(const QString& path) {
  return QFileInfo(path).isDir() ? QDir(path).filePath(artifactFileName(kArtifactGraphFile))
                                 : path;
}

QString artifactFileName(std::string_view name) {
  return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

QStringList artifactSourceFiles(const QString& path) {
  const QFileInfo info(path);
  if (!info.isDir()) return {QDir::cleanPath(info.absoluteFilePath())};
  const QDir dir(info.absoluteFilePath());
  return {QDir::cleanPath(dir.filePath(artifactFileName(kArtifactGraphFile))),
          QDir::cleanPath(dir.filePath(artifactFileName(kArtifactWeightFile)))};
}

bool isArtifactPath(const QString& path) {
  return lattice::isArtifactPath(QFile::encodeName(path).toStdString());
}

std::shared_ptr<ArtifactDocument> readArtifactDocument(const QString& path, bool verify) {
  auto doc = std::make_shared<ArtifactDocument>();
  doc->path = path;
  doc->graphFile = artifactGraphFile(path);
  const std::string p = path.toStdString();
  Expected<LoadedArtifact> loaded = loadArtifact(p);
  if (loaded) {
    auto artifact = std::make_shared<LoadedArtifact>(std::move(*loaded));
    doc->opGraph = std::make_shared<ArtifactOpGraph>(artifact->graph);
    doc->artifact = std::move(artifact);
  } else {
    doc->loadError = QString::fromStdString(loaded.message());
    // When the weights are what failed (truncated, corrupt), the graph alone still shows; the
    // weights error is among the verifier's diagnostics.
    if (doc->graphFile != path && QFileInfo(doc->graphFile).isFile())
      if (Expected<LoadedArtifact> graphOnly = loadArtifact(doc->graphFile.toStdString()))
        doc->opGraph = std::make_shared<ArtifactOpGraph>(graphOnly->graph);
  }
  QFile file(doc->graphFile);
  if (file.open(QIODevice::ReadOnly)) doc->mlirText = QString::fromUtf8(file.readAll());
  if (verify) {
    ArtifactValidation validation = validateArtifact(p);
    doc->diagnostics = std::move(validation.diagnostics);
    doc->verified = true;
  }
  return doc;
}

} // namespace lattice::studio
