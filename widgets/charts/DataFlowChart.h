#pragma once
/// \file DataFlowChart: one number per op or node along the data flow (x = its position in
/// execution order, y = for example the relative L2 error of its value against a reference),
/// drawn with Qt Charts: a line through the points, a dashed horizontal threshold line, the
/// points above it (and the non-finite ones) marked, the current point ringed, a linear or
/// logarithmic y axis. Hovering a point shows its label and value; clicking one emits its index
/// (the numeric diff selects that op). A message replaces the chart (no run yet, an error).
///
/// On the logarithmic axis a value <= 0 cannot be drawn: it sits on the axis floor (a decade
/// below the smallest positive value). A NaN or ±inf value sits on the top of the axis. The
/// values themselves are kept as given (values(), plottedValue() says where a point is drawn).

#include <QList>
#include <QPoint>
#include <QString>
#include <QWidget>

#include <limits>
#include <utility>
#include <vector>

class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QStackedLayout;

namespace lattice::studio {

class DataFlowChart : public QWidget {
  Q_OBJECT

public:
  /// (label, value) of one op or node: "%stem_conv" and its relative L2 error.
  using Point = std::pair<QString, double>;

  explicit DataFlowChart(QWidget* parent = nullptr);
  ~DataFlowChart() override;

  /// Shows `values` in order, with a threshold line at `threshold` (NaN: no line). Clears the
  /// current index.
  void setValues(std::vector<Point> values, double threshold = std::numeric_limits<double>::quiet_NaN());
  /// Moves the threshold line (NaN hides it) and re-marks the points above it.
  void setThreshold(double threshold);
  double threshold() const { return m_threshold; }
  void setLogScale(bool on);
  bool logScale() const { return m_log; }
  /// Titles of the chart and of the y axis (default "relative L2 error").
  void setTitle(const QString& title);
  QString title() const;
  void setValueTitle(const QString& title);
  /// Shows `message` instead of the chart; an empty message shows the chart again (or the
  /// placeholder when there are no values).
  void setMessage(const QString& message);
  const QString& message() const { return m_message; }
  /// Rings point `index` (-1: none), for example the op the session has selected.
  void setCurrentIndex(int index);
  int currentIndex() const { return m_current; }

  const std::vector<Point>& values() const { return m_values; }
  int pointCount() const { return static_cast<int>(m_values.size()); }
  /// Indices whose value is above the threshold, or not finite (NaN, ±inf), in order.
  QList<int> aboveThreshold() const;
  /// Where point `index` is drawn on the y axis (see the file comment).
  double plottedValue(int index) const;
  /// The point whose column is under `viewportPos` (a position in view()->viewport()), or -1
  /// outside the plot area.
  int indexAt(const QPoint& viewportPos) const;
  /// Where point `index` is drawn, in view()->viewport() coordinates.
  QPoint positionOf(int index) const;
  /// "%stem_conv (#4): 0.0123", the tooltip of a point.
  QString pointText(int index) const;

  QChartView* view() const { return m_view; }
  QChart* chart() const { return m_chart; }
  QLineSeries* series() const { return m_line; }
  QLineSeries* thresholdSeries() const { return m_thresholdLine; }

  QSize sizeHint() const override { return {520, 240}; }
  QSize minimumSizeHint() const override { return {220, 120}; }

Q_SIGNALS:
  /// The user clicked point `index`.
  void pointClicked(int index);

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void rebuild();
  void updateMarks();
  void updateCurrent();
  void showPage();

  std::vector<Point> m_values;
  std::vector<double> m_plotted;
  double m_threshold = std::numeric_limits<double>::quiet_NaN();
  bool m_log = false;
  int m_current = -1;
  double m_yLow = 0;
  double m_yHigh = 1;
  QString m_message;
  QString m_valueTitle;

  QStackedLayout* m_stack;
  QLabel* m_messageLabel;
  QChartView* m_view;
  QChart* m_chart;
  QLineSeries* m_line;
  QLineSeries* m_thresholdLine;
  QScatterSeries* m_above;
  QScatterSeries* m_currentMark;
};

} // namespace lattice::studio
