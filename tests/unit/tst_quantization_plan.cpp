// Tests for core/lowering/QuantizationPlan and the per-layer formats in the lowering: the plan
// file (parse, errors naming the entry, round trip), which entry decides a layer, glob matching,
// weightBytes against what quantizeAffine stores, and the builder's plan handling (normalized
// convolutions, unused entries, --keep-dense).

#include "lowering/Lowering.h"
#include "lowering/QuantizationPlan.h"
#include "lowering/WeightPacking.h"

#include "LoweringTestModels.h"

#include <QtTest/QtTest>

#include <random>

using namespace lattice;
using namespace lattice::testmodels;

namespace {

#define VERIFY_OK(expr)                                                                                        \
  do {                                                                                                         \
    const auto& v_ = (expr);                                                                                   \
    QVERIFY2(v_.ok(), v_.ok() ? "" : v_.message().c_str());                                                    \
  } while (0)

QString errorOf(const std::string& text) {
  Expected<QuantizationPlan> p = QuantizationPlan::parse(text, "plan.json");
  return p.ok() ? QStringLiteral("<parsed>") : QString::fromStdString(p.message());
}

TensorData randomWeights(std::vector<int64_t> shape, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, 0.3f);
  std::vector<float> v(static_cast<std::size_t>(shapeNumel(shape)));
  for (float& x : v) x = d(gen);
  return f32(std::move(shape), v);
}

/// conv "0" (SubmConv3d 2 → 3), conv "1" (`cls` 3 → 4), linear-free; a Sequential root.
Model twoConvModel(const std::string& secondClass) {
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

Expected<PreparedLowering> lowerWith(const Model& model, const ExportOptions& options) {
  Expected<PreparedLowering> p = prepareLowering(model, options);
  if (!p) return p.error();
  Status done = finishLowering(*p);
  if (!done) return done.error();
  return p;
}

std::shared_ptr<const QuantizationPlan> planOf(const std::string& text) {
  Expected<QuantizationPlan> p = QuantizationPlan::parse(text, "plan.json");
  if (!p) qFatal("%s", p.message().c_str());
  return std::make_shared<const QuantizationPlan>(std::move(*p));
}

} // namespace

class TestQuantizationPlan : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void parsesTheDocumentedForm() {
    const std::string text = R"({
      "format": "lattice-quantization-plan", "version": 1,
      "default": "int8",
      "layers": {
        "stem.0": "dense",
        "encoders.*": {"kind": "int4", "group_size": 64, "scale_dtype": "f32"},
        "classifier": "int4/g128"
      }
    })";
    Expected<QuantizationPlan> p = QuantizationPlan::parse(text, "plan.json");
    VERIFY_OK(p);
    QCOMPARE(p->defaultFormat.bits, 8);
    QCOMPARE(p->defaultFormat.groupSize, int64_t(32));
    QCOMPARE(p->defaultFormat.scaleDtype, std::string("f16"));
    QCOMPARE(p->entries.size(), std::size_t(3));
    // File order kept (not sorted: "classifier" < "encoders.*" < "stem.0").
    QCOMPARE(p->entries[0].pattern, std::string("stem.0"));
    QCOMPARE(p->entries[1].pattern, std::string("encoders.*"));
    QCOMPARE(p->entries[2].pattern, std::string("classifier"));
    QVERIFY(p->entries[0].format.dense());
    QCOMPARE(p->entries[1].format, WeightFormat::quantized(4, 64, "f32"));
    QCOMPARE(p->entries[2].format, WeightFormat::quantized(4, 128, "f16"));
    QVERIFY(!p->entries[0].glob());
    QVERIFY(p->entries[1].glob());
    // A bare default object, no format/version (what a hand-written plan looks like).
    Expected<QuantizationPlan> bare = QuantizationPlan::parse(R"({"default": {"kind": "int4", "group_size": 64}})", "p");
    VERIFY_OK(bare);
    QCOMPARE(bare->defaultFormat, WeightFormat::quantized(4, 64));
    QVERIFY(bare->isUniform());
    // No default: dense.
    Expected<QuantizationPlan> none = QuantizationPlan::parse(R"({"layers": {"a": "int8"}})", "p");
    VERIFY_OK(none);
    QVERIFY(none->defaultFormat.dense());
  }

  void roundTrips() {
    QuantizationPlan plan = QuantizationPlan::uniform(WeightFormat::quantized(8, 64));
    plan.entries.push_back({"stem.*", WeightFormat::denseFormat()});
    plan.entries.push_back({"b.1", WeightFormat::quantized(4, 32, "f32")});
    plan.entries.push_back({"a.?", WeightFormat::quantized(4)});
    const std::string json = plan.toJson();
    QVERIFY(json.size() > 1 && json.back() == '\n');
    QVERIFY(json.find("\n  \"default\"") != std::string::npos); // two-space indent
    Expected<QuantizationPlan> back = QuantizationPlan::parse(json, "p");
    VERIFY_OK(back);
    QCOMPARE(back->defaultFormat, plan.defaultFormat);
    QCOMPARE(back->entries.size(), plan.entries.size());
    for (std::size_t i = 0; i < plan.entries.size(); ++i) {
      QCOMPARE(back->entries[i].pattern, plan.entries[i].pattern);
      QCOMPARE(back->entries[i].format, plan.entries[i].format);
    }
    QCOMPARE(back->toJson(), json);

    // A pattern given twice decides where it last appears; the file keeps that.
    QuantizationPlan twice;
    twice.entries.push_back({"a*", WeightFormat::quantized(4)});
    twice.entries.push_back({"ab*", WeightFormat::denseFormat()});
    twice.entries.push_back({"a*", WeightFormat::quantized(8)});
    QCOMPARE(twice.entryFor("abc"), 2);
    Expected<QuantizationPlan> reread = QuantizationPlan::parse(twice.toJson(), "p");
    VERIFY_OK(reread);
    QCOMPARE(reread->entries.size(), std::size_t(2));
    QCOMPARE(reread->formatFor("abc"), WeightFormat::quantized(8));
    QCOMPARE(reread->formatFor("ax"), WeightFormat::quantized(8));
  }

  void formatNames() {
    QCOMPARE(WeightFormat::denseFormat().name(), std::string("dense"));
    QCOMPARE(WeightFormat::quantized(8).name(), std::string("int8"));
    QCOMPARE(WeightFormat::quantized(4, 64).name(), std::string("int4/g64"));
    QCOMPARE(WeightFormat::quantized(8, 32, "f32").name(), std::string("int8/g32/f32"));
    for (const WeightFormat& f : {WeightFormat::denseFormat(), WeightFormat::quantized(8), WeightFormat::quantized(4, 64),
                                  WeightFormat::quantized(8, 128, "f32"), WeightFormat::quantized(4, 32, "f32")}) {
      Expected<WeightFormat> back = parseWeightFormat(f.name());
      VERIFY_OK(back);
      QCOMPARE(*back, f);
      QCOMPARE(back->name(), f.name());
    }
    for (const char* bad : {"int3", "int4/g16", "int4/x", "dense/g64", "", "int8/g64/g32"}) {
      Expected<WeightFormat> f = parseWeightFormat(bad);
      QVERIFY2(!f.ok(), bad);
      QVERIFY2(f.message().find(std::string("'") + bad + "'") != std::string::npos, f.message().c_str());
    }
  }

  void entryPrecedence() {
    QuantizationPlan plan = QuantizationPlan::uniform(WeightFormat::quantized(8));
    plan.entries.push_back({"stem.0", WeightFormat::quantized(4)});               // 0: exact
    plan.entries.push_back({"stem.*", WeightFormat::denseFormat()});              // 1
    plan.entries.push_back({"*", WeightFormat::quantized(4, 64)});                // 2
    plan.entries.push_back({"stem.?", WeightFormat::quantized(4, 128)});          // 3
    // The exact name wins over patterns, even earlier in the file.
    QCOMPARE(plan.entryFor("stem.0"), 0);
    QCOMPARE(plan.formatFor("stem.0"), WeightFormat::quantized(4));
    // Among patterns the last match wins.
    QCOMPARE(plan.entryFor("stem.1"), 3);
    QCOMPARE(plan.entryFor("stem.12"), 2); // `?` is one character: "*" (2) is the last match
    QCOMPARE(plan.entryFor("head"), 2);
    plan.entries.pop_back();
    plan.entries.pop_back();
    QCOMPARE(plan.entryFor("stem.12"), 1);
    QCOMPARE(plan.entryFor("head"), -1);
    QCOMPARE(plan.formatFor("head"), WeightFormat::quantized(8));
    QVERIFY(plan.formatFor("stem.3").dense());
  }

  void globs() {
    QVERIFY(globMatch("stem.*", "stem.0"));
    QVERIFY(globMatch("stem.*", "stem.0.main.1")); // `*` crosses dots
    QVERIFY(globMatch("stem.*", "stem."));
    QVERIFY(!globMatch("stem.*", "stem"));
    QVERIFY(globMatch("*", ""));
    QVERIFY(globMatch("*", "anything.at.all"));
    QVERIFY(globMatch("decoders.?.fuse.*", "decoders.3.fuse.0"));
    QVERIFY(!globMatch("decoders.?.fuse.*", "decoders.10.fuse.0"));
    QVERIFY(globMatch("*.conv", "a.b.conv"));
    QVERIFY(!globMatch("*.conv", "a.b.conv2"));
    QVERIFY(globMatch("a*b*c", "aXXbYYbZc"));
    QVERIFY(!globMatch("a*b*c", "aXXbYYcZ"));
    QVERIFY(globMatch("classifier", "classifier"));
    QVERIFY(!globMatch("classifier", "classifier.0"));
    QVERIFY(!globMatch("stem.0", "stemX0")); // `.` is itself
    QVERIFY(globMatch("**?", "x"));
    QVERIFY(!globMatch("**?", ""));
  }

  void errorsNameTheEntry_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("group size") << R"({"layers": {"stem.0": {"kind": "int4", "group_size": 16}}})"
                                << R"(plan.json: layers."stem.0": group_size must be 32, 64 or 128 (the sizes mlx-lattice accepts), got 16)";
    QTest::newRow("kind") << R"({"layers": {"stem.0": {"kind": "int3"}}})"
                          << R"(plan.json: layers."stem.0": unknown kind 'int3' (expected dense, int8 or int4))";
    QTest::newRow("kind string") << R"({"layers": {"head": "int3"}})"
                                 << R"(plan.json: layers."head": unknown weight format 'int3')";
    QTest::newRow("scale") << R"({"layers": {"a.*": {"kind": "int8", "scale_dtype": "bf16"}}})"
                           << R"(plan.json: layers."a.*": scale_dtype must be 'f16' or 'f32', got bf16)";
    QTest::newRow("entry key") << R"({"layers": {"a": {"kind": "int8", "group": 64}}})"
                               << R"(plan.json: layers."a": unknown key 'group' (expected kind, group_size, scale_dtype))";
    QTest::newRow("no kind") << R"({"layers": {"a": {"group_size": 64}}})" << R"(plan.json: layers."a": missing kind)";
    QTest::newRow("entry type") << R"({"layers": {"a": 8}})" << R"(plan.json: layers."a": expected a format)";
    QTest::newRow("default") << R"({"default": {"kind": "int8", "group_size": 48}})"
                             << R"(plan.json: default: group_size must be 32, 64 or 128)";
    QTest::newRow("top key") << R"({"default": "int8", "layer": {}})"
                             << R"(plan.json: unknown key 'layer' (expected format, version, default, layers))";
    QTest::newRow("format") << R"({"format": "something-else"})" << R"(plan.json: format must be "lattice-quantization-plan")";
    QTest::newRow("version") << R"({"format": "lattice-quantization-plan", "version": 2})"
                             << R"(plan.json: unsupported version 2)";
    QTest::newRow("layers type") << R"({"layers": ["a"]})" << R"(plan.json: layers: expected an object)";
    QTest::newRow("not object") << R"([1, 2])" << R"(plan.json: expected a JSON object)";
    QTest::newRow("syntax") << "{\n  \"default\": \"int8\",\n  \"layers\": {\"a\" \"int4\"}\n}"
                            << R"(plan.json: parse error at line 3, column)";
    QTest::newRow("empty path") << R"({"layers": {"": "int8"}})" << R"(plan.json: layers."": empty module path)";
  }
  void errorsNameTheEntry() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const QString error = errorOf(text.toStdString());
    QVERIFY2(error.startsWith(expected), qPrintable(error));
  }

  void readFileErrors() {
    Expected<QuantizationPlan> missing = QuantizationPlan::readFile("/nonexistent/plan.json");
    QVERIFY(!missing.ok());
    QVERIFY2(QString::fromStdString(missing.message()).startsWith(QStringLiteral("/nonexistent/plan.json: cannot read file: ")),
             missing.message().c_str());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("p.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"layers": {"x": {"kind": "int4", "group_size": 16}}})");
    f.close();
    Expected<QuantizationPlan> bad = QuantizationPlan::readFile(path.toStdString());
    QVERIFY(!bad.ok());
    QCOMPARE(QString::fromStdString(bad.message()),
             path + QStringLiteral(": layers.\"x\": group_size must be 32, 64 or 128 (the sizes mlx-lattice accepts), got 16"));
  }

  // weightBytes equals the bytes of the three tensors quantizeAffine stores, and numel · 4 dense.
  void weightBytesMatchesQuantizeAffine_data() {
    QTest::addColumn<QVector<qint64>>("shape");
    QTest::newRow("linear 10x96") << QVector<qint64>{10, 96};
    QTest::newRow("linear 7x33") << QVector<qint64>{7, 33};
    QTest::newRow("linear 3x1") << QVector<qint64>{3, 1};
    QTest::newRow("conv 1x1x1") << QVector<qint64>{8, 1, 1, 1, 40};
    QTest::newRow("conv 3x3x3") << QVector<qint64>{5, 3, 3, 3, 70};
    QTest::newRow("conv 2x1x3") << QVector<qint64>{4, 2, 1, 3, 129};
  }
  void weightBytesMatchesQuantizeAffine() {
    QFETCH(QVector<qint64>, shape);
    const std::vector<int64_t> s(shape.begin(), shape.end());
    const TensorData w = randomWeights(s, 11);
    QCOMPARE(weightBytes(s, WeightFormat::denseFormat()), static_cast<std::uint64_t>(w.byteSize()));
    QCOMPARE(weightBytes(s, WeightFormat::denseFormat(), 2), static_cast<std::uint64_t>(w.numel() * 2));
    for (int bits : {4, 8})
      for (int64_t g : {32, 64, 128})
        for (const char* scale : {"f16", "f32"}) {
          Expected<QuantizedWeight> q = quantizeAffine(w, bits, static_cast<int>(g),
                                                       std::string(scale) == "f16" ? DType::F16 : DType::F32);
          VERIFY_OK(q);
          const std::uint64_t stored = q->weight.byteSize() + q->scales.byteSize() + q->biases.byteSize();
          QCOMPARE(weightBytes(s, WeightFormat::quantized(bits, g, scale)), stored);
        }
  }

  // --- the builder and the lowering with a plan ------------------------------------------------

  void planPacksEachLayerAsAsked() {
    const Model m = twoConvModel("SubmConv3d");
    ExportOptions o;
    o.quantizationPlan = planOf(R"({"default": "int8", "layers": {"1": {"kind": "int4", "group_size": 64}}})");
    Expected<PreparedLowering> p = lowerWith(m, o);
    VERIFY_OK(p);
    const std::vector<QuantizableWeight>& q = p->builder->quantizableWeights();
    QCOMPARE(q.size(), std::size_t(2));
    QCOMPARE(q[0].layer, std::string("0"));
    QCOMPARE(q[0].storageKey, std::string("0.weight"));
    QCOMPARE(q[0].family, std::string("conv3d"));
    QCOMPARE(q[0].shape, (std::vector<int64_t>{3, 3, 3, 3, 2}));
    QCOMPARE(q[0].format, WeightFormat::quantized(8));
    QCOMPARE(q[1].format, WeightFormat::quantized(4, 64));
    QVERIFY(q[0].packable && q[1].packable);
    QCOMPARE(p->builder->weightKeysOf(p->builder->provenance()[q[1].provenance]),
             (std::vector<std::string>{"1.weight.weight", "1.weight.scales", "1.weight.biases"}));
    // The stored tensors are quantizeAffine's of the re-laid weight.
    const TensorData* codes = p->builder->weight("1.weight.weight");
    QVERIFY(codes);
    std::uint64_t bytes = 0;
    for (const char* part : {"1.weight.weight", "1.weight.scales", "1.weight.biases"})
      bytes += p->builder->weight(part)->byteSize();
    QCOMPARE(bytes, weightBytes(q[1].shape, q[1].format));
    QVERIFY(p->builder->unusedPlanEntries().empty());
  }

  void normalizedConvWithAPlan() {
    const Model m = twoConvModel("NormalizedSubmConv3d");
    // The default never packs it: it stays dense and the plain conv is int8.
    {
      ExportOptions o;
      o.quantizationPlan = planOf(R"({"default": "int8"})");
      Expected<PreparedLowering> p = lowerWith(m, o);
      VERIFY_OK(p);
      const std::vector<QuantizableWeight>& q = p->builder->quantizableWeights();
      QCOMPARE(q.size(), std::size_t(2));
      QCOMPARE(q[0].format, WeightFormat::quantized(8));
      QVERIFY(q[1].format.dense());
      QVERIFY(!q[1].packable);
      QVERIFY(p->builder->weight("1.weight"));
    }
    // An entry asking to pack it names itself, the layer and the class.
    for (const char* pattern : {"1", "*"}) {
      ExportOptions o;
      o.quantizationPlan = planOf(std::string("{\"layers\": {\"") + pattern + "\": \"int8\"}}");
      Expected<PreparedLowering> p = lowerWith(m, o);
      QVERIFY(!p.ok());
      QVERIFY2(p.message().find(std::string("quantization plan entry '") + pattern +
                                "' asks int8 for '1', a NormalizedSubmConv3d: its weights stay dense because "
                                "normalization depends on weight squares") != std::string::npos,
               p.message().c_str());
    }
    // An entry asking dense for it is fine (and used).
    ExportOptions o;
    o.quantizationPlan = planOf(R"({"default": "int4", "layers": {"1": "dense"}})");
    VERIFY_OK(lowerWith(m, o));
    // Without a plan the reference's message is unchanged.
    ExportOptions q;
    q.quantizeBits = 8;
    Expected<PreparedLowering> refused = lowerWith(m, q);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.message().find("NormalizedSubmConv3d artifact export does not support packed weights because "
                                    "normalization depends on weight squares.") != std::string::npos,
             refused.message().c_str());
  }

  void unusedEntriesAreRefused() {
    const Model m = twoConvModel("SubmConv3d");
    ExportOptions o;
    o.quantizationPlan = planOf(R"({"default": "int8", "layers": {"0": "dense", "stem.*": "int4"}})");
    Expected<PreparedLowering> p = lowerWith(m, o);
    QVERIFY(!p.ok());
    QCOMPARE(p.message(), std::string("quantization plan entry 'stem.*' matches no conv or linear layer of the model "
                                      "(its layers: 0, 1)"));
    // An entry that matches layers whose exact entries override it does match them: not refused.
    o.quantizationPlan = planOf(R"({"layers": {"*": "int4", "0": "dense", "1": "int8"}})");
    p = lowerWith(m, o);
    VERIFY_OK(p);
    QVERIFY(p->builder->quantizableWeights()[0].format.dense());
    QCOMPARE(p->builder->quantizableWeights()[1].format, WeightFormat::quantized(8));
  }

  void keepDenseOverridesAPlanThatNamesEveryLayer() {
    // What `lower --quantize-plan PLAN --keep-dense P` does with a plan quant-plan wrote (every
    // layer named exactly): the layers P matches end up dense all the same.
    const Model m = twoConvModel("SubmConv3d");
    ExportOptions o;
    o.quantizationPlan = planOf(R"({"layers": {"0": "int4", "1": "int8"}})");
    o.keepDense = {"0"};
    Expected<PreparedLowering> p = lowerWith(m, o);
    VERIFY_OK(p);
    QVERIFY(p->builder->quantizableWeights()[0].format.dense());
    QCOMPARE(p->builder->quantizableWeights()[1].format, WeightFormat::quantized(8));
  }

  void keepDenseAndConflicts() {
    const Model m = twoConvModel("SubmConv3d");
    ExportOptions o;
    o.quantizeBits = 4;
    o.groupSize = 64;
    o.keepDense = {"0"};
    Expected<PreparedLowering> p = lowerWith(m, o);
    VERIFY_OK(p);
    QVERIFY(p->builder->quantizableWeights()[0].format.dense());
    QCOMPARE(p->builder->quantizableWeights()[1].format, WeightFormat::quantized(4, 64));
    // Nothing to keep dense from.
    ExportOptions none;
    none.keepDense = {"0"};
    Expected<ResolvedExport> r = resolveExport(m, none);
    QVERIFY(!r.ok());
    QCOMPARE(r.message(), std::string("--keep-dense needs quantization (--quantize or the archive's quantize_bits)"));
    // A plan and quantize bits together.
    ExportOptions both;
    both.quantizeBits = 8;
    both.quantizationPlan = planOf(R"({"default": "int8"})");
    QVERIFY(!resolveExport(m, both).ok());
    // A pattern that keeps nothing dense is an unused entry.
    o.keepDense = {"stem.*"};
    Expected<PreparedLowering> unused = lowerWith(m, o);
    QVERIFY(!unused.ok());
    QVERIFY2(unused.message().find("entry 'stem.*' matches no conv or linear layer") != std::string::npos,
             unused.message().c_str());
  }

  void noPlanIsUnchanged() {
    // Without a plan the weights are what --quantize gives, recorded with their format.
    const Model m = twoConvModel("SubmConv3d");
    ExportOptions o;
    o.quantizeBits = 8;
    Expected<PreparedLowering> p = lowerWith(m, o);
    VERIFY_OK(p);
    QCOMPARE(p->builder->quantizableWeights().size(), std::size_t(2));
    QCOMPARE(p->builder->quantizableWeights()[1].format, WeightFormat::quantized(8));
    QVERIFY(p->builder->unusedPlanEntries().empty());
    const TensorData* w = m.tensor("1.weight");
    QVERIFY(w);
    Expected<TensorData> relaid = convWeightToLatticeLayout(*w, 3, 3, 3, 3, 4);
    VERIFY_OK(relaid);
    Expected<QuantizedWeight> q = quantizeAffine(*relaid, 8, 32, DType::F16);
    VERIFY_OK(q);
    const TensorData* stored = p->builder->weight("1.weight.weight");
    QVERIFY(stored);
    QCOMPARE(stored->byteSize(), q->weight.byteSize());
    QVERIFY(std::memcmp(stored->data(), q->weight.data(), stored->byteSize()) == 0);
  }
};

QTEST_APPLESS_MAIN(TestQuantizationPlan)
#include "tst_quantization_plan.moc"
