// The documented trainer/consumer differences of TrainerDifferences.h.
#include "exec/TrainerDifferences.h"

#include <array>

namespace lattice {

namespace {

using Triple = std::array<std::int64_t, 3>;

std::string tripleText(const Triple& t) {
  if (t[0] == t[1] && t[1] == t[2]) return std::to_string(t[0]);
  return "(" + std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " + std::to_string(t[2]) + ")";
}

/// "k=3 s=2 p=1" of a conv or pool op.
std::string geometry(const Triple& kernel, const Triple& stride, const Triple& padding) {
  std::string text = "k=" + tripleText(kernel) + " s=" + tripleText(stride);
  if (padding != Triple{0, 0, 0}) text += " p=" + tripleText(padding);
  return text;
}

bool anyAbove(const Triple& t, std::int64_t v) { return t[0] > v || t[1] > v || t[2] > v; }

} // namespace

std::optional<TrainerDifference> knownTrainerDifference(const runtime::PlanOp& op, const ValueComparison& comparison) {
  const OpKind kind = op.kind;
  if (kind == OpKind::Conv3d || kind == OpKind::Pool3d) {
    const Triple kernel = op.i64Triple("kernel_size"), stride = op.i64Triple("stride"),
                 padding = op.i64Triple("padding"), dilation = op.i64TripleOr("dilation", {1, 1, 1});
    const char* what = kind == OpKind::Conv3d ? "conv" : "pool";
    // Per axis the two agree only for k = s, p = 0, d = 1 and an even kernel or k = 1: the
    // artifact's support is one row per floor(c / s) (the input itself at s = 1, p = 0) read
    // through offsets centred on odd axes; torch-lattice's (CUDA and CPU alike) is spconv-style.
    bool spconvWindow = false;
    for (std::size_t a = 0; a < 3; ++a)
      spconvWindow = spconvWindow || kernel[a] != stride[a] || padding[a] != 0 || dilation[a] != 1 ||
                     (kernel[a] % 2 == 1 && kernel[a] > 1);
    if (spconvWindow && kernel != Triple{1, 1, 1})
      return TrainerDifference{
          "forward-support",
          std::string("torch-lattice computes this ") + geometry(kernel, stride, padding) + " " + what +
              " spconv-style: an output row wherever an input lies at o·s − p + j (j = 0…k−1), read through that "
              "uncentred window; the artifact, as mlx-lattice runs it, has one output row per floor(c / s) (the "
              "input support itself at stride 1) read through a window centred on odd axes, so rows and values "
              "differ (they agree per axis only for k = s, no padding, and an even kernel)"};
    if (anyAbove(stride, 1) && comparison.supportsDiffer() && comparison.commonRows == comparison.recordedRows)
      return TrainerDifference{
          "spatial-range",
          std::string("torch-lattice computes this strided ") + what +
              " only for output rows o ≤ (R + 2p − k) // s, with R the input's spatial range (for a Conv3d "
              "without one: the largest coordinate + 1), and drops the rest; the artifact, as mlx-lattice runs "
              "it, has no spatial range and keeps one row per floor(c / s); the rows both have agree"};
    return std::nullopt;
  }
  if (kind == OpKind::TargetConv3d)
    return TrainerDifference{
        "target-offsets",
        "torch-lattice computes this conv onto target coordinates through the uncentred window t·s − p … "
        "t·s − p + (k − 1)·d (k=3 p=1: t−1…t+1); the artifact, as mlx-lattice runs it, centres odd axes and "
        "subtracts the padding again (t−2…t): same rows, different values"};
  if ((kind == OpKind::ConvTranspose3d || kind == OpKind::NormalizedConvTranspose3d) &&
      comparison.supportsDiffer())
    return TrainerDifference{
        "transposed-support",
        "torch-lattice computes this ConvTranspose3d back onto the support the matching strided Conv3d started "
        "from (its cached kernel map, inverted); the artifact, as mlx-lattice runs it, generates every child "
        "c·s + j − p of every coarse row, adding rows the fine support never had; the rows both have agree"};
  return std::nullopt;
}

} // namespace lattice
