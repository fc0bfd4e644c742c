// Tests of checkpoints: replacing a model's weights from .safetensors files and torch.save'd
// state_dicts, the report of missing / unexpected / mismatched keys, and refusing a mismatched
// checkpoint unless partial application is asked for. The safetensors cases use the built-in
// chain example (two seeds give the same records with other values) and run everywhere; the
// PyTorch cases use the fixtures of tests/torchscript/make_fixtures.py, whose expected values
// Python wrote to safetensors with its own writer.

#include "model/torchscript/Checkpoint.h"
#include "model/Examples.h"
#include "model/torchscript/TorchPickle.h"
#include "model/torchscript/TorchScriptImporter.h"
#include "tensor/Safetensors.h"

#include <QtTest/QtTest>

#include <fstream>
#include <set>
#include <sstream>

using namespace lattice;

namespace {

const QString kFixtures = QStringLiteral(LATTICE_TORCH_FIXTURES_DIR);

#define REQUIRE_FIXTURES()                                                                                   \
  do {                                                                                                       \
    if (!QFile::exists(kFixtures + QStringLiteral("/fixtures.stamp")))                                       \
      QSKIP("TorchScript fixtures were not generated: the python3 found at configure time cannot import "   \
            "torch (install python3-torch and re-run cmake)");                                               \
  } while (false)

std::string fixture(const QString& name) {
  return QString(kFixtures + QLatin1Char('/') + name).toStdString();
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// Every tensor of `model` as a checkpoint (the examples record every tensor they hold).
Checkpoint checkpointOf(const Model& model, const std::string& source) {
  Checkpoint c;
  c.source = source;
  for (const auto& [key, tensor] : model.tensors()) c.tensors.push_back({key, tensor});
  return c;
}

std::map<std::string, TensorData> snapshot(const Model& model) { return model.tensors(); }

/// A string literal with embedded NUL bytes.
template <std::size_t N>
std::string bytes(const char (&text)[N]) {
  return std::string(text, N - 1);
}

/// What torch.save(OrderedDict(w=tensor)) writes (protocol 2), assembled by hand: the dict is an
/// OrderedDict (REDUCE of collections.OrderedDict) with a BUILD state, as state_dict() returns.
std::string handPickledStateDict(int64_t size) {
  std::string p = bytes("\x80\x02");                                   // PROTO 2
  p += bytes("ccollections\nOrderedDict\nq\x00)Rq\x01");              // OrderedDict()
  p += bytes("X\x01\x00\x00\x00w");                                   // 'w'
  p += bytes("ctorch._utils\n_rebuild_tensor_v2\nq\x02((");
  p += bytes("X\x07\x00\x00\x00storage") + bytes("ctorch\nFloatStorage\n");
  p += bytes("X\x01\x00\x00\x00" "0") + bytes("X\x03\x00\x00\x00" "cpu") + bytes("K\x02tQ");
  p += bytes("K\x00");                                                 // storage offset 0
  p += "K" + std::string(1, char(size)) + bytes("\x85");               // size (size,)
  p += bytes("K\x01\x85\x89h\x00)R");                                // stride (1,), False, OrderedDict()
  p += bytes("tRs}b.");                                                 // REDUCE, SETITEM, BUILD {}, STOP
  return p;
}

/// A pickle int of any value: LONG1 with 8 little-endian bytes.
std::string pickleInt(int64_t v) {
  std::string p = bytes("\x8a\x08");
  for (int i = 0; i < 8; ++i) p += char((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  return p;
}

std::string pickleInts(const QList<qlonglong>& values) {
  std::string p = "(";
  for (qlonglong v : values) p += pickleInt(v);
  return p + "t";
}

/// {'w': _rebuild_tensor_v2(FloatStorage '0', offset, size, stride, False, OrderedDict())} as
/// a plain dict, written by hand (protocol 2) so any offset, size and stride can be claimed.
std::string pickledTensor(qlonglong offset, const QList<qlonglong>& size, const QList<qlonglong>& stride) {
  std::string p = bytes("\x80\x02}(X\x01\x00\x00\x00w");
  p += bytes("ctorch._utils\n_rebuild_tensor_v2\n(");
  p += bytes("(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x00" "0X\x03\x00\x00\x00" "cpuK\x06tQ");
  p += pickleInt(offset) + pickleInts(size) + pickleInts(stride);
  p += bytes("\x89") + bytes("ccollections\nOrderedDict\n)Rt") + bytes("Ru.");
  return p;
}

/// Six floats 0..5: the storage every hand-written tensor above refers to.
const float kSixFloats[] = {0.f, 1.f, 2.f, 3.f, 4.f, 5.f};

Expected<std::vector<NamedTensor>> unpickleOverSixFloats(const std::string& pickle) {
  auto load = [](const std::string&) {
    return TorchStorageBytes{reinterpret_cast<const uint8_t*>(kSixFloats), sizeof kSixFloats, nullptr};
  };
  return unpickleTorchTensors(pickle, load, "hand.pt");
}

Model importOrFail(const std::string& path) {
  auto model = importTorchScript(path);
  if (!model) qFatal("%s", model.message().c_str());
  return std::move(*model);
}

/// Model tensors equal to the tensors of a safetensors file written by Python.
void compareWithSafetensors(const Model& model, const std::string& path,
                            const std::set<std::string>& skip = {}) {
  auto expected = SafetensorsFile::open(path);
  QVERIFY2(expected.ok(), expected ? "" : expected.message().c_str());
  for (const NamedTensor& t : expected->tensors()) {
    if (skip.count(t.key)) continue;
    const TensorData* ours = model.tensor(t.key);
    QVERIFY2(ours && *ours == t.tensor, t.key.c_str());
  }
}

} // namespace

class TestCheckpoint : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // --- safetensors, no PyTorch needed -------------------------------------------------------

  void safetensorsCheckpointReplacesEveryTensor() {
    Model model = makeChain(2, 0);
    const Model other = makeChain(2, 5);
    QTemporaryDir tmp;
    const std::string path = tmp.filePath(QStringLiteral("other.safetensors")).toStdString();
    QVERIFY(writeSafetensors(path, checkpointOf(other, path).tensors, torchWeightsMetadata()).ok());
    const std::shared_ptr<fx::Graph> graph = model.root().graph;
    QVERIFY(*model.tensor("blocks.0.0.weight") != *other.tensor("blocks.0.0.weight"));

    auto report = loadWeights(model, path);
    QVERIFY2(report.ok(), report ? "" : report.message().c_str());
    QVERIFY(report->clean());
    QCOMPARE(report->matched, other.tensors().size());
    QCOMPARE(report->modelTensors, other.tensors().size());
    QCOMPARE(report->summary(), path + ": " + std::to_string(other.tensors().size()) + " of " +
                                    std::to_string(other.tensors().size()) + " tensors matched");
    for (const auto& [key, tensor] : other.tensors()) QVERIFY2(*model.tensor(key) == tensor, key.c_str());
    QCOMPARE(model.root().graph, graph); // only the weights change
  }

  void issuesAreReportedAndRefusedUnlessPartial_data() {
    QTest::addColumn<QString>("change");
    QTest::addColumn<int>("kind");
    QTest::newRow("missing key") << "missing" << int(CheckpointIssue::Kind::Missing);
    QTest::newRow("unexpected key") << "unexpected" << int(CheckpointIssue::Kind::Unexpected);
    QTest::newRow("shape mismatch") << "shape" << int(CheckpointIssue::Kind::Mismatch);
    QTest::newRow("dtype mismatch") << "dtype" << int(CheckpointIssue::Kind::Mismatch);
  }
  void issuesAreReportedAndRefusedUnlessPartial() {
    QFETCH(QString, change);
    QFETCH(int, kind);
    Model model = makeChain(1, 0);
    const Model other = makeChain(1, 3);
    Checkpoint checkpoint = checkpointOf(other, "other.safetensors");
    const std::string key = "blocks.0.0.weight";
    const TensorData* original = model.tensor(key);
    QVERIFY(original && original->dtype() == DType::F32);
    const std::string modelShape = shapeText(original->shape());

    std::string issueKey = key, message;
    for (auto it = checkpoint.tensors.begin(); it != checkpoint.tensors.end(); ++it) {
      if (it->key != key) continue;
      if (change == QLatin1String("missing")) {
        checkpoint.tensors.erase(it);
        message = "'" + key + "': missing from the checkpoint";
      } else if (change == QLatin1String("unexpected")) {
        checkpoint.tensors.push_back({"extra.weight", TensorData::zeros(DType::F32, {2})});
        issueKey = "extra.weight";
        message = "'extra.weight': not a parameter or buffer of the model";
      } else if (change == QLatin1String("shape")) {
        it->tensor = TensorData::zeros(DType::F32, {2, 2});
        message = "'" + key + "': shape [2, 2] in the checkpoint, " + modelShape + " in the model";
      } else {
        it->tensor = TensorData::zeros(DType::F16, original->shape());
        message = "'" + key + "': dtype F16 in the checkpoint, F32 in the model";
      }
      break;
    }
    const std::size_t total = other.tensors().size();
    const std::size_t matched = change == QLatin1String("unexpected") ? total : total - 1;

    const CheckpointReport compared = compareCheckpoint(model, checkpoint);
    QCOMPARE(compared.issues.size(), std::size_t(1));
    QCOMPARE(int(compared.issues[0].kind), kind);
    QCOMPARE(compared.issues[0].key, issueKey);
    QCOMPARE(compared.issues[0].message, message);
    QCOMPARE(compared.matched, matched);

    const auto before = snapshot(model);
    auto refused = applyCheckpoint(model, checkpoint);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.message().rfind("other.safetensors: checkpoint does not match the model (", 0) == 0,
             refused.message().c_str());
    QVERIFY2(refused.message().find(message) != std::string::npos, refused.message().c_str());
    QVERIFY(snapshot(model) == before); // untouched

    auto partial = applyCheckpoint(model, checkpoint, CheckpointOptions{true});
    QVERIFY2(partial.ok(), partial ? "" : partial.message().c_str());
    QCOMPARE(partial->matched, matched);
    QCOMPARE(partial->issues.size(), std::size_t(1));
    for (const auto& [k, tensor] : other.tensors()) {
      const bool skipped = k == key && change != QLatin1String("unexpected");
      QVERIFY2(*model.tensor(k) == (skipped ? before.at(k) : tensor), k.c_str());
    }
    QVERIFY(!model.tensor("extra.weight"));
  }

  void refusalListsTheFirstIssuesAndCountsTheRest() {
    Model model = makeChain(1, 0);
    Checkpoint checkpoint = checkpointOf(model, "ckpt");
    const std::size_t total = checkpoint.tensors.size();
    QVERIFY(total > 5);
    std::vector<std::string> dropped;
    for (int i = 0; i < 5; ++i) {
      dropped.push_back(checkpoint.tensors.back().key);
      checkpoint.tensors.pop_back();
    }
    auto refused = applyCheckpoint(model, checkpoint);
    QVERIFY(!refused.ok());
    const std::string& m = refused.message();
    QVERIFY2(m.find("(" + std::to_string(total - 5) + " of " + std::to_string(total) +
                    " tensors matched, 5 missing)") != std::string::npos,
             m.c_str());
    QVERIFY2(m.find("; and 2 more") != std::string::npos, m.c_str());
    QVERIFY(m.find('\n') == std::string::npos);
  }

  void nothingMatchingIsRefusedEvenWhenPartial() {
    Model model = makeChain(1, 0);
    Checkpoint checkpoint;
    checkpoint.source = "unrelated.safetensors";
    checkpoint.tensors.push_back({"fc.weight", TensorData::zeros(DType::F32, {2, 2})});
    auto refused = applyCheckpoint(model, checkpoint, CheckpointOptions{true});
    QVERIFY(!refused.ok());
    QVERIFY2(refused.message().find("no tensor of the checkpoint matches the model") != std::string::npos,
             refused.message().c_str());
  }

  void unreadableFilesNameTheFile_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes"); // empty: the file is not created
    QTest::newRow("missing") << "absent.safetensors" << QByteArray();
    QTest::newRow("garbage") << "garbage.safetensors"
                             << QByteArray("\x05\x00\x00\x00\x00\x00\x00\x00{bad", 12);
  }
  void unreadableFilesNameTheFile() {
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QTemporaryDir tmp;
    const QString path = tmp.filePath(name);
    if (!bytes.isEmpty()) {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(bytes);
    }
    Model model = makeChain(1, 0);
    auto report = loadWeights(model, path.toStdString());
    QVERIFY(!report.ok());
    QVERIFY2(report.message().find(path.toStdString()) == 0, report.message().c_str());
  }

  void unpicklerReadsAnOrderedDictStateDict_data() {
    QTest::addColumn<int>("size");
    QTest::addColumn<int>("truncate"); // bytes cut from the end
    QTest::addColumn<QString>("error");
    QTest::newRow("fits") << 2 << 0 << QString();
    QTest::newRow("storage too small") << 3 << 0 << QStringLiteral("'w': storage '0' (2 elements) is too small");
    QTest::newRow("truncated") << 2 << 3 << QStringLiteral("data.pkl: truncated pickle");
  }
  void unpicklerReadsAnOrderedDictStateDict() {
    QFETCH(int, size);
    QFETCH(int, truncate);
    QFETCH(QString, error);
    static const float storage[] = {1.5f, -2.0f};
    std::string pickle = handPickledStateDict(size);
    pickle.resize(pickle.size() - static_cast<std::size_t>(truncate));
    std::vector<std::string> loaded;
    auto load = [&](const std::string& key) {
      loaded.push_back(key);
      return TorchStorageBytes{reinterpret_cast<const uint8_t*>(storage), sizeof storage, nullptr};
    };
    auto tensors = unpickleTorchTensors(pickle, load, "hand.pt");
    if (!error.isEmpty()) {
      QVERIFY(!tensors.ok());
      QVERIFY2(tensors.message().rfind("hand.pt: ", 0) == 0, tensors.message().c_str());
      QVERIFY2(QString::fromStdString(tensors.message()).contains(error), tensors.message().c_str());
      return;
    }
    QVERIFY2(tensors.ok(), tensors ? "" : tensors.message().c_str());
    QCOMPARE(loaded, std::vector<std::string>{"0"});
    QCOMPARE(tensors->size(), std::size_t(1));
    QCOMPARE((*tensors)[0].key, std::string("w"));
    QCOMPARE((*tensors)[0].tensor.shape(), std::vector<int64_t>{2});
    QCOMPARE((*tensors)[0].tensor.as<float>()[0], 1.5f);
    QCOMPARE((*tensors)[0].tensor.as<float>()[1], -2.0f);
  }

  // --- Pickle bounds (untrusted data.pkl); expectations worked out by hand ---

  void pickleTensorBounds_data() {
    QTest::addColumn<qlonglong>("offset");
    QTest::addColumn<QList<qlonglong>>("size");
    QTest::addColumn<QList<qlonglong>>("stride");
    QTest::addColumn<QList<double>>("values"); // what the tensor reads, when `error` is empty
    QTest::addColumn<QString>("error");
    const QString tooSmall = QStringLiteral("hand.pt: 'w': storage '0' (6 elements) is too small");
    // Legitimate views: a transposed 2x3 (rows 0 1 2 / 3 4 5), an offset slice, a small broadcast.
    QTest::newRow("transposed") << 0LL << QList<qlonglong>{3, 2} << QList<qlonglong>{1, 3}
                                << QList<double>{0, 3, 1, 4, 2, 5} << QString();
    QTest::newRow("offset and step") << 1LL << QList<qlonglong>{2} << QList<qlonglong>{2}
                                     << QList<double>{1, 3} << QString();
    QTest::newRow("contiguous at the end") << 4LL << QList<qlonglong>{2} << QList<qlonglong>{1}
                                           << QList<double>{4, 5} << QString();
    QTest::newRow("size-1 dimension, huge stride") << 0LL << QList<qlonglong>{1, 3}
                                                   << QList<qlonglong>{qlonglong(1) << 62, 1}
                                                   << QList<double>{0, 1, 2} << QString();
    QTest::newRow("small broadcast (stride 0)") << 2LL << QList<qlonglong>{3} << QList<qlonglong>{0}
                                                << QList<double>{2, 2, 2} << QString();
    // (2^62 + 1 - 1) * 4 = 2^64: wraps to 0 in unchecked int64 arithmetic.
    QTest::newRow("size x stride overflows") << 0LL << QList<qlonglong>{(qlonglong(1) << 62) + 1}
                                             << QList<qlonglong>{4} << QList<double>{} << tooSmall;
    // Each extent fits ((2^61 - 1) * 4 = 2^63 - 4 and 1 * 2^62) but their sum passes 2^63 - 1.
    QTest::newRow("sum of extents overflows") << 0LL << QList<qlonglong>{qlonglong(1) << 61, 2}
                                              << QList<qlonglong>{4, qlonglong(1) << 62} << QList<double>{} << tooSmall;
    QTest::newRow("one past the end") << 0LL << QList<qlonglong>{7} << QList<qlonglong>{1} << QList<double>{} << tooSmall;
    QTest::newRow("strided past the end") << 1LL << QList<qlonglong>{2, 2} << QList<qlonglong>{3, 2}
                                          << QList<double>{} << tooSmall; // last = 1 + 3 + 2 = 6
    QTest::newRow("offset past the record") << 7LL << QList<qlonglong>{1} << QList<qlonglong>{1} << QList<double>{}
                                            << QStringLiteral("storage offset 7 lies outside storage '0' (6 elements)");
    QTest::newRow("negative offset") << -1LL << QList<qlonglong>{1} << QList<qlonglong>{1} << QList<double>{}
                                     << QStringLiteral("storage offset -1 lies outside");
    QTest::newRow("negative stride") << 5LL << QList<qlonglong>{2} << QList<qlonglong>{-1} << QList<double>{}
                                     << QStringLiteral("negative stride");
    QTest::newRow("numel overflows") << 0LL << QList<qlonglong>{qlonglong(1) << 32, qlonglong(1) << 32}
                                     << QList<qlonglong>{0, 0} << QList<double>{} << QStringLiteral("invalid shape");
    // 1e9 elements of stride 0 over 6: a 4 GB copy of one float, refused before allocating.
    QTest::newRow("huge broadcast (stride 0)") << 0LL << QList<qlonglong>{1000000000} << QList<qlonglong>{0}
                                               << QList<double>{}
                                               << QStringLiteral("a non-contiguous tensor of 1000000000 elements over storage '0' of 6 elements");
  }
  void pickleTensorBounds() {
    QFETCH(qlonglong, offset);
    QFETCH(QList<qlonglong>, size);
    QFETCH(QList<qlonglong>, stride);
    QFETCH(QList<double>, values);
    QFETCH(QString, error);
    auto tensors = unpickleOverSixFloats(pickledTensor(offset, size, stride));
    if (!error.isEmpty()) {
      QVERIFY(!tensors.ok());
      QVERIFY2(QString::fromStdString(tensors.message()).contains(error), tensors.message().c_str());
      QVERIFY(tensors.message().find('\n') == std::string::npos);
      return;
    }
    QVERIFY2(tensors.ok(), tensors ? "" : tensors.message().c_str());
    QCOMPARE(tensors->size(), std::size_t(1));
    const TensorData& t = (*tensors)[0].tensor;
    QCOMPARE(t.shape(), std::vector<int64_t>(size.begin(), size.end()));
    QCOMPARE(t.numel(), int64_t(values.size()));
    for (int i = 0; i < values.size(); ++i) QCOMPARE(double(t.as<float>()[i]), values[i]);
  }

  void pickleSelfReferenceIsBounded() {
    // {'w': _rebuild_from_type_v2(*L)} where L = [_rebuild_from_type_v2, None, L]: each call
    // unwraps to the same call again.
    const std::string pickle = bytes("\x80\x02}(X\x01\x00\x00\x00w") +
                               bytes("ctorch._tensor\n_rebuild_from_type_v2\nq\x00]q\x01h\x00") + bytes("aNah\x01") + bytes("aRu.");
    auto tensors = unpickleOverSixFloats(pickle);
    QVERIFY(!tensors.ok());
    QVERIFY2(tensors.message().find("nested too deeply") != std::string::npos, tensors.message().c_str());

    // A list that contains itself: nothing to rebuild, nothing leaked (ASan's leak check).
    auto cycle = unpickleOverSixFloats(bytes("\x80\x02}(X\x01\x00\x00\x00w]q\x00h\x00") + bytes("au."));
    QVERIFY(!cycle.ok());
    QVERIFY2(cycle.message() == "hand.pt: 'w' is not a tensor (list)", cycle.message().c_str());
  }

  void pickleDeepNestingIsFreedWithoutRecursion() {
    // {'k': [[[...]]]} nested 200000 deep: built with ']' pushes and 'a' appends.
    constexpr int kDepth = 200000;
    std::string pickle = bytes("\x80\x02}X\x01\x00\x00\x00k");
    pickle += std::string(kDepth, ']') + std::string(kDepth - 1, 'a') + "s.";
    auto tensors = unpickleOverSixFloats(pickle);
    QVERIFY(!tensors.ok());
    QCOMPARE(tensors.message(), std::string("hand.pt: 'k' is not a tensor (list)"));
  }

  void pickleWrappedStateDictOutlivesItsOwner() {
    // {'state_dict': {'w': tensor}, 'epoch': 1} with no memo entry holding the outer dict: the
    // reader must not free the outer dict while it walks it to find the inner one.
    std::string inner = pickledTensor(0, {3}, {1});
    inner = inner.substr(2, inner.size() - 3); // without PROTO and STOP: "}(X..w ... Ru"
    const std::string pickle = bytes("\x80\x02}(X\x0a\x00\x00\x00state_dict") + inner +
                               bytes("X\x05\x00\x00\x00" "epochK\x01u.");
    auto tensors = unpickleOverSixFloats(pickle);
    QVERIFY2(tensors.ok(), tensors ? "" : tensors.message().c_str());
    QCOMPARE(tensors->size(), std::size_t(1));
    QCOMPARE((*tensors)[0].key, std::string("w"));
    QCOMPARE((*tensors)[0].tensor.as<float>()[2], 2.0f);
  }

  void reproducerCheckpointsAreRefused_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("error");
    QTest::newRow("recursive rebuild") << "ckpt_recursive_rebuild.pt" << "nested too deeply";
    QTest::newRow("size x stride") << "ckpt_size_stride_overflow.pt" << "'w': storage '0' (16 elements) is too small";
    QTest::newRow("stride 0") << "ckpt_stride0_1e9.pt" << "a non-contiguous tensor of 1000000000 elements";
    QTest::newRow("bad version") << "ckpt_bad_version_libtorch_leak.pt"
                                 << "not a torch.save checkpoint: version record 'J????3?' is not a number";
  }
  void reproducerCheckpointsAreRefused() {
    QFETCH(QString, name);
    QFETCH(QString, error);
    const std::string path = std::string(LATTICE_TEST_DATA_DIR "/repro/") + name.toStdString();
    auto tensors = readTorchTensors(path);
    QVERIFY(!tensors.ok());
    QVERIFY2(tensors.message().rfind(path + ": ", 0) == 0, tensors.message().c_str());
    QVERIFY2(QString::fromStdString(tensors.message()).contains(error), tensors.message().c_str());
  }

  void reproducerStateDictIsRead() {
    // ckpt_state_dict_uaf.pt: {'state_dict': {'w': 4 floats}, 'epoch': 1}.
    auto tensors = readTorchTensors(LATTICE_TEST_DATA_DIR "/repro/ckpt_state_dict_uaf.pt");
    QVERIFY2(tensors.ok(), tensors ? "" : tensors.message().c_str());
    QCOMPARE(tensors->size(), std::size_t(1));
    QCOMPARE((*tensors)[0].tensor.shape(), std::vector<int64_t>{4});
  }

  // --- PyTorch checkpoints (fixtures) -------------------------------------------------------

  void pytorchCheckpointsApply_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("torch.save state_dict") << "mlp.seed1.state_dict.pt";
    QTest::newRow("wrapped {'state_dict': ...}") << "mlp.wrapped.pt";
    QTest::newRow("safetensors from Python") << "mlp.seed1.safetensors";
  }
  void pytorchCheckpointsApply() {
    REQUIRE_FIXTURES();
    QFETCH(QString, file);
    Model model = importOrFail(fixture(QStringLiteral("mlp.pt")));
    auto report = loadWeights(model, fixture(file));
    QVERIFY2(report.ok(), report ? "" : report.message().c_str());
    QVERIFY(report->clean());
    QCOMPARE(report->matched, std::size_t(4));
    compareWithSafetensors(model, fixture(QStringLiteral("mlp.seed1.safetensors")));
  }

  void torchScriptArchiveServesAsCheckpoint() {
    REQUIRE_FIXTURES();
    Model model = importOrFail(fixture(QStringLiteral("mlp.pt")));
    QVERIFY(loadWeights(model, fixture(QStringLiteral("mlp.seed1.state_dict.pt"))).ok());
    auto report = loadWeights(model, fixture(QStringLiteral("mlp.pt")));
    QVERIFY2(report.ok(), report ? "" : report.message().c_str());
    QCOMPARE(report->matched, std::size_t(4));
    compareWithSafetensors(model, fixture(QStringLiteral("mlp.safetensors")));
  }

  void wrongShapesAreRefused() {
    REQUIRE_FIXTURES();
    Model model = importOrFail(fixture(QStringLiteral("mlp.pt")));
    const std::string path = fixture(QStringLiteral("mlp.wrong_shapes.pt"));
    auto report = loadWeights(model, path);
    QVERIFY(!report.ok());
    const std::string& m = report.message();
    // mlp(hidden=6) against hidden=8: Linear(4, 6) and Linear(6, 3); only '2.bias' [3] agrees.
    for (const char* part : {": checkpoint does not match the model (1 of 4 tensors matched, 3 mismatched): ",
                             "'0.weight': shape [6, 4] in the checkpoint, [8, 4] in the model",
                             "'0.bias': shape [6] in the checkpoint, [8] in the model",
                             "'2.weight': shape [3, 6] in the checkpoint, [3, 8] in the model"})
      QVERIFY2(m.find(part) != std::string::npos, m.c_str());
    QVERIFY(m.rfind(path, 0) == 0);
    compareWithSafetensors(model, fixture(QStringLiteral("mlp.safetensors"))); // untouched
  }

  void partialStateDictAppliesTheMatchingKeys() {
    REQUIRE_FIXTURES();
    Model model = importOrFail(fixture(QStringLiteral("mlp.pt")));
    const std::string path = fixture(QStringLiteral("mlp.partial.pt"));
    QVERIFY(!loadWeights(model, path).ok());
    auto report = loadWeights(model, path, CheckpointOptions{true});
    QVERIFY2(report.ok(), report ? "" : report.message().c_str());
    QCOMPARE(report->matched, std::size_t(3));
    QCOMPARE(report->issues.size(), std::size_t(2));
    QCOMPARE(report->issues[0].message, std::string("'2.bias': missing from the checkpoint"));
    QCOMPARE(report->issues[1].message,
             std::string("'extra.weight': not a parameter or buffer of the model"));
    QCOMPARE(report->summary(), path + ": 3 of 4 tensors matched, 1 missing, 1 unexpected");
    compareWithSafetensors(model, fixture(QStringLiteral("mlp.seed1.safetensors")), {"2.bias"});
    auto original = SafetensorsFile::open(fixture(QStringLiteral("mlp.safetensors")));
    QVERIFY(original.ok() && *model.tensor("2.bias") == *original->find("2.bias"));
  }

  void otherDtypeIsAMismatch() {
    REQUIRE_FIXTURES();
    Model model = importOrFail(fixture(QStringLiteral("mlp.pt")));
    auto report = loadWeights(model, fixture(QStringLiteral("mlp.f16.safetensors")));
    QVERIFY(!report.ok());
    QVERIFY2(report.message().find("'0.weight': dtype F16 in the checkpoint, F32 in the model") !=
                 std::string::npos,
             report.message().c_str());
  }

  void viewsAreReadWithTheirStridesAndOffsets() {
    REQUIRE_FIXTURES();
    auto checkpoint = readCheckpoint(fixture(QStringLiteral("views.pt")));
    QVERIFY2(checkpoint.ok(), checkpoint ? "" : checkpoint.message().c_str());
    const auto& t = checkpoint->tensors;
    QCOMPARE(t.size(), std::size_t(3));
    // arange(6).reshape(2, 3).t() = [[0, 3], [1, 4], [2, 5]]
    QCOMPARE(t[0].key, std::string("transposed"));
    QCOMPARE(t[0].tensor.shape(), (std::vector<int64_t>{3, 2}));
    const float transposed[] = {0, 3, 1, 4, 2, 5};
    for (int i = 0; i < 6; ++i) QCOMPARE(t[0].tensor.as<float>()[i], transposed[i]);
    // arange(10)[4:7] = [4, 5, 6]: storage offset 4
    QCOMPARE(t[1].key, std::string("sliced"));
    QCOMPARE(t[1].tensor.shape(), (std::vector<int64_t>{3}));
    for (int i = 0; i < 3; ++i) QCOMPARE(t[1].tensor.as<float>()[i], float(4 + i));
    QCOMPARE(t[2].key, std::string("scalar"));
    QCOMPARE(t[2].tensor.dtype(), DType::I64);
    QVERIFY(t[2].tensor.shape().empty());
    QCOMPARE(t[2].tensor.as<int64_t>()[0], int64_t(7));
  }

  void badPytorchFiles_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");
    QTest::newRow("truncated zip") << "truncated" << "";
    QTest::newRow("legacy pickle") << "legacy" << "legacy torch.save format";
  }
  void badPytorchFiles() {
    REQUIRE_FIXTURES();
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    QTemporaryDir tmp;
    const std::string path = tmp.filePath(QStringLiteral("weights.pt")).toStdString();
    if (kind == QLatin1String("truncated")) {
      std::ifstream in(fixture(QStringLiteral("mlp.seed1.state_dict.pt")), std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      std::ofstream(path, std::ios::binary) << s.str().substr(0, s.str().size() / 2);
    } else {
      std::ofstream(path, std::ios::binary) << std::string("\x80\x02\x8a\x0alegacy", 9);
    }
    Model model = importOrFail(fixture(QStringLiteral("mlp.pt")));
    auto report = loadWeights(model, path);
    QVERIFY(!report.ok());
    QVERIFY2(report.message().rfind(path + ": ", 0) == 0, report.message().c_str());
    QVERIFY2(report.message().find('\n') == std::string::npos, report.message().c_str());
    QVERIFY2(report.message().find(expected.toStdString()) != std::string::npos, report.message().c_str());
  }
};

QTEST_APPLESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
