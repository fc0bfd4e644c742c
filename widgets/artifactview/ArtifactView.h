#pragma once
/// \file ArtifactView: an opened lattice artifact (File ▸ Open Artifact…): its
/// op graph (ArtifactGraphView, coloured by op category), the graph.mlir text, the weights table
/// and the verifier's diagnostics. Everything is read on a worker thread; selection is shared:
/// selecting an op highlights its MLIR lines (and its weight rows), putting the cursor on a line
/// selects the op written there, and activating a diagnostic or a weight row selects its op.
/// Ctrl+F finds ops by name, SSA value, type or attribute. The run bar above the graph executes
/// the artifact on inputs (ArtifactRun) and colours the graph by op time or output accuracy.
/// As a tab of the main window (StudioDocument) it finds, runs, interrupts its run and reloads;
/// it watches the files it reads.

#include "StudioDocument.h"
#include "artifactview/ArtifactDocument.h"

#include <memory>
#include <vector>

class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTabWidget;
class QTableView;

namespace lattice::studio {

class ArtifactDiagnosticsModel;
class ArtifactGraphView;
class ArtifactRunBar;
class GraphSearchBar;
class ArtifactLegend;
class MlirTextView;
class WeightsTableModel;

class ArtifactView : public StudioDocument {
  Q_OBJECT

public:
  explicit ArtifactView(QWidget* parent = nullptr);
  ~ArtifactView() override;

  /// Reads `path` (an artifact directory or a lone .mlir) in the background; emits
  /// documentLoaded when the text, weights and diagnostics are shown (the graph's layout
  /// follows with graphView()->layoutFinished). A later call supersedes an earlier one.
  void open(const QString& path);
  /// Reads the current path again.
  void reload() override;

  QString path() const { return m_path; }
  bool isLoading() const { return m_loading; }
  /// The shown document (null before the first load finished).
  std::shared_ptr<const ArtifactDocument> document() const { return m_document; }

  ArtifactGraphView* graphView() const { return m_graph; }
  /// Run the artifact on inputs, check it against expected outputs, and the overlay choice.
  ArtifactRunBar* runBar() const { return m_runBar; }
  /// The overlay's legend line above the category legend (hidden without an overlay).
  QLabel* overlayLegend() const { return m_overlayLegend; }
  MlirTextView* mlirView() const { return m_mlir; }
  WeightsTableModel* weightsModel() const { return m_weights; }
  QTableView* weightsTable() const { return m_weightsTable; }
  ArtifactDiagnosticsModel* diagnosticsModel() const { return m_diagnostics; }
  QTableView* diagnosticsTable() const { return m_diagnosticsTable; }

  // StudioDocument
  QString title() const override;
  QString tabToolTip() const override { return m_path; }
  QString sourceName() const override;
  QString artifactPath() const override { return m_path; }
  GraphView* shownGraph() const override;
  bool can(Capability capability) const override;
  void find() override { showSearch(); }
  void run() override;
  void interrupt() override;

  /// The selected op-graph node (-1 for none).
  int selectedNode() const { return m_selected; }

  /// Find (Ctrl+F): the bar above the op graph, the matching nodes of the current text
  /// (ArtifactOpGraph::search, node order) and the one last moved to (-1).
  GraphSearchBar* searchBar() const { return m_searchBar; }
  const std::vector<int>& searchHits() const { return m_hits; }
  int searchIndex() const { return m_hitIndex; }

public Q_SLOTS:
  /// Selects node `node` everywhere (graph, MLIR lines, weight rows); -1 clears.
  void selectNode(int node);
  /// Shows the Find bar (View ▸ Find, Ctrl+F) with its text selected.
  void showSearch();
  /// Marks the nodes matching `text` in the graph (no selection change).
  void setSearchText(const QString& text);
  /// Selects the next / previous match everywhere (graph, MLIR lines), readable and centred.
  void findNext();
  void findPrevious();

Q_SIGNALS:
  void documentLoaded();
  /// The selection changed (user or selectNode).
  void nodeSelected(int node);

private:
  void applyDocument(quint64 generation, std::shared_ptr<ArtifactDocument> document);
  void onLineActivated(int line);
  void onWeightActivated(const QModelIndex& index);
  void onDiagnosticActivated(const QModelIndex& index);
  void updateHeader();
  /// The op graph's boxes: category styles, or the run bar's overlay where it has a colour.
  void applyStyles();

  QString m_path;
  bool m_loading = false;
  quint64 m_generation = 0;
  std::shared_ptr<const ArtifactDocument> m_document;
  int m_selected = -1;
  bool m_syncing = false;

  QLabel* m_header;
  QSplitter* m_split;
  QSplitter* m_sideSplit;
  ArtifactGraphView* m_graph;
  GraphSearchBar* m_searchBar;
  QString m_searchText; ///< the text searched last (found again after a reload)
  std::vector<int> m_hits;
  int m_hitIndex = -1;
  ArtifactLegend* m_legend;
  ArtifactRunBar* m_runBar;
  QLabel* m_overlayLegend;
  MlirTextView* m_mlir;
  QTabWidget* m_tabs;
  WeightsTableModel* m_weights;
  QSortFilterProxyModel* m_weightsProxy;
  QTableView* m_weightsTable;
  ArtifactDiagnosticsModel* m_diagnostics;
  QTableView* m_diagnosticsTable;
};

} // namespace lattice::studio
