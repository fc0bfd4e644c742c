// ArtifactGraphView: the worker-thread layout request, scene building and selection plumbing
// of the op graph. Stale layouts (a newer setGraph, clear, or destruction) are dropped when they
// arrive; a running Graphviz call cannot be interrupted, so it finishes and is discarded.

#include "artifactview/ArtifactGraphView.h"

#include "artifactview/ArtifactEdgeItem.h"
#include "artifactview/ArtifactNodeItem.h"
#include "graph/EdgeItem.h"
#include "graph/GraphMinimap.h"
#include "graph/GraphView.h"
#include "graph/NodeStyle.h"

#include <QElapsedTimer>
#include <QEvent>
#include <QFutureWatcher>
#include <QGraphicsScene>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace lattice::studio {

OpLayoutGraph layoutGraphOf(const ArtifactOpGraph& graph) {
  OpLayoutGraph out;
  out.nodeCount = graph.nodes().size();
  out.edges.reserve(graph.edges().size());
  for (const OpGraphEdge& e : graph.edges())
    out.edges.push_back({e.from, e.to});
  return out;
}

struct ArtifactGraphView::Job {
  std::shared_ptr<const ArtifactOpGraph> graph;
  ArtifactNodeItem::LabelMetrics metrics;
  std::vector<LayoutSize> sizes;
  bool forceLayered = false;
  std::atomic<bool> cancel{false};
  std::optional<ArtifactLayout> layout;
  std::string error;
};

ArtifactGraphView::ArtifactGraphView(QWidget* parent) : QWidget(parent) {
  m_scene = new QGraphicsScene(this);
  m_view = new GraphView(this);
  m_view->setScene(m_scene);
  m_view->setLegendVisible(false); // the FX roles do not apply; owners show an ArtifactLegend
  m_captionLabel = new QLabel(this);
  m_captionLabel->setTextFormat(Qt::PlainText);
  m_captionLabel->setContentsMargins(6, 2, 6, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(m_captionLabel);
  layout->addWidget(m_view, 1);

  m_view->installEventFilter(this);
  m_view->viewport()->installEventFilter(this);
  connect(m_scene, &QGraphicsScene::selectionChanged, this, &ArtifactGraphView::onSceneSelectionChanged);
  connect(m_view, &GraphView::navigationRequested, this,
          [this](GraphView::Direction d) { navigate(static_cast<int>(d)); });
  connect(m_view, &GraphView::viewportMoved, this, [this] {
    updateMinimap();
    if (m_programmaticScroll == 0 && !m_running) Q_EMIT viewportMoved();
  });
  updateCaption();
}

ArtifactGraphView::~ArtifactGraphView() {
  if (m_job) m_job->cancel = true;
  // The scene dies after us and clears its selection on the way: nobody must hear of it.
  m_syncing = true;
  disconnect(m_scene, nullptr, this, nullptr);
  disconnect(m_view, nullptr, this, nullptr);
}

bool ArtifactGraphView::eventFilter(QObject* watched, QEvent* event) {
  switch (event->type()) {
  case QEvent::Resize:
    // Until the user moves the view, a fitted graph stays fitted (tabs and splitters settle
    // their sizes after the layout arrived).
    if (watched == m_view && m_autoFit)
      QTimer::singleShot(0, this, [this] {
        if (m_autoFit) fitToView();
      });
    break;
  case QEvent::Wheel:
  case QEvent::MouseButtonPress:
  case QEvent::KeyPress:
    m_autoFit = false;
    break;
  default:
    break;
  }
  return QWidget::eventFilter(watched, event);
}

void ArtifactGraphView::setCaption(const QString& caption) {
  m_caption = caption;
  updateCaption();
}

void ArtifactGraphView::updateCaption() {
  QStringList parts;
  if (!m_caption.isEmpty()) parts << m_caption;
  if (m_graph) {
    const QLocale locale;
    parts << tr("%1 ops, %2 arguments, %3 edges")
                 .arg(locale.toString(m_graph->opCount()), locale.toString(m_graph->argumentCount()),
                      locale.toString(static_cast<qlonglong>(m_graph->edges().size())));
    if (m_running)
      parts << (m_building ? tr("building the view…") : tr("laying out…"));
    else if (!m_layoutError.isEmpty())
      parts << tr("layout failed: %1").arg(m_layoutError);
    else if (!m_nodes.isEmpty())
      parts << (m_method == ArtifactLayoutMethod::Graphviz
                    ? tr("Graphviz layout")
                    : tr("layered layout (more than %1 nodes for Graphviz)").arg(kMaxGraphvizNodes));
  }
  m_captionLabel->setText(parts.join(QStringLiteral("  ·  ")));
  m_captionLabel->setVisible(!parts.isEmpty());
}

void ArtifactGraphView::clear() {
  if (m_job) m_job->cancel = true;
  m_job.reset();
  ++m_generation;
  m_running = false;
  m_building = false;
  m_autoFit = false;
  m_syncing = true;
  m_highlighted.clear();
  m_edgesOfNode.clear();
  m_nodes.clear();
  m_edges.clear();
  m_searchHits.clear();
  m_scene->clear();
  m_syncing = false;
  m_view->setMinimapVisible(false);
  m_graph.reset();
  m_styles.clear();
  m_layoutError.clear();
  updateCaption();
}

void ArtifactGraphView::setGraph(std::shared_ptr<const ArtifactOpGraph> graph,
                                 QVector<ArtifactNodeStyle> styles) {
  clear();
  if (!graph) return;
  m_graph = std::move(graph);
  m_styles = std::move(styles);
  m_styles.resize(static_cast<int>(m_graph->nodes().size()), categoryStyle(OpCategory::Other));

  auto job = std::make_shared<Job>();
  job->graph = m_graph;
  job->forceLayered = m_forceLayered;
  // Fonts are read here; the worker sizes the boxes from their advances.
  job->metrics = ArtifactNodeItem::labelMetrics();
  m_job = job;
  m_running = true;
  const quint64 generation = ++m_generation;
  updateCaption();
  auto* watcher = new QFutureWatcher<void>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, job] {
    watcher->deleteLater();
    onLayoutDone(generation, job);
  });
  watcher->setFuture(QtConcurrent::run([job] {
    job->sizes.reserve(job->graph->nodes().size());
    for (const OpGraphNode& n : job->graph->nodes()) {
      const QSizeF s = ArtifactNodeItem::sizeFor(job->metrics, n.title, n.subtitle);
      job->sizes.push_back({s.width(), s.height()});
    }
    const OpLayoutGraph input = layoutGraphOf(*job->graph);
    Expected<ArtifactLayout> laid = layoutArtifactGraph(input, job->sizes, &job->cancel, job->forceLayered);
    if (!laid && !job->cancel && !job->forceLayered) // Graphviz failed: the fallback still works
      laid = layoutArtifactGraph(input, job->sizes, &job->cancel, true);
    if (laid)
      job->layout = std::move(*laid);
    else
      job->error = laid.message();
  }));
}

void ArtifactGraphView::onLayoutDone(quint64 generation, const std::shared_ptr<Job>& job) {
  if (generation != m_generation || job->cancel) return; // superseded
  if (!job->layout) {
    m_running = false;
    m_job.reset();
    m_layoutError = QString::fromStdString(job->error);
    updateCaption();
    Q_EMIT layoutFailed(m_layoutError);
    return;
  }
  m_method = job->layout->method;
  startBuild();
}

void ArtifactGraphView::startBuild() {
  m_building = true;
  updateCaption();
  m_syncing = true;
  m_scene->clear();
  m_syncing = false;
  m_nodes.clear();
  m_edges.clear();
  m_edgesOfNode.clear();
  m_highlighted.clear();
  m_built = 0;
  const LayoutResult& r = m_job->layout->result;
  m_scene->setSceneRect(QRectF(-20, -20, r.bounds.width + 40, r.bounds.height + 40));
  // The BSP index takes new items on its next query; a depth fixed for the final item count
  // lets each slice index its own items (see buildSlice) instead of one long rebuild at the end.
  const std::size_t total = m_graph->nodes().size() + m_graph->edges().size();
  m_scene->setBspTreeDepth(isLarge() ? std::max(5, static_cast<int>(std::log2(double(total))) - 3) : 0);
  m_nodes.reserve(static_cast<int>(m_graph->nodes().size()));
  m_edges.reserve(static_cast<int>(m_graph->edges().size()));
  buildSlice(m_generation);
}

void ArtifactGraphView::buildSlice(quint64 generation) {
  if (generation != m_generation || !m_job || !m_job->layout) return; // superseded meanwhile
  // A slice of items per event-loop turn, so a huge graph never freezes the window.
  QElapsedTimer slice;
  slice.start();
  const LayoutResult& r = m_job->layout->result;
  const auto& nodes = m_graph->nodes();
  const auto& edges = m_graph->edges();
  const std::size_t nodeCount = std::min(nodes.size(), r.nodes.size());
  const std::size_t edgeCount = std::min(edges.size(), r.edges.size());
  m_syncing = true;
  while (m_built < nodeCount + edgeCount && slice.elapsed() < 25) {
    for (int k = 0; k < 256 && m_built < nodeCount + edgeCount; ++k, ++m_built) {
      if (m_built < nodeCount) {
        const std::size_t i = m_built;
        const NodeBox& box = r.nodes[i];
        auto* item = new ArtifactNodeItem(static_cast<int>(i), nodes[i], m_styles[static_cast<int>(i)],
                                          QSizeF(box.width, box.height));
        item->setPos(box.cx, box.cy);
        if (m_searchHits.contains(static_cast<int>(i))) item->setSearchHit(true);
        m_scene->addItem(item);
        m_nodes.push_back(item);
        continue;
      }
      const std::size_t e = m_built - nodeCount;
      const EdgePath& path = r.edges[e];
      QVector<QPointF> points;
      points.reserve(static_cast<int>(path.points.size()));
      for (const LayoutPoint& p : path.points)
        points.push_back(QPointF(p.x, p.y));
      std::optional<QPointF> head;
      if (path.arrowHead) head = QPointF(path.arrowHead->x, path.arrowHead->y);
      auto* item = new ArtifactEdgeItem(nullptr, nullptr, points, head);
      m_scene->addItem(item);
      m_edges.push_back(item);
      m_edgesOfNode[edges[e].from].push_back(item);
      m_edgesOfNode[edges[e].to].push_back(item);
    }
  }
  m_syncing = false;
  (void)m_scene->items(QRectF(0, 0, 1, 1)); // index this slice's items now
  if (m_built < nodeCount + edgeCount) {
    QTimer::singleShot(0, this, [this, generation] { buildSlice(generation); });
    return;
  }
  m_running = false;
  m_building = false;
  m_job.reset();
  updateCaption();
  if (isLarge()) {
    // Painting every box of a huge graph takes most of a second: the overview draws plain
    // dots, and the view opens readable at the first node instead of fitted.
    m_view->minimap()->setRenderer([this](QPainter& p, const QRectF& target, const QRectF& sceneRect) {
      paintOverview(p, target, sceneRect);
    });
    ++m_programmaticScroll;
    m_view->setZoom(1.0);
    m_view->centerOnItem(m_nodes.value(0));
    --m_programmaticScroll;
  } else {
    m_view->minimap()->setRenderer({});
    fitToView();
    m_autoFit = true;
  }
  updateMinimap();
  Q_EMIT layoutFinished();
}

void ArtifactGraphView::updateMinimap() {
  // The overview only helps when part of the graph is out of view.
  const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
  const QRectF all = m_scene->sceneRect().adjusted(10, 10, -10, -10);
  m_view->setMinimapVisible(!m_nodes.isEmpty() && !visible.contains(all));
}

bool ArtifactGraphView::isLarge() const {
  return m_graph && static_cast<int>(m_graph->nodes().size()) > largeGraphNodes();
}

void ArtifactGraphView::paintOverview(QPainter& p, const QRectF& target, const QRectF& sceneRect) const {
  if (sceneRect.isEmpty()) return;
  const qreal scale = qMin(target.width() / sceneRect.width(), target.height() / sceneRect.height());
  const QPointF origin = target.topLeft() + QPointF((target.width() - sceneRect.width() * scale) / 2,
                                                    (target.height() - sceneRect.height() * scale) / 2);
  p.setRenderHint(QPainter::Antialiasing, false);
  for (const ArtifactNodeItem* item : m_nodes) {
    const QPointF c = origin + (item->pos() - sceneRect.topLeft()) * scale;
    p.fillRect(QRectF(c.x() - 0.5, c.y() - 0.5, 1.0, 1.0), item->style().border);
  }
}

void ArtifactGraphView::setStyles(QVector<ArtifactNodeStyle> styles) {
  m_styles = std::move(styles);
  if (m_graph) m_styles.resize(static_cast<int>(m_graph->nodes().size()), categoryStyle(OpCategory::Other));
  for (ArtifactNodeItem* item : std::as_const(m_nodes))
    item->setStyle(m_styles[item->node()]);
  m_view->minimap()->invalidate();
}

ArtifactNodeItem* ArtifactGraphView::nodeItem(int node) const {
  return node >= 0 && node < m_nodes.size() ? m_nodes[node] : nullptr;
}

int ArtifactGraphView::selectedNode() const {
  const QList<QGraphicsItem*> selected = m_scene->selectedItems();
  for (QGraphicsItem* item : selected)
    if (item->type() == ArtifactNodeItem::Type) return static_cast<ArtifactNodeItem*>(item)->node();
  return -1;
}

int ArtifactGraphView::nodeNearestCenter() const {
  if (m_nodes.isEmpty()) return -1;
  const QPointF centre = m_view->mapToScene(m_view->viewport()->rect().center());
  int best = -1;
  qreal bestDistance = 0;
  // Look near the centre first; fall back to every node when the view shows none.
  QList<QGraphicsItem*> candidates = m_scene->items(QRectF(centre - QPointF(400, 400), QSizeF(800, 800)));
  if (candidates.isEmpty())
    for (ArtifactNodeItem* item : m_nodes)
      candidates.push_back(item);
  for (QGraphicsItem* item : std::as_const(candidates)) {
    if (item->type() != ArtifactNodeItem::Type) continue;
    const qreal d = QLineF(item->pos(), centre).length();
    if (best < 0 || d < bestDistance) {
      best = static_cast<ArtifactNodeItem*>(item)->node();
      bestDistance = d;
    }
  }
  return best;
}

void ArtifactGraphView::selectNode(int node) {
  ArtifactNodeItem* item = nodeItem(node);
  if (item && selectedNode() == node && m_scene->selectedItems().size() == 1) return; // a click here
  m_syncing = true;
  m_scene->clearSelection();
  if (item) item->setSelected(true);
  m_syncing = false;
  highlightEdges(item ? node : -1);
  if (!item) return;
  // Shown readable: centred, zoomed in when the view is too far out to read it.
  const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
  if (visible.contains(item->sceneBoundingRect()) && m_view->zoom() >= GraphView::readableZoom()) return;
  m_autoFit = false;
  ++m_programmaticScroll;
  m_view->centerOnItem(item);
  --m_programmaticScroll;
}

void ArtifactGraphView::centerOnNode(int node) {
  if (ArtifactNodeItem* item = nodeItem(node)) {
    m_autoFit = false;
    ++m_programmaticScroll;
    m_view->centerOn(item);
    Q_EMIT m_view->viewportMoved();
    --m_programmaticScroll;
  }
}

void ArtifactGraphView::setSearchHits(const std::vector<int>& nodes) {
  for (int n : std::as_const(m_searchHits))
    if (ArtifactNodeItem* item = nodeItem(n)) item->setSearchHit(false);
  m_searchHits.clear();
  for (int n : nodes) {
    m_searchHits.insert(n);
    if (ArtifactNodeItem* item = nodeItem(n)) item->setSearchHit(true);
  }
}

void ArtifactGraphView::fitToView() {
  ++m_programmaticScroll;
  m_view->fitToView();
  --m_programmaticScroll;
}

void ArtifactGraphView::onSceneSelectionChanged() {
  if (m_syncing) return;
  const int node = selectedNode();
  highlightEdges(node);
  Q_EMIT nodeSelected(node);
}

void ArtifactGraphView::highlightEdges(int node) {
  for (EdgeItem* e : std::as_const(m_highlighted))
    e->setHighlighted(false);
  m_highlighted.clear();
  if (node < 0) return;
  m_highlighted = m_edgesOfNode.value(node);
  for (EdgeItem* e : std::as_const(m_highlighted))
    e->setHighlighted(true);
}

void ArtifactGraphView::navigate(int direction) {
  if (!m_graph || m_nodes.isEmpty()) return;
  const int current = selectedNode();
  int next = -1;
  const auto d = static_cast<GraphView::Direction>(direction);
  if (current < 0) {
    next = 0;
  } else if (d == GraphView::Direction::Up || d == GraphView::Direction::Down) {
    const std::vector<int> candidates =
        d == GraphView::Direction::Up ? m_graph->producers(current) : m_graph->consumers(current);
    if (!candidates.empty()) next = candidates.front();
  } else {
    next = current + (d == GraphView::Direction::Left ? -1 : 1);
    if (next < 0 || next >= m_nodes.size()) next = -1;
  }
  if (next < 0) return;
  selectNode(next);
  Q_EMIT nodeSelected(next);
}

} // namespace lattice::studio
