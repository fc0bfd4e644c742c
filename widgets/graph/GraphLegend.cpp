// GraphLegend: one swatch per node role, then the state markers, on a translucent card.

#include "graph/GraphLegend.h"

#include "graph/NodeStyle.h"

#include <QFontMetrics>
#include <QPainter>

namespace lattice::studio {

namespace {
constexpr int kPad = 8;
constexpr int kSwatch = 12;
constexpr int kGap = 6;

struct Row {
  QString text;
  int kind; // -1 current, -2 breakpoint, -3 blocker, else NodeRole
};

QVector<Row> rows() {
  QVector<Row> r;
  for (NodeRole role : legendRoles())
    r.push_back({roleStyle(role).label, static_cast<int>(role)});
  r.push_back({QObject::tr("next node to run"), -1});
  r.push_back({QObject::tr("breakpoint"), -2});
  r.push_back({QObject::tr("export blocker"), -3});
  return r;
}

QFont legendFont() {
  QFont f;
  f.setPointSizeF(8.0);
  return f;
}

void paintRow(QPainter& p, const Row& r, const QRect& area, const QColor& text) {
  const QRectF sw(area.left(), area.top() + (area.height() - kSwatch) / 2.0, kSwatch, kSwatch);
  if (r.kind >= 0) {
    const NodeRoleStyle& s = roleStyle(static_cast<NodeRole>(r.kind));
    QPen pen(s.border, 1.3);
    if (s.blocker) pen.setStyle(Qt::DashLine);
    p.setPen(pen);
    p.setBrush(s.fill);
    p.drawRoundedRect(sw, 3, 3);
  } else if (r.kind == -1) {
    p.setPen(QPen(palette::current(), 2.2));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(sw.adjusted(1, 1, -1, -1), 3, 3);
  } else if (r.kind == -2) {
    p.setPen(Qt::NoPen);
    p.setBrush(palette::breakpoint());
    p.drawEllipse(sw.adjusted(1, 1, -1, -1));
  } else {
    QPolygonF tri;
    tri << QPointF(sw.center().x(), sw.top()) << sw.bottomRight() << sw.bottomLeft();
    p.setPen(Qt::NoPen);
    p.setBrush(roleStyle(NodeRole::Unsupported).border);
    p.drawPolygon(tri);
  }
  p.setPen(text);
  p.drawText(area.adjusted(kSwatch + kGap, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, r.text);
}
} // namespace

GraphLegend::GraphLegend(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_TransparentForMouseEvents);
}

void GraphLegend::setColumns(int columns) {
  columns = qBound(1, columns, 2);
  if (columns == m_columns) return;
  m_columns = columns;
  updateGeometry();
  update();
}

namespace {

/// Rows per column: roles in the first, states in the second when there are two.
QVector<QVector<Row>> columnsOf(int columns) {
  const QVector<Row> all = rows();
  if (columns == 1) return {all};
  const int roles = int(legendRoles().size());
  return {all.mid(0, roles), all.mid(roles)};
}

int columnWidth(const QFontMetrics& fm, const QVector<Row>& column) {
  int w = 0;
  for (const Row& r : column)
    w = qMax(w, fm.horizontalAdvance(r.text));
  return w + kSwatch + kGap;
}

} // namespace

QSize GraphLegend::sizeHint() const {
  const QFontMetrics fm(legendFont());
  const int line = qMax(fm.height(), kSwatch) + 3;
  int w = 0;
  int tallest = 0;
  for (const QVector<Row>& column : columnsOf(m_columns)) {
    w += columnWidth(fm, column) + (w ? 2 * kPad : 0);
    tallest = qMax(tallest, int(column.size()));
  }
  w = qMax(w, fm.horizontalAdvance(tr("Legend")));
  return {w + 2 * kPad, (tallest + 1) * line + 2 * kPad};
}

void GraphLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(palette::cardBorder(palette()), 1));
  p.setBrush(palette::cardFill(palette()));
  p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
  const QColor text = palette::cardText(palette());
  QFont f = legendFont();
  const QFontMetrics fm(f);
  const int line = qMax(fm.height(), kSwatch) + 3;
  f.setBold(true);
  p.setFont(f);
  p.setPen(text);
  p.drawText(QRect(kPad, kPad, width() - 2 * kPad, line), Qt::AlignLeft | Qt::AlignVCenter, tr("Legend"));
  f.setBold(false);
  p.setFont(f);
  int x = kPad;
  for (const QVector<Row>& column : columnsOf(m_columns)) {
    int y = kPad + line;
    for (const Row& r : column) {
      paintRow(p, r, QRect(x, y, columnWidth(fm, column), line), text);
      y += line;
    }
    x += columnWidth(fm, column) + 2 * kPad;
  }
}

} // namespace lattice::studio
