// PanelDocks: where a panel docks and how the model tab's dock layout survives other tabs.

#include "PanelDocks.h"

#include <QAction>
#include <QChildEvent>
#include <QDockWidget>
#include <QMainWindow>
#include <QSettings>
#include <QTimer>

#include <algorithm>

namespace lattice::studio {

namespace {

/// How long the window's geometry and dock layout settle before they are saved.
constexpr int kLayoutSaveDelayMs = 300;

} // namespace

PanelDocks::PanelDocks(QMainWindow* window) : QObject(window), m_window(window) {
  m_save = new QTimer(this);
  m_save->setSingleShot(true);
  m_save->setInterval(kLayoutSaveDelayMs);
  connect(m_save, &QTimer::timeout, this, &PanelDocks::saveLayout);
  window->installEventFilter(this);
}

void PanelDocks::scheduleSave() {
  if (m_window->isVisible()) m_save->start();
}

void PanelDocks::saveLayout() const {
  m_save->stop();
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), m_window->saveGeometry());
  // Panels hidden for another tab are the model tab's layout, not the user's choice.
  s.setValue(QStringLiteral("window/state"), layout());
}

void PanelDocks::stop() {
  m_save->stop();
  m_window->removeEventFilter(this);
  for (QDockWidget* dock : m_window->findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly))
    dock->removeEventFilter(this);
}

void PanelDocks::watchDock(QDockWidget* dock) {
  if (dock->property("latticeLayoutWatched").toBool()) return;
  dock->setProperty("latticeLayoutWatched", true);
  dock->installEventFilter(this);
  connect(dock, &QDockWidget::dockLocationChanged, this, &PanelDocks::scheduleSave);
  connect(dock, &QDockWidget::topLevelChanged, this, &PanelDocks::scheduleSave);
}

bool PanelDocks::eventFilter(QObject* watched, QEvent* event) {
  switch (event->type()) {
  case QEvent::ChildAdded:
  case QEvent::ChildPolished:
    // Every dock of the window, panels and others, saves the layout when it changes.
    if (watched == m_window)
      if (auto* dock = qobject_cast<QDockWidget*>(static_cast<QChildEvent*>(event)->child())) watchDock(dock);
    break;
  case QEvent::Resize:
  case QEvent::Move:
    scheduleSave(); // the window or a dock
    break;
  case QEvent::Show:
  case QEvent::Hide:
    if (watched != m_window) scheduleSave();
    break;
  default:
    break;
  }
  return QObject::eventFilter(watched, event);
}

void PanelDocks::add(QDockWidget* dock, Qt::DockWidgetArea area) {
  Q_ASSERT(!dock->objectName().isEmpty());
  m_docks << QPointer<QDockWidget>(dock);
  // Its saved place, size and shown/closed state when the saved layout has one (restoreDockWidget
  // only finds it when the dock is not in the layout yet).
  if (!m_restoredLayout || !m_window->restoreDockWidget(dock)) {
    // Tabify with the first panel already in that area, so panels stack instead of shrinking.
    QDockWidget* sibling = nullptr;
    const QList<QDockWidget*> docks = m_window->findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly);
    for (QDockWidget* d : docks)
      if (d != dock && m_window->dockWidgetArea(d) == area && !d->isFloating() && !d->isHidden()) {
        sibling = d;
        break;
      }
    m_window->addDockWidget(area, dock);
    if (sibling)
      m_window->tabifyDockWidget(sibling, dock);
    else
      m_defaultAreas.push_back({QPointer<QDockWidget>(dock), area}); // a default size once shown
  }
  if (m_window->isVisible()) applyDefaultSizes();
  if (m_hidden) { // added while another tab shows: it appears with the model tab
    m_layout = m_window->saveState();
    dock->hide();
    dock->toggleViewAction()->setEnabled(false);
  }
}

void PanelDocks::applyDefaultSizes() {
  // resizeDocks() only sticks once the window has its real size, so this runs after show.
  for (const auto& [dock, area] : std::as_const(m_defaultAreas)) {
    if (!dock) continue;
    const bool vertical = area == Qt::TopDockWidgetArea || area == Qt::BottomDockWidgetArea;
    // The right panels (inspector, values) need room for a table of a few columns; on a small
    // screen they take up to a third.
    const int w = m_window->width();
    const int extent = vertical ? m_window->height() * 3 / 10
                                : (area == Qt::LeftDockWidgetArea ? w / 5 : std::max(w / 4, std::min(300, w / 3)));
    m_window->resizeDocks({dock.data()}, {extent}, vertical ? Qt::Vertical : Qt::Horizontal);
  }
  m_defaultAreas.clear();
}

void PanelDocks::hide() {
  if (m_hidden) return;
  m_hidden = true;
  m_layout = m_window->saveState();
  for (QDockWidget* dock : std::as_const(m_docks)) {
    if (!dock) continue;
    dock->hide();
    dock->toggleViewAction()->setEnabled(false);
  }
}

void PanelDocks::show() {
  if (!m_hidden) return;
  m_hidden = false;
  for (QDockWidget* dock : std::as_const(m_docks))
    if (dock) dock->toggleViewAction()->setEnabled(true);
  m_window->restoreState(m_layout);
}

QByteArray PanelDocks::layout() const {
  return m_hidden ? m_layout : m_window->saveState();
}

} // namespace lattice::studio
