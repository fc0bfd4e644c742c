#pragma once
/// \file ClusterItem: the frame of an expanded module group (a Graphviz cluster), painted under
/// edges and nodes with the module path and type in its top-left corner. Clicking its title
/// selects the module; double-clicking it collapses the group (handled by the scene).

#include <QGraphicsItem>
#include <QPainterPath>
#include <QString>

namespace lattice::studio {

class ClusterItem : public QGraphicsItem {
public:
  enum { Type = UserType + 3 };

  /// `rect` in scene coordinates; `depth` the nesting level (0 = outermost) for the tint.
  ClusterItem(QString modulePath, QString title, QRectF rect, int depth);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  /// Only the title strip is hit by clicks: the inside belongs to the background.
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  const QString& modulePath() const { return m_path; }
  /// The clickable title strip at the top.
  QRectF titleRect() const;

private:
  QString m_path;
  QString m_title;
  QRectF m_rect;
  int m_depth;
};

} // namespace lattice::studio
