// The runtime's convolution family (lattice-artifact-validation.md sec. 10.2 kernel rows and
// offsets, sec. 10.3 the six relation builders, sec. 10.4 conv and normalized family): every conv
// op on a handful of points along x, with weights chosen so that each edge shows in the sum
// (powers of ten), and the expected rows and values worked out by hand in the comments. Also the
// kernel (3, 1, 5) row order (z fastest), the weight layout (C_out, Kx, Ky, Kz, C_in), bias,
// dilation, the MLX pointwise bypass of normalized_subm, f16 rounding and the reported FLOPs.

#include "RuntimeTestSupport.h"

#include "lowering/WeightPacking.h"

#include <QtTest/QtTest>

#include <cmath>

using namespace lattice;
using namespace lattice::rt;

namespace {

using Triple = std::array<std::int64_t, 3>;

std::string tri(const Triple& t) {
  return "array<i64: " + std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " + std::to_string(t[2]) + ">";
}

/// Attributes of the full conv signature (conv3d, target and transposed ops).
std::string full(Triple k, Triple s = {1, 1, 1}, Triple p = {0, 0, 0}, Triple d = {1, 1, 1}, const char* eps = nullptr) {
  return "{kernel_size = " + tri(k) + ", stride = " + tri(s) + ", padding = " + tri(p) + ", dilation = " + tri(d) +
         ", accumulation = \"canonical_f32\"" + (eps ? std::string(", eps = ") + eps + " : f32" : "") + "}";
}
std::string subm(Triple k, Triple d = {1, 1, 1}, const char* eps = nullptr) {
  return "{kernel_size = " + tri(k) + ", dilation = " + tri(d) + (eps ? std::string(", eps = ") + eps + " : f32" : "") +
         ", accumulation = \"canonical_f32\"}";
}
std::string generative(Triple k, Triple s, const char* eps = nullptr) {
  return "{kernel_size = " + tri(k) + ", stride = " + tri(s) + (eps ? std::string(", eps = ") + eps + " : f32" : "") +
         ", accumulation = \"canonical_f32\"}";
}

/// Physical coordinates (0, x·sx, 0, 0) of logical x positions.
std::vector<Coord> alongX(const std::vector<int>& xs, std::int64_t sx = 1) {
  std::vector<Coord> out;
  for (int x : xs) out.push_back({0, static_cast<std::int32_t>(x * sx), 0, 0});
  return out;
}

struct ConvCase {
  const char* name;
  std::string op; ///< op name without `lattice.`
  std::string attrs;
  Triple inStride;
  std::vector<int> in; ///< logical x of the input rows
  std::vector<float> features;
  std::int64_t cin = 1;
  bool target = false;
  Triple targetStride{1, 1, 1};
  std::vector<int> targetXs;
  std::vector<std::int64_t> weightShape; ///< (C_out, Kx, Ky, Kz, C_in)
  std::vector<float> weight;
  std::vector<float> bias; ///< empty: no bias operand
  std::vector<int> outXs;  ///< expected output rows (logical x, in order)
  Triple outStride;
  std::vector<double> expected;
};

const double kHalf = 0.5; // eps of the normalized rows

const std::vector<ConvCase>& cases() {
  static const std::vector<ConvCase> c = {
      // conv3d k2 s2 p0 (forward relation, sparse offsets: even K gives 0, 1). Output support
      // unique(floor(x / 2)) in first-occurrence order: x 0, 1 → 0; 2 → 1; 5 → 2. Edges read
      // 2o + k. W = [10, 100], bias 0.5: o0 = 1·10 + 2·100 = 210; o1 = 3·10 = 30 (x 3 absent);
      // o2 = 4·100 = 400 (x 4 absent). Output stride 2.
      {"conv3d k2 stride 2", "conv3d", full({2, 1, 1}, {2, 1, 1}), {1, 1, 1}, {0, 1, 2, 5}, {1, 2, 3, 4}, 1, false, {},
       {}, {1, 2, 1, 1, 1}, {10, 100}, {0.5f}, {0, 1, 2}, {2, 1, 1}, {210.5, 30.5, 400.5}},
      // conv3d k3 s2 (D1: the same support whatever the kernel): offsets −1, 0, 1, edges read
      // 2o − 1 + k. W = [1, 10, 100]: o0 = X[0]·10 + X[1]·100 = 10 + 200; o1 = X[1]·1 + X[2]·10 =
      // 2 + 30; o2 = X[5]·100 = 400.
      {"conv3d k3 stride 2", "conv3d", full({3, 1, 1}, {2, 1, 1}), {1, 1, 1}, {0, 1, 2, 5}, {1, 2, 3, 4}, 1, false, {},
       {}, {1, 3, 1, 1, 1}, {1, 10, 100}, {}, {0, 1, 2}, {2, 1, 1}, {210, 32, 400}},
      // conv3d k3 s1 p1 (D2): the window is o − 2 .. o (o·s + off_k − p = o + k − 2), not
      // o − 1 .. o + 1. Support: the input rows in order. W = [1, 10, 100]:
      // o0 = X[0]·100 = 100; o1 = X[0]·10 + X[1]·100 = 210; o2 = X[0] + X[1]·10 + X[2]·100 = 321;
      // o5 = X[5]·100 = 400.
      {"conv3d k3 padding 1", "conv3d", full({3, 1, 1}, {1, 1, 1}, {1, 0, 0}), {1, 1, 1}, {0, 1, 2, 5}, {1, 2, 3, 4}, 1,
       false, {}, {}, {1, 3, 1, 1, 1}, {1, 10, 100}, {}, {0, 1, 2, 5}, {1, 1, 1}, {100, 210, 321, 400}},
      // conv3d k3 s2 p1: the support is still unique(floor(x / 2)) (D1: padding does not enter it),
      // edges read 2o + (k − 1) − 1 = 2o + k − 2. W = [1, 10, 100]: o0 = X[0]·100 = 100;
      // o1 = X[0]·1 + X[1]·10 + X[2]·100 = 321; o2 = X[2]·1 = 3 (x 3, 4 absent).
      {"conv3d k3 stride 2 padding 1", "conv3d", full({3, 1, 1}, {2, 1, 1}, {1, 0, 0}), {1, 1, 1}, {0, 1, 2, 5},
       {1, 2, 3, 4}, 1, false, {}, {}, {1, 3, 1, 1, 1}, {1, 10, 100}, {}, {0, 1, 2}, {2, 1, 1}, {100, 321, 3}},
      // conv3d on a stride-2 input: output stride s_in ⊙ s = 4; logical input x 0, 1, 3 → support
      // 0 (x 0, 1), 1 (x 3). Edges read 2o + k; W = [10, 100]: o0 = 1·10 + 2·100; o1 = X[3]·100.
      {"conv3d on a strided input", "conv3d", full({2, 1, 1}, {2, 1, 1}), {2, 1, 1}, {0, 1, 3}, {1, 2, 3}, 1, false, {},
       {}, {1, 2, 1, 1, 1}, {10, 100}, {}, {0, 1}, {4, 1, 1}, {210, 300}},
      // subm k3 dilation 2: offsets −2, 0, 2. W = [1, 10, 100]: y0 = X[0]·10 + X[2]·100 = 310;
      // y1 = X[1]·10 = 20; y2 = X[0] + X[2]·10 + X[4]·100 = 1 + 30 + 400; y4 = X[2] + X[4]·10 = 43.
      {"subm_conv3d dilation 2", "subm_conv3d", subm({3, 1, 1}, {2, 1, 1}), {1, 1, 1}, {0, 1, 2, 4}, {1, 2, 3, 4}, 1,
       false, {}, {}, {1, 3, 1, 1, 1}, {1, 10, 100}, {}, {0, 1, 2, 4}, {1, 1, 1}, {310, 20, 431, 43}},
      // subm on a stride-(2, 1, 1) input: offsets apply to logical coordinates (x 0, 1 are
      // neighbours at physical 0, 2). W = [1, 10, 100]: y0 = 1·10 + 2·100; y1 = 1 + 2·10.
      {"subm_conv3d on a strided input", "subm_conv3d", subm({3, 1, 1}), {2, 1, 1}, {0, 1}, {1, 2}, 1, false, {}, {},
       {1, 3, 1, 1, 1}, {1, 10, 100}, {}, {0, 1}, {2, 1, 1}, {210, 21}},
      // normalized_subm k3, C_in 2, C_out 1, eps 0.5, bias 1. W_k[ci] = Wt[0, k, 0, 0, ci]:
      // k0 [1, 0], k1 [2, 1], k2 [0, 2]; S_k = Σ_ci W² = 1, 5, 4. X: x0 [3, 1], x1 [4, −1], x3 [5, 2].
      // y0: N = X0·W1 + X1·W2 = 7 − 2 = 5, D = S1 + S2 = 9 → 5/√9.5 + 1.
      // y1: N = X0·W0 + X1·W1 = 3 + 7 = 10, D = S0 + S1 = 6 → 10/√6.5 + 1.
      // y3: N = X3·W1 = 12, D = 5 → 12/√5.5 + 1.
      {"normalized_subm_conv3d", "normalized_subm_conv3d", subm({3, 1, 1}, {1, 1, 1}, "0.5"), {1, 1, 1}, {0, 1, 3},
       {3, 1, 4, -1, 5, 2}, 2, false, {}, {}, {1, 3, 1, 1, 2}, {1, 0, 2, 1, 0, 2}, {1}, {0, 1, 3}, {1, 1, 1},
       {5 / std::sqrt(9 + kHalf) + 1, 10 / std::sqrt(6 + kHalf) + 1, 12 / std::sqrt(5 + kHalf) + 1}},
      // normalized_subm with kernel and dilation (1, 1, 1) is a plain subm conv in MLX (sec.
      // 10.4): y = X·2 + 1, no division by √(4 + eps).
      {"normalized_subm_conv3d 1x1x1 bypass", "normalized_subm_conv3d", subm({1, 1, 1}, {1, 1, 1}, "0.5"), {1, 1, 1},
       {0, 1}, {3, 4}, 1, false, {}, {}, {1, 1, 1, 1, 1}, {2}, {1}, {0, 1}, {1, 1, 1}, {7, 9}},
      // The bypass is only for normalized_subm (D4): a 1×1×1 normalized_conv_transpose3d
      // normalizes: 3·2 / √(4 + 0.5), 4·2 / √4.5.
      {"normalized_conv_transpose3d 1x1x1 normalizes", "normalized_conv_transpose3d",
       full({1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, "0.5"), {1, 1, 1}, {0, 1}, {3, 4}, 1, false, {}, {},
       {1, 1, 1, 1, 1}, {2}, {}, {0, 1}, {1, 1, 1}, {6 / std::sqrt(4.5), 8 / std::sqrt(4.5)}},
      // target_conv3d k3 s2: edges read t·2 + (k − 1) on the target's rows in the target's order
      // (target stride 2 = s_in ⊙ s). W = [1, 10, 100], bias 0.25:
      // t2: X[3]·1 + X[5]·100 = 504; t0: X[0]·10 + X[1]·100 = 210; t7: no edge → bias only.
      {"target_conv3d", "target_conv3d", full({3, 1, 1}, {2, 1, 1}), {1, 1, 1}, {0, 1, 2, 3, 5}, {1, 2, 3, 4, 5}, 1, true,
       {2, 1, 1}, {2, 0, 7}, {1, 3, 1, 1, 1}, {1, 10, 100}, {0.25f}, {2, 0, 7}, {2, 1, 1}, {504.25, 210.25, 0.25}},
      // target_conv3d k3 s2 p1: edges read 2t + k − 2. W = [1, 10, 100]: t2: X[2] + X[3]·10 = 43;
      // t0: X[0]·100 = 100; t3: X[5]·10 = 50.
      {"target_conv3d padding 1", "target_conv3d", full({3, 1, 1}, {2, 1, 1}, {1, 0, 0}), {1, 1, 1}, {0, 1, 2, 3, 5},
       {1, 2, 3, 4, 5}, 1, true, {2, 1, 1}, {2, 0, 3}, {1, 3, 1, 1, 1}, {1, 10, 100}, {}, {2, 0, 3}, {2, 1, 1},
       {43, 100, 50}},
      // conv_transpose3d k2 s2 (indexed offsets 0, 1): for i ascending, k ascending the rows
      // c·2 + k: input x 1, 0 (stride 2) → rows 2, 3, 0, 1. W = [10, 100], bias 1:
      // 1·10 + 1, 1·100 + 1, 2·10 + 1, 2·100 + 1.
      {"conv_transpose3d k2 stride 2", "conv_transpose3d", full({2, 1, 1}, {2, 1, 1}), {2, 1, 1}, {1, 0}, {1, 2}, 1,
       false, {}, {}, {1, 2, 1, 1, 1}, {10, 100}, {1}, {2, 3, 0, 1}, {1, 1, 1}, {11, 101, 21, 201}},
      // conv_transpose3d k3 s2 p1: rows c·2 + k − 1 deduplicated in first-occurrence order:
      // x0 → −1, 0, 1; x1 → 1 (again), 2, 3. W = [1, 10, 100]: y−1 = 1·1; y0 = 1·10;
      // y1 = 1·100 + 2·1 = 102; y2 = 2·10; y3 = 2·100.
      {"conv_transpose3d k3 stride 2 padding 1", "conv_transpose3d", full({3, 1, 1}, {2, 1, 1}, {1, 0, 0}), {2, 1, 1},
       {0, 1}, {1, 2}, 1, false, {}, {}, {1, 3, 1, 1, 1}, {1, 10, 100}, {}, {-1, 0, 1, 2, 3}, {1, 1, 1},
       {1, 10, 102, 20, 200}},
      // conv_transpose3d k2 s1 dilation 3 (indexed offsets p·d = 0, 3): x0 → 0, 3; x1 → 1, 4.
      // W = [10, 100]: 1·10, 1·100, 2·10, 2·100.
      {"conv_transpose3d dilation 3", "conv_transpose3d", full({2, 1, 1}, {1, 1, 1}, {0, 0, 0}, {3, 1, 1}), {1, 1, 1},
       {0, 1}, {1, 2}, 1, false, {}, {}, {1, 2, 1, 1, 1}, {10, 100}, {}, {0, 3, 1, 4}, {1, 1, 1}, {10, 100, 20, 200}},
      // target_conv_transpose3d k3 s2 p1: edge (t, k) iff v = t + 1 − k is even and v/2 is an
      // input row (x 0 = 1, x 1 = 2). W = [1, 10, 100].
      // t3: k2 → v 2 → x1: 2·100 = 200. t0: k1 → v 0 → x0: 1·10. t1: k0 → v 2 → x1: 2·1, k2 →
      // v 0 → x0: 1·100 → 102. t8: v 9, 8 (x 4 absent), 7 → no edge: 0.
      {"target_conv_transpose3d", "target_conv_transpose3d", full({3, 1, 1}, {2, 1, 1}, {1, 0, 0}), {2, 1, 1}, {0, 1},
       {1, 2}, 1, true, {1, 1, 1}, {3, 0, 1, 8}, {1, 3, 1, 1, 1}, {1, 10, 100}, {}, {3, 0, 1, 8}, {1, 1, 1},
       {200, 10, 102, 0}},
      // normalized_conv_transpose3d k3 s2 p1, W = [1, 2, 2] (S = 1, 4, 4), eps 0.5, the edges of
      // the conv_transpose3d row above: y−1 = 1·1/√(1.5); y0 = 1·2/√4.5; y1 = (1·2 + 2·1)/√(4 + 1 +
      // 0.5); y2 = 2·2/√4.5; y3 = 2·2/√4.5.
      {"normalized_conv_transpose3d", "normalized_conv_transpose3d",
       full({3, 1, 1}, {2, 1, 1}, {1, 0, 0}, {1, 1, 1}, "0.5"), {2, 1, 1}, {0, 1}, {1, 2}, 1, false, {}, {},
       {1, 3, 1, 1, 1}, {1, 2, 2}, {}, {-1, 0, 1, 2, 3}, {1, 1, 1},
       {1 / std::sqrt(1.5), 2 / std::sqrt(4.5), 4 / std::sqrt(5.5), 4 / std::sqrt(4.5), 4 / std::sqrt(4.5)}},
      // target_normalized_conv_transpose3d, the edges of the target row above, W = [1, 2, 2],
      // bias 1: t3 = 2·2/√4.5; t0 = 1·2/√4.5; t1 = (2·1 + 1·2)/√(1 + 4 + 0.5); t8: 0/√0.5 = 0.
      {"target_normalized_conv_transpose3d", "target_normalized_conv_transpose3d",
       full({3, 1, 1}, {2, 1, 1}, {1, 0, 0}, {1, 1, 1}, "0.5"), {2, 1, 1}, {0, 1}, {1, 2}, 1, true, {1, 1, 1},
       {3, 0, 1, 8}, {1, 3, 1, 1, 1}, {1, 2, 2}, {1}, {3, 0, 1, 8}, {1, 1, 1},
       {4 / std::sqrt(4.5) + 1, 2 / std::sqrt(4.5) + 1, 4 / std::sqrt(5.5) + 1, 1}},
      // generative k2 s2: row i·K + k = c_i·2 + k, one edge each, no deduplication: x 1, 0 →
      // rows 2, 3, 0, 1. W = [10, 100].
      {"generative_conv_transpose3d", "generative_conv_transpose3d", generative({2, 1, 1}, {2, 1, 1}), {2, 1, 1},
       {1, 0}, {1, 2}, 1, false, {}, {}, {1, 2, 1, 1, 1}, {10, 100}, {}, {2, 3, 0, 1}, {1, 1, 1}, {10, 100, 20, 200}},
      // normalized_generative, W = [2, 3], eps 0.5, bias 1: each row has its one edge:
      // 1·2/√4.5 + 1, 1·3/√9.5 + 1, 2·2/√4.5 + 1, 2·3/√9.5 + 1.
      {"normalized_generative_conv_transpose3d", "normalized_generative_conv_transpose3d",
       generative({2, 1, 1}, {2, 1, 1}, "0.5"), {2, 1, 1}, {1, 0}, {1, 2}, 1, false, {}, {}, {1, 2, 1, 1, 1}, {2, 3},
       {1}, {2, 3, 0, 1}, {1, 1, 1},
       {2 / std::sqrt(4.5) + 1, 3 / std::sqrt(9.5) + 1, 4 / std::sqrt(4.5) + 1, 6 / std::sqrt(9.5) + 1}},
  };
  return c;
}

} // namespace

class TestRuntimeConv : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void convOpsFollowTheirRelation_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < cases().size(); ++i) QTest::newRow(cases()[i].name) << static_cast<int>(i);
  }
  void convOpsFollowTheirRelation() {
    QFETCH(int, index);
    const ConvCase& c = cases()[static_cast<std::size_t>(index)];
    Graph g;
    g.sparseInput("x", c.cin, c.inStride);
    if (c.target) g.sparseInput("t", 1, c.targetStride);
    g.weight("w", "conv3d", "conv3d_o_xyz_i", c.weightShape, c.weight);
    if (!c.bias.empty()) g.weight("b", "bias", "bias_c", {static_cast<std::int64_t>(c.bias.size())}, c.bias);
    const std::string operands = std::string(c.target ? "%x, %t, %w" : "%x, %w") + (c.bias.empty() ? "" : ", %b");
    const std::string types = std::string(c.target ? "$S, $S, $WC" : "$S, $WC") + (c.bias.empty() ? "" : ", $WB");
    g.op("%y = lattice." + c.op + " " + operands + " " + c.attrs + " : (" + types + ") -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", alongX(c.in, c.inStride[0]), c.features, c.cin);
    if (c.target)
      in.sparse("t", alongX(c.targetXs, c.targetStride[0]), std::vector<float>(c.targetXs.size(), 9.0f), 1);
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      const SparseOut y = r.sparse();
      QCOMPARE(y.stride, c.outStride);
      RT_CHECK(sameSparse(y, alongX(c.outXs, c.outStride[0]), c.expected, 1e-6, 1e-6));
    }
  }

  // Kernel (3, 1, 5), sparse offsets: row k = px·5 + pz holds offset (px − 1, 0, pz − 2) (z
  // fastest, sec. 10.2: rows 0–4 are (−1, 0, −2..2), 5–9 (0, 0, −2..2), 10–14 (1, 0, −2..2)).
  // W_k = k + 1 (Wt[0, px, 0, pz, 0] at flat index k). Points P0 (0,0,0) = 1, P1 (−1,0,−2) = 10,
  // P2 (1,0,2) = 100, P3 (0,0,1) = 1000. y(o) = Σ_k X[o + off_k]·W_k:
  //   P0: P0 at off (0,0,0) row 7 (W 8), P1 at (−1,0,−2) row 0 (W 1), P2 at (1,0,2) row 14 (W 15),
  //       P3 at (0,0,1) row 8 (W 9): 8 + 10 + 1500 + 9000 = 10518.
  //   P1: P0 at (1,0,2) row 14: 15; P1 row 7: 80 → 95 (P2, P3 out of reach).
  //   P2: P0 at (−1,0,−2) row 0: 1; P2 row 7: 800; P3 at (−1,0,−1) row 1 (W 2): 2000 → 2801.
  //   P3: P0 at (0,0,−1) row 6 (W 7): 7; P3 row 7: 8000; P2 at (1,0,1) row 13 (W 14): 1400 → 9407.
  // An x-fastest order would put (0,0,1) on row 10 and (−1,0,−1) on row 3: different sums.
  void kernelRowsAreZFastest() {
    Graph g;
    g.sparseInput("x", 1);
    std::vector<float> w;
    for (int k = 0; k < 15; ++k) w.push_back(static_cast<float>(k + 1));
    g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 3, 1, 5, 1}, w);
    g.op("%y = lattice.subm_conv3d %x, %w " + subm({3, 1, 5}) + " : ($S, $WC) -> $S");
    g.output("y", "$S");
    const std::vector<Coord> points{{0, 0, 0, 0}, {0, -1, 0, -2}, {0, 1, 0, 2}, {0, 0, 0, 1}};
    Inputs in;
    in.sparse("x", points, {1, 10, 100, 1000}, 1);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(sameSparse(r.sparse(), points, {10518, 95, 2801, 9407}, 0, 0));
  }

  // Layout (C_out, Kx, Ky, Kz, C_in): subm k(1, 1, 3), C_in 2, C_out 3, W(co, pz, ci) =
  // (co + 1)·100 + pz·10 + ci + 1 at flat index co·6 + pz·2 + ci; bias [0.5, −1, 2].
  // X: z0 [1, 2], z1 [3, 4] (offsets z −1, 0, 1 on rows pz 0, 1, 2).
  //   y(z0)[co] = 1·W(co,1,0) + 2·W(co,1,1) + 3·W(co,2,0) + 4·W(co,2,1) = 1000(co + 1) + 186.
  //   y(z1)[co] = 1·W(co,0,0) + 2·W(co,0,1) + 3·W(co,1,0) + 4·W(co,1,1) = 1000(co + 1) + 86.
  // The op reports 4 edges (z0: z0, z1; z1: z0, z1), 2 rows and 2·edges·C_in·C_out = 48 FLOPs.
  void weightLayoutChannelsAndBias() {
    Graph g;
    g.sparseInput("x", 2);
    std::vector<float> w;
    for (int co = 0; co < 3; ++co)
      for (int pz = 0; pz < 3; ++pz)
        for (int ci = 0; ci < 2; ++ci) w.push_back(static_cast<float>((co + 1) * 100 + pz * 10 + ci + 1));
    g.weight("w", "conv3d", "conv3d_o_xyz_i", {3, 1, 1, 3, 2}, w);
    g.weight("b", "bias", "bias_c", {3}, {0.5f, -1.0f, 2.0f});
    g.op("%y = lattice.subm_conv3d %x, %w, %b " + subm({1, 1, 3}) + " : ($S, $WC, $WB) -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}, {0, 0, 0, 1}}, {1, 2, 3, 4}, 2);
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(r.sparse().channels, std::int64_t(3));
    RT_CHECK(sameSparse(r.sparse(), {{0, 0, 0, 0}, {0, 0, 0, 1}},
                        {1186.5, 2185, 3188, 1086.5, 2085, 3088}, 0, 0));
    const runtime::OpStats& st = r.runtime->stats(r.runtime->plan().opIndexOf("y"));
    QVERIFY(st.ran);
    QCOMPARE(st.edges, std::int64_t(4));
    QCOMPARE(st.rows, std::int64_t(2));
    QCOMPARE(st.flops, 48.0);
  }

  // A packed conv weight with K > 1 (format sec. 13.3): stored (K, words, C_out) with the last two
  // axes swapped, scales / biases (K, groups, C_out). Dequantized here independently of the
  // runtime: Ŵ[o][k][i] = code(k, o, i)·scale[k][i / G][o] + bias[k][i / G][o], code i of row
  // (k, o) in word [k][i / lanes][o] at bits 8·(i mod 4). subm k(3, 1, 1), C_in = C_out = 2,
  // x0 = [1, 2], x1 = [3, −1] (offsets −1, 0, 1 on rows k 0, 1, 2):
  //   y(x0) = x0·Ŵ_1 + x1·Ŵ_2,  y(x1) = x0·Ŵ_0 + x1·Ŵ_1  (per output channel, summed over i).
  void quantizedConvWeightWithSeveralKernelRows() {
    const std::vector<float> logical{0.5f, -1, 0.25f, 2, -0.75f, 1.5f, 1, 0, -2, 0.125f, 0.75f, -0.5f}; // (2, 3, 1, 1, 2)
    Expected<QuantizedWeight> q = quantizeAffine(f32Tensor({2, 3, 1, 1, 2}, logical), 8, 32, DType::F16);
    QVERIFY2(q, q ? "" : q.message().c_str());
    QCOMPARE(q->weight.shape(), (std::vector<std::int64_t>{3, 8, 2})); // transposed: (K, words, C_out)
    QCOMPARE(q->scales.shape(), (std::vector<std::int64_t>{3, 1, 2}));
    const std::vector<std::int64_t> words = intsOf(q->weight);
    const std::vector<float> scales = floatsOf(q->scales), biases = floatsOf(q->biases);
    auto w = [&](int o, int k, int i) { // Ŵ[o][k][i]
      const std::uint32_t word = static_cast<std::uint32_t>(words[static_cast<std::size_t>((k * 8 + i / 4) * 2 + o)]);
      const float code = static_cast<float>((word >> (8 * (i % 4))) & 0xffu);
      return code * scales[static_cast<std::size_t>(k * 2 + o)] + biases[static_cast<std::size_t>(k * 2 + o)];
    };
    for (int o = 0; o < 2; ++o) // the dequantized weight is the logical one to within int8 steps
      for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 2; ++i) QVERIFY(std::fabs(w(o, k, i) - logical[static_cast<std::size_t>((o * 3 + k) * 2 + i)]) < 0.02);
    const float x0[2] = {1, 2}, x1[2] = {3, -1};
    std::vector<double> expected;
    for (int o = 0; o < 2; ++o) expected.push_back(x0[0] * w(o, 1, 0) + x0[1] * w(o, 1, 1) + x1[0] * w(o, 2, 0) + x1[1] * w(o, 2, 1));
    for (int o = 0; o < 2; ++o) expected.push_back(x0[0] * w(o, 0, 0) + x0[1] * w(o, 0, 1) + x1[0] * w(o, 1, 0) + x1[1] * w(o, 1, 1));

    Graph g;
    g.sparseInput("x", 2);
    g.weightOp("w", "conv3d", "conv3d_o_xyz_i", "#lattice.packing<int8, group_size = 32, scale_dtype = f16, mode = affine>");
    for (NamedTensor& t : quantizedWeightTensors("w.k", *q)) g.tensor(t.key, t.tensor);
    g.op("%y = lattice.subm_conv3d %x, %w " + subm({3, 1, 1}) + " : ($S, $WC) -> $S");
    g.output("y", "$S");
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}}, {1, 2, 3, -1}, 2);
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(sameSparse(r.sparse(), {{0, 0, 0, 0}, {0, 1, 0, 0}}, expected, 1e-6, 1e-6));
    }
  }

  // Duplicate coordinates are refused as inputs (sec. 10.1), but a generative op with
  // kernel_size > stride makes them (D3): x = 1 at A (x 0) and 3 at B (x 1) through generative k2
  // s1 with W = [1, 2] gives rows A 1, B 2, B 3, C 6 (row i·K + k = c_i + k). Lookups then use the
  // first row with the coordinate: subm k1 (×W = 2) gives 2, 4, 4, 12 (the second B reads the
  // first).
  void lookupsUseTheFirstRowOfADuplicate() {
    const auto graph = [](const std::string& attrs, std::int64_t volume, const std::vector<float>& w) {
      Graph g;
      g.sparseInput("x", 1);
      g.weight("g", "conv3d", "conv3d_o_xyz_i", {1, 2, 1, 1, 1}, {1, 2});
      g.op("%d = lattice.generative_conv_transpose3d %x, %g " + generative({2, 1, 1}, {1, 1, 1}) +
           " : ($S, $WC) -> $S");
      g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, volume, 1, 1, 1}, w);
      g.op("%y = lattice.subm_conv3d %d, %w " + attrs + " : ($S, $WC) -> $S");
      g.output("y", "$S");
      return g;
    };
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}}, {1, 3}, 1);
    const std::vector<Coord> rows{{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 1, 0, 0}, {0, 2, 0, 0}};
    const Run r = run(graph(subm({1, 1, 1}), 1, {2}), in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(sameSparse(r.sparse(), rows, {2, 4, 4, 12}, 0, 0));

    // k3 along x, W = [1, 10, 100] (offsets −1, 0, 1), the same rows: A reads itself and the first
    // B: 1·10 + 2·100 = 210; both B rows read A, the first B and C: 1·1 + 2·10 + 6·100 = 621; C
    // reads the first B and itself: 2·1 + 6·10 = 62. (A map that mirrors edges between pairs of
    // rows would give the second B its own value and miss its edges.)
    const Run r3 = run(graph(subm({3, 1, 1}), 3, {1, 10, 100}), in);
    QVERIFY2(r3.ok(), r3.error.c_str());
    RT_CHECK(sameSparse(r3.sparse(), rows, {210, 621, 621, 62}, 0, 0));
  }

  // f16 features and weights: the sum is taken in at least f32 and rounded once to f16, and the
  // bias is cast to f16. X = f16(0.1) = 0.0999755859375, W = 3: 0.2999267578125 lies halfway
  // between f16 0.2998046875 (even) and 0.300048828125 → 0.2998046875.
  void f16ConvRoundsOnceToHalf() {
    Graph g;
    g.sparseInput("x", 1, {1, 1, 1}, "f16");
    g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 1, 1, 1, 1}, {3}, "f16");
    g.op("%y = lattice.subm_conv3d %x, %w " + subm({1, 1, 1}) + " : ($H, $HWC) -> $H");
    g.weight("b", "bias", "bias_c", {1}, {0.5f}, "f16");
    g.op("%z = lattice.subm_conv3d %x, %w, %b " + subm({1, 1, 1}) + " : ($H, $HWC, $HWB) -> $H");
    g.output("y", "$H").output("z", "$H");
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}}, {0.1f}, 1, Inputs::kAllRows, /*half=*/true);
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(sameSparse(r.sparse(0), {{0, 0, 0, 0}}, {0.2998046875}, 0, 0));
      // Bias added before the one rounding: 0.2999267578125 + 0.5 = 0.7999267578125, between the
      // f16 values 0.7998046875 and 0.80029296875 (spacing 2⁻¹¹): nearest is 0.7998046875.
      RT_CHECK(sameSparse(r.sparse(1), {{0, 0, 0, 0}}, {0.7998046875}, 0, 0));
    }
  }
};

QTEST_GUILESS_MAIN(TestRuntimeConv)
#include "tst_runtime_conv.moc"
