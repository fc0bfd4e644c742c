// GraphWidget's selection, search and keyboard walk: the scene's selection and the session's kept
// in step both ways, a node or module brought into view (its groups opened when it is hidden),
// clicks on group frames and indicators, Find next / previous, and the arrow keys' walk along
// producers, consumers and siblings. The rest of the class is in GraphWidget.cpp.

#include "graph/GraphWidget.h"

#include "StudioSession.h"
#include "graph/ClusterItem.h"
#include "graph/GraphScene.h"
#include "graph/GraphSearch.h"
#include "graph/GraphSearchBar.h"
#include "graph/NodeItem.h"
#include "model/Model.h"

#include <QApplication>
#include <QScrollBar>

#include <algorithm>

namespace lattice::studio {

namespace {
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}
} // namespace

// --- selection -------------------------------------------------------------------------------

void GraphWidget::selectItem(NodeItem* item) {
  m_syncing = true;
  m_scene->clearSelection();
  if (item) item->setSelected(true);
  m_scene->setFocusItem(item);
  m_syncing = false;
}

void GraphWidget::onSceneSelectionChanged() {
  if (m_syncing) return;
  const QList<QGraphicsItem*> selected = m_scene->selectedItems();
  NodeItem* item = selected.size() == 1 ? qgraphicsitem_cast<NodeItem*>(selected.front()) : nullptr;
  m_scene->setFocusItem(item);
  if (!item) return; // background clicks clear through backgroundClicked
  m_syncing = true;
  if (item->isGroup()) {
    const int g = m_grouping ? m_grouping->findGroup(item->key().toStdString()) : -1;
    m_session->selectModule(g >= 0 ? qs(m_grouping->groups()[std::size_t(g)].modulePath) : item->key());
  } else {
    m_session->selectNode(item->key());
  }
  m_syncing = false;
}

void GraphWidget::onSessionSelection(const QString& nodeName) {
  if (m_syncing) return;
  if (nodeName.isEmpty()) {
    selectItem(nullptr);
    return;
  }
  revealNode(nodeName);
}

void GraphWidget::onSessionModuleSelection(const QString& modulePath) {
  if (m_syncing || modulePath.isEmpty()) return;
  showModule(modulePath);
}

void GraphWidget::showModule(const QString& modulePath) {
  // A collapsed group box is selected; an expanded group's frame is brought into view.
  if (NodeItem* box = m_scene->groupItem(modulePath)) {
    selectItem(box);
    m_view->centerOnItem(box);
  } else if (ClusterItem* frame = m_scene->clusterItem(modulePath)) {
    const QRectF r = frame->sceneBoundingRect();
    const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    m_view->centerOn(r.height() < visible.height()
                         ? r.center()
                         : QPointF(r.center().x(), r.top() + visible.height() / 2 - 20));
  } else if (m_grouping) {
    // A leaf module: the first call_module node calling it.
    const std::string path = modulePath.toStdString();
    for (const GroupedNode& n : m_grouping->nodes())
      if (n.op == fx::Op::CallModule && n.target == path) {
        if (NodeItem* leaf = m_scene->nodeItem(qs(n.name))) m_view->centerOnItem(leaf);
        break;
      }
  }
}

void GraphWidget::revealNode(const QString& name) {
  if (NodeItem* item = m_scene->nodeItem(name)) {
    selectItem(item);
    m_view->centerOnItem(item);
    return;
  }
  // Hidden in a collapsed group: open its groups, then select it once laid out.
  if (!m_grouping || m_grouping->findNode(name.toStdString()) < 0) return;
  const std::vector<std::string> paths = m_grouping->groupPathsOf(name.toStdString());
  if (paths.empty() || !m_hierarchical) return;
  m_pendingReveal = name;
  lattice::expandGroup(*m_grouping, m_expanded, paths.back());
  relayout();
}

void GraphWidget::onItemActivated(QGraphicsItem* item) {
  // The double-click an indicator's click started lands on what the new layout put there.
  if (m_lastToggle.isValid() && m_lastToggle.elapsed() < QApplication::doubleClickInterval()) return;
  if (auto* node = qgraphicsitem_cast<NodeItem*>(item)) {
    if (node->isGroup()) expandGroup(node->key());
  } else if (auto* cluster = qgraphicsitem_cast<ClusterItem*>(item)) {
    collapseGroup(cluster->modulePath());
  }
}

void GraphWidget::onItemClicked(QGraphicsItem* item) {
  if (auto* toggle = qgraphicsitem_cast<GroupToggleItem*>(item)) {
    m_lastToggle.start();
    if (toggle->isExpanded())
      collapseGroup(toggle->groupPath());
    else
      expandGroup(toggle->groupPath());
  } else if (auto* cluster = qgraphicsitem_cast<ClusterItem*>(item)) {
    // The title the user clicked is in view: selecting its module must not move the view.
    const int g = m_grouping ? m_grouping->findGroup(cluster->modulePath().toStdString()) : -1;
    if (g < 0) return;
    selectItem(nullptr);
    m_syncing = true;
    m_session->selectModule(qs(m_grouping->groups()[std::size_t(g)].modulePath));
    m_syncing = false;
  }
}

// --- search and navigation -------------------------------------------------------------------

void GraphWidget::showSearch() {
  m_searchBar->activate();
  if (!m_searchBar->text().isEmpty()) setSearchText(m_searchBar->text());
}

void GraphWidget::setSearchText(const QString& text) {
  const fx::Graph* graph = m_session->graph();
  m_hits = graph ? searchNodes(*graph, m_session->model(), text) : QStringList();
  m_hitIndex = -1;
  m_scene->setSearchHits(m_hits);
  m_searchBar->setResult(m_hitIndex, int(m_hits.size()));
}

void GraphWidget::findNext() {
  if (m_hits.isEmpty()) return;
  m_hitIndex = int((m_hitIndex + 1) % m_hits.size());
  m_searchBar->setResult(m_hitIndex, int(m_hits.size()));
  m_session->selectNode(m_hits[m_hitIndex]);
  revealNode(m_hits[m_hitIndex]); // also when it was selected already
}

void GraphWidget::findPrevious() {
  if (m_hits.isEmpty()) return;
  m_hitIndex = int((m_hitIndex - 1 + m_hits.size()) % m_hits.size());
  m_searchBar->setResult(m_hitIndex, int(m_hits.size()));
  m_session->selectNode(m_hits[m_hitIndex]);
  revealNode(m_hits[m_hitIndex]);
}

void GraphWidget::navigate(GraphView::Direction direction) {
  const QList<QGraphicsItem*> selected = m_scene->selectedItems();
  NodeItem* from = selected.size() == 1 ? qgraphicsitem_cast<NodeItem*>(selected.front()) : nullptr;
  if (!from) from = m_scene->itemForNode(m_session->selectedNode());
  if (!from) from = m_scene->itemForNode(m_session->currentNode());
  if (!from && !m_scene->nodeItems().isEmpty()) from = m_scene->nodeItems().front();
  if (!from) return;

  auto box = [this](const std::pair<bool, QString>& key) {
    return key.first ? m_scene->groupItem(key.second) : m_scene->nodeItem(key.second);
  };
  NodeItem* to = nullptr;
  if (direction == GraphView::Direction::Up || direction == GraphView::Direction::Down) {
    const QList<NodeItem*> next =
        direction == GraphView::Direction::Up ? m_scene->producers(from) : m_scene->consumers(from);
    if (next.isEmpty()) return;
    m_navAlternatives.clear();
    for (NodeItem* n : next)
      m_navAlternatives.emplace_back(n->isGroup(), n->key());
    to = next.front();
  } else {
    const std::pair<bool, QString> key(from->isGroup(), from->key());
    auto it = std::find(m_navAlternatives.begin(), m_navAlternatives.end(), key);
    if (it == m_navAlternatives.end()) {
      // No previous move: cycle through the other consumers of this box's first producer.
      const QList<NodeItem*> producers = m_scene->producers(from);
      if (producers.isEmpty()) return;
      m_navAlternatives.clear();
      for (NodeItem* n : m_scene->consumers(producers.front()))
        m_navAlternatives.emplace_back(n->isGroup(), n->key());
      it = std::find(m_navAlternatives.begin(), m_navAlternatives.end(), key);
      if (it == m_navAlternatives.end() || m_navAlternatives.size() < 2) return;
    }
    const auto count = std::ptrdiff_t(m_navAlternatives.size());
    std::ptrdiff_t i = it - m_navAlternatives.begin();
    i = (i + (direction == GraphView::Direction::Right ? 1 : count - 1)) % count;
    to = box(m_navAlternatives[std::size_t(i)]);
  }
  moveSelectionTo(to);
}

void GraphWidget::moveSelectionTo(NodeItem* to) {
  if (!to) return;
  selectItem(to);
  m_syncing = true; // the box is brought into view here, without the session's re-centring
  if (to->isGroup()) {
    const int g = m_grouping ? m_grouping->findGroup(to->key().toStdString()) : -1;
    if (g >= 0) m_session->selectModule(qs(m_grouping->groups()[std::size_t(g)].modulePath));
  } else {
    m_session->selectNode(to->key());
  }
  m_syncing = false;
  m_view->ensureVisible(to, 80, 80);
  Q_EMIT m_view->viewportMoved();
}

} // namespace lattice::studio
