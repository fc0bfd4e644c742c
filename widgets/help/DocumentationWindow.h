#pragma once
/// \file DocumentationWindow: Help ▸ Documentation inside the studio, for a desktop without a
/// handler for local files (QDesktopServices::openUrl fails): the bundled README.md rendered
/// as Markdown in a QTextBrowser, with Back / Forward and links to the other bundled Markdown
/// files followed in place (web links go to the browser when there is one).

#include <QDialog>
#include <QString>

class QTextBrowser;

namespace lattice::studio {

/// The README the studio documents itself with: the installed copy, else the source tree's (a
/// build run from its tree); empty when there is neither.
QString documentationFile();

class DocumentationWindow : public QDialog {
  Q_OBJECT

public:
  /// Shows `file` (a Markdown file).
  explicit DocumentationWindow(const QString& file, QWidget* parent = nullptr);

  QTextBrowser* browser() const { return m_browser; }
  /// The file shown first.
  QString file() const { return m_file; }

private:
  QTextBrowser* m_browser;
  QString m_file;
};

} // namespace lattice::studio
