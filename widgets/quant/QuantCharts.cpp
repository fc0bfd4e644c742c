// The Quantization dock's sensitivity bars and Pareto scatter.
#include "quant/QuantCharts.h"

#include "charts/ChartPage.h"
#include "graph/NodeStyle.h"
#include "quant/QuantOverlay.h"
#include "quant/QuantizationState.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QStackedLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace lattice::studio {

namespace {

QChart* makeChart() {
  auto* chart = new QChart();
  if (palette::dark()) chart->setTheme(QChart::ChartThemeDark);
  chart->setBackgroundRoundness(0);
  chart->setMargins(QMargins(2, 2, 2, 2));
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  return chart;
}

void clearChart(QChart* chart) {
  chart->removeAllSeries();
  for (QAbstractAxis* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
}

/// A log axis from just below `lo` to just above `hi` (whole decades).
QLogValueAxis* logAxis(double lo, double hi, const QString& title) {
  auto* axis = new QLogValueAxis();
  axis->setBase(10.0);
  axis->setLabelFormat(QStringLiteral("%.0e"));
  axis->setTitleText(title);
  const double min = std::pow(10.0, std::floor(std::log10(lo)));
  double max = std::pow(10.0, std::ceil(std::log10(hi)));
  if (max <= min) max = min * 10.0;
  axis->setRange(min, max);
  axis->setMinorTickCount(-1);
  return axis;
}

/// The smallest positive value of `values` (1e-8 when none).
double floorOf(const std::vector<double>& values) {
  double lo = 0.0;
  for (double v : values)
    if (v > 0.0 && std::isfinite(v)) lo = lo > 0.0 ? std::min(lo, v) : v;
  return lo > 0.0 ? lo : 1e-8;
}

} // namespace

// --- sensitivity -------------------------------------------------------------------------------

QuantSensitivityChart::QuantSensitivityChart(QuantizationState* state, QWidget* parent)
    : QWidget(parent), m_state(state), m_chart(makeChart()) {
  m_chart->legend()->setAlignment(Qt::AlignTop);
  m_view = new QChartView(m_chart, this);
  m_view->setRenderHint(QPainter::Antialiasing);
  m_view->setMinimumWidth(160);
  m_message = new QLabel(tr("Analyze to see how sensitive each layer is to quantization"), this);
  m_stack = stackWithMessage(this, m_message, m_view);
  connect(state, &QuantizationState::analysisChanged, this, &QuantSensitivityChart::rebuild);
  rebuild();
}

void QuantSensitivityChart::rebuild() {
  clearChart(m_chart);
  m_bars = 0;
  const QuantSensitivity* s = m_state->sensitivity();
  if (!s || s->layers.empty()) {
    m_stack->setCurrentIndex(0);
    setMinimumHeight(0);
    return;
  }
  std::vector<double> all;
  for (const auto& row : s->perLayer)
    for (const LayerCandidate& c : row)
      if (c.measured) all.push_back(c.error.relL2);
  const double lo = floorOf(all);
  double hi = lo;
  for (double v : all)
    if (std::isfinite(v)) hi = std::max(hi, v);
  const double floor = std::pow(10.0, std::floor(std::log10(lo))); // where a bar of 0 ends
  auto* series = new QHorizontalBarSeries();
  QStringList categories;
  const int n = int(s->layers.size());
  for (int i = n - 1; i >= 0; --i) categories << QString::fromStdString(s->layers[std::size_t(i)].name);
  for (std::size_t c = 0; c < s->candidates.size(); ++c) {
    auto* set = new QBarSet(QString::fromStdString(s->candidates[c].name()));
    set->setColor(quantFormatColor(s->candidates[c]));
    set->setBorderColor(quantFormatColor(s->candidates[c]).darker(130));
    for (int i = n - 1; i >= 0; --i) {
      const LayerCandidate& cand = s->perLayer[std::size_t(i)][c];
      const double v = cand.measured && cand.error.relL2 > 0.0 ? cand.error.relL2 : floor;
      set->append(std::isfinite(v) ? v : hi);
      if (cand.measured) ++m_bars;
    }
    series->append(set);
  }
  series->setBarWidth(0.8);
  m_chart->addSeries(series);
  auto* layers = new QBarCategoryAxis();
  layers->append(categories);
  QFont small = layers->labelsFont();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1.0));
  layers->setLabelsFont(small);
  layers->setTruncateLabels(false); // the layer's name is the point of the row
  m_chart->addAxis(layers, Qt::AlignLeft);
  series->attachAxis(layers);
  QLogValueAxis* errors = logAxis(lo, hi, QString());
  errors->setLabelsFont(small);
  m_chart->addAxis(errors, Qt::AlignTop); // in view above the first rows, the dock scrolls the rest
  series->attachAxis(errors);
  // Every layer's name readable: a row of bars per layer, scrolled by the dock.
  const int rowHeight = std::max(14, QFontMetrics(small).height() + 2);
  setMinimumHeight(90 + n * rowHeight);
  m_stack->setCurrentIndex(1);
}

// --- Pareto --------------------------------------------------------------------------------------

QuantParetoChart::QuantParetoChart(QuantizationState* state, QWidget* parent)
    : QWidget(parent), m_state(state), m_chart(makeChart()) {
  m_chart->legend()->setAlignment(Qt::AlignTop);
  m_view = new QChartView(m_chart, this);
  m_view->setRenderHint(QPainter::Antialiasing);
  m_view->setMinimumSize(160, 100);
  m_message = new QLabel(tr("Analyze to see the plans the search measured: size against measured error"), this);
  m_stack = stackWithMessage(this, m_message, m_view);
  connect(state, &QuantizationState::analysisChanged, this, &QuantParetoChart::rebuild);
  connect(state, &QuantizationState::measurementChanged, this, &QuantParetoChart::rebuild);
  connect(state, &QuantizationState::planChanged, this, &QuantParetoChart::rebuild);
  rebuild();
}

bool QuantParetoChart::currentPoint(double* bytes, double* relL2) const {
  if (!m_hasCurrent) return false;
  if (bytes) *bytes = m_currentBytes;
  if (relL2) *relL2 = m_currentError;
  return true;
}

void QuantParetoChart::rebuild() {
  clearChart(m_chart);
  m_hasCurrent = false;
  const PlanSearch* search = m_state->lastSearch();
  const QuantSensitivity* s = m_state->sensitivity();
  if (!s || !search || search->visited.empty()) {
    m_stack->setCurrentIndex(0);
    return;
  }
  const PlanMeasurement* current = m_state->measurement();
  std::vector<double> errors;
  double maxBytes = 0.0, minBytes = 0.0;
  for (const PlanMeasurement& m : search->visited) {
    errors.push_back(m.error.relL2);
    maxBytes = std::max(maxBytes, double(m.bytes));
    minBytes = minBytes > 0.0 ? std::min(minBytes, double(m.bytes)) : double(m.bytes);
  }
  if (current) errors.push_back(current->error.relL2);
  const double planBytes = double(m_state->planBytes());
  maxBytes = std::max(maxBytes, planBytes);
  minBytes = std::min(minBytes, planBytes);
  const double lo = floorOf(errors);
  double hi = lo;
  for (double v : errors)
    if (std::isfinite(v)) hi = std::max(hi, v);
  // An error of 0 (all dense) sits on the axis' floor.
  const double floor = std::pow(10.0, std::floor(std::log10(lo)));
  const bool mb = maxBytes >= 1024.0 * 1024.0;
  const double unit = mb ? 1024.0 * 1024.0 : 1024.0;
  const auto point = [floor, unit](double bytes, double error) {
    return QPointF(bytes / unit, error > 0.0 && std::isfinite(error) ? error : floor);
  };

  auto* visited = new QScatterSeries();
  visited->setName(tr("plans measured"));
  visited->setMarkerSize(7);
  visited->setColor(QColor(0x90, 0xa4, 0xae));
  visited->setBorderColor(QColor(0x60, 0x7d, 0x8b));
  for (const PlanMeasurement& m : search->visited) visited->append(point(double(m.bytes), m.error.relL2));
  auto* front = new QLineSeries();
  front->setName(tr("Pareto front"));
  front->setPen(QPen(palette::selection().darker(110), 1.8));
  for (int i : search->pareto) {
    const PlanMeasurement& m = search->visited[std::size_t(i)];
    front->append(point(double(m.bytes), m.error.relL2));
  }
  auto* mark = new QScatterSeries();
  mark->setName(tr("current plan"));
  mark->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  mark->setMarkerSize(12);
  mark->setColor(palette::failed());
  mark->setBorderColor(palette::failed().darker(140));
  if (current) {
    mark->append(point(double(current->bytes), current->error.relL2));
    m_hasCurrent = true;
    m_currentBytes = double(current->bytes);
    m_currentError = current->error.relL2;
  }
  for (QAbstractSeries* series : {static_cast<QAbstractSeries*>(visited), static_cast<QAbstractSeries*>(front),
                                  static_cast<QAbstractSeries*>(mark)})
    m_chart->addSeries(series);
  auto* x = new QValueAxis();
  x->setTitleText(mb ? tr("weight bytes (MB)") : tr("weight bytes (KB)"));
  const double pad = std::max((maxBytes - minBytes) * 0.05, unit * 0.01);
  x->setRange((minBytes - pad) / unit, (maxBytes + pad) / unit);
  x->setLabelFormat(QStringLiteral("%.2f"));
  x->setTickCount(5);
  QLogValueAxis* y = logAxis(lo, hi, tr("measured rel. L2 (log)"));
  m_chart->addAxis(x, Qt::AlignBottom);
  m_chart->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* series : m_chart->series()) {
    series->attachAxis(x);
    series->attachAxis(y);
  }
  m_stack->setCurrentIndex(1);
}

} // namespace lattice::studio
