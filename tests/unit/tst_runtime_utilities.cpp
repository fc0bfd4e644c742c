// The runtime's utilities that lattice-cli check, run --random-inputs and diff build on:
// the comparison protocol of lattice-artifact-validation.md sec. 10.6 (Morton code, dense
// allclose, sparse outputs compared after Morton sorting with the problems named) and the
// divergence measures (max |Δ|, max relative Δ, worst row, relative L2, Pearson, NaN handling),
// worked out by hand; random inputs (unique points with neighbours, coordinates divisible by the
// declared stride, batches, standard-normal features, repeatable by seed); and CoordSet (range,
// first-row lookups, first-occurrence deduplication).

#include "RuntimeTestSupport.h"

#include "runtime/Compare.h"
#include "runtime/CoordSet.h"
#include "runtime/RandomInputs.h"

#include <QtTest/QtTest>

#include <cmath>
#include <limits>
#include <set>

using namespace lattice;
using namespace lattice::rt;

namespace {

NamedTensor named(const std::string& key, TensorData t) { return {key, std::move(t)}; }

/// The expected outputs of a sparse `output` written to a file and opened.
Expected<SafetensorsFile> expectedFile(const QTemporaryDir& dir, const std::vector<NamedTensor>& tensors) {
  const std::string path = dir.filePath("expected.safetensors").toStdString();
  if (Status s = writeSafetensors(path, tensors, std::nullopt); !s) return s.error();
  return SafetensorsFile::open(path);
}

} // namespace

class TestRuntimeUtilities : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // x at bits 3j, y at 3j + 1, z at 3j + 2, plus b << 60.
  void mortonCode() {
    QCOMPARE(runtime::mortonCode(0, 1, 0, 0), std::uint64_t(1));
    QCOMPARE(runtime::mortonCode(0, 0, 1, 0), std::uint64_t(2));
    QCOMPARE(runtime::mortonCode(0, 0, 0, 1), std::uint64_t(4));
    QCOMPARE(runtime::mortonCode(0, 3, 0, 0), std::uint64_t(1 + 8));   // x bits 0, 1 → 0, 3
    QCOMPARE(runtime::mortonCode(0, 2, 3, 1), std::uint64_t(8 + 2 + 16 + 4)); // x1→3, y0→1, y1→4, z0→2
    QCOMPARE(runtime::mortonCode(2, 0, 0, 0), std::uint64_t(2) << 60);
    QCOMPARE(runtime::mortonCode(0, 1 << 21, 0, 0), std::uint64_t(0)); // only the low 21 bits
  }

  // actual [1, 2, 3, 5] vs reference [1, 2, 4, 4], two per row: |Δ| = 0, 0, 1, 1 → max 1 first
  // at element 2 (row 1); max rel 1/4; relL2 = √2 / √37; Pearson: both means 2.75, cov 6.75,
  // var 8.75 and 6.75 → √(6.75 / 8.75). Outside atol 0.5 + rtol 0.1·|r| (0.9): elements 2, 3.
  void measureDivergence() {
    const float a[] = {1, 2, 3, 5}, r[] = {1, 2, 4, 4};
    const runtime::Divergence d = runtime::measure(a, r, 4, 2, 0.1, 0.5);
    QCOMPARE(d.elements, std::int64_t(4));
    QCOMPARE(d.maxAbs, 1.0);
    QCOMPARE(d.worstRow, std::int64_t(1));
    QCOMPARE(d.maxRel, 0.25);
    QVERIFY(std::fabs(d.relL2 - std::sqrt(2.0 / 37.0)) < 1e-12);
    QVERIFY(std::fabs(d.pearson - std::sqrt(6.75 / 8.75)) < 1e-12);
    QCOMPARE(d.outside, std::int64_t(2));
    QCOMPARE(d.nonFinite, std::int64_t(0));
  }

  // A NaN never matches (except NaN against NaN, which is non-finite but not outside); equal
  // infinities match; a constant pair that is equal has Pearson 1, a constant against a varying
  // one 0; an all-zero reference gives the plain L2 norm of the difference.
  void measureNonFiniteAndDegenerate() {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const float a[] = {nan, nan, inf, 1}, r[] = {1, nan, inf, 1};
    const runtime::Divergence d = runtime::measure(a, r, 4, 1, 0, 0);
    QCOMPARE(d.nonFinite, std::int64_t(3));
    QCOMPARE(d.outside, std::int64_t(1));
    const float c[] = {2, 2}, v[] = {1, 3}, z[] = {0, 0}, w[] = {3, 4};
    QCOMPARE(runtime::measure(c, c, 2, 1).pearson, 1.0);
    QCOMPARE(runtime::measure(c, v, 2, 1).pearson, 0.0);
    QCOMPARE(runtime::measure(w, z, 2, 1).relL2, 5.0); // ‖(3, 4)‖
  }

  // Sparse outputs: rows in another order match after Morton sorting; rows past `active` in the
  // expected file are ignored; the worst row is reported with its physical coordinate.
  void checkSparseOutputsSortsByMorton() {
    QTemporaryDir dir;
    Expected<SafetensorsFile> expected =
        expectedFile(dir, {named("output.coords", i32Tensor({3, 4}, {0, 2, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9})),
                           named("output.features", f32Tensor({3, 1}, {2, 1, 7})),
                           named("output.active", i32Tensor({1}, {2}))});
    QVERIFY(expected);
    const std::vector<NamedTensor> actual = {named("output.coords", i32Tensor({2, 4}, {0, 0, 0, 0, 0, 2, 0, 0})),
                                             named("output.features", f32Tensor({2, 1}, {1, 2.5f})),
                                             named("output.active", i32Tensor({1}, {2}))};
    std::vector<runtime::OutputCheck> c = runtime::checkOutputs({"output"}, {true}, actual, *expected, 0, 0.6);
    QCOMPARE(c.size(), std::size_t(1));
    QVERIFY2(c[0].ok, c[0].problem.c_str());
    QCOMPARE(c[0].divergence.maxAbs, 0.5);
    QCOMPARE(c[0].worstCoord, (std::vector<std::int32_t>{0, 2, 0, 0}));
    c = runtime::checkOutputs({"output"}, {true}, actual, *expected, 0, 0.4);
    QVERIFY(!c[0].ok);
    QCOMPARE(c[0].divergence.outside, std::int64_t(1));
  }

  void checkSparseOutputsNamesTheProblem_data() {
    QTest::addColumn<std::vector<std::int32_t>>("coords");
    QTest::addColumn<int>("active");
    QTest::addColumn<QString>("problem");
    QTest::newRow("active rows") << std::vector<std::int32_t>{0, 0, 0, 0, 0, 2, 0, 0} << 1
                                 << "active rows 1, expected 2";
    QTest::newRow("coordinates") << std::vector<std::int32_t>{0, 0, 0, 0, 0, 3, 0, 0} << 2
                                 << "coordinates differ at sorted row 1: (0, 3, 0, 0), expected (0, 2, 0, 0)";
  }
  void checkSparseOutputsNamesTheProblem() {
    QFETCH(std::vector<std::int32_t>, coords);
    QFETCH(int, active);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    Expected<SafetensorsFile> expected =
        expectedFile(dir, {named("output.coords", i32Tensor({2, 4}, {0, 0, 0, 0, 0, 2, 0, 0})),
                           named("output.features", f32Tensor({2, 1}, {1, 2})),
                           named("output.active", i32Tensor({1}, {2}))});
    QVERIFY(expected);
    const std::vector<NamedTensor> actual = {named("output.coords", i32Tensor({2, 4}, coords)),
                                             named("output.features", f32Tensor({2, 1}, {1, 2})),
                                             named("output.active", i32Tensor({1}, {active}))};
    const auto c = runtime::checkOutputs({"output"}, {true}, actual, *expected, 0, 0);
    QVERIFY(!c[0].ok);
    QCOMPARE(QString::fromStdString(c[0].problem), problem);
    const auto missing = runtime::checkOutputs({"output"}, {true}, {}, *expected, 0, 0);
    QVERIFY(!missing[0].ok && missing[0].problem.find("lacks output.coords") != std::string::npos);
  }

  void checkDenseOutputs() {
    QTemporaryDir dir;
    Expected<SafetensorsFile> expected = expectedFile(dir, {named("y", f32Tensor({2, 2}, {1, 2, 3, 4}))});
    QVERIFY(expected);
    auto c = runtime::checkOutputs({"y"}, {false}, {named("y", f32Tensor({2, 2}, {1, 2, 3, 4.5f}))}, *expected, 0, 0.5);
    QVERIFY(c[0].ok);
    QCOMPARE(c[0].divergence.worstRow, std::int64_t(1));
    c = runtime::checkOutputs({"y"}, {false}, {named("y", f32Tensor({4}, {1, 2, 3, 4}))}, *expected, 0, 0);
    QCOMPARE(QString::fromStdString(c[0].problem), QString("shape [4], expected [2, 2]"));
    c = runtime::checkOutputs({"z"}, {false}, {named("z", f32Tensor({1}, {1}))}, *expected, 0, 0);
    QVERIFY(!c[0].ok && c[0].problem.find("'z' is missing") != std::string::npos);
  }

  // compareValues matches sparse rows by coordinate, whatever their order or CoordSet.
  void compareValuesMatchesRowsByCoordinate() {
    auto sparse = [](std::vector<std::int32_t> coords, std::vector<float> features) {
      runtime::Sparse s;
      s.coords = runtime::CoordSet::make(std::move(coords));
      s.channels = 1;
      s.capacity = s.coords->rows();
      s.features = std::make_shared<const std::vector<float>>(std::move(features));
      return runtime::RuntimeValue(s);
    };
    const runtime::RuntimeValue ref = sparse({0, 0, 0, 0, 0, 1, 0, 0}, {1, 2});
    std::string problem;
    runtime::Divergence d = runtime::compareValues(sparse({0, 1, 0, 0, 0, 0, 0, 0}, {2, 1.5f}), ref, &problem);
    QVERIFY2(problem.empty(), problem.c_str());
    QCOMPARE(d.maxAbs, 0.5);
    QCOMPARE(d.worstRow, std::int64_t(0)); // the reference's row (0, 0, 0, 0)
    d = runtime::compareValues(sparse({0, 2, 0, 0, 0, 0, 0, 0}, {2, 1}), ref, &problem);
    QVERIFY(problem.find("supports differ") != std::string::npos);
  }

  // N unique points per sparse input, physical coordinates divisible by the stride sparse.make
  // declares, batches 0..B−1 all used, active = N, standard-normal features; the same seed
  // gives the same tensors, another seed others. Points lie on surfaces: on average a point has
  // several of its 26 neighbours (uniform points in a cube of the same count have almost none).
  void randomInputsFollowTheAbi() {
    Graph g;
    g.sparseInput("x", 3, {2, 1, 2});
    g.output("x", "$S");
    Expected<Runtime> rt = g.runtime();
    QVERIFY(rt);
    runtime::RandomInputOptions options;
    options.points = 4000;
    options.seed = 11;
    options.batchSize = 3;
    Expected<std::vector<NamedTensor>> in = runtime::randomInputs(rt->plan(), options);
    QVERIFY2(in, in ? "" : in.message().c_str());
    QCOMPARE(in->size(), std::size_t(3));
    QCOMPARE((*in)[0].key, std::string("x_coords"));
    const std::vector<std::int64_t> c = intsOf((*in)[0].tensor);
    QCOMPARE(c.size(), std::size_t(4000 * 4));
    std::set<std::vector<std::int64_t>> unique;
    std::set<std::int64_t> batches;
    for (std::size_t r = 0; r < 4000; ++r) {
      QVERIFY(c[4 * r + 1] % 2 == 0 && c[4 * r + 3] % 2 == 0);
      unique.insert({c[4 * r], c[4 * r + 1] / 2, c[4 * r + 2], c[4 * r + 3] / 2});
      batches.insert(c[4 * r]);
    }
    QCOMPARE(unique.size(), std::size_t(4000));
    QCOMPARE(batches, (std::set<std::int64_t>{0, 1, 2}));
    int neighbours = 0;
    for (const auto& p : unique)
      for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dz = -1; dz <= 1; ++dz)
            if ((dx || dy || dz) && unique.count({p[0], p[1] + dx, p[2] + dy, p[3] + dz})) ++neighbours;
    qInfo("%.2f of 26 neighbours per point on average", neighbours / 4000.0);
    QVERIFY2(neighbours / 4000.0 > 3.0, std::to_string(neighbours / 4000.0).c_str());
    const std::vector<float> f = floatsOf((*in)[1].tensor);
    QCOMPARE((*in)[1].tensor.shape(), (std::vector<std::int64_t>{4000, 3}));
    double mean = 0, sq = 0;
    for (float v : f) mean += v, sq += double(v) * v;
    mean /= f.size();
    const double sd = std::sqrt(sq / f.size() - mean * mean);
    QVERIFY2(std::fabs(mean) < 0.05 && std::fabs(sd - 1) < 0.05, (std::to_string(mean) + " " + std::to_string(sd)).c_str());
    QCOMPARE(intsOf((*in)[2].tensor), (std::vector<std::int64_t>{4000}));

    Expected<std::vector<NamedTensor>> again = runtime::randomInputs(rt->plan(), options);
    QVERIFY(again);
    QCOMPARE(intsOf((*again)[0].tensor), c);
    QCOMPARE(floatsOf((*again)[1].tensor), f);
    options.seed = 12;
    QVERIFY(intsOf((*runtime::randomInputs(rt->plan(), options))[0].tensor) != c);
    options.points = 0;
    QVERIFY(!runtime::randomInputs(rt->plan(), options));
    options.points = 10;
    options.batchSize = 0;
    QVERIFY(!runtime::randomInputs(rt->plan(), options));
  }

  void coordSet() {
    bool threw = false;
    try {
      runtime::CoordSet::make({0, 0, 0, 0, 0, 65536, 0, 0});
    } catch (const Exception& e) {
      threw = true;
      RT_CHECK(containsAll(e.message, {"coordinate (0, 65536, 0, 0) of row 1 is outside the runtime's range"}));
    }
    QVERIFY(threw);
    const auto s = runtime::CoordSet::make({0, 5, 5, 5, 1, 5, 5, 5, 0, 5, 5, 5});
    QCOMPARE(s->find(0, 5, 5, 5), std::int64_t(0)); // the first of the two rows
    QCOMPARE(s->find(1, 5, 5, 5), std::int64_t(1));
    QCOMPARE(s->find(2, 5, 5, 5), std::int64_t(-1));
    QCOMPARE(s->find(0, 1 << 20, 0, 0), std::int64_t(-1)); // outside the range: absent
    runtime::CoordSetBuilder b;
    QCOMPARE(b.insert(0, 1, 1, 1), std::int64_t(0));
    QCOMPARE(b.insert(0, -65536, 65535, 0), std::int64_t(1));
    QCOMPARE(b.insert(0, 1, 1, 1), std::int64_t(0));
    const auto built = b.finish();
    QCOMPARE(built->data(), (std::vector<std::int32_t>{0, 1, 1, 1, 0, -65536, 65535, 0}));
    QCOMPARE(built->find(0, -65536, 65535, 0), std::int64_t(1));
  }
};

QTEST_GUILESS_MAIN(TestRuntimeUtilities)
#include "tst_runtime_utilities.moc"
