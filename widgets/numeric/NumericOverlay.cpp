// Numeric overlays: node and group colours from a run's times or its recorded-golden errors.
#include "numeric/NumericOverlay.h"

#include "layout/GraphGrouping.h"
#include "numeric/NumericRun.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace lattice::studio {

QColor heatColor(double t) {
  t = std::clamp(std::isfinite(t) ? t : 1.0, 0.0, 1.0);
  // Hue 120° (green) to 0° (red) through 60° (yellow).
  return QColor::fromHsvF(float((1.0 - t) / 3.0), 0.85f, 0.9f);
}

QColor knownDifferenceColor() { return QColor(0x9e, 0x9e, 0xe0); }

double errorHeat(double relL2, double tolerance) {
  if (!(relL2 > 0.0)) return std::isnan(relL2) ? 1.0 : 0.0;
  return 0.5 + 0.5 * std::log10(relL2 / std::max(tolerance, 1e-30));
}

namespace {

/// `value` for every node name, aggregated up the group chain (sum or max) by group path.
QHash<QString, double> withGroups(const QHash<QString, double>& byNode, const GraphGrouping* grouping, bool sum) {
  QHash<QString, double> out = byNode;
  if (!grouping) return out;
  const auto& groups = grouping->groups();
  for (const GroupedNode& node : grouping->nodes()) {
    auto it = byNode.find(QString::fromStdString(node.name));
    if (it == byNode.end()) continue;
    for (int g = node.group; g >= 0; g = groups[std::size_t(g)].parent) {
      const QString path = QString::fromStdString(groups[std::size_t(g)].path);
      auto slot = out.find(path);
      if (slot == out.end())
        out.insert(path, *it);
      else
        *slot = sum ? *slot + *it : std::max(*slot, *it);
    }
  }
  return out;
}

} // namespace

QHash<QString, QColor> overlayColours(OverlayMode mode, const NumericRun& run, const GraphGrouping* grouping) {
  QHash<QString, QColor> colours;
  if (mode == OverlayMode::None || !run.lowered()) return colours;
  QHash<QString, double> values;
  if (mode == OverlayMode::Time) {
    for (const std::string& node : run.lowered()->opNodes) {
      const QString name = QString::fromStdString(node);
      if (name.isEmpty() || values.contains(name)) continue;
      const double ms = run.nodeMs(name);
      if (ms >= 0.0) values.insert(name, ms);
    }
    const QHash<QString, double> all = withGroups(values, grouping, true);
    double maxNode = 0.0, maxGroup = 0.0;
    for (auto it = all.begin(); it != all.end(); ++it) {
      double& max = values.contains(it.key()) ? maxNode : maxGroup;
      max = std::max(max, *it);
    }
    for (auto it = all.begin(); it != all.end(); ++it) {
      const double max = values.contains(it.key()) ? maxNode : maxGroup;
      colours.insert(it.key(), heatColor(max > 0.0 ? *it / max : 0.0));
    }
    return colours;
  }
  const RecordingCheck* check = run.recordingCheck();
  if (!check) return colours;
  // A node that differs only by design (here or upstream) is not coloured as an error.
  QHash<QString, bool> byDesign;
  for (const NodeCheck& c : check->nodes) {
    const QString node = QString::fromStdString(c.ref.node);
    if (c.explained()) {
      byDesign.insert(node, byDesign.value(node, true));
      continue;
    }
    values[node] = std::max(values.value(node, 0.0), c.shownError());
    if (c.exceeds) byDesign.insert(node, false);
  }
  const QHash<QString, double> all = withGroups(values, grouping, false);
  for (auto it = all.begin(); it != all.end(); ++it) colours.insert(it.key(), heatColor(errorHeat(*it, check->tolerance)));
  for (auto it = byDesign.begin(); it != byDesign.end(); ++it)
    if (*it) colours.insert(it.key(), knownDifferenceColor());
  return colours;
}

QString overlayLegend(OverlayMode mode, const NumericRun& run) {
  auto swatch = [](double t) { return QStringLiteral("<span style='color:%1'>■</span>").arg(heatColor(t).name()); };
  switch (mode) {
  case OverlayMode::None:
    return {};
  case OverlayMode::Time:
    return QObject::tr("Time: %1 fast %2 %3 slowest node (groups: their total)")
        .arg(swatch(0.0), swatch(0.5), swatch(1.0));
  case OverlayMode::Accuracy: {
    const double tol = run.tolerance();
    if (!run.recordingCheck())
      return QObject::tr("Accuracy: no golden yet (run on the recorded inputs, or choose an expected-outputs "
                         "file in Debug ▸ Run Inputs…)");
    QString legend = QObject::tr("Relative L2 vs %1: %2 ≤ %3 %4 %5 %6 ≥ %7 (groups: their worst)")
                         .arg(run.goldenDescription().toHtmlEscaped(), swatch(0.0),
                              QLocale().toString(tol / 10, 'g', 2), swatch(0.5), QLocale().toString(tol, 'g', 2),
                              swatch(1.0), QLocale().toString(tol * 10, 'g', 2));
    if (run.recordingCheck()->firstDifference >= 0)
      legend += QObject::tr("; <span style='color:%1'>■</span> torch-lattice and mlx-lattice differ by design "
                            "(select the node to read how)")
                    .arg(knownDifferenceColor().name());
    return legend;
  }
  }
  return {};
}

} // namespace lattice::studio
