// StudioIcons: small vector drawings on a 24×24 grid, rendered at 1× and 2× into a QIcon.

#include "StudioIcons.h"

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

#include <array>
#include <functional>

namespace lattice::studio::icons {

namespace {

const QColor kInk(0x37, 0x47, 0x55);
const QColor kGreen(0x2e, 0x9d, 0x4f);
const QColor kRed(0xd3, 0x2f, 0x2f);
const QColor kBlue(0x1e, 0x64, 0xd8);
const QColor kAmber(0xe0, 0x8a, 0x00);

QIcon painted(const std::function<void(QPainter&)>& draw) {
  QIcon icon;
  for (int scale : {1, 2}) {
    QPixmap pm(24 * scale, 24 * scale);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.scale(scale, scale);
    draw(p);
    p.end();
    pm.setDevicePixelRatio(scale);
    icon.addPixmap(pm);
  }
  return icon;
}

QPen pen(const QColor& c, qreal w = 2.0) {
  QPen p(c, w);
  p.setCapStyle(Qt::RoundCap);
  p.setJoinStyle(Qt::RoundJoin);
  return p;
}

void magnifier(QPainter& p) {
  p.setPen(pen(kInk));
  p.setBrush(Qt::NoBrush);
  p.drawEllipse(QPointF(10, 10), 6.5, 6.5);
  p.setPen(pen(kInk, 3.0));
  p.drawLine(QPointF(15, 15), QPointF(21, 21));
}

void triangle(QPainter& p, qreal x, const QColor& c) {
  QPolygonF t;
  t << QPointF(x, 5) << QPointF(x + 12, 12) << QPointF(x, 19);
  p.setPen(pen(c, 1.5));
  p.setBrush(c);
  p.drawPolygon(t);
}

} // namespace

QIcon open() {
  return painted([](QPainter& p) {
    p.setPen(pen(kAmber.darker(120), 1.5));
    p.setBrush(QColor(0xfd, 0xd8, 0x7a));
    QPainterPath folder;
    folder.moveTo(3, 6);
    folder.lineTo(9, 6);
    folder.lineTo(11, 8);
    folder.lineTo(21, 8);
    folder.lineTo(21, 19);
    folder.lineTo(3, 19);
    folder.closeSubpath();
    p.drawPath(folder);
  });
}

QIcon exportArtifact() {
  return painted([](QPainter& p) {
    p.setPen(pen(kInk, 1.5));
    p.setBrush(QColor(0xe8, 0xee, 0xf4));
    p.drawRoundedRect(QRectF(4, 10, 16, 10), 2, 2);
    p.setPen(pen(kBlue, 2.2));
    p.drawLine(QPointF(12, 3), QPointF(12, 14));
    p.drawLine(QPointF(8, 10), QPointF(12, 14));
    p.drawLine(QPointF(16, 10), QPointF(12, 14));
  });
}

QIcon zoomIn() {
  return painted([](QPainter& p) {
    magnifier(p);
    p.setPen(pen(kInk, 1.8));
    p.drawLine(QPointF(7, 10), QPointF(13, 10));
    p.drawLine(QPointF(10, 7), QPointF(10, 13));
  });
}

QIcon zoomOut() {
  return painted([](QPainter& p) {
    magnifier(p);
    p.setPen(pen(kInk, 1.8));
    p.drawLine(QPointF(7, 10), QPointF(13, 10));
  });
}

QIcon zoomFit() {
  return painted([](QPainter& p) {
    p.setPen(pen(kInk, 1.8));
    for (auto [x, y, dx, dy] :
         {std::array<qreal, 4>{4, 4, 1, 1}, {20, 4, -1, 1}, {4, 20, 1, -1}, {20, 20, -1, -1}}) {
      p.drawLine(QPointF(x, y), QPointF(x + 5 * dx, y));
      p.drawLine(QPointF(x, y), QPointF(x, y + 5 * dy));
    }
    p.setBrush(QColor(0xcf, 0xe8, 0xfc));
    p.setPen(pen(kBlue, 1.4));
    p.drawRoundedRect(QRectF(8, 8, 8, 8), 1.5, 1.5);
  });
}

QIcon find() {
  return painted(magnifier);
}

QIcon start() {
  return painted([](QPainter& p) {
    p.setPen(pen(kGreen, 2.2));
    p.setBrush(Qt::NoBrush);
    p.drawArc(QRectF(4, 4, 16, 16), 60 * 16, 290 * 16);
    QPolygonF head;
    head << QPointF(13, 1.5) << QPointF(18.5, 5) << QPointF(13, 8.5);
    p.setBrush(kGreen);
    p.setPen(pen(kGreen, 1.0));
    p.drawPolygon(head);
  });
}

QIcon step() {
  return painted([](QPainter& p) {
    p.setPen(pen(kBlue, 2.0));
    p.setBrush(Qt::NoBrush);
    QPainterPath arc;
    arc.moveTo(4, 14);
    arc.cubicTo(5, 4, 17, 4, 19, 12);
    p.drawPath(arc);
    p.setBrush(kBlue);
    QPolygonF head;
    head << QPointF(15, 11) << QPointF(21, 9) << QPointF(20, 15);
    p.drawPolygon(head);
    p.setBrush(kInk);
    p.setPen(Qt::NoPen);
    p.drawEllipse(QPointF(12, 19), 2.5, 2.5);
  });
}

QIcon continueRun() {
  return painted([](QPainter& p) { triangle(p, 7, kGreen); });
}

QIcon runToCursor() {
  return painted([](QPainter& p) {
    triangle(p, 4, kGreen);
    p.setPen(pen(kInk, 2.2));
    p.drawLine(QPointF(19, 5), QPointF(19, 19));
  });
}

QIcon breakpoint() {
  return painted([](QPainter& p) {
    p.setPen(pen(kRed.darker(130), 1.2));
    p.setBrush(kRed);
    p.drawEllipse(QPointF(12, 12), 6.5, 6.5);
  });
}

QIcon stop() {
  return painted([](QPainter& p) {
    p.setPen(pen(kRed.darker(120), 1.2));
    p.setBrush(kRed);
    p.drawRoundedRect(QRectF(6, 6, 12, 12), 2, 2);
  });
}

} // namespace lattice::studio::icons
