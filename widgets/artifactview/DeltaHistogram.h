#pragma once
/// \file DeltaHistogram: the histogram of a weight's Δ = B − A per element (weightDeltas), shown
/// when a weight difference is selected in the compare view. computeHistogram is the pure part
/// (equal-width bins over [min, max], exact zeros counted apart so "how many changed" reads at a
/// glance); the widget paints bars with an optional logarithmic count axis.

#include <QString>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace lattice::studio {

struct Histogram {
  double min = 0; ///< smallest finite value
  double max = 0; ///< largest finite value
  /// Equal-width bins over [min, max] (the last bin includes max); one bin when min == max.
  std::vector<std::uint64_t> counts;
  std::uint64_t total = 0;     ///< every value
  std::uint64_t zeros = 0;     ///< values exactly 0 (also counted in their bin)
  std::uint64_t nonFinite = 0; ///< NaN and ±inf (in no bin)

  double binWidth() const { return counts.empty() ? 0.0 : (max - min) / static_cast<double>(counts.size()); }
  /// The bin of finite `value` (clamped to the range).
  int binOf(double value) const;
};

/// Bins `values` into `bins` equal-width bins (bins >= 1).
Histogram computeHistogram(const std::vector<float>& values, int bins);

class DeltaHistogram : public QWidget {
  Q_OBJECT

public:
  explicit DeltaHistogram(QWidget* parent = nullptr);

  /// Shows the histogram of `deltas` for weight `key`.
  void setDeltas(const QString& key, const std::vector<float>& deltas);
  /// Shows a message instead of bars (computing…, why there is no Δ); empty clears everything.
  void setMessage(const QString& message);
  void setLogScale(bool on);
  bool logScale() const { return m_log; }
  /// Number of bins used for new data.
  static constexpr int binCount() { return 41; }

  const Histogram& histogram() const { return m_histogram; }
  const QString& key() const { return m_key; }
  const QString& message() const { return m_message; }

  QSize sizeHint() const override { return {420, 200}; }
  QSize minimumSizeHint() const override { return {200, 120}; }

protected:
  void paintEvent(QPaintEvent* event) override;

private:
  Histogram m_histogram;
  QString m_key;
  QString m_message;
  bool m_log = true;
  bool m_hasData = false;
};

} // namespace lattice::studio
