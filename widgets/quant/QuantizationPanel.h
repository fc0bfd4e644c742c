#pragma once
/// \file QuantizationPanel: the Quantization dock of the model tab. From the top: the inputs the
/// analysis runs on (the numeric run's: Debug ▸ Run Inputs… changes them) with a warning when
/// they are random; the candidates (int8, int4, group size), Analyze, Cancel and the progress;
/// the budget (a relative L2 error on a log spin box, or a maximum size), which re-derives the
/// plan; the plan's size against dense and all-int8 and its measured error; "Use plan for
/// export", Save Plan… and Load Plan…. Below, the layers table (QuantLayersModel: the plan's
/// column editable with a combo box or the context menu, each change one undo step) beside the
/// sensitivity bars and the Pareto chart. Selecting a row selects the layer's node.

#include <QDoubleSpinBox>
#include <QWidget>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QRadioButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTimer;

namespace lattice::studio {

class QuantLayersModel;
class QuantParetoChart;
class QuantSensitivityChart;
class QuantizationState;

/// A spin box over positive numbers that steps through 1, 2, 5 × 10^k and shows "1e-02" style.
class LogSpinBox : public QDoubleSpinBox {
  Q_OBJECT

public:
  explicit LogSpinBox(QWidget* parent = nullptr);
  void stepBy(int steps) override;
  QString textFromValue(double value) const override;
  double valueFromText(const QString& text) const override;
  QValidator::State validate(QString& text, int& pos) const override;

protected:
  StepEnabled stepEnabled() const override;
};

class QuantizationPanel : public QWidget {
  Q_OBJECT

public:
  QuantizationPanel(QuantizationState* state, QWidget* parent = nullptr);

  QuantizationState* state() const { return m_state; }
  QuantLayersModel* model() const { return m_model; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }
  QTableView* table() const { return m_table; }
  QPushButton* analyzeButton() const { return m_analyze; }
  QPushButton* cancelButton() const { return m_cancel; }
  QProgressBar* progressBar() const { return m_progress; }
  QLabel* inputsLabel() const { return m_inputs; }
  QLabel* randomWarning() const { return m_randomWarning; }
  QLabel* summaryLabel() const { return m_summary; }
  QCheckBox* useForExportBox() const { return m_useForExport; }
  LogSpinBox* budgetSpin() const { return m_budgetL2; }
  QuantSensitivityChart* sensitivityChart() const { return m_sensitivity; }
  QuantParetoChart* paretoChart() const { return m_pareto; }
  /// The table's right-click menu for source row `row` (Dense / int8 / int4 …, checked as planned).
  QMenu* createRowMenu(int row, QWidget* parent);
  /// Shows the charts' tab `index` (0 sensitivity, 1 Pareto).
  void showChart(int index);

private:
  void updateInputs();
  void updateJob();
  void updateSummary();
  void updateCandidates();
  void readBudget();
  void applyBudget();
  void savePlan();
  void loadPlan();
  void onRowSelected();

  QuantizationState* m_state;
  QuantLayersModel* m_model;
  QSortFilterProxyModel* m_proxy;
  QTableView* m_table;
  QLabel* m_inputs;
  QLabel* m_randomWarning;
  QCheckBox* m_int8;
  QCheckBox* m_int4;
  QComboBox* m_groupSize;
  QPushButton* m_analyze;
  QPushButton* m_cancel;
  QProgressBar* m_progress;
  QRadioButton* m_byError;
  QRadioButton* m_bySize;
  LogSpinBox* m_budgetL2;
  QDoubleSpinBox* m_budgetSize;
  QTimer* m_budgetDelay;
  QLabel* m_summary;
  QCheckBox* m_useForExport;
  QPushButton* m_save;
  QPushButton* m_load;
  QTabWidget* m_charts;
  QuantSensitivityChart* m_sensitivity;
  QuantParetoChart* m_pareto;
  bool m_syncing = false;
};

} // namespace lattice::studio
