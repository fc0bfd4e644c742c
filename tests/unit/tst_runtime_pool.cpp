// The runtime's pooling, upsampling and point ops (lattice-artifact-validation.md sec. 10.4):
// pool3d sum / max / avg over the forward relation (a row without edges: max −inf, avg 0),
// pool_transpose3d without and with a target, trilinear_upsample3d without and with a target
// (σ = 2: an even t copies X[t/2], an odd t averages its neighbours; σ = 3 weights 1/3, 2/3, 1),
// global_pool sum / avg / max with a static batch size and with −1, voxelize sum / mean (floor of
// negative positions, inactive rows ignored, the stride attribute), and devoxelize nearest
// (round half up) / linear (missing corners skipped, no renormalization). Expected values are
// worked out by hand in the comments.

#include "RuntimeTestSupport.h"

#include <QtTest/QtTest>

#include <cmath>
#include <limits>

using namespace lattice;
using namespace lattice::rt;

namespace {

using Triple = std::array<std::int64_t, 3>;

std::string tri(const Triple& t) {
  return "array<i64: " + std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " + std::to_string(t[2]) + ">";
}

std::vector<Coord> alongX(const std::vector<int>& xs, std::int64_t sx = 1) {
  std::vector<Coord> out;
  for (int x : xs) out.push_back({0, static_cast<std::int32_t>(x * sx), 0, 0});
  return out;
}

const double kInf = std::numeric_limits<double>::infinity();

} // namespace

class TestRuntimePool : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // pool3d k2 s2 (forward relation, offsets 0, 1): support floor(x / 2) = 0 (x 0, 1), 1 (x 2),
  // 2 (x 5). X: x0 [1, −1], x1 [3, 5], x2 [2, 2], x5 [−4, 8]. Edges: o0 ← x0, x1; o1 ← x2
  // (x 3 absent); o2 ← x5 (x 4 absent).
  void pool3dReducesOverTheForwardRelation_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("sum") << QString("sum") << std::vector<double>{4, 4, 2, 2, -4, 8};
    QTest::newRow("max") << QString("max") << std::vector<double>{3, 5, 2, 2, -4, 8};
    QTest::newRow("avg") << QString("avg") << std::vector<double>{2, 2, 2, 2, -4, 8}; // Σ / deg
  }
  void pool3dReducesOverTheForwardRelation() {
    QFETCH(QString, mode);
    QFETCH(std::vector<double>, expected);
    Graph g;
    g.sparseInput("x", 2);
    g.op("%y = lattice.pool3d %x {mode = #lattice.pool_mode<" + mode.toStdString() + ">, kernel_size = " +
         tri({2, 1, 1}) + ", stride = " + tri({2, 1, 1}) + ", padding = " + tri({0, 0, 0}) + ", dilation = " +
         tri({1, 1, 1}) + "} : ($S) -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", alongX({0, 1, 2, 5}), {1, -1, 3, 5, 2, 2, -4, 8}, 2);
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      QCOMPARE(r.sparse().stride, (Triple{2, 1, 1}));
      RT_CHECK(sameSparse(r.sparse(), alongX({0, 1, 2}, 2), expected, 0, 0));
    }
  }

  // pool3d k1 s1 p1 (D2 for pooling): o reads o + 0 − 1. X: x0 = 1, x1 = 2, x3 = 3. Support =
  // the input rows. o0 ← x −1 (absent), o1 ← x0, o3 ← x2 (absent). A row without edges: sum 0,
  // avg Σ·1/max(0, 1) = 0, max −inf.
  void pool3dRowWithoutEdges_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("sum") << QString("sum") << std::vector<double>{0, 1, 0};
    QTest::newRow("avg") << QString("avg") << std::vector<double>{0, 1, 0};
    QTest::newRow("max") << QString("max") << std::vector<double>{-kInf, 1, -kInf};
  }
  void pool3dRowWithoutEdges() {
    QFETCH(QString, mode);
    QFETCH(std::vector<double>, expected);
    Graph g;
    g.sparseInput("x", 1);
    g.op("%y = lattice.pool3d %x {mode = #lattice.pool_mode<" + mode.toStdString() + ">, kernel_size = " +
         tri({1, 1, 1}) + ", stride = " + tri({1, 1, 1}) + ", padding = " + tri({1, 0, 0}) + ", dilation = " +
         tri({1, 1, 1}) + "} : ($S) -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", alongX({0, 1, 3}), {1, 2, 3}, 1);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(sameSparse(r.sparse(), alongX({0, 1, 3}), expected, 0, 0));
  }

  // pool3d uses the sparse offsets with dilation: k3 d2 gives −2, 0, 2 (stride 1, padding 0: the
  // support is the input). X: x0 = 1, x1 = 2, x2 = 3, x4 = 4. sum: y0 = X0 + X2 = 4; y1 = X1 = 2;
  // y2 = X0 + X2 + X4 = 8; y4 = X2 + X4 = 7.
  void pool3dDilation() {
    Graph g;
    g.sparseInput("x", 1);
    g.op("%y = lattice.pool3d %x {mode = #lattice.pool_mode<sum>, kernel_size = " + tri({3, 1, 1}) + ", stride = " +
         tri({1, 1, 1}) + ", padding = " + tri({0, 0, 0}) + ", dilation = " + tri({2, 1, 1}) + "} : ($S) -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", alongX({0, 1, 2, 4}), {1, 2, 3, 4}, 1);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(sameSparse(r.sparse(), alongX({0, 1, 2, 4}), {4, 2, 8, 7}, 0, 0));
  }

  // pool_transpose3d k3 s2 p1 (indexed offsets 0, 1, 2) on x0 = 2, x1 = 6 (stride 2).
  // Without target: rows c·2 + k − 1 deduplicated: −1, 0, 1 (x0), 2, 3 (x1); row 1 has edges
  // from x0 (k 2) and x1 (k 0): mean 4; the others copy their one source.
  // With target t 3, 0, 1, 8 (stride 1): edge iff v = t + 1 − k is even and v / 2 is a row:
  // t3 ← x1; t0 ← x0; t1 ← x1, x0 (mean 4); t8: none → 0.
  void poolTransposeAveragesItsSources_data() {
    QTest::addColumn<bool>("target");
    QTest::addColumn<std::vector<int>>("rows");
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("without target") << false << std::vector<int>{-1, 0, 1, 2, 3} << std::vector<double>{2, 2, 4, 6, 6};
    QTest::newRow("with target") << true << std::vector<int>{3, 0, 1, 8} << std::vector<double>{6, 2, 4, 0};
  }
  void poolTransposeAveragesItsSources() {
    QFETCH(bool, target);
    QFETCH(std::vector<int>, rows);
    QFETCH(std::vector<double>, expected);
    Graph g;
    g.sparseInput("x", 1, {2, 1, 1});
    if (target) g.sparseInput("t", 1);
    g.op("%y = lattice.pool_transpose3d " + std::string(target ? "%x, %t" : "%x") + " {kernel_size = " +
         tri({3, 1, 1}) + ", stride = " + tri({2, 1, 1}) + ", padding = " + tri({1, 0, 0}) + ", dilation = " +
         tri({1, 1, 1}) + "} : (" + (target ? "$S, $S" : "$S") + ") -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", alongX({0, 1}, 2), {2, 6}, 1);
    if (target) in.sparse("t", alongX(rows), std::vector<float>(rows.size(), 0.0f), 1);
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      QCOMPARE(r.sparse().stride, (Triple{1, 1, 1}));
      RT_CHECK(sameSparse(r.sparse(), alongX(rows), expected, 0, 0));
    }
  }

  // trilinear_upsample3d σ = (2, 1, 1): kernel 3, stride 2, padding 1, weights 0.5, 1, 0.5 on
  // offsets 0, 1, 2 (y, z: weight 1). X (stride 2): x0 = 2, x1 = 6, x3 = 10.
  // Without target, the transposed support: −1, 0, 1 (x0), 2, 3 (x1), 5, 6, 7 (x3). Even t copies
  // X[t/2]; odd t averages X[(t ± 1)/2] when both exist (t1: (0.5·2 + 0.5·6)/1 = 4), else
  // copies its one neighbour (t −1, 3, 5, 7).
  // With target t 4, 1, 6, 3, 11: t4 → X[2] absent, odd neighbours none → 0; t1 → 4; t6 → X[3]
  // = 10; t3 → only X[1] = 6; t11 → 0.
  void trilinearUpsampleFollowsTheEvenOddRule_data() {
    QTest::addColumn<bool>("target");
    QTest::addColumn<std::vector<int>>("rows");
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("without target") << false << std::vector<int>{-1, 0, 1, 2, 3, 5, 6, 7}
                                    << std::vector<double>{2, 2, 4, 6, 6, 10, 10, 10};
    QTest::newRow("with target") << true << std::vector<int>{4, 1, 6, 3, 11} << std::vector<double>{0, 4, 10, 6, 0};
  }
  void trilinearUpsampleFollowsTheEvenOddRule() {
    QFETCH(bool, target);
    QFETCH(std::vector<int>, rows);
    QFETCH(std::vector<double>, expected);
    Graph g;
    g.sparseInput("x", 1, {2, 1, 1});
    if (target) g.sparseInput("t", 1);
    g.op("%y = lattice.trilinear_upsample3d " + std::string(target ? "%x, %t" : "%x") + " {stride = " +
         tri({2, 1, 1}) + "} : (" + (target ? "$S, $S" : "$S") + ") -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", alongX({0, 1, 3}, 2), {2, 6, 10}, 1);
    if (target) in.sparse("t", alongX(rows), std::vector<float>(rows.size(), 0.0f), 1);
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(sameSparse(r.sparse(), alongX(rows), expected, 1e-6, 1e-6));
    }
  }

  // σ = 3: kernel 5, padding 2, w_k = 1 − |k − 2| / 3 = 1/3, 2/3, 1, 2/3, 1/3. X (stride 3): x0 = 3,
  // x1 = 9. Rows c·3 + k − 2: −2..2 (x0), 1..5 (x1), deduplicated: −2, −1, 0, 1, 2, 3, 4, 5.
  // t1: (2/3·3 + 1/3·9) / (2/3 + 1/3) = 5; t2: (1/3·3 + 2/3·9) / 1 = 7 (linear between 3 and 9);
  // the rows with one source copy it.
  void trilinearUpsampleStrideThreeInterpolatesLinearly() {
    Graph g;
    g.sparseInput("x", 1, {3, 1, 1});
    g.op("%y = lattice.trilinear_upsample3d %x {stride = " + tri({3, 1, 1}) + "} : ($S) -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", alongX({0, 1}, 3), {3, 9}, 1);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(sameSparse(r.sparse(), alongX({-2, -1, 0, 1, 2, 3, 4, 5}), {3, 3, 3, 5, 7, 9, 9, 9}, 1e-6, 1e-6));
  }

  // global_pool over rows b0 [1, 2], b2 [3, 4], b0 [5, −6]. batch_size −1: B = max batch + 1 = 3,
  // batch 1 empty (sum 0, avg 0). batch_size 2: the b2 row is ignored. max over b0 [1, 2],
  // b1 [3, 4], b0 [5, −6] (no empty batch): [5, 2], [3, 4].
  void globalPoolReducesPerBatch_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<int>("batchSize");
    QTest::addColumn<bool>("noEmptyBatch");
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("sum, inferred batches") << QString("sum") << -1 << false << std::vector<double>{6, -4, 0, 0, 3, 4};
    QTest::newRow("avg, inferred batches") << QString("avg") << -1 << false << std::vector<double>{3, -2, 0, 0, 3, 4};
    QTest::newRow("sum, batch_size 2") << QString("sum") << 2 << false << std::vector<double>{6, -4, 0, 0};
    QTest::newRow("avg, batch_size 4") << QString("avg") << 4 << false
                                       << std::vector<double>{3, -2, 0, 0, 3, 4, 0, 0};
    QTest::newRow("max, inferred batches") << QString("max") << -1 << true << std::vector<double>{5, 2, 3, 4};
  }
  void globalPoolReducesPerBatch() {
    QFETCH(QString, mode);
    QFETCH(int, batchSize);
    QFETCH(bool, noEmptyBatch);
    QFETCH(std::vector<double>, expected);
    Graph g;
    g.sparseInput("x", 2);
    g.op("%y = lattice.global_pool %x {mode = #lattice.pool_mode<" + mode.toStdString() +
         ">, batch_size = " + std::to_string(batchSize) + "} : ($S) -> tensor<?x2xf32>");
    g.output("y", "tensor<?x2xf32>");
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}, {noEmptyBatch ? 1 : 2, 0, 0, 0}, {0, 1, 0, 0}}, {1, 2, 3, 4, 5, -6}, 2);
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      std::vector<std::int64_t> shape;
      RT_CHECK(closeValues(r.dense(0, &shape), expected, 0, 0));
      QCOMPARE(shape, (std::vector<std::int64_t>{static_cast<std::int64_t>(expected.size() / 2), 2}));
    }
  }

  // voxelize, voxel_size (0.5, 1, 1), origin (0, 0, −1): v = floor((p − origin) / size).
  // p0 (0.2, 0.3, 0) → (0.4, 0.3, 1) → (0, 0, 1); p1 (0.4, 0.9, 0.5) → (0.8, 0.9, 1.5) → (0, 0, 1);
  // p2 (−0.2, 0, 0) → (−0.4, 0, 1) → (−1, 0, 1) (floor, not truncation); p3 = p0 in batch 1.
  // Row 4 is past active_rows (4) and holds a NaN point: ignored. Voxels in first-occurrence
  // order (0; 0, 0, 1), (0; −1, 0, 1), (1; 0, 0, 1) with features p0 + p1 = [4, 6], p2 [5, 6],
  // p3 [7, 8] (sum) or the means [2, 3], [5, 6], [7, 8]. Stride 2: physical = voxel index · 2.
  void voxelizeReducesPointsPerVoxel_data() {
    QTest::addColumn<QString>("reduction");
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("sum") << QString("sum") << std::vector<double>{4, 6, 5, 6, 7, 8};
    QTest::newRow("mean") << QString("mean") << std::vector<double>{2, 3, 5, 6, 7, 8};
  }
  void voxelizeReducesPointsPerVoxel() {
    QFETCH(QString, reduction);
    QFETCH(std::vector<double>, expected);
    Graph g;
    g.denseInput("p", "tensor<?x3xf32>").denseInput("f", "tensor<?x2xf32>");
    g.denseInput("b", "tensor<?xi32>").denseInput("n", "tensor<1xi32>");
    g.op("%v = lattice.voxelize %p, %f, %b, %n {voxel_size = array<f64: 0.5, 1.0, 1.0>, origin = array<f64: 0.0, "
         "0.0, -1.0>, reduction = #lattice.voxel_reduction<" +
         reduction.toStdString() + ">, stride = " + tri({2, 2, 2}) +
         "} : (tensor<?x3xf32>, tensor<?x2xf32>, tensor<?xi32>, tensor<1xi32>) -> $S");
    g.output("v", "$S");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Inputs in;
    in.dense("p", f32Tensor({5, 3}, {0.2f, 0.3f, 0, 0.4f, 0.9f, 0.5f, -0.2f, 0, 0, 0.2f, 0.3f, 0, nan, nan, nan}));
    in.dense("f", f32Tensor({5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 100, 100}));
    in.dense("b", i32Tensor({5}, {0, 0, 0, 1, 0}));
    in.dense("n", i32Tensor({1}, {4}));
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      QCOMPARE(r.sparse().stride, (Triple{2, 2, 2}));
      RT_CHECK(sameSparse(r.sparse(), {{0, 0, 0, 2}, {0, -2, 0, 2}, {1, 0, 0, 2}}, expected, 0, 0));
    }
  }

  // devoxelize, voxel_size 0.5, origin 0: pos = p / 0.5, compared with logical voxel coords.
  // Voxels b0: (0,0,0) [1, 10], (1,0,0) [2, 20], (0,1,0) [3, 30], (1,1,0) [4, 40]; b1: (1,0,0)
  // [5, 50]. Points (active 4 of 5):
  //   q0 b0 (0.25, 0.25, 0) → pos (0.5, 0.5, 0): nearest floor(pos + 0.5) = (1, 1, 0) → [4, 40];
  //      linear: 4 corners of weight 0.25 → (1 + 2 + 3 + 4)/4 = [2.5, 25].
  //   q1 b0 (0.1, 0, 0) → (0.2, 0, 0): nearest (0, 0, 0) → [1, 10]; linear 0.8·[1, 10] + 0.2·[2,
  //      20] = [1.2, 12].
  //   q2 b1 (0.75, 0.25, 0) → (1.5, 0.5, 0): nearest (2, 1, 0) absent → 0; linear: of the corners
  //      (1..2, 0..1, 0) only (1, 0, 0) exists in batch 1, weight 0.5·0.5 → [1.25, 12.5].
  //   q3 b1 (0.25, 0, 0) → (0.5, 0, 0): nearest rounds half up to (1, 0, 0) → [5, 50]; linear:
  //      corner (0,0,0) absent in b1 (weight 0.5 skipped), (1,0,0) weight 0.5 → [2.5, 25], not
  //      renormalized to [5, 50].
  //   q4 (row past point_active_rows) → zeros.
  void devoxelizeInterpolates_data() {
    QTest::addColumn<QString>("interpolation");
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("nearest") << QString("nearest") << std::vector<double>{4, 40, 1, 10, 0, 0, 5, 50, 0, 0};
    QTest::newRow("linear") << QString("linear") << std::vector<double>{2.5, 25, 1.2, 12, 1.25, 12.5, 2.5, 25, 0, 0};
  }
  void devoxelizeInterpolates() {
    QFETCH(QString, interpolation);
    QFETCH(std::vector<double>, expected);
    Graph g;
    g.denseInput("p", "tensor<?x3xf32>");
    g.sparseInput("v", 2);
    g.denseInput("b", "tensor<?xi32>").denseInput("n", "tensor<1xi32>");
    g.op("%y = lattice.devoxelize %p, %v, %b, %n {voxel_size = array<f64: 0.5, 0.5, 0.5>, origin = array<f64: 0.0, "
         "0.0, 0.0>, interpolation = #lattice.point_interpolation<" +
         interpolation.toStdString() + ">} : (tensor<?x3xf32>, $S, tensor<?xi32>, tensor<1xi32>) -> tensor<?x2xf32>");
    g.output("y", "tensor<?x2xf32>");
    Inputs in;
    in.dense("p", f32Tensor({5, 3}, {0.25f, 0.25f, 0, 0.1f, 0, 0, 0.75f, 0.25f, 0, 0.25f, 0, 0, 0, 0, 0}));
    in.sparse("v", {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 1, 1, 0}, {1, 1, 0, 0}},
              {1, 10, 2, 20, 3, 30, 4, 40, 5, 50}, 2);
    in.dense("b", i32Tensor({5}, {0, 0, 1, 1, 0}));
    in.dense("n", i32Tensor({1}, {4}));
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      std::vector<std::int64_t> shape;
      RT_CHECK(closeValues(r.dense(0, &shape), expected, 1e-6, 1e-6));
      QCOMPARE(shape, (std::vector<std::int64_t>{5, 2}));
    }
  }

  // D7: devoxelize compares positions with the voxels' logical coordinates. Voxels made at
  // stride (2, 2, 2): physical (0, 2, 0, 0) is logical (1, 0, 0); a point at (1, 0, 0) with
  // voxel_size 1 has pos (1, 0, 0) and finds it ([5]); a point at (2, 0, 0) (the physical
  // coordinate) finds nothing (0).
  void devoxelizeUsesLogicalVoxelCoordinates() {
    Graph g;
    g.denseInput("p", "tensor<?x3xf32>");
    g.sparseInput("v", 1, {2, 2, 2});
    g.denseInput("b", "tensor<?xi32>").denseInput("n", "tensor<1xi32>");
    g.op("%y = lattice.devoxelize %p, %v, %b, %n {voxel_size = array<f64: 1.0, 1.0, 1.0>, origin = array<f64: 0.0, "
         "0.0, 0.0>, interpolation = #lattice.point_interpolation<nearest>} : (tensor<?x3xf32>, $S, tensor<?xi32>, "
         "tensor<1xi32>) -> tensor<?x1xf32>");
    g.output("y", "tensor<?x1xf32>");
    Inputs in;
    in.dense("p", f32Tensor({2, 3}, {1, 0, 0, 2, 0, 0}));
    in.sparse("v", {{0, 2, 0, 0}}, {5}, 1);
    in.dense("b", i32Tensor({2}, {0, 0}));
    in.dense("n", i32Tensor({1}, {2}));
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(closeValues(r.dense(), {5, 0}, 0, 0));
  }
};

QTEST_GUILESS_MAIN(TestRuntimePool)
#include "tst_runtime_pool.moc"
