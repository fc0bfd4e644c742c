#pragma once
/// \file GraphMinimap: the overview (panner) in a corner of the graph view: a cached
/// rendering of the whole scene with the visible area drawn on top. Clicking or dragging in it
/// moves the main view there.

#include <QPixmap>
#include <QTimer>
#include <QWidget>

#include <functional>

namespace lattice::studio {

class GraphView;

class GraphMinimap : public QWidget {
  Q_OBJECT

public:
  explicit GraphMinimap(GraphView* view);

  /// The size the overview wants: the scene's shape within 220×180.
  QSize sizeHint() const override { return m_wanted; }

  /// The largest size the overview may take (the view shrinks it on small viewports).
  void setMaximumExtent(const QSize& extent);

  /// Paints the part `sceneRect` of the scene into `target` of `painter`.
  using Renderer = std::function<void(QPainter& painter, const QRectF& target, const QRectF& sceneRect)>;
  /// Replaces the default rendering (QGraphicsScene::render, every item painted in full) with
  /// a cheaper one, for scenes with 100 000 items; an empty function restores the default. With
  /// a renderer the overview shows the scene's sceneRect() (set it) instead of measuring items.
  void setRenderer(Renderer renderer);

public Q_SLOTS:
  /// Re-renders the scene soon (coalesced).
  void invalidate();

protected:
  void paintEvent(QPaintEvent* event) override;
  /// A new palette (light / dark) renders the overview again.
  void changeEvent(QEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

private:
  void render();
  /// Resizes to the scene's aspect ratio, keeping the bottom-right corner.
  void fitToScene();
  /// Where the scene is drawn inside the widget.
  QRectF target() const;
  void moveViewTo(const QPointF& widgetPos);

  GraphView* m_view;
  Renderer m_renderer;
  QPixmap m_cache;
  QRectF m_cachedScene;
  QTimer m_renderTimer;
  QSize m_wanted{220, 150};
  QSize m_maxExtent{220, 180};
};

} // namespace lattice::studio
