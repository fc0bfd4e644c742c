// DeltaHistogram: the Δ wording over HistogramChart.

#include "charts/DeltaHistogram.h"

#include <QLocale>

namespace lattice::studio {

DeltaHistogram::DeltaHistogram(QWidget* parent) : HistogramChart(parent) {
  setPlaceholder(tr("Select a weight difference to see the histogram of Δ = B − A"));
  setValueTitle(tr("Δ = B − A"));
  setLogScale(true);
}

void DeltaHistogram::setDeltas(const QString& key, const std::vector<float>& deltas) {
  m_key = key;
  const runtime::Histogram h = runtime::computeHistogram(deltas, binCount());
  const QLocale locale;
  setHistogram(h, tr("Δ of '%1': %2 elements, %3 zero, %4 non-finite")
                      .arg(key, locale.toString(static_cast<qulonglong>(h.total)),
                           locale.toString(static_cast<qulonglong>(h.zeros)),
                           locale.toString(static_cast<qulonglong>(h.nonFinite))));
}

void DeltaHistogram::setMessage(const QString& message) {
  if (message.isEmpty()) m_key.clear();
  HistogramChart::setMessage(message);
}

} // namespace lattice::studio
