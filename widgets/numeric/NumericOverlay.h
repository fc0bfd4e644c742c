#pragma once
/// \file The numeric overlays on the model graph: each box coloured by its
/// node's wall time in the last run (a collapsed module group by the sum over its nodes), or by
/// its relative L2 error against the recorded golden (a group by the worst of its nodes), from
/// green through yellow to red, with the legend that says what the colours mean.

#include <QColor>
#include <QHash>
#include <QString>

namespace lattice {
class GraphGrouping;
}

namespace lattice::studio {

class NumericRun;

enum class OverlayMode { None, Time, Accuracy };

/// Green (t = 0) → yellow (0.5) → red (1); t is clamped to [0, 1].
QColor heatColor(double t);

/// The heat of a relative L2 error against a tolerance: 0.5 at the tolerance, 0 a decade below, 1 a
/// decade above (log scale); 1 for a value that could not be compared (pass +inf).
double errorHeat(double relL2, double tolerance);
/// The accuracy overlay's colour for a node that differs from the recording only where
/// torch-lattice and the artifact compute different things by design (TrainerDifferences.h).
QColor knownDifferenceColor();

/// The colour of every node (by name) and group (by path) that has a value. Time: t is the
/// node's (group's) share of the slowest node's (group's) time. Accuracy: t = 0.5 at the
/// tolerance, 0 a decade below it, 1 a decade above it (log scale); a node whose values could not
/// be compared is red.
QHash<QString, QColor> overlayColours(OverlayMode mode, const NumericRun& run, const GraphGrouping* grouping);

/// One line of rich text for the legend ("" for None).
QString overlayLegend(OverlayMode mode, const NumericRun& run);

} // namespace lattice::studio
