// GraphMinimap: renders the scene once into a pixmap (re-rendered, coalesced, when the scene
// changes) and paints the main view's visible rectangle over it on every scroll or zoom.

#include "graph/GraphMinimap.h"

#include "graph/GraphView.h"
#include "graph/NodeStyle.h"

#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>

namespace lattice::studio {

GraphMinimap::GraphMinimap(GraphView* view) : QWidget(view), m_view(view) {
  setCursor(Qt::PointingHandCursor);
  setToolTip(tr("Overview: click or drag to move the view"));
  m_renderTimer.setSingleShot(true);
  m_renderTimer.setInterval(150);
  connect(&m_renderTimer, &QTimer::timeout, this, &GraphMinimap::render);
  connect(view, &GraphView::viewportMoved, this, qOverload<>(&QWidget::update));
}

void GraphMinimap::setRenderer(Renderer renderer) {
  m_renderer = std::move(renderer);
  invalidate();
}

void GraphMinimap::invalidate() {
  m_renderTimer.start();
}

QRectF GraphMinimap::target() const {
  if (m_cachedScene.isEmpty()) return {};
  const QRectF area = QRectF(rect()).adjusted(6, 6, -6, -6);
  QSizeF s = m_cachedScene.size();
  s.scale(area.size(), Qt::KeepAspectRatio);
  return QRectF(area.center().x() - s.width() / 2, area.center().y() - s.height() / 2, s.width(), s.height());
}

void GraphMinimap::render() {
  QGraphicsScene* scene = m_view->scene();
  // A custom renderer goes with the scene's own rect: itemsBoundingRect() visits every item.
  m_cachedScene = !scene ? QRectF() : m_renderer ? scene->sceneRect() : scene->itemsBoundingRect();
  if (m_cachedScene.isEmpty()) {
    m_cache = QPixmap();
    update();
    return;
  }
  fitToScene();
  const QRectF t = target();
  const qreal dpr = devicePixelRatioF();
  const QSize pixels = (t.size() * dpr).toSize();
  if (pixels.width() < 1 || pixels.height() < 1) {
    m_cache = QPixmap();
    update();
    return;
  }
  QPixmap pm(pixels);
  pm.setDevicePixelRatio(dpr);
  pm.fill(palette::background());
  QPainter p(&pm);
  if (m_renderer) {
    m_renderer(p, QRectF(QPointF(0, 0), t.size()), m_cachedScene);
  } else {
    p.setRenderHint(QPainter::Antialiasing);
    scene->render(&p, QRectF(QPointF(0, 0), t.size()), m_cachedScene, Qt::KeepAspectRatio);
  }
  m_cache = pm;
  update();
}

void GraphMinimap::fitToScene() {
  // A tall chain gets a tall, narrow overview; anchored at the view's bottom-right corner.
  QSize wanted(220, 150);
  if (!m_cachedScene.isEmpty()) {
    QSizeF s = m_cachedScene.size();
    s.scale(QSizeF(m_maxExtent - QSize(12, 12)), Qt::KeepAspectRatio);
    wanted = QSize(qMax(60, qRound(s.width()) + 12), qMax(60, qRound(s.height()) + 12));
  } else {
    wanted = wanted.boundedTo(m_maxExtent);
  }
  m_wanted = wanted;
  const QRect vp = m_view->viewport()->geometry();
  setGeometry(vp.right() - wanted.width() - 10, vp.bottom() - wanted.height() - 10, wanted.width(),
              wanted.height());
}

void GraphMinimap::setMaximumExtent(const QSize& extent) {
  if (extent == m_maxExtent) return;
  m_maxExtent = extent;
  invalidate();
}

void GraphMinimap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(palette::cardBorder(palette()), 1));
  p.setBrush(palette::cardFill(palette()));
  p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
  const QRectF t = target();
  if (m_cache.isNull() || t.isEmpty()) return;
  p.drawPixmap(t.topLeft(), m_cache);
  // The visible part of the scene, mapped into the thumbnail.
  const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
  const qreal sx = t.width() / m_cachedScene.width();
  const qreal sy = t.height() / m_cachedScene.height();
  QRectF r((visible.left() - m_cachedScene.left()) * sx + t.left(),
           (visible.top() - m_cachedScene.top()) * sy + t.top(), visible.width() * sx, visible.height() * sy);
  r = r.intersected(t.adjusted(-1, -1, 1, 1));
  p.setPen(QPen(palette::selection(), 1.5));
  QColor fill = palette::selection();
  fill.setAlpha(40);
  p.setBrush(fill);
  p.drawRect(r);
}

void GraphMinimap::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) invalidate();
}

void GraphMinimap::moveViewTo(const QPointF& widgetPos) {
  const QRectF t = target();
  if (t.isEmpty()) return;
  const QPointF scenePos(
      m_cachedScene.left() + (widgetPos.x() - t.left()) * m_cachedScene.width() / t.width(),
      m_cachedScene.top() + (widgetPos.y() - t.top()) * m_cachedScene.height() / t.height());
  m_view->centerOn(scenePos);
}

void GraphMinimap::mousePressEvent(QMouseEvent* event) {
  moveViewTo(event->position());
}

void GraphMinimap::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) moveViewTo(event->position());
}

} // namespace lattice::studio
