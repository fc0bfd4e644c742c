// HistogramChart: the bars are one QAreaSeries between a step outline (down to the floor at
// every bin edge, so neighbouring bars stay apart) and the floor of the count axis; the x axis is
// a plain value axis over [min, max], so labels read in the values' units.

#include "charts/HistogramChart.h"

#include "charts/ChartPage.h"

#include "graph/NodeStyle.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QGraphicsLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QPen>
#include <QStackedLayout>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace lattice::studio {

namespace {

QString edgeText(double value, int precision) {
  return QString::number(value, 'g', precision);
}

/// The tick step of a count axis up to `tallest` in at most `intervals` steps: 1, 2 or 5 × 10^k,
/// at least 1.
double countStep(std::uint64_t tallest, int intervals = 5) {
  const double raw = std::max(1.0, static_cast<double>(tallest) / std::max(1, intervals));
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * decade) return m * decade;
  return 10.0 * decade;
}

} // namespace

HistogramChart::HistogramChart(QWidget* parent)
    : QWidget(parent), m_placeholder(tr("Nothing to show")), m_valueTitle(tr("value")) {
  m_chart = new QChart();
  if (palette::dark()) m_chart->setTheme(QChart::ChartThemeDark); // a light chart would glare
  m_chart->legend()->hide();
  m_chart->setBackgroundRoundness(0);
  m_chart->setMargins(QMargins(2, 2, 2, 2));
  m_chart->layout()->setContentsMargins(0, 0, 0, 0);
  QFont titleFont = font();
  titleFont.setBold(true);
  m_chart->setTitleFont(titleFont);

  m_upper = new QLineSeries();
  m_lower = new QLineSeries();
  m_series = new QAreaSeries(m_upper, m_lower);
  // The area series does not own its lines; as its children they go when it goes.
  m_upper->setParent(m_series);
  m_lower->setParent(m_series);
  QColor fill = palette::selection();
  fill.setAlpha(190);
  m_series->setBrush(fill);
  m_series->setPen(QPen(fill.darker(130), 1));
  m_chart->addSeries(m_series);
  m_zeroMarker = new QLineSeries();
  m_zeroMarker->setPen(QPen(palette::failed(), 1, Qt::DashLine));
  m_chart->addSeries(m_zeroMarker);

  m_view = new QChartView(m_chart, this);
  m_view->setRenderHint(QPainter::Antialiasing, false);
  m_view->setMinimumSize(160, 100);

  // The title goes above the chart, wrapped: the chart would cut a long one.
  auto* chartPage = new QWidget(this);
  chartPage->setAutoFillBackground(true);
  chartPage->setBackgroundRole(QPalette::Base);
  m_titleLabel = new QLabel(chartPage);
  m_titleLabel->setObjectName(QStringLiteral("histogramTitle"));
  m_titleLabel->setWordWrap(true);
  m_titleLabel->setAlignment(Qt::AlignCenter);
  m_titleLabel->setFont(titleFont);
  auto* chartLayout = new QVBoxLayout(chartPage);
  chartLayout->setContentsMargins(0, 0, 0, 0);
  chartLayout->setSpacing(0);
  chartLayout->addWidget(m_titleLabel);
  chartLayout->addWidget(m_view, 1);
  m_messageLabel = new QLabel(this);
  m_stack = stackWithMessage(this, m_messageLabel, chartPage);

  connect(m_series, &QAreaSeries::hovered, this, [this](const QPointF& point, bool on) {
    if (on && !m_histogram.counts.empty())
      QToolTip::showText(QCursor::pos(), binText(m_histogram.binOf(point.x())), m_view);
    else
      QToolTip::hideText();
  });
  showMessagePage();
}

HistogramChart::~HistogramChart() = default;

void HistogramChart::setHistogram(const runtime::Histogram& histogram, const QString& title) {
  m_histogram = histogram;
  m_title = title;
  m_message.clear();
  m_hasData = true;
  rebuild();
}

void HistogramChart::setValues(const std::vector<float>& values, const QString& title, int bins) {
  setHistogram(runtime::computeHistogram(values, bins), title);
}

void HistogramChart::setMessage(const QString& message) {
  m_message = message;
  m_hasData = false;
  m_histogram = runtime::Histogram();
  m_title.clear();
  rebuild();
}

void HistogramChart::setPlaceholder(const QString& text) {
  m_placeholder = text;
  if (!m_hasData && m_message.isEmpty()) showMessagePage();
}

void HistogramChart::setValueTitle(const QString& title) {
  m_valueTitle = title;
  if (m_hasData) rebuild();
}

void HistogramChart::setLogScale(bool on) {
  if (m_log == on) return;
  m_log = on;
  if (m_hasData) rebuild();
}

QString HistogramChart::title() const {
  return m_titleLabel->text();
}

QList<qreal> HistogramChart::barValues() const {
  return m_bars;
}

QString HistogramChart::binText(int bin) const {
  const auto& counts = m_histogram.counts;
  if (bin < 0 || bin >= static_cast<int>(counts.size())) return {};
  const QString count = QLocale().toString(static_cast<qulonglong>(counts[static_cast<std::size_t>(bin)]));
  if (counts.size() == 1) return tr("%1: %2").arg(edgeText(m_histogram.min, 6), count);
  const bool last = bin + 1 == static_cast<int>(counts.size());
  return tr("[%1, %2%3: %4")
      .arg(edgeText(m_histogram.binLow(bin), 6), edgeText(m_histogram.binLow(bin + 1), 6),
           last ? QStringLiteral("]") : QStringLiteral(")"), count);
}

void HistogramChart::showMessagePage() {
  m_messageLabel->setText(m_message.isEmpty() ? m_placeholder : m_message);
  m_stack->setCurrentWidget(m_messageLabel);
}

void HistogramChart::styleAxes() {
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
  // Axis titles take room a short chart needs for its bars and labels (the compare view's Δ
  // sits in a narrow pane); they come back when there is space.
  const bool titles = height() >= kTitledAxesHeight;
  for (QAbstractAxis* axis : m_chart->axes()) {
    axis->setLabelsFont(small);
    axis->setTitleFont(small);
    axis->setTitleVisible(titles);
  }
}

void HistogramChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  styleAxes();
  fitTicks();
}

void HistogramChart::rebuild() {
  m_upper->clear();
  m_lower->clear();
  m_zeroMarker->clear();
  m_bars.clear();
  for (QAbstractAxis* axis : m_chart->axes()) {
    m_chart->removeAxis(axis);
    delete axis;
  }
  m_titleLabel->setText(m_hasData ? m_title : QString());
  m_titleLabel->setVisible(!m_titleLabel->text().isEmpty());
  if (!m_hasData) {
    showMessagePage();
    return;
  }
  const runtime::Histogram& h = m_histogram;
  if (h.counts.empty()) {
    m_messageLabel->setText(m_title.isEmpty() ? tr("No finite value to bin")
                                              : tr("%1\nNo finite value to bin").arg(m_title));
    m_stack->setCurrentWidget(m_messageLabel);
    return;
  }

  const int bins = static_cast<int>(h.counts.size());
  std::uint64_t tallest = 0;
  for (std::uint64_t c : h.counts) {
    tallest = std::max(tallest, c);
    m_bars.append(m_log && c == 0 ? logFloor() : static_cast<qreal>(c));
  }

  QAbstractAxis* yAxis = nullptr;
  qreal yLow = 0;
  qreal yHigh = 0;
  if (m_log) {
    auto* axis = new QLogValueAxis();
    axis->setBase(10.0);
    axis->setLabelFormat(QStringLiteral("%g"));
    yLow = logFloor();
    yHigh = std::max<qreal>(static_cast<qreal>(tallest) * 1.5, 2.0);
    axis->setRange(yLow, yHigh);
    axis->setTitleText(tr("count (log)"));
    yAxis = axis;
  } else {
    // Whole-number ticks: a 1, 2 or 5 × 10^k step giving at most about five intervals.
    const double step = countStep(tallest);
    auto* axis = new QValueAxis();
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(step);
    yHigh = std::max(1.0, std::ceil(static_cast<double>(tallest) / step)) * step;
    axis->setRange(0, yHigh);
    axis->setLabelFormat(QStringLiteral("%.0f"));
    axis->setTitleText(tr("count"));
    yAxis = axis;
  }

  // x in the values' units. One bin (every value equal) gets a unit-wide bar around it.
  double lo = h.min;
  double hi = h.max;
  if (bins == 1) {
    const double half = h.min == 0 ? 0.5 : std::abs(h.min) * 0.05;
    lo = h.min - half;
    hi = h.min + half;
  }
  const double width = (hi - lo) / bins;
  QList<QPointF> outline;
  outline.reserve(4 * bins);
  for (int i = 0; i < bins; ++i) {
    const double left = lo + width * i;
    const double right = i + 1 == bins ? hi : lo + width * (i + 1);
    outline << QPointF(left, yLow) << QPointF(left, m_bars[i]) << QPointF(right, m_bars[i])
            << QPointF(right, yLow);
  }
  m_upper->replace(outline);
  m_lower->append(lo, yLow);
  m_lower->append(hi, yLow);

  auto* xAxis = new QValueAxis();
  xAxis->setRange(lo, hi);
  xAxis->setTickCount(5);
  xAxis->setLabelFormat(QStringLiteral("%.4g"));
  xAxis->setTitleText(m_valueTitle);
  xAxis->setGridLineVisible(false);
  m_chart->addAxis(xAxis, Qt::AlignBottom);
  m_chart->addAxis(yAxis, Qt::AlignLeft);
  styleAxes();
  m_series->attachAxis(xAxis);
  m_series->attachAxis(yAxis);

  // Where 0 falls, when it is inside the range.
  if (h.min < 0 && h.max > 0) {
    m_zeroMarker->append(0.0, yLow);
    m_zeroMarker->append(0.0, yHigh);
  }
  m_zeroMarker->attachAxis(xAxis);
  m_zeroMarker->attachAxis(yAxis);
  fitTicks();
  m_stack->setCurrentWidget(m_stack->widget(1));
}

void HistogramChart::fitTicks() {
  const auto axes = m_chart->axes(Qt::Horizontal);
  auto* x = axes.isEmpty() ? nullptr : qobject_cast<QValueAxis*>(axes.front());
  if (!x) return;
  const QFontMetrics fm(x->labelsFont());
  int widest = 0;
  for (double v : {x->min(), x->max(), (x->min() + x->max()) / 2})
    widest = std::max(widest, fm.horizontalAdvance(QString::asprintf("%.4g", v)));
  const int room = std::max(1, int(m_chart->plotArea().width() > 0 ? m_chart->plotArea().width() : width() - 60));
  x->setTickCount(std::clamp(room / (widest + 12) + 1, 2, 5));
  // The last label is centred on the plot's right edge: half of it needs a margin.
  m_chart->setMargins(QMargins(2, 2, std::max(2, widest / 2), 2));
  // As many count ticks as the height has room for (a label every two lines or so).
  const auto ys = m_chart->axes(Qt::Vertical);
  auto* y = ys.isEmpty() ? nullptr : qobject_cast<QValueAxis*>(ys.front());
  if (!y || m_histogram.counts.empty()) return;
  const std::uint64_t tallest = *std::max_element(m_histogram.counts.begin(), m_histogram.counts.end());
  const int plotHeight = m_chart->plotArea().height() > 0 ? int(m_chart->plotArea().height()) : height() - 60;
  const double step = countStep(tallest, std::clamp(plotHeight / (2 * QFontMetrics(y->labelsFont()).height()), 1, 5));
  y->setTickInterval(step);
  y->setRange(0, std::max(1.0, std::ceil(static_cast<double>(tallest) / step)) * step);
}

} // namespace lattice::studio
