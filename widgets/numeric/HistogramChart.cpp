// HistogramChart: the bars are one QBarSet (bar i at x = i, width 1, so bins touch); the x axis
// is a QCategoryAxis over the same positions whose labels sit on bin edges and give the values
// there, so the axis reads in the values' units although the bars are placed by index.

#include "numeric/HistogramChart.h"

#include "graph/NodeStyle.h"

#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
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

#include <algorithm>
#include <cmath>

namespace lattice::studio {

namespace {

QString edgeText(double value, int precision) { return QString::number(value, 'g', precision); }

/// The tick step of a count axis up to `tallest`: 1, 2 or 5 × 10^k, at least 1.
double countStep(std::uint64_t tallest) {
  const double raw = std::max(1.0, static_cast<double>(tallest) / 5.0);
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * decade) return m * decade;
  return 10.0 * decade;
}

} // namespace

HistogramChart::HistogramChart(QWidget* parent)
    : QWidget(parent), m_placeholder(tr("Nothing to show")), m_valueTitle(tr("value")) {
  m_chart = new QChart();
  m_chart->legend()->hide();
  m_chart->setBackgroundRoundness(0);
  m_chart->setMargins(QMargins(2, 2, 2, 2));
  m_chart->layout()->setContentsMargins(0, 0, 0, 0);
  QFont titleFont = font();
  titleFont.setBold(true);
  m_chart->setTitleFont(titleFont);

  m_set = new QBarSet(QString());
  QColor fill = palette::selection();
  fill.setAlpha(190);
  m_set->setColor(fill);
  m_set->setBorderColor(fill.darker(130));
  m_series = new QBarSeries();
  m_series->setBarWidth(1.0);
  m_series->append(m_set);
  m_chart->addSeries(m_series);
  m_zeroMarker = new QLineSeries();
  m_zeroMarker->setPen(QPen(palette::failed(), 1, Qt::DashLine));
  m_chart->addSeries(m_zeroMarker);

  m_view = new QChartView(m_chart, this);
  m_view->setRenderHint(QPainter::Antialiasing, false);
  m_view->setMinimumSize(160, 100);

  m_messageLabel = new QLabel(this);
  m_messageLabel->setAlignment(Qt::AlignCenter);
  m_messageLabel->setWordWrap(true);
  m_messageLabel->setMargin(8);
  m_messageLabel->setAutoFillBackground(true);
  m_messageLabel->setBackgroundRole(QPalette::Base);

  m_stack = new QStackedLayout(this);
  m_stack->setContentsMargins(0, 0, 0, 0);
  m_stack->addWidget(m_messageLabel);
  m_stack->addWidget(m_view);

  connect(m_series, &QBarSeries::hovered, this, [this](bool on, int index, QBarSet*) {
    if (on)
      QToolTip::showText(QCursor::pos(), binText(index), m_view);
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

QString HistogramChart::title() const { return m_chart->title(); }

QList<qreal> HistogramChart::barValues() const {
  QList<qreal> out;
  out.reserve(m_set->count());
  for (int i = 0; i < m_set->count(); ++i) out.append(m_set->at(i));
  return out;
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

void HistogramChart::rebuild() {
  m_set->remove(0, m_set->count());
  m_zeroMarker->clear();
  for (QAbstractAxis* axis : m_chart->axes()) {
    m_chart->removeAxis(axis);
    delete axis;
  }
  if (!m_hasData) {
    m_chart->setTitle(QString());
    showMessagePage();
    return;
  }
  const runtime::Histogram& h = m_histogram;
  m_chart->setTitle(m_title);
  if (h.counts.empty()) {
    m_messageLabel->setText(m_title.isEmpty() ? tr("No finite value to bin")
                                              : tr("%1\nNo finite value to bin").arg(m_title));
    m_stack->setCurrentWidget(m_messageLabel);
    return;
  }

  const int bins = static_cast<int>(h.counts.size());
  std::uint64_t tallest = 0;
  QList<qreal> bars;
  bars.reserve(bins);
  for (std::uint64_t c : h.counts) {
    tallest = std::max(tallest, c);
    bars.append(m_log && c == 0 ? logFloor() : static_cast<qreal>(c));
  }
  m_set->append(bars);

  // x: bar i is centred on i, so bin edge k is at k − 0.5; five labels on edges.
  auto* xAxis = new QCategoryAxis();
  xAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  xAxis->setStartValue(-0.5);
  xAxis->setRange(-0.5, bins - 0.5);
  xAxis->setTitleText(m_valueTitle);
  xAxis->setGridLineVisible(false);
  if (bins == 1) {
    xAxis->append(edgeText(h.min, 6), 0.0);
  } else {
    const int labels = std::min(bins, 4);
    for (int i = 0; i <= labels; ++i) {
      const int edge = static_cast<int>(std::lround(static_cast<double>(i) * bins / labels));
      // More digits until the label differs from those before it (a narrow range).
      for (int precision = 4; precision <= 10; ++precision) {
        const QString text = edgeText(h.binLow(edge), precision);
        if (!xAxis->categoriesLabels().contains(text)) {
          xAxis->append(text, edge - 0.5);
          break;
        }
      }
    }
  }
  m_chart->addAxis(xAxis, Qt::AlignBottom);

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
  m_chart->addAxis(yAxis, Qt::AlignLeft);
  m_series->attachAxis(xAxis);
  m_series->attachAxis(yAxis);

  // Where 0 falls, when it is inside the range.
  if (h.min < 0 && h.max > 0) {
    const double x = (0.0 - h.min) / h.binWidth() - 0.5;
    m_zeroMarker->append(x, yLow);
    m_zeroMarker->append(x, yHigh);
  }
  m_zeroMarker->attachAxis(xAxis);
  m_zeroMarker->attachAxis(yAxis);
  m_stack->setCurrentWidget(m_view);
}

} // namespace lattice::studio
