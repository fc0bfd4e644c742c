#pragma once
/// \file PanelDocks: the main window's panels as docks. A panel takes its saved place when the
/// restored layout has one, else it is tabified with a panel already in its area, or docked
/// there with a default size once the window is shown. Panels belong to the model tab: hide()
/// keeps the dock layout the user had and hides them (their toggles disabled), show() brings
/// that layout back. The window's geometry and dock layout are saved (QSettings window/geometry,
/// window/state) a moment after they change: a panel docked elsewhere, floated, resized, shown
/// or hidden, the window moved or resized.

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>

#include <utility>

class QDockWidget;
class QMainWindow;
class QTimer;

namespace lattice::studio {

class PanelDocks : public QObject {
  Q_OBJECT

public:
  explicit PanelDocks(QMainWindow* window);

  /// The window restored a saved dock layout (restoreState succeeded).
  void setRestoredLayout(bool restored) { m_restoredLayout = restored; }
  /// Docks `dock` (see the file comment); hidden at once while the panels are.
  void add(QDockWidget* dock, Qt::DockWidgetArea area);
  /// Sizes the panels docked without a saved place for their area (once the window has its size).
  void applyDefaultSizes();
  bool hasPendingSizes() const { return !m_defaultAreas.isEmpty(); }
  void hide();
  void show();
  bool isHidden() const { return m_hidden; }
  /// The dock layout to save: the window's, or the one kept while the panels are hidden.
  QByteArray layout() const;
  /// Saves the geometry and layout now (a pending save is dropped).
  void saveLayout() const;
  /// Stops watching the window and its docks (the window's teardown).
  void stop();

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  /// Saves the layout a moment from now, when the window is on screen (not while it is built
  /// or torn down).
  void scheduleSave();
  void watchDock(QDockWidget* dock);

  QMainWindow* m_window;
  QTimer* m_save;
  bool m_restoredLayout = false;
  bool m_hidden = false;
  QByteArray m_layout; ///< the window's saveState() when the panels were hidden
  QList<QPointer<QDockWidget>> m_docks;
  /// Panels added without a saved place: sized for their area once the window is shown.
  QList<std::pair<QPointer<QDockWidget>, Qt::DockWidgetArea>> m_defaultAreas;
};

} // namespace lattice::studio
