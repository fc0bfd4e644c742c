#pragma once
// Test-only helpers shared by the lowering tests: module records that mirror the torch and
// torch_lattice classes of lowering.md §7 the way an FX archive records them (type, bases,
// attributes, parameter and buffer slots, signature; compare tests/data/conformance/*/model.json),
// container roots with one-level graphs, input specs and small file helpers. Header-only so each
// tst_*.cpp stays a single translation unit.

#include "fx/Graph.h"
#include "model/Model.h"
#include "tensor/TensorData.h"

#include <array>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace lattice::testmodels {

using Triple = std::array<int64_t, 3>;

inline const std::string kModule = "torch.nn.modules.module.Module";

// --- tensors -------------------------------------------------------------------------------------

inline TensorData f32(std::vector<int64_t> shape, const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return TensorData::owning(DType::F32, std::move(shape), std::move(bytes));
}

/// Elements `start, start + step, ...` in row-major order (torch.arange(...).reshape(shape)).
inline TensorData arange(std::vector<int64_t> shape, float start = 0.0f, float step = 1.0f) {
  std::vector<float> values(static_cast<std::size_t>(shapeNumel(shape)));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = start + step * static_cast<float>(i);
  return f32(std::move(shape), values);
}

inline TensorData filled(std::vector<int64_t> shape, float value) {
  std::vector<float> values(static_cast<std::size_t>(shapeNumel(shape)), value);
  return f32(std::move(shape), values);
}

inline std::vector<float> floatsOf(const TensorData& t) {
  std::vector<float> out(static_cast<std::size_t>(t.numel()));
  if (!out.empty()) std::memcpy(out.data(), t.data(), out.size() * sizeof(float));
  return out;
}

// --- values --------------------------------------------------------------------------------------

inline fx::Value tupleOf(const Triple& t) {
  return fx::Value::tuple({fx::Value::integer(t[0]), fx::Value::integer(t[1]), fx::Value::integer(t[2])});
}

inline std::vector<SignatureParam> positional(std::initializer_list<const char*> names) {
  std::vector<SignatureParam> out;
  for (const char* n : names) out.push_back({n, ParamKind::PositionalOrKeyword, std::nullopt});
  return out;
}

// --- module records ------------------------------------------------------------------------------

inline ModuleInfo record(std::string type, std::vector<std::string> bases) {
  ModuleInfo m;
  m.type = std::move(type);
  m.bases = std::move(bases);
  if (m.bases.empty() || m.bases.back() != kModule) m.bases.push_back(kModule);
  m.signature = positional({"input"});
  return m;
}

/// Adds `module` at `path` (its parent must exist), lists it among the parent's children and
/// registers `tensors` (state_dict key → tensor) with the model.
inline ModuleInfo& attach(Model& model, const std::string& path, ModuleInfo module) {
  module.path = path;
  if (!path.empty()) model.module(parentPath(path))->children.push_back(localName(path));
  return model.addModule(std::move(module));
}

/// Sets parameter (or buffer) `slot` of `module` to `tensor` under key `<path>.<slot>`; the module
/// must not be attached yet. A null tensor records a None slot.
inline void setSlot(Model& model, ModuleInfo& module, const std::string& path, const std::string& slot,
                    const TensorData* tensor, bool buffer = false) {
  auto& slots = buffer ? module.buffers : module.parameters;
  if (!tensor) {
    slots.emplace_back(slot, std::nullopt);
    return;
  }
  const std::string key = path.empty() ? slot : path + "." + slot;
  slots.emplace_back(slot, TensorRecord{key, tensor->dtype(), tensor->shape()});
  model.setTensor(key, *tensor);
}

struct ConvSpec {
  int64_t in = 2;
  int64_t out = 3;
  Triple kernel{1, 1, 1};
  Triple stride{1, 1, 1};
  Triple padding{0, 0, 0};
  Triple dilation{1, 1, 1};
  bool bias = false;
  double eps = 1e-8;
  /// The `(K, in, out)` weight; default: 0.01 * arange.
  std::optional<TensorData> weight;
};

/// torch_lattice.nn.modules.conv.<cls> (§7.1): Conv3d, SubmConv3d, NormalizedSubmConv3d,
/// ConvTranspose3d, NormalizedConvTranspose3d, GenerativeConvTranspose3d,
/// NormalizedGenerativeConvTranspose3d.
inline ModuleInfo& addConv(Model& model, const std::string& path, const std::string& cls, ConvSpec s) {
  const std::string ns = "torch_lattice.nn.modules.conv.";
  std::vector<std::string> bases;
  const bool normalized = cls.rfind("Normalized", 0) == 0;
  if (normalized) bases.push_back(ns + cls.substr(std::strlen("Normalized")));
  bases.push_back(ns + "_BaseConv3d");
  ModuleInfo m = record(ns + cls, bases);
  const bool subm = cls.find("SubmConv3d") != std::string::npos;
  const bool transposed = cls.find("Transpose") != std::string::npos;
  const bool generative = cls.find("Generative") != std::string::npos;
  if (subm)
    for (int i = 0; i < 3; ++i) s.padding[i] = s.dilation[i] * (s.kernel[i] - 1) / 2;
  const int64_t volume = s.kernel[0] * s.kernel[1] * s.kernel[2];
  m.attributes = {{"in_channels", fx::Value::integer(s.in)},
                  {"out_channels", fx::Value::integer(s.out)},
                  {"kernel_size", tupleOf(s.kernel)},
                  {"stride", tupleOf(s.stride)},
                  {"dilation", tupleOf(s.dilation)},
                  {"padding", tupleOf(s.padding)},
                  {"subm", fx::Value::boolean(subm)},
                  {"transposed", fx::Value::boolean(transposed)},
                  {"generative", fx::Value::boolean(generative)},
                  {"normalized", fx::Value::boolean(normalized)},
                  {"eps", fx::Value::floating(s.eps)},
                  {"kernel_volume", fx::Value::integer(volume)}};
  const TensorData weight = s.weight ? *s.weight : arange({volume, s.in, s.out}, 0.0f, 0.01f);
  setSlot(model, m, path, "weight", &weight);
  const TensorData bias = arange({s.out}, 0.5f, 0.25f);
  setSlot(model, m, path, "bias", s.bias ? &bias : nullptr);
  std::vector<int32_t> positions;
  for (int64_t x = 0; x < s.kernel[0]; ++x)
    for (int64_t y = 0; y < s.kernel[1]; ++y)
      for (int64_t z = 0; z < s.kernel[2]; ++z)
        for (int64_t v : {x, y, z}) positions.push_back(static_cast<int32_t>(v));
  std::vector<uint8_t> bytes(positions.size() * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), positions.data(), bytes.size());
  const TensorData kp = TensorData::owning(DType::I32, {volume, 3}, std::move(bytes));
  setSlot(model, m, path, "kernel_positions", &kp, true);
  m.signature = positional({"input"});
  m.signature.push_back({"coordinates", ParamKind::PositionalOrKeyword, fx::Value::none()});
  return attach(model, path, std::move(m));
}

/// torch_lattice.nn.modules.norm.BatchNorm(C) (§7.3), eval-mode stats.
inline ModuleInfo& addBatchNorm(Model& model, const std::string& path, int64_t c, bool affine = true,
                                bool trackRunningStats = true) {
  ModuleInfo m = record("torch_lattice.nn.modules.norm.BatchNorm",
                        {"torch.nn.modules.batchnorm.BatchNorm1d", "torch.nn.modules.batchnorm._BatchNorm",
                         "torch.nn.modules.batchnorm._NormBase"});
  m.attributes = {{"num_features", fx::Value::integer(c)}, {"eps", fx::Value::floating(1e-5)},
                  {"momentum", fx::Value::floating(0.1)}, {"affine", fx::Value::boolean(affine)},
                  {"track_running_stats", fx::Value::boolean(trackRunningStats)}};
  const TensorData w = arange({c}, 1.0f, 0.5f), b = arange({c}, -0.5f, 0.25f);
  setSlot(model, m, path, "weight", affine ? &w : nullptr);
  setSlot(model, m, path, "bias", affine ? &b : nullptr);
  const TensorData mean = arange({c}, 0.1f, 0.1f), var = arange({c}, 1.0f, 0.5f);
  const TensorData tracked = TensorData::zeros(DType::I64, {});
  setSlot(model, m, path, "running_mean", trackRunningStats ? &mean : nullptr, true);
  setSlot(model, m, path, "running_var", trackRunningStats ? &var : nullptr, true);
  setSlot(model, m, path, "num_batches_tracked", trackRunningStats ? &tracked : nullptr, true);
  return attach(model, path, std::move(m));
}

/// An activation: `torch_lattice` true gives torch_lattice.nn.modules.activation.<cls> (a subclass
/// of the torch class), false the plain torch.nn class. `attributes` as the class stores them.
inline ModuleInfo& addActivation(Model& model, const std::string& path, const std::string& cls,
                                 fx::Kwargs attributes = {}, bool torchLattice = true) {
  const std::string torchType = "torch.nn.modules.activation." + cls;
  ModuleInfo m = torchLattice ? record("torch_lattice.nn.modules.activation." + cls, {torchType})
                              : record(torchType, {});
  m.attributes = std::move(attributes);
  return attach(model, path, std::move(m));
}

/// torch_lattice.nn.modules.pooling.GlobalAvgPool / GlobalMaxPool / GlobalSumPool.
inline ModuleInfo& addGlobalPool(Model& model, const std::string& path, const std::string& cls) {
  ModuleInfo m = record("torch_lattice.nn.modules.pooling." + cls, {});
  m.signature.push_back({"batch_size", ParamKind::KeywordOnly, fx::Value::none()});
  return attach(model, path, std::move(m));
}

/// torch_lattice.nn.modules.pooling.<cls> for SumPool3d / MaxPool3d / AvgPool3d (bases Pool3d);
/// attributes stored raw.
inline ModuleInfo& addPool3d(Model& model, const std::string& path, const std::string& cls,
                             const std::string& mode, fx::Value kernel, fx::Value stride,
                             fx::Value padding = fx::Value::integer(0),
                             fx::Value dilation = fx::Value::integer(1)) {
  ModuleInfo m = record("torch_lattice.nn.modules.pooling." + cls, {"torch_lattice.nn.modules.pooling.Pool3d"});
  m.attributes = {{"mode", fx::Value::string(mode)}, {"kernel_size", kernel}, {"stride", stride},
                  {"padding", padding}, {"dilation", dilation}};
  return attach(model, path, std::move(m));
}

inline ModuleInfo& addPoolTranspose3d(Model& model, const std::string& path, int64_t kernel, int64_t stride) {
  ModuleInfo m = record("torch_lattice.nn.modules.pooling.PoolTranspose3d", {});
  m.attributes = {{"kernel_size", fx::Value::integer(kernel)}, {"stride", fx::Value::integer(stride)},
                  {"padding", fx::Value::integer(0)}, {"dilation", fx::Value::integer(1)}};
  m.signature.push_back({"coordinates", ParamKind::PositionalOrKeyword, fx::Value::none()});
  return attach(model, path, std::move(m));
}

inline ModuleInfo& addTrilinearUpsample3d(Model& model, const std::string& path, int64_t stride) {
  ModuleInfo m = record("torch_lattice.nn.modules.pooling.TrilinearUpsample3d", {});
  m.attributes = {{"stride", fx::Value::integer(stride)}};
  m.signature.push_back({"coordinates", ParamKind::PositionalOrKeyword, fx::Value::none()});
  return attach(model, path, std::move(m));
}

/// LayerNorm(C): torch_lattice's (a torch LayerNorm subclass) or torch.nn's.
inline ModuleInfo& addLayerNorm(Model& model, const std::string& path, int64_t c, bool torchLattice = true) {
  const std::string torchType = "torch.nn.modules.normalization.LayerNorm";
  ModuleInfo m = torchLattice ? record("torch_lattice.nn.modules.norm.LayerNorm", {torchType})
                              : record(torchType, {});
  m.attributes = {{"normalized_shape", fx::Value::tuple({fx::Value::integer(c)})},
                  {"eps", fx::Value::floating(1e-5)}, {"elementwise_affine", fx::Value::boolean(true)}};
  const TensorData w = filled({c}, 1.0f), b = filled({c}, 0.0f);
  setSlot(model, m, path, "weight", &w);
  setSlot(model, m, path, "bias", &b);
  return attach(model, path, std::move(m));
}

/// torch_lattice.nn.modules.norm.RMSNorm(C) (a plain Module subclass, eps 1e-6).
inline ModuleInfo& addRmsNorm(Model& model, const std::string& path, int64_t c) {
  ModuleInfo m = record("torch_lattice.nn.modules.norm.RMSNorm", {});
  m.attributes = {{"normalized_shape", fx::Value::tuple({fx::Value::integer(c)})},
                  {"eps", fx::Value::floating(1e-6)}, {"elementwise_affine", fx::Value::boolean(true)}};
  const TensorData w = filled({c}, 1.0f);
  setSlot(model, m, path, "weight", &w);
  return attach(model, path, std::move(m));
}

/// torch.nn.Linear(in, out) with weight 0.1 * arange and bias.
inline ModuleInfo& addLinear(Model& model, const std::string& path, int64_t in, int64_t out, bool bias = true) {
  ModuleInfo m = record("torch.nn.modules.linear.Linear", {});
  m.attributes = {{"in_features", fx::Value::integer(in)}, {"out_features", fx::Value::integer(out)}};
  const TensorData w = arange({out, in}, -0.2f, 0.1f), b = arange({out}, 0.25f, 0.5f);
  setSlot(model, m, path, "weight", &w);
  setSlot(model, m, path, "bias", bias ? &b : nullptr);
  return attach(model, path, std::move(m));
}

inline ModuleInfo& addDropout(Model& model, const std::string& path, double p, bool training) {
  ModuleInfo m = record("torch.nn.modules.dropout.Dropout", {"torch.nn.modules.dropout._DropoutNd"});
  m.attributes = {{"p", fx::Value::floating(p)}, {"inplace", fx::Value::boolean(false)}};
  m.training = training;
  return attach(model, path, std::move(m));
}

inline ModuleInfo& addFlatten(Model& model, const std::string& path, int64_t startDim = 1, int64_t endDim = -1) {
  ModuleInfo m = record("torch.nn.modules.flatten.Flatten", {});
  m.attributes = {{"start_dim", fx::Value::integer(startDim)}, {"end_dim", fx::Value::integer(endDim)}};
  return attach(model, path, std::move(m));
}

inline ModuleInfo& addIdentity(Model& model, const std::string& path) {
  return attach(model, path, record("torch.nn.modules.linear.Identity", {}));
}

/// torch_lattice.nn.modules.norm.InstanceNorm(C) (a torch InstanceNorm1d subclass).
inline ModuleInfo& addInstanceNorm(Model& model, const std::string& path, int64_t c) {
  ModuleInfo m = record("torch_lattice.nn.modules.norm.InstanceNorm",
                        {"torch.nn.modules.instancenorm.InstanceNorm1d", "torch.nn.modules.instancenorm._InstanceNorm",
                         "torch.nn.modules.batchnorm._NormBase"});
  m.attributes = {{"num_features", fx::Value::integer(c)}, {"eps", fx::Value::floating(1e-5)},
                  {"affine", fx::Value::boolean(false)}, {"track_running_stats", fx::Value::boolean(false)}};
  return attach(model, path, std::move(m));
}

/// torch_lattice.nn.modules.norm.GroupNorm(groups, C) (a torch GroupNorm subclass).
inline ModuleInfo& addGroupNorm(Model& model, const std::string& path, int64_t groups, int64_t c) {
  ModuleInfo m = record("torch_lattice.nn.modules.norm.GroupNorm", {"torch.nn.modules.normalization.GroupNorm"});
  m.attributes = {{"num_groups", fx::Value::integer(groups)}, {"num_channels", fx::Value::integer(c)},
                  {"eps", fx::Value::floating(1e-5)}, {"affine", fx::Value::boolean(true)}};
  const TensorData w = filled({c}, 1.0f), b = filled({c}, 0.0f);
  setSlot(model, m, path, "weight", &w);
  setSlot(model, m, path, "bias", &b);
  return attach(model, path, std::move(m));
}

inline ModuleInfo& addSparseCrop(Model& model, const std::string& path) {
  ModuleInfo m = record("torch_lattice.nn.modules.crop.SparseCrop", {});
  m.attributes = {{"coords_min", fx::Value::tuple({fx::Value::integer(0), fx::Value::integer(0), fx::Value::integer(0)})},
                  {"coords_max", fx::Value::tuple({fx::Value::integer(1), fx::Value::integer(1), fx::Value::integer(1)})}};
  return attach(model, path, std::move(m));
}

// --- roots ---------------------------------------------------------------------------------------

/// A model whose root is a user module `type` with forward parameters `signature`; the test adds
/// children and sets the root graph with setRootGraph.
inline Model customModel(std::vector<SignatureParam> signature, const std::string& type = "tests.lowering.Net") {
  Model model;
  ModuleInfo root = record(type, {});
  root.signature = std::move(signature);
  model.addModule(std::move(root));
  model.source = "test";
  return model;
}

inline void setRootGraph(Model& model, std::shared_ptr<fx::Graph> graph) { model.module("")->graph = std::move(graph); }

/// A root `torch.nn.Sequential` (forward(input)); call finishSequential after adding "0", "1", ....
inline Model sequentialModel() {
  Model model;
  ModuleInfo root = record("torch.nn.modules.container.Sequential", {});
  model.addModule(std::move(root));
  model.source = "test";
  return model;
}

/// A chain forward over the root's first forward parameter: x → child 0 → child 1 → ... → output
/// (the Sequential forward when the root is a Sequential).
inline void finishSequential(Model& model) {
  auto graph = std::make_shared<fx::Graph>();
  fx::Node* last = graph->placeholder(model.root().signature.at(0).name);
  for (const std::string& child : model.root().children) last = graph->callModule(child, {fx::Value::node(last)});
  graph->output(fx::Value::node(last));
  setRootGraph(model, graph);
}

/// A model whose root is a lone module (the direct path); `add` builds it at path "".
inline Model rootModel(const std::function<void(Model&)>& add) {
  Model model;
  add(model);
  model.source = "test";
  return model;
}

// --- inputs --------------------------------------------------------------------------------------

inline InputSpec sparseInput(const std::string& name, std::optional<int64_t> channels, std::string dtype = "f32",
                             Triple stride = {1, 1, 1}) {
  InputSpec s;
  s.name = name;
  s.kind = InputSpec::Kind::Sparse;
  s.dtype = std::move(dtype);
  s.channels = channels;
  s.stride = stride;
  return s;
}

/// A Sequential root of conv "0" (SubmConv3d 2 → 3, kernel 3) and conv "1" (`secondClass` 3 → 4,
/// kernel 3), with one sparse example input of 2 channels.
inline Model twoConvModel(const std::string& secondClass) {
  Model m = sequentialModel();
  ConvSpec a;
  a.in = 2;
  a.out = 3;
  a.kernel = {3, 3, 3};
  addConv(m, "0", "SubmConv3d", a);
  ConvSpec b;
  b.in = 3;
  b.out = 4;
  b.kernel = {3, 3, 3};
  addConv(m, "1", secondClass, b);
  finishSequential(m);
  m.exampleInputs = {sparseInput("input", 2)};
  return m;
}

inline InputSpec denseInput(const std::string& name, const std::string& type, std::optional<int64_t> channels) {
  InputSpec s;
  s.name = name;
  s.kind = InputSpec::Kind::Dense;
  s.type = type;
  const std::size_t x = type.rfind('x');
  s.dtype = type.substr(x == std::string::npos ? 7 : x + 1, type.size() - (x == std::string::npos ? 7 : x + 1) - 1);
  s.channels = channels;
  return s;
}

// --- files and text ------------------------------------------------------------------------------

inline std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::size_t countOf(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + needle.size())) ++n;
  return n;
}

} // namespace lattice::testmodels
