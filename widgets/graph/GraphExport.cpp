// GraphWidget::exportImage: the whole scene (not just the visible part) as PNG or SVG. PNGs
// are rendered at up to 2× and capped at 16 000 pixels a side.

#include "graph/GraphWidget.h"

#include "graph/ClusterItem.h"
#include "graph/GraphScene.h"
#include "graph/NodeStyle.h"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

namespace lattice::studio {

bool GraphWidget::exportImage(const QString& path, QString* error) const {
  const QRectF source = m_scene->itemsBoundingRect().adjusted(-20, -20, 20, 20);
  auto fail = [error](const QString& message) {
    if (error) *error = message;
    return false;
  };
  if (m_scene->items().isEmpty() || source.isEmpty()) return fail(tr("there is no graph to export"));
  // The expand / collapse indicators are controls, not part of the picture.
  QList<QGraphicsItem*> indicators;
  for (QGraphicsItem* item : m_scene->items())
    if (item->type() == GroupToggleItem::Type && item->isVisible()) indicators << item;
  struct Restore {
    QList<QGraphicsItem*>& items;
    ~Restore() {
      for (QGraphicsItem* item : items)
        item->setVisible(true);
    }
  } restore{indicators};
  for (QGraphicsItem* item : indicators)
    item->setVisible(false);
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("svg")) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(source.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), source.size()));
    svg.setTitle(tr("Lattice Studio graph"));
    svg.setDescription(m_session ? QStringLiteral("lattice-studio") : QString());
    QPainter painter;
    if (!painter.begin(&svg)) return fail(tr("cannot write '%1'").arg(path));
    painter.fillRect(QRectF(QPointF(0, 0), source.size()), palette::background());
    m_scene->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
    painter.end();
    return true;
  }
  if (suffix != QLatin1String("png"))
    return fail(tr("unsupported image type '%1' (use .png or .svg)").arg(suffix));
  const qreal scale = qMin<qreal>(2.0, 16000.0 / qMax(source.width(), source.height()));
  QImage image((source.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) return fail(tr("the graph is too large for one image"));
  image.fill(palette::background());
  QPainter painter(&image);
  painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  m_scene->render(&painter, QRectF(QPointF(0, 0), image.size()), source);
  painter.end();
  if (!image.save(path, "PNG")) return fail(tr("cannot write '%1'").arg(path));
  return true;
}

} // namespace lattice::studio
