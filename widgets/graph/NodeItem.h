#pragma once
/// \file NodeItem: one box of the graph view, an FX node or a collapsed module group. It paints
/// its own label (Graphviz only reserved the space) and its states: selected, the interpreter's
/// current node, executed, failed, breakpoint, export blocker, search hit; and an overlay's
/// figure (time, error) in a badge on its bottom edge when the zoom lets it be read.

#include "graph/NodeStyle.h"

#include <QGraphicsItem>
#include <QString>

namespace lattice::studio {

class NodeItem : public QGraphicsItem {
public:
  enum { Type = UserType + 1 };
  enum State : unsigned {
    Current = 1u << 0,    ///< the interpreter's next node
    Executed = 1u << 1,   ///< already ran
    Failed = 1u << 2,     ///< the interpreter stopped here with an error
    Breakpoint = 1u << 3, ///< a breakpoint is set on it
    SearchHit = 1u << 4,  ///< matches the search text
    BreakpointDisabled = 1u << 5, ///< its breakpoint is disabled (drawn hollow)
  };

  /// `key` is the node name, or for a group the module path; `size` the box Graphviz laid out.
  NodeItem(QString key, NodeRole role, NodeLabel label, QSizeF size, bool isGroup = false);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  /// The FX node name, or the module path of a group.
  const QString& key() const { return m_key; }
  bool isGroup() const { return m_isGroup; }
  NodeRole role() const { return m_role; }
  /// A new role (the lowering's verdict changed): repaints.
  void setRole(NodeRole role);
  const NodeLabel& label() const { return m_label; }
  /// Groups: how many nodes they stand for (shown in the label).
  void setMemberCount(int count);
  int memberCount() const { return m_memberCount; }

  /// An overlay colour (invalid: none), painted as a band along the bottom of the box and a tint.
  void setHeat(const QColor& heat);
  const QColor& heat() const { return m_heat; }

  /// An overlay's figure: `text` painted in a badge on the box's bottom edge when the zoom lets
  /// it be read (empty: none), `detail` added to the tooltip under the label (empty: none). The
  /// tooltip set with setToolTip stays the part above.
  void setFigure(const QString& text, const QString& detail);
  const QString& figureText() const { return m_figure; }
  const QString& figureDetail() const { return m_figureDetail; }

  unsigned states() const { return m_states; }
  void setState(State state, bool on);
  bool hasState(State state) const { return (m_states & state) != 0; }

  /// The box size a label needs (what the layout is asked to reserve).
  static QSizeF preferredSize(const NodeLabel& label, bool isGroup = false);

private:
  QRectF box() const;

  QString m_key;
  NodeRole m_role;
  NodeLabel m_label;
  QSizeF m_size;
  bool m_isGroup;
  int m_memberCount = 0;
  unsigned m_states = 0;
  QColor m_heat;
  QString m_figure;
  QString m_figureDetail;
  QString m_baseToolTip;     ///< the tooltip before the figure's detail was added
  QString m_composedToolTip; ///< what setFigure set (another text: set by someone since)
};

} // namespace lattice::studio
