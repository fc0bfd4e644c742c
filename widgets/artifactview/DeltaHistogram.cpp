// DeltaHistogram: binning and painting. Painting scales to the widget; labels give the range,
// the tallest bin, the zero count and the element count.

#include "artifactview/DeltaHistogram.h"

#include "graph/NodeStyle.h"

#include <QLocale>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace lattice::studio {

int Histogram::binOf(double value) const {
  if (counts.empty()) return -1;
  const double width = binWidth();
  if (width <= 0) return 0;
  const int bin = static_cast<int>(std::floor((value - min) / width));
  return std::clamp(bin, 0, static_cast<int>(counts.size()) - 1);
}

Histogram computeHistogram(const std::vector<float>& values, int bins) {
  Histogram h;
  h.total = values.size();
  bool any = false;
  for (float v : values) {
    if (!std::isfinite(v)) {
      ++h.nonFinite;
      continue;
    }
    if (!any || v < h.min) h.min = v;
    if (!any || v > h.max) h.max = v;
    any = true;
    if (v == 0.0f) ++h.zeros;
  }
  if (!any) return h;
  h.counts.assign(h.max > h.min ? static_cast<std::size_t>(std::max(1, bins)) : 1u, 0);
  for (float v : values)
    if (std::isfinite(v)) ++h.counts[static_cast<std::size_t>(h.binOf(v))];
  return h;
}

DeltaHistogram::DeltaHistogram(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(120);
}

void DeltaHistogram::setDeltas(const QString& key, const std::vector<float>& deltas) {
  m_key = key;
  m_message.clear();
  m_histogram = computeHistogram(deltas, binCount());
  m_hasData = true;
  update();
}

void DeltaHistogram::setMessage(const QString& message) {
  m_message = message;
  m_hasData = false;
  m_histogram = Histogram();
  if (message.isEmpty()) m_key.clear();
  update();
}

void DeltaHistogram::setLogScale(bool on) {
  m_log = on;
  update();
}

void DeltaHistogram::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  const QColor text = palette().color(QPalette::Text);
  p.setPen(text);
  if (!m_hasData) {
    p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
               m_message.isEmpty() ? tr("Select a weight difference to see the histogram of Δ = B − A")
                                   : m_message);
    return;
  }
  const QFontMetrics fm(font());
  const QLocale locale;
  const Histogram& h = m_histogram;
  const QString title =
      tr("Δ of '%1': %2 elements, %3 zero, %4 non-finite%5")
          .arg(m_key, locale.toString(static_cast<qulonglong>(h.total)),
               locale.toString(static_cast<qulonglong>(h.zeros)),
               locale.toString(static_cast<qulonglong>(h.nonFinite)), m_log ? tr(" · log count") : QString());
  p.drawText(QRect(6, 4, width() - 12, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(title, Qt::ElideRight, width() - 12));
  if (h.counts.empty()) return;

  const QRectF plot(QPointF(40, 8 + fm.height()), QPointF(width() - 10, height() - 6 - fm.height()));
  if (plot.width() < 20 || plot.height() < 20) return;
  const std::uint64_t tallest = *std::max_element(h.counts.begin(), h.counts.end());
  auto scaled = [this, tallest](std::uint64_t c) {
    if (tallest == 0) return 0.0;
    return m_log ? std::log1p(static_cast<double>(c)) / std::log1p(static_cast<double>(tallest))
                 : static_cast<double>(c) / static_cast<double>(tallest);
  };
  const double barWidth = plot.width() / static_cast<double>(h.counts.size());
  QColor fill = palette::selection();
  fill.setAlpha(170);
  p.setPen(Qt::NoPen);
  p.setBrush(fill);
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    const double bar = scaled(h.counts[i]) * plot.height();
    if (bar <= 0) continue;
    p.drawRect(QRectF(plot.left() + static_cast<double>(i) * barWidth + 0.5, plot.bottom() - bar,
                      std::max(1.0, barWidth - 1.0), bar));
  }
  // Zero marker: where Δ = 0 falls.
  if (h.min < 0 && h.max > 0) {
    const double x = plot.left() + (0.0 - h.min) / (h.max - h.min) * plot.width();
    p.setPen(QPen(palette::failed(), 1, Qt::DashLine));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
  }
  p.setPen(QPen(text, 1));
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  p.drawLine(plot.bottomLeft(), plot.topLeft());
  const QRectF below(plot.left(), plot.bottom() + 2, plot.width(), fm.height());
  p.drawText(below, Qt::AlignLeft | Qt::AlignTop, QString::number(h.min, 'g', 4));
  p.drawText(below, Qt::AlignRight | Qt::AlignTop, QString::number(h.max, 'g', 4));
  p.drawText(QRectF(0, plot.top(), plot.left() - 4, fm.height()), Qt::AlignRight | Qt::AlignTop,
             locale.toString(static_cast<qulonglong>(tallest)));
  p.drawText(QRectF(0, plot.bottom() - fm.height(), plot.left() - 4, fm.height()),
             Qt::AlignRight | Qt::AlignBottom, QStringLiteral("0"));
}

} // namespace lattice::studio
