// Numeric overlays: node and group colours and figures from a run's times or its golden errors.
#include "numeric/NumericOverlay.h"

#include "layout/GraphGrouping.h"
#include "numeric/NumericRun.h"

#include <QCoreApplication>
#include <QLocale>
#include <QStringList>

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
  if (mode == OverlayMode::None || mode == OverlayMode::Quantization || mode == OverlayMode::QuantSensitivity ||
      !run.lowered())
    return colours;
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
  case OverlayMode::Quantization:
  case OverlayMode::QuantSensitivity:
    return {};
  case OverlayMode::Time:
    return QObject::tr("Time: %1 fast %2 %3 slowest node (groups: their total)")
        .arg(swatch(0.0), swatch(0.5), swatch(1.0));
  case OverlayMode::Accuracy: {
    const double tol = run.tolerance();
    if (!run.recordingCheck())
      return run.hasRecordedActivations()
                 ? QObject::tr("Accuracy: no golden yet (run on the recorded inputs, or choose an expected-outputs "
                               "file in Debug ▸ Run Inputs…)")
                 : QObject::tr("Accuracy: no golden yet (choose an expected-outputs file in Debug ▸ Run Inputs…)");
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

// --- figures ----------------------------------------------------------------------------------

namespace {

QString tr(const char* text) {
  return QCoreApplication::translate("NumericOverlay", text);
}

QString formatPearson(double p) {
  return std::isfinite(p) ? QLocale().toString(p, 'f', 4) : formatFigure(p);
}

/// The figure on a node's box.
QString nodeText(OverlayMode mode, const NodeFigures& f) {
  if (mode == OverlayMode::Time && f.ms >= 0.0)
    return f.share >= 0.0 ? tr("%1 · %2").arg(formatMs(f.ms), formatShare(f.share)) : formatMs(f.ms);
  if (mode == OverlayMode::Accuracy && f.checked) {
    if (!std::isfinite(f.relL2)) return tr("not compared");
    return tr("L2 %1 · r %2").arg(formatFigure(f.relL2), formatPearson(f.pearson));
  }
  return {};
}

/// A node's tooltip lines: its time and its error, whatever the overlay.
QString nodeDetail(const NodeFigures& f, const QString& golden, double tolerance) {
  QStringList lines;
  if (f.ms >= 0.0) {
    QString line = tr("Time: %1 ms").arg(QLocale().toString(f.ms, 'f', 3));
    if (f.share >= 0.0) line += tr(", %1 of the run").arg(formatShare(f.share));
    line += f.ops == 1 ? tr(" (1 op)") : tr(" (%1 ops)").arg(f.ops);
    lines << line;
  }
  if (f.checked) {
    if (std::isfinite(f.relL2))
      lines << tr("Relative L2 vs %1: %2, Pearson %3, max |Δ| %4")
                   .arg(golden, formatFigure(f.relL2), formatPearson(f.pearson), formatFigure(f.maxAbs));
    else
      lines << tr("Not compared with %1").arg(golden);
    if (!f.problem.isEmpty()) lines << f.problem;
    if (f.exceeds)
      lines << tr("Over the threshold (relative L2 %1)").arg(QLocale().toString(tolerance, 'g', 2));
    else if (f.byDesign)
      lines << tr("Differs where torch-lattice and mlx-lattice compute different things by design");
  }
  return lines.join(QLatin1Char('\n'));
}

/// What a collapsed group stands for: the total time of its nodes, its worst error.
struct GroupFigures {
  double ms = 0.0;
  int timed = 0;
  bool checked = false;
  double worst = 0.0;
  double pearson = 0.0;
  QString worstNode;
};

} // namespace

QString formatMs(double ms) {
  if (ms < 0.0005) return tr("<0.001 ms");
  const int decimals = ms >= 100.0 ? 0 : ms >= 10.0 ? 1 : ms >= 1.0 ? 2 : 3;
  return tr("%1 ms").arg(QLocale().toString(ms, 'f', decimals));
}

QString formatShare(double fraction) {
  const double percent = 100.0 * fraction;
  if (percent < 0.05) return tr("<0.1%");
  return QLocale().toString(percent, 'f', percent < 9.95 ? 1 : 0) + QLatin1Char('%');
}

QString formatFigure(double value) {
  if (std::isnan(value)) return QStringLiteral("NaN");
  if (std::isinf(value)) return value > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
  QString text = QLocale().toString(value, 'g', 3);
  // 3.2e-05 → 3.2e-5: the exponent's leading zeros only widen the badge.
  for (const char* sign : {"e-", "e+"}) {
    const int at = text.indexOf(QLatin1String(sign));
    if (at < 0) continue;
    int digits = at + 2;
    while (digits < text.size() - 1 && text[digits] == QLatin1Char('0'))
      text.remove(digits, 1);
    if (sign[1] == '+') text.remove(at + 1, 1);
  }
  return text;
}

std::vector<NodeFigures> nodeFigures(const NumericRun& run) {
  std::vector<NodeFigures> out;
  const LoweredRun* lowered = run.lowered();
  if (!lowered) return out;
  QHash<QString, std::size_t> index;
  const double total = run.runMs();
  for (const std::string& node : lowered->opNodes) {
    if (node.empty()) continue;
    const QString name = QString::fromStdString(node);
    if (index.contains(name)) continue;
    index.insert(name, out.size());
    NodeFigures f;
    f.node = name;
    f.ops = static_cast<int>(lowered->opsOf(node).size());
    f.ms = run.nodeMs(name);
    if (f.ms >= 0.0) f.share = total > 0.0 ? f.ms / total : 0.0;
    out.push_back(std::move(f));
  }
  if (const RecordingCheck* check = run.recordingCheck()) {
    QHash<QString, bool> explained;
    for (const NodeCheck& c : check->nodes) {
      const QString name = QString::fromStdString(c.ref.node);
      auto it = index.find(name);
      if (it == index.end()) {
        it = index.insert(name, out.size());
        NodeFigures f;
        f.node = name;
        out.push_back(std::move(f));
      }
      NodeFigures& f = out[*it];
      const double error = c.shownError();
      if (!f.checked || !(error <= f.relL2)) { // the worst value's figures; NaN is the worst
        f.relL2 = error;
        f.pearson = c.divergence.pearson;
        f.maxAbs = c.divergence.maxAbs;
      }
      f.checked = true;
      if (!c.problem.empty() && f.problem.isEmpty()) f.problem = QString::fromStdString(c.problem);
      if (c.explained())
        explained.insert(name, true);
      else if (c.exceeds)
        f.exceeds = true;
    }
    for (NodeFigures& f : out)
      f.byDesign = !f.exceeds && explained.value(f.node, false);
  }
  out.erase(
      std::remove_if(out.begin(), out.end(), [](const NodeFigures& f) { return f.ms < 0.0 && !f.checked; }),
      out.end());
  return out;
}

QHash<QString, OverlayFigure> overlayFigures(OverlayMode mode, const NumericRun& run,
                                             const GraphGrouping* grouping, const QSet<QString>* keys) {
  QHash<QString, OverlayFigure> out;
  const std::vector<NodeFigures> figures = nodeFigures(run);
  if (figures.empty()) return out;
  const QString golden = run.goldenDescription();
  QHash<QString, const NodeFigures*> byNode;
  for (const NodeFigures& f : figures) {
    byNode.insert(f.node, &f);
    if (!keys || keys->contains(f.node))
      out.insert(f.node, {nodeText(mode, f), nodeDetail(f, golden, run.tolerance())});
  }
  if (!grouping) return out;
  const auto& groups = grouping->groups();
  std::vector<GroupFigures> sums(groups.size());
  for (const GroupedNode& node : grouping->nodes()) {
    const NodeFigures* f = byNode.value(QString::fromStdString(node.name));
    if (!f) continue;
    for (int g = node.group; g >= 0; g = groups[std::size_t(g)].parent) {
      GroupFigures& sum = sums[std::size_t(g)];
      if (f->ms >= 0.0) {
        sum.ms += f->ms;
        ++sum.timed;
      }
      if (f->checked && (!sum.checked || !(f->relL2 <= sum.worst))) {
        sum.worst = f->relL2;
        sum.pearson = f->pearson;
        sum.worstNode = f->node;
      }
      sum.checked = sum.checked || f->checked;
    }
  }
  const double total = run.runMs();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const GroupFigures& sum = sums[g];
    if (!sum.timed && !sum.checked) continue;
    const QString path = QString::fromStdString(groups[g].path);
    if (keys && !keys->contains(path)) continue;
    OverlayFigure figure;
    QStringList lines;
    if (sum.timed) {
      const QString share = total > 0.0 ? formatShare(sum.ms / total) : QString();
      if (mode == OverlayMode::Time)
        figure.text = share.isEmpty() ? formatMs(sum.ms) : tr("%1 · %2").arg(formatMs(sum.ms), share);
      QString line = tr("Time: %1 ms").arg(QLocale().toString(sum.ms, 'f', 3));
      if (!share.isEmpty()) line += tr(", %1 of the run").arg(share);
      line += sum.timed == 1 ? tr(" (1 node ran ops)") : tr(" (%1 nodes ran ops)").arg(sum.timed);
      lines << line;
    }
    if (sum.checked) {
      if (mode == OverlayMode::Accuracy)
        figure.text =
            std::isfinite(sum.worst) ? tr("worst L2 %1").arg(formatFigure(sum.worst)) : tr("not compared");
      lines << tr("Worst relative L2 vs %1: %2 at %3 (Pearson %4)")
                   .arg(golden, formatFigure(sum.worst), sum.worstNode, formatPearson(sum.pearson));
    }
    figure.detail = lines.join(QLatin1Char('\n'));
    out.insert(path, figure);
  }
  return out;
}

} // namespace lattice::studio
