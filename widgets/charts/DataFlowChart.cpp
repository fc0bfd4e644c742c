// DataFlowChart: four series on one pair of axes — the line through every point, the threshold
// (two points spanning the x range), the marked points above it and the ring of the current
// point. Clicks and hovering are read from the view's viewport (an event filter), so a click
// anywhere in a point's column picks it, not only one on the line's pixels.

#include "charts/DataFlowChart.h"

#include "charts/ChartPage.h"

#include "graph/NodeStyle.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QGraphicsLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QPen>
#include <QScatterSeries>
#include <QStackedLayout>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace lattice::studio {

namespace {

/// A readable tick interval for `count` positions: 1, 2 or 5 × 10^k, about eight ticks.
double tickInterval(int count) {
  const double raw = std::max(1.0, static_cast<double>(count) / 8.0);
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double step : {1.0, 2.0, 5.0, 10.0})
    if (raw <= step * decade) return step * decade;
  return 10.0 * decade;
}

/// Points drawn as markers up to this many; a denser line is easier to read without them.
constexpr int kMaxMarkedPoints = 300;

} // namespace

DataFlowChart::DataFlowChart(QWidget* parent) : QWidget(parent), m_valueTitle(tr("relative L2 error")) {
  m_chart = new QChart();
  if (palette::dark()) m_chart->setTheme(QChart::ChartThemeDark); // a light chart would glare
  m_chart->legend()->hide();
  m_chart->setBackgroundRoundness(0);
  m_chart->setMargins(QMargins(2, 2, 2, 2));
  m_chart->layout()->setContentsMargins(0, 0, 0, 0);

  m_line = new QLineSeries();
  m_line->setPen(QPen(palette::selection().darker(120), 1.5));
  m_thresholdLine = new QLineSeries();
  m_thresholdLine->setPen(QPen(palette::failed(), 1, Qt::DashLine));
  m_above = new QScatterSeries();
  m_above->setMarkerSize(8);
  m_above->setColor(palette::failed());
  m_above->setBorderColor(palette::failed().darker(130));
  m_currentMark = new QScatterSeries();
  m_currentMark->setMarkerSize(14);
  m_currentMark->setColor(Qt::transparent);
  m_currentMark->setPen(QPen(palette::current(), 2.5));
  for (QAbstractSeries* s :
       {static_cast<QAbstractSeries*>(m_line), static_cast<QAbstractSeries*>(m_thresholdLine),
        static_cast<QAbstractSeries*>(m_above), static_cast<QAbstractSeries*>(m_currentMark)})
    m_chart->addSeries(s);

  m_view = new QChartView(m_chart, this);
  m_view->setMinimumSize(180, 100);
  m_view->viewport()->setMouseTracking(true);
  m_view->viewport()->installEventFilter(this);

  m_messageLabel = new QLabel(tr("No values along the data flow yet"), this);
  m_stack = stackWithMessage(this, m_messageLabel, m_view);
  showPage();
}

DataFlowChart::~DataFlowChart() = default;

void DataFlowChart::setValues(std::vector<Point> values, double threshold) {
  m_values = std::move(values);
  m_threshold = threshold;
  m_current = -1;
  rebuild();
}

void DataFlowChart::setThreshold(double threshold) {
  m_threshold = threshold;
  rebuild();
}

void DataFlowChart::setLogScale(bool on) {
  if (m_log == on) return;
  m_log = on;
  rebuild();
}

void DataFlowChart::setTitle(const QString& title) {
  m_chart->setTitle(title);
}

QString DataFlowChart::title() const {
  return m_chart->title();
}

void DataFlowChart::setValueTitle(const QString& title) {
  m_valueTitle = title;
  rebuild();
}

void DataFlowChart::setMessage(const QString& message) {
  m_message = message;
  showPage();
}

void DataFlowChart::setCurrentIndex(int index) {
  m_current = index >= 0 && index < pointCount() ? index : -1;
  updateCurrent();
}

QList<int> DataFlowChart::aboveThreshold() const {
  QList<int> out;
  for (int i = 0; i < pointCount(); ++i) {
    const double v = m_values[static_cast<std::size_t>(i)].second;
    if (!std::isfinite(v) || (std::isfinite(m_threshold) && v > m_threshold)) out.append(i);
  }
  return out;
}

double DataFlowChart::plottedValue(int index) const {
  if (index < 0 || index >= static_cast<int>(m_plotted.size()))
    return std::numeric_limits<double>::quiet_NaN();
  return m_plotted[static_cast<std::size_t>(index)];
}

QString DataFlowChart::pointText(int index) const {
  if (index < 0 || index >= pointCount()) return {};
  const Point& p = m_values[static_cast<std::size_t>(index)];
  return tr("%1 (#%2): %3").arg(p.first).arg(index).arg(QString::number(p.second, 'g', 6));
}

void DataFlowChart::showPage() {
  if (!m_message.isEmpty()) {
    m_messageLabel->setText(m_message);
    m_stack->setCurrentWidget(m_messageLabel);
  } else if (m_values.empty()) {
    m_messageLabel->setText(tr("No values along the data flow yet"));
    m_stack->setCurrentWidget(m_messageLabel);
  } else {
    m_stack->setCurrentWidget(m_view);
  }
}

void DataFlowChart::rebuild() {
  for (QAbstractAxis* axis : m_chart->axes()) {
    m_chart->removeAxis(axis);
    delete axis;
  }
  m_line->clear();
  m_thresholdLine->clear();
  m_plotted.clear();
  const int n = pointCount();
  if (n == 0) {
    updateMarks();
    updateCurrent();
    showPage();
    return;
  }

  // The y range: every finite value and the threshold.
  bool anyFinite = false;
  double lo = 0;
  double hi = 0;
  double smallestPositive = std::numeric_limits<double>::infinity();
  auto include = [&](double v) {
    if (!std::isfinite(v)) return;
    lo = anyFinite ? std::min(lo, v) : v;
    hi = anyFinite ? std::max(hi, v) : v;
    anyFinite = true;
    if (v > 0) smallestPositive = std::min(smallestPositive, v);
  };
  for (const Point& p : m_values)
    include(p.second);
  include(m_threshold);

  QAbstractAxis* yAxis = nullptr;
  if (m_log) {
    const double floor = std::isfinite(smallestPositive) ? smallestPositive / 10.0 : 1e-12;
    m_yLow = floor;
    m_yHigh = std::max(anyFinite ? hi * 3.0 : 1.0, floor * 100.0);
    auto* axis = new QLogValueAxis();
    axis->setBase(10.0);
    axis->setLabelFormat(QStringLiteral("%g"));
    axis->setRange(m_yLow, m_yHigh);
    yAxis = axis;
  } else {
    m_yLow = anyFinite ? std::min(0.0, lo) : 0.0;
    m_yHigh = anyFinite ? hi : 1.0;
    if (m_yHigh <= m_yLow) m_yHigh = m_yLow + 1.0;
    auto* axis = new QValueAxis();
    axis->setRange(m_yLow, m_yHigh + (m_yHigh - m_yLow) * 0.08);
    axis->applyNiceNumbers();
    axis->setLabelFormat(QStringLiteral("%g"));
    m_yLow = axis->min();
    m_yHigh = axis->max();
    yAxis = axis;
  }
  yAxis->setTitleText(m_valueTitle + (m_log ? tr(" (log)") : QString()));

  QList<QPointF> points;
  points.reserve(n);
  m_plotted.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    double v = m_values[static_cast<std::size_t>(i)].second;
    if (!std::isfinite(v))
      v = m_yHigh;
    else if (m_log && v <= m_yLow)
      v = m_yLow;
    m_plotted.push_back(v);
    points.append(QPointF(i, v));
  }
  m_line->replace(points);
  m_line->setPointsVisible(n <= kMaxMarkedPoints);
  if (std::isfinite(m_threshold) && (!m_log || m_threshold > 0)) {
    m_thresholdLine->append(-0.5, m_threshold);
    m_thresholdLine->append(n - 0.5, m_threshold);
  }

  auto* xAxis = new QValueAxis();
  xAxis->setRange(-0.5, n - 0.5);
  xAxis->setTickType(QValueAxis::TicksDynamic);
  xAxis->setTickAnchor(0);
  xAxis->setTickInterval(tickInterval(n));
  xAxis->setLabelFormat(QStringLiteral("%d"));
  xAxis->setTitleText(tr("position along the data flow"));
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
  for (QAbstractAxis* axis : {static_cast<QAbstractAxis*>(xAxis), yAxis}) {
    axis->setLabelsFont(small);
    axis->setTitleFont(small);
  }
  m_chart->addAxis(xAxis, Qt::AlignBottom);
  m_chart->addAxis(yAxis, Qt::AlignLeft);
  for (QAbstractSeries* s :
       {static_cast<QAbstractSeries*>(m_line), static_cast<QAbstractSeries*>(m_thresholdLine),
        static_cast<QAbstractSeries*>(m_above), static_cast<QAbstractSeries*>(m_currentMark)}) {
    s->attachAxis(xAxis);
    s->attachAxis(yAxis);
  }
  updateMarks();
  updateCurrent();
  showPage();
}

void DataFlowChart::updateMarks() {
  QList<QPointF> points;
  for (int i : aboveThreshold())
    points.append(QPointF(i, plottedValue(i)));
  m_above->replace(points);
}

void DataFlowChart::updateCurrent() {
  m_currentMark->clear();
  if (m_current >= 0 && m_current < static_cast<int>(m_plotted.size()))
    m_currentMark->append(m_current, plottedValue(m_current));
}

int DataFlowChart::indexAt(const QPoint& viewportPos) const {
  if (m_values.empty() || m_stack->currentWidget() != m_view) return -1;
  const QPointF chartPos = m_chart->mapFromScene(m_view->mapToScene(viewportPos));
  if (!m_chart->plotArea().adjusted(-6, -6, 6, 6).contains(chartPos)) return -1;
  const QPointF value = m_chart->mapToValue(chartPos, m_line);
  return std::clamp(static_cast<int>(std::lround(value.x())), 0, pointCount() - 1);
}

QPoint DataFlowChart::positionOf(int index) const {
  if (index < 0 || index >= static_cast<int>(m_plotted.size())) return {};
  const QPointF chartPos = m_chart->mapToPosition(QPointF(index, plottedValue(index)), m_line);
  return m_view->mapFromScene(m_chart->mapToScene(chartPos));
}

bool DataFlowChart::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view->viewport()) {
    if (event->type() == QEvent::MouseButtonRelease) {
      auto* mouse = static_cast<QMouseEvent*>(event);
      if (mouse->button() == Qt::LeftButton) {
        const int index = indexAt(mouse->position().toPoint());
        if (index >= 0) Q_EMIT pointClicked(index);
      }
    } else if (event->type() == QEvent::MouseMove) {
      auto* mouse = static_cast<QMouseEvent*>(event);
      const int index = indexAt(mouse->position().toPoint());
      if (index >= 0)
        QToolTip::showText(mouse->globalPosition().toPoint(), pointText(index), m_view->viewport());
      else
        QToolTip::hideText();
    }
  }
  return QWidget::eventFilter(watched, event);
}

} // namespace lattice::studio
