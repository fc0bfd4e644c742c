// ClusterItem: an expanded module group's frame with a title strip.

#include "graph/ClusterItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace lattice::studio {

namespace {
constexpr qreal kTitleHeight = 18.0;
} // namespace

ClusterItem::ClusterItem(QString modulePath, QString title, QRectF rect, int depth)
    : m_path(std::move(modulePath)), m_title(std::move(title)), m_rect(rect), m_depth(depth) {
  setZValue(0.0 + depth * 0.01);
  setToolTip(m_path.isEmpty() ? m_title : m_path + QStringLiteral("\n") + m_title);
}

QRectF ClusterItem::boundingRect() const {
  return m_rect.adjusted(-1, -1, 1, 1);
}

QRectF ClusterItem::titleRect() const {
  return QRectF(m_rect.left(), m_rect.top(), m_rect.width(), kTitleHeight);
}

QPainterPath ClusterItem::shape() const {
  QPainterPath p;
  p.addRect(titleRect());
  return p;
}

void ClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
  painter->setRenderHint(QPainter::Antialiasing, lod > 0.3);
  const int shade = qMin(m_depth, 6);
  QColor fill(0xf0 - shade * 6, 0xf3 - shade * 5, 0xf7 - shade * 4);
  fill.setAlpha(150);
  QPen border(QColor(0x9a, 0xa6, 0xb4), 1.0, Qt::DashLine);
  border.setCosmetic(true);
  painter->setPen(border);
  painter->setBrush(fill);
  painter->drawRoundedRect(m_rect, 8, 8);
  if (lod < 0.3) return;
  QFont f;
  f.setPointSizeF(8.0);
  painter->setFont(f);
  painter->setPen(QColor(0x45, 0x52, 0x60));
  const QRectF t = titleRect().adjusted(8, 2, -8, 0);
  painter->drawText(t, Qt::AlignLeft | Qt::AlignVCenter,
                    QFontMetricsF(f).elidedText(m_title, Qt::ElideMiddle, t.width()));
}

} // namespace lattice::studio
