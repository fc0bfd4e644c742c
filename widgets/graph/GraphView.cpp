// GraphView: zoom/pan/fit behaviour and the placement of its overlays. Wheel zooms under the
// cursor (Ctrl not needed: the view has scroll bars and drag-to-pan for moving).

#include "graph/GraphView.h"

#include "graph/GraphLegend.h"
#include "graph/GraphMinimap.h"
#include "graph/NodeFonts.h"
#include "graph/NodeStyle.h"

#include <QContextMenuEvent>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QKeyEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <QtMath>

namespace lattice::studio {

namespace {
constexpr qreal kMinZoom = 0.02;
constexpr qreal kMaxZoom = 4.0;
constexpr qreal kStep = 1.25;
constexpr int kOverlayMargin = 10;
} // namespace

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
  setDragMode(NoDrag);
  viewport()->setCursor(Qt::OpenHandCursor);
  setViewportUpdateMode(SmartViewportUpdate);
  setTransformationAnchor(AnchorUnderMouse);
  setResizeAnchor(AnchorViewCenter);
  setOptimizationFlags(DontSavePainterState | DontAdjustForAntialiasing);
  setCacheMode(CacheNone);
  setFrameShape(QFrame::NoFrame);
  setFocusPolicy(Qt::StrongFocus);
  setBackgroundBrush(palette::background());

  m_minimap = new GraphMinimap(this);
  m_legend = new GraphLegend(this); // not the viewport: its scroll() would move children
  placeOverlays();
}

qreal GraphView::zoom() const {
  return transform().m11();
}

qreal GraphView::readableZoom() {
  static const qreal readable = qMin(1.0, kReadablePointSize / nodeTitleFont().pointSizeF());
  return readable;
}

void GraphView::scaleBy(qreal factor) {
  const qreal target = qBound(kMinZoom, zoom() * factor, kMaxZoom);
  if (qFuzzyCompare(target, zoom())) return;
  const qreal applied = target / zoom();
  scale(applied, applied);
  Q_EMIT zoomChanged(zoom());
  Q_EMIT viewportMoved();
}

void GraphView::zoomIn() {
  const ViewportAnchor saved = transformationAnchor();
  setTransformationAnchor(AnchorViewCenter);
  scaleBy(kStep);
  setTransformationAnchor(saved);
}

void GraphView::zoomOut() {
  const ViewportAnchor saved = transformationAnchor();
  setTransformationAnchor(AnchorViewCenter);
  scaleBy(1.0 / kStep);
  setTransformationAnchor(saved);
}

void GraphView::setZoom(qreal factor) {
  const ViewportAnchor saved = transformationAnchor();
  setTransformationAnchor(AnchorViewCenter);
  scaleBy(factor / zoom());
  setTransformationAnchor(saved);
}

void GraphView::fitToView() {
  if (!scene()) return;
  const QRectF r = scene()->itemsBoundingRect().adjusted(-20, -20, 20, 20);
  if (r.isEmpty()) return;
  // The overlays in the bottom corners keep their room: a strip under the graph or a column
  // each side of it, whichever leaves the larger zoom.
  QSizeF over;
  for (const QWidget* w : {static_cast<QWidget*>(m_minimap), static_cast<QWidget*>(m_legend)})
    if (!w->isHidden()) over = over.expandedTo(QSizeF(w->size()) + QSizeF(2 * kOverlayMargin, 2 * kOverlayMargin));
  const QSizeF vp = viewport()->size();
  const qreal below = qMin(vp.width() / r.width(), (vp.height() - over.height()) / r.height());
  const qreal beside = qMin((vp.width() - 2 * over.width()) / r.width(), vp.height() / r.height());
  const qreal fit = qBound(kMinZoom, qMax(below, beside), 1.0);
  resetTransform();
  setZoom(fit);
  centerOn(below >= beside ? r.center() + QPointF(0, over.height() / 2 / fit) : r.center());
  Q_EMIT zoomChanged(zoom());
  Q_EMIT viewportMoved();
}

void GraphView::centerOnItem(QGraphicsItem* item) {
  if (!item) return;
  if (zoom() < readableZoom()) setZoom(readableZoom());
  centerOn(item);
  Q_EMIT viewportMoved();
}

void GraphView::followItem(QGraphicsItem* item) {
  if (!item) return;
  if (zoom() < readableZoom()) {
    centerOnItem(item);
    return;
  }
  const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  if (visible.contains(item->sceneBoundingRect())) return;
  centerOn(item);
  Q_EMIT viewportMoved();
}

void GraphView::setMinimapVisible(bool visible) {
  m_minimap->setVisible(visible);
}

void GraphView::setLegendVisible(bool visible) {
  m_legendWanted = visible; // placeOverlays() keeps it hidden on later resizes
  m_legend->setVisible(visible);
  placeOverlays();
}

void GraphView::wheelEvent(QWheelEvent* event) {
  if (event->modifiers() & Qt::ShiftModifier) { // horizontal scroll
    QGraphicsView::wheelEvent(event);
    return;
  }
  const int delta = event->angleDelta().y();
  if (delta == 0) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  scaleBy(qPow(1.0015, delta));
  event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  const bool shift = event->modifiers() == Qt::ShiftModifier;
  if (shift && (event->key() == Qt::Key_Left || event->key() == Qt::Key_Right)) {
    Q_EMIT expandRequested(event->key() == Qt::Key_Right);
    return;
  }
  switch (event->key()) {
  case Qt::Key_Return:
  case Qt::Key_Enter:
    Q_EMIT expandRequested(true);
    return;
  case Qt::Key_Up:
    Q_EMIT navigationRequested(Direction::Up);
    return;
  case Qt::Key_Down:
    Q_EMIT navigationRequested(Direction::Down);
    return;
  case Qt::Key_Left:
    Q_EMIT navigationRequested(Direction::Left);
    return;
  case Qt::Key_Right:
    Q_EMIT navigationRequested(Direction::Right);
    return;
  case Qt::Key_Plus:
  case Qt::Key_Equal:
    zoomIn();
    return;
  case Qt::Key_Minus:
    zoomOut();
    return;
  default:
    break;
  }
  QGraphicsView::keyPressEvent(event);
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (QGraphicsItem* item = itemAt(event->position().toPoint())) {
    Q_EMIT itemActivated(item);
    event->accept();
    return;
  }
  QGraphicsView::mouseDoubleClickEvent(event);
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  QGraphicsItem* item = itemAt(event->position().toPoint());
  // Only selectable items (nodes) take the press; edges and cluster frames are background
  // that can be dragged, and report the click.
  if (event->button() == Qt::LeftButton && (!item || !(item->flags() & QGraphicsItem::ItemIsSelectable))) {
    // Reported as a click on release, when the press did not become a drag.
    m_panning = true;
    m_panMoved = false;
    m_panOnItem = item != nullptr;
    m_panLast = m_panStart = event->position().toPoint();
    viewport()->setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  QGraphicsView::mousePressEvent(event);
  if (item) Q_EMIT itemClicked(item);
}

void GraphView::mouseMoveEvent(QMouseEvent* event) {
  if (!m_panning) {
    QGraphicsView::mouseMoveEvent(event);
    return;
  }
  const QPoint pos = event->position().toPoint();
  const QPoint delta = pos - m_panLast;
  m_panLast = pos;
  if ((pos - m_panStart).manhattanLength() > 3) m_panMoved = true;
  horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
  verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
  event->accept();
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  if (!m_panning) {
    QGraphicsView::mouseReleaseEvent(event);
    return;
  }
  m_panning = false;
  viewport()->setCursor(Qt::OpenHandCursor);
  if (!m_panMoved && !m_panOnItem) Q_EMIT backgroundClicked();
  if (!m_panMoved && m_panOnItem)
    if (QGraphicsItem* item = itemAt(event->position().toPoint())) Q_EMIT itemClicked(item);
  event->accept();
}

void GraphView::contextMenuEvent(QContextMenuEvent* event) {
  if (event->reason() == QContextMenuEvent::Keyboard && scene() && !scene()->selectedItems().isEmpty()) {
    // The Menu key: the selected item's menu, under it.
    QGraphicsItem* item = scene()->selectedItems().front();
    Q_EMIT contextMenuRequested(item, viewport()->mapToGlobal(mapFromScene(item->sceneBoundingRect().center())));
  } else {
    Q_EMIT contextMenuRequested(itemAt(event->pos()), event->globalPos());
  }
  event->accept();
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  placeOverlays();
  Q_EMIT viewportMoved();
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  Q_EMIT viewportMoved();
}

void GraphView::drawBackground(QPainter* painter, const QRectF& rect) {
  painter->fillRect(rect, palette::background());
}

void GraphView::placeOverlays() {
  const QRect vp = viewport()->geometry();
  // Overlays shrink with the view so they never cover most of it: the overview takes at most
  // 40% of the height, the legend goes to two columns, then hides, when the view is short.
  m_minimap->setMaximumExtent(QSize(220, qBound(60, vp.height() * 2 / 5, 180)));
  const QSize mm = m_minimap->sizeHint();
  // Overlays are children of the view (not the viewport) so scrolling never moves them.
  m_minimap->setGeometry(vp.right() - mm.width() - kOverlayMargin, vp.bottom() - mm.height() - kOverlayMargin,
                         mm.width(), mm.height());
  m_legend->setColumns(1);
  if (m_legend->sizeHint().height() > vp.height() * 2 / 5) m_legend->setColumns(2);
  const QSize lg = m_legend->sizeHint();
  const bool fits =
      lg.height() <= vp.height() / 2 && lg.width() + mm.width() + 4 * kOverlayMargin <= vp.width();
  m_legend->setVisible(m_legendWanted && fits);
  m_legend->setGeometry(vp.left() + kOverlayMargin, vp.bottom() - lg.height() - kOverlayMargin, lg.width(),
                        lg.height());
  m_minimap->raise();
  m_legend->raise();
}

} // namespace lattice::studio
