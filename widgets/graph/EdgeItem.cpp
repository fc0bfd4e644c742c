// EdgeItem: Graphviz's spline control points become one QPainterPath of cubic segments; the
// arrowhead is computed from the last segment's direction. Straight segments are used when the
// point count is not 1 + 3k (a defensive fallback, Graphviz always emits 1 + 3k).

#include "graph/EdgeItem.h"

#include "graph/NodeItem.h"
#include "graph/NodeStyle.h"

#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <QtMath>

namespace lattice::studio {

namespace {
constexpr qreal kArrowLength = 8.0;
constexpr qreal kArrowHalfWidth = 3.5;
} // namespace

EdgeItem::EdgeItem(NodeItem* from, NodeItem* to, const QVector<QPointF>& points,
                   std::optional<QPointF> arrowHead)
    : m_from(from), m_to(to) {
  setZValue(1.0);
  setFlag(ItemIsSelectable, false);
  if (points.size() < 2) {
    // No route: straight line between the boxes' centres.
    if (from && to) {
      m_path.moveTo(from->pos());
      m_path.lineTo(to->pos());
    }
  } else {
    m_path.moveTo(points.front());
    if ((points.size() - 1) % 3 == 0) {
      for (int i = 1; i + 2 < points.size(); i += 3)
        m_path.cubicTo(points[i], points[i + 1], points[i + 2]);
    } else {
      for (int i = 1; i < points.size(); ++i)
        m_path.lineTo(points[i]);
    }
  }
  if (m_path.isEmpty()) {
    m_bounds = QRectF();
    return;
  }
  // Arrowhead: from the spline's end to Graphviz's tip, else along the last tangent.
  QPointF tip = m_path.currentPosition();
  QPointF back;
  qreal length = kArrowLength;
  if (arrowHead && QLineF(tip, *arrowHead).length() > 0.5) {
    back = tip;
    tip = *arrowHead;
    length = QLineF(tip, back).length(); // the arrow fills the gap the spline left
  } else {
    back = m_path.pointAtPercent(qMax(0.0, 1.0 - kArrowLength / qMax<qreal>(kArrowLength, m_path.length())));
  }
  QLineF dir(tip, back);
  if (dir.length() < 1e-6) dir = QLineF(tip, tip - QPointF(0, 1));
  dir.setLength(length);
  const QPointF base = dir.p2();
  QLineF normal = dir.normalVector();
  normal.setLength(kArrowHalfWidth);
  const QPointF offset = normal.p2() - normal.p1();
  m_arrow << tip << base + offset << base - offset;
  m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).adjusted(-4, -4, 4, 4);
}

QRectF EdgeItem::boundingRect() const {
  return m_bounds;
}

QPainterPath EdgeItem::shape() const {
  QPainterPathStroker stroker;
  stroker.setWidth(6);
  return stroker.createStroke(m_path);
}

void EdgeItem::setHighlighted(bool on) {
  if (on == m_highlighted) return;
  m_highlighted = on;
  setZValue(on ? 1.5 : 1.0);
  update();
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
  painter->setRenderHint(QPainter::Antialiasing, lod > 0.3);
  const QColor color = m_highlighted ? palette::selection() : palette::edge();
  QPen pen(color, m_highlighted ? 2.2 : 1.1);
  pen.setCosmetic(true); // constant on screen whatever the zoom
  painter->setPen(pen);
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(m_path);
  if (lod > 0.2) {
    painter->setPen(Qt::NoPen);
    painter->setBrush(color);
    painter->drawPolygon(m_arrow);
  }
}

} // namespace lattice::studio
