// Tests for DType tables and TensorData values: names and sizes from the safetensors spec,
// the dtype rank order of lattice-artifact-format.md §13.1, numel overflow, equality, views
// and copy-on-write.

#include "tensor/DType.h"
#include "tensor/TensorData.h"

#include <QtTest/QtTest>

#include <cstring>
#include <limits>

using namespace lattice;

Q_DECLARE_METATYPE(lattice::DType)
Q_DECLARE_METATYPE(std::vector<int64_t>)

namespace {

const std::vector<DType> kAllDTypes = {DType::Bool, DType::U8,   DType::I8,  DType::I16, DType::U16,
                                       DType::F16,  DType::BF16, DType::I32, DType::U32, DType::F32,
                                       DType::F64,  DType::I64,  DType::U64};

std::vector<uint8_t> bytesOf(std::initializer_list<float> values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

} // namespace

class TestTensorData : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void dtypeTable_data();
  void dtypeTable();
  void dtypeNameRoundTrip();
  void parseDTypeRejectsUnknownNames_data();
  void parseDTypeRejectsUnknownNames();
  void dtypeRankFollowsSafetensorsEnum();
  void shapeNumel_data();
  void shapeNumel();
  void zeros();
  void equality();
  void viewKeepsOwnerAlive();
  void mutableDataCopiesOnWrite();
  void owningSizeMismatchIsContained();
  void deferredProducesOnceAndShares();
  void deferredProduceIntoKeepsNothing();
  void deferredMutableDataDetaches();
};

void TestTensorData::dtypeTable_data() {
  QTest::addColumn<DType>("dtype");
  QTest::addColumn<QString>("name");
  QTest::addColumn<int>("size");
  QTest::addColumn<QString>("mlir");
  // Names and element sizes as in the safetensors format; MLIR builtin element type spellings.
  QTest::newRow("bool") << DType::Bool << "BOOL" << 1 << "i1";
  QTest::newRow("u8") << DType::U8 << "U8" << 1 << "ui8";
  QTest::newRow("i8") << DType::I8 << "I8" << 1 << "i8";
  QTest::newRow("i16") << DType::I16 << "I16" << 2 << "i16";
  QTest::newRow("u16") << DType::U16 << "U16" << 2 << "ui16";
  QTest::newRow("f16") << DType::F16 << "F16" << 2 << "f16";
  QTest::newRow("bf16") << DType::BF16 << "BF16" << 2 << "bf16";
  QTest::newRow("i32") << DType::I32 << "I32" << 4 << "i32";
  QTest::newRow("u32") << DType::U32 << "U32" << 4 << "ui32";
  QTest::newRow("f32") << DType::F32 << "F32" << 4 << "f32";
  QTest::newRow("f64") << DType::F64 << "F64" << 8 << "f64";
  QTest::newRow("i64") << DType::I64 << "I64" << 8 << "i64";
  QTest::newRow("u64") << DType::U64 << "U64" << 8 << "ui64";
}

void TestTensorData::dtypeTable() {
  QFETCH(DType, dtype);
  QFETCH(QString, name);
  QFETCH(int, size);
  QFETCH(QString, mlir);
  QCOMPARE(QString::fromStdString(std::string(dtypeName(dtype))), name);
  QCOMPARE(int(dtypeSize(dtype)), size);
  QCOMPARE(QString::fromStdString(std::string(dtypeMlirName(dtype))), mlir);
  const std::optional<DType> parsed = parseDType(name.toStdString());
  QVERIFY(parsed.has_value());
  QCOMPARE(*parsed, dtype);
}

void TestTensorData::dtypeNameRoundTrip() {
  for (DType dtype : kAllDTypes) {
    const std::optional<DType> parsed = parseDType(dtypeName(dtype));
    QVERIFY(parsed.has_value());
    QCOMPARE(*parsed, dtype);
  }
}

void TestTensorData::parseDTypeRejectsUnknownNames_data() {
  QTest::addColumn<QString>("name");
  QTest::newRow("empty") << "";
  QTest::newRow("lower case") << "f32";
  QTest::newRow("f8 (not represented)") << "F8_E4M3";
  QTest::newRow("torch spelling") << "float32";
  QTest::newRow("trailing space") << "F32 ";
}

void TestTensorData::parseDTypeRejectsUnknownNames() {
  QFETCH(QString, name);
  QVERIFY(!parseDType(name.toStdString()).has_value());
}

void TestTensorData::dtypeRankFollowsSafetensorsEnum() {
  // §13.1: BOOL < U8 < I8 < I16 < U16 < F16 < BF16 < I32 < U32 < F32 < F64 < I64 < U64.
  const std::vector<DType> ascending = {DType::Bool, DType::U8,   DType::I8,  DType::I16, DType::U16,
                                        DType::F16,  DType::BF16, DType::I32, DType::U32, DType::F32,
                                        DType::F64,  DType::I64,  DType::U64};
  for (std::size_t i = 1; i < ascending.size(); ++i)
    QVERIFY2(dtypeRank(ascending[i - 1]) < dtypeRank(ascending[i]),
             qPrintable(QStringLiteral("rank order broken at %1").arg(i)));
}

void TestTensorData::shapeNumel_data() {
  QTest::addColumn<std::vector<int64_t>>("shape");
  QTest::addColumn<qint64>("numel");
  const int64_t big = int64_t(1) << 32;
  QTest::newRow("scalar") << std::vector<int64_t>{} << qint64(1);
  QTest::newRow("2x3") << std::vector<int64_t>{2, 3} << qint64(6);
  QTest::newRow("conv weight") << std::vector<int64_t>{3, 3, 1, 1, 2} << qint64(18);
  QTest::newRow("zero dim") << std::vector<int64_t>{0, 4} << qint64(0);
  QTest::newRow("zero after huge dims") << std::vector<int64_t>{big, big, big, 0} << qint64(0);
  QTest::newRow("2^62 fits") << std::vector<int64_t>{int64_t(1) << 31, int64_t(1) << 31} << (qint64(1) << 62);
  QTest::newRow("2^64 overflows") << std::vector<int64_t>{big, big} << qint64(-1);
  QTest::newRow("max times two overflows")
      << std::vector<int64_t>{std::numeric_limits<int64_t>::max(), 2} << qint64(-1);
  QTest::newRow("negative") << std::vector<int64_t>{2, -1} << qint64(-1);
}

void TestTensorData::shapeNumel() {
  QFETCH(std::vector<int64_t>, shape);
  QFETCH(qint64, numel);
  QCOMPARE(qint64(lattice::shapeNumel(shape)), numel);
}

void TestTensorData::zeros() {
  const TensorData t = TensorData::zeros(DType::F16, {2, 3, 4});
  QCOMPARE(t.numel(), int64_t(24));
  QCOMPARE(t.byteSize(), std::size_t(48));
  QCOMPARE(t.dtype(), DType::F16);
  QVERIFY(!t.isView());
  for (std::size_t i = 0; i < t.byteSize(); ++i)
    QCOMPARE(int(t.data()[i]), 0);

  const TensorData scalar = TensorData::zeros(DType::I64, {});
  QCOMPARE(scalar.numel(), int64_t(1));
  QCOMPARE(scalar.byteSize(), std::size_t(8));

  const TensorData empty = TensorData::zeros(DType::F32, {0, 5});
  QCOMPARE(empty.numel(), int64_t(0));
  QCOMPARE(empty.byteSize(), std::size_t(0));
}

void TestTensorData::equality() {
  const TensorData a = TensorData::owning(DType::F32, {2, 2}, bytesOf({1, 2, 3, 4}));
  const TensorData same = TensorData::owning(DType::F32, {2, 2}, bytesOf({1, 2, 3, 4}));
  QVERIFY(a == same);
  QVERIFY(!(a != same));

  QVERIFY(a != TensorData::owning(DType::F32, {4}, bytesOf({1, 2, 3, 4})));    // shape
  QVERIFY(a != TensorData::owning(DType::I32, {2, 2}, bytesOf({1, 2, 3, 4}))); // dtype, same bytes
  QVERIFY(a != TensorData::owning(DType::F32, {2, 2}, bytesOf({1, 2, 3, 5}))); // one byte differs
  QVERIFY(a != TensorData::zeros(DType::F32, {2, 2}));

  // A view over equal bytes equals the owning tensor.
  auto storage = std::make_shared<std::vector<uint8_t>>(bytesOf({1, 2, 3, 4}));
  const TensorData v = TensorData::view(DType::F32, {2, 2}, storage->data(), storage->size(), storage);
  QVERIFY(v.isView());
  QVERIFY(v == a);

  // Empty tensors with the same dtype and shape are equal whatever their pointers.
  QVERIFY(TensorData::zeros(DType::F32, {0}) == TensorData::owning(DType::F32, {0}, {}));
  QVERIFY(TensorData::zeros(DType::F32, {0}) != TensorData::zeros(DType::F32, {0, 1}));
}

void TestTensorData::viewKeepsOwnerAlive() {
  std::weak_ptr<std::vector<uint8_t>> watch;
  TensorData v;
  {
    auto storage = std::make_shared<std::vector<uint8_t>>(bytesOf({7.5f, -1.0f}));
    watch = storage;
    v = TensorData::view(DType::F32, {2}, storage->data(), storage->size(), storage);
  }
  QVERIFY(!watch.expired());
  QCOMPARE(v.as<float>()[0], 7.5f);
  QCOMPARE(v.as<float>()[1], -1.0f);
  QVERIFY(v.mutableData() == nullptr);
  TensorData copy = v;
  v = TensorData();
  QVERIFY(!watch.expired());
  copy = TensorData();
  QVERIFY(watch.expired());
}

void TestTensorData::mutableDataCopiesOnWrite() {
  TensorData a = TensorData::owning(DType::F32, {2}, bytesOf({1, 2}));
  const TensorData b = a;
  float two = 20.0f;
  std::memcpy(a.mutableData() + sizeof(float), &two, sizeof(float));
  QCOMPARE(a.as<float>()[1], 20.0f);
  QCOMPARE(b.as<float>()[1], 2.0f);
  QCOMPARE(a.as<float>()[0], 1.0f);

  // A sole owner writes in place.
  const uint8_t* before = a.data();
  QCOMPARE(static_cast<const uint8_t*>(a.mutableData()), before);
}

void TestTensorData::owningSizeMismatchIsContained() {
#ifdef NDEBUG
  // Documented precondition; release builds resize so reads by numel() stay in bounds.
  const TensorData shortBuffer = TensorData::owning(DType::F32, {3}, bytesOf({1}));
  QCOMPARE(shortBuffer.byteSize(), std::size_t(12));
  QCOMPARE(shortBuffer.as<float>()[0], 1.0f);
  QCOMPARE(shortBuffer.as<float>()[2], 0.0f);
  const TensorData longBuffer = TensorData::owning(DType::F32, {1}, bytesOf({1, 2, 3}));
  QCOMPARE(longBuffer.byteSize(), std::size_t(4));
#else
  QSKIP("the size precondition is asserted in debug builds");
#endif
}

namespace {

// Fills element i with float(i) and counts its runs.
class CountingProducer final : public TensorProducer {
public:
  void produce(uint8_t* dst) const override {
    ++runs;
    for (int i = 0; i < 4; ++i) {
      const float v = static_cast<float>(i);
      std::memcpy(dst + i * sizeof(float), &v, sizeof v);
    }
  }
  mutable int runs = 0;
};

std::vector<float> floatsOf(const uint8_t* data, std::size_t count) {
  std::vector<float> out(count);
  std::memcpy(out.data(), data, count * sizeof(float));
  return out;
}

} // namespace

void TestTensorData::deferredProducesOnceAndShares() {
  auto producer = std::make_shared<CountingProducer>();
  const TensorData t = TensorData::deferred(DType::F32, {2, 2}, producer);
  QVERIFY(t.isDeferred());
  QVERIFY(!t.isView());
  QCOMPARE(t.byteSize(), std::size_t(16));
  QCOMPARE(producer->runs, 0); // nothing computed until asked
  const TensorData copy = t;
  QCOMPARE(floatsOf(t.data(), 4), (std::vector<float>{0, 1, 2, 3}));
  QCOMPARE(floatsOf(copy.data(), 4), (std::vector<float>{0, 1, 2, 3}));
  QCOMPARE(producer->runs, 1); // copies share the computed bytes
  QCOMPARE(t.data(), copy.data());
  QVERIFY(t == TensorData::owning(DType::F32, {2, 2}, bytesOf({0, 1, 2, 3})));
}

void TestTensorData::deferredProduceIntoKeepsNothing() {
  auto producer = std::make_shared<CountingProducer>();
  const TensorData t = TensorData::deferred(DType::F32, {4}, producer);
  std::vector<uint8_t> a(16), b(16);
  t.produceInto(a.data());
  t.produceInto(b.data());
  QCOMPARE(producer->runs, 2); // streamed twice, never cached
  QCOMPARE(floatsOf(a.data(), 4), (std::vector<float>{0, 1, 2, 3}));
  QCOMPARE(a, b);
  (void)t.data();
  QCOMPARE(producer->runs, 3);
  t.produceInto(b.data()); // computed bytes are copied, not produced again
  QCOMPARE(producer->runs, 3);
  QCOMPARE(a, b);
}

void TestTensorData::deferredMutableDataDetaches() {
  auto producer = std::make_shared<CountingProducer>();
  const TensorData shared = TensorData::deferred(DType::F32, {4}, producer);
  TensorData t = shared;
  uint8_t* bytes = t.mutableData();
  QVERIFY(bytes != nullptr);
  QVERIFY(!t.isDeferred());
  const float nine = 9.0f;
  std::memcpy(bytes, &nine, sizeof nine);
  QCOMPARE(floatsOf(t.data(), 4), (std::vector<float>{9, 1, 2, 3}));
  QCOMPARE(floatsOf(shared.data(), 4), (std::vector<float>{0, 1, 2, 3})); // the original keeps its values
}

QTEST_APPLESS_MAIN(TestTensorData)
#include "tst_tensordata.moc"
