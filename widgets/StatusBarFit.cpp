#include "StatusBarFit.h"

#include <QEvent>
#include <QLabel>
#include <QStatusBar>

#include <algorithm>

namespace lattice::studio {

StatusBarFit::StatusBarFit(QStatusBar* bar, const QList<QWidget*>& permanent) : QObject(bar), m_bar(bar) {
  for (QWidget* w : permanent) {
    if (qobject_cast<QLabel*>(w)) w->setMinimumWidth(w->fontMetrics().averageCharWidth() * 6);
    bar->addPermanentWidget(w);
    m_permanent << w;
  }
  bar->installEventFilter(this);
  connect(bar, &QStatusBar::messageChanged, this, &StatusBarFit::fit);
}

void StatusBarFit::fit() {
  QList<QWidget*> labels;
  for (const QPointer<QWidget>& w : m_permanent)
    if (w && qobject_cast<QLabel*>(w.data()) && !w->isHidden()) labels << w.data();
  if (labels.isEmpty()) return;
  // A message keeps the room it needs, up to two thirds of the bar; the labels share the rest.
  const QString message = m_bar->currentMessage();
  const int wanted = message.isEmpty() ? 0 : m_bar->fontMetrics().horizontalAdvance(message) + 24;
  const int rest = m_bar->width() - std::min(wanted, m_bar->width() * 2 / 3) - 24;
  const int each = message.isEmpty() ? QWIDGETSIZE_MAX
                                     : std::max(rest / int(labels.size()), labels.front()->minimumWidth());
  for (QWidget* w : labels)
    w->setMaximumWidth(each);
}

bool StatusBarFit::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_bar && event->type() == QEvent::Resize) fit();
  return QObject::eventFilter(watched, event);
}

} // namespace lattice::studio
