#pragma once
/// \file DeltaHistogram: the histogram of a weight's Δ = B − A per element (weightDeltas), shown
/// when a weight difference is selected in the compare view. A HistogramChart (charts/) with
/// the Δ's wording: its title gives the weight, the element count, how many Δ are exactly zero
/// ("how many changed" at a glance) and how many are non-finite; the count axis starts
/// logarithmic. The binning is core's (runtime::computeHistogram in runtime/ValueSummary.h).

#include "charts/HistogramChart.h"

#include <QString>

#include <vector>

namespace lattice::studio {

class DeltaHistogram : public HistogramChart {
  Q_OBJECT

public:
  explicit DeltaHistogram(QWidget* parent = nullptr);

  /// Shows the histogram of `deltas` for weight `key`.
  void setDeltas(const QString& key, const std::vector<float>& deltas);
  /// Shows a message instead of bars (computing…, why there is no Δ); empty clears everything.
  void setMessage(const QString& message);
  /// Number of bins used for new data.
  static constexpr int binCount() { return 41; }

  const QString& key() const { return m_key; }

private:
  QString m_key;
};

} // namespace lattice::studio
