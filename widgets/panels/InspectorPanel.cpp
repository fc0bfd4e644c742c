// InspectorPanel: a QTreeView over InspectorModel; re-expands the tree after each rebuild and
// turns double-clicks on node references into session selections.

#include "panels/InspectorPanel.h"

#include "StudioSession.h"
#include "panels/InspectorModel.h"

#include <QHeaderView>
#include <QTreeView>
#include <QVBoxLayout>

namespace lattice::studio {

InspectorPanel::InspectorPanel(StudioSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_model(new InspectorModel(session, this)),
      m_view(new QTreeView(this)) {
  setObjectName(QStringLiteral("inspectorPanel"));
  m_view->setModel(m_model);
  m_view->setAlternatingRowColors(true);
  m_view->setUniformRowHeights(true);
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->header()->resizeSection(InspectorModel::NameColumn, 140);
  m_view->header()->resizeSection(InspectorModel::ValueColumn, 220);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_view);

  // Sections and their groups open; the leaves of an artifact value stay one click away.
  connect(m_model, &QAbstractItemModel::modelReset, this, [this] { m_view->expandToDepth(1); });
  connect(m_view, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex& index) {
    const QString node = index.siblingAtColumn(0).data(InspectorModel::NodeRefRole).toString();
    if (!node.isEmpty()) m_session->selectNode(node);
  });
  m_view->expandToDepth(1);
}

} // namespace lattice::studio
