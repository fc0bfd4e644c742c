// toDType (core/lowering/DTypeConversion.cpp) against torch itself: every pair of the ten dtypes
// torch and the artifact share, on every f16, bf16, u8, i8 and i16 value, on the float and
// double values around every f16 and bf16 rounding boundary (ties included), on NaNs with
// payloads and signs, infinities, denormals, the integer range limits of every conversion, and
// on random bit patterns. torch's results come from tests/data/dtype-conversion/torch_to.py run
// by /usr/bin/python3 (Debian's python3-torch); without torch the comparison is skipped.
// The element decoders of core/tensor/TensorConvert.h (half and bfloat16 bits to float) are
// checked on bit patterns worked by hand.

#include "lowering/WeightPacking.h"
#include "tensor/TensorConvert.h"

#include <QtTest/QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

using namespace lattice;

class TestDTypeConversion : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase();
  void matchesTorch();
  void handPicked();
  void unsupportedTypes();
  void halfBitsToFloat_data();
  void halfBitsToFloat();
  void bfloat16BitsToFloat_data();
  void bfloat16BitsToFloat();

private:
  QTemporaryDir m_dir;
  bool m_haveTorch = false;
  QString m_skipReason;
};

namespace {

struct Named {
  const char* name;
  DType dtype;
};
const Named kDTypes[] = {{"bool", DType::Bool}, {"u8", DType::U8},     {"i8", DType::I8},   {"i16", DType::I16},
                         {"i32", DType::I32},   {"i64", DType::I64},   {"f16", DType::F16}, {"bf16", DType::BF16},
                         {"f32", DType::F32},   {"f64", DType::F64}};

// splitmix64: the same stream everywhere.
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

template <typename T> void append(std::vector<std::uint8_t>& bytes, T v) {
  const std::size_t at = bytes.size();
  bytes.resize(at + sizeof v);
  std::memcpy(bytes.data() + at, &v, sizeof v);
}

float floatOf(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
double doubleOf(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}
// The exact value of f16 bits (finite ones).
double halfValue(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const double mantissa = h & 0x3ff;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// Integers around the limits of every conversion: the int8/16/32/64 ranges, f16's largest
// finite and its rounding to infinity, f32's and bf16's integer precision and the values that
// round differently through a float than directly (2^25 + 2^17 + 1 to bf16).
std::vector<std::int64_t> integerEdges() {
  std::vector<std::int64_t> v = {0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65503,
                                 65504, 65505, 65519, 65520, 65536, (1 << 24) - 1, 1 << 24, (1 << 24) + 1,
                                 (1 << 24) + 3, (1 << 25) + (1 << 17) + 1, (1 << 25) + (1 << 17), -(1 << 25) - (1 << 17) - 1,
                                 INT32_MAX, INT32_MIN, std::int64_t(INT32_MAX) + 1, std::int64_t(INT32_MIN) - 1,
                                 std::int64_t(1) << 53, (std::int64_t(1) << 53) + 1, INT64_MAX, INT64_MIN,
                                 INT64_MAX - 1, INT64_MIN + 1, (std::int64_t(1) << 40) + (std::int64_t(1) << 16) + 1};
  return v;
}

// Floating values (as doubles) where conversions to integers change behaviour.
std::vector<double> integerBoundaries() {
  std::vector<double> v = {0.0, -0.0, 0.5, -0.5, 0.99999, 1.5, -1.5, 2.5, 127.5, 127.99, 128.0, -128.5, -129.0,
                           255.5, 256.0, 300.7, -300.7, 32767.5, 32768.0, -32768.9, -32769.0, 65535.5, 65536.0,
                           70000.5, 2147483520.0, 2147483647.0, 2147483647.9, 2147483648.0, 2147483653.0,
                           2147483904.0, -2147483648.0, -2147483648.9, -2147483649.0, -2147483653.0,
                           4294967296.0, 4294967301.0, 1e10 + 5, -1e10 - 5, 9223372036854774784.0,
                           9223372036854775808.0, -9223372036854775808.0, -9223372036854777856.0, 1e19, -1e19,
                           1e30, -1e30, 1e300, -1e300};
  return v;
}

std::vector<std::uint8_t> sourceBytes(DType dtype) {
  std::vector<std::uint8_t> b;
  Random rng{0x5EEDu + static_cast<std::uint64_t>(dtype)};
  switch (dtype) {
  case DType::Bool:
    for (int i = 0; i < 64; ++i) append<std::uint8_t>(b, i % 3 == 0);
    break;
  case DType::U8:
  case DType::I8:
    for (int i = 0; i < 256; ++i) append<std::uint8_t>(b, static_cast<std::uint8_t>(i));
    break;
  case DType::I16:
  case DType::F16:
  case DType::BF16:
    for (int i = 0; i < 65536; ++i) append<std::uint16_t>(b, static_cast<std::uint16_t>(i));
    break;
  case DType::I32:
    for (std::int64_t v : integerEdges()) append(b, static_cast<std::int32_t>(v));
    for (int i = 0; i < 20000; ++i) append(b, static_cast<std::int32_t>(rng.next()));
    for (int i = 0; i < 20000; ++i) append(b, static_cast<std::int32_t>(rng.next() % 200001) - 100000);
    break;
  case DType::I64:
    for (std::int64_t v : integerEdges()) append(b, v);
    for (int i = 0; i < 20000; ++i) append(b, static_cast<std::int64_t>(rng.next()));
    for (int i = 0; i < 20000; ++i) append(b, static_cast<std::int64_t>(rng.next() >> (rng.next() % 64)));
    break;
  case DType::F32: {
    for (std::uint32_t bits : {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
                               0x7F800001u, 0xFF800001u, 0x7FBFFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x7FC00001u,
                               0x7FA00000u, 0x7FC02000u, 0x7F802000u, 0x00000001u, 0x80000001u, 0x007FFFFFu,
                               0x00400000u, 0x00800000u, 0x3F808000u, 0x3F818000u, 0x3F808001u, 0x7F7FFFFFu,
                               0xFF7FFFFFu, 0x7F7F8000u, 0x477FE000u, 0x477FEFFFu, 0x477FF000u, 0x477FF001u})
      append(b, floatOf(bits));
    for (double v : integerBoundaries()) append(b, static_cast<float>(v));
    for (std::int64_t v : integerEdges()) append(b, static_cast<float>(v));
    // Around every f16 value: the midpoint to the next one (a tie) and one float ulp either side.
    for (std::uint32_t h = 0; h < 0x7C00; ++h) {
      const float mid = static_cast<float>((halfValue(static_cast<std::uint16_t>(h)) +
                                           halfValue(static_cast<std::uint16_t>(h + 1))) / 2);
      for (float v : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) {
        append(b, v);
        append(b, -v);
      }
    }
    // Around every bf16 value: the tie to the next one and one ulp either side.
    for (std::uint32_t hi = 0; hi < 0x7F80; ++hi)
      for (std::uint32_t lo : {0x7FFFu, 0x8000u, 0x8001u}) {
        append(b, floatOf((hi << 16) | lo));
        append(b, floatOf(0x80000000u | (hi << 16) | lo));
      }
    for (int i = 0; i < 50000; ++i) append(b, floatOf(static_cast<std::uint32_t>(rng.next())));
    for (int i = 0; i < 20000; ++i)
      append(b, static_cast<float>(static_cast<double>(static_cast<std::int64_t>(rng.next())) / 1e9));
    break;
  }
  case DType::F64: {
    for (std::uint64_t bits : {0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull,
                               0xFFF0000000000000ull, 0x7FF8000000000000ull, 0xFFF8000000000000ull,
                               0x7FF0000000000001ull, 0x7FF4000000000000ull, 0x7FFFFFFFFFFFFFFFull,
                               0xFFF8000000000001ull, 0x0000000000000001ull, 0x000FFFFFFFFFFFFFull,
                               0x3690000000000000ull, 0x36A0000000000000ull, 0x47EFFFFFE0000000ull,
                               0x47EFFFFFF0000000ull, 0x7FEFFFFFFFFFFFFFull})
      append(b, doubleOf(bits));
    for (double v : integerBoundaries()) append(b, v);
    for (std::int64_t v : integerEdges()) append(b, static_cast<double>(v));
    // Twice rounded (through a float) to f16 and to bf16, and around every f16 tie.
    append(b, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30));
    append(b, 1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -30));
    append(b, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30));
    for (std::uint32_t h = 0; h < 0x7C00; h += 7) {
      const double mid = (halfValue(static_cast<std::uint16_t>(h)) + halfValue(static_cast<std::uint16_t>(h + 1))) / 2;
      for (double v : {mid, mid + std::ldexp(std::fabs(mid), -40), mid - std::ldexp(std::fabs(mid), -40),
                       std::nextafter(mid, 0.0), std::nextafter(mid, 1e300)}) {
        append(b, v);
        append(b, -v);
      }
    }
    for (int i = 0; i < 50000; ++i) append(b, doubleOf(rng.next()));
    for (int i = 0; i < 20000; ++i) append(b, static_cast<double>(static_cast<std::int64_t>(rng.next())) / 1e8);
    for (int i = 0; i < 20000; ++i) append(b, static_cast<double>(static_cast<std::int64_t>(rng.next())) / 1e15);
    break;
  }
  default: break;
  }
  return b;
}

std::vector<std::uint8_t> readAll(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string hexOf(const std::uint8_t* p, std::size_t size) {
  static const char digits[] = "0123456789abcdef";
  std::string out = "0x";
  for (std::size_t i = size; i-- > 0;) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

} // namespace

void TestDTypeConversion::initTestCase() {
  QVERIFY(m_dir.isValid());
  for (const Named& d : kDTypes) {
    const std::vector<std::uint8_t> bytes = sourceBytes(d.dtype);
    std::ofstream out(m_dir.filePath(QString(d.name) + ".bin").toStdString(), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    QVERIFY(out.good());
  }
  const QString python = QStringLiteral("/usr/bin/python3");
  if (!QFileInfo(python).isExecutable()) {
    m_skipReason = QStringLiteral("no /usr/bin/python3: cannot ask torch");
    return;
  }
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(python, {QStringLiteral(LATTICE_TEST_DATA_DIR "/dtype-conversion/torch_to.py"), m_dir.path()});
  QVERIFY(process.waitForFinished(300000));
  const QByteArray output = process.readAll();
  if (process.exitStatus() == QProcess::NormalExit && process.exitCode() == 77) {
    m_skipReason = QStringLiteral("/usr/bin/python3 cannot import torch (install python3-torch)");
    return;
  }
  QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0, output.constData());
  qInfo("torch %s", output.trimmed().constData());
  m_haveTorch = true;
}

void TestDTypeConversion::matchesTorch() {
  if (!m_haveTorch) QSKIP(qPrintable(m_skipReason));
  QStringList failures;
  std::size_t compared = 0;
  for (const Named& from : kDTypes) {
    const std::vector<std::uint8_t> bytes = sourceBytes(from.dtype);
    const std::size_t fromSize = dtypeSize(from.dtype);
    const std::int64_t count = static_cast<std::int64_t>(bytes.size() / fromSize);
    const TensorData source = TensorData::owning(from.dtype, {count}, bytes);
    for (const Named& to : kDTypes) {
      if (to.dtype == from.dtype) continue;
      const std::vector<std::uint8_t> expected = readAll(m_dir.filePath(QString("%1-%2.bin").arg(from.name, to.name)));
      Expected<TensorData> converted = toDType(source, to.dtype);
      if (!converted) {
        failures << QString("%1 -> %2: %3").arg(from.name, to.name, QString::fromStdString(converted.message()));
        continue;
      }
      const std::size_t toSize = dtypeSize(to.dtype);
      if (converted->byteSize() != expected.size()) {
        failures << QString("%1 -> %2: %3 bytes, torch wrote %4")
                        .arg(from.name, to.name)
                        .arg(converted->byteSize())
                        .arg(expected.size());
        continue;
      }
      std::size_t mismatches = 0, first = 0;
      for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i)
        if (std::memcmp(converted->data() + i * toSize, expected.data() + i * toSize, toSize) != 0 && mismatches++ == 0)
          first = i;
      compared += static_cast<std::size_t>(count);
      if (mismatches)
        failures << QString("%1 -> %2: %3 of %4 elements differ; first: %5 gives %6, torch %7")
                        .arg(from.name, to.name)
                        .arg(mismatches)
                        .arg(count)
                        .arg(QString::fromStdString(hexOf(bytes.data() + first * fromSize, fromSize)),
                             QString::fromStdString(hexOf(converted->data() + first * toSize, toSize)),
                             QString::fromStdString(hexOf(expected.data() + first * toSize, toSize)));
    }
  }
  qInfo("%zu conversions compared with torch", compared);
  QVERIFY2(failures.isEmpty(), qPrintable(failures.join('\n')));
}

// A few values worked by hand, so the semantics are pinned without torch too.
void TestDTypeConversion::handPicked() {
  auto f32 = [](std::vector<float> values) {
    std::vector<std::uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return TensorData::owning(DType::F32, {static_cast<std::int64_t>(values.size())}, std::move(bytes));
  };
  auto as = [](const TensorData& t, auto zero) {
    std::vector<decltype(zero)> out(t.byteSize() / sizeof zero);
    std::memcpy(out.data(), t.data(), t.byteSize());
    return out;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const TensorData x = f32({-0.0f, 1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11), 65520.0f, nan,
                            -nan, 300.7f, -300.7f, 3e9f});
  Expected<TensorData> half = toDType(x, DType::F16);
  QVERIFY(half.ok());
  QCOMPARE(as(*half, std::uint16_t()),
           (std::vector<std::uint16_t>{0x8000, 0x3C00, 0x3C02, 0x7C00, 0x7E00, 0xFE00, 0x5CB3, 0xDCB3, 0x7C00}));
  Expected<TensorData> bf16 = toDType(x, DType::BF16);
  QVERIFY(bf16.ok());
  // torch's vectorised f32 → bf16 makes every NaN 0xFFFF, whatever its sign and payload.
  QCOMPARE(as(*bf16, std::uint16_t())[4], std::uint16_t(0xFFFF));
  QCOMPARE(as(*bf16, std::uint16_t())[5], std::uint16_t(0xFFFF));
  QCOMPARE(as(*bf16, std::uint16_t())[1], std::uint16_t(0x3F80));
  Expected<TensorData> u8 = toDType(x, DType::U8);
  QVERIFY(u8.ok());
  QCOMPARE(as(*u8, std::uint8_t()), (std::vector<std::uint8_t>{0, 1, 1, 240, 0, 0, 44, 212, 0}));
  Expected<TensorData> i32 = toDType(x, DType::I32);
  QVERIFY(i32.ok());
  QCOMPARE(as(*i32, std::int32_t()), (std::vector<std::int32_t>{0, 1, 1, 65520, INT32_MIN, INT32_MIN, 300, -300, INT32_MIN}));
  Expected<TensorData> b = toDType(x, DType::Bool);
  QVERIFY(b.ok());
  QCOMPARE(as(*b, std::uint8_t()), (std::vector<std::uint8_t>{0, 1, 1, 1, 1, 1, 1, 1, 1}));
}

void TestDTypeConversion::unsupportedTypes() {
  const TensorData t = TensorData::zeros(DType::F32, {2});
  for (DType d : {DType::U16, DType::U32, DType::U64}) {
    Expected<TensorData> r = toDType(t, d);
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.message()),
             QString("unsupported dtype conversion F32 -> %1").arg(QString::fromStdString(std::string(dtypeName(d)))));
  }
}

// Binary16: sign, 5 exponent bits (bias 15), 10 mantissa bits; exponent 0 is zero or subnormal
// (mantissa · 2^-24), exponent 31 infinity or NaN.
void TestDTypeConversion::halfBitsToFloat_data() {
  QTest::addColumn<uint>("bits");
  QTest::addColumn<float>("value");
  QTest::newRow("one") << 0x3C00u << 1.0f;
  QTest::newRow("minus two") << 0xC000u << -2.0f;
  QTest::newRow("third") << 0x3555u << 0.333251953125f; // 2^-2 · (1 + 341/1024)
  QTest::newRow("largest") << 0x7BFFu << 65504.0f;
  QTest::newRow("smallest normal") << 0x0400u << 0.00006103515625f; // 2^-14
  QTest::newRow("smallest subnormal") << 0x0001u << 0.000000059604644775390625f; // 2^-24
  QTest::newRow("largest subnormal") << 0x03FFu << 0.000060975551605224609375f; // 1023 · 2^-24
  QTest::newRow("minus zero") << 0x8000u << -0.0f;
  QTest::newRow("infinity") << 0x7C00u << std::numeric_limits<float>::infinity();
  QTest::newRow("minus infinity") << 0xFC00u << -std::numeric_limits<float>::infinity();
}

void TestDTypeConversion::halfBitsToFloat() {
  QFETCH(uint, bits);
  QFETCH(float, value);
  const float got = halfToFloat(static_cast<std::uint16_t>(bits));
  QCOMPARE(got, value);
  QCOMPARE(std::signbit(got), std::signbit(value));
  QVERIFY(std::isnan(halfToFloat(0x7E00)));
  QVERIFY(std::isnan(halfToFloat(0xFC01)));
}

// Bfloat16: sign, 8 exponent bits (bias 127), 7 mantissa bits: the top half of a float.
void TestDTypeConversion::bfloat16BitsToFloat_data() {
  QTest::addColumn<uint>("bits");
  QTest::addColumn<float>("value");
  QTest::newRow("one") << 0x3F80u << 1.0f;
  QTest::newRow("minus two") << 0xC000u << -2.0f;
  QTest::newRow("pi-ish") << 0x4049u << 3.140625f; // 2^1 · (1 + 73/128)
  QTest::newRow("largest") << 0x7F7Fu << 3.38953139e38f; // 2^127 · (2 - 2^-7)
  QTest::newRow("smallest normal") << 0x0080u << 1.17549435e-38f; // 2^-126
  QTest::newRow("minus zero") << 0x8000u << -0.0f;
  QTest::newRow("infinity") << 0x7F80u << std::numeric_limits<float>::infinity();
  QTest::newRow("minus infinity") << 0xFF80u << -std::numeric_limits<float>::infinity();
}

void TestDTypeConversion::bfloat16BitsToFloat() {
  QFETCH(uint, bits);
  QFETCH(float, value);
  const float got = bfloat16ToFloat(static_cast<std::uint16_t>(bits));
  QCOMPARE(got, value);
  QCOMPARE(std::signbit(got), std::signbit(value));
  QVERIFY(std::isnan(bfloat16ToFloat(0x7FC0)));
  QCOMPARE(bfloat16ToFloat(0x0001), std::ldexp(1.0f, -133)); // the smallest subnormal
}

QTEST_APPLESS_MAIN(TestDTypeConversion)
#include "tst_dtype_conversion.moc"
