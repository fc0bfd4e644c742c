#pragma once
/// \file WeightsLoader: File ▸ Load Weights… for the model tab. Reads a checkpoint on a worker
/// (a progress dialog with Cancel), compares it with the session's model, asks whether to apply a
/// checkpoint with missing, unexpected or mismatched keys partially, and applies it. Errors are
/// message boxes naming the file; outcomes are status lines.

#include <QObject>
#include <QString>

#include <memory>

class QWidget;

namespace lattice {
struct Checkpoint;
}

namespace lattice::studio {

class StudioSession;

class WeightsLoader : public QObject {
  Q_OBJECT

public:
  /// Dialogs open over `dialogParent`'s window.
  WeightsLoader(StudioSession* session, QWidget* dialogParent);

  /// Where the file dialog starts (persisted as paths/weightsDirectory).
  QString directory() const { return m_directory; }
  void setDirectory(const QString& directory) { m_directory = directory; }

  /// Asks for a checkpoint file, then load().
  void chooseAndLoad();
  /// Reads `path` and applies it to the session's model (see the file comment).
  void load(const QString& path);

Q_SIGNALS:
  void statusMessage(const QString& text, int timeoutMs);

private:
  void applyInteractively(const QString& path, const std::shared_ptr<Checkpoint>& checkpoint);
  QWidget* dialogParent() const;

  StudioSession* m_session;
  QWidget* m_parent;
  QString m_directory;
};

} // namespace lattice::studio
