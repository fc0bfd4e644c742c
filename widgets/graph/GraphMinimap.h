#pragma once
/// \file GraphMinimap: the overview (panner) in a corner of the graph view: a cached
/// rendering of the whole scene with the visible area drawn on top. Clicking or dragging in it
/// moves the main view there.

#include <QPixmap>
#include <QTimer>
#include <QWidget>

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

public Q_SLOTS:
  /// Re-renders the scene soon (coalesced).
  void invalidate();

protected:
  void paintEvent(QPaintEvent* event) override;
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
  QPixmap m_cache;
  QRectF m_cachedScene;
  QTimer m_renderTimer;
  QSize m_wanted{220, 150};
  QSize m_maxExtent{220, 180};
};

} // namespace lattice::studio
