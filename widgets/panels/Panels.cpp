// Panels: wraps each panel in a dock widget; the export dialog's entry point.

#include "panels/Panels.h"

#include "StudioSession.h"
#include "panels/BreakpointsPanel.h"
#include "panels/InspectorPanel.h"
#include "panels/InterpreterPanel.h"
#include "panels/MlirPanel.h"
#include "panels/ModuleTreePanel.h"

#include <QDockWidget>

namespace lattice::studio {

namespace {

const char* const kAreaProperty = "latticeDefaultArea";

QDockWidget* makeDock(QWidget* parent, const QString& name, const QString& title, QWidget* content,
                      Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, parent);
  dock->setObjectName(name);
  content->setParent(dock);
  dock->setWidget(content);
  dock->setProperty(kAreaProperty, static_cast<int>(area));
  return dock;
}

} // namespace

QList<QDockWidget*> createPanels(StudioSession* session, QWidget* parent) {
  QList<QDockWidget*> docks;
  docks << makeDock(parent, QStringLiteral("moduleTreeDock"), QStringLiteral("Modules"),
                    new ModuleTreePanel(session), Qt::LeftDockWidgetArea);
  docks << makeDock(parent, QStringLiteral("inspectorDock"), QStringLiteral("Inspector"),
                    new InspectorPanel(session), Qt::RightDockWidgetArea);
  docks << makeDock(parent, QStringLiteral("mlirDock"), QStringLiteral("MLIR"), new MlirPanel(session),
                    Qt::RightDockWidgetArea);
  // Before the interpreter, which is tabbed onto it and so stays the tab in front.
  docks << makeDock(parent, QStringLiteral("breakpointsDock"), QStringLiteral("Breakpoints"),
                    new BreakpointsPanel(session), Qt::BottomDockWidgetArea);
  docks << makeDock(parent, QStringLiteral("interpreterDock"), QStringLiteral("Interpreter"),
                    new InterpreterPanel(session), Qt::BottomDockWidgetArea);
  return docks;
}

Qt::DockWidgetArea defaultPanelArea(const QDockWidget* dock) {
  const QVariant area = dock ? dock->property(kAreaProperty) : QVariant();
  return area.isValid() ? static_cast<Qt::DockWidgetArea>(area.toInt()) : Qt::RightDockWidgetArea;
}

} // namespace lattice::studio
