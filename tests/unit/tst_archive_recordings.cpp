// Tests of the archive's recorded inputs and activations (fx-archive.md, top section): both files
// optional, the activation key rule (NODE, NODE.<index>..., .coords/.features/.active), grouping a
// node's tensors into values, and warnings (not errors) for tensors that fit no node. The files
// are written here with the project's safetensors writer, named as the spec names them.

#include "model/ArchiveRecordings.h"
#include "tensor/Safetensors.h"

#include <QtTest/QtTest>

#include <cstring>
#include <fstream>

using namespace lattice;

namespace {

template <typename T>
TensorData tensorOf(DType dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return TensorData::owning(dtype, std::move(shape), std::move(bytes));
}

TensorData f32(std::vector<int64_t> shape, const std::vector<float>& values) {
  return tensorOf(DType::F32, std::move(shape), values);
}

TensorData i32(std::vector<int64_t> shape, const std::vector<std::int32_t>& values) {
  return tensorOf(DType::I32, std::move(shape), values);
}

/// A sparse value of `rows` rows, 2 channels, under `name`.
void addSparse(std::vector<NamedTensor>& out, const std::string& name, std::int32_t rows) {
  std::vector<std::int32_t> coords;
  std::vector<float> features;
  for (std::int32_t r = 0; r < rows; ++r) {
    coords.insert(coords.end(), {0, 2 * r, 0, 0});
    features.insert(features.end(), {float(r), -float(r)});
  }
  out.push_back({name + ".coords", i32({rows, 4}, coords)});
  out.push_back({name + ".features", f32({rows, 2}, features)});
  out.push_back({name + ".active", i32({1}, {rows})});
}

const SafetensorsMetadata kMetadata = {{"producer", "lattice_studio_export 0.1.0"}, {"torch", "1.13.0"}, {"device", "cpu"}};

std::string path(const QTemporaryDir& dir, const char* file) { return dir.filePath(QString::fromUtf8(file)).toStdString(); }

float firstFloat(const TensorData& t) {
  float v = 0;
  std::memcpy(&v, t.data(), sizeof v);
  return v;
}

} // namespace

class TestArchiveRecordings : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void activationKeys() {
    std::optional<ActivationKey> k = parseActivationKey("fc");
    QVERIFY(k);
    QCOMPARE(QString::fromStdString(k->node), QStringLiteral("fc"));
    QVERIFY(k->indices.empty() && k->part.empty());

    k = parseActivationKey("block_conv.features");
    QVERIFY(k);
    QCOMPARE(QString::fromStdString(k->node), QStringLiteral("block_conv"));
    QCOMPARE(QString::fromStdString(k->part), QStringLiteral("features"));
    QCOMPARE(QString::fromStdString(k->valueName()), QStringLiteral("block_conv"));

    k = parseActivationKey("output.1.10.coords");
    QVERIFY(k);
    QCOMPARE(QString::fromStdString(k->node), QStringLiteral("output"));
    QCOMPARE(k->indices, (std::vector<int64_t>{1, 10}));
    QCOMPARE(QString::fromStdString(k->part), QStringLiteral("coords"));
    QCOMPARE(QString::fromStdString(k->valueName()), QStringLiteral("output.1.10"));

    for (const char* bad : {"", ".x", "fc.", "fc..0", "fc.weight", "fc.coords.0", "fc.active.coords", "fc.01",
                            "a-b", "fc.-1", "fc.0x"})
      QVERIFY2(!parseActivationKey(bad), bad);
  }

  void absentFilesAreNoRecordings() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const ArchiveRecordingFiles files = findArchiveRecordings(dir.path().toStdString());
    QVERIFY(!files.inputs && !files.activations);
    Expected<ArchiveRecordings> r = readArchiveRecordings(dir.path().toStdString(), {"x", "fc", "output"});
    QVERIFY2(r, r ? "" : r.message().c_str());
    QVERIFY(!r->hasInputs() && !r->hasActivations());
    QVERIFY(r->warnings.empty());
    QVERIFY(r->valuesOf("fc").empty());
    QCOMPARE(QString::fromStdString(r->metadata("torch")), QString());
  }

  void inputsAlone() {
    QTemporaryDir dir;
    std::vector<NamedTensor> inputs;
    addSparse(inputs, "x", 3);
    for (NamedTensor& t : inputs) t.key.replace(1, 1, "_"); // x_coords, x_features, x_active
    inputs.push_back({"points", f32({2, 3}, {1, 2, 3, 4, 5, 6})});
    QVERIFY(writeSafetensors(path(dir, "inputs.safetensors"), inputs, kMetadata));

    const ArchiveRecordingFiles files = findArchiveRecordings(dir.path().toStdString());
    QVERIFY(files.inputs && !files.activations);
    Expected<ArchiveRecordings> r = readArchiveRecordings(dir.path().toStdString(), {"x", "points", "output"});
    QVERIFY2(r, r ? "" : r.message().c_str());
    QVERIFY(r->hasInputs() && !r->hasActivations());
    QVERIFY(r->warnings.empty());
    QVERIFY(r->inputs->find("x_coords") && r->inputs->find("x_features") && r->inputs->find("x_active"));
    QCOMPARE(r->inputs->find("points")->shape(), (std::vector<int64_t>{2, 3}));
    QCOMPARE(QString::fromStdString(r->metadata("device")), QStringLiteral("cpu"));
  }

  void activationsGroupedByNode() {
    QTemporaryDir dir;
    std::vector<NamedTensor> acts;
    acts.push_back({"x", f32({2, 2}, {1, 2, 3, 4})});
    acts.push_back({"fc", f32({2, 3}, {0.5f, 1, 2, 3, 4, 5})});
    addSparse(acts, "conv", 4);
    // A tuple: items 0 (dense), 1 (sparse), 2 and 10 (dense); indices order numerically.
    acts.push_back({"output.0", f32({1}, {7})});
    addSparse(acts, "output.1", 2);
    acts.push_back({"output.10", f32({1}, {10})});
    acts.push_back({"output.2", f32({1}, {2})});
    QVERIFY(writeSafetensors(path(dir, "activations.safetensors"), acts, kMetadata));

    Expected<ArchiveRecordings> r = readArchiveRecordings(dir.path().toStdString(), {"x", "fc", "conv", "output"});
    QVERIFY2(r, r ? "" : r.message().c_str());
    QVERIFY(!r->hasInputs() && r->hasActivations());
    QVERIFY2(r->warnings.empty(), r->warnings.empty() ? "" : r->warnings[0].c_str());
    QCOMPARE(QString::fromStdString(r->metadata("producer")), QStringLiteral("lattice_studio_export 0.1.0"));
    QCOMPARE(QString::fromStdString(r->metadata("torch")), QStringLiteral("1.13.0"));

    std::vector<RecordedValue> fc = r->valuesOf("fc");
    QCOMPARE(fc.size(), std::size_t(1));
    QVERIFY(!fc[0].sparse);
    QCOMPARE(QString::fromStdString(fc[0].name), QStringLiteral("fc"));
    QCOMPARE(fc[0].tensor.shape(), (std::vector<int64_t>{2, 3}));
    QCOMPARE(firstFloat(fc[0].tensor), 0.5f);

    std::vector<RecordedValue> conv = r->valuesOf("conv");
    QCOMPARE(conv.size(), std::size_t(1));
    QVERIFY(conv[0].sparse);
    QCOMPARE(conv[0].coords.shape(), (std::vector<int64_t>{4, 4}));
    QCOMPARE(conv[0].features.shape(), (std::vector<int64_t>{4, 2}));
    QCOMPARE(conv[0].active.shape(), (std::vector<int64_t>{1}));

    std::vector<RecordedValue> out = r->valuesOf("output");
    QCOMPARE(out.size(), std::size_t(4));
    QStringList names;
    for (const RecordedValue& v : out) names << QString::fromStdString(v.name);
    QCOMPARE(names, (QStringList{"output.0", "output.1", "output.2", "output.10"}));
    QVERIFY(!out[0].sparse && out[1].sparse && !out[2].sparse);
    QCOMPARE(firstFloat(out[3].tensor), 10.0f);
    QCOMPARE(QString::fromStdString(out[1].node), QStringLiteral("output"));

    QVERIFY(r->valuesOf("missing").empty());
    QCOMPARE(r->byNode.size(), std::size_t(4));
  }

  void strayTensorsAreWarnings() {
    QTemporaryDir dir;
    std::vector<NamedTensor> acts;
    acts.push_back({"fc", f32({1}, {1})});
    acts.push_back({"ghost", f32({1}, {1})});              // no such node
    acts.push_back({"fc.weight", f32({1}, {1})});          // not the key rule
    acts.push_back({"half.coords", i32({1, 4}, {0, 0, 0, 0})}); // incomplete sparse
    addSparse(acts, "bad", 2);
    acts.back().tensor = i32({1}, {5});                    // bad.active: 5 > 2 rows
    addSparse(acts, "both", 1);
    acts.push_back({"both", f32({1}, {1})});               // dense and sparse at once
    QVERIFY(writeSafetensors(path(dir, "activations.safetensors"), acts, std::nullopt));

    Expected<ArchiveRecordings> r = readArchiveRecordings(dir.path().toStdString(), {"fc", "half", "bad", "both"});
    QVERIFY2(r, r ? "" : r.message().c_str());
    QStringList warnings;
    for (const std::string& w : r->warnings) warnings << QString::fromStdString(w);
    QCOMPARE(warnings, (QStringList{
        "activations.safetensors: tensor 'fc.weight' is not named NODE, NODE.<index>... or "
        "NODE[.<index>...].coords|features|active",
        "activations.safetensors: tensor 'ghost' matches no node of the traced graph",
        "activations.safetensors: sparse value 'bad': active is 5, outside [0, 2]",
        "activations.safetensors: 'both' is recorded both as a tensor and as a sparse value",
        "activations.safetensors: sparse value 'half' lacks half.features, half.active",
    }));
    QCOMPARE(r->valuesOf("fc").size(), std::size_t(1));
    QVERIFY(r->valuesOf("half").empty() && r->valuesOf("bad").empty() && r->valuesOf("both").empty());
    QCOMPARE(QString::fromStdString(r->metadata("producer")), QString());

    // Without node names only the key rule is checked.
    r = readArchiveRecordings(dir.path().toStdString(), {});
    QVERIFY(r);
    QCOMPARE(r->valuesOf("ghost").size(), std::size_t(1));
  }

  void illShapedSparseParts() {
    QTemporaryDir dir;
    std::vector<NamedTensor> acts;
    addSparse(acts, "a", 2);
    acts[0].tensor = i32({2, 3}, {0, 0, 0, 0, 0, 0}); // a.coords (2, 3)
    addSparse(acts, "b", 2);
    acts[4].tensor = f32({3, 2}, {0, 0, 0, 0, 0, 0}); // b.features 3 rows
    QVERIFY(writeSafetensors(path(dir, "activations.safetensors"), acts, std::nullopt));
    Expected<ArchiveRecordings> r = readArchiveRecordings(dir.path().toStdString(), {"a", "b"});
    QVERIFY(r);
    QStringList warnings;
    for (const std::string& w : r->warnings) warnings << QString::fromStdString(w);
    QCOMPARE(warnings, (QStringList{
        "activations.safetensors: sparse value 'a': coords must be I32 (n, 4), got I32 [2, 3]",
        "activations.safetensors: sparse value 'b': features must be (n, C) with n = 2 coords rows, got [3, 2]",
    }));
  }

  void unreadableFileIsAnError() {
    QTemporaryDir dir;
    {
      std::ofstream out(path(dir, "activations.safetensors"), std::ios::binary);
      out << "not a safetensors file";
    }
    Expected<ArchiveRecordings> r = readArchiveRecordings(dir.path().toStdString(), {"x"});
    QVERIFY(!r);
    QVERIFY2(r.message().find("activations.safetensors") != std::string::npos, r.message().c_str());

    QTemporaryDir other;
    {
      std::ofstream out(path(other, "inputs.safetensors"), std::ios::binary);
      out << "12345678";
    }
    r = readArchiveRecordings(other.path().toStdString(), {"x"});
    QVERIFY(!r);
    QVERIFY2(r.message().find("inputs.safetensors") != std::string::npos, r.message().c_str());
  }
};

QTEST_APPLESS_MAIN(TestArchiveRecordings)
#include "tst_archive_recordings.moc"
