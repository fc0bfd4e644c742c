// ModuleTreePanel: presents a ModuleTreeModel in a QTreeView and turns user gestures into
// session calls. The view follows the session's module selection without echoing it back.

#include "panels/ModuleTreePanel.h"

#include "LeafEdits.h"
#include "StudioSession.h"
#include "model/Model.h"
#include "panels/ModuleTreeModel.h"

#include <QEvent>
#include <QHeaderView>
#include <QMenu>
#include <QMouseEvent>
#include <QStyle>
#include <QTreeView>
#include <QVBoxLayout>

namespace lattice::studio {

ModuleTreePanel::ModuleTreePanel(StudioSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_model(new ModuleTreeModel(session, this)),
      m_view(new QTreeView(this)) {
  setObjectName(QStringLiteral("moduleTreePanel"));
  m_view->setModel(m_model);
  m_view->setUniformRowHeights(true); // fast for tens of thousands of modules
  m_view->setAlternatingRowColors(true);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setContextMenuPolicy(Qt::CustomContextMenu);
  m_view->header()->setStretchLastSection(false);
  m_view->header()->setSectionResizeMode(ModuleTreeModel::NameColumn, QHeaderView::Interactive);
  // Widths from the font, so the columns read the same at any scale: the Leaf column holds its
  // check box and the usual "inlined" / "leaf (kept)".
  const QFontMetrics fm = m_view->fontMetrics();
  const int check = m_view->style()->pixelMetric(QStyle::PM_IndicatorWidth) + 16;
  m_view->header()->resizeSection(ModuleTreeModel::NameColumn, fm.horizontalAdvance(QStringLiteral("downsample_1_2")) + 40);
  m_view->header()->resizeSection(ModuleTreeModel::TypeColumn, fm.horizontalAdvance(QStringLiteral("SparseConv3d")) + 16);
  m_view->header()->resizeSection(ModuleTreeModel::LeafColumn, check + fm.horizontalAdvance(QStringLiteral("leaf (kept)")));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_view);

  // The selection, not the current index: a view that gets focus makes its first row (the
  // root) current without the user choosing it.
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (!rows.isEmpty()) onCurrentChanged(rows.front());
  });
  // A click on the row that is already current (its module since replaced in the inspector by a
  // node selected elsewhere) shows the module again.
  m_view->viewport()->installEventFilter(this);
  connect(m_view, &QAbstractItemView::clicked, this, [this](const QModelIndex& index) {
    if (!m_pressOnSelected) return;
    m_pressOnSelected = false;
    const QString path = index.data(ModuleTreeModel::PathRole).toString();
    m_session->clearModuleSelection();
    m_session->selectModule(path);
  });
  connect(m_view, &QWidget::customContextMenuRequested, this, &ModuleTreePanel::onContextMenu);
  connect(session, &StudioSession::moduleSelectionChanged, this, &ModuleTreePanel::onSessionModuleSelected);
  connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
    expandTopLevels();
    onSessionModuleSelected(m_session->selectedModule());
  });
  expandTopLevels();
}

void ModuleTreePanel::expandTopLevels() {
  // The root, and those of its children with a handful of children (stages such as
  // `encoders`), not a 10 000-block chain.
  constexpr int kMaxExpandedChildren = 32;
  const QModelIndex root = m_model->index(0, 0);
  if (!root.isValid()) return;
  m_view->expand(root);
  for (int r = 0; r < m_model->rowCount(root); ++r) {
    const QModelIndex child = m_model->index(r, 0, root);
    const int grandChildren = m_model->rowCount(child);
    if (grandChildren > 0 && grandChildren <= kMaxExpandedChildren) m_view->expand(child);
  }
}

bool ModuleTreePanel::eventFilter(QObject* watched, QEvent* event) {
  // Before the view handles the press: was the row under the mouse selected already?
  if (watched == m_view->viewport() && event->type() == QEvent::MouseButtonPress) {
    const QModelIndex index = m_view->indexAt(static_cast<QMouseEvent*>(event)->position().toPoint());
    m_pressOnSelected =
        index.isValid() && m_view->selectionModel()->isRowSelected(index.row(), index.parent());
  }
  return QWidget::eventFilter(watched, event);
}

void ModuleTreePanel::onCurrentChanged(const QModelIndex& current) {
  if (m_syncing || !current.isValid()) return;
  m_session->selectModule(current.data(ModuleTreeModel::PathRole).toString());
}

void ModuleTreePanel::onSessionModuleSelected(const QString& path) {
  m_syncing = true;
  if (!m_session->hasModuleSelection()) { // "" alone is the root module
    m_view->selectionModel()->clearSelection();
  } else if (const QModelIndex index = m_model->indexOfPath(path); index.isValid()) {
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
  }
  m_syncing = false;
}

QString ModuleTreePanel::callNodeOf(const QString& path) const {
  const fx::Graph* graph = m_session->graph();
  if (!graph || path.isEmpty()) return {};
  const std::string target = path.toStdString();
  for (const fx::Node& node : graph->nodes())
    if (node.op() == fx::Op::CallModule && node.target() == target)
      return QString::fromStdString(node.name());
  return {};
}

void ModuleTreePanel::onContextMenu(const QPoint& pos) {
  const QModelIndex index = m_view->indexAt(pos);
  if (!index.isValid()) return;
  const QString path = index.data(ModuleTreeModel::PathRole).toString();
  if (path.isEmpty()) return; // the root's decision is fixed
  const bool leaf = index.data(ModuleTreeModel::IsLeafRole).toBool();
  const bool overridden = index.data(ModuleTreeModel::OverriddenRole).toBool();
  const bool container = index.data(ModuleTreeModel::IsContainerRole).toBool(); // nothing to decide

  QMenu menu(this);
  QAction* keep = menu.addAction(QStringLiteral("Keep as Leaf"));
  keep->setEnabled(!leaf && !container);
  QAction* inlineIt = menu.addAction(QStringLiteral("Inline (Expand)"));
  inlineIt->setEnabled(leaf && !container);
  QAction* reset = menu.addAction(QStringLiteral("Use Tracer Default"));
  reset->setEnabled(overridden && !container);
  menu.addSeparator();
  const QString node = callNodeOf(path);
  QAction* select = menu.addAction(QStringLiteral("Select Call Node"));
  select->setEnabled(!node.isEmpty());

  QAction* chosen = menu.exec(m_view->viewport()->mapToGlobal(pos));
  if (chosen == keep)
    LeafEdits::of(m_session)->set(path, true);
  else if (chosen == inlineIt)
    LeafEdits::of(m_session)->set(path, false);
  else if (chosen == reset)
    LeafEdits::of(m_session)->set(path, std::nullopt);
  else if (chosen == select)
    m_session->selectNode(node);
}

} // namespace lattice::studio
