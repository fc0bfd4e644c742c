// MainWindow's docks and tabs: addPanel (a saved place, else tabified in its area with a default
// size once shown), and what the current tab shows — the panels and the Debug tool bar belong to
// the model tab, so an artifact or compare tab hides them and the model tab brings back the
// layout the user had; the model tab itself is hidden while no model was ever opened and other
// tabs exist. The panels themselves are in widgets/panels (createPanels).

#include "MainWindow.h"

#include "graph/GraphWidget.h"
#include "numeric/ValuesPanel.h"
#include "panels/DiagnosticsModel.h"
#include "panels/InterpreterPanel.h"
#include "panels/Panels.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>

namespace lattice::studio {

void MainWindow::createDocks() {
  for (QDockWidget* dock : createPanels(m_session, this)) {
    addPanel(dock, defaultPanelArea(dock));
    // The interpreter's diagnostics list also shows the numeric run's errors.
    if (auto* interpreter = qobject_cast<InterpreterPanel*>(dock->widget()))
      interpreter->diagnosticsModel()->watchRun(m_numeric);
  }
  // The numeric debugger's values: the selected node's concrete value, time and error.
  auto* values = new QDockWidget(tr("Values"), this);
  values->setObjectName(QStringLiteral("valuesDock"));
  values->setWidget(new ValuesPanel(m_session, m_numeric, values));
  addPanel(values, Qt::RightDockWidgetArea);
}

void MainWindow::addPanel(QDockWidget* dock, Qt::DockWidgetArea area) {
  Q_ASSERT(!dock->objectName().isEmpty());
  m_panelsMenu->addAction(dock->toggleViewAction());
  m_modelDocks << QPointer<QDockWidget>(dock);
  // Its saved place, size and shown/closed state when the saved layout has one (restoreDockWidget
  // only finds it when the dock is not in the layout yet).
  if (m_restoredLayout && restoreDockWidget(dock)) {
    finishAddPanel(dock);
    return;
  }
  // Tabify with the first panel already in that area, so panels stack instead of shrinking.
  QDockWidget* sibling = nullptr;
  const QList<QDockWidget*> docks = findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly);
  for (QDockWidget* d : docks)
    if (d != dock && dockWidgetArea(d) == area && !d->isFloating() && !d->isHidden()) {
      sibling = d;
      break;
    }
  addDockWidget(area, dock);
  if (sibling)
    tabifyDockWidget(sibling, dock);
  else
    m_defaultDockAreas.push_back({QPointer<QDockWidget>(dock), area}); // a default size once shown
  finishAddPanel(dock);
}

void MainWindow::finishAddPanel(QDockWidget* dock) {
  if (isVisible()) applyDefaultDockSizes();
  if (!m_modelTabActive) { // added while an artifact tab shows: it appears with the model tab
    m_modelDockLayout = saveState();
    dock->hide();
    dock->toggleViewAction()->setEnabled(false);
  }
}

void MainWindow::onCurrentTabChanged(int index) {
  const bool model = index < 0 || m_tabs->widget(index) == m_graph;
  if (model != m_modelTabActive) {
    m_modelTabActive = model;
    if (!model) {
      m_modelDockLayout = saveState();
      for (QDockWidget* dock : std::as_const(m_modelDocks)) {
        if (!dock) continue;
        dock->hide();
        dock->toggleViewAction()->setEnabled(false);
      }
      m_debugBar->hide();
    } else {
      for (QDockWidget* dock : std::as_const(m_modelDocks))
        if (dock) dock->toggleViewAction()->setEnabled(true);
      restoreState(m_modelDockLayout);
    }
  }
  m_stateLabel->setVisible(model);
  m_zoomLabel->setVisible(model);
  updateChangedBar();
  updateActions();
}

void MainWindow::updateModelTabVisibility() {
  const bool visible = m_modelRequested || m_tabs->count() == 1;
  if (m_tabs->isTabVisible(0) == visible) return;
  m_tabs->setTabVisible(0, visible);
  if (!visible && m_tabs->currentIndex() == 0) m_tabs->setCurrentIndex(m_tabs->count() - 1);
}

void MainWindow::applyDefaultDockSizes() {
  // resizeDocks() only sticks once the window has its real size, so this runs after show.
  for (const auto& [dock, area] : std::as_const(m_defaultDockAreas)) {
    if (!dock) continue;
    const bool vertical = area == Qt::TopDockWidgetArea || area == Qt::BottomDockWidgetArea;
    const int extent =
        vertical ? height() * 3 / 10 : (area == Qt::LeftDockWidgetArea ? width() / 5 : width() / 4);
    resizeDocks({dock.data()}, {extent}, vertical ? Qt::Vertical : Qt::Horizontal);
  }
  m_defaultDockAreas.clear();
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (!m_defaultDockAreas.isEmpty()) QTimer::singleShot(0, this, &MainWindow::applyDefaultDockSizes);
}

} // namespace lattice::studio
