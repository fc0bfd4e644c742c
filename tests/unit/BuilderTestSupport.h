#pragma once
// Test-only helpers shared by the tst_builder_*.cpp tests of TorchLatticeArtifactBuilder: the
// type texts their expected op lines spell out, a builder with or without the default input,
// arguments, lowering one module of a hand-made Model, and reading lines back from the
// graph.mlir text. Header-only, like LoweringTestModels.h, which it builds on.

#include "LoweringTestModels.h"
#include "lowering/TorchLatticeArtifactBuilder.h"

#include <QtGlobal>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace lattice::buildertest {

using testmodels::ConvSpec;
using testmodels::Triple;

inline const std::string SP =
    "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>";
inline const std::string WCONV = "!lattice.weight<conv3d, f32>";
inline const std::string WBIAS = "!lattice.weight<bias, f32>";
inline const std::string WCH = "!lattice.weight<channel, f32>";
/// The conformance models' directory (each holds model.json and expected.lattice/).
inline const std::string kModels = std::string(LATTICE_TEST_DATA_DIR) + "/conformance/models/";

/// A ConvSpec with the fields named (ConvSpec's weight keeps its default).
inline ConvSpec spec(int64_t in, int64_t out, Triple kernel = {1, 1, 1}, Triple stride = {1, 1, 1},
                     Triple padding = {0, 0, 0}, bool bias = false) {
  ConvSpec s;
  s.in = in;
  s.out = out;
  s.kernel = kernel;
  s.stride = stride;
  s.padding = padding;
  s.bias = bias;
  return s;
}

/// A builder; aborts the test on an option the builder refuses.
inline TorchLatticeArtifactBuilder makeBuilder(ArtifactBuilderOptions o = {}) {
  Expected<TorchLatticeArtifactBuilder> b = TorchLatticeArtifactBuilder::create(std::move(o));
  if (!b) qFatal("builder: %s", b.message().c_str());
  return std::move(*b);
}

/// Options without the default sparse input.
inline ArtifactBuilderOptions noDefaultInput(std::optional<int64_t> batch = std::nullopt,
                                             std::string dtype = "f32") {
  ArtifactBuilderOptions o;
  o.createDefaultInput = false;
  o.batchSize = batch;
  o.inputDtype = std::move(dtype);
  return o;
}

inline ArtifactValuePtr sparseArg(TorchLatticeArtifactBuilder& b, const std::string& name,
                                  std::optional<int64_t> c) {
  Expected<ArtifactValuePtr> v = b.sparseArgument(name, std::nullopt, c);
  if (!v) qFatal("sparse argument: %s", v.message().c_str());
  return *v;
}

inline ArtifactValuePtr denseArg(TorchLatticeArtifactBuilder& b, const std::string& name,
                                 const std::string& type, std::optional<int64_t> c) {
  Expected<ArtifactValuePtr> v = b.denseArgument(name, type, c);
  if (!v) qFatal("dense argument: %s", v.message().c_str());
  return *v;
}

/// Lowers the module at `path` of `m` on `inputs`.
inline Expected<ArtifactValuePtr> lower(TorchLatticeArtifactBuilder& b, const Model& m,
                                        const std::string& path, std::vector<ArtifactValuePtr> inputs) {
  return b.lowerModule(path, *m.module(path), m, std::move(inputs));
}

/// graph.mlir with `v` returned.
inline std::string textWith(TorchLatticeArtifactBuilder& b, const ArtifactValuePtr& v) {
  if (Status s = b.output({v}); !s) qFatal("output: %s", s.message().c_str());
  Expected<std::string> text = b.toMlir();
  if (!text) qFatal("to_mlir: %s", text.message().c_str());
  return *text;
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

/// The first line that contains `needle`, as written; "" when none.
inline std::string rawLineWith(const std::string& text, const std::string& needle) {
  for (const std::string& l : lines(text))
    if (l.find(needle) != std::string::npos) return l;
  return {};
}

/// The first line that contains `needle`, without a body line's 4-space indent; "" when none.
inline std::string lineWith(const std::string& text, const std::string& needle) {
  const std::string l = rawLineWith(text, needle);
  return l.rfind("    ", 0) == 0 ? l.substr(4) : l;
}

/// The op names the builder emitted, in order.
inline std::vector<std::string> emittedOps(const TorchLatticeArtifactBuilder& b) {
  std::vector<std::string> ops;
  for (const EmittedOp& op : b.writer().ops())
    ops.emplace_back(op.op);
  return ops;
}

} // namespace lattice::buildertest
