// Hostile inputs to the runtime: coordinates outside its range, batches past its limit, active
// counts past the buffer, feature rows that differ from coordinate rows, wrong dtypes and shapes,
// NaN and huge points, out-of-range embedding indices, outputs that leave the coordinate range,
// and kernels or batch sizes that would need unbounded memory. Each gives a clear error (naming
// the op, its SSA name and its location when an op refuses it, or the input when binding does),
// never a crash; the few that the spec defines as non-errors (active clamped, a NaN point in
// devoxelize is a miss) run and give the spec's result. Kernel extents, strides and paddings
// whose coordinate arithmetic would leave 64 bits are refused by the verifier (beyond i32
// coordinates) and by the kernel-map builder, never wrapped.

#include "RuntimeTestSupport.h"

#include "runtime/CoordSet.h"
#include "runtime/KernelMap.h"
#include "runtime/ValueSummary.h"
#include "verify/ArtifactVerifier.h"

#include <QtTest/QtTest>

#include <functional>
#include <limits>

using namespace lattice;
using namespace lattice::rt;

Q_DECLARE_METATYPE(std::vector<std::int64_t>)

namespace {

struct HostileCase {
  const char* name;
  std::function<void(Graph&, Inputs&)> make;
  std::string message; ///< part of the error
  std::string ssa;     ///< the op that refuses it ("" for input binding)
};

const std::string kAcc = "accumulation = \"canonical_f32\"";

/// x (1 channel, stride `s`) as the output.
void identity(Graph& g, std::array<std::int64_t, 3> s = {1, 1, 1}) {
  g.sparseInput("x", 1, s);
  g.output("x", "$S");
}

void voxelize(Graph& g, Inputs& in, const std::vector<float>& points, const char* voxel = "1.0, 1.0, 1.0") {
  g.denseInput("p", "tensor<?x3xf32>").denseInput("f", "tensor<?x1xf32>");
  g.denseInput("b", "tensor<?xi32>").denseInput("n", "tensor<1xi32>");
  g.op(std::string("%v = lattice.voxelize %p, %f, %b, %n {voxel_size = array<f64: ") + voxel +
       ">, origin = array<f64: 0.0, 0.0, 0.0>, reduction = #lattice.voxel_reduction<sum>, stride = array<i64: 1, 1, "
       "1>} : (tensor<?x3xf32>, tensor<?x1xf32>, tensor<?xi32>, tensor<1xi32>) -> $S");
  g.output("v", "$S");
  const std::int32_t n = static_cast<std::int32_t>(points.size() / 3);
  in.dense("p", f32Tensor({n, 3}, points));
  in.dense("f", f32Tensor({n, 1}, std::vector<float>(static_cast<std::size_t>(n), 1.0f)));
  in.dense("b", i32Tensor({n}, std::vector<std::int32_t>(static_cast<std::size_t>(n), 0)));
  in.dense("n", i32Tensor({1}, {n}));
}

/// x (1 channel) through a (5, 1, 1) subm conv whose weights sit on kernel row 0 only, the
/// offset (0 − 2)·d on x: row o reads x − 2·d. `dilation` is the x dilation's text.
Graph submRow0(const std::string& dilation) {
  Graph g;
  g.sparseInput("x", 1);
  g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 5, 1, 1, 1}, {1, 0, 0, 0, 0});
  g.op("%y = lattice.subm_conv3d %x, %w {kernel_size = array<i64: 5, 1, 1>, dilation = array<i64: " + dilation +
       ", 1, 1>, " + kAcc + "} : ($S, $WC) -> $S");
  g.output("y", "$S");
  return g;
}

/// x (1 channel, stride `s`) through `op` with attributes `attrs`, weight (1, K, 1) when
/// `volume` > 0.
Graph oneOp(const std::string& op, const std::string& attrs, std::int64_t volume = 1,
            std::array<std::int64_t, 3> s = {1, 1, 1}) {
  Graph g;
  g.sparseInput("x", 1, s);
  if (volume > 0) {
    g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, volume, 1, 1, 1}, std::vector<float>(std::size_t(volume), 1.0f));
    g.op("%y = lattice." + op + " %x, %w {" + attrs + ", " + kAcc + "} : ($S, $WC) -> $S");
  } else {
    g.op("%y = lattice." + op + " %x {" + attrs + "} : ($S) -> $S");
  }
  g.output("y", "$S");
  return g;
}

/// Element by element equal, a NaN expectation matching exactly a NaN ("" when so).
std::string sameWithNaN(const std::vector<float>& actual, const std::vector<double>& expected) {
  if (actual.size() != expected.size())
    return std::to_string(actual.size()) + " values, expected " + std::to_string(expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const bool same = std::isnan(expected[i]) ? std::isnan(actual[i]) : double(actual[i]) == expected[i];
    if (!same) return "value " + std::to_string(i) + " is " + std::to_string(actual[i]) + ", expected " +
                      std::to_string(expected[i]);
  }
  return "";
}

const std::string kMax = std::to_string(std::numeric_limits<std::int64_t>::max());

struct ExtentCase {
  const char* name;
  Graph graph;
  std::string ssa;     ///< the op the diagnostic is at
  std::string message; ///< "" when the artifact is valid
};

const std::vector<ExtentCase>& extentCases() {
  static const std::vector<ExtentCase> c = {
      {"subm dilation 2^63 - 1", submRow0(kMax), "y",
       "'lattice.subm_conv3d' op kernel_size × dilation on axis x (5 × " + kMax +
           ") exceeds 2147483647, the range of i32 coordinates"},
      {"conv3d kernel_size x dilation past 2^31 - 1 on z",
       oneOp("conv3d", "kernel_size = array<i64: 1, 1, 3>, stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, "
                       "0>, dilation = array<i64: 1, 1, 715827883>", 3),
       "y", "'lattice.conv3d' op kernel_size × dilation on axis z (3 × 715827883) exceeds 2147483647"},
      {"conv3d stride 2^32 on y",
       oneOp("conv3d", "kernel_size = array<i64: 1, 1, 1>, stride = array<i64: 1, 4294967296, 1>, padding = "
                       "array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>"),
       "y", "'lattice.conv3d' op stride on axis y (4294967296) exceeds 2147483647"},
      {"conv_transpose3d padding 2^63 - 1",
       oneOp("conv_transpose3d", "kernel_size = array<i64: 1, 1, 1>, stride = array<i64: 1, 1, 1>, padding = "
                                 "array<i64: " + kMax + ", 0, 0>, dilation = array<i64: 1, 1, 1>"),
       "y", "'lattice.conv_transpose3d' op padding on axis x (" + kMax + ") exceeds 2147483647"},
      {"pool3d kernel_size x dilation overflowing 64 bits",
       oneOp("pool3d", "mode = #lattice.pool_mode<max>, kernel_size = array<i64: 2, 1, 1>, stride = array<i64: 1, 1, "
                       "1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: " + kMax + ", 1, 1>", 0),
       "y", "'lattice.pool3d' op kernel_size × dilation on axis x (2 × " + kMax + ") exceeds 2147483647"},
      {"generative kernel_size 2^31",
       oneOp("generative_conv_transpose3d", "kernel_size = array<i64: 2147483648, 1, 1>, stride = array<i64: 1, 1, 1>"),
       "y", "'lattice.generative_conv_transpose3d' op kernel_size on axis x (2147483648) exceeds 2147483647"},
      {"trilinear stride 2^31",
       oneOp("trilinear_upsample3d", "stride = array<i64: 2147483648, 1, 1>", 0, {2147483647, 1, 1}), "y",
       "'lattice.trilinear_upsample3d' op stride on axis x (2147483648) exceeds 2147483647"},
      {"sparse.make stride 2^31", oneOp("pool3d", "mode = #lattice.pool_mode<max>, kernel_size = array<i64: 1, 1, 1>, "
                                                  "stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, "
                                                  "dilation = array<i64: 1, 1, 1>", 0, {1, 1, 2147483648}),
       "x", "'lattice.sparse.make' op stride on axis z (2147483648) exceeds 2147483647"},
      {"tensor stride 2^16 x 2^16",
       oneOp("conv3d", "kernel_size = array<i64: 1, 1, 1>, stride = array<i64: 65536, 1, 1>, padding = array<i64: 0, "
                       "0, 0>, dilation = array<i64: 1, 1, 1>", 1, {65536, 1, 1}),
       "y", "'lattice.conv3d' op tensor stride on axis x (input stride 65536 × stride 65536) exceeds 2147483647"},
      {"subm kernel_size x dilation = 2^31 - 3", submRow0("429496729"), "", ""},
      {"conv3d stride and tensor stride 2^31 - 1",
       oneOp("conv3d", "kernel_size = array<i64: 1, 1, 1>, stride = array<i64: 2147483647, 1, 1>, padding = "
                       "array<i64: 2147483647, 0, 0>, dilation = array<i64: 2147483647, 1, 1>"),
       "", ""},
  };
  return c;
}

const std::vector<HostileCase>& cases() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  static const std::vector<HostileCase> c = {
      {"x beyond the coordinate range",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.sparse("x", {{0, 0, 0, 0}, {0, 70000, 1, 2}}, {1, 2}, 1);
       },
       "coordinate (0, 70000, 1, 2) of row 1 is outside the runtime's range", "x"},
      {"most negative int32 coordinate",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.sparse("x", {{0, 0, std::numeric_limits<std::int32_t>::min(), 0}}, {1}, 1);
       },
       "is outside the runtime's range", "x"},
      {"batch beyond the limit",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.sparse("x", {{5000, 0, 0, 0}}, {1}, 1);
       },
       "is outside the runtime's range (batch 0..4095", "x"},
      {"negative batch",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.sparse("x", {{-1, 0, 0, 0}}, {1}, 1);
       },
       "is outside the runtime's range", "x"},
      {"feature rows differ from coordinate rows",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.dense("x_coords", i32Tensor({3, 4}, {0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0}));
         in.dense("x_features", f32Tensor({2, 1}, {1, 2}));
         in.dense("x_active", i32Tensor({1}, {3}));
       },
       "coords and feats must have the same row count.", "x"},
      {"features of the wrong dtype",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.dense("x_coords", i32Tensor({1, 4}, {0, 0, 0, 0}));
         in.dense("x_features", i32Tensor({1, 1}, {1}));
         in.dense("x_active", i32Tensor({1}, {1}));
       },
       "input 'x_features' must be F32 (tensor<?x1xf32>), got I32", ""},
      {"coordinates as floats",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.dense("x_coords", f32Tensor({1, 4}, {0, 0, 0, 0}));
         in.dense("x_features", f32Tensor({1, 1}, {1}));
         in.dense("x_active", i32Tensor({1}, {1}));
       },
       "input 'x_coords' must be I32", ""},
      {"coordinates with three columns",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.dense("x_coords", i32Tensor({2, 3}, {0, 0, 0, 0, 1, 0}));
         in.dense("x_features", f32Tensor({2, 1}, {1, 2}));
         in.dense("x_active", i32Tensor({1}, {2}));
       },
       "input 'x_coords' has shape [2, 3], expected tensor<?x4xi32>", ""},
      {"features with the wrong channel count",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.sparse("x", {{0, 0, 0, 0}}, {1, 2}, 2);
       },
       "input 'x_features' has shape [1, 2], expected tensor<?x1xf32>", ""},
      {"active of two entries",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.dense("x_coords", i32Tensor({1, 4}, {0, 0, 0, 0}));
         in.dense("x_features", f32Tensor({1, 1}, {1}));
         in.dense("x_active", i32Tensor({2}, {1, 1}));
       },
       "input 'x_active' has shape [2], expected tensor<1xi32>", ""},
      {"duplicate active coordinates",
       [](Graph& g, Inputs& in) {
         identity(g);
         in.sparse("x", {{0, 1, 2, 3}, {0, 5, 5, 5}, {0, 1, 2, 3}}, {1, 2, 3}, 1);
       },
       "input 'x_coords' repeats coordinate (0, 1, 2, 3) in active rows 0 and 2: active coordinates must be unique",
       ""},
      {"duplicate physical coordinates at a stride",
       [](Graph& g, Inputs& in) {
         identity(g, {2, 2, 2});
         in.sparse("x", {{0, 2, 2, 2}, {1, 2, 2, 2}, {1, 4, 2, 2}, {1, 2, 2, 2}}, {1, 2, 3, 4}, 1);
       },
       "input 'x_coords' repeats coordinate (1, 2, 2, 2) in active rows 1 and 3", ""},
      {"a NaN point in voxelize", [nan](Graph& g, Inputs& in) { voxelize(g, in, {0, 0, 0, nan, 1, 1}); },
       "point row 1 (batch 0) falls outside the runtime's voxel range", "v"},
      {"an infinite point in voxelize",
       [](Graph& g, Inputs& in) { voxelize(g, in, {std::numeric_limits<float>::infinity(), 0, 0}); },
       "point row 0 (batch 0) falls outside the runtime's voxel range", "v"},
      {"a huge point in voxelize", [](Graph& g, Inputs& in) { voxelize(g, in, {0, 3e9f, 0}); },
       "falls outside the runtime's voxel range", "v"},
      {"a tiny voxel size in voxelize", [](Graph& g, Inputs& in) { voxelize(g, in, {1, 1, 1}, "1.0e-30, 1.0, 1.0"); },
       "falls outside the runtime's voxel range", "v"},
      {"embedding index past the table",
       [](Graph& g, Inputs& in) {
         g.denseInput("i", "tensor<?xi32>");
         g.weight("w", "embedding", "embedding_n_c", {3, 1}, {1, 2, 3});
         g.op("%y = lattice.embedding_lookup %i, %w : (tensor<?xi32>, $WE) -> tensor<?x1xf32>");
         g.output("y", "tensor<?x1xf32>");
         in.dense("i", i32Tensor({2}, {0, 3}));
       },
       "embedding index 3 of row 1 is outside the 3 rows of the weight", "y"},
      {"negative embedding index",
       [](Graph& g, Inputs& in) {
         g.denseInput("i", "tensor<?xi32>");
         g.weight("w", "embedding", "embedding_n_c", {3, 1}, {1, 2, 3});
         g.op("%y = lattice.embedding_lookup %i, %w : (tensor<?xi32>, $WE) -> tensor<?x1xf32>");
         g.output("y", "tensor<?x1xf32>");
         in.dense("i", i32Tensor({1}, {-1}));
       },
       "embedding index -1 of row 0 is outside", "y"},
      {"generative output beyond the range",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1, {2, 1, 1});
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 2, 1, 1, 1}, {1, 1});
         g.op("%y = lattice.generative_conv_transpose3d %x, %w {kernel_size = array<i64: 2, 1, 1>, stride = array<i64: "
              "2, 1, 1>, " + kAcc + "} : ($S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 2 * 60000, 0, 0}}, {1}, 1); // logical 60000 → 120000, 120001
       },
       "is outside the runtime's range", "y"},
      {"transposed output beyond the range",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1, {4, 1, 1});
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 2, 1, 1, 1}, {1, 1});
         g.op("%y = lattice.conv_transpose3d %x, %w {kernel_size = array<i64: 2, 1, 1>, stride = array<i64: 4, 1, 1>, "
              "padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, " + kAcc + "} : ($S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, -4 * 60000, 0, 0}}, {1}, 1);
       },
       "is outside the runtime's range", "y"},
      {"decompose past the i32 range",
       [](Graph& g, Inputs& in) {
         // Logical 16383 at stride 131072 (physical 2147352576) through a transposed conv of
         // stride 2 and dilation 10: logical 32766 and 32776 at stride 65536, and 32776 · 65536 =
         // 2148007936 is past the i32 coordinates decompose returns.
         g.sparseInput("x", 1, {131072, 1, 1});
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 2, 1, 1, 1}, {1, 1});
         g.op("%y = lattice.conv_transpose3d %x, %w {kernel_size = array<i64: 2, 1, 1>, stride = array<i64: 2, 1, 1>, "
              "padding = array<i64: 0, 0, 0>, dilation = array<i64: 10, 1, 1>, " + kAcc + "} : ($S, $WC) -> $S");
         g.op("%c, %f, %n = lattice.sparse.decompose %y : $S -> (tensor<?x4xi32>, tensor<?x1xf32>, tensor<1xi32>)");
         g.output("c", "tensor<?x4xi32>");
         in.sparse("x", {{0, 16383 * 131072, 0, 0}}, {1}, 1);
       },
       "physical coordinate of row 1 on axis x (32776 × 65536) is outside the i32 range", "c"},
      {"pooling kernel past the volume limit",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.op("%y = lattice.pool3d %x {mode = #lattice.pool_mode<sum>, kernel_size = array<i64: 1000, 1000, 1000>, "
              "stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : ($S) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
       },
       "exceeds the runtime's limit of 4096", "y"},
      {"trilinear stride past the volume limit",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1, {100000, 1, 1});
         g.op("%y = lattice.trilinear_upsample3d %x {stride = array<i64: 100000, 1, 1>} : ($S) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
       },
       "exceeds the runtime's limit of 4096", "y"},
      {"global_pool batch_size past the limit",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.op("%y = lattice.global_pool %x {mode = #lattice.pool_mode<sum>, batch_size = 1000000000} : ($S) -> "
              "tensor<?x1xf32>");
         g.output("y", "tensor<?x1xf32>");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
       },
       "exceeds the runtime's limit of 4096", "y"},
  };
  return c;
}

} // namespace

class TestRuntimeHostile : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void hostileInputsAreRefusedClearly_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < cases().size(); ++i) QTest::newRow(cases()[i].name) << static_cast<int>(i);
  }
  void hostileInputsAreRefusedClearly() {
    QFETCH(int, index);
    const HostileCase& c = cases()[static_cast<std::size_t>(index)];
    Graph g;
    Inputs in;
    c.make(g, in);
    const Run r = run(g, in);
    QVERIFY2(!r.ok(), "the run succeeded");
    RT_CHECK(containsAll(r.error, {c.message}));
    QVERIFY2(r.runtime, r.error.c_str()); // the artifact itself is valid
    if (c.ssa.empty()) {
      QVERIFY(!r.runtime->started()); // refused by the input binding
    } else {
      const runtime::RuntimePlan& plan = r.runtime->plan();
      const std::string kind(opName(plan.ops[static_cast<std::size_t>(plan.opIndexOf(c.ssa))].kind));
      RT_CHECK(containsAll(r.error, {g.loc(c.ssa) + ": error: 'lattice." + kind + "' op %" + c.ssa + ": "}));
    }
  }

  // The verifier bounds every number that enters coordinate arithmetic by the range of an i32
  // coordinate, at the op and naming the attribute and axis: kernel_size × dilation (the reach of
  // the kernel), stride, padding, and the tensor stride a forward op makes. The runtime refuses
  // such an artifact; values up to the bound are valid.
  void coordinateExtentsAreBounded_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < extentCases().size(); ++i) QTest::newRow(extentCases()[i].name) << static_cast<int>(i);
  }
  void coordinateExtentsAreBounded() {
    QFETCH(int, index);
    const ExtentCase& c = extentCases()[static_cast<std::size_t>(index)];
    ArtifactParseResult p = c.graph.parse();
    QVERIFY2(p.ok(), p.error.str().c_str());
    const std::string diagnostics = renderDiagnostics(verifyArtifactGraph(*p.graph));
    Expected<Runtime> rt = c.graph.runtime();
    if (c.message.empty()) {
      QVERIFY2(diagnostics.empty(), diagnostics.c_str());
      QVERIFY2(rt, rt ? "" : rt.message().c_str());
      return;
    }
    RT_CHECK(containsAll(diagnostics, {c.graph.loc(c.ssa) + ": error: " + c.message}));
    QVERIFY(!rt);
    RT_CHECK(containsAll(rt.message(), {c.message}));
  }

  // Far dilations are no error: worked by hand with weights on kernel row 0 only (offset
  // −2·d on x) over rows x = 0 and x = 2 holding 7 and 5: dilation 1 reads x − 2, so row x = 2
  // gets 7; dilation 10^6 (or the largest the verifier accepts) reaches no row, so both are 0.
  void farDilationReachesNothing_data() {
    QTest::addColumn<QString>("dilation");
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("dilation 1") << QString("1") << std::vector<double>{0, 7};
    QTest::newRow("dilation 10^6") << QString("1000000") << std::vector<double>{0, 0};
    QTest::newRow("dilation 429496729") << QString("429496729") << std::vector<double>{0, 0};
  }
  void farDilationReachesNothing() {
    QFETCH(QString, dilation);
    QFETCH(std::vector<double>, expected);
    const Graph g = submRow0(dilation.toStdString());
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}, {0, 2, 0, 0}}, {7, 5}, 1);
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(sameSparse(r.sparse(), {{0, 0, 0, 0}, {0, 2, 0, 0}}, expected, 0, 0));
    }
  }

  // The kernel-map builder checks its own arithmetic (it serves any caller, verified or not):
  // an offset (p − ⌊K/2⌋)·d, or a coordinate c·s + offset − p, that leaves 64 bits is refused
  // naming the attributes, never wrapped (2^63 − 1 wraps kernel row 0 of a (5, 1, 1) kernel to
  // offset +2, the mirror of dilation 1's −2).
  void kernelMapRefusesOverflow_data() {
    QTest::addColumn<int>("relation");
    QTest::addColumn<int>("offsets");
    QTest::addColumn<std::vector<std::int64_t>>("attrs"); // kernel, stride, padding, dilation on x
    QTest::addColumn<QStringList>("parts");
    const std::int64_t max = std::numeric_limits<std::int64_t>::max();
    const QString maxText = QString::number(max);
    const int sub = int(runtime::Relation::Submanifold), fwd = int(runtime::Relation::Forward),
              tr = int(runtime::Relation::Transposed), tt = int(runtime::Relation::TargetTransposed);
    const int sparse = int(runtime::OffsetFamily::Sparse), indexed = int(runtime::OffsetFamily::Indexed);
    const QString overflows = QStringLiteral("the runtime's coordinate arithmetic");
    QTest::newRow("subm dilation 2^63 - 1")
        << sub << sparse << std::vector<std::int64_t>{5, 1, 0, max}
        << QStringList{"kernel_size × dilation on axis x (5 × " + maxText + ") overflows " + overflows};
    QTest::newRow("indexed dilation 2^62")
        << tr << indexed << std::vector<std::int64_t>{3, 1, 0, std::int64_t(1) << 62}
        << QStringList{"kernel_size × dilation on axis x (3 × 4611686018427387904) overflows " + overflows};
    QTest::newRow("forward stride 2^62")
        << fwd << sparse << std::vector<std::int64_t>{1, std::int64_t(1) << 62, 0, 1}
        << QStringList{"stride on axis x (4611686018427387904) overflows " + overflows};
    QTest::newRow("transposed padding 2^63 - 1")
        << tr << indexed << std::vector<std::int64_t>{2, 1, max, 1}
        << QStringList{"on axis x", "padding " + maxText, "overflow " + overflows};
    QTest::newRow("target-transposed padding and reach")
        << tt << indexed << std::vector<std::int64_t>{2, 1, max - 1, 2}
        << QStringList{"on axis x", "padding " + QString::number(max - 1), "2 × 2", "overflow " + overflows};
  }
  void kernelMapRefusesOverflow() {
    QFETCH(int, relation);
    QFETCH(int, offsets);
    QFETCH(std::vector<std::int64_t>, attrs);
    QFETCH(QStringList, parts);
    runtime::RelationSpec spec;
    spec.relation = runtime::Relation(relation);
    spec.offsets = runtime::OffsetFamily(offsets);
    spec.kernel[0] = attrs[0];
    spec.stride[0] = attrs[1];
    spec.padding[0] = attrs[2];
    spec.dilation[0] = attrs[3];
    const auto input = runtime::CoordSet::make({0, 0, 0, 0, 0, 2, 0, 0});
    std::string error;
    try {
      runtime::buildKernelMap(input, input, spec);
    } catch (const Exception& e) {
      error = e.message;
    }
    QVERIFY2(!error.empty(), "the map was built");
    for (const QString& part : parts) RT_CHECK(containsAll(error, {part.toStdString()}));
  }

  // NaN propagates as in PyTorch and MLX (torch.relu(NaN) and mx.maximum(NaN, 0) are NaN):
  // every activation of a NaN is NaN; relu, worked by hand on [NaN, −1, 2, inf, −inf], gives
  // [NaN, 0, 2, inf, 0].
  void nanPropagatesThroughActivations_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("approximate");
    for (const char* k : {"relu", "sigmoid", "silu", "tanh", "leaky_relu", "softplus"})
      QTest::newRow(k) << QString(k) << QString("none");
    for (const char* a : {"none", "tanh", "fast"})
      QTest::newRow((std::string("gelu ") + a).c_str()) << QString("gelu") << QString(a);
  }
  void nanPropagatesThroughActivations() {
    QFETCH(QString, kind);
    QFETCH(QString, approximate);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    Graph g;
    g.denseInput("x", "tensor<?x5xf32>");
    g.op("%y = lattice.activation %x {kind = #lattice.activation<" + kind.toStdString() +
         ">, approximate = #lattice.gelu_approx<" + approximate.toStdString() +
         ">, alpha = 0.1 : f32, beta = 2.0 : f32, threshold = 4.0 : f32} : (tensor<?x5xf32>) -> tensor<?x5xf32>");
    g.output("y", "tensor<?x5xf32>");
    Inputs in;
    in.dense("x", f32Tensor({1, 5}, {nan, -1, 2, inf, -inf}));
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      const std::vector<float> y = r.dense();
      QCOMPARE(y.size(), std::size_t(5));
      QVERIFY2(std::isnan(y[0]), std::to_string(y[0]).c_str());
      if (kind == "relu") RT_CHECK(sameWithNaN(y, {std::nan(""), 0, 2, std::numeric_limits<double>::infinity(), 0}));
    }
  }

  // The max-like ops keep a NaN wherever it takes part, worked by hand: pool3d max over pairs of
  // rows along x of [1, NaN, NaN, 2, 5, −1] gives [NaN, NaN, 5]; global_pool max of batch 0
  // [1, NaN] and batch 1 [4] gives [NaN, 4]; maximum and minimum of [1, NaN, 3] and
  // [NaN, 2, 1] give [NaN, NaN, 3] and [NaN, NaN, 1].
  void nanPropagatesThroughMaxAndMin() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const double dnan = std::nan("");
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      {
        Graph g;
        g.sparseInput("x", 1);
        g.op("%y = lattice.pool3d %x {mode = #lattice.pool_mode<max>, kernel_size = array<i64: 2, 1, 1>, stride = "
             "array<i64: 2, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : ($S) -> $S");
        g.output("y", "$S");
        Inputs in;
        in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 2, 0, 0}, {0, 3, 0, 0}, {0, 4, 0, 0}, {0, 5, 0, 0}},
                  {1, nan, nan, 2, 5, -1}, 1);
        const Run r = run(g, in, numerics);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.sparse().coords, (std::vector<Coord>{{0, 0, 0, 0}, {0, 2, 0, 0}, {0, 4, 0, 0}}));
        RT_CHECK(sameWithNaN(r.sparse().features, {dnan, dnan, 5}));
      }
      {
        Graph g;
        g.sparseInput("x", 1);
        g.op("%y = lattice.global_pool %x {mode = #lattice.pool_mode<max>, batch_size = -1} : ($S) -> "
             "tensor<?x1xf32>");
        g.output("y", "tensor<?x1xf32>");
        Inputs in;
        in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}}, {1, nan, 4}, 1);
        const Run r = run(g, in, numerics);
        QVERIFY2(r.ok(), r.error.c_str());
        RT_CHECK(sameWithNaN(r.dense(), {dnan, 4}));
      }
      for (const auto& [op, expected] : {std::pair<std::string, double>{"maximum", 3}, {"minimum", 1}}) {
        Graph g;
        g.sparseInput("x", 1).sparseInput("z", 1);
        g.op("%y = lattice.sparse.binary %x, %z {op = #lattice.binary_op<" + op +
             ">, join = #lattice.join<inner>, lhs_fill = 0.0 : f32, rhs_fill = 0.0 : f32} : ($S, $S) -> $S");
        g.output("y", "$S");
        Inputs in;
        const std::vector<Coord> coords{{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 2, 0, 0}};
        in.sparse("x", coords, {1, nan, 3}, 1).sparse("z", coords, {nan, 2, 1}, 1);
        const Run r = run(g, in, numerics);
        QVERIFY2(r.ok(), r.error.c_str());
        RT_CHECK(sameWithNaN(r.sparse().features, {dnan, dnan, expected}));
      }
    }
  }

  // The NaN and ±inf of a run's inputs and outputs, counted for the warnings of `lattice-cli
  // run` / `check` and the studio, worked by hand: x's features [NaN, 2, inf, NaN] with 3 active
  // rows. The input tensor holds 2 NaN and 1 Inf of its 4 values; the output (x itself) holds its
  // 3 active rows, 1 NaN and 1 Inf.
  void nonFiniteValuesAreCounted() {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    Graph g;
    identity(g);
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 2, 0, 0}, {0, 3, 0, 0}}, {nan, 2, inf, nan}, 1, 3);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(runtime::nonFiniteInputs(r.runtime->plan(), in.get()),
             (std::vector<std::string>{"input 'x_features' holds 2 NaN and 1 Inf of 4 values"}));
    QCOMPARE(runtime::nonFiniteOutputs(*r.runtime),
             (std::vector<std::string>{"output 'output' holds 1 NaN and 1 Inf of 3 values"}));

    // Each kind alone, other dtypes, finite values.
    const runtime::NonFiniteCount infs = runtime::countNonFinite(f32Tensor({3}, {inf, -inf, 0}));
    QCOMPARE(runtime::nonFiniteText("input 'a'", infs), std::string("input 'a' holds 2 Inf of 3 values"));
    const runtime::NonFiniteCount half = runtime::countNonFinite(f16Tensor({2}, {nan, 1}));
    QCOMPARE(runtime::nonFiniteText("input 'h'", half), std::string("input 'h' holds 1 NaN of 2 values"));
    QVERIFY(!runtime::countNonFinite(i32Tensor({2}, {1, 2})).any());
    QCOMPARE(runtime::nonFiniteText("input 'f'", runtime::countNonFinite(f32Tensor({2}, {1, -3}))), std::string());
    runtime::RuntimeValue dense = runtime::Tensor{DType::F32, {2, 2},
                                                  std::make_shared<const std::vector<float>>(std::vector<float>{nan, nan, 1, -inf}),
                                                  nullptr};
    const runtime::NonFiniteCount d = runtime::countNonFinite(dense);
    QCOMPARE(d.nan, std::uint64_t(2));
    QCOMPARE(d.inf, std::uint64_t(1));
    QCOMPARE(d.total, std::uint64_t(4));
  }

  // An active count past the buffer is clamped to the capacity (sec. 10.1), however large.
  void hugeActiveIsClamped() {
    Graph g;
    identity(g);
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}}, {1, 2}, 1, std::numeric_limits<std::int32_t>::max());
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(sameSparse(r.sparse(), {{0, 0, 0, 0}, {0, 1, 0, 0}}, {1, 2}, 0, 0));
  }

  // Inputs the artifact does not know are listed up to ten (in name order), then counted: a file
  // with a million of them gives one short line.
  void unexpectedInputsAreCapped() {
    Graph g;
    identity(g);
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
    for (int i = 24; i >= 0; --i) in.dense("zz" + std::string(i < 10 ? "0" : "") + std::to_string(i), f32Tensor({1}, {0}));
    const Run r = run(g, in);
    QCOMPARE(r.error, std::string("unexpected artifact inputs: zz00, zz01, zz02, zz03, zz04, zz05, zz06, zz07, zz08, "
                                  "zz09, … and 15 more"));
    Inputs few;
    few.sparse("x", {{0, 0, 0, 0}}, {1}, 1).dense("b", f32Tensor({1}, {0})).dense("a", f32Tensor({1}, {0}));
    QCOMPARE(run(g, few).error, std::string("unexpected artifact inputs: a, b"));
  }

  // Only active rows must be unique (sec. 10.1): a coordinate repeated in the padding runs.
  void duplicatesInPaddingRun() {
    Graph g;
    identity(g);
    Inputs in;
    in.sparse("x", {{0, 1, 2, 3}, {0, 5, 5, 5}, {0, 1, 2, 3}}, {1, 2, 3}, 1, 2);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(sameSparse(r.sparse(), {{0, 1, 2, 3}, {0, 5, 5, 5}}, {1, 2}, 0, 0));
  }

  // devoxelize: a NaN or huge point cannot be in any voxel: its row is zero, not an error.
  void devoxelizeOfANaNPointIsAMiss() {
    Graph g;
    g.denseInput("p", "tensor<?x3xf32>");
    g.sparseInput("v", 1);
    g.denseInput("b", "tensor<?xi32>").denseInput("n", "tensor<1xi32>");
    g.op("%y = lattice.devoxelize %p, %v, %b, %n {voxel_size = array<f64: 1.0, 1.0, 1.0>, origin = array<f64: 0.0, "
         "0.0, 0.0>, interpolation = #lattice.point_interpolation<linear>} : (tensor<?x3xf32>, $S, tensor<?xi32>, "
         "tensor<1xi32>) -> tensor<?x1xf32>");
    g.output("y", "tensor<?x1xf32>");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Inputs in;
    in.dense("p", f32Tensor({3, 3}, {nan, 0, 0, 3e9f, 0, 0, 0, 0, 0}));
    in.sparse("v", {{0, 0, 0, 0}}, {7}, 1);
    in.dense("b", i32Tensor({3}, {0, 0, 0}));
    in.dense("n", i32Tensor({1}, {3}));
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(closeValues(r.dense(), {0, 0, 7}, 0, 0)); // the third point sits on the voxel
  }

  // No rows at all runs through every kind of op (relations, pooling, upsampling, alignment,
  // global pooling with inferred batches, decompose, dense ops) and gives empty results.
  void emptyInputRunsThroughEveryKindOfOp() {
    Graph g;
    g.sparseInput("x", 2, {2, 2, 2});
    g.weight("w", "conv3d", "conv3d_o_xyz_i", {2, 2, 2, 2, 2}, std::vector<float>(32, 1.0f));
    g.op("%a = lattice.generative_conv_transpose3d %x, %w {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, "
         "2, 2>, " + kAcc + "} : ($S, $WC) -> $S");
    g.op("%b = lattice.conv_transpose3d %x, %w {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, "
         "padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, " + kAcc + "} : ($S, $WC) -> $S");
    g.op("%c = lattice.pool3d %b {mode = #lattice.pool_mode<max>, kernel_size = array<i64: 2, 2, 2>, stride = "
         "array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : ($S) -> $S");
    g.op("%d = lattice.trilinear_upsample3d %c, %b {stride = array<i64: 2, 2, 2>} : ($S, $S) -> $S");
    g.op("%e = lattice.sparse.binary %d, %a {op = #lattice.binary_op<add>, join = #lattice.join<outer>, lhs_fill = 0.0 "
         ": f32, rhs_fill = 0.0 : f32} : ($S, $S) -> $S");
    g.op("%f = lattice.sparse.cat %e, %b {join = #lattice.join<right>} : ($S, $S) -> $S");
    g.op("%p = lattice.global_pool %f {mode = #lattice.pool_mode<max>, batch_size = -1} : ($S) -> tensor<?x4xf32>");
    g.op("%c1, %f1, %n1 = lattice.sparse.decompose %f : $S -> (tensor<?x4xi32>, tensor<?x4xf32>, tensor<1xi32>)");
    g.op("%s = lattice.softmax %f1 {axis = -1} : (tensor<?x4xf32>) -> tensor<?x4xf32>");
    g.output("p", "tensor<?x4xf32>").output("s", "tensor<?x4xf32>").output("f", "$S");
    Inputs in;
    in.sparse("x", {}, {}, 2);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    std::vector<std::int64_t> shape;
    QVERIFY(r.dense(0, &shape).empty());
    QCOMPARE(shape, (std::vector<std::int64_t>{0, 4})); // B = max batch + 1 = 0 without rows
    QVERIFY(r.dense(1, &shape).empty());
    QCOMPARE(r.sparse(2).coords.size(), std::size_t(0));
  }

  // Features with zero channels: a conv over them sums nothing (zeros), not a crash.
  void zeroChannelsRun() {
    Graph g;
    g.sparseInput("x", 0);
    g.weight("w", "conv3d", "conv3d_o_xyz_i", {3, 3, 1, 1, 0}, {});
    g.op("%y = lattice.subm_conv3d %x, %w {kernel_size = array<i64: 3, 1, 1>, dilation = array<i64: 1, 1, 1>, " + kAcc +
         "} : ($S, $WC) -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}}, {}, 0);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(sameSparse(r.sparse(), {{0, 0, 0, 0}, {0, 1, 0, 0}}, {0, 0, 0, 0, 0, 0}, 0, 0));
  }

  // No points: voxelize gives no voxels, devoxelize no rows.
  void noPointsRun() {
    Graph g;
    g.denseInput("p", "tensor<?x3xf32>").denseInput("f", "tensor<?x2xf32>");
    g.denseInput("b", "tensor<?xi32>").denseInput("n", "tensor<1xi32>");
    g.op("%v = lattice.voxelize %p, %f, %b, %n {voxel_size = array<f64: 1.0, 1.0, 1.0>, origin = array<f64: 0.0, 0.0, "
         "0.0>, reduction = #lattice.voxel_reduction<mean>, stride = array<i64: 1, 1, 1>} : (tensor<?x3xf32>, "
         "tensor<?x2xf32>, tensor<?xi32>, tensor<1xi32>) -> $S");
    g.op("%d = lattice.devoxelize %p, %v, %b, %n {voxel_size = array<f64: 1.0, 1.0, 1.0>, origin = array<f64: 0.0, "
         "0.0, 0.0>, interpolation = #lattice.point_interpolation<linear>} : (tensor<?x3xf32>, $S, tensor<?xi32>, "
         "tensor<1xi32>) -> tensor<?x2xf32>");
    g.output("d", "tensor<?x2xf32>");
    Inputs in;
    in.dense("p", f32Tensor({0, 3}, {})).dense("f", f32Tensor({0, 2}, {}));
    in.dense("b", i32Tensor({0}, {})).dense("n", i32Tensor({1}, {0}));
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    std::vector<std::int64_t> shape;
    QVERIFY(r.dense(0, &shape).empty());
    QCOMPARE(shape, (std::vector<std::int64_t>{0, 2}));
  }
};

QTEST_GUILESS_MAIN(TestRuntimeHostile)
#include "tst_runtime_hostile.moc"
