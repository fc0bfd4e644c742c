// Tests for the built-in examples. Parameter and buffer counts, subtotals and tensor shapes are
// the figures of lowering.md §8.2/§8.3; kernel_positions rows are worked out by hand from §7.1;
// record conventions (attribute names, BatchNorm bases, conv signature) are compared with the
// conformance archives' JSON; graph structure follows §8's forward descriptions.

#include "fx/JsonEncoding.h"
#include "model/Archive.h"
#include "model/Examples.h"
#include "model/LoadModel.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <fstream>

using namespace lattice;

Q_DECLARE_METATYPE(std::vector<int64_t>)

namespace {

const std::string kConformance = std::string(LATTICE_TEST_DATA_DIR) + "/conformance/models/";

bool under(const std::string& path, const std::string& prefix) {
  return prefix.empty() || path == prefix || path.rfind(prefix + ".", 0) == 0;
}

struct Counts {
  int64_t paramElements = 0;
  int paramTensors = 0;
  int64_t bufferElements = 0;
  int bufferTensors = 0;
};

Counts count(const Model& model, const std::string& prefix = {}) {
  Counts c;
  for (const ModuleInfo& m : model.modules()) {
    if (!under(m.path, prefix)) continue;
    for (const auto& [name, record] : m.parameters)
      if (record) {
        c.paramElements += shapeNumel(record->shape);
        ++c.paramTensors;
      }
    for (const auto& [name, record] : m.buffers)
      if (record) {
        c.bufferElements += shapeNumel(record->shape);
        ++c.bufferTensors;
      }
  }
  return c;
}

int countType(const Model& model, const std::string& type) {
  int n = 0;
  for (const ModuleInfo& m : model.modules()) n += m.type == type;
  return n;
}

Model byName(const QString& name, uint64_t seed = 0) {
  return name == QLatin1String("resnet") ? makeSparseResNet21D(seed) : makeSparseResUNet42(seed);
}

std::vector<std::string> nodeNames(const fx::Graph& g) {
  std::vector<std::string> names;
  for (const fx::Node& n : g.nodes()) names.push_back(n.name());
  return names;
}

std::vector<std::string> refNames(const fx::Value& list) {
  std::vector<std::string> names;
  for (const fx::Value& v : list.items()) names.push_back(v.isNode() ? v.asNode()->name() : "?");
  return names;
}

std::vector<int64_t> ints(const fx::Value& v) {
  std::vector<int64_t> out;
  for (const fx::Value& item : v.items()) out.push_back(item.asInt());
  return out;
}

std::vector<int32_t> int32s(const TensorData& t) {
  std::vector<int32_t> out(static_cast<std::size_t>(t.numel()));
  std::memcpy(out.data(), t.data(), t.byteSize());
  return out;
}

std::vector<float> floats(const TensorData& t) {
  std::vector<float> out(static_cast<std::size_t>(t.numel()));
  std::memcpy(out.data(), t.data(), t.byteSize());
  return out;
}

nlohmann::json conformanceModule(const std::string& archive, const std::string& path) {
  std::ifstream in(kConformance + archive + "/model.ltfx/model.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  for (const auto& m : doc["modules"])
    if (m["path"] == path) return m;
  return {};
}

bool isLibraryLeaf(const ModuleInfo& m) {
  return m.type.rfind("torch_lattice.nn.", 0) == 0 || m.type == "torch.nn.modules.linear.Identity";
}

} // namespace

class TestExamples : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void totals_data();
  void totals();
  void subtotals_data();
  void subtotals();
  void shapes_data();
  void shapes();
  void records();
  void recordsMatchConformanceConventions();
  void kernelPositions();
  void initialisation();
  void determinism();
  void consistency_data();
  void consistency();
  void resnetGraphs();
  void unetGraph();
  void chain();
  void loadModelReferences_data();
  void loadModelReferences();
  void exampleRoundTrip();
};

void TestExamples::totals_data() {
  QTest::addColumn<QString>("model");
  QTest::addColumn<qint64>("params");
  QTest::addColumn<int>("paramTensors");
  QTest::addColumn<qint64>("bufferElements");
  QTest::addColumn<int>("convs");
  QTest::newRow("resnet") << QStringLiteral("resnet") << qint64(2693920) << 63 << qint64(4306) << 21;
  QTest::newRow("unet") << QStringLiteral("unet") << qint64(21721472) << 147 << qint64(15304) << 49;
}

void TestExamples::totals() {
  QFETCH(QString, model);
  QFETCH(qint64, params);
  QFETCH(int, paramTensors);
  QFETCH(qint64, bufferElements);
  QFETCH(int, convs);
  const Model m = byName(model);
  const Counts c = count(m);
  QCOMPARE(qint64(c.paramElements), params);
  QCOMPARE(c.paramTensors, paramTensors);
  QCOMPARE(qint64(c.bufferElements), bufferElements);
  QCOMPARE(countType(m, "torch_lattice.nn.modules.norm.BatchNorm"), convs);
  int convCount = 0;
  for (const ModuleInfo& mod : m.modules()) convCount += mod.isA("torch_lattice.nn.modules.conv._BaseConv3d");
  QCOMPARE(convCount, convs);
  // Every conv has weight + kernel_positions, every BN weight, bias + 3 buffers.
  QCOMPARE(c.bufferTensors, convs + 3 * convs);
  uint64_t bytes = 0;
  for (const auto& [key, t] : m.tensors()) bytes += t.byteSize();
  QCOMPARE(m.weightBytes(), bytes);
}

void TestExamples::subtotals_data() {
  QTest::addColumn<QString>("model");
  QTest::addColumn<QString>("prefix");
  QTest::addColumn<qint64>("params");
  auto row = [](const char* model, const char* prefix, qint64 params) {
    QTest::newRow((std::string(model) + " " + prefix).c_str()) << QString::fromUtf8(model) << QString::fromUtf8(prefix) << params;
  };
  // lowering.md §8.2 stage table and subtotals.
  row("resnet", "0", 29536);
  row("resnet", "1", 124736);
  row("resnet", "2", 498304);
  row("resnet", "3", 1991936);
  row("resnet", "4", 49408);
  row("resnet", "0.0.0", 1728);
  row("resnet", "0.1.main.0", 6912);
  row("resnet", "0.2", 13888);
  row("resnet", "1.0.0", 13824);
  row("resnet", "1.1", 55424);
  row("resnet", "2.0.0", 55296);
  row("resnet", "2.2", 221440);
  row("resnet", "3.0.0", 221184);
  row("resnet", "3.1", 885248);
  row("resnet", "4.0.0", 49152);
  row("resnet", "4.0.1", 256);
  // lowering.md §8.3.
  row("unet", "stem", 31232);
  row("unet", "encoders.0", 119104);
  row("unet", "encoders.1", 398016);
  row("unet", "encoders.2", 1590656);
  row("unet", "encoders.3", 6359808);
  row("unet", "decoders.0", 8588288);
  row("unet", "decoders.1", 2278912);
  row("unet", "decoders.2", 1190016);
  row("unet", "decoders.3", 1165440);
}

void TestExamples::subtotals() {
  QFETCH(QString, model);
  QFETCH(QString, prefix);
  QFETCH(qint64, params);
  const Model m = byName(model);
  QVERIFY(m.module(prefix.toStdString()));
  QCOMPARE(qint64(count(m, prefix.toStdString()).paramElements), params);
}

void TestExamples::shapes_data() {
  QTest::addColumn<QString>("model");
  QTest::addColumn<QString>("key");
  QTest::addColumn<QString>("dtype");
  QTest::addColumn<std::vector<int64_t>>("shape");
  auto row = [](const char* model, const char* key, const char* dtype, std::vector<int64_t> shape) {
    QTest::newRow(key) << QString::fromUtf8(model) << QString::fromUtf8(key) << QString::fromUtf8(dtype) << shape;
  };
  row("resnet", "0.0.0.weight", "F32", {27, 4, 16});
  row("resnet", "1.0.0.weight", "F32", {27, 16, 32});
  row("resnet", "3.2.main.3.weight", "F32", {27, 128, 128});
  row("resnet", "4.0.0.weight", "F32", {3, 128, 128});
  row("resnet", "4.0.0.kernel_positions", "I32", {3, 3});
  row("resnet", "0.0.1.running_mean", "F32", {16});
  row("resnet", "0.0.1.num_batches_tracked", "I64", {});
  row("unet", "stem.0.weight", "F32", {27, 4, 32});
  row("unet", "encoders.0.0.0.weight", "F32", {8, 32, 32});
  row("unet", "encoders.1.1.shortcut.0.weight", "F32", {1, 32, 64});
  row("unet", "decoders.0.upsample.0.weight", "F32", {8, 256, 256});
  row("unet", "decoders.1.upsample.0.weight", "F32", {8, 256, 128});
  row("unet", "decoders.0.fuse.0.shortcut.0.weight", "F32", {1, 384, 256});
  row("unet", "decoders.3.fuse.0.main.0.weight", "F32", {27, 128, 96});
  row("unet", "decoders.3.fuse.1.main.4.bias", "F32", {96});
}

void TestExamples::shapes() {
  QFETCH(QString, model);
  QFETCH(QString, key);
  QFETCH(QString, dtype);
  QFETCH(std::vector<int64_t>, shape);
  const Model m = byName(model);
  const TensorData* t = m.tensor(key.toStdString());
  QVERIFY(t);
  QCOMPARE(QString::fromLatin1(dtypeName(t->dtype()).data()), dtype);
  QCOMPARE(t->shape(), shape);
}

void TestExamples::records() {
  const Model r = makeSparseResNet21D();
  QCOMPARE(r.root().type, std::string("torch_lattice.backbones.resnet.SparseResNet21D"));
  QCOMPARE(r.root().bases, (std::vector<std::string>{"torch_lattice.backbones.resnet.SparseResNet",
                                                     "torch.nn.modules.container.ModuleList",
                                                     "torch.nn.modules.module.Module"}));
  QCOMPARE(r.root().children, (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  QCOMPARE(r.root().attribute("in_channels")->asInt(), int64_t(4));
  QCOMPARE(r.root().attribute("blocks")->items().size(), std::size_t(5));
  QCOMPARE(r.module("0")->type, std::string("torch.nn.modules.container.Sequential"));
  QCOMPARE(r.module("0")->bases, (std::vector<std::string>{"torch.nn.modules.module.Module"}));
  QCOMPARE(r.module("0.0")->type, std::string("torch_lattice.backbones.modules.blocks.SparseConvBlock"));
  QVERIFY(r.module("0.0")->isA("torch.nn.modules.container.Sequential"));
  QCOMPARE(r.module("0.1")->type, std::string("torch_lattice.backbones.modules.blocks.SparseResBlock"));
  QCOMPARE(r.module("0.1")->children, (std::vector<std::string>{"main", "shortcut", "relu"}));
  QCOMPARE(r.module("0.1.shortcut")->type, std::string("torch.nn.modules.linear.Identity"));
  QCOMPARE(r.module("0.0.2")->type, std::string("torch_lattice.nn.modules.activation.ReLU"));
  QCOMPARE(*r.module("0.0.2")->attribute("inplace"), fx::Value::boolean(true));

  const ModuleInfo* subm = r.module("0.0.0");
  QCOMPARE(subm->className(), std::string("SubmConv3d"));
  QCOMPARE(ints(*subm->attribute("padding")), (std::vector<int64_t>{1, 1, 1}));
  QCOMPARE(subm->attribute("subm")->asBool(), true);
  const ModuleInfo* down = r.module("1.0.0");
  QCOMPARE(down->className(), std::string("Conv3d"));
  QCOMPARE(ints(*down->attribute("stride")), (std::vector<int64_t>{2, 2, 2}));
  QCOMPARE(ints(*down->attribute("padding")), (std::vector<int64_t>{0, 0, 0}));
  QCOMPARE(down->attribute("subm")->asBool(), false);
  const ModuleInfo* last = r.module("4.0.0");
  QCOMPARE(ints(*last->attribute("kernel_size")), (std::vector<int64_t>{1, 3, 1}));
  QCOMPARE(ints(*last->attribute("stride")), (std::vector<int64_t>{1, 2, 1}));
  QCOMPARE(last->attribute("kernel_volume")->asInt(), int64_t(3));
  QVERIFY(!last->parameters[1].second); // bias=False: a None slot
  QCOMPARE(last->parameters[1].first, std::string("bias"));

  const Model u = makeSparseResUNet42();
  QCOMPARE(u.root().type, std::string("torch_lattice.backbones.unet.SparseResUNet42"));
  QCOMPARE(u.root().children, (std::vector<std::string>{"stem", "encoders", "decoders"}));
  QCOMPARE(u.module("encoders")->type, std::string("torch.nn.modules.container.ModuleList"));
  QCOMPARE(u.module("decoders.0")->type, std::string("torch.nn.modules.container.ModuleDict"));
  QCOMPARE(u.module("decoders.0")->children, (std::vector<std::string>{"upsample", "fuse"}));
  QCOMPARE(u.module("decoders.0.upsample")->type, std::string("torch_lattice.backbones.modules.blocks.SparseConvTransposeBlock"));
  const ModuleInfo* up = u.module("decoders.0.upsample.0");
  QCOMPARE(up->className(), std::string("ConvTranspose3d"));
  QCOMPARE(up->attribute("transposed")->asBool(), true);
  QCOMPARE(ints(*up->attribute("stride")), (std::vector<int64_t>{2, 2, 2}));
  const ModuleInfo* k1 = u.module("encoders.1.1.shortcut.0");
  QCOMPARE(k1->className(), std::string("SubmConv3d"));
  QCOMPARE(ints(*k1->attribute("padding")), (std::vector<int64_t>{0, 0, 0}));
  QCOMPARE(u.module("encoders.0.1.shortcut")->type, std::string("torch.nn.modules.linear.Identity"));
  QCOMPARE(u.module("encoders.0.0.0")->className(), std::string("Conv3d"));
  QCOMPARE(u.exampleInputs.size(), std::size_t(1));
  QCOMPARE(u.exampleInputs[0].channels, std::optional<int64_t>(4));
}

// Conv, BatchNorm and ReLU records use the conformance archives' attribute names (in order),
// bases and signatures.
void TestExamples::recordsMatchConformanceConventions() {
  const Model r = makeSparseResNet21D();
  auto names = [](const ModuleInfo& m) {
    std::vector<std::string> out;
    for (const auto& kv : m.attributes) out.push_back(kv.first);
    return out;
  };
  auto keys = [](const nlohmann::json& object) {
    std::vector<std::string> out;
    for (auto it = object.begin(); it != object.end(); ++it) out.push_back(it.key());
    return out;
  };
  auto sortedNames = [&](const ModuleInfo& m) {
    auto out = names(m);
    std::sort(out.begin(), out.end());
    return out;
  };
  // nlohmann::json sorts keys, so compare as sets here; order is checked by tst_archive.
  const nlohmann::json conv = conformanceModule("canonical_kernel_layout", "conv");
  QCOMPARE(sortedNames(*r.module("0.0.0")), keys(conv["attributes"]));
  QCOMPARE(r.module("0.0.0")->bases, conv["bases"].get<std::vector<std::string>>());
  QCOMPARE(r.module("0.0.0")->signature.size(), conv["signature"].size());
  QCOMPARE(r.module("0.0.0")->signature[1].name, std::string("coordinates"));
  QVERIFY(r.module("0.0.0")->signature[1].defaultValue == fx::Value::none());
  QCOMPARE(names(*r.module("0.0.0")).front(), std::string("in_channels"));

  const nlohmann::json norm = conformanceModule("sparse_classifier", "norm");
  QCOMPARE(r.module("0.0.1")->type, norm["type"].get<std::string>());
  QCOMPARE(r.module("0.0.1")->bases, norm["bases"].get<std::vector<std::string>>());
  QCOMPARE(sortedNames(*r.module("0.0.1")), keys(norm["attributes"]));
  QCOMPARE(r.module("0.0.1")->attribute("eps")->asFloat(), norm["attributes"]["eps"].get<double>());
  const nlohmann::json act = conformanceModule("sparse_classifier", "act");
  QCOMPARE(r.module("0.0.2")->bases, act["bases"].get<std::vector<std::string>>());
  QCOMPARE(r.module("0.0.2")->signature.size(), act["signature"].size());
}

void TestExamples::kernelPositions() {
  const Model r = makeSparseResNet21D();
  // k = (3,3,3): r = (x*3 + y)*3 + z.
  const std::vector<int32_t> k3 = int32s(*r.tensor("0.0.0.kernel_positions"));
  QCOMPARE(k3.size(), std::size_t(81));
  auto rowOf = [](const std::vector<int32_t>& t, int r) { return std::vector<int32_t>{t[3 * r], t[3 * r + 1], t[3 * r + 2]}; };
  QCOMPARE(rowOf(k3, 0), (std::vector<int32_t>{0, 0, 0}));
  QCOMPARE(rowOf(k3, 1), (std::vector<int32_t>{0, 0, 1}));
  QCOMPARE(rowOf(k3, 3), (std::vector<int32_t>{0, 1, 0}));
  QCOMPARE(rowOf(k3, 5), (std::vector<int32_t>{0, 1, 2}));
  QCOMPARE(rowOf(k3, 13), (std::vector<int32_t>{1, 1, 1}));
  QCOMPARE(rowOf(k3, 22), (std::vector<int32_t>{2, 1, 1}));
  QCOMPARE(rowOf(k3, 26), (std::vector<int32_t>{2, 2, 2}));
  // k = (1,3,1): only y varies.
  QCOMPARE(int32s(*r.tensor("4.0.0.kernel_positions")), (std::vector<int32_t>{0, 0, 0, 0, 1, 0, 0, 2, 0}));
  // k = (2,2,2).
  const Model u = makeSparseResUNet42();
  QCOMPARE(int32s(*u.tensor("encoders.0.0.0.kernel_positions")),
           (std::vector<int32_t>{0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1}));
  QCOMPARE(int32s(*u.tensor("encoders.1.1.shortcut.0.kernel_positions")), (std::vector<int32_t>{0, 0, 0}));
}

void TestExamples::initialisation() {
  const Model u = makeSparseResUNet42(7);
  struct Case {
    const char* key;
    double bound; // 1/sqrt(fan * kernel_volume), fan = in (out for transposed)
  };
  for (const Case& c : {Case{"stem.0.weight", 1.0 / std::sqrt(4.0 * 27)},
                        Case{"encoders.0.0.0.weight", 1.0 / std::sqrt(32.0 * 8)},
                        Case{"decoders.0.fuse.0.shortcut.0.weight", 1.0 / std::sqrt(384.0)},
                        Case{"decoders.1.upsample.0.weight", 1.0 / std::sqrt(128.0 * 8)}}) {
    const std::vector<float> w = floats(*u.tensor(c.key));
    float lo = 0, hi = 0;
    double sum = 0;
    for (float v : w) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    QVERIFY2(hi <= float(c.bound) && lo >= -float(c.bound), c.key);
    // Thousands of uniform draws come close to both ends and average near zero.
    QVERIFY2(hi > 0.95 * c.bound && lo < -0.95 * c.bound, c.key);
    QVERIFY2(std::abs(sum / double(w.size())) < 0.05 * c.bound, c.key);
  }
  QCOMPARE(floats(*u.tensor("stem.1.weight")), std::vector<float>(32, 1.0f));
  QCOMPARE(floats(*u.tensor("stem.1.bias")), std::vector<float>(32, 0.0f));
  QCOMPARE(floats(*u.tensor("stem.1.running_mean")), std::vector<float>(32, 0.0f));
  QCOMPARE(floats(*u.tensor("stem.1.running_var")), std::vector<float>(32, 1.0f));
  const TensorData* tracked = u.tensor("stem.1.num_batches_tracked");
  QVERIFY(tracked->dtype() == DType::I64);
  QCOMPARE(tracked->byteSize(), std::size_t(8));
  int64_t zero = -1;
  std::memcpy(&zero, tracked->data(), 8);
  QCOMPARE(zero, int64_t(0));
}

void TestExamples::determinism() {
  const Model a = makeSparseResNet21D(42);
  const Model b = makeSparseResNet21D(42);
  const Model c = makeSparseResNet21D(43);
  QCOMPARE(a.tensors().size(), b.tensors().size());
  for (const auto& [key, t] : a.tensors()) QVERIFY2(t == *b.tensor(key), key.c_str());
  QVERIFY(*a.tensor("0.0.0.weight") != *c.tensor("0.0.0.weight"));
  QVERIFY(*a.tensor("0.0.0.kernel_positions") == *c.tensor("0.0.0.kernel_positions"));
  // Different convs draw different values.
  QVERIFY(floats(*a.tensor("0.1.main.0.weight")) != floats(*a.tensor("0.1.main.3.weight")));
}

void TestExamples::consistency_data() {
  QTest::addColumn<QString>("model");
  QTest::newRow("resnet") << QStringLiteral("resnet");
  QTest::newRow("unet") << QStringLiteral("unet");
}

// Records and tensors agree; graphs exist exactly for modules whose forward is traced through,
// lint clean, and call only existing submodules.
void TestExamples::consistency() {
  QFETCH(QString, model);
  const Model m = byName(model);
  std::size_t records = 0;
  for (const ModuleInfo& mod : m.modules()) {
    for (const auto* slots : {&mod.parameters, &mod.buffers})
      for (const auto& [name, record] : *slots) {
        if (!record) continue;
        ++records;
        QCOMPARE(record->key, mod.childPath(name));
        const TensorData* t = m.tensor(record->key);
        QVERIFY2(t, record->key.c_str());
        QVERIFY(t->dtype() == record->dtype);
        QCOMPARE(t->shape(), record->shape);
      }
    for (const std::string& child : mod.children) QVERIFY(m.module(mod.childPath(child)));
    const bool container = mod.type == "torch.nn.modules.container.ModuleList" ||
                           mod.type == "torch.nn.modules.container.ModuleDict";
    QVERIFY2(bool(mod.graph) == (!container && !isLibraryLeaf(mod)), mod.path.c_str());
    QVERIFY2(!mod.signature.empty(), mod.path.c_str());
    QVERIFY(!mod.training);
    QCOMPARE(mod.bases.back(), std::string("torch.nn.modules.module.Module"));
    if (!mod.graph) continue;
    Status lint = mod.graph->lint();
    QVERIFY2(lint, lint ? "" : lint.message().c_str());
    for (const fx::Node& node : mod.graph->nodes())
      if (node.op() == fx::Op::CallModule) QVERIFY2(m.module(mod.childPath(node.target())), node.target().c_str());
  }
  QCOMPARE(records, m.tensors().size());
}

void TestExamples::resnetGraphs() {
  const Model r = makeSparseResNet21D();
  const fx::Graph& root = *r.root().graph;
  QCOMPARE(nodeNames(root), (std::vector<std::string>{"x", "_0", "_1", "_2", "_3", "_4", "output"}));
  const fx::Node* out = root.outputNode();
  QCOMPARE(out->args().size(), std::size_t(1));
  QVERIFY(out->args()[0].kind() == fx::Value::Kind::List);
  QCOMPARE(refNames(out->args()[0]), (std::vector<std::string>{"_0", "_1", "_2", "_3", "_4"}));
  QCOMPARE(root.findNode("_3")->target(), std::string("3"));
  QCOMPARE(root.findNode("_3")->args()[0].asNode()->name(), std::string("_2"));

  // A stage (Sequential): torch.fx names the `input` placeholder input_1.
  const fx::Graph& stage = *r.module("1")->graph;
  QCOMPARE(nodeNames(stage), (std::vector<std::string>{"input_1", "_0", "_1", "_2", "output"}));
  QCOMPARE(stage.nodes().front().target(), std::string("input"));
  QCOMPARE(r.module("4")->graph->size(), std::size_t(3));

  // A residual block: relu(main(x) + shortcut(x)).
  const fx::Graph& block = *r.module("2.1")->graph;
  QCOMPARE(nodeNames(block), (std::vector<std::string>{"x", "main", "shortcut", "add", "relu", "output"}));
  const fx::Node* add = block.findNode("add");
  QVERIFY(add->op() == fx::Op::CallFunction);
  QCOMPARE(add->target(), std::string("operator.add"));
  QCOMPARE(add->args()[0].asNode()->name(), std::string("main"));
  QCOMPARE(add->args()[1].asNode()->name(), std::string("shortcut"));
  QCOMPARE(block.findNode("shortcut")->args()[0].asNode()->name(), std::string("x"));
  QCOMPARE(nodeNames(*r.module("2.1.main")->graph),
           (std::vector<std::string>{"input_1", "_0", "_1", "_2", "_3", "_4", "output"}));
}

void TestExamples::unetGraph() {
  const Model u = makeSparseResUNet42();
  const fx::Graph& g = *u.root().graph;
  QCOMPARE(nodeNames(g), (std::vector<std::string>{
                             "x", "stem", "encoders_0", "encoders_1", "encoders_2", "encoders_3",
                             "decoders_0_upsample", "cat", "decoders_0_fuse", "decoders_1_upsample", "cat_1",
                             "decoders_1_fuse", "decoders_2_upsample", "cat_2", "decoders_2_fuse",
                             "decoders_3_upsample", "cat_3", "decoders_3_fuse", "output"}));
  QCOMPARE(g.findNode("decoders_0_upsample")->target(), std::string("decoders.0.upsample"));
  QCOMPARE(g.findNode("decoders_0_upsample")->args()[0].asNode()->name(), std::string("encoders_3"));
  // cat([upsampled, skip]): decoders.k pairs with the skip x(3-k).
  const char* skips[] = {"encoders_2", "encoders_1", "encoders_0", "stem"};
  const char* cats[] = {"cat", "cat_1", "cat_2", "cat_3"};
  for (int k = 0; k < 4; ++k) {
    const fx::Node* cat = g.findNode(cats[k]);
    QCOMPARE(cat->target(), std::string("torch_lattice.operators.cat"));
    QCOMPARE(cat->args().size(), std::size_t(1));
    QVERIFY(cat->args()[0].kind() == fx::Value::Kind::List);
    const std::string up = "decoders_" + std::to_string(k) + "_upsample";
    QCOMPARE(refNames(cat->args()[0]), (std::vector<std::string>{up, skips[k]}));
  }
  QCOMPARE(refNames(g.outputNode()->args()[0]),
           (std::vector<std::string>{"stem", "encoders_0", "encoders_1", "encoders_2", "encoders_3", "decoders_0_fuse",
                                     "decoders_1_fuse", "decoders_2_fuse", "decoders_3_fuse"}));
  QVERIFY(!u.module("decoders")->graph);
  QVERIFY(!u.module("decoders.2")->graph);
  QCOMPARE(nodeNames(*u.module("stem")->graph),
           (std::vector<std::string>{"input_1", "_0", "_1", "_2", "_3", "_4", "_5", "output"}));
}

void TestExamples::chain() {
  const Model c = makeChain(3, 5);
  QCOMPARE(c.root().type, std::string("lattice_studio.examples.Chain"));
  QCOMPARE(c.root().children, (std::vector<std::string>{"blocks"}));
  QCOMPARE(c.modules().size(), std::size_t(2 + 3 * 4));
  QCOMPARE(nodeNames(*c.root().graph), (std::vector<std::string>{"x", "blocks", "output"}));
  QCOMPARE(nodeNames(*c.module("blocks")->graph), (std::vector<std::string>{"input_1", "_0", "_1", "_2", "output"}));
  QCOMPARE(c.module("blocks.2.0")->className(), std::string("SubmConv3d"));
  QCOMPARE(c.tensor("blocks.2.0.weight")->shape(), (std::vector<int64_t>{27, 16, 16}));
  QCOMPARE(count(c).paramElements, int64_t(3 * (27 * 16 * 16 + 32)));
  QCOMPARE(c.exampleInputs.at(0).channels, std::optional<int64_t>(16));

  QElapsedTimer timer;
  timer.start();
  const Model big = makeChain(10000);
  qInfo("chain:10000 built in %lld ms (weights included)", static_cast<long long>(timer.elapsed()));
  QCOMPARE(big.modules().size(), std::size_t(2 + 10000 * 4));
  QCOMPARE(big.module("blocks")->graph->size(), std::size_t(10002));
  QCOMPARE(big.module("blocks")->graph->outputNode()->args()[0].asNode()->name(), std::string("_9999"));
}

void TestExamples::loadModelReferences_data() {
  QTest::addColumn<QString>("reference");
  QTest::addColumn<QString>("rootType"); // empty: an error is expected
  QTest::addColumn<QString>("message");
  const QString archive = QString::fromStdString(kConformance + "sparse_classifier/model.ltfx");
  QTest::newRow("resnet") << "example:sparse_resnet21d" << "torch_lattice.backbones.resnet.SparseResNet21D" << QString();
  QTest::newRow("unet") << "example:sparse_resunet42" << "torch_lattice.backbones.unet.SparseResUNet42" << QString();
  QTest::newRow("chain") << "example:chain:2" << "lattice_studio.examples.Chain" << QString();
  QTest::newRow("archive") << archive << "examples.e2e.SparseClassifier" << QString();
  QTest::newRow("unknown") << "example:resnet" << QString()
                           << "unknown example 'resnet' (valid examples: sparse_resnet21d, sparse_resunet42, chain:N)";
  QTest::newRow("chain 0") << "example:chain:0" << QString() << "example 'chain:0': N must be a whole number from 1 to 100000";
  QTest::newRow("chain word") << "example:chain:ten" << QString() << "example 'chain:ten': N must be a whole number from 1 to 100000";
  QTest::newRow("chain empty") << "example:chain:" << QString() << "example 'chain:': N must be a whole number from 1 to 100000";
  QTest::newRow("chain negative") << "example:chain:-2" << QString() << "example 'chain:-2': N must be a whole number from 1 to 100000";
  QTest::newRow("chain huge") << "example:chain:100001" << QString()
                              << "example 'chain:100001': N must be a whole number from 1 to 100000";
  QTest::newRow("missing path") << "/nonexistent/m.ltfx" << QString() << "/nonexistent/m.ltfx: no such archive directory";
}

void TestExamples::loadModelReferences() {
  QFETCH(QString, reference);
  QFETCH(QString, rootType);
  QFETCH(QString, message);
  auto model = loadModel(reference.toStdString());
  if (rootType.isEmpty()) {
    QVERIFY(!model);
    QCOMPARE(QString::fromStdString(model.message()), message);
    return;
  }
  QVERIFY2(model, model ? "" : model.message().c_str());
  QCOMPARE(QString::fromStdString(model->root().type), rootType);
  if (reference.startsWith(QLatin1String("example:"))) QCOMPARE(QString::fromStdString(model->source), reference);
}

void TestExamples::exampleRoundTrip() {
  const Model u = makeSparseResUNet42(3);
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/unet.ltfx";
  Status written = writeArchive(u, dir);
  QVERIFY2(written, written ? "" : written.message().c_str());
  auto back = readArchive(dir);
  QVERIFY2(back, back ? "" : back.message().c_str());
  QCOMPARE(back->modules().size(), u.modules().size());
  for (std::size_t i = 0; i < u.modules().size(); ++i) {
    const ModuleInfo& a = u.modules()[i];
    const ModuleInfo& b = back->modules()[i];
    QCOMPARE(b.path, a.path);
    QCOMPARE(b.type, a.type);
    QCOMPARE(b.bases, a.bases);
    QVERIFY2(b.attributes == a.attributes, a.path.c_str());
    QCOMPARE(b.children, a.children);
    QCOMPARE(b.signature.size(), a.signature.size());
    QCOMPARE(bool(b.graph), bool(a.graph));
    if (a.graph) QCOMPARE(fx::graphToJson(*b.graph).dump(), fx::graphToJson(*a.graph).dump());
  }
  QCOMPARE(back->tensors().size(), u.tensors().size());
  for (const auto& [key, t] : u.tensors()) QVERIFY2(*back->tensor(key) == t, key.c_str());
  QCOMPARE(back->exampleInputs.at(0).channels, std::optional<int64_t>(4));
}

QTEST_APPLESS_MAIN(TestExamples)
#include "tst_examples.moc"
