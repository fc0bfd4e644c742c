#pragma once
/// \file HistogramChart: a core Histogram (runtime/ValueSummary.h) drawn with Qt Charts — one bar
/// per bin over [min, max] on an x axis in the values' units (an area series whose outline
/// steps through every bin edge), a linear or logarithmic count axis, a dashed marker where 0
/// falls, and a tooltip per bin (its range and count). The value inspector and
/// the compare view's Δ of a weight (DeltaHistogram) both draw with it. A message (computing…,
/// why there is nothing to show) replaces the chart.

#include "runtime/ValueSummary.h"

#include <QList>
#include <QString>
#include <QWidget>

#include <vector>

class QAreaSeries;
class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QStackedLayout;

namespace lattice::studio {

class HistogramChart : public QWidget {
  Q_OBJECT

public:
  explicit HistogramChart(QWidget* parent = nullptr);
  ~HistogramChart() override;

  /// Shows `histogram` with `title` above it.
  void setHistogram(const runtime::Histogram& histogram, const QString& title);
  /// Bins `values` into `bins` bins (computeHistogram) and shows them.
  void setValues(const std::vector<float>& values, const QString& title, int bins = 41);
  /// Shows `message` instead of the chart; an empty message shows the placeholder.
  void setMessage(const QString& message);
  /// The text shown when there is neither data nor a message.
  void setPlaceholder(const QString& text);
  /// The x axis title ("value", "Δ = B − A").
  void setValueTitle(const QString& title);
  /// Logarithmic count axis (empty bins sit at its floor, 0.5).
  void setLogScale(bool on);
  bool logScale() const { return m_log; }

  bool hasData() const { return m_hasData; }
  const runtime::Histogram& histogram() const { return m_histogram; }
  const QString& message() const { return m_message; }
  QString title() const;
  /// The heights of the bars as drawn, one per bin: the counts on the linear axis; on the log
  /// axis the counts, empty bins at the axis floor.
  QList<qreal> barValues() const;
  /// The bin a bar index covers as text: "[-1, 0): 3" (the last bin closed).
  QString binText(int bin) const;
  /// The floor of the logarithmic count axis.
  static constexpr qreal logFloor() { return 0.5; }

  QChartView* view() const { return m_view; }
  QChart* chart() const { return m_chart; }
  QAreaSeries* series() const { return m_series; }

  QSize sizeHint() const override { return {420, 220}; }
  QSize minimumSizeHint() const override { return {200, 120}; }

protected:
  void resizeEvent(QResizeEvent* event) override;

private:
  /// Below this height the axes have no titles.
  static constexpr int kTitledAxesHeight = 200;

  void rebuild();
  void styleAxes();
  void showMessagePage();

  runtime::Histogram m_histogram;
  QString m_title;
  QString m_message;
  QString m_placeholder;
  QString m_valueTitle;
  bool m_log = false;
  bool m_hasData = false;

  /// As many x ticks as their labels have room for (2 to 5).
  void fitTicks();
  QStackedLayout* m_stack;
  QLabel* m_titleLabel; ///< the title, wrapped above the chart (a chart's own title is cut)
  QLabel* m_messageLabel;
  QChartView* m_view;
  QChart* m_chart;
  QAreaSeries* m_series;
  QLineSeries* m_upper; ///< the bars' outline: per bin (lo, floor), (lo, count), (hi, count), (hi, floor)
  QLineSeries* m_lower; ///< the floor of the count axis
  QLineSeries* m_zeroMarker;
  QList<qreal> m_bars;
};

} // namespace lattice::studio
