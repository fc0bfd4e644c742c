// The quantization overlay: colours, figures and legend from the plan and the analysis.
#include "quant/QuantOverlay.h"

#include "layout/GraphGrouping.h"
#include "quant/QuantizationState.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace lattice::studio {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("QuantOverlay", text); }

QString swatch(const QColor& c) { return QStringLiteral("<span style='color:%1'>■</span>").arg(c.name()); }

} // namespace

QColor quantFormatColor(const WeightFormat& format) {
  switch (format.bits) {
  case 0:
    return QColor(0x78, 0x90, 0x9c); // blue grey: as the model holds it
  case 8:
    return QColor(0x1e, 0x88, 0xe5);
  default:
    return QColor(0x43, 0xa0, 0x47); // the smallest
  }
}

QColor quantMixedColor() { return QColor(0x8e, 0x24, 0xaa); }

double layerSensitivity(const QuantSensitivity& sensitivity, int layer) {
  double worst = 0.0;
  if (layer < 0 || std::size_t(layer) >= sensitivity.perLayer.size()) return worst;
  for (const LayerCandidate& c : sensitivity.perLayer[std::size_t(layer)])
    if (c.measured) worst = std::max(worst, std::isfinite(c.error.relL2) ? c.error.relL2 : 1e30);
  return worst;
}

QHash<QString, QColor> quantOverlayColours(QuantOverlayBy by, const QuantizationState& state,
                                           const GraphGrouping* grouping) {
  QHash<QString, QColor> colours;
  const QuantSensitivity* s = state.sensitivity();
  if (!s) return colours;
  const auto& layers = s->layers;
  // Sensitivity: log scale between the least and the most sensitive measured layer.
  double lo = 0.0, hi = 0.0;
  for (int i = 0; i < int(layers.size()); ++i) {
    const double v = layerSensitivity(*s, i);
    if (!(v > 0.0)) continue;
    lo = lo > 0.0 ? std::min(lo, v) : v;
    hi = std::max(hi, v);
  }
  const auto heatOf = [lo, hi](double v) {
    if (!(v > 0.0) || !(hi > lo)) return heatColor(v > 0.0 ? 1.0 : 0.0);
    return heatColor((std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)));
  };
  QHash<QString, int> layerOfNode;
  for (int i = 0; i < int(layers.size()); ++i) {
    const QString node = QString::fromStdString(layers[std::size_t(i)].node);
    layerOfNode.insert(node, i);
    colours.insert(node, by == QuantOverlayBy::Format ? quantFormatColor(state.formats()[std::size_t(i)])
                                                      : heatOf(layerSensitivity(*s, i)));
  }
  if (!grouping) return colours;
  // Groups: the format their layers share (else mixed), or their most sensitive layer.
  QHash<QString, int> groupFormat;      // bits, or -1 when mixed
  QHash<QString, double> groupSensitivity;
  const auto& groups = grouping->groups();
  for (const GroupedNode& node : grouping->nodes()) {
    const auto it = layerOfNode.find(QString::fromStdString(node.name));
    if (it == layerOfNode.end()) continue;
    const int bits = state.formats()[std::size_t(*it)].bits;
    const double v = layerSensitivity(*s, *it);
    for (int g = node.group; g >= 0; g = groups[std::size_t(g)].parent) {
      const QString path = QString::fromStdString(groups[std::size_t(g)].path);
      if (path.isEmpty()) continue;
      auto f = groupFormat.find(path);
      if (f == groupFormat.end())
        groupFormat.insert(path, bits);
      else if (*f != bits)
        *f = -1;
      groupSensitivity[path] = std::max(groupSensitivity.value(path, 0.0), v);
    }
  }
  for (auto it = groupFormat.begin(); it != groupFormat.end(); ++it) {
    if (colours.contains(it.key())) continue; // a node named as a group
    if (by == QuantOverlayBy::Format)
      colours.insert(it.key(), *it < 0 ? quantMixedColor() : quantFormatColor(WeightFormat::quantized(*it)));
    else
      colours.insert(it.key(), heatOf(groupSensitivity.value(it.key())));
  }
  return colours;
}

QHash<QString, OverlayFigure> quantOverlayFigures(QuantOverlayBy by, const QuantizationState& state) {
  QHash<QString, OverlayFigure> out;
  const QuantSensitivity* s = state.sensitivity();
  if (!s) return out;
  for (int i = 0; i < int(s->layers.size()); ++i) {
    const QuantLayer& layer = s->layers[std::size_t(i)];
    const WeightFormat& format = state.formats()[std::size_t(i)];
    // The chosen format's own measured error (dense: none).
    double chosen = 0.0;
    for (std::size_t c = 0; c < s->candidates.size() && c < s->perLayer[std::size_t(i)].size(); ++c)
      if (s->candidates[c] == format && s->perLayer[std::size_t(i)][c].measured)
        chosen = s->perLayer[std::size_t(i)][c].error.relL2;
    const double worst = layerSensitivity(*s, i);
    OverlayFigure figure;
    figure.text = by == QuantOverlayBy::Format
                      ? (format.dense() ? QString::fromStdString(format.name())
                                        : QStringLiteral("%1 · L2 %2").arg(QString::fromStdString(format.name()),
                                                                          formatFigure(chosen)))
                      : QStringLiteral("L2 %1 · %2").arg(formatFigure(worst), QString::fromStdString(format.name()));
    figure.detail = tr("%1: plan %2; alone in the worst candidate, rel. L2 %3 at the outputs")
                        .arg(QString::fromStdString(layer.name), QString::fromStdString(format.name()),
                             formatFigure(worst));
    out.insert(QString::fromStdString(layer.node), figure);
  }
  return out;
}

QString quantOverlayLegend(QuantOverlayBy by, const QuantizationState& state) {
  if (!state.sensitivity())
    return tr("Quantization: no analysis yet (View ▸ Panels ▸ Quantization, Analyze)");
  if (by == QuantOverlayBy::Format)
    return tr("Quantization plan, by format: %1 dense %2 int8 %3 int4 %4 mixed group")
        .arg(swatch(quantFormatColor(WeightFormat::denseFormat())), swatch(quantFormatColor(WeightFormat::quantized(8))),
             swatch(quantFormatColor(WeightFormat::quantized(4))), swatch(quantMixedColor()));
  return tr("Quantization sensitivity (rel. L2 at the outputs, log scale): %1 least %2 %3 most sensitive layer "
            "(groups: their most sensitive)")
      .arg(swatch(heatColor(0.0)), swatch(heatColor(0.5)), swatch(heatColor(1.0)));
}

} // namespace lattice::studio
