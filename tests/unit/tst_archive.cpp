// Tests for the .ltfx reader and writer (fx-archive.md). Expectations come from the conformance
// archives' own JSON (read independently here with nlohmann), from the spec's rules (dense input
// types, lowering defaults, the version message) and from hand-counted JSON locations. Malformed
// archives are made in a QTemporaryDir from a conformance archive with one edit each.

#include "fx/JsonEncoding.h"
#include "model/Archive.h"
#include "tensor/Safetensors.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace lattice;
using OJson = nlohmann::ordered_json;

namespace {

const std::string kConformance = std::string(LATTICE_TEST_DATA_DIR) + "/conformance/models/";

std::string archiveDir(const std::string& name) { return kConformance + name + "/model.ltfx"; }

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

OJson readJson(const std::string& path) { return OJson::parse(readText(path)); }

/// Copies a conformance archive into `dir` with model.json replaced by `doc`.
void writeArchiveCopy(const std::string& dir, const std::string& source, const OJson& doc) {
  QDir().mkpath(QString::fromStdString(dir));
  writeText(dir + "/model.json", doc.dump(1));
  QFile::copy(QString::fromStdString(archiveDir(source) + "/weights.safetensors"),
              QString::fromStdString(dir + "/weights.safetensors"));
}

/// Every record field, graphs through graphToJson, and every tensor's bytes.
void compareModels(const Model& a, const Model& b) {
  QCOMPARE(a.modules().size(), b.modules().size());
  for (std::size_t i = 0; i < a.modules().size(); ++i) {
    const ModuleInfo& x = a.modules()[i];
    const ModuleInfo& y = b.modules()[i];
    QCOMPARE(x.path, y.path);
    QCOMPARE(x.type, y.type);
    QCOMPARE(x.bases, y.bases);
    QCOMPARE(x.training, y.training);
    QVERIFY(x.attributes == y.attributes);
    QCOMPARE(x.children, y.children);
    for (const auto& [xs, ys] : {std::pair(&x.parameters, &y.parameters), std::pair(&x.buffers, &y.buffers)}) {
      QCOMPARE(xs->size(), ys->size());
      for (std::size_t k = 0; k < xs->size(); ++k) {
        QCOMPARE((*xs)[k].first, (*ys)[k].first);
        QCOMPARE(bool((*xs)[k].second), bool((*ys)[k].second));
        if (!(*xs)[k].second) continue;
        QCOMPARE((*xs)[k].second->key, (*ys)[k].second->key);
        QVERIFY((*xs)[k].second->dtype == (*ys)[k].second->dtype);
        QCOMPARE((*xs)[k].second->shape, (*ys)[k].second->shape);
      }
    }
    QCOMPARE(x.signature.size(), y.signature.size());
    for (std::size_t k = 0; k < x.signature.size(); ++k) {
      QCOMPARE(x.signature[k].name, y.signature[k].name);
      QVERIFY(x.signature[k].kind == y.signature[k].kind);
      QVERIFY(x.signature[k].defaultValue == y.signature[k].defaultValue);
    }
    QCOMPARE(bool(x.graph), bool(y.graph));
    if (x.graph) QCOMPARE(fx::graphToJson(*x.graph).dump(), fx::graphToJson(*y.graph).dump());
  }
  QCOMPARE(a.tensors().size(), b.tensors().size());
  for (const auto& [key, tensor] : a.tensors()) {
    const TensorData* other = b.tensor(key);
    QVERIFY2(other, key.c_str());
    QVERIFY2(tensor == *other, key.c_str());
  }
  QCOMPARE(a.exampleInputs.size(), b.exampleInputs.size());
  for (std::size_t i = 0; i < a.exampleInputs.size(); ++i) {
    const InputSpec& x = a.exampleInputs[i];
    const InputSpec& y = b.exampleInputs[i];
    QCOMPARE(x.name, y.name);
    QVERIFY(x.kind == y.kind);
    QCOMPARE(x.dtype, y.dtype);
    QCOMPARE(x.channels, y.channels);
    QVERIFY(x.stride == y.stride);
    QCOMPARE(x.type, y.type);
  }
  QCOMPARE(bool(a.lowering), bool(b.lowering));
  if (a.lowering) {
    QCOMPARE(a.lowering->batchSize, b.lowering->batchSize);
    QCOMPARE(a.lowering->inputDtype, b.lowering->inputDtype);
    QCOMPARE(a.lowering->quantizeBits, b.lowering->quantizeBits);
    QCOMPARE(a.lowering->quantizeGroupSize, b.lowering->quantizeGroupSize);
    QCOMPARE(a.lowering->quantizeScaleDtype, b.lowering->quantizeScaleDtype);
    QCOMPARE(a.lowering->outputNames, b.lowering->outputNames);
  }
  QCOMPARE(a.producerName, b.producerName);
  QCOMPARE(a.producerVersion, b.producerVersion);
}

std::vector<std::string> kwargNames(const fx::Node& node) {
  std::vector<std::string> names;
  for (const auto& kv : node.kwargs()) names.push_back(kv.first);
  return names;
}

} // namespace

class TestArchive : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void conformance_data();
  void conformance();
  void attributeAndKwargOrder();
  void denseInputs();
  void denseInputFromShape_data();
  void denseInputFromShape();
  void loweringDefaults();
  void extraTensorsKept();
  void roundTrip_data();
  void roundTrip();
  void rewriteInPlace();
  void writtenLayout();
  void writerChecksRecords();
  void malformed_data();
  void malformed();
  void invalidJson();
  void jsonLimits_data();
  void jsonLimits();
  void reproducerArchives();
  void manyKeysInOneObject();
  void repeatedKeys_data();
  void repeatedKeys();
  void sizeLimit();
  void writerKeepsToTheSizeLimit();
  void missingFiles();
  void corruptWeights();
};

void TestArchive::conformance_data() {
  QTest::addColumn<QString>("name");
  for (const char* name : {"canonical_kernel_layout", "normalized_convolution", "point_voxel",
                           "quantized_classifier_int8", "sparse_classifier", "sparse_reindex",
                           "transpose_convolution"})
    QTest::newRow(name) << QString::fromLatin1(name);
}

// The reader's Model agrees with the file as read here by plain nlohmann.
void TestArchive::conformance() {
  QFETCH(QString, name);
  const std::string dir = archiveDir(name.toStdString());
  auto model = readArchive(dir);
  QVERIFY2(model, model ? "" : model.message().c_str());
  const OJson doc = readJson(dir + "/model.json");
  const OJson& modules = doc["modules"];
  QCOMPARE(model->modules().size(), modules.size());
  QCOMPARE(model->source, dir);
  QCOMPARE(model->producerName, doc["producer"]["name"].get<std::string>());
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const ModuleInfo& m = model->modules()[i];
    QCOMPARE(m.path, modules[i]["path"].get<std::string>());
    QCOMPARE(model->module(m.path), &m);
    QCOMPARE(m.type, modules[i]["type"].get<std::string>());
    QCOMPARE(m.bases, modules[i]["bases"].get<std::vector<std::string>>());
    QCOMPARE(m.children, modules[i]["children"].get<std::vector<std::string>>());
    QCOMPARE(bool(m.graph), modules[i].contains("graph"));
    if (m.graph) QCOMPARE(m.graph->size(), modules[i]["graph"]["nodes"].size());
    QCOMPARE(m.signature.size(), modules[i]["signature"].size());
    QCOMPARE(m.parameters.size(), modules[i]["parameters"].size());
    for (const auto& [slot, record] : m.parameters) {
      const OJson& expected = modules[i]["parameters"][slot];
      QCOMPARE(bool(record), !expected.is_null());
      if (!record) continue;
      QCOMPARE(record->shape, expected["shape"].get<std::vector<int64_t>>());
      const TensorData* tensor = model->tensor(record->key);
      QVERIFY(tensor);
      QCOMPARE(tensor->shape(), record->shape);
      QVERIFY2(tensor->isView(), "weights stay views into the file's bytes");
    }
  }
  auto weights = SafetensorsFile::open(dir + "/weights.safetensors");
  QVERIFY(weights);
  QCOMPARE(model->tensors().size(), weights->tensors().size());
  QCOMPARE(model->exampleInputs.size(), doc["example_inputs"].size());
}

void TestArchive::attributeAndKwargOrder() {
  auto model = readArchive(archiveDir("sparse_classifier"));
  QVERIFY(model);
  const ModuleInfo* stem = model->module("stem");
  QVERIFY(stem);
  std::vector<std::string> names;
  for (const auto& kv : stem->attributes) names.push_back(kv.first);
  const std::vector<std::string> expected{"in_channels", "out_channels", "kernel_size", "stride", "dilation", "padding",
                                          "subm", "transposed", "generative", "normalized", "eps", "kernel_volume"};
  QCOMPARE(names, expected);
  QCOMPARE(stem->parameters.front().first, std::string("weight"));
  QCOMPARE(stem->attribute("eps")->asFloat(), 1e-8);
  QCOMPARE(stem->attribute("kernel_size")->items().size(), std::size_t(3));

  auto voxel = readArchive(archiveDir("point_voxel"));
  QVERIFY(voxel);
  const fx::Node* node = voxel->root().graph->findNode("voxelize");
  QVERIFY(node);
  QCOMPARE(kwargNames(*node), (std::vector<std::string>{"batch_indices", "active_rows", "voxel_size", "origin", "reduction"}));
  QVERIFY(voxel->root().graph->lint());
}

void TestArchive::denseInputs() {
  auto model = readArchive(archiveDir("point_voxel"));
  QVERIFY(model);
  const auto& inputs = model->exampleInputs;
  QCOMPARE(inputs.size(), std::size_t(4));
  QVERIFY(inputs[1].kind == InputSpec::Kind::Dense);
  QCOMPARE(inputs[1].name, std::string("features"));
  QCOMPARE(inputs[1].type, std::string("tensor<?x2xf32>"));
  QCOMPARE(inputs[1].channels, std::optional<int64_t>(2));
  QCOMPARE(inputs[0].channels, std::optional<int64_t>());
  QCOMPARE(inputs[3].type, std::string("tensor<1xi32>"));
  QCOMPARE(inputs[3].dtype, std::string("i32"));
  QCOMPARE(model->lowering->inputDtype, std::optional<std::string>("f32"));
}

void TestArchive::denseInputFromShape_data() {
  QTest::addColumn<QString>("spec");
  QTest::addColumn<QString>("type");
  QTest::addColumn<int>("channels"); // -1: none
  auto row = [](const char* name, const char* spec, const char* type, int channels) {
    QTest::newRow(name) << QString::fromUtf8(spec) << QString::fromUtf8(type) << channels;
  };
  row("rank2", R"({"name": "p", "kind": "dense", "dtype": "f32", "shape": [5, 3]})", "tensor<?x3xf32>", 3);
  row("rank1", R"({"name": "p", "kind": "dense", "dtype": "i32", "shape": [7]})", "tensor<?xi32>", -1);
  row("rank0", R"({"name": "p", "kind": "dense", "dtype": "f16", "shape": []})", "tensor<f16>", -1);
  row("rank3", R"({"name": "p", "kind": "dense", "dtype": "i64", "shape": [2, 4, 5]})", "tensor<?x4x5xi64>", -1);
  row("explicit channels", R"({"name": "p", "kind": "dense", "dtype": "f32", "shape": [5, 3], "channels": 8})",
      "tensor<?x3xf32>", 8);
}

void TestArchive::denseInputFromShape() {
  QFETCH(QString, spec);
  QFETCH(QString, type);
  QFETCH(int, channels);
  OJson doc = readJson(archiveDir("sparse_reindex") + "/model.json");
  doc["example_inputs"] = OJson::array({OJson::parse(spec.toStdString())});
  auto model = parseArchiveJson(doc.dump(), "model.json");
  QVERIFY2(model, model ? "" : model.message().c_str());
  const InputSpec& input = model->exampleInputs.at(0);
  QVERIFY(input.kind == InputSpec::Kind::Dense);
  QCOMPARE(QString::fromStdString(input.type), type);
  QCOMPARE(input.channels, channels < 0 ? std::optional<int64_t>() : std::optional<int64_t>(channels));
}

void TestArchive::loweringDefaults() {
  auto model = readArchive(archiveDir("sparse_classifier"));
  QVERIFY(model);
  QVERIFY(model->lowering);
  QCOMPARE(model->lowering->batchSize, std::optional<int64_t>(2));
  QCOMPARE(model->lowering->inputDtype, std::optional<std::string>());
  QCOMPARE(model->lowering->quantizeBits, std::optional<int>());
  QCOMPARE(model->lowering->quantizeGroupSize, 32);
  QCOMPARE(model->lowering->quantizeScaleDtype, std::string("f16"));
  QVERIFY(!model->lowering->outputNames);
  QCOMPARE(model->resolvedInputDtype(), std::string("f32"));
  QVERIFY(model->exampleInputs[0].stride == (std::array<int64_t, 3>{1, 1, 1}));

  auto quantized = readArchive(archiveDir("quantized_classifier_int8"));
  QVERIFY(quantized);
  QCOMPARE(quantized->lowering->quantizeBits, std::optional<int>(8));

  // No lowering object at all; sparse inputs decide the input dtype.
  OJson doc = readJson(archiveDir("sparse_reindex") + "/model.json");
  doc.erase("lowering");
  doc["example_inputs"][0]["dtype"] = "f16";
  auto bare = parseArchiveJson(doc.dump(), "model.json");
  QVERIFY(bare);
  QVERIFY(!bare->lowering);
  QCOMPARE(bare->resolvedInputDtype(), std::string("f16"));
}

void TestArchive::extraTensorsKept() {
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/a.ltfx";
  writeArchiveCopy(dir, "sparse_classifier", readJson(archiveDir("sparse_classifier") + "/model.json"));
  auto weights = SafetensorsFile::open(archiveDir("sparse_classifier") + "/weights.safetensors");
  QVERIFY(weights);
  std::vector<NamedTensor> tensors = weights->tensors();
  tensors.push_back(NamedTensor{"extra.table", TensorData::zeros(DType::I64, {2, 2})});
  QVERIFY(writeSafetensors(dir + "/weights.safetensors", tensors, torchWeightsMetadata()));
  auto model = readArchive(dir);
  QVERIFY2(model, model ? "" : model.message().c_str());
  QVERIFY(model->tensor("extra.table"));
  QCOMPARE(model->tensor("extra.table")->shape(), (std::vector<int64_t>{2, 2}));
  QCOMPARE(model->tensors().size(), tensors.size());
}

void TestArchive::roundTrip_data() { conformance_data(); }

void TestArchive::roundTrip() {
  QFETCH(QString, name);
  auto first = readArchive(archiveDir(name.toStdString()));
  QVERIFY(first);
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/nested/out.ltfx";
  Status written = writeArchive(*first, dir);
  QVERIFY2(written, written ? "" : written.message().c_str());
  auto second = readArchive(dir);
  QVERIFY2(second, second ? "" : second.message().c_str());
  compareModels(*first, *second);

  // The module records and input specs come out as the reference exporter wrote them.
  const OJson original = readJson(archiveDir(name.toStdString()) + "/model.json");
  const OJson ours = readJson(dir + "/model.json");
  QCOMPARE(ours["modules"].dump(), original["modules"].dump());
  QCOMPARE(ours["example_inputs"].dump(), original["example_inputs"].dump());
}

void TestArchive::rewriteInPlace() {
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/a.ltfx";
  writeArchiveCopy(dir, "transpose_convolution", readJson(archiveDir("transpose_convolution") + "/model.json"));
  auto model = readArchive(dir); // weights mapped from `dir`
  QVERIFY(model);
  QVERIFY(writeArchive(*model, dir));
  auto again = readArchive(dir);
  QVERIFY(again);
  compareModels(*model, *again);
  QVERIFY(!QFile::exists(QString::fromStdString(dir + "/weights.safetensors.tmp")));
  QVERIFY(!QFile::exists(QString::fromStdString(dir + "/model.json.tmp")));
}

void TestArchive::writtenLayout() {
  auto model = readArchive(archiveDir("sparse_classifier"));
  QVERIFY(model);
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString();
  QVERIFY(writeArchive(*model, dir));
  const std::string text = readText(dir + "/model.json");
  QVERIFY(text.rfind("{\n  \"format\": \"lattice-fx-archive\",\n  \"version\": 1,\n", 0) == 0);
  QCOMPARE(text.back(), '\n');
  const OJson doc = OJson::parse(text);
  std::vector<std::string> keys;
  for (auto it = doc.begin(); it != doc.end(); ++it) keys.push_back(it.key());
  QCOMPARE(keys, (std::vector<std::string>{"format", "version", "producer", "modules", "example_inputs", "lowering"}));
  keys.clear();
  for (auto it = doc["lowering"].begin(); it != doc["lowering"].end(); ++it) keys.push_back(it.key());
  QCOMPARE(keys, (std::vector<std::string>{"batch_size", "input_dtype", "quantize_bits", "quantize_group_size",
                                           "quantize_scale_dtype", "output_names"}));
  QCOMPARE(doc["lowering"]["quantize_group_size"].get<int>(), 32);
  auto weights = SafetensorsFile::open(dir + "/weights.safetensors");
  QVERIFY(weights);
  QVERIFY(weights->hasMetadata());
  QCOMPARE(weights->metadata(), (SafetensorsMetadata{{"format", "torch"}}));
}

void TestArchive::writerChecksRecords() {
  Model model;
  ModuleInfo root;
  root.type = "m.Root";
  root.bases = {"torch.nn.modules.module.Module"};
  root.parameters.emplace_back("weight", TensorRecord{"weight", DType::F32, {2}});
  model.addModule(std::move(root));
  QTemporaryDir tmp;
  Status missing = writeArchive(model, tmp.path().toStdString() + "/x");
  QVERIFY(!missing);
  QVERIFY2(missing.message().find("tensor 'weight'") != std::string::npos, missing.message().c_str());

  model.setTensor("weight", TensorData::zeros(DType::F32, {3}));
  Status mismatch = writeArchive(model, tmp.path().toStdString() + "/y");
  QVERIFY(!mismatch);
  QVERIFY2(mismatch.message().find("does not match") != std::string::npos, mismatch.message().c_str());

  model.setTensor("weight", TensorData::zeros(DType::F32, {2}));
  QVERIFY(writeArchive(model, tmp.path().toStdString() + "/z"));
}

// Each row edits sparse_classifier's model.json at a JSON pointer (empty value: remove the key).
// Its modules: 0 root, 1 stem (Conv3d), 2 norm, 3 act, 4 pool, 5 global_pool, 6 head; the root
// graph's nodes: 0 x, 1 stem, 2 norm, ..., 6 head, 7 output.
void TestArchive::malformed_data() {
  QTest::addColumn<QString>("pointer");
  QTest::addColumn<QString>("value");
  QTest::addColumn<QString>("message");
  auto row = [](const char* name, const char* pointer, const char* value, const char* message) {
    QTest::newRow(name) << QString::fromUtf8(pointer) << QString::fromUtf8(value) << QString::fromUtf8(message);
  };
  row("version 2", "/version", "2", "model.json: unsupported archive version 2 (this reader supports 1)");
  row("version string", "/version", "\"1\"", "model.json: version: expected an integer, got a string");
  row("format", "/format", "\"foo\"", "model.json: format: expected 'lattice-fx-archive', got 'foo'");
  row("no format", "/format", "", "model.json: missing required key 'format'");
  row("no modules", "/modules", "", "model.json: missing required key 'modules'");
  row("empty modules", "/modules", "[]", "model.json: modules: expected at least the root module");
  row("top level", "", "[]", "model.json: expected a JSON object at the top level, got an array");
  row("record not object", "/modules/3", "5", "model.json: modules[3]: expected an object, got an integer");
  row("type", "/modules/1/type", "3", "model.json: modules[1].type: expected a string, got an integer");
  row("training", "/modules/2/training", "\"no\"", "model.json: modules[2].training: expected a boolean, got a string");
  row("no bases", "/modules/3/bases", "", "model.json: modules[3]: missing required key 'bases'");
  row("base type", "/modules/3/bases/0", "null", "model.json: modules[3].bases[0]: expected a string, got null");
  row("root not first", "/modules/0/path", "\"main\"",
      "model.json: modules[0].path: the root module (path '') must come first, got 'main'");
  row("parent later", "/modules/2/path", "\"ghost.norm\"",
      "model.json: modules[2].path: parent 'ghost' of module 'ghost.norm' must come before it");
  row("duplicate", "/modules/2/path", "\"stem\"", "model.json: modules[2].path: duplicate module path 'stem'");
  row("not listed", "/modules/0/children/1", "\"normal\"",
      "model.json: modules[2].path: module 'norm' is not listed in the children of the root");
  row("missing child", "/modules/0/children/-", "\"extra\"",
      "model.json: modules[0].children[6]: no module record for child 'extra' (path 'extra')");
  row("duplicate child", "/modules/0/children/1", "\"stem\"", "model.json: modules[0].children[1]: duplicate child 'stem'");
  row("unknown node", "/modules/0/graph/nodes/2/args/0", R"({"node": "nope"})",
      "model.json: modules[0].graph.nodes[2].args[0]: reference to unknown node 'nope'");
  row("later node", "/modules/0/graph/nodes/2/args/0", R"({"node": "head"})",
      "model.json: modules[0].graph.nodes[2].args[0]: reference to node 'head' before its definition");
  row("call_module target", "/modules/0/graph/nodes/1/target", "\"steem\"",
      "model.json: modules[0].graph.nodes[1].target: call_module target 'steem' names no submodule of the root");
  row("get_attr target", "/modules/0/graph/nodes/1",
      R"({"name": "stem", "op": "get_attr", "target": "stem.bogus", "args": [], "kwargs": {}})",
      "model.json: modules[0].graph.nodes[1].target: get_attr target 'stem.bogus' names no parameter, buffer, "
      "attribute or submodule of the root");
  row("attribute", "/modules/1/attributes/kernel_size", R"({"tuple": 3})",
      "model.json: modules[1].attributes.kernel_size.tuple: expected an array, got an integer");
  row("record dtype", "/modules/1/parameters/weight/dtype", "\"F99\"",
      "model.json: modules[1].parameters.weight.dtype: unknown dtype 'F99'");
  row("record shape", "/modules/1/parameters/weight/shape/0", "-1",
      "model.json: modules[1].parameters.weight.shape[0]: negative dimension -1");
  row("dtype mismatch", "/modules/1/parameters/weight/dtype", "\"F16\"",
      "model.json: modules[1].parameters.weight: tensor 'stem.weight' is F32 in weights.safetensors but the record says F16");
  row("shape mismatch", "/modules/1/parameters/weight/shape", "[4, 3, 1]",
      "model.json: modules[1].parameters.weight: tensor 'stem.weight' has shape [1, 3, 4] in weights.safetensors but "
      "the record says [4, 3, 1]");
  row("missing tensor", "/modules/2/buffers/running_var/key", "\"norm.var\"",
      "model.json: modules[2].buffers.running_var: tensor 'norm.var' is not in weights.safetensors");
  row("signature kind", "/modules/0/signature/0/kind", "\"positional\"",
      "model.json: modules[0].signature[0].kind: unknown parameter kind 'positional'");
  row("root signature", "/modules/0/signature", "",
      "model.json: modules[0]: missing required key 'signature' (required for the root module)");
  row("input kind", "/example_inputs/0/kind", "\"dense2\"",
      "model.json: example_inputs[0].kind: expected one of 'sparse', 'dense', got 'dense2'");
  row("input dtype", "/example_inputs/0/dtype", "\"f64\"",
      "model.json: example_inputs[0].dtype: expected one of 'f32', 'f16', got 'f64'");
  row("input stride", "/example_inputs/0/stride", "[1, 1]", "model.json: example_inputs[0].stride: expected 3 values, got 2");
  row("dense without type", "/example_inputs/0", R"({"name": "x", "kind": "dense"})",
      "model.json: example_inputs[0]: a dense input needs 'type', or 'dtype' and 'shape'");
  row("quantize bits", "/lowering/quantize_bits", "3", "model.json: lowering.quantize_bits: expected 4 or 8, got 3");
  row("output names", "/lowering/output_names", "[\"a\", 1]",
      "model.json: lowering.output_names[1]: expected a string, got an integer");
}

void TestArchive::malformed() {
  QFETCH(QString, pointer);
  QFETCH(QString, value);
  QFETCH(QString, message);
  OJson doc = readJson(archiveDir("sparse_classifier") + "/model.json");
  const OJson::json_pointer ptr(pointer.toStdString());
  if (value.isEmpty())
    doc[ptr.parent_pointer()].erase(ptr.back());
  else
    doc[ptr] = OJson::parse(value.toStdString());
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/bad.ltfx";
  writeArchiveCopy(dir, "sparse_classifier", doc);
  auto model = readArchive(dir);
  QVERIFY(!model);
  QCOMPARE(QString::fromStdString(model.message()), message);
}

void TestArchive::invalidJson() {
  // 'x' is the 12th byte: {=1, "format"=2..9, :=10, space=11.
  auto model = parseArchiveJson("{\"format\": x}", "model.json");
  QVERIFY(!model);
  const std::string& m = model.message();
  QVERIFY2(m.rfind("model.json:1:12: invalid JSON: syntax error", 0) == 0, m.c_str());
  QVERIFY(m.find('\n') == std::string::npos);

  // Cut short inside an array, and inside a string: both say the file is truncated.
  for (const std::string& cut : {std::string("{\"format\": [1, 2"), std::string("{\"format\": \"latt")}) {
    auto truncated = parseArchiveJson(cut, "model.json");
    QVERIFY(!truncated);
    QVERIFY2(truncated.message().find("(the file is truncated)") != std::string::npos, truncated.message().c_str());
  }
  // A syntax error before the end is not called truncation.
  QVERIFY(m.find("truncated") == std::string::npos);

  auto empty = parseArchiveJson("", "model.json");
  QVERIFY(!empty);
  QVERIFY2(empty.message().rfind("model.json:1:1: invalid JSON: ", 0) == 0, empty.message().c_str());
}

// Numbers out of double's range and nesting deeper than 256 levels are refused with the
// document's line and column (worked out by hand from the texts below).
void TestArchive::jsonLimits_data() {
  QTest::addColumn<QString>("json");
  QTest::addColumn<QString>("expected"); // the message's start, or "" when the JSON is accepted as JSON
  QTest::newRow("number overflow") << "{\n  \"a\": [1,\n   1e708]}"
                                   << "model.json:3:4: invalid JSON: number overflow parsing '1e708'";
  // The same text in a string and as a key first: only the number token is located.
  QTest::newRow("overflow after the same text in strings") << "{\"1e999\": \"1e999\", \"b\": -1e999}"
                                                           << "model.json:1:25: invalid JSON: number overflow parsing '-1e999'";
  QTest::newRow("257 levels") << QString(257, QLatin1Char('['))
                              << "model.json:1:257: invalid JSON: nesting deeper than 256 levels";
  // Brackets in strings do not count; 256 levels are allowed (the decoder then refuses the array).
  QTest::newRow("256 levels") << QString(256, QLatin1Char('[')) + QStringLiteral("\"[[[{{\"") + QString(256, QLatin1Char(']'))
                              << "model.json: expected a JSON object at the top level, got an array";
}

void TestArchive::jsonLimits() {
  QFETCH(QString, json);
  QFETCH(QString, expected);
  auto model = parseArchiveJson(json.toStdString(), "model.json");
  QVERIFY(!model);
  QVERIFY2(model.message().rfind(expected.toStdString(), 0) == 0, model.message().c_str());
  QVERIFY(model.message().find('\n') == std::string::npos);
}

void TestArchive::reproducerArchives() {
  // tests/data/repro/ltfx_number_overflow.ltfx: "eps": 1e999 on line 221.
  const std::string dir = LATTICE_TEST_DATA_DIR "/repro/ltfx_number_overflow.ltfx";
  auto model = readArchive(dir);
  QVERIFY(!model);
  QCOMPARE(model.message(), dir + "/model.json:221:12: invalid JSON: number overflow parsing '1e999'");
}

// An object of a million keys (the root's attributes, as gen_section5_models.py `keys` makes
// them from this archive: 17 MB) is read in one linear pass: the read completes, with every key
// in document order and its value.
void TestArchive::manyKeysInOneObject() {
  OJson doc = readJson(archiveDir("sparse_classifier") + "/model.json");
  doc["modules"][0]["attributes"] = "@@KEYS@@";
  std::string text = doc.dump();
  const int n = 1000000;
  std::string keys = "{";
  for (int i = 0; i < n; ++i) keys += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  keys += "}";
  text.replace(text.find("\"@@KEYS@@\""), std::string("\"@@KEYS@@\"").size(), keys);
  QElapsedTimer timer;
  timer.start();
  auto model = parseArchiveJson(text, "model.json");
  const qint64 ms = timer.elapsed();
  QVERIFY2(model, model ? "" : model.message().c_str());
  const fx::Kwargs& attributes = model->modules()[0].attributes;
  QCOMPARE(attributes.size(), std::size_t(n));
  for (int i : {0, 1, 9, 10, 123456, n - 1}) {
    QCOMPARE(attributes[i].first, "k" + std::to_string(i));
    QVERIFY(attributes[i].second == fx::Value::integer(i));
  }
  qInfo("%d keys in one object (%zu bytes) read in %lld ms", n, text.size(), ms);
}

// A repeated key keeps its first position and takes its last value, as in Python's json (and
// nlohmann's own builder), in small objects and in ones past the builder's key index threshold.
void TestArchive::repeatedKeys_data() {
  QTest::addColumn<QString>("attributes");
  QTest::addColumn<QStringList>("names");
  QTest::addColumn<QList<qlonglong>>("values");
  QTest::newRow("three keys") << R"({"a": 1, "b": 2, "a": 3})" << QStringList{"a", "b"} << QList<qlonglong>{3, 2};
  QString many = "{";
  QStringList names;
  QList<qlonglong> values;
  for (int i = 0; i < 40; ++i) {
    many += QStringLiteral("\"k%1\": %1, ").arg(i);
    names << QStringLiteral("k%1").arg(i);
    values << i;
  }
  many += R"("k3": -3, "k39": -39, "k0": -100, "x": 7})";
  names << "x";
  values[3] = -3;
  values[39] = -39;
  values[0] = -100;
  values << 7;
  QTest::newRow("forty keys") << many << names << values;
}

void TestArchive::repeatedKeys() {
  QFETCH(QString, attributes);
  QFETCH(QStringList, names);
  QFETCH(QList<qlonglong>, values);
  OJson doc = readJson(archiveDir("sparse_classifier") + "/model.json");
  doc["modules"][0]["attributes"] = "@@";
  std::string text = doc.dump();
  text.replace(text.find("\"@@\""), 4, attributes.toStdString());
  auto model = parseArchiveJson(text, "model.json");
  QVERIFY2(model, model ? "" : model.message().c_str());
  const fx::Kwargs& got = model->modules()[0].attributes;
  QCOMPARE(got.size(), std::size_t(names.size()));
  for (qsizetype i = 0; i < names.size(); ++i) {
    QCOMPARE(QString::fromStdString(got[i].first), names[i]);
    QVERIFY2(got[i].second == fx::Value::integer(values[i]), qPrintable(names[i]));
  }
}

// model.json is refused over 128 MiB (134217728 bytes), by its size, before it is read or parsed,
// with a message naming the file and the limit; at the limit the size is no objection.
void TestArchive::sizeLimit() {
  const std::size_t limit = 134217728;
  std::string text(limit + 1, ' ');
  auto over = parseArchiveJson(text, "model.json");
  QVERIFY(!over);
  QCOMPARE(over.message(), std::string("model.json: file is larger than the reader limit (134217729 > 134217728 bytes)"));

  text.pop_back(); // 128 MiB of spaces: a JSON error, not the size
  auto at = parseArchiveJson(text, "model.json");
  QVERIFY(!at);
  QVERIFY2(at.message().find("invalid JSON") != std::string::npos, at.message().c_str());
  text = std::string();

  // A file over the limit (sparse, so nothing is written) is refused before it is read.
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/big.ltfx";
  QDir().mkpath(QString::fromStdString(dir));
  writeText(dir + "/model.json", "{");
  std::filesystem::resize_file(dir + "/model.json", limit + 1);
  auto read = readArchive(dir);
  QVERIFY(!read);
  QCOMPARE(read.message(), dir + "/model.json: file is larger than the reader limit (134217729 > 134217728 bytes)");
}

// The writer never writes a model.json the reader would refuse: a 128 MiB attribute is refused
// with the size it would have had, and nothing is written.
void TestArchive::writerKeepsToTheSizeLimit() {
  auto model = readArchive(archiveDir("sparse_classifier"));
  QVERIFY2(model, model ? "" : model.message().c_str());
  model->modules()[0].attributes.emplace_back("blob", fx::Value::string(std::string(134217728, 'x')));
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/big.ltfx";
  Status s = writeArchive(*model, dir);
  QVERIFY(!s);
  QVERIFY2(s.message().rfind(dir + ": not written: model.json would be ", 0) == 0, s.message().c_str());
  QVERIFY2(s.message().find(" bytes, over the reader's limit of 134217728 bytes") != std::string::npos, s.message().c_str());
  QVERIFY(!std::filesystem::exists(dir));
}

void TestArchive::missingFiles() {
  QTemporaryDir tmp;
  const std::string base = tmp.path().toStdString();

  auto none = readArchive(base + "/nope.ltfx");
  QVERIFY(!none);
  QCOMPARE(none.message(), base + "/nope.ltfx: no such archive directory");

  writeText(base + "/file.ltfx", "x");
  auto file = readArchive(base + "/file.ltfx");
  QVERIFY(!file);
  QVERIFY2(file.message().rfind(base + "/file.ltfx: not a directory", 0) == 0, file.message().c_str());

  QDir().mkpath(QString::fromStdString(base + "/empty.ltfx"));
  auto empty = readArchive(base + "/empty.ltfx");
  QVERIFY(!empty);
  QCOMPARE(empty.message(), base + "/empty.ltfx: missing model.json");

  const std::string dir = base + "/noweights.ltfx";
  QDir().mkpath(QString::fromStdString(dir));
  writeText(dir + "/model.json", readText(archiveDir("sparse_classifier") + "/model.json"));
  auto noWeights = readArchive(dir);
  QVERIFY(!noWeights);
  QCOMPARE(noWeights.message(), dir + ": missing weights.safetensors (model.json records tensor 'stem.weight')");

  // A model without tensors needs no weights file.
  const std::string plain = base + "/plain.ltfx";
  QDir().mkpath(QString::fromStdString(plain));
  writeText(plain + "/model.json", readText(archiveDir("sparse_reindex") + "/model.json"));
  auto reindex = readArchive(plain);
  QVERIFY2(reindex, reindex ? "" : reindex.message().c_str());
  QVERIFY(reindex->tensors().empty());
}

void TestArchive::corruptWeights() {
  QTemporaryDir tmp;
  const std::string dir = tmp.path().toStdString() + "/c.ltfx";
  writeArchiveCopy(dir, "sparse_classifier", readJson(archiveDir("sparse_classifier") + "/model.json"));
  writeText(dir + "/weights.safetensors", "garbage");
  auto model = readArchive(dir);
  QVERIFY(!model);
  QVERIFY2(model.message().rfind(dir + "/weights.safetensors", 0) == 0, model.message().c_str());
}

QTEST_APPLESS_MAIN(TestArchive)
#include "tst_archive.moc"
