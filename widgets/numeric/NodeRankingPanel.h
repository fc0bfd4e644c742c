#pragma once
/// \file NodeRankingPanel: the numeric debugger's table of the slowest and worst nodes (a dock
/// of the model tab). NodeRankingModel's rows behind a QSortFilterProxyModel, sorted by time
/// (slowest first) until a header is clicked; selecting a row selects its node in the session,
/// and selecting a node elsewhere selects its row. Before a run it says how to fill it; without
/// a golden the error columns are hidden and a line says how to get one.

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace lattice::studio {

class NodeRankingModel;
class NumericRun;
class StudioSession;

class NodeRankingPanel : public QWidget {
  Q_OBJECT

public:
  NodeRankingPanel(StudioSession* session, NumericRun* run, QWidget* parent = nullptr);

  NodeRankingModel* model() const { return m_model; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }
  QTableView* table() const { return m_table; }
  /// The text shown in place of the table while it is empty ("" when the table shows).
  QString emptyText() const;
  /// The line under the table (totals, what the error columns need).
  QString summaryText() const;

private:
  void refresh();
  void onRowSelected();
  /// Selects the row of `node` (none: clears) without selecting it back in the session.
  void showSelectedNode(const QString& node, bool scroll);

  StudioSession* m_session;
  NumericRun* m_run;
  NodeRankingModel* m_model;
  QSortFilterProxyModel* m_proxy;
  QStackedWidget* m_stack;
  QLabel* m_empty;
  QTableView* m_table;
  QLabel* m_summary;
  bool m_syncing = false;
};

} // namespace lattice::studio
