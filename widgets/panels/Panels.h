#pragma once
/// \file The studio's panels in one place, which MainWindow creates as its
/// docks: the module tree, the inspector, the interpreter (values and diagnostics), the
/// breakpoints and the MLIR text; and the export dialog's entry point (File ▸ Export Artifact…).

#include "panels/ExportDialog.h"

#include <QList>

#include <functional>

class QDockWidget;
class QWidget;

namespace lattice::studio {

class StudioSession;

/// One QDockWidget per panel, each with a unique objectName (the saved layout's key):
/// "moduleTreeDock" (ModuleTreePanel), "inspectorDock" (InspectorPanel), "mlirDock" (MlirPanel),
/// "interpreterDock" (InterpreterPanel), "breakpointsDock" (BreakpointsPanel). Their parent is
/// `parent`.
QList<QDockWidget*> createPanels(StudioSession* session, QWidget* parent);

/// Where a dock from createPanels goes by default: module tree left, inspector and MLIR right,
/// interpreter and breakpoints bottom.
Qt::DockWidgetArea defaultPanelArea(const QDockWidget* dock);

} // namespace lattice::studio
