#pragma once
/// \file ClusterItem: the frame of an expanded module group (a Graphviz cluster), painted under
/// edges and nodes with the module path and type in its top-left corner, after a "−" that
/// collapses the group in one click. Clicking the rest of the title selects the module;
/// double-clicking it collapses the group too (handled by GraphWidget). GroupToggleItem: that
/// indicator, also the "+" on a collapsed group's box.

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

  /// The group's path (a module path, or a range such as `blocks[0..99]`).
  const QString& modulePath() const { return m_path; }
  /// The clickable title strip at the top.
  QRectF titleRect() const;

private:
  QString m_path;
  QString m_title;
  QRectF m_rect;
  int m_depth;
};

/// The expand ("+") or collapse ("−") indicator of a group: a child of a collapsed group's
/// NodeItem (on its top-left corner) or of an expanded group's ClusterItem (in its title strip).
/// Not selectable: a click on it is reported by GraphView::itemClicked and toggles the group.
class GroupToggleItem : public QGraphicsItem {
public:
  enum { Type = UserType + 4 };
  static constexpr qreal kSize = 14.0; ///< the badge's side, in scene units

  /// Centred on `parent`'s local point `centre`; `expanded`: the group is open (shows "−").
  GroupToggleItem(QString groupPath, bool expanded, QPointF centre, QGraphicsItem* parent);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  /// A little larger than the badge, so a click near it counts.
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  const QString& groupPath() const { return m_path; }
  bool isExpanded() const { return m_expanded; }

private:
  QString m_path;
  bool m_expanded;
};

} // namespace lattice::studio
