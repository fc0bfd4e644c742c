#pragma once
/// \file The Quantization dock's charts (Qt Charts). QuantSensitivityChart: one horizontal bar
/// per layer and candidate, the measured relative L2 error at the outputs with only that layer
/// in that format, on a log axis (the first layer on top, as in the table). QuantParetoChart:
/// every plan the search measured (bytes against measured relative L2, log y), the Pareto front
/// joined, and the current plan marked.

#include <QWidget>

class QChart;
class QChartView;
class QLabel;
class QStackedLayout;

namespace lattice::studio {

class QuantizationState;

class QuantSensitivityChart : public QWidget {
  Q_OBJECT

public:
  explicit QuantSensitivityChart(QuantizationState* state, QWidget* parent = nullptr);
  QChart* chart() const { return m_chart; }
  /// Bars drawn (layers × candidates that were measured).
  int barCount() const { return m_bars; }

private:
  void rebuild();

  QuantizationState* m_state;
  QChart* m_chart;
  QChartView* m_view;
  QLabel* m_message;
  QStackedLayout* m_stack;
  int m_bars = 0;
};

class QuantParetoChart : public QWidget {
  Q_OBJECT

public:
  explicit QuantParetoChart(QuantizationState* state, QWidget* parent = nullptr);
  QChart* chart() const { return m_chart; }
  /// The current plan's point (bytes, rel. L2) as drawn; false when it is not drawn.
  bool currentPoint(double* bytes, double* relL2) const;

private:
  void rebuild();

  QuantizationState* m_state;
  QChart* m_chart;
  QChartView* m_view;
  QLabel* m_message;
  QStackedLayout* m_stack;
  bool m_hasCurrent = false;
  double m_currentBytes = 0.0;
  double m_currentError = 0.0;
};

} // namespace lattice::studio
