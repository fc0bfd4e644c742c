#pragma once
/// \file What channel count each sparse input of a model must have: the lowering is run in memory
/// with the inputs' widths left open, and the artifact it writes is read with the verifier's
/// channel rules (argumentChannelNeeds): the first op whose weight fixes an input's width names
/// it, and the op's FX node is found through the builder's provenance. This is what the studio's
/// Inputs editor checks a channel count against.

#include "lowering/Lowering.h"
#include "support/Expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lattice {

/// The width input `input` (an index into the export's input specs) must have.
struct InputChannelNeed {
  std::size_t input = 0;
  std::int64_t channels = 0;
  std::string node;      ///< the FX node whose op needs it ("stem_0")
  std::string op;        ///< `lattice.subm_conv3d`
  std::string weightKey; ///< the weight that decides it ("stem.0.weight")
};

/// The needs of `model`'s inputs under `options` (its input specs and lowering options; every
/// sparse input's channel count is ignored), lowering `graph` (the studio's trace; null: a trace
/// of its own). At most one need per input; an input no weight constrains has none. Errors: the
/// lowering's own (then nothing can be said about the widths).
Expected<std::vector<InputChannelNeed>> inputChannelNeeds(const Model& model, ExportOptions options,
                                                          const fx::Graph* graph = nullptr);

} // namespace lattice
