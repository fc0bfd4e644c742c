#pragma once
/// \file GraphView: the QGraphicsView of the graph: zoom (wheel, keys, menu), pan (drag),
/// fit, centring on an item, and the overlays that live in its viewport (minimap, legend).
/// It knows nothing about FX: arrow keys and activation are reported as signals.

#include <QGraphicsView>

namespace lattice::studio {

class GraphMinimap;
class GraphLegend;

class GraphView : public QGraphicsView {
  Q_OBJECT

public:
  enum class Direction { Up, Down, Left, Right };

  explicit GraphView(QWidget* parent = nullptr);

  /// Current scale factor (1 = 100%).
  qreal zoom() const;
  /// The smallest zoom at which node text is readable: a node's name line (NodeFonts, 9 pt
  /// bold) paints at kReadablePointSize (8 pt) or larger, its second line (8 pt) at 7.1 pt.
  static qreal readableZoom();
  /// The on-screen size that readableZoom() guarantees for the name line.
  static constexpr qreal kReadablePointSize = 8.0;
  GraphMinimap* minimap() const { return m_minimap; }
  GraphLegend* legend() const { return m_legend; }

public Q_SLOTS:
  void zoomIn();
  void zoomOut();
  /// Scales to `factor` (clamped to 2%..400%) keeping the viewport centre.
  void setZoom(qreal factor);
  /// Fits the whole scene (never enlarging beyond 100%).
  void fitToView();
  /// Centres `item`, first zooming in to readableZoom() when the view is further out (a closer
  /// zoom is kept).
  void centerOnItem(QGraphicsItem* item);
  /// Keeps `item` in view while following it (the interpreter's current node): zooms in to
  /// readableZoom() when further out and centres it, else centres it only when it is not
  /// wholly visible. A closer zoom is never changed.
  void followItem(QGraphicsItem* item);
  void setMinimapVisible(bool visible);
  void setLegendVisible(bool visible);

Q_SIGNALS:
  void zoomChanged(qreal factor);
  /// The visible scene area moved or was resized (the minimap follows).
  void viewportMoved();
  /// An arrow key was pressed with the view focused (when no action of the view took it).
  void navigationRequested(lattice::studio::GraphView::Direction direction);
  /// Shift+Right or Return (expand) / Shift+Left (collapse) was pressed with the view focused
  /// (when no action of the view took it).
  void expandRequested(bool expand);
  /// A node or cluster was double-clicked (expand/collapse groups).
  void itemActivated(QGraphicsItem* item);
  /// A selectable item was pressed (after the scene handled selection), or another item (a
  /// frame's title, an indicator) was clicked: pressed and released without dragging.
  void itemClicked(QGraphicsItem* item);
  /// A context menu was asked for over `item` (nullptr: the background), at `globalPos`.
  void contextMenuRequested(QGraphicsItem* item, const QPoint& globalPos);
  /// The empty background was clicked without dragging.
  void backgroundClicked();

protected:
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void drawBackground(QPainter* painter, const QRectF& rect) override;

private:
  void scaleBy(qreal factor);
  void placeOverlays();

  GraphMinimap* m_minimap = nullptr;
  GraphLegend* m_legend = nullptr;
  bool m_legendWanted = true; ///< View ▸ Legend; shown when it also fits
  // Dragging the background pans (done here rather than with ScrollHandDrag, whose press on
  // the background would clear the selection).
  bool m_panning = false;
  bool m_panMoved = false;
  bool m_panOnItem = false;
  QPoint m_panLast;
  QPoint m_panStart;
};

} // namespace lattice::studio
