#pragma once
/// \file The quantization overlay on the model graph (View ▸ Overlay ▸ Quantization): each box of
/// a quantizable layer coloured by the plan's format for it (dense, int8, int4; a collapsed group
/// by its layers' format, "mixed" when they differ), or by its measured sensitivity (the worst
/// candidate's relative L2 error at the outputs, green → red on a log scale between the least and
/// the most sensitive layer; a group by its most sensitive layer); the legend line that says
/// which, and the figures on the boxes.

#include "numeric/NumericOverlay.h"

#include <QColor>
#include <QHash>
#include <QString>

namespace lattice {
class GraphGrouping;
struct QuantSensitivity;
struct WeightFormat;
} // namespace lattice

namespace lattice::studio {

class QuantizationState;

enum class QuantOverlayBy { Format, Sensitivity };

/// The colour of a format on the graph, in the table and in the legend.
QColor quantFormatColor(const WeightFormat& format);
/// A collapsed group whose layers have different formats.
QColor quantMixedColor();
/// Layer `layer`'s sensitivity: the largest relative L2 error over its measured candidates
/// (0 when none was measured).
double layerSensitivity(const QuantSensitivity& sensitivity, int layer);

/// The colour of every layer's node (by name) and of every group holding layers (by path).
QHash<QString, QColor> quantOverlayColours(QuantOverlayBy by, const QuantizationState& state,
                                           const GraphGrouping* grouping);
/// The figure on each layer's box ("int4 · L2 3.2e-3") and its tooltip line.
QHash<QString, OverlayFigure> quantOverlayFigures(QuantOverlayBy by, const QuantizationState& state);
/// One line of rich text: what the colours mean, or what to do to get them.
QString quantOverlayLegend(QuantOverlayBy by, const QuantizationState& state);

} // namespace lattice::studio
