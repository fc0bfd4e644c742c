#pragma once
/// \file CompareView: two artifacts side by side (Tools ▸ Compare Artifacts…).
/// Both are read and diffed on a worker thread (loadArtifact, diffArtifacts). Each side's op
/// graph is coloured by diff status (unchanged / changed / added / removed, with a legend);
/// selecting an op on one side selects its match on the other, and scrolling one side centres
/// the other on the match of the op nearest its centre. Below, the list of differences (module
/// attributes, ABI, ops, weights) with the selected difference's details; selecting a weight
/// difference computes Δ = B − A on a worker and shows its histogram.
/// As a tab of the main window (StudioDocument) it reloads both sides and goes to Run Both's
/// first divergent op; it watches the files of both artifacts.

#include "StudioDocument.h"
#include "diff/ArtifactDiff.h"
#include "diff/NumericDiff.h"

#include <QVector>

#include <memory>
#include <vector>

class QCheckBox;
class QPushButton;
class QLabel;
class QPlainTextEdit;
class QSplitter;
class QTableView;

namespace lattice::studio {

class ArtifactGraphView;
class ArtifactLegend;
class ArtifactOpGraph;
class DataFlowChart;
class DeltaHistogram;
class DiffListModel;

class CompareView : public StudioDocument {
  Q_OBJECT

public:
  explicit CompareView(QWidget* parent = nullptr);
  ~CompareView() override;

  /// Reads `pathA` (before) and `pathB` (after) and diffs them in the background; emits
  /// compareFinished or compareFailed. A later call supersedes an earlier one.
  void compare(const QString& pathA, const QString& pathB);
  /// Same, with either side already loaded (null: read from its path).
  void compare(const QString& pathA, std::shared_ptr<const LoadedArtifact> a, const QString& pathB,
               std::shared_ptr<const LoadedArtifact> b);

  // StudioDocument
  QString title() const override;
  QString tabToolTip() const override;
  QString sourceName() const override;
  GraphView* shownGraph() const override; ///< side A (B follows it)
  bool can(Capability capability) const override;
  void goToFirstDivergent() override { selectFirstDivergent(); }
  /// Reads and diffs both sides again.
  void reload() override;

  QString pathA() const { return m_pathA; }
  QString pathB() const { return m_pathB; }
  bool isRunning() const { return m_running; }
  /// The last error (empty after a successful compare).
  QString errorMessage() const { return m_error; }
  /// The diff shown (null before the first compare finished or after a failure).
  const ArtifactDiff* diff() const { return m_diff.get(); }

  ArtifactGraphView* graphA() const { return m_graphA; }
  ArtifactGraphView* graphB() const { return m_graphB; }
  DiffListModel* differences() const { return m_list; }
  QTableView* differencesTable() const { return m_table; }
  DeltaHistogram* histogram() const { return m_histogram; }
  QPlainTextEdit* details() const { return m_details; }

  /// Status of a node of side A / B (node positions of graphA()/graphB()).
  DiffStatus statusOfNodeA(int node) const;
  DiffStatus statusOfNodeB(int node) const;
  /// The node of the other side matched with `node`; -1 when it has none.
  int matchInB(int nodeA) const;
  int matchInA(int nodeB) const;
  /// True while Δ of the selected weight is being computed.
  bool isHistogramRunning() const { return m_histogramRunning; }

  /// What the worker hands back (defined in the .cpp).
  struct Result;

  // --- Run Both ------------------------------------------

  /// Runs A and B on the same `points` random inputs made from B's ABI (seed `seed`, as
  /// `lattice-cli diff A B --random-inputs POINTS:SEED` does) on a worker, then colours both op
  /// graphs by each matched op's relative L2 error (green below the tolerance, red above), charts
  /// the error along B's data flow and names the first op over the tolerance. Emits
  /// runBothFinished or runBothFailed.
  void runBoth(qint64 points = 2000, quint64 seed = 0);
  bool isRunningBoth() const { return m_runningBoth; }
  /// The last Run Both's result (null before one finished).
  const NumericDiff* numericDiff() const { return m_numeric.get(); }
  DataFlowChart* errorChart() const { return m_errorChart; }
  /// Selects B's first op over the tolerance (and its match in A); false when there is none.
  bool selectFirstDivergent();

public Q_SLOTS:
  /// Selects row `row` of the differences (and what it is about in both graphs).
  void selectDifference(int row);
  /// Selects node `node` of side A (`sideB` false) or B, and its match on the other side.
  void selectNode(bool sideB, int node);

Q_SIGNALS:
  void compareFinished();
  void compareFailed(const QString& message);
  void runBothFinished();
  void runBothFailed(const QString& message);
  /// The histogram shows the Δ of a weight, or a message saying why it cannot.
  void histogramUpdated();

private:
  void applyResult(quint64 generation, const std::shared_ptr<Result>& result);
  void onRowSelected(int row);
  void showWeight(int weightIndex);
  void showOpDetails(int opIndex);
  void syncScroll(bool fromB);
  void updateHeader();
  /// Run Both's result: the error colours and the chart.
  void applyNumeric(quint64 generation, const QString& error, std::shared_ptr<const NumericDiff> diff);

  QString m_pathA;
  QString m_pathB;
  QString m_error;
  bool m_running = false;
  quint64 m_generation = 0;
  quint64 m_histogramGeneration = 0;
  bool m_histogramRunning = false;
  bool m_syncing = false;

  std::shared_ptr<const LoadedArtifact> m_a;
  std::shared_ptr<const LoadedArtifact> m_b;
  std::shared_ptr<const ArtifactDiff> m_diff;
  std::shared_ptr<const ArtifactOpGraph> m_opGraphA;
  std::shared_ptr<const ArtifactOpGraph> m_opGraphB;
  std::vector<DiffStatus> m_statusA;
  std::vector<DiffStatus> m_statusB;
  std::vector<int> m_matchAB;
  std::vector<int> m_matchBA;
  std::vector<int> m_opDiffOfA; ///< per node of A: index into diff()->ops, -1 for arguments
  std::vector<int> m_opDiffOfB;

  QLabel* m_header;
  QPushButton* m_runBoth;
  DataFlowChart* m_errorChart;
  std::shared_ptr<const NumericDiff> m_numeric;
  QString m_numericError;
  bool m_runningBoth = false;
  quint64 m_numericGeneration = 0;
  ArtifactLegend* m_legend;
  QSplitter* m_vertical;
  QSplitter* m_graphs;
  QSplitter* m_bottom;
  ArtifactGraphView* m_graphA;
  ArtifactGraphView* m_graphB;
  DiffListModel* m_list;
  QTableView* m_table;
  QPlainTextEdit* m_details;
  DeltaHistogram* m_histogram;
  QCheckBox* m_logScale;
};

} // namespace lattice::studio
