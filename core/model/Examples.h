#pragma once
/// \file Built-in example models, built through the Model API exactly like an exported archive
/// (module records, one-level graphs, seeded random weights): SparseResNet21D and
/// SparseResUNet42 as torch-lattice defines them (lowering.md §8), and a synthetic chain.

#include "model/Model.h"
#include "support/Expected.h"

#include <string>
#include <vector>

namespace lattice {

/// SparseResNet21D (lowering.md §8.2): root `torch_lattice.backbones.resnet.SparseResNet21D`
/// (a ModuleList) with stages "0".."4"; forward returns the list of the 5 stage outputs. Conv
/// weights are uniform in [-s, s] (§7.1 init) from std::mt19937_64(seed); BatchNorm starts at
/// torch's defaults. One sparse f32 input `x` with 4 channels.
Model makeSparseResNet21D(uint64_t seed = 0);
/// SparseResUNet42 (lowering.md §8.3): stem, encoders.0-3, decoders.0-3 (ModuleDicts of
/// upsample and fuse); forward returns the 9 outputs [x0..x4, y0..y3]. Weights as above.
Model makeSparseResUNet42(uint64_t seed = 0);
/// Root `lattice_studio.examples.Chain` with child `blocks`: a Sequential of `blocks` (≥ 0)
/// SparseConvBlocks, each SubmConv3d(16,16,3) + BatchNorm(16) + ReLU. One sparse f32 input `x`
/// with 16 channels. Built in time linear in `blocks`.
Model makeChain(int blocks, uint64_t seed = 0);

/// "sparse_resnet21d", "sparse_resunet42", "chain:N".
std::vector<std::string> exampleNames();

/// The example called `name` (an exampleNames() entry; "chain:N" with N from 1 to 100000), seed
/// 0. Unknown names are an error listing the valid ones. (loadModel takes "example:NAME".)
Expected<Model> makeExample(const std::string& name);

} // namespace lattice
