// ChangedOnDiskBar: the bar's widgets and its text. What a change means for a tab (the model
// keeps breakpoints and inputs on Reload) is the tab's own staleNote().

#include "ChangedOnDiskBar.h"

#include "StudioDocument.h"
#include "StudioSession.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace lattice::studio {

namespace {

/// "<b>weights.safetensors</b>", "<b>model.json</b> and <b>weights.safetensors</b>".
QString fileList(const QStringList& files) {
  QStringList names;
  for (const QString& f : files)
    names << QStringLiteral("<b>%1</b>").arg(QFileInfo(f).fileName().toHtmlEscaped());
  if (names.size() <= 1) return names.value(0);
  const QString last = names.takeLast();
  return ChangedOnDiskBar::tr("%1 and %2").arg(names.join(QStringLiteral(", ")), last);
}

} // namespace

ChangedOnDiskBar::ChangedOnDiskBar(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("changedOnDiskBar"));
  setFrameShape(QFrame::NoFrame);
  setAutoFillBackground(true);
  // An information bar as editors show one: amber, one line, never modal.
  setStyleSheet(QStringLiteral("QFrame#changedOnDiskBar { background: #fff4d0; border-bottom: 1px solid #e0b84a; }"
                               "QFrame#changedOnDiskBar QLabel { color: #4a3800; }"));
  m_text = new QLabel(this);
  m_text->setObjectName(QStringLiteral("changedOnDiskText"));
  m_text->setTextFormat(Qt::RichText);
  m_text->setWordWrap(true);
  m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_reload = new QPushButton(tr("Reload"), this);
  m_reload->setObjectName(QStringLiteral("changedOnDiskReload"));
  auto* ignoreButton = new QPushButton(tr("Ignore"), this);
  ignoreButton->setObjectName(QStringLiteral("changedOnDiskIgnore"));
  ignoreButton->setToolTip(tr("Keep what is shown; a later change is reported again"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(10, 4, 6, 4);
  layout->setSpacing(6);
  layout->addWidget(m_text, 1);
  layout->addWidget(m_reload);
  layout->addWidget(ignoreButton);
  connect(m_reload, &QPushButton::clicked, this, &ChangedOnDiskBar::reloadRequested);
  connect(ignoreButton, &QPushButton::clicked, this, &ChangedOnDiskBar::ignore);
  hide();
}

void ChangedOnDiskBar::setCurrent(StudioDocument* tab) {
  m_current = tab;
  refresh();
}

void ChangedOnDiskBar::setChanged(StudioDocument* tab, const QStringList& files) {
  if (files.isEmpty())
    m_changes.remove(tab);
  else
    m_changes[tab] = DiskChange{files, QString()};
  refresh();
}

void ChangedOnDiskBar::setReloadFailed(StudioDocument* tab, const QString& message) {
  m_changes[tab].reloadError = message;
  refresh();
}

void ChangedOnDiskBar::clear(StudioDocument* tab) {
  m_changes.remove(tab);
  refresh();
}

void ChangedOnDiskBar::ignore() {
  if (!m_current) return;
  if (FileChangeWatcher* watcher = m_current->fileWatcher()) watcher->acceptCurrent();
  m_changes.remove(m_current);
  refresh();
}

void ChangedOnDiskBar::refresh() {
  const auto it = m_changes.constFind(m_current);
  if (!m_current || it == m_changes.constEnd()) {
    hide();
    return;
  }
  const QString what = m_current->sourceName().toHtmlEscaped();
  QString text;
  if (!it->reloadError.isEmpty()) {
    text = tr("Reloading <b>%1</b> failed: %2<br>The model read before is still shown; Reload again once the "
              "files are complete.")
               .arg(what, it->reloadError.section(QLatin1Char('\n'), 0, 0).toHtmlEscaped());
  } else {
    QStringList changed, gone;
    for (const QString& f : it->files)
      (QFileInfo::exists(f) ? changed : gone) << f;
    QStringList parts;
    if (!changed.isEmpty())
      parts << tr("%1 changed on disk").arg(fileList(changed));
    if (!gone.isEmpty())
      parts << (gone.size() == 1 ? tr("%1 was deleted") : tr("%1 were deleted")).arg(fileList(gone));
    text = QStringLiteral("%1 (%2). %3").arg(parts.join(tr("; ")), what, m_current->staleNote());
  }
  m_text->setText(text);
  m_reload->setToolTip(
      tr("Read the files again (File ▸ Reload, %1)").arg(m_reloadShortcut.toString(QKeySequence::NativeText)));
  show();
}

} // namespace lattice::studio
