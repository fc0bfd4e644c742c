// runtime::summarize and runtime::computeHistogram (core/runtime/ValueSummary.h). Every expected
// number below is worked out by hand in the comment beside it; the moments of large random data
// are checked against a second computation (a naive two-pass f64 loop written here).

#include "runtime/CoordSet.h"
#include "runtime/ValueSummary.h"
#include "tensor/TensorConvert.h"

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace lattice;
using namespace lattice::runtime;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor floatTensor(DType dtype, std::vector<std::int64_t> shape, std::vector<float> values) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.floats = std::make_shared<const std::vector<float>>(std::move(values));
  return t;
}

Tensor intTensor(DType dtype, std::vector<std::int64_t> shape, std::vector<std::int64_t> values) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.ints = std::make_shared<const std::vector<std::int64_t>>(std::move(values));
  return t;
}

/// `rows` active rows (b, x, y, z) = (0, r mod 1000, r / 1000, 0), `channels` features per row
/// from `features`.
Sparse sparseValue(std::int64_t rows, std::int64_t channels, std::vector<float> features,
                   Triple stride = {1, 1, 1}, std::int64_t capacity = 0) {
  std::vector<std::int32_t> coords;
  for (std::int64_t r = 0; r < rows; ++r)
    coords.insert(coords.end(),
                  {0, static_cast<std::int32_t>(r % 1000), static_cast<std::int32_t>(r / 1000), 0});
  Sparse s;
  s.coords = CoordSet::make(std::move(coords));
  s.stride = stride;
  s.capacity = capacity ? capacity : rows;
  s.channels = channels;
  s.features = std::make_shared<const std::vector<float>>(std::move(features));
  return s;
}

} // namespace

class TestValueSummary : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void histogramByHand();
  void histogramOfIntegers();
  void dense2x3();
  void sparseWithNaNAndInf();
  void sparseIgnoresRowsPastTheActiveOnes();
  void f16Values();
  void integerTensors();
  void emptyValues();
  void nothingFinite();
  void weights();
  void momentsMatchANaiveTwoPassComputation();
  void momentsSurviveALargeOffset();
};

void TestValueSummary::histogramByHand() {
  // -1, 0, 0, 0.5, 1, 3 and a NaN in 4 bins over [-1, 3] (width 1): [-1,0) has -1, [0,1) has
  // 0, 0, 0.5, [1,2) has 1, [2,3] has 3 (the last bin includes max).
  const std::vector<float> values{-1.0f, 0.0f, 0.0f, 0.5f, 1.0f, 3.0f, kNaN};
  const Histogram h = computeHistogram(values, 4);
  QCOMPARE(h.total, 7u);
  QCOMPARE(h.nonFinite, 1u);
  QCOMPARE(h.zeros, 2u);
  QCOMPARE(h.min, -1.0);
  QCOMPARE(h.max, 3.0);
  QCOMPARE(h.counts, (std::vector<std::uint64_t>{1, 3, 1, 1}));
  QCOMPARE(h.binWidth(), 1.0);
  QCOMPARE(h.binLow(0), -1.0);
  QCOMPARE(h.binLow(2), 1.0);
  QCOMPARE(h.binLow(4), 3.0);
  QCOMPARE(h.binOf(3.0), 3);
  QCOMPARE(h.binOf(-7.0), 0); // clamped
  // The pointer overload is the same computation.
  QCOMPARE(computeHistogram(values.data(), values.size(), 4).counts, h.counts);
  // All equal: one bin; nothing finite: no bin; bins < 1 counts as one.
  QCOMPARE(computeHistogram({2.0f, 2.0f}, 10).counts, (std::vector<std::uint64_t>{2}));
  QVERIFY(computeHistogram({kInf, -kInf}, 10).counts.empty());
  QCOMPARE(computeHistogram({0.0f, 1.0f}, 0).counts, (std::vector<std::uint64_t>{2}));
}

void TestValueSummary::histogramOfIntegers() {
  // -3, 0, 0, 7 in 2 bins over [-3, 7] (width 5): [-3,2) has -3, 0, 0; [2,7] has 7.
  const std::vector<std::int64_t> values{-3, 0, 0, 7};
  const Histogram h = computeHistogram(values.data(), values.size(), 2);
  QCOMPARE(h.counts, (std::vector<std::uint64_t>{3, 1}));
  QCOMPARE(h.zeros, 2u);
  QCOMPARE(h.nonFinite, 0u);
  QCOMPARE(h.min, -3.0);
  QCOMPARE(h.max, 7.0);
}

void TestValueSummary::dense2x3() {
  // 1..6: mean 3.5; squared deviations 6.25 + 2.25 + 0.25 + 0.25 + 2.25 + 6.25 = 17.5, std =
  // sqrt(17.5 / 6). 5 bins over [1, 6] (width 1): 1 | 2 | 3 | 4 | 5, 6.
  const ValueSummary s = summarize(floatTensor(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}), 5);
  QCOMPARE(s.kind, ValueKind::Dense);
  QCOMPARE(s.dtype, DType::F32);
  QCOMPARE(s.shape, (std::vector<std::int64_t>{2, 3}));
  QCOMPARE(s.count, 6u);
  QCOMPARE(s.finite, 6u);
  QCOMPARE(s.nonFinite(), 0u);
  QCOMPARE(s.zeros, 0u);
  QCOMPARE(s.min, 1.0);
  QCOMPARE(s.max, 6.0);
  QCOMPARE(s.mean, 3.5);
  QCOMPARE(s.stddev, std::sqrt(17.5 / 6.0));
  QCOMPARE(s.histogram.counts, (std::vector<std::uint64_t>{1, 1, 1, 1, 2}));
  QCOMPARE(s.histogram.total, 6u);
  QVERIFY(s.note.empty());
  QCOMPARE(std::string(valueKindName(s.kind)), std::string("dense"));
}

void TestValueSummary::sparseWithNaNAndInf() {
  // 3 rows × 2 channels: 1, NaN | -2, +inf | 0, 3. Finite: 1, -2, 0, 3 → mean 0.5, squared
  // deviations 0.25 + 6.25 + 0.25 + 6.25 = 13, std = sqrt(13 / 4). 5 bins over [-2, 3]
  // (width 1): [-2,-1): -2 | [-1,0): none | [0,1): 0 | [1,2): 1 | [2,3]: 3.
  const Sparse v = sparseValue(3, 2, {1, kNaN, -2, kInf, 0, 3}, {2, 2, 2}, 4);
  const ValueSummary s = summarize(v, 5);
  QCOMPARE(s.kind, ValueKind::Sparse);
  QCOMPARE(s.dtype, DType::F32);
  QCOMPARE(s.rows, 3);
  QCOMPARE(s.channels, 2);
  QCOMPARE(s.stride, (Triple{2, 2, 2}));
  QCOMPARE(s.capacity, 4);
  QCOMPARE(s.shape, (std::vector<std::int64_t>{3, 2}));
  QCOMPARE(s.count, 6u);
  QCOMPARE(s.finite, 4u);
  QCOMPARE(s.nan, 1u);
  QCOMPARE(s.posInf, 1u);
  QCOMPARE(s.negInf, 0u);
  QCOMPARE(s.nonFinite(), 2u);
  QCOMPARE(s.zeros, 1u);
  QCOMPARE(s.min, -2.0);
  QCOMPARE(s.max, 3.0);
  QCOMPARE(s.mean, 0.5);
  QCOMPARE(s.stddev, std::sqrt(13.0 / 4.0));
  QCOMPARE(s.histogram.counts, (std::vector<std::uint64_t>{1, 0, 1, 1, 1}));
  QCOMPARE(s.histogram.nonFinite, 2u);
  QCOMPARE(s.histogram.total, 6u);
}

void TestValueSummary::sparseIgnoresRowsPastTheActiveOnes() {
  // A features buffer longer than rows × channels (a capacity view): only the active rows count.
  const Sparse v = sparseValue(2, 1, {-1, 1, 100, 100}, {1, 1, 1}, 4);
  const ValueSummary s = summarize(v, 2);
  QCOMPARE(s.count, 2u);
  QCOMPARE(s.max, 1.0);
  QCOMPARE(s.mean, 0.0);
  QCOMPARE(s.stddev, 1.0);
}

void TestValueSummary::f16Values() {
  // f16 values are floats f16 represents: 0.1 → 0.0999755859375, 65504 (the largest half),
  // -0.5, and 70000, which overflows to +inf. Finite sum 65503.5999755859375, mean a third of it.
  const std::vector<float> values{roundToHalf(0.1f), roundToHalf(65504.0f), roundToHalf(-0.5f),
                                  roundToHalf(70000.0f)};
  QCOMPARE(values[0], 0.0999755859375f);
  QVERIFY(std::isinf(values[3]));
  const ValueSummary s = summarize(floatTensor(DType::F16, {4}, values), 8);
  QCOMPARE(s.dtype, DType::F16);
  QCOMPARE(s.shape, (std::vector<std::int64_t>{4}));
  QCOMPARE(s.count, 4u);
  QCOMPARE(s.finite, 3u);
  QCOMPARE(s.posInf, 1u);
  QCOMPARE(s.min, -0.5);
  QCOMPARE(s.max, 65504.0);
  const double mean = 65503.5999755859375 / 3.0;
  QCOMPARE(s.mean, mean);
  const double d0 = 0.0999755859375 - mean, d1 = 65504.0 - mean, d2 = -0.5 - mean;
  QCOMPARE(s.stddev, std::sqrt((d0 * d0 + d1 * d1 + d2 * d2) / 3.0));
  // 8 bins over [-0.5, 65504]: -0.5 and 0.0999… in the first, 65504 in the last.
  QCOMPARE(s.histogram.counts.front(), 2u);
  QCOMPARE(s.histogram.counts.back(), 1u);
}

void TestValueSummary::integerTensors() {
  // -3, 0, 0, 7: mean 1, squared deviations 16 + 1 + 1 + 36 = 54, std = sqrt(13.5).
  for (DType dtype : {DType::I64, DType::I32}) {
    const ValueSummary s = summarize(intTensor(dtype, {2, 2}, {-3, 0, 0, 7}), 2);
    QCOMPARE(s.kind, ValueKind::Dense);
    QCOMPARE(s.dtype, dtype);
    QCOMPARE(s.count, 4u);
    QCOMPARE(s.finite, 4u);
    QCOMPARE(s.zeros, 2u);
    QCOMPARE(s.min, -3.0);
    QCOMPARE(s.max, 7.0);
    QCOMPARE(s.mean, 1.0);
    QCOMPARE(s.stddev, std::sqrt(13.5));
    QCOMPARE(s.histogram.counts, (std::vector<std::uint64_t>{3, 1}));
  }
  // Rank 0: one element.
  const ValueSummary scalar = summarize(intTensor(DType::I64, {}, {42}), 4);
  QCOMPARE(scalar.count, 1u);
  QCOMPARE(scalar.mean, 42.0);
  QCOMPARE(scalar.stddev, 0.0);
  QCOMPARE(scalar.histogram.counts, (std::vector<std::uint64_t>{1}));
}

void TestValueSummary::emptyValues() {
  const ValueSummary none = summarize(RuntimeValue(), 8);
  QCOMPARE(none.kind, ValueKind::None);
  QCOMPARE(none.count, 0u);
  QVERIFY(std::isnan(none.mean));
  QVERIFY(none.histogram.counts.empty());
  QCOMPARE(std::string(valueKindName(none.kind)), std::string("none"));

  const ValueSummary dense = summarize(floatTensor(DType::F32, {0, 3}, {}), 8);
  QCOMPARE(dense.kind, ValueKind::Dense);
  QCOMPARE(dense.shape, (std::vector<std::int64_t>{0, 3}));
  QCOMPARE(dense.count, 0u);
  QCOMPARE(dense.finite, 0u);
  QVERIFY(std::isnan(dense.min) && std::isnan(dense.max) && std::isnan(dense.mean) &&
          std::isnan(dense.stddev));
  QVERIFY(dense.histogram.counts.empty());

  const ValueSummary sparse = summarize(sparseValue(0, 4, {}), 8);
  QCOMPARE(sparse.kind, ValueKind::Sparse);
  QCOMPARE(sparse.rows, 0);
  QCOMPARE(sparse.channels, 4);
  QCOMPARE(sparse.count, 0u);
  QVERIFY(std::isnan(sparse.mean));
}

void TestValueSummary::nothingFinite() {
  const ValueSummary s = summarize(floatTensor(DType::F32, {3}, {kNaN, kInf, -kInf}), 8);
  QCOMPARE(s.count, 3u);
  QCOMPARE(s.finite, 0u);
  QCOMPARE(s.nan, 1u);
  QCOMPARE(s.posInf, 1u);
  QCOMPARE(s.negInf, 1u);
  QVERIFY(std::isnan(s.min) && std::isnan(s.mean) && std::isnan(s.stddev));
  QVERIFY(s.histogram.counts.empty());
  QCOMPARE(s.histogram.nonFinite, 3u);
}

void TestValueSummary::weights() {
  // A dense weight: its stored tensor (f32 [2]: 1, -1) is summarized.
  WeightRef w;
  w.key = "head.bias";
  std::vector<std::uint8_t> bytes(8);
  const float values[2] = {1.0f, -1.0f};
  std::memcpy(bytes.data(), values, 8);
  w.dense = TensorData::owning(DType::F32, {2}, std::move(bytes));
  const ValueSummary s = summarize(w, 4);
  QCOMPARE(s.kind, ValueKind::Weight);
  QCOMPARE(s.weightKey, std::string("head.bias"));
  QCOMPARE(s.packing, std::string("dense"));
  QCOMPARE(s.shape, (std::vector<std::int64_t>{2}));
  QCOMPARE(s.count, 2u);
  QCOMPARE(s.min, -1.0);
  QCOMPARE(s.mean, 0.0);
  QCOMPARE(s.stddev, 1.0);
  // A quantized one says why it has no statistics.
  WeightRef q;
  q.key = "stem.weight";
  q.packing.kind = "int8";
  q.codes = TensorData::zeros(DType::I8, {4, 2});
  const ValueSummary qs = summarize(q, 4);
  QCOMPARE(qs.packing, std::string("int8"));
  QCOMPARE(qs.shape, (std::vector<std::int64_t>{4, 2}));
  QCOMPARE(qs.count, 0u);
  QVERIFY(!qs.note.empty());
}

void TestValueSummary::momentsMatchANaiveTwoPassComputation() {
  // 200 000 random features (mixed scales) with NaNs and infinities sprinkled in; the moments
  // against a plain two-pass f64 loop over the finite ones.
  std::mt19937 rng(21);
  std::normal_distribution<float> normal(0.25f, 3.0f);
  std::uniform_int_distribution<int> pick(0, 999);
  std::vector<float> values(200000);
  std::uint64_t nan = 0, inf = 0;
  for (float& v : values) {
    const int p = pick(rng);
    if (p == 0) {
      v = kNaN;
      ++nan;
    } else if (p == 1) {
      v = -kInf;
      ++inf;
    } else {
      v = normal(rng) * (p < 500 ? 1.0f : 1e-3f);
    }
  }
  double sum = 0;
  std::uint64_t n = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (float v : values)
    if (std::isfinite(v)) {
      sum += v;
      ++n;
      lo = std::min(lo, static_cast<double>(v));
      hi = std::max(hi, static_cast<double>(v));
    }
  const double mean = sum / static_cast<double>(n);
  double sq = 0;
  for (float v : values)
    if (std::isfinite(v)) sq += (v - mean) * (v - mean);
  const double stddev = std::sqrt(sq / static_cast<double>(n));

  const ValueSummary s = summarize(sparseValue(100000, 2, values), 50);
  QCOMPARE(s.count, 200000u);
  QCOMPARE(s.finite, n);
  QCOMPARE(s.nan, nan);
  QCOMPARE(s.negInf, inf);
  QCOMPARE(s.min, lo);
  QCOMPARE(s.max, hi);
  QVERIFY2(std::abs(s.mean - mean) <= 1e-12 * std::max(1.0, std::abs(mean)),
           qPrintable(QString::number(s.mean - mean)));
  QVERIFY2(std::abs(s.stddev - stddev) <= 1e-12 * stddev, qPrintable(QString::number(s.stddev - stddev)));
  std::uint64_t binned = 0;
  for (std::uint64_t c : s.histogram.counts)
    binned += c;
  QCOMPARE(binned, n);
  QCOMPARE(s.histogram.counts.size(), std::size_t(50));
}

void TestValueSummary::momentsSurviveALargeOffset() {
  // 10 000 + 0.5 · (±1) alternating: mean 10 000, std exactly 0.5. E[x²] − E[x]² in double would
  // lose most digits here; the two-pass deviations do not.
  std::vector<float> values;
  for (int i = 0; i < 10000; ++i)
    values.push_back(i % 2 ? 10000.5f : 9999.5f);
  const ValueSummary s = summarize(floatTensor(DType::F32, {10000}, values), 2);
  QCOMPARE(s.mean, 10000.0);
  QCOMPARE(s.stddev, 0.5);
  QCOMPARE(s.histogram.counts, (std::vector<std::uint64_t>{5000, 5000}));
}

QTEST_GUILESS_MAIN(TestValueSummary)
#include "tst_value_summary.moc"
