// DocumentationWindow: a QTextBrowser over the bundled Markdown, its size remembered.
#include "help/DocumentationWindow.h"

#include "WindowFit.h"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QPushButton>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace lattice::studio {

QString documentationFile() {
  const QStringList candidates = {QCoreApplication::applicationDirPath() +
                                      QStringLiteral("/../share/doc/lattice-studio/README.md"),
                                  QStringLiteral(LATTICE_SOURCE_DIR "/README.md")};
  for (const QString& path : candidates)
    if (QFileInfo::exists(path)) return QFileInfo(path).canonicalFilePath();
  return {};
}

DocumentationWindow::DocumentationWindow(const QString& file, QWidget* parent)
    : QDialog(parent), m_browser(new QTextBrowser(this)), m_file(file) {
  setObjectName(QStringLiteral("documentationWindow"));
  setWindowTitle(tr("Lattice Studio Documentation — %1").arg(QFileInfo(file).fileName()));
  setWindowFlag(Qt::WindowMaximizeButtonHint);
  m_browser->setObjectName(QStringLiteral("documentationBrowser"));
  m_browser->setOpenLinks(false);
  m_browser->setSearchPaths({QFileInfo(file).absolutePath()});
  m_browser->setSource(QUrl::fromLocalFile(QFileInfo(file).absoluteFilePath()), QTextDocument::MarkdownResource);
  // Local files (Markdown or text) open here; anything else goes to the desktop's handler.
  connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    const QUrl resolved = m_browser->source().resolved(url);
    if (resolved.isLocalFile() && QFileInfo(resolved.toLocalFile()).isFile())
      m_browser->setSource(resolved, resolved.path().endsWith(QLatin1String(".md")) ? QTextDocument::MarkdownResource
                                                                                  : QTextDocument::UnknownResource);
    else if (url.scheme().isEmpty() && url.hasFragment())
      m_browser->scrollToAnchor(url.fragment());
    else
      QDesktopServices::openUrl(resolved);
  });

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  QPushButton* back = buttons->addButton(tr("Back"), QDialogButtonBox::ActionRole);
  QPushButton* forward = buttons->addButton(tr("Forward"), QDialogButtonBox::ActionRole);
  back->setEnabled(false);
  forward->setEnabled(false);
  connect(back, &QPushButton::clicked, m_browser, &QTextBrowser::backward);
  connect(forward, &QPushButton::clicked, m_browser, &QTextBrowser::forward);
  connect(m_browser, &QTextBrowser::backwardAvailable, back, &QPushButton::setEnabled);
  connect(m_browser, &QTextBrowser::forwardAvailable, forward, &QPushButton::setEnabled);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_browser, 1);
  layout->addWidget(buttons);

  restoreWindowSize(this, QStringLiteral("documentation"), QSize(860, 680));
  connect(this, &QDialog::finished, this, [this] { saveWindowSize(this, QStringLiteral("documentation")); });
}

} // namespace lattice::studio
