// Module records of the torch-lattice layers and backbone blocks used by the built-in examples,
// as the exporter records them (lowering.md §7, §8.1; attribute names and encodings as in the
// conformance archives). Weights follow §7.1's init: uniform in [-s, s] with
// s = 1/sqrt(fan · kernel_volume); BatchNorm starts as torch does (weight 1, bias 0, running
// mean 0, running var 1, num_batches_tracked 0). Uniform draws are made from raw 64-bit
// generator output (not std::uniform_real_distribution, whose algorithm varies by library), so
// a seed gives the same bytes everywhere: the model's std::mt19937_64 seeds one splitmix64
// stream per tensor, and the tensor is filled on first use (a deferred TensorData).
#include "model/ExampleBuilder.h"

#include <cassert>
#include <cmath>
#include <cstring>

namespace lattice::examples {

const char* const kModule = "torch.nn.modules.module.Module";
const char* const kSequential = "torch.nn.modules.container.Sequential";

namespace {

const char* const kBlocks = "torch_lattice.backbones.modules.blocks.";

std::string joinPath(const std::string& parent, const std::string& local) {
  return parent.empty() ? local : parent + "." + local;
}

fx::Value tupleOf(const Triple& t) {
  return fx::Value::tuple({fx::Value::integer(t[0]), fx::Value::integer(t[1]), fx::Value::integer(t[2])});
}

TensorData filled(DType dtype, std::vector<int64_t> shape, float value) {
  TensorData t = TensorData::zeros(dtype, std::move(shape));
  uint8_t* bytes = t.mutableData();
  for (int64_t i = 0; i < t.numel(); ++i) std::memcpy(bytes + i * sizeof(float), &value, sizeof(float));
  return t;
}

} // namespace

ModuleInfo record(std::string type, std::vector<std::string> bases) {
  ModuleInfo m;
  m.type = std::move(type);
  m.bases = std::move(bases);
  return m;
}

std::vector<SignatureParam> positional(std::initializer_list<const char*> names) {
  std::vector<SignatureParam> params;
  for (const char* name : names) params.push_back(SignatureParam{name, ParamKind::PositionalOrKeyword, std::nullopt});
  return params;
}

TensorData kernelPositions(Triple kernel) {
  const int64_t volume = kernel[0] * kernel[1] * kernel[2];
  std::vector<uint8_t> bytes(static_cast<std::size_t>(volume) * 3 * sizeof(int32_t));
  std::size_t at = 0;
  for (int32_t x = 0; x < kernel[0]; ++x)
    for (int32_t y = 0; y < kernel[1]; ++y)
      for (int32_t z = 0; z < kernel[2]; ++z)
        for (int32_t v : {x, y, z}) {
          std::memcpy(bytes.data() + at, &v, sizeof v);
          at += sizeof v;
        }
  return TensorData::owning(DType::I32, {volume, 3}, std::move(bytes));
}

ExampleBuilder::ExampleBuilder(uint64_t seed) : m_rng(seed) {}

void ExampleBuilder::addRoot(ModuleInfo module) {
  module.path.clear();
  m_model.addModule(std::move(module));
}

std::string ExampleBuilder::add(const std::string& parent, const std::string& local, ModuleInfo module) {
  ModuleInfo* owner = m_model.module(parent);
  assert(owner);
  module.path = owner->childPath(local);
  owner->children.push_back(local);
  std::string path = module.path;
  m_model.addModule(std::move(module));
  return path;
}

namespace {

// splitmix64 (Steele, Lea, Flood 2014): a counter-based generator, so element i of a tensor is
// a pure function of (tensor seed, i) and a tensor can be filled on demand, in any order.
uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform [-bound, bound] float32 values computed when the tensor's bytes are first needed:
// building example:chain:10000 (279 MB of weights) costs no weight bytes until something reads
// or exports them.
class UniformProducer final : public TensorProducer {
public:
  UniformProducer(uint64_t seed, double bound, int64_t count)
      : m_seed(seed), m_bound(bound), m_count(count) {}

  void produce(uint8_t* dst) const override {
    for (int64_t i = 0; i < m_count; ++i) {
      const uint64_t bits = splitmix64(m_seed + static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull);
      const double u = static_cast<double>(bits >> 11) * 0x1.0p-53; // [0, 1)
      const float v = static_cast<float>((2.0 * u - 1.0) * m_bound);
      std::memcpy(dst + i * sizeof(float), &v, sizeof v);
    }
  }

private:
  uint64_t m_seed;
  double m_bound;
  int64_t m_count;
};

} // namespace

TensorData ExampleBuilder::uniform(std::vector<int64_t> shape, double bound) {
  // One draw of the model's generator per tensor (in the order modules are added) seeds the
  // tensor's own stream, so a model seed still fixes every value.
  const uint64_t tensorSeed = m_rng();
  const int64_t n = shapeNumel(shape);
  return TensorData::deferred(DType::F32, std::move(shape),
                              std::make_shared<UniformProducer>(tensorSeed, bound, n));
}

void ExampleBuilder::addParameter(ModuleInfo& module, const std::string& name, TensorData tensor) {
  const std::string key = module.childPath(name);
  module.parameters.emplace_back(name, TensorRecord{key, tensor.dtype(), tensor.shape()});
  m_model.setTensor(key, std::move(tensor));
}

void ExampleBuilder::addBuffer(ModuleInfo& module, const std::string& name, TensorData tensor) {
  const std::string key = module.childPath(name);
  module.buffers.emplace_back(name, TensorRecord{key, tensor.dtype(), tensor.shape()});
  m_model.setTensor(key, std::move(tensor));
}

std::string ExampleBuilder::conv(const std::string& parent, const std::string& local, ConvKind kind,
                                 int64_t in, int64_t out, Triple kernel, Triple stride, Triple dilation) {
  const bool subm = kind == ConvKind::Subm;
  const bool transposed = kind == ConvKind::Transpose;
  const char* cls = subm ? "SubmConv3d" : transposed ? "ConvTranspose3d" : "Conv3d";
  ModuleInfo m = record(std::string("torch_lattice.nn.modules.conv.") + cls,
                        {"torch_lattice.nn.modules.conv._BaseConv3d", kModule});
  m.path = joinPath(parent, local);
  Triple padding{0, 0, 0};
  if (subm)
    for (int i = 0; i < 3; ++i) padding[i] = dilation[i] * (kernel[i] - 1) / 2;
  const int64_t volume = kernel[0] * kernel[1] * kernel[2];
  m.attributes = {{"in_channels", fx::Value::integer(in)},
                  {"out_channels", fx::Value::integer(out)},
                  {"kernel_size", tupleOf(kernel)},
                  {"stride", tupleOf(stride)},
                  {"dilation", tupleOf(dilation)},
                  {"padding", tupleOf(padding)},
                  {"subm", fx::Value::boolean(subm)},
                  {"transposed", fx::Value::boolean(transposed)},
                  {"generative", fx::Value::boolean(false)},
                  {"normalized", fx::Value::boolean(false)},
                  {"eps", fx::Value::floating(1e-8)},
                  {"kernel_volume", fx::Value::integer(volume)}};
  const int64_t fan = transposed ? out : in;
  addParameter(m, "weight", uniform({volume, in, out}, 1.0 / std::sqrt(static_cast<double>(fan * volume))));
  m.parameters.emplace_back("bias", std::nullopt);
  addBuffer(m, "kernel_positions", kernelPositions(kernel));
  m.signature = positional({"input"});
  m.signature.push_back(SignatureParam{"coordinates", ParamKind::PositionalOrKeyword, fx::Value::none()});
  return add(parent, local, std::move(m));
}

std::string ExampleBuilder::batchNorm(const std::string& parent, const std::string& local, int64_t channels) {
  ModuleInfo m = record("torch_lattice.nn.modules.norm.BatchNorm",
                        {"torch.nn.modules.batchnorm.BatchNorm1d", "torch.nn.modules.batchnorm._BatchNorm",
                         "torch.nn.modules.batchnorm._NormBase", kModule});
  m.path = joinPath(parent, local);
  m.attributes = {{"num_features", fx::Value::integer(channels)},
                  {"eps", fx::Value::floating(1e-5)},
                  {"momentum", fx::Value::floating(0.1)},
                  {"affine", fx::Value::boolean(true)},
                  {"track_running_stats", fx::Value::boolean(true)}};
  addParameter(m, "weight", filled(DType::F32, {channels}, 1.0f));
  addParameter(m, "bias", TensorData::zeros(DType::F32, {channels}));
  addBuffer(m, "running_mean", TensorData::zeros(DType::F32, {channels}));
  addBuffer(m, "running_var", filled(DType::F32, {channels}, 1.0f));
  addBuffer(m, "num_batches_tracked", TensorData::zeros(DType::I64, {}));
  m.signature = positional({"input"});
  return add(parent, local, std::move(m));
}

std::string ExampleBuilder::relu(const std::string& parent, const std::string& local) {
  ModuleInfo m = record("torch_lattice.nn.modules.activation.ReLU", {"torch.nn.modules.activation.ReLU", kModule});
  m.attributes = {{"inplace", fx::Value::boolean(true)}};
  m.signature = positional({"input"});
  return add(parent, local, std::move(m));
}

std::string ExampleBuilder::identity(const std::string& parent, const std::string& local) {
  ModuleInfo m = record("torch.nn.modules.linear.Identity", {kModule});
  m.signature = positional({"input"});
  return add(parent, local, std::move(m));
}

std::string ExampleBuilder::sequential(const std::string& parent, const std::string& local, const std::string& type) {
  ModuleInfo m = type == kSequential ? record(type, {kModule}) : record(type, {kSequential, kModule});
  m.signature = positional({"input"});
  return add(parent, local, std::move(m));
}

void ExampleBuilder::finishSequential(const std::string& path) {
  ModuleInfo* m = m_model.module(path);
  assert(m);
  auto graph = std::make_shared<fx::Graph>();
  fx::Node* current = graph->placeholder("input");
  for (const std::string& child : m->children) current = graph->callModule(child, {fx::Value::node(current)});
  graph->output(fx::Value::node(current));
  m->graph = std::move(graph);
}

std::string ExampleBuilder::moduleList(const std::string& parent, const std::string& local) {
  ModuleInfo m = record("torch.nn.modules.container.ModuleList", {kModule});
  m.signature = {SignatureParam{"input", ParamKind::VarPositional, std::nullopt}};
  return add(parent, local, std::move(m));
}

std::string ExampleBuilder::moduleDict(const std::string& parent, const std::string& local) {
  ModuleInfo m = record("torch.nn.modules.container.ModuleDict", {kModule});
  m.signature = {SignatureParam{"input", ParamKind::VarPositional, std::nullopt}};
  return add(parent, local, std::move(m));
}

std::string ExampleBuilder::convHelper(const std::string& parent, const std::string& local, int64_t in,
                                       int64_t out, Triple kernel, Triple stride, Triple dilation) {
  const bool unit = stride == triple(1);
  return conv(parent, local, unit ? ConvKind::Subm : ConvKind::Conv, in, out, kernel, stride, dilation);
}

std::string ExampleBuilder::convBlock(const std::string& parent, const std::string& local, int64_t in,
                                      int64_t out, Triple kernel, Triple stride) {
  const std::string path = sequential(parent, local, std::string(kBlocks) + "SparseConvBlock");
  convHelper(path, "0", in, out, kernel, stride);
  batchNorm(path, "1", out);
  relu(path, "2");
  finishSequential(path);
  return path;
}

std::string ExampleBuilder::convTransposeBlock(const std::string& parent, const std::string& local, int64_t in,
                                               int64_t out, Triple kernel, Triple stride) {
  const std::string path = sequential(parent, local, std::string(kBlocks) + "SparseConvTransposeBlock");
  conv(path, "0", ConvKind::Transpose, in, out, kernel, stride);
  batchNorm(path, "1", out);
  relu(path, "2");
  finishSequential(path);
  return path;
}

std::string ExampleBuilder::resBlock(const std::string& parent, const std::string& local, int64_t in,
                                     int64_t out, Triple kernel, Triple stride) {
  ModuleInfo block = record(std::string(kBlocks) + "SparseResBlock", {kModule});
  block.signature = positional({"x"});
  const std::string path = add(parent, local, std::move(block));

  const std::string main = sequential(path, "main");
  convHelper(main, "0", in, out, kernel, stride);
  batchNorm(main, "1", out);
  relu(main, "2");
  conv(main, "3", ConvKind::Subm, out, out, kernel);
  batchNorm(main, "4", out);
  finishSequential(main);

  if (in != out || stride[0] * stride[1] * stride[2] != 1) {
    const std::string shortcut = sequential(path, "shortcut");
    convHelper(shortcut, "0", in, out, triple(1), stride);
    batchNorm(shortcut, "1", out);
    finishSequential(shortcut);
  } else {
    identity(path, "shortcut");
  }
  relu(path, "relu");

  // forward: relu(main(x) + shortcut(x))
  auto graph = std::make_shared<fx::Graph>();
  fx::Node* x = graph->placeholder("x");
  fx::Node* mainOut = graph->callModule("main", {fx::Value::node(x)});
  fx::Node* shortcutOut = graph->callModule("shortcut", {fx::Value::node(x)});
  fx::Node* sum = graph->callFunction("operator.add", {fx::Value::node(mainOut), fx::Value::node(shortcutOut)});
  fx::Node* result = graph->callModule("relu", {fx::Value::node(sum)});
  graph->output(fx::Value::node(result));
  m_model.module(path)->graph = std::move(graph);
  return path;
}

} // namespace lattice::examples
