// GraphWidget: the glue between StudioSession and the graph view (see the header). Layout
// itself is LayoutController's, items are GraphScene's; this file decides WHEN to lay out and
// what to show, and keeps the interpreter state in step with the session. Selection, search and
// the keyboard walk are in GraphWidgetSelection.cpp; image export in GraphExport.cpp; the
// actions, expand / collapse and the right-click menu in GraphWidgetActions.cpp; the lowering
// verdicts in GraphWidgetVerdicts.cpp.

#include "graph/GraphWidget.h"

#include "StudioSession.h"
#include "ValueText.h"
#include "graph/ClusterItem.h"
#include "graph/GraphMinimap.h"
#include "graph/GraphScene.h"
#include "graph/GraphSearch.h"
#include "graph/GraphSearchBar.h"
#include "graph/NodeItem.h"
#include "lowering/Lowering.h"
#include "lowering/LoweringVerdicts.h"
#include "lowering/TorchLatticeArtifactBuilder.h"
#include "model/Model.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFrame>
#include <QHelpEvent>
#include <QLabel>
#include <QLoggingCategory>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QToolTip>
#include <QVBoxLayout>

#include <functional>

namespace lattice::studio {

Q_LOGGING_CATEGORY(lcGraph, "lattice.studio.graph", QtWarningMsg)

namespace {
constexpr int kOverlayDelayMs = 250;
constexpr int kSlowHintMs = 1000;

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}
} // namespace

GraphWidget::GraphWidget(StudioSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_view(new GraphView(this)), m_scene(new GraphScene(this)),
      m_controller(new LayoutController(this)), m_searchBar(new GraphSearchBar(this)) {
  m_view->setScene(m_scene);
  m_view->viewport()->installEventFilter(this); // tooltips with the interpreter's values
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(m_searchBar);
  layout->addWidget(m_view, 1);
  m_searchBar->hide();

  // The progress / message card over the view.
  m_overlay = new QFrame(this);
  m_overlay->setObjectName(QStringLiteral("graphOverlay"));
  m_overlay->setFrameShape(QFrame::StyledPanel);
  m_overlay->setAutoFillBackground(true);
  m_overlay->setStyleSheet(QStringLiteral(
      "#graphOverlay { background: rgba(255,255,255,240); border: 1px solid #b8c0ca; border-radius: 8px; }"));
  auto* card = new QVBoxLayout(m_overlay);
  card->setContentsMargins(18, 14, 18, 14);
  m_overlayText = new QLabel(m_overlay);
  m_overlayText->setWordWrap(true);
  m_overlayText->setAlignment(Qt::AlignCenter);
  m_overlayBar = new QProgressBar(m_overlay);
  m_overlayBar->setTextVisible(false);
  m_overlayCancel = new QPushButton(tr("Cancel"), m_overlay);
  card->addWidget(m_overlayText);
  card->addWidget(m_overlayBar);
  card->addWidget(m_overlayCancel, 0, Qt::AlignCenter);
  connect(m_overlayCancel, &QPushButton::clicked, this, [this] {
    if (m_busy == Busy::Loading)
      m_session->cancelLoad();
    else if (m_busy == Busy::Layout)
      m_controller->cancel();
  });
  m_overlayTimer.setInterval(100);
  connect(&m_overlayTimer, &QTimer::timeout, this, &GraphWidget::updateOverlay);
  showMessage(tr("Open a model with File ▸ Open Model… (Ctrl+O) or File ▸ Open Example,\n"
                 "or drop an .ltfx directory here."));

  // Session → view.
  connect(session, &StudioSession::modelLoadStarted, this, [this](const QString& ref) {
    m_openClock.start();
    m_busy = Busy::Loading;
    m_busySince.start();
    m_overlayText->setText(tr("Loading %1…").arg(ref));
    m_overlayTimer.start();
  });
  auto loadEnded = [this] {
    if (m_busy == Busy::Loading) m_busy = Busy::None;
    updateOverlay();
  };
  connect(session, &StudioSession::modelLoadFailed, this, [this, loadEnded](const QString& message) {
    loadEnded();
    if (m_scene->nodeItems().isEmpty()) showMessage(tr("Could not open the model:\n%1").arg(message));
  });
  connect(session, &StudioSession::modelLoadCancelled, this, loadEnded);
  connect(session, &StudioSession::modelLoaded, this, loadEnded);
  connect(session, &StudioSession::graphChanged, this, &GraphWidget::onGraphChanged);
  for (auto signal : {&StudioSession::inputSpecsChanged, &StudioSession::exportOptionsChanged})
    connect(session, signal, this, &GraphWidget::updateVerdicts);
  connect(session, &StudioSession::weightsLoaded, this, &GraphWidget::updateVerdicts);
  connect(session, &StudioSession::traceFailed, this, &GraphWidget::onTraceFailed);
  connect(session, &StudioSession::selectionChanged, this, &GraphWidget::onSessionSelection);
  connect(session, &StudioSession::moduleSelectionChanged, this, &GraphWidget::onSessionModuleSelection);
  connect(session, &StudioSession::breakpointsChanged, this,
          [this] { m_scene->setBreakpoints(m_session->breakpoints(), m_session->disabledBreakpoints()); });
  for (auto signal : {&StudioSession::interpreterReset, &StudioSession::interpreterFinished})
    connect(session, signal, this, [this] { updateInterpreterState(true); });
  connect(session, &StudioSession::interpreterStepped, this, [this] { updateInterpreterState(true); });
  connect(session, &StudioSession::interpreterFailed, this, [this] { updateInterpreterState(true); });

  // Layout results.
  connect(m_controller, &LayoutController::layoutStarted, this, [this] {
    m_busy = Busy::Layout;
    m_busySince.start();
    m_overlayTimer.start();
    Q_EMIT layoutStarted();
  });
  connect(m_controller, &LayoutController::layoutFinished, this, &GraphWidget::onLayoutFinished);
  connect(m_controller, &LayoutController::layoutFailed, this, [this](quint64, const QString& message) {
    m_busy = Busy::None;
    updateOverlay();
    Q_EMIT layoutFailed(message);
    if (!m_hierarchical) {
      // The flat view was refused (more nodes than one Graphviz call takes): back to module
      // groups, and say so, rather than a message over an empty view.
      m_hierarchical = true;
      Q_EMIT hierarchicalChanged(true);
      Q_EMIT flatViewRefused(message);
      relayout();
      return;
    }
    showMessage(tr("Layout failed:\n%1").arg(message));
  });
  connect(m_controller, &LayoutController::layoutCancelled, this, [this] {
    m_busy = Busy::None;
    updateOverlay();
    if (m_scene->nodeItems().isEmpty())
      showMessage(tr("Layout cancelled. Use View ▸ Fit or expand fewer groups."));
    Q_EMIT layoutCancelled();
  });

  // View → session.
  connect(m_scene, &QGraphicsScene::selectionChanged, this, &GraphWidget::onSceneSelectionChanged);
  connect(m_view, &GraphView::navigationRequested, this, &GraphWidget::navigate);
  connect(m_view, &GraphView::expandRequested, this, [this](bool expand) {
    if (expand)
      expandSelected();
    else
      collapseSelected();
  });
  connect(m_view, &GraphView::contextMenuRequested, this, &GraphWidget::onContextMenu);
  connect(m_view, &GraphView::itemActivated, this, &GraphWidget::onItemActivated);
  connect(m_view, &GraphView::itemClicked, this, &GraphWidget::onItemClicked);
  connect(m_view, &GraphView::backgroundClicked, this, [this] {
    selectItem(nullptr);
    m_session->selectNode(QString());
  });

  // Search.
  connect(m_searchBar, &GraphSearchBar::textEdited, this, &GraphWidget::setSearchText);
  connect(m_searchBar, &GraphSearchBar::nextRequested, this, &GraphWidget::findNext);
  connect(m_searchBar, &GraphSearchBar::previousRequested, this, &GraphWidget::findPrevious);
  connect(m_searchBar, &GraphSearchBar::closed, this, [this] {
    m_scene->setSearchHits({});
    m_view->setFocus();
  });
  createActions();
}

GraphWidget::~GraphWidget() {
  waitForVerdictJobs();
}

QString GraphWidget::toolTipFor(const NodeItem* item) const {
  if (!item) return {};
  QString tip = item->toolTip();
  if (item->isGroup()) return tip;
  if (const LoweringVerdicts* verdicts = m_scene->verdicts()) {
    const NodeVerdict& v = verdicts->of(item->key().toStdString());
    if (v.state == NodeVerdict::State::Refused)
      tip += tr("\n\nThe lowering refuses it: %1").arg(qs(v.message));
    else if (v.state == NodeVerdict::State::NotReached)
      tip += tr("\n\nNot reached by the lowering: it %1").arg(qs(v.message));
  } else if (!m_verdictError.isEmpty()) {
    tip += tr("\n\nNot checked: the lowering cannot start (%1)").arg(m_verdictError);
  }
  // Once the node ran, its value as the value table reads it.
  const PreparedLowering* lowering = m_session->lowering();
  if (!lowering || !lowering->interpreter || !lowering->graph) return tip;
  const fx::Node* node = lowering->graph->findNode(item->key().toStdString());
  const fx::Value* value = node ? lowering->interpreter->valueOf(node) : nullptr;
  if (!value) return tip;
  return tip + QStringLiteral("\n\n") + valueToolTip(summarizeValue(*value));
}

bool GraphWidget::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view->viewport() && event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (auto* item = qgraphicsitem_cast<NodeItem*>(m_view->itemAt(help->pos()))) {
      QToolTip::showText(help->globalPos(), toolTipFor(item), m_view->viewport());
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

bool GraphWidget::isLayoutRunning() const {
  return m_controller->isRunning();
}

// --- layout ----------------------------------------------------------------------------------

void GraphWidget::onGraphChanged() {
  const fx::Graph* graph = m_session->graph();
  if (!graph) return;
  QElapsedTimer clock;
  clock.start();
  m_grouping = std::make_shared<const GraphGrouping>(GraphGrouping::build(*graph));
  updateVerdicts();
  m_measures.reset(); // measured lazily, per expansion, in relayout()
  qCDebug(lcGraph) << "grouped" << graph->size() << "nodes into" << m_grouping->groups().size() << "groups in"
                   << clock.elapsed() << "ms";
  if (m_groupedReference != m_session->modelReference()) {
    // A new model: default expansion. A re-trace of the same model keeps the user's groups.
    m_groupedReference = m_session->modelReference();
    // Large graphs open as an overview of collapsed groups, small ones fully expanded.
    m_expanded = graph->size() > kOverviewAbove ? overviewExpansion(*m_grouping, kOverviewItems)
                                                : fullExpansion(*m_grouping);
    m_freshModel = true;
  }
  m_navAlternatives.clear();
  // A re-trace (a leaf toggled, undone or redone) keeps the selected module in view once laid out.
  m_anchorModule = !m_freshModel && m_session->hasModuleSelection() ? m_session->selectedModule() : QString();
  if (!m_searchBar->text().isEmpty()) setSearchText(m_searchBar->text());
  relayout();
}

void GraphWidget::onTraceFailed(const QString& message) {
  m_grouping.reset();
  m_scene->clearGraph();
  m_view->minimap()->invalidate();
  showMessage(tr("Tracing failed:\n%1\n\nUndo the last leaf change with Edit ▸ Undo (Ctrl+Z).").arg(message));
}

void GraphWidget::relayout() {
  if (!m_grouping) return;
  QElapsedTimer clock;
  clock.start();
  m_measures = GraphScene::measureVisible(m_measures, *m_grouping, m_expanded, !m_hierarchical,
                                          m_session->graph(), m_session->model());
  qCDebug(lcGraph) << "measured labels in" << clock.elapsed() << "ms";
  if (m_hierarchical)
    m_controller->requestHierarchical(m_grouping, m_expanded, m_measures);
  else
    m_controller->requestFlat(m_grouping, m_measures);
}

void GraphWidget::setHierarchical(bool hierarchical) {
  if (hierarchical == m_hierarchical) return;
  m_hierarchical = hierarchical;
  Q_EMIT hierarchicalChanged(hierarchical);
  m_freshModel = true; // a different picture: frame it anew
  relayout();
}

void GraphWidget::expandGroup(const QString& path) {
  if (!m_grouping || !lattice::expandGroup(*m_grouping, m_expanded, path.toStdString())) {
    m_pendingFirstChildOf.clear();
    return;
  }
  m_anchorGroup = path;
  if (m_hierarchical) relayout();
}

void GraphWidget::collapseGroup(const QString& path) {
  if (!m_grouping || !lattice::collapseGroup(*m_grouping, m_expanded, path.toStdString())) {
    m_pendingGroupBox.clear();
    return;
  }
  m_anchorGroup = path;
  if (m_hierarchical) relayout();
}

void GraphWidget::setExpansion(ExpandedGroups expanded) {
  if (!m_grouping) return;
  m_expanded = std::move(expanded);
  m_anchorGroup.clear();
  m_reframe = true;
  if (m_hierarchical) relayout();
}

void GraphWidget::onLayoutFinished(quint64, std::shared_ptr<const ViewLayout> layout) {
  qCDebug(lcGraph) << "layout done after" << m_busySince.elapsed() << "ms:" << layout->items.size()
                   << "items," << layout->stats.units << "units," << layout->stats.layoutCalls
                   << "Graphviz calls," << layout->stats.cacheHits << "cache hits, largest unit"
                   << layout->stats.largestUnit;
  QElapsedTimer clock;
  clock.start();
  m_busy = Busy::None;
  updateOverlay();
  m_overlay->hide();
  m_syncing = true;
  m_scene->build(*layout, m_grouping, m_session->graph(), m_session->model());
  m_syncing = false;
  m_scene->setBreakpoints(m_session->breakpoints(), m_session->disabledBreakpoints());
  m_scene->setSearchHits(m_searchBar->isVisible() ? m_hits : QStringList());
  updateInterpreterState(false); // the states only: a re-layout keeps the user's view
  if (NodeItem* selected = m_scene->nodeItem(m_session->selectedNode())) selectItem(selected);

  if (m_freshModel) {
    m_freshModel = false;
    m_reframe = false;
    initialView();
  } else if (m_reframe) {
    m_reframe = false;
    initialView();
    if (!m_scene->selectedItems().isEmpty()) m_view->centerOn(m_scene->selectedItems().front());
  } else if (!m_anchorGroup.isEmpty()) {
    // Keep the group the user expanded or collapsed in view.
    QGraphicsItem* anchor = m_scene->clusterItem(m_anchorGroup);
    if (!anchor) anchor = m_scene->groupItem(m_anchorGroup);
    if (anchor) {
      const QRectF r = anchor->sceneBoundingRect();
      const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
      if (r.height() < visible.height())
        m_view->centerOn(r.center());
      else
        m_view->centerOn(QPointF(r.center().x(), r.top() + visible.height() / 2 - 20));
    }
  } else if (!m_anchorModule.isEmpty()) {
    showModule(m_anchorModule);
  }
  m_anchorGroup.clear();
  m_anchorModule.clear();
  // The keyboard's expand selects the group's first box, its collapse the group's box.
  if (!m_pendingGroupBox.isEmpty()) moveSelectionTo(m_scene->groupItem(m_pendingGroupBox));
  if (!m_pendingFirstChildOf.isEmpty() && m_grouping) {
    const std::function<NodeItem*(int)> firstBox = [&](int g) -> NodeItem* {
      for (const GroupChild& c : m_grouping->groups()[std::size_t(g)].children) {
        if (!c.isGroup) return m_scene->nodeItem(qs(m_grouping->nodes()[std::size_t(c.index)].name));
        if (NodeItem* box = m_scene->groupItem(qs(m_grouping->groups()[std::size_t(c.index)].path))) return box;
        if (NodeItem* inner = firstBox(c.index)) return inner;
      }
      return nullptr;
    };
    const int g = m_grouping->findGroup(m_pendingFirstChildOf.toStdString());
    if (g >= 0) moveSelectionTo(firstBox(g));
  }
  m_pendingGroupBox.clear();
  m_pendingFirstChildOf.clear();
  if (!m_pendingReveal.isEmpty()) {
    const QString name = m_pendingReveal;
    m_pendingReveal.clear();
    if (NodeItem* item = m_scene->nodeItem(name)) {
      selectItem(item);
      m_view->centerOnItem(item);
    }
  }
  m_view->minimap()->invalidate();
  qCDebug(lcGraph) << "scene built in" << clock.elapsed() << "ms;"
                   << (m_openClock.isValid() ? m_openClock.elapsed() : -1) << "ms since the model was opened";
  Q_EMIT layoutFinished();
}

void GraphWidget::initialView() {
  m_view->fitToView();
  if (m_view->zoom() >= 0.5) return;
  // Too small to read when fitted: start readable, at the interpreter's node or the inputs.
  m_view->setZoom(0.85);
  NodeItem* focus = m_scene->itemForNode(m_session->currentNode());
  if (!focus)
    for (NodeItem* item : m_scene->nodeItems())
      if (item->role() == NodeRole::Placeholder) {
        focus = item;
        break;
      }
  if (focus)
    m_view->centerOn(focus);
  else
    m_view->centerOn(m_scene->itemsBoundingRect().center().x(), m_scene->itemsBoundingRect().top());
  Q_EMIT m_view->viewportMoved();
}

// --- overlay ---------------------------------------------------------------------------------

void GraphWidget::showMessage(const QString& text) {
  m_overlayText->setText(text);
  m_overlayBar->hide();
  m_overlayCancel->hide();
  m_overlay->show();
  m_overlay->raise();
  placeOverlay();
}

void GraphWidget::updateOverlay() {
  if (m_busy == Busy::None) {
    m_overlayTimer.stop();
    if (!m_overlayBar->isHidden()) m_overlay->hide(); // a progress card, not a message
    return;
  }
  if (m_busySince.elapsed() < kOverlayDelayMs) return;
  if (m_busy == Busy::Layout) {
    const auto [done, total] = m_controller->progress();
    QString text = total > 1 ? tr("Laying out the graph… (%1 of %2 groups)").arg(done).arg(total)
                             : tr("Laying out the graph…");
    if (m_busySince.elapsed() > kSlowHintMs)
      text += tr("\nLarge graphs are laid out group by group; a collapsed group expands with a click on its +.");
    m_overlayText->setText(text);
    m_overlayBar->setRange(0, total > 1 ? total : 0);
    if (total > 1) m_overlayBar->setValue(done);
  } else {
    m_overlayBar->setRange(0, 0);
  }
  m_overlayBar->show();
  m_overlayCancel->show();
  m_overlay->show();
  m_overlay->raise();
  placeOverlay();
}

void GraphWidget::placeOverlay() {
  const QSize hint = m_overlay->sizeHint().expandedTo(QSize(360, 0)).boundedTo(size());
  const QRect area = m_view->geometry();
  m_overlay->setGeometry(area.center().x() - hint.width() / 2, area.center().y() - hint.height() / 2,
                         hint.width(), hint.height());
}

void GraphWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  placeOverlay();
}

// --- interpreter -----------------------------------------------------------------------------

void GraphWidget::updateInterpreterState(bool follow) {
  const bool failed = m_session->interpreterState() == StudioSession::InterpreterState::Failed;
  const QString current = m_session->currentNode();
  m_scene->setInterpreterState(current, m_session->executedNodes(),
                               failed ? m_session->failedNode() : QString());
  if (!follow) return;
  // Follow execution: keep the next node (or the failure) on screen, readable (zoomed in when
  // the view is further out; a closer zoom stays).
  m_view->followItem(m_scene->itemForNode(failed ? m_session->failedNode() : current));
}

} // namespace lattice::studio
