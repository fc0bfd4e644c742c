#pragma once
/// \file EdgeItem: one edge of the graph view, a cubic Bézier path from the layout's control
/// points with an arrowhead, drawn under the nodes with a cosmetic pen (width follows zoom).

#include <QGraphicsItem>
#include <QPainterPath>
#include <QPointF>
#include <QVector>

#include <optional>

namespace lattice::studio {

class NodeItem;

class EdgeItem : public QGraphicsItem {
public:
  enum { Type = UserType + 2 };

  /// `points`: Graphviz spline control points (start, then three per cubic segment), already in
  /// scene coordinates (y down). `arrowHead`: the arrow's tip when the spline stops short of the
  /// head node (Graphviz `e,x,y`); otherwise the arrow ends at the spline's last point.
  EdgeItem(NodeItem* from, NodeItem* to, const QVector<QPointF>& points,
           std::optional<QPointF> arrowHead = std::nullopt);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  NodeItem* from() const { return m_from; }
  NodeItem* to() const { return m_to; }
  /// Emphasised while one of its ends is selected.
  void setHighlighted(bool on);
  bool isHighlighted() const { return m_highlighted; }

private:
  NodeItem* m_from;
  NodeItem* m_to;
  QPainterPath m_path;
  QPolygonF m_arrow;
  QRectF m_bounds;
  bool m_highlighted = false;
};

} // namespace lattice::studio
