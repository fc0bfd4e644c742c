// NodeItem painting: a rounded box in its role's colours with a two-line label, and the
// interpreter/search/breakpoint states as overlays, and an overlay's figure badge. Text is
// skipped when zoomed far out.

#include "graph/NodeItem.h"

#include "graph/FigureBadge.h"
#include "graph/NodeFonts.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace lattice::studio {

namespace {

constexpr qreal kPadX = 10.0;
constexpr qreal kPadY = 6.0;
constexpr qreal kRadius = 6.0;
constexpr qreal kMinWidth = 72.0;
constexpr qreal kMaxWidth = 260.0;
constexpr qreal kMarker = 10.0; // breakpoint dot / blocker badge

} // namespace

NodeItem::NodeItem(QString key, NodeRole role, NodeLabel label, QSizeF size, bool isGroup)
    : m_key(std::move(key)), m_role(role), m_label(std::move(label)), m_size(size), m_isGroup(isGroup) {
  setFlags(ItemIsSelectable);
  setAcceptHoverEvents(false);
  setZValue(isGroup ? 2.0 : 3.0);
  setToolTip(m_label.subtitle.isEmpty() ? m_label.title
                                        : m_label.title + QLatin1Char('\n') + m_label.subtitle);
}

QSizeF NodeItem::preferredSize(const NodeLabel& label, bool isGroup) {
  const QFontMetricsF title(nodeTitleFont());
  const QFontMetricsF sub(nodeSubtitleFont());
  qreal w =
      qMax(title.horizontalAdvance(label.title), sub.horizontalAdvance(label.subtitle)) + 2 * kPadX + kMarker;
  w = qBound(kMinWidth, w, kMaxWidth);
  qreal h = title.height() + 2 * kPadY;
  if (!label.subtitle.isEmpty()) h += sub.height();
  if (isGroup) {
    w += 8.0; // room for the stacked-card look
    h += 14.0;
  }
  return {std::ceil(w), std::ceil(h)};
}

void NodeItem::setRole(NodeRole role) {
  if (role == m_role) return;
  m_role = role;
  update();
}

void NodeItem::setMemberCount(int count) {
  m_memberCount = count;
  update();
}

void NodeItem::setState(State state, bool on) {
  const unsigned next = on ? (m_states | state) : (m_states & ~unsigned(state));
  if (next == m_states) return;
  m_states = next;
  setZValue(next & Current ? 4.0 : (m_isGroup ? 2.0 : 3.0));
  update();
}

QRectF NodeItem::box() const {
  return QRectF(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height());
}

QRectF NodeItem::boundingRect() const {
  const QRectF r = box().adjusted(-7, -7, 7, 7); // halo and markers paint outside the box
  if (m_figure.isEmpty()) return r;
  const QRectF face = m_isGroup ? box().adjusted(0, 8, -8, 0) : box();
  return r.united(figureBadgeRect(face, m_figure).adjusted(-1, -1, 1, 1));
}

QPainterPath NodeItem::shape() const {
  QPainterPath p;
  p.addRoundedRect(box(), kRadius, kRadius);
  return p;
}

void NodeItem::setHeat(const QColor& heat) {
  if (heat == m_heat) return;
  m_heat = heat;
  update();
}

void NodeItem::setFigure(const QString& text, const QString& detail) {
  if (text != m_figure) {
    prepareGeometryChange();
    m_figure = text;
    update();
  }
  // The label's tooltip may have been replaced since the last figure (a group's, by the scene).
  const QString current = toolTip();
  if (m_composedToolTip.isNull() || current != m_composedToolTip) m_baseToolTip = current;
  m_figureDetail = detail;
  m_composedToolTip = detail.isEmpty() ? m_baseToolTip : m_baseToolTip + QStringLiteral("\n\n") + detail;
  setToolTip(m_composedToolTip);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const NodeRoleStyle& style = roleStyle(m_role);
  const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
  const QRectF r = box();
  painter->setRenderHint(QPainter::Antialiasing, lod > 0.3);

  // Halos first: search hit, then the current node's glow.
  if (hasState(SearchHit)) {
    painter->setPen(Qt::NoPen);
    painter->setBrush(palette::searchHit());
    painter->drawRoundedRect(r.adjusted(-5, -5, 5, 5), kRadius + 4, kRadius + 4);
  }
  if (hasState(Current)) {
    QColor glow = palette::current();
    glow.setAlpha(90);
    painter->setPen(Qt::NoPen);
    painter->setBrush(glow);
    painter->drawRoundedRect(r.adjusted(-6, -6, 6, 6), kRadius + 5, kRadius + 5);
  }

  if (m_isGroup) { // stacked cards behind the face
    painter->setPen(QPen(style.border, 0));
    painter->setBrush(style.fill.darker(108));
    painter->drawRoundedRect(r.adjusted(8, 0, 0, -8), kRadius, kRadius);
    painter->drawRoundedRect(r.adjusted(4, 4, -4, -4).translated(0, -4), kRadius, kRadius);
  }
  const QRectF face = m_isGroup ? r.adjusted(0, 8, -8, 0) : r;

  QColor fill = style.fill;
  if (hasState(Executed) && !hasState(Failed)) fill = fill.darker(106);
  if (m_heat.isValid()) { // the overlay tints the box
    fill = QColor::fromRgbF(0.65 * fill.redF() + 0.35 * m_heat.redF(), 0.65 * fill.greenF() + 0.35 * m_heat.greenF(),
                            0.65 * fill.blueF() + 0.35 * m_heat.blueF());
  }
  QPen border(style.border, style.blocker ? 1.6 : 1.2);
  border.setCosmetic(lod < 1.0);
  if (hasState(Failed)) border = QPen(palette::failed(), 2.6);
  if (hasState(Current)) border = QPen(palette::current(), 2.6);
  if (isSelected()) border = QPen(palette::selection(), 3.0);
  if (style.blocker && !isSelected() && !hasState(Current) && !hasState(Failed))
    border.setStyle(Qt::DashLine);
  painter->setPen(border);
  painter->setBrush(fill);
  painter->drawRoundedRect(face, kRadius, kRadius);

  if (m_heat.isValid()) { // and marks it with a band along the bottom
    painter->setPen(Qt::NoPen);
    painter->setBrush(m_heat);
    painter->drawRoundedRect(QRectF(face.left() + 3, face.bottom() - 6, face.width() - 6, 4), 1.5, 1.5);
  }

  // A thin stripe on the left: executed (green) or failed (red).
  if (hasState(Executed) || hasState(Failed)) {
    painter->setPen(Qt::NoPen);
    painter->setBrush(hasState(Failed) ? palette::failed() : QColor(0x2e, 0x9d, 0x4f));
    painter->drawRoundedRect(QRectF(face.left() + 2, face.top() + 3, 3.5, face.height() - 6), 1.5, 1.5);
  }

  if (lod >= 0.35) {
    const QRectF text = face.adjusted(kPadX, kPadY - 1, -kPadX, -kPadY + 1);
    painter->setPen(style.text);
    painter->setFont(nodeTitleFont());
    const QFontMetricsF tm(nodeTitleFont());
    const QString& subtitle = m_label.subtitle;
    const Qt::Alignment align = Qt::AlignHCenter | Qt::AlignTop;
    painter->drawText(QRectF(text.left(), text.top(), text.width(), tm.height()), align,
                      tm.elidedText(m_label.title, Qt::ElideMiddle, text.width()));
    if (!subtitle.isEmpty()) {
      const QFontMetricsF sm(nodeSubtitleFont());
      painter->setFont(nodeSubtitleFont());
      QColor c = style.text;
      c.setAlpha(190);
      painter->setPen(c);
      painter->drawText(QRectF(text.left(), text.top() + tm.height(), text.width(), sm.height()), align,
                        sm.elidedText(subtitle, Qt::ElideRight, text.width()));
    }
  }

  paintFigureBadge(painter, face, m_figure, m_heat, lod);

  // Markers on the corners: breakpoint (top-left), export blocker (top-right).
  if (hasState(Breakpoint)) {
    const bool disabled = hasState(BreakpointDisabled); // a hollow ring, as debuggers draw one
    painter->setPen(disabled ? QPen(palette::breakpoint(), 2.0) : QPen(Qt::white, 1.2));
    painter->setBrush(disabled ? QBrush(palette::background()) : QBrush(palette::breakpoint()));
    painter->drawEllipse(QPointF(face.left() + 1, face.top() + 1), kMarker / 2 + 1, kMarker / 2 + 1);
  }
  if (style.blocker) {
    const QPointF c(face.right() - 1, face.top() + 1);
    QPolygonF tri;
    tri << QPointF(c.x(), c.y() - 6) << QPointF(c.x() + 6.5, c.y() + 5.5)
        << QPointF(c.x() - 6.5, c.y() + 5.5);
    painter->setPen(QPen(Qt::white, 1.0));
    painter->setBrush(roleStyle(NodeRole::Unsupported).border);
    painter->drawPolygon(tri);
    if (lod >= 0.35) {
      QFont f = nodeSubtitleFont();
      f.setBold(true);
      f.setPointSizeF(6.5);
      painter->setFont(f);
      painter->setPen(Qt::white);
      painter->drawText(QRectF(c.x() - 5, c.y() - 4, 10, 10), Qt::AlignCenter, QStringLiteral("!"));
    }
  }
}

} // namespace lattice::studio
