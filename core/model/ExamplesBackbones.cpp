// SparseResNet21D and SparseResUNet42 as torch-lattice defines them (lowering.md §8.2, §8.3),
// recorded as their exported archives would be: every module record, the roots' one-level
// forward graphs, and seeded weights. Width multiplier 1 and 4 input channels (the defaults).
#include "model/ExampleBuilder.h"
#include "model/Examples.h"

namespace lattice {

using namespace examples;

namespace {

void setSparseInput(Model& model, int64_t channels) {
  InputSpec input;
  input.name = "x";
  input.kind = InputSpec::Kind::Sparse;
  input.dtype = "f32";
  input.channels = channels;
  model.exampleInputs = {input};
  model.producerName = "lattice-studio";
  model.producerVersion = "1";
}

fx::Value intList(std::initializer_list<int64_t> values) {
  fx::ValueList items;
  for (int64_t v : values) items.push_back(fx::Value::integer(v));
  return fx::Value::list(std::move(items));
}

} // namespace

Model makeSparseResNet21D(uint64_t seed) {
  struct Stage {
    int blocks;
    int64_t out;
    Triple kernel;
    Triple stride;
  };
  const Stage stages[] = {{3, 16, triple(3), triple(1)},
                          {3, 32, triple(3), triple(2)},
                          {3, 64, triple(3), triple(2)},
                          {3, 128, triple(3), triple(2)},
                          {1, 128, {1, 3, 1}, {1, 2, 1}}};
  const int64_t inChannels = 4;

  ExampleBuilder b(seed);
  ModuleInfo root = record("torch_lattice.backbones.resnet.SparseResNet21D",
                           {"torch_lattice.backbones.resnet.SparseResNet", "torch.nn.modules.container.ModuleList", kModule});
  // `blocks` as SparseResNet21D passes it: a list of (num_blocks, out, kernel, stride) tuples.
  auto asValue = [](const Triple& t) {
    if (t[0] == t[1] && t[1] == t[2]) return fx::Value::integer(t[0]);
    return fx::Value::tuple({fx::Value::integer(t[0]), fx::Value::integer(t[1]), fx::Value::integer(t[2])});
  };
  fx::ValueList blocks;
  for (const Stage& s : stages)
    blocks.push_back(fx::Value::tuple({fx::Value::integer(s.blocks), fx::Value::integer(s.out), asValue(s.kernel), asValue(s.stride)}));
  root.attributes = {{"blocks", fx::Value::list(std::move(blocks))},
                     {"in_channels", fx::Value::integer(inChannels)},
                     {"width_multiplier", fx::Value::floating(1.0)}};
  root.signature = positional({"x"});
  b.addRoot(std::move(root));

  int64_t in = inChannels;
  for (std::size_t k = 0; k < std::size(stages); ++k) {
    const Stage& s = stages[k];
    const std::string stage = b.sequential("", std::to_string(k));
    b.convBlock(stage, "0", in, s.out, s.kernel, s.stride);
    for (int i = 1; i < s.blocks; ++i) b.resBlock(stage, std::to_string(i), s.out, s.out, s.kernel);
    b.finishSequential(stage);
    in = s.out;
  }

  // forward: run the stages in order and return all stage outputs as a list.
  auto graph = std::make_shared<fx::Graph>();
  fx::Node* current = graph->placeholder("x");
  fx::ValueList outputs;
  for (std::size_t k = 0; k < std::size(stages); ++k) {
    current = graph->callModule(std::to_string(k), {fx::Value::node(current)});
    outputs.push_back(fx::Value::node(current));
  }
  graph->output(fx::Value::list(std::move(outputs)));
  b.model().modules().front().graph = std::move(graph);

  Model model = b.take();
  setSparseInput(model, inChannels);
  model.source = "example:sparse_resnet21d";
  return model;
}

Model makeSparseResUNet42(uint64_t seed) {
  const int64_t inChannels = 4;
  // nc = [stem] + encoder + decoder channels (lowering.md §8.3).
  const int64_t nc[9] = {32, 32, 64, 128, 256, 256, 128, 96, 96};

  ExampleBuilder b(seed);
  ModuleInfo root = record("torch_lattice.backbones.unet.SparseResUNet42",
                           {"torch_lattice.backbones.unet.SparseResUNet", kModule});
  root.attributes = {{"stem_channels", fx::Value::integer(32)},
                     {"encoder_channels", intList({32, 64, 128, 256})},
                     {"decoder_channels", intList({256, 128, 96, 96})},
                     {"in_channels", fx::Value::integer(inChannels)},
                     {"width_multiplier", fx::Value::floating(1.0)}};
  root.signature = positional({"x"});
  b.addRoot(std::move(root));

  const std::string stem = b.sequential("", "stem");
  b.conv(stem, "0", ConvKind::Subm, inChannels, nc[0], triple(3));
  b.batchNorm(stem, "1", nc[0]);
  b.relu(stem, "2");
  b.conv(stem, "3", ConvKind::Subm, nc[0], nc[0], triple(3));
  b.batchNorm(stem, "4", nc[0]);
  b.relu(stem, "5");
  b.finishSequential(stem);

  const std::string encoders = b.moduleList("", "encoders");
  for (int k = 0; k < 4; ++k) {
    const std::string enc = b.sequential(encoders, std::to_string(k));
    b.convBlock(enc, "0", nc[k], nc[k], triple(2), triple(2));
    b.resBlock(enc, "1", nc[k], nc[k + 1], triple(3));
    b.resBlock(enc, "2", nc[k + 1], nc[k + 1], triple(3));
    b.finishSequential(enc);
  }

  const std::string decoders = b.moduleList("", "decoders");
  for (int k = 0; k < 4; ++k) {
    const std::string dec = b.moduleDict(decoders, std::to_string(k));
    b.convTransposeBlock(dec, "upsample", nc[k + 4], nc[k + 5], triple(2), triple(2));
    const std::string fuse = b.sequential(dec, "fuse");
    b.resBlock(fuse, "0", nc[k + 5] + nc[3 - k], nc[k + 5], triple(3));
    b.resBlock(fuse, "1", nc[k + 5], nc[k + 5], triple(3));
    b.finishSequential(fuse);
  }

  // forward, the recursion unrolled: stem, the four encoders, then each decoder upsamples the
  // previous output and fuses it with the matching skip (decoders.0 pairs with encoders.3).
  auto graph = std::make_shared<fx::Graph>();
  fx::Node* x = graph->placeholder("x");
  fx::Node* skips[5];
  skips[0] = graph->callModule("stem", {fx::Value::node(x)});
  for (int k = 0; k < 4; ++k)
    skips[k + 1] = graph->callModule("encoders." + std::to_string(k), {fx::Value::node(skips[k])});
  fx::ValueList outputs;
  for (fx::Node* s : skips) outputs.push_back(fx::Value::node(s));
  fx::Node* current = skips[4];
  for (int k = 0; k < 4; ++k) {
    const std::string dec = "decoders." + std::to_string(k);
    fx::Node* up = graph->callModule(dec + ".upsample", {fx::Value::node(current)});
    fx::Node* cat = graph->callFunction("torch_lattice.operators.cat",
                                        {fx::Value::list({fx::Value::node(up), fx::Value::node(skips[3 - k])})});
    current = graph->callModule(dec + ".fuse", {fx::Value::node(cat)});
    outputs.push_back(fx::Value::node(current));
  }
  graph->output(fx::Value::list(std::move(outputs)));
  b.model().modules().front().graph = std::move(graph);

  Model model = b.take();
  setSparseInput(model, inChannels);
  model.source = "example:sparse_resunet42";
  return model;
}

} // namespace lattice
