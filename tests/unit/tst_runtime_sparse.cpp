// The runtime's sparse structure ops (lattice-artifact-validation.md sec. 10.1, 10.4):
// sparse.make / decompose (physical ↔ logical by the stride, capacity-sized buffers, active
// clamped), with_features (support kept, features, channels and dtype replaced), reindex (target
// support and order, fill for missing rows), sparse.binary with every op and every join (sec. 10.4
// "Alignment", including lhs and rhs the same SSA value) and sparse.cat with every join. Every
// expected value is written out by hand from the spec in the test.

#include "RuntimeTestSupport.h"

#include "runtime/CoordSet.h"

#include <QtTest/QtTest>

#include <functional>

using namespace lattice;
using namespace lattice::rt;

Q_DECLARE_METATYPE(std::vector<Coord>)
Q_DECLARE_METATYPE(std::vector<double>)

namespace {

const std::string kBinaryAttrs = "lhs_fill = -1.0 : f32, rhs_fill = 100.0 : f32";

// lhs and rhs of the alignment rows: lhs A, B, C with two channels; rhs D, B, A.
const Coord A{0, 0, 0, 0}, B{0, 1, 0, 0}, C{0, 2, 0, 0}, D{0, 3, 0, 0};

Inputs alignmentInputs(std::int64_t rhsChannels) {
  Inputs in;
  in.sparse("l", {A, B, C}, {1, 10, 2, 20, 3, 30}, 2);
  if (rhsChannels == 2)
    in.sparse("r", {D, B, A}, {7, 70, 5, 50, 4, 40}, 2);
  else
    in.sparse("r", {D, B, A}, {7, 5, 4}, 1);
  return in;
}

} // namespace

class TestRuntimeSparse : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // sparse.make divides the physical coordinates by the stride; decompose multiplies back and
  // returns capacity-sized buffers (rows past `active` are zero), with active = [n].
  void makeAndDecomposeRoundTripThroughLogicalCoordinates() {
    Graph g;
    g.sparseInput("x", 2, {2, 1, 1});
    g.op("%c, %f, %a = lattice.sparse.decompose %x : $S -> (tensor<?x4xi32>, tensor<?x2xf32>, tensor<1xi32>)");
    g.output("c", "tensor<?x4xi32>").output("f", "tensor<?x2xf32>").output("a", "tensor<1xi32>");
    Inputs in; // capacity 3, active 2; every row (the padding one too) divisible by (1, 2, 1, 1)
    in.sparse("x", {{0, 4, 1, 2}, {0, 2, 0, 0}, {1, 6, 3, 1}}, {1, 2, 3, 4, 5, 6}, 2, 2);
    const Run r = run(g, in, Numerics::Default, /*keepValues=*/true);
    QVERIFY2(r.ok(), r.error.c_str());
    // %x holds logical coordinates: x / 2.
    const auto& x = std::get<runtime::Sparse>(r.runtime->value(r.runtime->plan().slotOf("x")));
    QCOMPARE(x.rows(), std::int64_t(2));
    QCOMPARE(x.capacity, std::int64_t(3));
    QCOMPARE(x.stride, (runtime::Triple{2, 1, 1}));
    QCOMPARE(std::vector<std::int32_t>(x.coords->data()), (std::vector<std::int32_t>{0, 2, 1, 2, 0, 1, 0, 0}));
    std::vector<std::int64_t> shape;
    QCOMPARE(r.ints(0, &shape), (std::vector<std::int64_t>{0, 4, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0}));
    QCOMPARE(shape, (std::vector<std::int64_t>{3, 4}));
    RT_CHECK(closeValues(r.dense(1, &shape), {1, 2, 3, 4, 0, 0}, 0, 0));
    QCOMPARE(shape, (std::vector<std::int64_t>{3, 2}));
    QCOMPARE(r.ints(2), (std::vector<std::int64_t>{2}));
  }

  // An active count past the buffer is clamped to the capacity, a negative one to 0 (sec. 10.1).
  void activeIsClampedToTheCapacity_data() {
    QTest::addColumn<int>("active");
    QTest::addColumn<int>("rows");
    QTest::newRow("larger than the buffer") << 7 << 2;
    QTest::newRow("negative") << -3 << 0;
    QTest::newRow("zero") << 0 << 0;
  }
  void activeIsClampedToTheCapacity() {
    QFETCH(int, active);
    QFETCH(int, rows);
    Graph g;
    g.sparseInput("x", 1);
    g.output("x", "$S");
    Inputs in;
    in.sparse("x", {{0, 1, 1, 1}, {0, 2, 2, 2}}, {5, 6}, 1, active);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    const std::vector<Coord> coords{{0, 1, 1, 1}, {0, 2, 2, 2}};
    const std::vector<double> features{5, 6};
    RT_CHECK(sameSparse(r.sparse(), std::vector<Coord>(coords.begin(), coords.begin() + rows),
                        std::vector<double>(features.begin(), features.begin() + rows)));
  }

  // with_features keeps coordinates, stride and active rows, and takes the replacement's
  // channels and dtype (here f32 → f16, 1 → 2 channels); the replacement has capacity rows.
  void withFeaturesReplacesFeaturesChannelsAndDtype() {
    Graph g;
    g.sparseInput("x", 1, {1, 2, 1});
    g.denseInput("g", "tensor<?x2xf16>");
    g.op("%y = lattice.sparse.with_features %x, %g : ($S, tensor<?x2xf16>) -> $H");
    g.output("y", "$H");
    Inputs in;
    in.sparse("x", {{0, 0, 2, 0}, {0, 1, 4, 0}, {0, 2, 6, 0}}, {1, 2, 3}, 1, 2);
    in.dense("g", f16Tensor({3, 2}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}));
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    const SparseOut y = r.sparse();
    QCOMPARE(y.channels, std::int64_t(2));
    QCOMPARE(y.stride, (std::array<std::int64_t, 3>{1, 2, 1}));
    // The first two rows of the replacement, as f16 stores them.
    RT_CHECK(sameSparse(y, {{0, 0, 2, 0}, {0, 1, 4, 0}}, {f16(0.1f), f16(0.2f), f16(0.3f), f16(0.4f)}, 0, 0));
  }

  // reindex: the target's support in the target's order; rows of the input with the identical
  // logical coordinate, else `fill` in every channel; input-only rows dropped; the input's
  // channels (2) and not the target's (1). Stride (2, 1, 1) on both sides.
  void reindexFollowsTheTargetAndFillsMissingRows() {
    Graph g;
    g.sparseInput("x", 2, {2, 1, 1});
    g.sparseInput("t", 1, {2, 1, 1});
    g.op("%y = lattice.sparse.reindex %x, %t {fill = -0.75 : f32} : ($S, $S) -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}, {0, 2, 0, 0}, {0, 10, 5, 5}}, {1, 2, 3, 4, 9, 9}, 2);
    in.sparse("t", {{0, 2, 0, 0}, {0, 4, 0, 0}, {0, 0, 0, 0}}, {100, 200, 300}, 1);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(r.sparse().channels, std::int64_t(2));
    RT_CHECK(sameSparse(r.sparse(), {{0, 2, 0, 0}, {0, 4, 0, 0}, {0, 0, 0, 0}}, {3, 4, -0.75, -0.75, 1, 2}, 0, 0));
  }

  // sparse.binary: every op under every join. lhs A [1, 10], B [2, 20], C [3, 30]; rhs D [7, 70],
  // B [5, 50], A [4, 40]; a missing lhs reads lhs_fill = -1, a missing rhs rhs_fill = 100.
  void binaryAlignsAndApplies_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("join");
    QTest::addColumn<std::vector<Coord>>("coords");
    QTest::addColumn<std::vector<double>>("lhs"); // the aligned lhs values (fill where missing)
    QTest::addColumn<std::vector<double>>("rhs");
    struct Join {
      const char* name;
      std::vector<Coord> coords;
      std::vector<double> lhs, rhs;
    };
    const std::vector<Join> joins = {
        // inner: lhs rows (lhs order) present in rhs.
        {"inner", {A, B}, {1, 10, 2, 20}, {4, 40, 5, 50}},
        // left: every lhs row; C has no rhs → rhs_fill.
        {"left", {A, B, C}, {1, 10, 2, 20, 3, 30}, {4, 40, 5, 50, 100, 100}},
        // right: every rhs row in rhs order; D has no lhs → lhs_fill.
        {"right", {D, B, A}, {-1, -1, 2, 20, 1, 10}, {7, 70, 5, 50, 4, 40}},
        // outer: lhs rows in lhs order, then rhs-only rows (D) in rhs order.
        {"outer", {A, B, C, D}, {1, 10, 2, 20, 3, 30, -1, -1}, {4, 40, 5, 50, 100, 100, 7, 70}},
    };
    for (const char* op : {"add", "sub", "mul", "maximum", "minimum"})
      for (const Join& j : joins)
        QTest::newRow((std::string(op) + " " + j.name).c_str())
            << QString(op) << QString(j.name) << j.coords << j.lhs << j.rhs;
  }
  void binaryAlignsAndApplies() {
    QFETCH(QString, op);
    QFETCH(QString, join);
    QFETCH(std::vector<Coord>, coords);
    QFETCH(std::vector<double>, lhs);
    QFETCH(std::vector<double>, rhs);
    Graph g;
    g.sparseInput("l", 2).sparseInput("r", 2);
    g.op("%y = lattice.sparse.binary %l, %r {op = #lattice.binary_op<" + op.toStdString() +
         ">, join = #lattice.join<" + join.toStdString() + ">, " + kBinaryAttrs + "} : ($S, $S) -> $S");
    g.output("y", "$S");
    const Run r = run(g, alignmentInputs(2));
    QVERIFY2(r.ok(), r.error.c_str());
    const std::map<QString, std::function<double(double, double)>> f = {
        {"add", [](double a, double b) { return a + b; }},
        {"sub", [](double a, double b) { return a - b; }},
        {"mul", [](double a, double b) { return a * b; }},
        {"maximum", [](double a, double b) { return std::max(a, b); }},
        {"minimum", [](double a, double b) { return std::min(a, b); }}};
    std::vector<double> expected;
    for (std::size_t i = 0; i < lhs.size(); ++i) expected.push_back(f.at(op)(lhs[i], rhs[i]));
    RT_CHECK(sameSparse(r.sparse(), coords, expected, 0, 0));
  }

  // With lhs and rhs the same SSA value every join is the lhs order with both sides present:
  // sub gives zeros, mul squares.
  void binaryOfAValueWithItselfKeepsTheLhsOrder_data() {
    QTest::addColumn<QString>("join");
    for (const char* j : {"inner", "left", "right", "outer"}) QTest::newRow(j) << QString(j);
  }
  void binaryOfAValueWithItselfKeepsTheLhsOrder() {
    QFETCH(QString, join);
    for (const char* op : {"sub", "mul"}) {
      Graph g;
      g.sparseInput("l", 2);
      g.op("%y = lattice.sparse.binary %l, %l {op = #lattice.binary_op<" + std::string(op) + ">, join = #lattice.join<" +
           join.toStdString() + ">, " + kBinaryAttrs + "} : ($S, $S) -> $S");
      g.output("y", "$S");
      Inputs in;
      in.sparse("l", {C, A, B}, {3, 30, 1, 10, 2, 20}, 2);
      const Run r = run(g, in);
      QVERIFY2(r.ok(), r.error.c_str());
      const std::vector<double> expected = std::string(op) == "sub" ? std::vector<double>(6, 0.0)
                                                                    : std::vector<double>{9, 900, 1, 100, 4, 400};
      RT_CHECK(sameSparse(r.sparse(), {C, A, B}, expected, 0, 0));
    }
  }

  // Two distinct values with the same coordinates in another order: the join still aligns by
  // coordinate (inner keeps the lhs order, right the rhs order).
  void binaryAlignsByCoordinateNotByRow() {
    Graph g;
    g.sparseInput("l", 1).sparseInput("r", 1);
    g.op("%y = lattice.sparse.binary %l, %r {op = #lattice.binary_op<sub>, join = #lattice.join<right>, " +
         kBinaryAttrs + "} : ($S, $S) -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("l", {A, B}, {1, 2}, 1);
    in.sparse("r", {B, A}, {20, 10}, 1);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    // right: rhs order B, A; B: 2 − 20 = −18, A: 1 − 10 = −9.
    RT_CHECK(sameSparse(r.sparse(), {B, A}, {-18, -9}, 0, 0));
  }

  // sparse.cat: lhs channels then rhs channels (2 + 1); a missing side is 0 (not a fill).
  void catAlignsAndConcatenates_data() {
    QTest::addColumn<QString>("join");
    QTest::addColumn<std::vector<Coord>>("coords");
    QTest::addColumn<std::vector<double>>("features");
    QTest::newRow("inner") << QString("inner") << std::vector<Coord>{A, B}
                           << std::vector<double>{1, 10, 4, 2, 20, 5};
    QTest::newRow("left") << QString("left") << std::vector<Coord>{A, B, C}
                          << std::vector<double>{1, 10, 4, 2, 20, 5, 3, 30, 0};
    QTest::newRow("right") << QString("right") << std::vector<Coord>{D, B, A}
                           << std::vector<double>{0, 0, 7, 2, 20, 5, 1, 10, 4};
    QTest::newRow("outer") << QString("outer") << std::vector<Coord>{A, B, C, D}
                           << std::vector<double>{1, 10, 4, 2, 20, 5, 3, 30, 0, 0, 0, 7};
  }
  void catAlignsAndConcatenates() {
    QFETCH(QString, join);
    QFETCH(std::vector<Coord>, coords);
    QFETCH(std::vector<double>, features);
    Graph g;
    g.sparseInput("l", 2).sparseInput("r", 1);
    g.op("%y = lattice.sparse.cat %l, %r {join = #lattice.join<" + join.toStdString() + ">} : ($S, $S) -> $S");
    g.output("y", "$S");
    const Run r = run(g, alignmentInputs(1));
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(r.sparse().channels, std::int64_t(3));
    RT_CHECK(sameSparse(r.sparse(), coords, features, 0, 0));
  }

  void catOfAValueWithItselfKeepsTheLhsOrder_data() {
    QTest::addColumn<QString>("join");
    for (const char* j : {"inner", "left", "right", "outer"}) QTest::newRow(j) << QString(j);
  }
  void catOfAValueWithItselfKeepsTheLhsOrder() {
    QFETCH(QString, join);
    Graph g;
    g.sparseInput("l", 1);
    g.op("%y = lattice.sparse.cat %l, %l {join = #lattice.join<" + join.toStdString() + ">} : ($S, $S) -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("l", {B, A}, {2, 1}, 1);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(sameSparse(r.sparse(), {B, A}, {2, 2, 1, 1}, 0, 0));
  }

  // f16 features: the op computes in f32 and rounds its result once to f16. f16(0.1) =
  // 0.0999755859375 and f16(0.2) = 0.199951171875 sum to 0.2999267578125 (exact in f32), which
  // lies halfway between the f16 neighbours 0.2998046875 (mantissa even) and 0.300048828125:
  // round-half-even gives 0.2998046875.
  void f16BinaryRoundsItsResultOnceToHalf() {
    Graph g;
    g.sparseInput("l", 1, {1, 1, 1}, "f16").sparseInput("r", 1, {1, 1, 1}, "f16");
    g.op("%y = lattice.sparse.binary %l, %r {op = #lattice.binary_op<add>, join = #lattice.join<inner>, " +
         kBinaryAttrs + "} : ($H, $H) -> $H");
    g.output("y", "$H");
    Inputs in;
    in.sparse("l", {A}, {0.1f}, 1, Inputs::kAllRows, /*half=*/true);
    in.sparse("r", {A}, {0.2f}, 1, Inputs::kAllRows, /*half=*/true);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(f16(0.1f), 0.0999755859375f);
    QCOMPARE(f16(0.2f), 0.199951171875f);
    RT_CHECK(sameSparse(r.sparse(), {A}, {0.2998046875}, 0, 0));
  }

  // The runtime keeps the support object of an op that does not change it, so kernel maps
  // built on it are found again (with_features, binary of a value with itself).
  void supportPreservingOpsShareTheCoordSet() {
    Graph g;
    g.sparseInput("x", 1);
    g.op("%c, %f, %a = lattice.sparse.decompose %x : $S -> (tensor<?x4xi32>, tensor<?x1xf32>, tensor<1xi32>)");
    g.op("%y = lattice.sparse.with_features %x, %f : ($S, tensor<?x1xf32>) -> $S");
    g.op("%z = lattice.sparse.binary %y, %y {op = #lattice.binary_op<add>, join = #lattice.join<outer>, " +
         kBinaryAttrs + "} : ($S, $S) -> $S");
    g.output("z", "$S");
    Inputs in;
    in.sparse("x", {A, B}, {1, 2}, 1);
    const Run r = run(g, in, Numerics::Default, true);
    QVERIFY2(r.ok(), r.error.c_str());
    const auto& plan = r.runtime->plan();
    const auto& x = std::get<runtime::Sparse>(r.runtime->value(plan.slotOf("x")));
    const auto& z = std::get<runtime::Sparse>(r.runtime->value(plan.slotOf("z")));
    QCOMPARE(x.coords.get(), z.coords.get());
    RT_CHECK(sameSparse(r.sparse(), {A, B}, {2, 4}, 0, 0));
  }
};

QTEST_GUILESS_MAIN(TestRuntimeSparse)
#include "tst_runtime_sparse.moc"
