// ArtifactNodeItem painting: a rounded box in its style with a bold title and a smaller
// subtitle and a run's figure badge; text is skipped when zoomed far out, as in the model graph's
// NodeItem.

#include "artifactview/ArtifactNodeItem.h"

#include "graph/FigureBadge.h"
#include "graph/NodeFonts.h"
#include "graph/NodeStyle.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace lattice::studio {

namespace {

constexpr qreal kPadX = 10.0;
constexpr qreal kPadY = 5.0;
constexpr qreal kRadius = 5.0;
constexpr qreal kMinWidth = 64.0;
constexpr qreal kMaxWidth = 240.0;

} // namespace

ArtifactNodeItem::ArtifactNodeItem(int node, const OpGraphNode& data, const ArtifactNodeStyle& style,
                                   QSizeF size)
    : m_node(node), m_title(data.title), m_subtitle(data.subtitle), m_returned(data.returned), m_style(style),
      m_size(size), m_baseToolTip(data.tooltip) {
  setFlags(ItemIsSelectable);
  setZValue(3.0);
  setToolTip(m_style.figureDetail.isEmpty() ? m_baseToolTip
                                            : m_baseToolTip + QStringLiteral("\n\n") + m_style.figureDetail);
}

ArtifactNodeItem::LabelMetrics ArtifactNodeItem::labelMetrics() {
  LabelMetrics m;
  const QFontMetricsF tm(nodeTitleFont());
  const QFontMetricsF sm(nodeSubtitleFont());
  for (int c = 0; c < 128; ++c) {
    const QChar ch(static_cast<char16_t>(c));
    m.title[static_cast<std::size_t>(c)] = tm.horizontalAdvance(ch);
    m.subtitle[static_cast<std::size_t>(c)] = sm.horizontalAdvance(ch);
  }
  m.titleFallback = tm.maxWidth();
  m.subtitleFallback = sm.maxWidth();
  m.titleHeight = tm.height();
  m.subtitleHeight = sm.height();
  return m;
}

QSizeF ArtifactNodeItem::sizeFor(const LabelMetrics& m, const QString& title, const QString& subtitle) {
  auto advance = [](const QString& text, const std::array<double, 128>& table, double fallback) {
    double w = 0;
    for (QChar c : text)
      w += c.unicode() < 128 ? table[c.unicode()] : fallback;
    return w;
  };
  qreal w =
      qMax(advance(title, m.title, m.titleFallback), advance(subtitle, m.subtitle, m.subtitleFallback)) +
      2 * kPadX + 2; // 2: rounding slack for the kerning ignored here
  w = qBound(kMinWidth, w, kMaxWidth);
  qreal h = m.titleHeight + 2 * kPadY;
  if (!subtitle.isEmpty()) h += m.subtitleHeight;
  return {std::ceil(w), std::ceil(h)};
}

void ArtifactNodeItem::setStyle(const ArtifactNodeStyle& style) {
  if (style.figure != m_style.figure) prepareGeometryChange();
  m_style = style;
  setToolTip(m_style.figureDetail.isEmpty() ? m_baseToolTip
                                            : m_baseToolTip + QStringLiteral("\n\n") + m_style.figureDetail);
  update();
}

QRectF ArtifactNodeItem::box() const {
  return QRectF(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height());
}

void ArtifactNodeItem::setSearchHit(bool hit) {
  if (hit == m_searchHit) return;
  m_searchHit = hit;
  update();
}

QRectF ArtifactNodeItem::boundingRect() const {
  const QRectF r = box().adjusted(-6, -6, 6, 6); // the search halo reaches 5 beyond the box
  if (m_style.figure.isEmpty()) return r;
  return r.united(figureBadgeRect(box(), m_style.figure).adjusted(-1, -1, 1, 1));
}

QPainterPath ArtifactNodeItem::shape() const {
  QPainterPath p;
  p.addRoundedRect(box(), kRadius, kRadius);
  return p;
}

void ArtifactNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
  const QRectF r = box();
  if (lod < 0.15 && !isSelected()) { // a few pixels: a plain block in the border colour
    painter->fillRect(m_searchHit ? r.adjusted(-5, -5, 5, 5) : r,
                      m_searchHit ? palette::searchHit() : m_style.border);
    return;
  }
  painter->setRenderHint(QPainter::Antialiasing, lod > 0.3);
  if (m_searchHit) {
    painter->setPen(Qt::NoPen);
    painter->setBrush(palette::searchHit());
    painter->drawRoundedRect(r.adjusted(-5, -5, 5, 5), kRadius + 4, kRadius + 4);
  }
  QPen border(m_style.border, 1.2);
  border.setCosmetic(lod < 1.0);
  if (m_style.dashed) border.setStyle(Qt::DashLine);
  if (isSelected()) border = QPen(palette::selection(), 3.0);
  painter->setPen(border);
  painter->setBrush(m_style.fill);
  painter->drawRoundedRect(r, kRadius, kRadius);

  if (m_returned) { // a corner flag: this value leaves the function
    QPolygonF flag;
    flag << QPointF(r.right() - 12, r.top() + 1) << QPointF(r.right() - 1, r.top() + 1)
         << QPointF(r.right() - 1, r.top() + 12);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(0xcc, 0x79, 0xa7));
    painter->drawPolygon(flag);
  }

  if (lod >= 0.35) paintLabel(painter, r);
  paintFigureBadge(painter, r, m_style.figure, m_style.fill, lod);
}

void ArtifactNodeItem::paintLabel(QPainter* painter, const QRectF& r) const {
  const QRectF text = r.adjusted(kPadX, kPadY - 1, -kPadX, -kPadY + 1);
  const QFontMetricsF tm(nodeTitleFont());
  painter->setPen(m_style.text);
  painter->setFont(nodeTitleFont());
  painter->drawText(QRectF(text.left(), text.top(), text.width(), tm.height()),
                    Qt::AlignHCenter | Qt::AlignTop, tm.elidedText(m_title, Qt::ElideMiddle, text.width()));
  if (!m_subtitle.isEmpty()) {
    const QFontMetricsF sm(nodeSubtitleFont());
    QColor c = m_style.text;
    c.setAlpha(190);
    painter->setPen(c);
    painter->setFont(nodeSubtitleFont());
    painter->drawText(QRectF(text.left(), text.top() + tm.height(), text.width(), sm.height()),
                      Qt::AlignHCenter | Qt::AlignTop,
                      sm.elidedText(m_subtitle, Qt::ElideRight, text.width()));
  }
}

} // namespace lattice::studio
