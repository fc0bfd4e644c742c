// The figure badge: a pill on a box's bottom edge with an overlay's number.

#include "graph/FigureBadge.h"

#include <QFontMetricsF>
#include <QPainter>

namespace lattice::studio {

namespace {

constexpr qreal kBadgePadX = 5.0;
constexpr qreal kBadgePadY = 1.0;
/// The smallest on-screen line height (device pixels) of a badge that is painted.
constexpr qreal kMinReadablePx = 8.0;

} // namespace

QFont figureFont() {
  QFont f;
  f.setPointSizeF(7.5);
  f.setWeight(QFont::DemiBold);
  return f;
}

QRectF figureBadgeRect(const QRectF& face, const QString& text) {
  const QFontMetricsF fm(figureFont());
  const qreal h = fm.height() + 2 * kBadgePadY;
  const qreal w = fm.horizontalAdvance(text) + 2 * kBadgePadX;
  // Mostly below the edge: the label lines above keep their descenders.
  return QRectF(face.center().x() - w / 2, face.bottom() - 0.3 * h, w, h);
}

bool figureReadable(qreal lod) {
  return QFontMetricsF(figureFont()).height() * lod >= kMinReadablePx;
}

bool paintFigureBadge(QPainter* painter, const QRectF& face, const QString& text, const QColor& heat,
                      qreal lod) {
  if (text.isEmpty() || !figureReadable(lod)) return false;
  const QRectF badge = figureBadgeRect(face, text);
  // A light tint of the heat with dark text reads on every heat colour and either palette.
  const QColor base = heat.isValid() ? heat : QColor(0xb0, 0xb0, 0xb0);
  const QColor fill = QColor::fromRgbF(0.45f * base.redF() + 0.55f, 0.45f * base.greenF() + 0.55f,
                                       0.45f * base.blueF() + 0.55f);
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing, true);
  QPen border(base.darker(130), 1.0);
  border.setCosmetic(true);
  painter->setPen(border);
  painter->setBrush(fill);
  painter->drawRoundedRect(badge, badge.height() / 2, badge.height() / 2);
  painter->setFont(figureFont());
  painter->setPen(QColor(0x1e, 0x1e, 0x1e));
  painter->drawText(badge, Qt::AlignCenter, text);
  painter->restore();
  return true;
}

} // namespace lattice::studio
