#pragma once
/// \file ModelDocument: the model tab. It shows the session's model graph (GraphWidget) and owns
/// what acts on the model: File ▸ Load Weights…, Export Artifact…, Export Graph Image…; View's
/// layout mode, minimap, legend and Overlay (time or accuracy colours on the graph, legend in the
/// status bar); Debug's interpreter actions (start, step, continue, breakpoints, inputs) and the
/// numeric debugger's (Run on Inputs through run(), Run Inputs…, Numeric Stepping, the first
/// divergent node), with the run's progress; the Debug tool bar; and the status bar's model line
/// and interpreter state. It enables its actions from the session, the numeric run and whether
/// it is the current tab; the model's files are watched by the session.

#include "StudioDocument.h"

#include <QList>

#include <utility>

class QDockWidget;
class QSettings;
class QLabel;
class QMenu;
class QProgressBar;

namespace lattice::studio {

class GraphWidget;
class NumericRun;
class QuantizationState;
enum class OverlayMode;
class StudioSession;
class WeightsLoader;

class ModelDocument : public StudioDocument {
  Q_OBJECT

public:
  /// `numeric` runs the session's model (owned by the caller).
  ModelDocument(StudioSession* session, NumericRun* numeric, QWidget* parent = nullptr);
  ~ModelDocument() override;

  GraphWidget* graphWidget() const { return m_graph; }
  WeightsLoader* weightsLoader() const { return m_weights; }
  /// The mixed-precision plan of the model (the Quantization dock, the graph's overlay, Export).
  QuantizationState* quantization() const { return m_quant; }
  /// File ▸ Export Artifact…'s dialog for the session's model (modal), with the plan when the
  /// Quantization dock has one and "Use plan for export" is on.
  void exportArtifact();
  /// Every action of the tab's, named by its objectName ("debug.step", "view.overlayTime", ...).
  QList<QAction*> namedActions() const { return m_named; }
  /// The status bar's model line (stretching, on the left) and the widgets on its right, in order.
  QLabel* modelLine() const { return m_modelLabel; }
  QList<QWidget*> statusWidgets() const;

  QString title() const override;
  QString tabToolTip() const override { return {}; }
  QString sourceName() const override;
  GraphView* shownGraph() const override;
  bool can(Capability capability) const override;
  void find() override;
  void run() override;
  void interrupt() override;
  void goToFirstDivergent() override;
  void reload() override;
  QList<QAction*> menuActions(MenuSection section) const override;
  QList<QAction*> toolBarActions() const override;
  void setCurrent(bool current) override;
  FileChangeWatcher* fileWatcher() const override;
  QString staleNote() const override;

  /// Reads the view options (minimap, legend, layout mode) and where Load Weights… starts from
  /// the window's settings (`lastDirectory` read already: the default), and writes them back.
  void readSettings(const QSettings& settings);
  void writeSettings(QSettings& settings) const;

  /// The panels of the model tab as docks over `window` (module tree, inspector, MLIR,
  /// interpreter, values, node ranking, quantization), each with the area it goes to by default.
  QList<std::pair<QDockWidget*, Qt::DockWidgetArea>> createPanels(QWidget* window) const;

  /// Stops forwarding the session's and the numeric run's signals (the window's teardown).
  void detach();

Q_SIGNALS:
  /// An export wants its artifact opened in a tab.
  void artifactOpenRequested(const QString& directory);

private:
  QAction* makeAction(const QString& id, const QString& text, const QKeySequence& shortcut = {});
  /// The tab's action `id` (one of namedActions()).
  QAction* named(const char* id) const;
  QAction* separator();
  void createFileActions();
  void createViewActions();
  void createDebugActions();
  void createNumericActions();
  void connectSession();
  /// Enables the tab's actions from the session and the numeric run; emits capabilitiesChanged.
  void updateActions();
  void updateStatus();
  void exportImage();
  OverlayMode overlayMode() const;
  /// Colours the model graph by the overlay (and shows its legend).
  void applyOverlay();
  void onNumericStateChanged();

  StudioSession* m_session;
  NumericRun* m_numeric;
  QuantizationState* m_quant;
  GraphWidget* m_graph;
  WeightsLoader* m_weights;
  QList<QAction*> m_named;
  QList<QAction*> m_fileActions;
  QList<QAction*> m_viewActions;
  QList<QAction*> m_debugActions;
  QList<QAction*> m_debugRunActions;
  QList<QAction*> m_toolBar;
  QMenu* m_overlayMenu = nullptr;
  QLabel* m_modelLabel;
  QLabel* m_stateLabel;
  QLabel* m_zoomLabel;
  QLabel* m_overlayLegend;
  QProgressBar* m_runProgress;
};

} // namespace lattice::studio
