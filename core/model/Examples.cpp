// The synthetic chain example and the example names (loadModel's "example:NAME"). The backbones
// are in ExamplesBackbones.cpp. The chain is built in time
// linear in its length.
#include "model/Examples.h"

#include "model/ExampleBuilder.h"

namespace lattice {

using namespace examples;

namespace {

constexpr int kMaxChainBlocks = 100000;
constexpr int64_t kChainChannels = 16;

std::string validNames() {
  std::string list;
  for (const std::string& name : exampleNames()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

/// "123" → 123; nullopt for anything but 1..kMaxChainBlocks written in decimal digits.
std::optional<int> parseBlockCount(const std::string& text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value < 1 || value > kMaxChainBlocks) return std::nullopt;
  return value;
}

} // namespace

Model makeChain(int blocks, uint64_t seed) {
  ExampleBuilder b(seed);
  ModuleInfo root = record("lattice_studio.examples.Chain", {kModule});
  root.attributes = {{"num_blocks", fx::Value::integer(blocks)}, {"channels", fx::Value::integer(kChainChannels)}};
  root.signature = positional({"x"});
  b.addRoot(std::move(root));

  const std::string chain = b.sequential("", "blocks");
  for (int i = 0; i < blocks; ++i)
    b.convBlock(chain, std::to_string(i), kChainChannels, kChainChannels, triple(3));
  b.finishSequential(chain);

  auto graph = std::make_shared<fx::Graph>();
  fx::Node* x = graph->placeholder("x");
  fx::Node* out = graph->callModule("blocks", {fx::Value::node(x)});
  graph->output(fx::Value::node(out));
  b.model().modules().front().graph = std::move(graph);

  Model model = b.take();
  InputSpec input;
  input.name = "x";
  input.dtype = "f32";
  input.channels = kChainChannels;
  model.exampleInputs = {input};
  model.producerName = "lattice-studio";
  model.producerVersion = "1";
  model.source = "example:chain:" + std::to_string(blocks);
  return model;
}

std::vector<std::string> exampleNames() { return {"sparse_resnet21d", "sparse_resunet42", "chain:N"}; }

Expected<Model> makeExample(const std::string& name) {
  if (name == "sparse_resnet21d") return makeSparseResNet21D();
  if (name == "sparse_resunet42") return makeSparseResUNet42();
  if (name.rfind("chain:", 0) == 0) {
    const std::string count = name.substr(6);
    auto blocks = parseBlockCount(count);
    if (!blocks)
      return makeError("example 'chain:" + count + "': N must be a whole number from 1 to " +
                       std::to_string(kMaxChainBlocks));
    return makeChain(*blocks);
  }
  return makeError("unknown example '" + name + "' (valid examples: " + validNames() + ")");
}

} // namespace lattice
