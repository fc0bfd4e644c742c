#pragma once
/// \file ValuesPanel: the numeric debugger's dock. For the node selected
/// in the session (none selected: the node the interpreter executed last) it shows the concrete value the run computed (ValueInspector: summary,
/// histogram, rows, Save Value…; a tuple's items through a chooser), the node's time, and — with
/// a recorded golden — its error against PyTorch, above a chart of every node's error along the
/// data flow (clicking a point selects that node). A run that failed shows its message on the
/// node it stopped at.

#include <QWidget>

class QComboBox;
class QLabel;

namespace lattice::studio {

class DataFlowChart;
class NumericRun;
class StudioSession;
class ValueInspector;

class ValuesPanel : public QWidget {
  Q_OBJECT

public:
  ValuesPanel(StudioSession* session, NumericRun* run, QWidget* parent = nullptr);

  ValueInspector* inspector() const { return m_inspector; }
  DataFlowChart* chart() const { return m_chart; }
  /// The line above the inspector: node, time, error against the recording.
  QString headerText() const;
  /// The node shown: the selected one, else the node the interpreter executed last.
  QString shownNode() const;

private:
  void refresh();
  void refreshChart();
  void showItem(int index);

  StudioSession* m_session;
  NumericRun* m_run;
  QLabel* m_header;
  QComboBox* m_items;
  ValueInspector* m_inspector;
  DataFlowChart* m_chart;
  /// The node of each chart point, in data-flow order.
  QStringList m_chartNodes;
};

} // namespace lattice::studio
