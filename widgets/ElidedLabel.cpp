// ElidedLabel: QLabel painting, except when the text is wider than the label: then the plain
// text, elided at the right.
#include "ElidedLabel.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QStyle>
#include <QTextDocumentFragment>
#include <QToolTip>

#include <algorithm>

namespace lattice::studio {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
  setWordWrap(false);
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

ElidedLabel::ElidedLabel(const QString& text, QWidget* parent) : ElidedLabel(parent) {
  setText(text);
}

QSize ElidedLabel::minimumSizeHint() const {
  const QMargins m = contentsMargins();
  const int w = fontMetrics().horizontalAdvance(QStringLiteral("xxxxxx…")) + 2 * margin() + m.left() + m.right();
  return {std::min(w, sizeHint().width()), QLabel::minimumSizeHint().height()};
}

QString ElidedLabel::plainText() const {
  const bool rich = textFormat() == Qt::RichText || (textFormat() == Qt::AutoText && Qt::mightBeRichText(text()));
  QString plain = rich ? QTextDocumentFragment::fromHtml(text()).toPlainText() : text();
  plain.replace(QLatin1Char('\n'), QLatin1Char(' '));
  return plain;
}

bool ElidedLabel::isElided() const {
  return !text().isEmpty() && sizeHint().width() > width();
}

void ElidedLabel::paintEvent(QPaintEvent* event) {
  if (!isElided()) {
    QLabel::paintEvent(event);
    return;
  }
  QPainter p(this);
  const QRect area = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
  const QString shown = fontMetrics().elidedText(plainText(), Qt::ElideRight, area.width());
  style()->drawItemText(&p, area, int(Qt::AlignLeft | Qt::AlignVCenter), palette(), isEnabled(), shown,
                        foregroundRole());
}

bool ElidedLabel::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && toolTip().isEmpty() && isElided()) {
    QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), plainText(), this);
    return true;
  }
  return QLabel::event(event);
}

} // namespace lattice::studio
