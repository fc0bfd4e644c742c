// Tests for core/lowering/WeightPacking: dtype conversion, the conv re-layout of lowering.md §5.8
// and the affine quantization of lattice-artifact-format.md §13.3, against the spec's worked
// examples, hand-worked values and the conformance artifacts of the reference exporter.

#include "lowering/WeightPacking.h"
#include "tensor/Safetensors.h"

#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>

using namespace lattice;

namespace {

const std::string kModels = std::string(LATTICE_TEST_DATA_DIR) + "/conformance/models/";

template <typename T>
TensorData makeTensor(DType dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return TensorData::owning(dtype, std::move(shape), std::move(bytes));
}

TensorData f32(std::vector<int64_t> shape, const std::vector<float>& values) {
  return makeTensor(DType::F32, std::move(shape), values);
}

template <typename T>
std::vector<T> elements(const TensorData& t) {
  std::vector<T> out(t.byteSize() / sizeof(T));
  std::memcpy(out.data(), t.data(), t.byteSize());
  return out;
}

// IEEE binary16 decoding written out here, independent of the code under test.
double halfValue(uint16_t bits) {
  const int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double magnitude = exponent == 0 ? std::ldexp(mantissa, -24)
                                   : std::ldexp(1024 + mantissa, exponent - 25);
  return sign ? -magnitude : magnitude;
}

float floatFromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

nlohmann::json readModelJson(const std::string& caseName) {
  std::ifstream in(kModels + caseName + "/model.ltfx/model.json");
  return nlohmann::json::parse(in);
}

SafetensorsFile openSafetensors(const std::string& path) {
  Expected<SafetensorsFile> file = SafetensorsFile::open(path);
  if (!file)
    qFatal("%s", file.message().c_str());
  return std::move(*file);
}

// A torch_lattice convolution: a kernel_size tuple, channel counts and a weight parameter (pools
// also have a kernel_size, but no weight).
bool isConv(const nlohmann::json& module) {
  const nlohmann::json& attrs = module["attributes"];
  const nlohmann::json& params = module["parameters"];
  return attrs.contains("kernel_size") && attrs["kernel_size"].is_object() &&
         attrs.contains("in_channels") && params.contains("weight") && !params["weight"].is_null();
}

Expected<TensorData> relayoutConv(const nlohmann::json& module, const TensorData& weight) {
  const nlohmann::json& attrs = module["attributes"];
  const nlohmann::json& k = attrs["kernel_size"]["tuple"];
  return convWeightToLatticeLayout(weight, k[0].get<int64_t>(), k[1].get<int64_t>(),
                                   k[2].get<int64_t>(), attrs["in_channels"].get<int64_t>(),
                                   attrs["out_channels"].get<int64_t>());
}

QString describe(const TensorData& t) {
  QString text = QString::fromLatin1(dtypeName(t.dtype()).data()) + QStringLiteral(" [");
  for (std::size_t i = 0; i < t.shape().size(); ++i)
    text += (i ? QStringLiteral(",") : QString()) + QString::number(t.shape()[i]);
  return text + QStringLiteral("]");
}

} // namespace

class TestWeightPacking : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void floatToHalf_data();
  void floatToHalf();
  void halfToFloat();
  void sameDTypeKeepsBytes();

  void convRelayoutByHand();
  void convRelayoutAnyDType();
  void convRelayoutLargeUnalignedView();
  void convRelayoutInSlices();
  void convRelayoutErrors_data();
  void convRelayoutErrors();
  void convRelayoutConformance_data();
  void convRelayoutConformance();

  void workedExampleInt4();
  void workedExampleInt8();
  void scaleDtypeF32();
  void kernelRowsTranspose();
  void kernelMajorMatchesFiveD();
  void constantGroup();
  void paddingTakesPartInMinMax();
  void quantizeErrors_data();
  void quantizeErrors();
  void quantizedConformanceInt8();

  void dequantizeWorkedExample();
  void dequantizePositiveScale();
  void dequantizeKernelRows();
  void dequantizeShapeErrors();
};

void TestWeightPacking::floatToHalf_data() {
  QTest::addColumn<float>("value");
  QTest::addColumn<uint>("bits");
  QTest::newRow("one") << 1.0f << 0x3C00u;
  QTest::newRow("minus two") << -2.0f << 0xC000u;
  QTest::newRow("largest finite") << 65504.0f << 0x7BFFu;
  QTest::newRow("tie to even, down") << floatFromBits(0x3F801000) << 0x3C00u; // 1 + 2^-11
  QTest::newRow("tie to even, up") << floatFromBits(0x3F803000) << 0x3C02u;   // 1 + 3·2^-11
  QTest::newRow("above tie rounds up") << floatFromBits(0x3F801001) << 0x3C01u;
  QTest::newRow("smallest subnormal") << std::ldexp(1.0f, -24) << 0x0001u;
  QTest::newRow("overflow tie goes to infinity") << 65520.0f << 0x7C00u;
  QTest::newRow("spec scale -1.25/15") << -0.0833333358168602f << 0xAD55u;
}

void TestWeightPacking::floatToHalf() {
  QFETCH(float, value);
  QFETCH(uint, bits);
  Expected<TensorData> half = toDType(f32({1}, {value}), DType::F16);
  QVERIFY2(half.ok(), half.ok() ? "" : half.message().c_str());
  QCOMPARE(half->dtype(), DType::F16);
  QCOMPARE(half->shape(), std::vector<int64_t>{1});
  QCOMPARE(uint(elements<uint16_t>(*half)[0]), bits);
}

void TestWeightPacking::halfToFloat() {
  const std::vector<uint16_t> bits{0xAD55, 0x3C00, 0x0001, 0xFBFF};
  Expected<TensorData> single = toDType(makeTensor(DType::F16, {2, 2}, bits), DType::F32);
  QVERIFY(single.ok());
  QCOMPARE(single->shape(), (std::vector<int64_t>{2, 2}));
  const std::vector<float> values = elements<float>(*single);
  QCOMPARE(values[0], -0.08331298828125f);
  QCOMPARE(values[1], 1.0f);
  QCOMPARE(values[2], std::ldexp(1.0f, -24));
  QCOMPARE(values[3], -65504.0f);
}

void TestWeightPacking::sameDTypeKeepsBytes() {
  const TensorData t = f32({2}, {1.5f, -3.0f});
  Expected<TensorData> same = toDType(t, DType::F32);
  QVERIFY(same.ok());
  QCOMPARE(same->data(), t.data());
  QVERIFY(!toDType(t, DType::U32).ok()); // not representable in the bundled LibTorch
}

void TestWeightPacking::convRelayoutByHand() {
  // kernel (2, 1, 3): K = 6, C_in = 1, C_out = 2, W[k, 0, o] = 10·k + o.
  std::vector<float> w;
  for (int k = 0; k < 6; ++k)
    for (int o = 0; o < 2; ++o)
      w.push_back(10.0f * k + o);
  Expected<TensorData> out = convWeightToLatticeLayout(f32({6, 1, 2}, w), 2, 1, 3, 1, 2);
  QVERIFY2(out.ok(), out.ok() ? "" : out.message().c_str());
  QCOMPARE(out->shape(), (std::vector<int64_t>{2, 2, 1, 3, 1}));
  QCOMPARE(out->dtype(), DType::F32);
  // out[o, x, 0, z, 0] = W[x·3 + z, 0, o], with o slowest.
  const std::vector<float> expected{0, 10, 20, 30, 40, 50, 1, 11, 21, 31, 41, 51};
  QCOMPARE(elements<float>(*out), expected);
}

void TestWeightPacking::convRelayoutAnyDType() {
  // kernel (1, 2, 1), C_in = 2, C_out = 3: W[k, i, o] = 100·k + 10·i + o.
  std::vector<uint16_t> w;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 2; ++i)
      for (int o = 0; o < 3; ++o)
        w.push_back(static_cast<uint16_t>(100 * k + 10 * i + o));
  Expected<TensorData> out = convWeightToLatticeLayout(makeTensor(DType::F16, {2, 2, 3}, w),
                                                       1, 2, 1, 2, 3);
  QVERIFY(out.ok());
  QCOMPARE(out->dtype(), DType::F16);
  QCOMPARE(out->shape(), (std::vector<int64_t>{3, 1, 2, 1, 2}));
  const std::vector<uint16_t> expected{0, 10, 100, 110, 1, 11, 101, 111, 2, 12, 102, 112};
  QCOMPARE(elements<uint16_t>(*out), expected);
}

void TestWeightPacking::convRelayoutLargeUnalignedView() {
  // Channel counts that are not multiples of the transpose's 32×32 tiles, read from a view at an
  // odd offset (safetensors may place a tensor anywhere): W[k, i, o] = k·10000 + i·100 + o,
  // out[o, k, i] must equal the same formula (lowering.md §5.8).
  const int64_t kx = 3, ky = 1, kz = 2, in = 37, out = 70, K = kx * ky * kz;
  std::vector<uint8_t> storage(1 + K * in * out * sizeof(float));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t i = 0; i < in; ++i)
      for (int64_t o = 0; o < out; ++o) {
        const float v = static_cast<float>(k * 10000 + i * 100 + o);
        std::memcpy(storage.data() + 1 + ((k * in + i) * out + o) * sizeof(float), &v, sizeof v);
      }
  const TensorData view = TensorData::view(DType::F32, {K, in, out}, storage.data() + 1,
                                           storage.size() - 1, nullptr);
  Expected<TensorData> relaid = convWeightToLatticeLayout(view, kx, ky, kz, in, out);
  QVERIFY(relaid.ok());
  QCOMPARE(relaid->shape(), (std::vector<int64_t>{out, kx, ky, kz, in}));
  const std::vector<float> got = elements<float>(*relaid);
  for (int64_t o = 0; o < out; ++o)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t i = 0; i < in; ++i)
        QCOMPARE(got[(o * K + k) * in + i], static_cast<float>(k * 10000 + i * 100 + o));
}

void TestWeightPacking::convRelayoutInSlices() {
  // A writer computes a large re-laid weight in pieces of whole output channels: each range of
  // channels must hold out[o, k, i] = W[k, i, o], here W's own flat index (k·C_in + i)·C_out + o
  // (below 2^15, so every element differs also as i16), at any start and across tile edges.
  const int64_t kx = 2, ky = 1, kz = 3, in = 37, out = 70, K = kx * ky * kz;
  for (const DType dtype : {DType::F32, DType::I16}) {
    const std::size_t e = dtypeSize(dtype);
    std::vector<uint8_t> bytes(K * in * out * e);
    const auto put = [&](uint8_t* at, int64_t value) {
      if (e == 4) {
        const float v = static_cast<float>(value);
        std::memcpy(at, &v, 4);
      } else {
        const int16_t v = static_cast<int16_t>(value);
        std::memcpy(at, &v, 2);
      }
    };
    for (int64_t k = 0; k < K; ++k)
      for (int64_t i = 0; i < in; ++i)
        for (int64_t o = 0; o < out; ++o)
          put(bytes.data() + ((k * in + i) * out + o) * e, (k * in + i) * out + o);
    Expected<TensorData> relaid = convWeightToLatticeLayout(
        TensorData::owning(dtype, {K, in, out}, bytes), kx, ky, kz, in, out);
    QVERIFY(relaid.ok());
    const std::size_t row = static_cast<std::size_t>(K * in) * e; // one output channel
    QCOMPARE(relaid->rangeGranularity(), row);
    std::vector<uint8_t> expectedRow(row);
    for (const auto& [first, count] : std::vector<std::pair<int64_t, int64_t>>{{0, 70}, {0, 1}, {5, 33}, {31, 2}, {69, 1}, {38, 32}}) {
      std::vector<uint8_t> got(static_cast<std::size_t>(count) * row, 0xEE);
      relaid->produceRangeInto(got.data(), static_cast<std::size_t>(first) * row, got.size());
      for (int64_t o = first; o < first + count; ++o) {
        for (int64_t k = 0; k < K; ++k)
          for (int64_t i = 0; i < in; ++i)
            put(expectedRow.data() + (k * in + i) * e, (k * in + i) * out + o);
        QVERIFY2(std::memcmp(got.data() + (o - first) * row, expectedRow.data(), row) == 0,
                 qPrintable(QStringLiteral("%1-byte elements, channels [%2, %3): channel %4")
                                .arg(e).arg(first).arg(first + count).arg(o)));
      }
    }
    // Once computed (a reader asked for data()), any byte range is a copy of the kept bytes.
    const uint8_t* all = relaid->data();
    QCOMPARE(relaid->rangeGranularity(), std::size_t(1));
    std::vector<uint8_t> middle(7);
    relaid->produceRangeInto(middle.data(), 13, middle.size());
    QVERIFY(std::memcmp(middle.data(), all + 13, middle.size()) == 0);
  }
}

void TestWeightPacking::convRelayoutErrors_data() {
  QTest::addColumn<QVector<qint64>>("shape");
  QTest::addColumn<QVector<qint64>>("dims"); // kx, ky, kz, in, out
  QTest::addColumn<QString>("message");
  QTest::newRow("kernel volume") << QVector<qint64>{15, 1, 1} << QVector<qint64>{3, 1, 3, 1, 1}
      << "Conv3d kernel shape (15, 1, 1) does not match kernel_size=(3, 1, 3).";
  QTest::newRow("rank") << QVector<qint64>{15, 1} << QVector<qint64>{3, 1, 5, 1, 1}
      << "Conv3d kernel shape (15, 1) does not match kernel_size=(3, 1, 5).";
  QTest::newRow("rank one") << QVector<qint64>{15} << QVector<qint64>{3, 1, 5, 1, 1}
      << "Conv3d kernel shape (15,) does not match kernel_size=(3, 1, 5).";
  QTest::newRow("channels") << QVector<qint64>{15, 1, 1} << QVector<qint64>{3, 1, 5, 2, 1}
      << "shape '[3, 1, 5, 2, 1]' is invalid for input of size 15";
}

void TestWeightPacking::convRelayoutErrors() {
  QFETCH(QVector<qint64>, shape);
  QFETCH(QVector<qint64>, dims);
  QFETCH(QString, message);
  const std::vector<int64_t> s(shape.begin(), shape.end());
  const TensorData w = TensorData::zeros(DType::F32, s);
  Expected<TensorData> out = convWeightToLatticeLayout(w, dims[0], dims[1], dims[2], dims[3], dims[4]);
  QVERIFY(!out.ok());
  QCOMPARE(QString::fromStdString(out.message()), message);
}

void TestWeightPacking::convRelayoutConformance_data() {
  QTest::addColumn<QString>("caseName");
  for (const char* name : {"sparse_classifier", "canonical_kernel_layout", "normalized_convolution",
                           "transpose_convolution"})
    QTest::newRow(name) << QString::fromLatin1(name);
}

void TestWeightPacking::convRelayoutConformance() {
  QFETCH(QString, caseName);
  const std::string name = caseName.toStdString();
  const nlohmann::json model = readModelJson(name);
  const SafetensorsFile source = openSafetensors(kModels + name + "/model.ltfx/weights.safetensors");
  const SafetensorsFile expected = openSafetensors(kModels + name + "/expected.lattice/weights.safetensors");
  int compared = 0;
  for (const nlohmann::json& module : model["modules"]) {
    if (!isConv(module))
      continue;
    const std::string key = module["parameters"]["weight"]["key"].get<std::string>();
    const TensorData* weight = source.find(key);
    const TensorData* want = expected.find(key);
    QVERIFY2(weight && want, key.c_str());
    Expected<TensorData> got = relayoutConv(module, *weight);
    QVERIFY2(got.ok(), got.ok() ? "" : got.message().c_str());
    QCOMPARE(describe(*got), describe(*want));
    QVERIFY2(*got == *want, key.c_str());
    ++compared;
  }
  QVERIFY(compared > 0);
}

void TestWeightPacking::workedExampleInt4() {
  Expected<QuantizedWeight> q = quantizeAffine(f32({1, 3}, {0.5f, -0.25f, 1.0f}), 4, 32, DType::F16);
  QVERIFY2(q.ok(), q.ok() ? "" : q.message().c_str());
  QCOMPARE(describe(q->weight), QStringLiteral("U32 [1,1,4]"));
  QCOMPARE(describe(q->scales), QStringLiteral("F16 [1,1,1]"));
  QCOMPARE(describe(q->biases), QStringLiteral("F16 [1,1,1]"));
  const std::vector<uint32_t> words{3435970806u, 3435973836u, 3435973836u, 3435973836u};
  QCOMPARE(elements<uint32_t>(q->weight), words);
  QCOMPARE(uint(elements<uint16_t>(q->scales)[0]), 0xAD55u);
  QCOMPARE(halfValue(elements<uint16_t>(q->scales)[0]), -0.08331298828125);
  QCOMPARE(uint(elements<uint16_t>(q->biases)[0]), 0x3C00u);
}

void TestWeightPacking::workedExampleInt8() {
  Expected<QuantizedWeight> q = quantizeAffine(f32({1, 3}, {0.5f, -0.25f, 1.0f}), 8, 32, DType::F16);
  QVERIFY(q.ok());
  QCOMPARE(describe(q->weight), QStringLiteral("U32 [1,1,8]"));
  const std::vector<uint32_t> words = elements<uint32_t>(q->weight);
  QCOMPARE(words[0], 0xCC00FF66u); // codes 102, 255, 0, 204
  for (std::size_t i = 1; i < words.size(); ++i)
    QCOMPARE(words[i], 0xCCCCCCCCu); // the padding zeros all get code 204
  QCOMPARE(halfValue(elements<uint16_t>(q->scales)[0]), -0.004901885986328125);
  QCOMPARE(halfValue(elements<uint16_t>(q->biases)[0]), 1.0);
}

void TestWeightPacking::scaleDtypeF32() {
  Expected<QuantizedWeight> q = quantizeAffine(f32({1, 3}, {0.5f, -0.25f, 1.0f}), 4, 32, DType::F32);
  QVERIFY(q.ok());
  QCOMPARE(describe(q->scales), QStringLiteral("F32 [1,1,1]"));
  QCOMPARE(describe(q->biases), QStringLiteral("F32 [1,1,1]"));
  QCOMPARE(elements<float>(q->scales)[0], -0.0833333358168602f);
  QCOMPARE(elements<float>(q->biases)[0], 1.0f);
  QCOMPARE(elements<uint32_t>(q->weight)[0], 3435970806u);
}

// conv (C_out = 2, 3, 1, 1, C_in = 4) with row r = k·2 + o equal to [r + 1, 0, 0, 0]:
// max r + 1, min 0, so column 0 gets code 0 and every other column code 255.
static TensorData kernelRowsWeight() {
  std::vector<float> w(2 * 3 * 4, 0.0f);
  for (int o = 0; o < 2; ++o)
    for (int k = 0; k < 3; ++k)
      w[(o * 3 + k) * 4] = float(k * 2 + o + 1);
  return f32({2, 3, 1, 1, 4}, w);
}

void TestWeightPacking::kernelRowsTranspose() {
  Expected<QuantizedWeight> q = quantizeAffine(kernelRowsWeight(), 8, 32, DType::F16);
  QVERIFY2(q.ok(), q.ok() ? "" : q.message().c_str());
  // The spec's K > 1 example: R (6, 32) -> packed (6, 8) -> (3, 2, 8) -> stored (3, 8, 2).
  QCOMPARE(describe(q->weight), QStringLiteral("U32 [3,8,2]"));
  QCOMPARE(describe(q->scales), QStringLiteral("F16 [3,1,2]"));
  QCOMPARE(describe(q->biases), QStringLiteral("F16 [3,1,2]"));
  const std::vector<uint32_t> words = elements<uint32_t>(q->weight);
  for (int k = 0; k < 3; ++k)
    for (int w = 0; w < 8; ++w)
      for (int o = 0; o < 2; ++o)
        QCOMPARE(words[(k * 8 + w) * 2 + o], w == 0 ? 0xFFFFFF00u : 0xFFFFFFFFu);
  // biases[k, 0, o] is the row max k·2 + o + 1; stored transposed, so o is fastest.
  const std::vector<uint16_t> biases = elements<uint16_t>(q->biases);
  const std::vector<uint16_t> expected{0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600};
  QCOMPARE(biases, expected);
  const std::vector<uint16_t> scales = elements<uint16_t>(q->scales);
  for (int r = 0; r < 6; ++r)
    QVERIFY(std::abs(halfValue(scales[r]) + (r + 1) / 255.0) < 1e-3 * (r + 1) / 255.0);
}

void TestWeightPacking::kernelMajorMatchesFiveD() {
  // The rank-3 (K, C_in, C_out) view of the same weight gives the same rows.
  const TensorData five = kernelRowsWeight();
  const std::vector<float> src = elements<float>(five);
  std::vector<float> w(src.size());
  for (int o = 0; o < 2; ++o)
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 4; ++i)
        w[(k * 4 + i) * 2 + o] = src[(o * 3 + k) * 4 + i];
  Expected<QuantizedWeight> a = quantizeAffine(five, 4, 32, DType::F16);
  Expected<QuantizedWeight> b = quantizeAffine(f32({3, 4, 2}, w), 4, 32, DType::F16);
  QVERIFY(a.ok() && b.ok());
  QCOMPARE(describe(b->weight), QStringLiteral("U32 [3,4,2]"));
  QVERIFY(a->weight == b->weight);
  QVERIFY(a->scales == b->scales);
  QVERIFY(a->biases == b->biases);
}

void TestWeightPacking::constantGroup() {
  // All values equal (and the padding zero): scale 0, every code 0, bias the common value 0.
  Expected<QuantizedWeight> q = quantizeAffine(f32({2, 2}, {0, 0, 0, 0}), 4, 32, DType::F16);
  QVERIFY(q.ok());
  for (uint32_t word : elements<uint32_t>(q->weight))
    QCOMPARE(word, 0u);
  for (uint16_t s : elements<uint16_t>(q->scales))
    QCOMPARE(uint(s), 0u);
}

void TestWeightPacking::paddingTakesPartInMinMax() {
  // Positive row [2, 3]: without the padding zeros the min would be 2; with them it is 0, so
  // scale = -3/15 = -0.2 and the codes are 0 for 3, 5 for 2 and 15 for the zeros.
  Expected<QuantizedWeight> q = quantizeAffine(f32({1, 2}, {2.0f, 3.0f}), 4, 32, DType::F32);
  QVERIFY(q.ok());
  QCOMPARE(elements<float>(q->scales)[0], -0.2f);
  QCOMPARE(elements<uint32_t>(q->weight)[0], 0xFFFFFF05u);
  // G = 4 and C_in = 3: the one group is [1, 0, 3] and a padding zero.
  q = quantizeAffine(f32({1, 3}, {1.0f, 0.0f, 3.0f}), 8, 4, DType::F32);
  QVERIFY(q.ok());
  QCOMPARE(describe(q->weight), QStringLiteral("U32 [1,1,1]"));
  QCOMPARE(describe(q->scales), QStringLiteral("F32 [1,1,1]"));
  QCOMPARE(elements<float>(q->biases)[0], 3.0f);
  // codes: 1 -> rint((1-3)/(-3/255)) = 170, 0 -> 255, 3 -> 0, pad 0 -> 255
  QCOMPARE(elements<uint32_t>(q->weight)[0], 0xFF00FFAAu);
}

void TestWeightPacking::quantizeErrors_data() {
  QTest::addColumn<int>("bits");
  QTest::addColumn<int>("groupSize");
  QTest::addColumn<int>("scaleDtype");
  QTest::addColumn<int>("rank");
  QTest::addColumn<int>("dtype");
  QTest::addColumn<QString>("message");
  const int f16 = int(DType::F16), f32t = int(DType::F32);
  QTest::newRow("bits") << 2 << 32 << f16 << 2 << f32t << "artifact weight bits must be 4 or 8";
  QTest::newRow("group size") << 4 << 0 << f16 << 2 << f32t
                              << "artifact weight group_size must be positive";
  QTest::newRow("scale dtype") << 8 << 32 << int(DType::BF16) << 2 << f32t
                               << "artifact scale_dtype must be 'f16' or 'f32'";
  QTest::newRow("rank 4") << 8 << 32 << f16 << 4 << f32t
      << "quantized artifact supports linear, kernel-major, and 5D convolution weights";
  QTest::newRow("dtype") << 8 << 32 << f16 << 2 << int(DType::I32)
                         << "unsupported tensor dtype for lattice artifact: torch.int32";
  QTest::newRow("partial word") << 4 << 4 << f16 << 2 << f32t
      << "artifact weight group_size 4 does not fill whole 32-bit words at 4 bits";
}

void TestWeightPacking::quantizeErrors() {
  QFETCH(int, bits);
  QFETCH(int, groupSize);
  QFETCH(int, scaleDtype);
  QFETCH(int, rank);
  QFETCH(int, dtype);
  QFETCH(QString, message);
  const TensorData t = TensorData::zeros(DType(dtype), std::vector<int64_t>(std::size_t(rank), 2));
  Expected<QuantizedWeight> q = quantizeAffine(t, bits, groupSize, DType(scaleDtype));
  QVERIFY(!q.ok());
  QCOMPARE(QString::fromStdString(q.message()), message);
  QVERIFY(!quantizeAffine(f32({1, 2}, {1.0f, NAN}), 8, 32, DType::F16).ok());
}

void TestWeightPacking::quantizedConformanceInt8() {
  const std::string name = "quantized_classifier_int8";
  const nlohmann::json model = readModelJson(name);
  const nlohmann::json& lowering = model["lowering"];
  const int bits = lowering["quantize_bits"].get<int>();
  const int groupSize = lowering.value("quantize_group_size", 32);
  const DType scaleDtype = lowering.value("quantize_scale_dtype", std::string("f16")) == "f32"
                               ? DType::F32 : DType::F16;
  const SafetensorsFile source = openSafetensors(kModels + name + "/model.ltfx/weights.safetensors");
  const SafetensorsFile expected = openSafetensors(kModels + name + "/expected.lattice/weights.safetensors");

  // lowering.md §5.7: conv and linear weights are quantized (conv after the §5.8 re-layout),
  // every other parameter is stored dense.
  std::map<std::string, TensorData> produced;
  for (const nlohmann::json& module : model["modules"]) {
    const std::string type = module["type"].get<std::string>();
    const bool linear = type == "torch.nn.modules.linear.Linear";
    for (const auto& [param, record] : module["parameters"].items()) {
      if (record.is_null())
        continue;
      const std::string key = record["key"].get<std::string>();
      const TensorData* tensor = source.find(key);
      QVERIFY2(tensor, key.c_str());
      if (param != "weight" || !(linear || isConv(module))) {
        produced[key] = *tensor;
        continue;
      }
      TensorData logical = *tensor;
      if (isConv(module)) {
        Expected<TensorData> relaid = relayoutConv(module, *tensor);
        QVERIFY(relaid.ok());
        logical = *relaid;
      }
      Expected<QuantizedWeight> q = quantizeAffine(logical, bits, groupSize, scaleDtype);
      QVERIFY2(q.ok(), q.ok() ? "" : q.message().c_str());
      for (NamedTensor& t : quantizedWeightTensors(key, std::move(*q)))
        produced[t.key] = std::move(t.tensor);
    }
  }
  QCOMPARE(produced.size(), expected.tensors().size());
  int quantized = 0;
  for (const auto& [key, tensor] : produced) {
    const TensorData* want = expected.find(key);
    QVERIFY2(want, key.c_str());
    QCOMPARE(describe(tensor), describe(*want));
    QVERIFY2(tensor == *want, key.c_str());
    quantized += tensor.dtype() == DType::U32;
  }
  QCOMPARE(quantized, 2);
}

void TestWeightPacking::dequantizeWorkedExample() {
  Expected<QuantizedWeight> q = quantizeAffine(f32({1, 3}, {0.5f, -0.25f, 1.0f}), 4, 32, DType::F16);
  QVERIFY(q.ok());
  Expected<TensorData> back = dequantizeAffine(*q, 4, 32, {1, 3});
  QVERIFY2(back.ok(), back.ok() ? "" : back.message().c_str());
  QCOMPARE(describe(*back), QStringLiteral("F32 [1,3]"));
  const std::vector<float> expected{0.5001220703125f, -0.24969482421875f, 1.0f};
  QCOMPARE(elements<float>(*back), expected);
}

void TestWeightPacking::dequantizePositiveScale() {
  // MLX-style packing: bias is the group min and scale > 0. codes [0, 1, 2, 3] in word 0.
  QuantizedWeight packed;
  packed.weight = makeTensor<uint32_t>(DType::U32, {1, 1, 4}, {0x3210u, 0u, 0u, 0u});
  packed.scales = f32({1, 1, 1}, {0.5f});
  packed.biases = f32({1, 1, 1}, {-1.0f});
  Expected<TensorData> back = dequantizeAffine(packed, 4, 32, {1, 4});
  QVERIFY2(back.ok(), back.ok() ? "" : back.message().c_str());
  const std::vector<float> expected{-1.0f, -0.5f, 0.0f, 0.5f};
  QCOMPARE(elements<float>(*back), expected);
}

void TestWeightPacking::dequantizeKernelRows() {
  Expected<QuantizedWeight> q = quantizeAffine(kernelRowsWeight(), 8, 32, DType::F16);
  QVERIFY(q.ok());
  Expected<TensorData> back = dequantizeAffine(*q, 8, 32, {2, 3, 1, 1, 4});
  QVERIFY2(back.ok(), back.ok() ? "" : back.message().c_str());
  QCOMPARE(describe(*back), QStringLiteral("F32 [2,3,1,1,4]"));
  const std::vector<float> values = elements<float>(*back);
  const std::vector<float> original = elements<float>(kernelRowsWeight());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (original[i] != 0.0f)
      QCOMPARE(values[i], original[i]); // code 0: exactly the (f16-exact) bias
    else
      QVERIFY(std::abs(values[i]) < 0.01f);
  }
}

void TestWeightPacking::dequantizeShapeErrors() {
  Expected<QuantizedWeight> q = quantizeAffine(kernelRowsWeight(), 8, 32, DType::F16);
  QVERIFY(q.ok());
  // A K == 1 logical shape does not match the transposed K > 1 storage.
  Expected<TensorData> wrong = dequantizeAffine(*q, 8, 32, {6, 4});
  QVERIFY(!wrong.ok());
  QCOMPARE(QString::fromStdString(wrong.message()),
           QStringLiteral("quantized weight codes have shape [3, 8, 2], expected [1, 6, 2] for "
                          "logical shape [6, 4]"));
  // More input channels than stored columns.
  QVERIFY(!dequantizeAffine(*q, 8, 32, {2, 3, 1, 1, 40}).ok());
  Expected<TensorData> rank = dequantizeAffine(*q, 8, 32, {2, 3, 4, 1});
  QVERIFY(!rank.ok());
  QCOMPARE(QString::fromStdString(rank.message()),
           QStringLiteral("unsupported quantized artifact weight rank"));
}

QTEST_APPLESS_MAIN(TestWeightPacking)
#include "tst_weight_packing.moc"
