// BreakpointsPanel: the table and its actions; every change goes through the session, whose
// breakpointsChanged the model follows.

#include "panels/BreakpointsPanel.h"

#include "StudioSession.h"
#include "fx/Graph.h"
#include "panels/BreakpointsModel.h"

#include <QAction>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace lattice::studio {

BreakpointsPanel::BreakpointsPanel(StudioSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_model(new BreakpointsModel(session, this)), m_view(new QTableView(this)),
      m_empty(new QLabel(this)) {
  setObjectName(QStringLiteral("breakpointsPanel"));
  auto* toolBar = new QToolBar(this);
  toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  toolBar->addAction(makeAction(QStringLiteral("remove"), tr("Remove"), tr("Remove the selected breakpoints (Delete)")));
  toolBar->addAction(makeAction(QStringLiteral("removeAll"), tr("Remove All"), tr("Remove every breakpoint")));
  toolBar->addSeparator();
  toolBar->addAction(makeAction(QStringLiteral("enableAll"), tr("Enable All"), tr("Enable every breakpoint")));
  toolBar->addAction(makeAction(QStringLiteral("disableAll"), tr("Disable All"),
                                tr("Disable every breakpoint: runs go past them; they stay listed")));
  action(QStringLiteral("remove"))->setShortcut(QKeySequence::Delete);
  action(QStringLiteral("remove"))->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  addAction(action(QStringLiteral("remove")));
  connect(action(QStringLiteral("remove")), &QAction::triggered, this, &BreakpointsPanel::removeSelected);
  connect(action(QStringLiteral("removeAll")), &QAction::triggered, session, &StudioSession::clearBreakpoints);
  connect(action(QStringLiteral("enableAll")), &QAction::triggered, this, [this] { setAllEnabled(true); });
  connect(action(QStringLiteral("disableAll")), &QAction::triggered, this, [this] { setAllEnabled(false); });

  m_view->setModel(m_model);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->verticalHeader()->setVisible(false);
  m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
  m_view->horizontalHeader()->setStretchLastSection(true);
  // A few rows: the node and operation columns fit their text; the module takes the rest.
  m_view->horizontalHeader()->setSectionResizeMode(BreakpointsModel::NodeColumn, QHeaderView::ResizeToContents);
  m_view->horizontalHeader()->setSectionResizeMode(BreakpointsModel::OperationColumn, QHeaderView::ResizeToContents);
  m_view->setWordWrap(false);
  m_view->setTextElideMode(Qt::ElideMiddle);

  m_empty->setText(tr("No breakpoints. Select a node and press F9 (Debug ▸ Toggle Breakpoint) to add one."));
  m_empty->setWordWrap(true);
  m_empty->setAlignment(Qt::AlignCenter);
  m_empty->setForegroundRole(QPalette::PlaceholderText);
  m_empty->setMargin(8);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(toolBar);
  layout->addWidget(m_view, 1);
  layout->addWidget(m_empty, 1);

  connect(m_view, &QAbstractItemView::doubleClicked, this, &BreakpointsPanel::activate);
  connect(m_view, &QAbstractItemView::activated, this, &BreakpointsPanel::activate);
  connect(m_model, &QAbstractItemModel::modelReset, this, &BreakpointsPanel::updateActions);
  connect(m_model, &QAbstractItemModel::dataChanged, this, &BreakpointsPanel::updateActions);
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &BreakpointsPanel::updateActions);
  updateActions();
}

QAction* BreakpointsPanel::makeAction(const QString& id, const QString& text, const QString& tip) {
  auto* a = new QAction(text, this);
  a->setObjectName(id);
  a->setToolTip(tip);
  m_actions << a;
  return a;
}

QAction* BreakpointsPanel::action(const QString& id) const {
  for (QAction* a : m_actions)
    if (a->objectName() == id) return a;
  return nullptr;
}

void BreakpointsPanel::removeSelected() {
  QStringList nodes;
  for (const QModelIndex& row : m_view->selectionModel()->selectedRows())
    nodes << row.data(BreakpointsModel::NodeNameRole).toString();
  for (const QString& node : std::as_const(nodes))
    m_session->removeBreakpoint(node);
}

void BreakpointsPanel::setAllEnabled(bool enabled) {
  const QStringList nodes = m_model->nodes(); // a copy: each change refreshes the model
  for (const QString& node : nodes)
    m_session->setBreakpointEnabled(node, enabled);
}

void BreakpointsPanel::activate(const QModelIndex& index) {
  if (!index.isValid()) return;
  const QString node = index.data(BreakpointsModel::NodeNameRole).toString();
  if (m_session->graph() && m_session->graph()->findNode(node.toStdString())) m_session->selectNode(node);
}

void BreakpointsPanel::updateActions() {
  const int rows = m_model->rowCount();
  const int disabled = static_cast<int>(m_session->disabledBreakpoints().size());
  m_view->setVisible(rows > 0);
  m_empty->setVisible(rows == 0);
  action(QStringLiteral("remove"))->setEnabled(m_view->selectionModel()->hasSelection());
  action(QStringLiteral("removeAll"))->setEnabled(rows > 0);
  action(QStringLiteral("enableAll"))->setEnabled(disabled > 0);
  action(QStringLiteral("disableAll"))->setEnabled(rows > disabled);
}

} // namespace lattice::studio
