// The runtime's dense feature ops (lattice-artifact-validation.md sec. 10.4): linear (dense, and
// quantized int4 / int8 dequantized per lattice-artifact-format.md sec. 13.3 with MLX's f16 cast
// of x), batch_norm, layer_norm, rms_norm, every activation kind and GELU approximation,
// elementwise exp / round (half to even), softmax (max-subtracted), embedding_lookup, and f16
// results rounded once. Expected values come from the spec's formulas evaluated here in double
// precision, or are worked out by hand in the comments.

#include "RuntimeTestSupport.h"

#include "lowering/WeightPacking.h"

#include <QtTest/QtTest>

#include <cmath>
#include <functional>

using namespace lattice;
using namespace lattice::rt;

namespace {

/// A graph `%y = lattice.<op> %x<operands> {attrs} : (tensor<?xCxf32>, types) -> tensor<?xDxf32>`.
/// `weights` adds the weight ops the op reads (before it).
Graph unaryGraph(const std::string& op, std::int64_t cin, std::int64_t cout, const std::string& attrs,
                 const std::string& operands = "", const std::string& types = "",
                 const std::function<void(Graph&)>& weights = {}, const std::string& dtype = "f32") {
  const std::string in = "tensor<?x" + std::to_string(cin) + "x" + dtype + ">";
  const std::string out = "tensor<?x" + std::to_string(cout) + "x" + dtype + ">";
  Graph g;
  g.denseInput("x", in);
  if (weights) weights(g);
  g.op("%y = lattice." + op + " %x" + operands + " " + attrs + " : (" + in + types + ") -> " + out);
  g.output("y", out);
  return g;
}

std::string activationAttrs(const std::string& kind, const std::string& approximate = "none") {
  return "{kind = #lattice.activation<" + kind + ">, approximate = #lattice.gelu_approx<" + approximate +
         ">, alpha = 0.1 : f32, beta = 2.0 : f32, threshold = 4.0 : f32}";
}

/// §13.3 dequantization written independently of the runtime: unpack the codes of row o (lane l
/// of word w holds column w·(32/bits) + l at bits [bits·l, bits·l + bits)), then q·scale + bias
/// in f32 with the group's stored scale and bias, keeping the first C_in columns (K = 1 layout:
/// weight (1, C_out, words), scales / biases (1, C_out, groups)).
std::vector<float> unpackLinear(const QuantizedWeight& q, int bits, int group, std::int64_t cout, std::int64_t cin) {
  const std::vector<std::int64_t> words = intsOf(q.weight);
  const std::vector<float> scales = floatsOf(q.scales), biases = floatsOf(q.biases);
  const std::int64_t perRow = q.weight.shape()[2], groups = q.scales.shape()[2], lanes = 32 / bits;
  std::vector<float> out;
  for (std::int64_t o = 0; o < cout; ++o)
    for (std::int64_t j = 0; j < cin; ++j) {
      const std::uint32_t word = static_cast<std::uint32_t>(words[static_cast<std::size_t>(o * perRow + j / lanes)]);
      const std::uint32_t code = (word >> (bits * (j % lanes))) & ((1u << bits) - 1u);
      const std::size_t g = static_cast<std::size_t>(o * groups + j / group);
      out.push_back(static_cast<float>(code) * scales[g] + biases[g]);
    }
  return out;
}

} // namespace

class TestRuntimeFeatures : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // y = x·Wᵀ + b: x [[1, 2, 3], [−1, 0, 4]], W [[1, 0, −1], [2, 1, 0.5]], b [0.5, −1]:
  // y0 = [1 − 3 + 0.5, 2 + 2 + 1.5 − 1] = [−1.5, 4.5]; y1 = [−1 − 4 + 0.5, −2 + 2 − 1] = [−4.5, −1].
  void linearDense() {
    Graph g = unaryGraph("linear", 3, 2, "", ", %w, %b", ", $WL, $WB", [](Graph& w) {
      w.weight("w", "linear", "linear_o_i", {2, 3}, {1, 0, -1, 2, 1, 0.5f});
      w.weight("b", "bias", "bias_c", {2}, {0.5f, -1});
    });
    Inputs in;
    in.dense("x", f32Tensor({2, 3}, {1, 2, 3, -1, 0, 4}));
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(closeValues(r.dense(), {-1.5, 4.5, -4.5, -1}, 0, 0));
    }
  }

  // Quantized linear (G = 32): W as above packed by quantizeAffine (the writer's algorithm),
  // dequantized here independently (unpackLinear). With f16 scales MLX casts x to f16 for the
  // matmul and the product back: y = f16(Σ f16(x_i)·Ŵ[o, i]) + b. With f32 scales, no cast.
  // Hand check of int4 / f16 (sec. 13.3): row 0 [1, 0, −1, 0 × 29]: mx 1, mn −1, scale f32(−2/15)
  // = −0.13333334, bias 1; codes (x − 1)/scale in f32: 0, 7.4999995 → 7, 15 (not 7.5 → 8: the
  // scale is the rounded f32). Stored scale f16 −0.13330078125, so Ŵ0 = [1, 1 − 7·0.13330078125,
  // 1 − 15·0.13330078125] = [1, 0.06689453125, −0.99951171875].
  void linearQuantized_data() {
    QTest::addColumn<int>("bits");
    QTest::addColumn<QString>("scaleDtype");
    QTest::newRow("int4 f16 scales") << 4 << QString("f16");
    QTest::newRow("int8 f16 scales") << 8 << QString("f16");
    QTest::newRow("int4 f32 scales") << 4 << QString("f32");
    QTest::newRow("int8 f32 scales") << 8 << QString("f32");
  }
  void linearQuantized() {
    QFETCH(int, bits);
    QFETCH(QString, scaleDtype);
    const bool half = scaleDtype == "f16";
    const std::vector<float> w{1, 0, -1, 2, 1, 0.5f};
    Expected<QuantizedWeight> q = quantizeAffine(f32Tensor({2, 3}, w), bits, 32, half ? DType::F16 : DType::F32);
    QVERIFY2(q, q ? "" : q.message().c_str());
    const std::vector<float> wq = unpackLinear(*q, bits, 32, 2, 3);
    if (bits == 4 && half)
      QCOMPARE(std::vector<float>(wq.begin(), wq.begin() + 3), (std::vector<float>{1, 0.06689453125f, -0.99951171875f}));
    // The dequantized weight is close to W but not equal (the test must see the difference).
    for (std::size_t i = 0; i < w.size(); ++i) QVERIFY(std::fabs(wq[i] - w[i]) < (bits == 4 ? 0.07 : 0.005));

    Graph g = unaryGraph("linear", 3, 2, "", ", %w, %b", ", $WL, $WB", [&](Graph& w) {
      w.weightOp("w", "linear", "linear_o_i",
                 "#lattice.packing<int" + std::to_string(bits) + ", group_size = 32, scale_dtype = " +
                     scaleDtype.toStdString() + ", mode = affine>");
      for (NamedTensor& t : quantizedWeightTensors("w.k", *q)) w.tensor(t.key, t.tensor);
      w.weight("b", "bias", "bias_c", {2}, {0.5f, -1});
    });
    const std::vector<float> x{0.1f, 2, -3, 1, 1, 1};
    Inputs in;
    in.dense("x", f32Tensor({2, 3}, x));
    std::vector<double> expected;
    for (int r = 0; r < 2; ++r)
      for (int o = 0; o < 2; ++o) {
        double sum = 0;
        for (int i = 0; i < 3; ++i) sum += double(half ? f16(x[r * 3 + i]) : x[r * 3 + i]) * wq[o * 3 + i];
        const double product = half ? f16(static_cast<float>(sum)) : sum;
        expected.push_back(static_cast<float>(product) + (o == 0 ? 0.5 : -1.0));
      }
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(closeValues(r.dense(), expected, 1e-6, 1e-6));
    }
  }

  // (x − mean)·rsqrt(var + eps)·scale + bias, eps 1: scale [2, 0.5], bias [0.1, −1], mean [1, −2],
  // var [3, 0.25] → rsqrt = [1/2, 1/√1.25]. x [1, 2] → [0.1, 4/√1.25·0.5 − 1]; x [3, −4] →
  // [2·0.5·2 + 0.1, −2/√1.25·0.5 − 1].
  void batchNorm() {
    Graph g = unaryGraph("batch_norm", 2, 2, "{eps = 1.0 : f32}", ", %s, %b, %m, %v", ", $WH, $WB, $WH, $WH",
                         [](Graph& w) {
                           w.weight("s", "channel", "channel_c", {2}, {2, 0.5f});
                           w.weight("b", "bias", "bias_c", {2}, {0.1f, -1});
                           w.weight("m", "channel", "channel_c", {2}, {1, -2});
                           w.weight("v", "channel", "channel_c", {2}, {3, 0.25f});
                         });
    Inputs in;
    in.dense("x", f32Tensor({2, 2}, {1, 2, 3, -4}));
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    const double s = std::sqrt(1.25);
    RT_CHECK(closeValues(r.dense(), {0.1, 2 / s - 1, 2.1, -1 / s - 1}, 1e-6, 1e-7));
  }

  // Per row, biased variance: [1, 2, 3, 6] has μ 3, σ² (4 + 1 + 0 + 9)/4 = 3.5, eps 0.5 →
  // (x − 3)/2 = [−1, −0.5, 0, 1.5], · scale [1, 2, 3, 4] + bias [0, 1, 0, −1] = [−1, 0, 0, 5].
  // A constant row [2, 2, 2, 2] normalizes to 0 → the bias.
  void layerNorm() {
    Graph g = unaryGraph("layer_norm", 4, 4, "{eps = 0.5 : f32}", ", %s, %b", ", $WH, $WB", [](Graph& w) {
      w.weight("s", "channel", "channel_c", {4}, {1, 2, 3, 4});
      w.weight("b", "bias", "bias_c", {4}, {0, 1, 0, -1});
    });
    Inputs in;
    in.dense("x", f32Tensor({2, 4}, {1, 2, 3, 6, 2, 2, 2, 2}));
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(closeValues(r.dense(), {-1, 0, 0, 5, 0, 1, 0, -1}, 1e-6, 1e-7));
    }
  }

  // x·rsqrt(mean(x²) + eps)·scale, eps 4: [1, 3] → mean 5, rsqrt(9) = 1/3 → [1/3, 1]·[3, 2] =
  // [1, 2]; [0, 0] → 0.
  void rmsNorm() {
    Graph g = unaryGraph("rms_norm", 2, 2, "{eps = 4.0 : f32}", ", %s", ", $WH",
                         [](Graph& w) { w.weight("s", "channel", "channel_c", {2}, {3, 2}); });
    Inputs in;
    in.dense("x", f32Tensor({2, 2}, {1, 3, 0, 0}));
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(closeValues(r.dense(), {1, 2, 0, 0}, 1e-6, 1e-7));
  }

  // Every kind by its formula (alpha 0.1 for leaky_relu; beta 2, threshold 4 for softplus: βx > 4
  // only at x = 3, which passes through).
  void activationKinds_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("approximate");
    for (const char* k : {"relu", "sigmoid", "silu", "tanh", "leaky_relu", "softplus"})
      QTest::newRow(k) << QString(k) << QString("none");
    for (const char* a : {"none", "precise", "tanh", "fast"})
      QTest::newRow((std::string("gelu ") + a).c_str()) << QString("gelu") << QString(a);
  }
  void activationKinds() {
    QFETCH(QString, kind);
    QFETCH(QString, approximate);
    const std::vector<float> x{-2, -0.5f, 0, 0.5f, 3};
    auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
    std::vector<double> expected;
    for (float f : x) {
      const double v = f;
      const std::string k = kind.toStdString(), a = approximate.toStdString();
      if (k == "relu") expected.push_back(std::max(v, 0.0));
      else if (k == "sigmoid") expected.push_back(sigmoid(v));
      else if (k == "silu") expected.push_back(v * sigmoid(v));
      else if (k == "tanh") expected.push_back(std::tanh(v));
      else if (k == "leaky_relu") expected.push_back(v >= 0 ? v : 0.1 * v);
      else if (k == "softplus") expected.push_back(2 * v > 4 ? v : std::log(1 + std::exp(2 * v)) / 2);
      else if (a == "tanh")
        expected.push_back(0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))));
      else if (a == "fast") expected.push_back(v * sigmoid(1.702 * v));
      else expected.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    }
    Graph g = unaryGraph("activation", 5, 5, activationAttrs(kind.toStdString(), approximate.toStdString()));
    Inputs in;
    in.dense("x", f32Tensor({1, 5}, x));
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(closeValues(r.dense(), expected, 2e-6, 1e-7));
    }
  }

  // The GELU approximations differ from each other at x = 1 (0.8413447, 0.8411920, 0.8457957),
  // so a runtime that ignored `approximate` fails one of the rows above; this pins the values.
  void geluApproximationsDiffer() {
    for (const auto& [approximate, value] :
         std::vector<std::pair<std::string, double>>{{"none", 0.8413447460685429}, {"tanh", 0.8411919906082768},
                                                     {"fast", 0.8457957659328212}}) {
      Graph g = unaryGraph("activation", 1, 1, activationAttrs("gelu", approximate));
      Inputs in;
      in.dense("x", f32Tensor({1, 1}, {1}));
      const Run r = run(g, in);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(closeValues(r.dense(), {value}, 1e-6, 0));
    }
  }

  // round: lower = floor(x), +1 if frac > 0.5 or (frac == 0.5 and lower odd): 0.5 → 0, 1.5 → 2,
  // 2.5 → 2, −0.5 → 0 (lower −1 is odd), −1.5 → −2, 2.4 → 2, 2.6 → 3, −2.6 → −3, 3 → 3.
  // exp: e⁰, e¹, e⁻¹.
  void elementwise() {
    Graph round = unaryGraph("elementwise", 9, 9, "{kind = \"round\"}");
    Inputs in;
    in.dense("x", f32Tensor({1, 9}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, 2.6f, -2.6f, 3}));
    const Run r = run(round, in);
    QVERIFY2(r.ok(), r.error.c_str());
    RT_CHECK(closeValues(r.dense(), {0, 2, 2, 0, -2, 2, 3, -3, 3}, 0, 0));
    Graph exp = unaryGraph("elementwise", 3, 3, "{kind = \"exp\"}");
    Inputs in3;
    in3.dense("x", f32Tensor({1, 3}, {0, 1, -1}));
    const Run e = run(exp, in3);
    QVERIFY2(e.ok(), e.error.c_str());
    RT_CHECK(closeValues(e.dense(), {1, std::exp(1.0), std::exp(-1.0)}, 1e-6, 0));
  }

  // e^(x − max) / Σ over the last axis: [1, 2, 3] → [e⁻², e⁻¹, 1] / (1 + e⁻¹ + e⁻²); [−1000, 0,
  // 1000] → [0, 0, 1] (without subtracting the max, e¹⁰⁰⁰ overflows to inf and gives NaN).
  void softmax_data() {
    QTest::addColumn<int>("axis");
    QTest::newRow("axis -1") << -1;
    QTest::newRow("axis 1") << 1;
  }
  void softmax() {
    QFETCH(int, axis);
    Graph g = unaryGraph("softmax", 3, 3, "{axis = " + std::to_string(axis) + "}");
    Inputs in;
    in.dense("x", f32Tensor({2, 3}, {1, 2, 3, -1000, 0, 1000}));
    const double s = 1 + std::exp(-1.0) + std::exp(-2.0);
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(closeValues(r.dense(), {std::exp(-2.0) / s, std::exp(-1.0) / s, 1 / s, 0, 0, 1}, 1e-6, 1e-7));
    }
  }

  // out[r] = W[idx[r]]: W [[1, 2], [3, 4], [5, 6]], idx [2, 0, 2] → [5, 6], [1, 2], [5, 6].
  void embeddingLookup() {
    Graph g;
    g.denseInput("i", "tensor<?xi32>");
    g.weight("w", "embedding", "embedding_n_c", {3, 2}, {1, 2, 3, 4, 5, 6});
    g.op("%y = lattice.embedding_lookup %i, %w : (tensor<?xi32>, $WE) -> tensor<?x2xf32>");
    g.output("y", "tensor<?x2xf32>");
    Inputs in;
    in.dense("i", i32Tensor({3}, {2, 0, 2}));
    const Run r = run(g, in);
    QVERIFY2(r.ok(), r.error.c_str());
    std::vector<std::int64_t> shape;
    RT_CHECK(closeValues(r.dense(0, &shape), {5, 6, 1, 2, 5, 6}, 0, 0));
    QCOMPARE(shape, (std::vector<std::int64_t>{3, 2}));
  }

  // f16 in, f16 out: computed wider and rounded once. x = f16(0.3) = 0.300048828125; sigmoid =
  // 0.574454..., 1176.48 steps of 2⁻¹¹ → f16 0.57421875 (the expected values round the double
  // result with roundToHalf).
  void f16ActivationRoundsOnce() {
    Graph g = unaryGraph("activation", 2, 2, activationAttrs("sigmoid"), "", "", {}, "f16");
    Inputs in;
    in.dense("x", f16Tensor({1, 2}, {0.3f, -4.0f}));
    std::vector<double> expected;
    for (float v : {0.3f, -4.0f}) expected.push_back(f16(static_cast<float>(1 / (1 + std::exp(-double(f16(v)))))));
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      RT_CHECK(closeValues(r.dense(), expected, 0, 0));
      QCOMPARE(toTensorDataDtype(r), DType::F16);
    }
  }

private:
  static DType toTensorDataDtype(const Run& r) {
    return std::get<runtime::Tensor>(r.runtime->value(r.runtime->plan().outputs[0].slot)).dtype;
  }
};

QTEST_GUILESS_MAIN(TestRuntimeFeatures)
#include "tst_runtime_features.moc"
