#pragma once
/// \file The numeric overlays on the model graph: each box coloured by its
/// node's wall time in the last run (a collapsed module group by the sum over its nodes), or by
/// its relative L2 error against the recorded golden (a group by the worst of its nodes), from
/// green through yellow to red, with the legend that says what the colours mean; and the figures
/// behind the colours (each node's time and error, as the ranking table and the boxes show them).

#include <QColor>
#include <QHash>
#include <QSet>
#include <QString>

#include <vector>

namespace lattice {
class GraphGrouping;
}

namespace lattice::studio {

class NumericRun;

/// Quantization and QuantSensitivity colour layers by the quantization plan's format or by their
/// measured sensitivity (quant/QuantOverlay.h); the functions below give nothing for them.
enum class OverlayMode { None, Time, Accuracy, Quantization, QuantSensitivity };

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

/// One FX node's figures in a run: the time of the ops it emitted (the runtime's per-op stats,
/// as `lattice-cli run --profile` prints them, summed over the node's ops) and its error against
/// the golden (the check `lattice-cli check` prints: its worst value's).
struct NodeFigures {
  QString node;
  int ops = 0;          ///< ops the node emitted
  double ms = -1.0;     ///< wall time of those that ran; negative when none ran
  double share = -1.0;  ///< ms as a fraction of the run's time; negative when none ran
  bool checked = false; ///< compared with the golden: the fields below are set
  double relL2 = 0.0;   ///< NodeCheck::shownError (+inf when nothing could be compared)
  double pearson = 0.0;
  double maxAbs = 0.0;
  bool exceeds = false;  ///< over the tolerance, not explained by a known difference
  bool byDesign = false; ///< over the tolerance only where torch-lattice and mlx-lattice differ by design
  QString problem;       ///< why (some of) its values were not compared
};

/// Every node with a time or a golden comparison, in the order its ops ran (nodes checked but
/// without ops last, in check order).
std::vector<NodeFigures> nodeFigures(const NumericRun& run);

/// "1.23 ms", "0.004 ms", "<0.001 ms": a time as the boxes and the table show it.
QString formatMs(double ms);
/// "12%", "4.2%", "<0.1%" for a fraction of the run.
QString formatShare(double fraction);
/// A relative error or correlation in 3 significant digits, short exponent ("3.2e-5").
QString formatFigure(double value);

/// What a box shows of an overlay: `text` on the box (the overlay's figure, empty for None),
/// `detail` in its tooltip (time and error whatever the overlay, once the run has them).
struct OverlayFigure {
  QString text;
  QString detail;
};
/// The figure of every node (by name) and collapsed group (by path) that has one, or only of
/// those in `keys` when given (the boxes on screen: formatting is the cost on large graphs); a
/// group shows the total time of its nodes and its worst error, naming the node.
QHash<QString, OverlayFigure> overlayFigures(OverlayMode mode, const NumericRun& run,
                                             const GraphGrouping* grouping,
                                             const QSet<QString>* keys = nullptr);

} // namespace lattice::studio
