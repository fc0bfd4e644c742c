// ClusterItem: an expanded module group's frame with a title strip; GroupToggleItem: the
// one-click expand / collapse indicator of a group.

#include "graph/ClusterItem.h"
#include "graph/NodeStyle.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace lattice::studio {

namespace {
constexpr qreal kTitleHeight = 18.0;
constexpr qreal kTogglePad = 4.0;  // between the frame's left edge and the indicator
constexpr qreal kToggleSlop = 3.0; // extra hit area around the indicator
} // namespace

ClusterItem::ClusterItem(QString modulePath, QString title, QRectF rect, int depth)
    : m_path(std::move(modulePath)), m_title(std::move(title)), m_rect(rect), m_depth(depth) {
  setZValue(0.0 + depth * 0.01);
  setToolTip(m_path.isEmpty() ? m_title : m_path + QStringLiteral("\n") + m_title);
  const QRectF t = titleRect();
  new GroupToggleItem(m_path, true, QPointF(t.left() + kTogglePad + GroupToggleItem::kSize / 2, t.center().y()),
                      this);
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
  // Deeper groups are a shade further from the canvas: darker on a light one, lighter on a dark one.
  const int shade = qMin(m_depth, 6);
  const bool dark = palette::dark();
  QColor fill = dark ? QColor(0x2a + shade * 6, 0x2f + shade * 6, 0x36 + shade * 6)
                     : QColor(0xf0 - shade * 6, 0xf3 - shade * 5, 0xf7 - shade * 4);
  fill.setAlpha(150);
  QPen border(dark ? QColor(0x5c, 0x68, 0x76) : QColor(0x9a, 0xa6, 0xb4), 1.0, Qt::DashLine);
  border.setCosmetic(true);
  painter->setPen(border);
  painter->setBrush(fill);
  painter->drawRoundedRect(m_rect, 8, 8);
  if (lod < 0.3) return;
  QFont f;
  f.setPointSizeF(8.0);
  painter->setFont(f);
  painter->setPen(dark ? QColor(0xc4, 0xcc, 0xd6) : QColor(0x45, 0x52, 0x60));
  // The title starts after the collapse indicator.
  const QRectF t = titleRect().adjusted(2 * kTogglePad + GroupToggleItem::kSize, 2, -8, 0);
  painter->drawText(t, Qt::AlignLeft | Qt::AlignVCenter,
                    QFontMetricsF(f).elidedText(m_title, Qt::ElideMiddle, t.width()));
}

// --- GroupToggleItem ----------------------------------------------------------------------------

GroupToggleItem::GroupToggleItem(QString groupPath, bool expanded, QPointF centre, QGraphicsItem* parent)
    : QGraphicsItem(parent), m_path(std::move(groupPath)), m_expanded(expanded) {
  setPos(centre);
  setCursor(Qt::PointingHandCursor);
  setToolTip(expanded ? QCoreApplication::translate("GroupToggleItem", "Collapse %1 (Shift+Left)").arg(m_path)
                      : QCoreApplication::translate("GroupToggleItem", "Expand %1 (Shift+Right)").arg(m_path));
}

QRectF GroupToggleItem::boundingRect() const {
  const qreal h = kSize / 2 + kToggleSlop + 1;
  return QRectF(-h, -h, 2 * h, 2 * h);
}

QPainterPath GroupToggleItem::shape() const {
  QPainterPath p;
  const qreal h = kSize / 2 + kToggleSlop;
  p.addRect(QRectF(-h, -h, 2 * h, 2 * h));
  return p;
}

void GroupToggleItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
  if (lod < 0.25) return; // too small to hit or read
  painter->setRenderHint(QPainter::Antialiasing, true);
  const QRectF r(-kSize / 2, -kSize / 2, kSize, kSize);
  const bool dark = palette::dark();
  QPen border(dark ? QColor(0x8a, 0x96, 0xa4) : QColor(0x5a, 0x6b, 0x7d), 1.0);
  border.setCosmetic(lod < 1.0);
  painter->setPen(border);
  painter->setBrush(dark ? QColor(0x33, 0x39, 0x41) : QColor(0xfd, 0xfe, 0xff));
  painter->drawRoundedRect(r, 3, 3);
  QPen mark(dark ? QColor(0xdd, 0xe3, 0xea) : QColor(0x2b, 0x38, 0x47), 1.6);
  mark.setCapStyle(Qt::RoundCap);
  painter->setPen(mark);
  const qreal arm = kSize / 2 - 3.5;
  painter->drawLine(QPointF(-arm, 0), QPointF(arm, 0));
  if (!m_expanded) painter->drawLine(QPointF(0, -arm), QPointF(0, arm));
}

} // namespace lattice::studio
