// Weight half of the artifact diff (core/diff): dequantization against the worked examples of
// lattice-artifact-format.md sec. 13.3 (int4 and int8 of `[0.5, -0.25, 1.0]`, the K > 1 shape
// example), input channels from the consumer (a linear's input type, a conv chain's propagated
// channels, the dense counterpart, or the padded storage columns with a note), and value
// statistics, tolerance, forms, added/removed keys and shape changes worked by hand on tiny
// artifacts written with writeSafetensors.

#include "DiffTestSupport.h"

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace lattice;
using namespace lattice::difftest;

namespace {

// `%x: IN -> linear(fc.weight[, fc.bias])` with the given packing of fc.weight.
std::string linearGraph(const std::string& inType, int outChannels, const std::string& packing, bool bias,
                        const std::string& extraOps = {}) {
  const std::string out = "tensor<?x" + std::to_string(outChannels) + "xf32>";
  std::string g = moduleHeader("\"x\"", "\"tensor\"");
  g += "  func.func @forward(\n    %x: " + inType + "\n  ) -> " + out + " {\n";
  g += "    %fc_weight = lattice.weight @fc_weight {storage_key = \"fc.weight\", layout = "
       "#lattice.weight_layout<linear_o_i>, packing = " +
       packing + "} : !lattice.weight<linear, f32>\n";
  if (bias)
    g += "    %fc_bias = lattice.weight @fc_bias {storage_key = \"fc.bias\", layout = "
         "#lattice.weight_layout<bias_c>, "
         "packing = #lattice.packing<dense>} : !lattice.weight<bias, f32>\n";
  g += extraOps;
  g += "    %fc = lattice.linear %x, %fc_weight" + std::string(bias ? ", %fc_bias" : "") + "  : (" + inType +
       ", !lattice.weight<linear, f32>" + (bias ? ", !lattice.weight<bias, f32>" : "") + ") -> " + out + "\n";
  g += "    return %fc : " + out + "\n  }\n}\n";
  return g;
}

const std::string kInt4 = "#lattice.packing<int4, group_size = 32, scale_dtype = f16, mode = affine>";
const std::string kInt8F32 = "#lattice.packing<int8, group_size = 32, scale_dtype = f32, mode = affine>";
const std::string kDense = "#lattice.packing<dense>";

// The int4 worked example: `[[0.5, -0.25, 1.0]]` stored as spec sec. 13.3 gives it.
std::vector<NamedTensor> workedInt4() {
  return {{"fc.weight.weight", u32({1, 1, 4}, {3435970806u, 3435973836u, 3435973836u, 3435973836u})},
          {"fc.weight.scales", f16({1, 1, 1}, {0xAD55})},
          {"fc.weight.biases", f16({1, 1, 1}, {0x3C00})}};
}

const WeightDiff* findWeight(const ArtifactDiff& d, const std::string& key) {
  for (const WeightDiff& w : d.weights)
    if (w.key == key) return &w;
  return nullptr;
}
// The result points into `d`: a temporary diff would leave it dangling, so that does not compile.
const WeightDiff* findWeight(ArtifactDiff&&, const std::string&) = delete;

const std::string kSparse =
    "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>";

std::string convOp(const std::string& result, const std::string& input, const std::string& kernel) {
  return "    %" + result + " = lattice.conv3d %" + input + ", %" + result +
         "_weight {kernel_size = array<i64: " + kernel +
         ">, stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, "
         "accumulation = \"canonical_f32\"} : (" +
         kSparse + ", !lattice.weight<conv3d, f32>) -> " + kSparse + "\n";
}

std::string convWeightOp(const std::string& name) {
  return "    %" + name + "_weight = lattice.weight @" + name + "_weight {storage_key = \"" + name +
         ".weight\", layout = #lattice.weight_layout<conv3d_o_xyz_i>, packing = " + kInt8F32 +
         "} : !lattice.weight<conv3d, f32>\n";
}

} // namespace

class TestArtifactDiffWeights : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // Sec. 13.3: "Dequantized first 3 values: [0.5001220703125, -0.24969482421875, 1.0]".
  void int4WorkedExample() {
    QTemporaryDir tmp;
    const LoadedArtifact a = load(writeArtifact(
        tmp.filePath(QStringLiteral("a")), linearGraph("tensor<?x3xf32>", 1, kInt4, false), workedInt4()));
    Expected<std::vector<float>> v = weightValues(a, "fc.weight");
    QVERIFY2(v.ok(), v.ok() ? "" : v.message().c_str());
    QCOMPARE(v->size(), std::size_t(3)); // C_in = 3 from the linear's input type
    QVERIFY((*v)[0] == 0.5001220703125f);
    QVERIFY((*v)[1] == -0.24969482421875f);
    QVERIFY((*v)[2] == 1.0f);
    const ArtifactDiff self = diffArtifacts(a, a);
    QCOMPARE(self.weights.size(), std::size_t(1));
    QCOMPARE(self.weights[0].formA, std::string("int4 g32 f16 (U32 [1, 1, 4])"));
    QCOMPARE(self.weights[0].shapeA, (std::vector<int64_t>{1, 3}));
    QVERIFY(!weightValues(a, "nope").ok());
  }

  // The int8 variant: codes [102, 255, 0, 204, ...], word0 0xCC00FF66, scale f16
  // -0.004901885986328125 (0x9D05), bias 1.0: q·scale + bias in f32, worked by hand.
  void int8WorkedExample() {
    QTemporaryDir tmp;
    std::vector<uint32_t> words(8, 0xCCCCCCCCu);
    words[0] = 0xCC00FF66u;
    const LoadedArtifact a = load(writeArtifact(
        tmp.filePath(QStringLiteral("a")),
        linearGraph("tensor<?x3xf32>", 1,
                    "#lattice.packing<int8, group_size = 32, scale_dtype = f16, mode = affine>", false),
        {{"fc.weight.weight", u32({1, 1, 8}, words)},
         {"fc.weight.scales", f16({1, 1, 1}, {0x9D05})},
         {"fc.weight.biases", f16({1, 1, 1}, {0x3C00})}}));
    Expected<std::vector<float>> v = weightValues(a, "fc.weight");
    QVERIFY(v.ok());
    QCOMPARE(v->size(), std::size_t(3));
    // 1 - 102·0.004901885986328125, 1 - 255·0.004901885986328125, 1 - 0.
    QVERIFY((*v)[0] == 0.50000762939453125f);
    QVERIFY((*v)[1] == -0.249980926513671875f);
    QVERIFY((*v)[2] == 1.0f);
  }

  // Without C_in (a `?` input dimension) the padded columns are compared, and the note says so;
  // a dense counterpart on the other side supplies C_in.
  void unknownInputChannels() {
    QTemporaryDir tmp;
    const std::string dyn = "tensor<?x?xf32>";
    const LoadedArtifact q = load(
        writeArtifact(tmp.filePath(QStringLiteral("q")), linearGraph(dyn, 1, kInt4, false), workedInt4()));
    Expected<std::vector<float>> padded = weightValues(q, "fc.weight");
    QVERIFY(padded.ok());
    QCOMPARE(padded->size(), std::size_t(32));
    QVERIFY((*padded)[3] == 0.000244140625f); // code 12: 1 - 12·0.08331298828125

    const LoadedArtifact dense =
        load(writeArtifact(tmp.filePath(QStringLiteral("d")), linearGraph(dyn, 1, kDense, false),
                           {{"fc.weight", f32({1, 3}, {0.5f, -0.25f, 1.0f})}}));
    const ArtifactDiff d = diffArtifacts(dense, q);
    QCOMPARE(differenceLines(d).first(),
             QStringLiteral("~ weight @fc_weight: packing: #lattice.packing<dense> -> ") +
                 QString::fromStdString(kInt4));
    QCOMPARE(d.count(DiffStatus::Changed), std::size_t(1));
    const WeightDiff* w = findWeight(d, "fc.weight");
    QVERIFY(w && w->status == DiffStatus::Changed && w->formChanged);
    QCOMPARE(w->formA, std::string("F32 [1, 3]"));
    QCOMPARE(w->shapeB, (std::vector<int64_t>{1, 3}));
    QVERIFY(w->values);
    QCOMPARE(w->values->elements, uint64_t(3));
    QCOMPARE(w->values->changedElements, uint64_t(2));  // 1.0 is exact
    QCOMPARE(w->values->maxAbsDelta, 0.00030517578125); // |-0.24969482421875 + 0.25|
    QCOMPARE(w->values->maxRelDelta, 0.00030517578125 / 0.25);
    QCOMPARE(w->note, std::string());
    Expected<std::vector<float>> delta = weightDeltas(dense, q, "fc.weight");
    QVERIFY(delta.ok());
    QCOMPARE(*delta, (std::vector<float>{0.0001220703125f, 0.00030517578125f, 0.0f}));

    // Two quantized sides without C_in: the 32 storage columns, with a note.
    std::vector<NamedTensor> shifted = workedInt4();
    shifted[2].tensor = f16({1, 1, 1}, {0x3800}); // bias 0.5: every value moves by -0.5
    const LoadedArtifact q2 =
        load(writeArtifact(tmp.filePath(QStringLiteral("q2")), linearGraph(dyn, 1, kInt4, false), shifted));
    const ArtifactDiff d2 = diffArtifacts(q, q2); // outlives w2, which points into it
    const WeightDiff* w2 = findWeight(d2, "fc.weight");
    QVERIFY(w2 && w2->values);
    QCOMPARE(w2->values->elements, uint64_t(32));
    QCOMPARE(w2->values->changedElements, uint64_t(32));
    QCOMPARE(w2->values->maxAbsDelta, 0.5);
    QVERIFY2(w2->note.find("32 padded storage columns") != std::string::npos, w2->note.c_str());
  }

  // Sec. 13.3 "K > 1 shape example": conv (C_out 2, kernel 3x1x1, C_in 4), int8, G 32 is
  // stored as `.weight` (3, 8, 2) and `.scales`/`.biases` (3, 1, 2). A second quantized conv
  // (1x1x1, C_out 3) reads the first conv's output: its C_in (2) is propagated along the graph.
  void kernelMajorTransposeAndChannelPropagation() {
    auto qa = [](int k, int o, int j) { return static_cast<uint32_t>((k * 7 + o * 3 + j * 5) % 256); };
    auto qb = [](int o, int j) { return static_cast<uint32_t>((o * 11 + j * 13) % 256); };
    std::vector<uint32_t> codesA(3 * 8 * 2, 0), codesB(3 * 8, 0);
    std::vector<float> scalesA(6), biasesA(6), scalesB(3), biasesB(3);
    for (int k = 0; k < 3; ++k)
      for (int o = 0; o < 2; ++o) {
        for (int j = 0; j < 32; ++j)
          codesA[static_cast<std::size_t>((k * 8 + j / 4) * 2 + o)] |= qa(k, o, j) << (8 * (j % 4));
        scalesA[static_cast<std::size_t>(k * 2 + o)] = 0.25f * static_cast<float>(k + 1) * (o ? -1.0f : 1.0f);
        biasesA[static_cast<std::size_t>(k * 2 + o)] = static_cast<float>(k) - 0.5f * static_cast<float>(o);
      }
    for (int o = 0; o < 3; ++o) {
      for (int j = 0; j < 32; ++j)
        codesB[static_cast<std::size_t>(o * 8 + j / 4)] |= qb(o, j) << (8 * (j % 4));
      scalesB[static_cast<std::size_t>(o)] = 0.5f + static_cast<float>(o);
      biasesB[static_cast<std::size_t>(o)] = -1.0f * static_cast<float>(o);
    }
    std::string g = moduleHeader("\"x_coords\", \"x_features\", \"x_active\"",
                                 "\"sparse_coords\", \"sparse_features\", \"sparse_active\"");
    g += "  func.func @forward(%x_coords: tensor<?x4xi32>, %x_features: tensor<?x4xf32>, %x_active: "
         "tensor<1xi32>) -> " +
         kSparse + " {\n";
    g += "    %x = lattice.sparse.make %x_coords, %x_features, %x_active {stride = array<i64: 1, 1, 1>, "
         "coord_order = "
         "#lattice.coord<batch_x_y_z>} : (tensor<?x4xi32>, tensor<?x4xf32>, tensor<1xi32>) -> " +
         kSparse + "\n";
    g += convWeightOp("a") + convOp("a", "x", "3, 1, 1") + convWeightOp("b") + convOp("b", "a", "1, 1, 1");
    g += "    return %b : " + kSparse + "\n  }\n}\n";
    QTemporaryDir tmp;
    const LoadedArtifact art = load(writeArtifact(tmp.filePath(QStringLiteral("k")), g,
                                                  {{"a.weight.weight", u32({3, 8, 2}, codesA)},
                                                   {"a.weight.scales", f32({3, 1, 2}, scalesA)},
                                                   {"a.weight.biases", f32({3, 1, 2}, biasesA)},
                                                   {"b.weight.weight", u32({1, 3, 8}, codesB)},
                                                   {"b.weight.scales", f32({1, 3, 1}, scalesB)},
                                                   {"b.weight.biases", f32({1, 3, 1}, biasesB)}}));
    const ArtifactDiff self = diffArtifacts(art, art);
    QVERIFY(self.equal());
    const WeightDiff* wa = findWeight(self, "a.weight");
    const WeightDiff* wb = findWeight(self, "b.weight");
    QVERIFY(wa && wb);
    QCOMPARE(wa->formA, std::string("int8 g32 f32 (U32 [3, 8, 2])"));
    QCOMPARE(wa->shapeA, (std::vector<int64_t>{2, 3, 1, 1, 4}));
    QCOMPARE(wb->formA, std::string("int8 g32 f32 (U32 [1, 3, 8])"));
    QCOMPARE(wb->shapeA, (std::vector<int64_t>{3, 1, 1, 1, 2}));

    // W[o, kx, 0, 0, i] = q(row k·C_out + o, column i)·scale + bias (row-major logical order).
    Expected<std::vector<float>> va = weightValues(art, "a.weight");
    QVERIFY(va.ok());
    QCOMPARE(va->size(), std::size_t(2 * 3 * 4));
    for (int o = 0; o < 2; ++o)
      for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 4; ++i) {
          const float expected =
              static_cast<float>(qa(k, o, i)) * scalesA[static_cast<std::size_t>(k * 2 + o)] +
              biasesA[static_cast<std::size_t>(k * 2 + o)];
          QCOMPARE((*va)[static_cast<std::size_t>((o * 3 + k) * 4 + i)], expected);
        }
    Expected<std::vector<float>> vb = weightValues(art, "b.weight");
    QVERIFY(vb.ok());
    QCOMPARE(vb->size(), std::size_t(3 * 2));
    for (int o = 0; o < 3; ++o)
      for (int i = 0; i < 2; ++i)
        QCOMPARE((*vb)[static_cast<std::size_t>(o * 2 + i)],
                 static_cast<float>(qb(o, i)) * scalesB[static_cast<std::size_t>(o)] +
                     biasesB[static_cast<std::size_t>(o)]);
  }

  // Hand-worked statistics: A fc.weight [1, 2, 3, 4, 5, 6], B [1, 2.5, 3, 4, 5, 3]:
  // 2 of 6 changed, max |Δ| 3 (6 -> 3), max rel max(0.5/2, 3/6) = 0.5. fc.bias [0, 1] -> [0.001, 1]:
  // a zero `a` gives 0.001 / 1e-12.
  void valueStatistics() {
    QTemporaryDir tmp;
    const std::string graph = linearGraph("tensor<?x3xf32>", 2, kDense, true);
    const LoadedArtifact a =
        load(writeArtifact(tmp.filePath(QStringLiteral("a")), graph,
                           {{"fc.weight", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"fc.bias", f32({2}, {0, 1})}}));
    const LoadedArtifact b = load(writeArtifact(
        tmp.filePath(QStringLiteral("b")), graph,
        {{"fc.weight", f32({2, 3}, {1, 2.5f, 3, 4, 5, 3})}, {"fc.bias", f32({2}, {0.001f, 1})}}));
    const ArtifactDiff d = diffArtifacts(a, b);
    QCOMPARE(d.count(DiffStatus::Unchanged), d.ops.size());
    const WeightDiff* w = findWeight(d, "fc.weight");
    QVERIFY(w && w->values && w->status == DiffStatus::Changed && !w->formChanged);
    QCOMPARE(w->values->elements, uint64_t(6));
    QCOMPARE(w->values->changedElements, uint64_t(2));
    QCOMPARE(w->values->maxAbsDelta, 3.0);
    QCOMPARE(w->values->maxRelDelta, 0.5);
    const WeightDiff* bias = findWeight(d, "fc.bias");
    QVERIFY(bias && bias->values);
    QCOMPARE(bias->values->changedElements, uint64_t(1));
    QCOMPARE(bias->values->maxAbsDelta, double(0.001f));
    QCOMPARE(bias->values->maxRelDelta, double(0.001f) / 1e-12);
    QCOMPARE(differenceLines(d),
             (QStringList{QStringLiteral("~ weight fc.bias: max |Δ| 0.001, max rel 1e+09, 1/2 changed"),
                          QStringLiteral("~ weight fc.weight: max |Δ| 3, max rel 0.5, 2/6 changed")}));
    Expected<std::vector<float>> delta = weightDeltas(a, b, "fc.weight");
    QVERIFY(delta.ok());
    QCOMPARE(*delta, (std::vector<float>{0, 0.5f, 0, 0, 0, -3}));

    // Tolerance 0.5: |Δ| = 0.5 is not above it, 0.001 neither (the bias is then unchanged).
    DiffOptions tolerant;
    tolerant.tolerance = 0.5;
    const ArtifactDiff t = diffArtifacts(a, b, tolerant);
    QCOMPARE(findWeight(t, "fc.weight")->values->changedElements, uint64_t(1));
    QCOMPARE(findWeight(t, "fc.bias")->status, DiffStatus::Unchanged);

    // Without values: the bytes still tell that something changed.
    DiffOptions noValues;
    noValues.compareValues = false;
    const ArtifactDiff n = diffArtifacts(a, b, noValues);
    QVERIFY(!findWeight(n, "fc.weight")->values);
    QCOMPARE(findWeight(n, "fc.weight")->status, DiffStatus::Changed);
    QCOMPARE(findWeight(n, "fc.weight")->note, std::string("stored bytes differ (values not compared)"));
    QVERIFY(diffArtifacts(a, a, noValues).equal());
  }

  // F16 storage of the same values is a form change only; a new key is added (op and weight);
  // a transposed shape is a shape change with equal element counts.
  void formsKeysAndShapes() {
    QTemporaryDir tmp;
    const std::string graph = linearGraph("tensor<?x3xf32>", 2, kDense, false);
    const LoadedArtifact a = load(writeArtifact(tmp.filePath(QStringLiteral("a")), graph,
                                                {{"fc.weight", f32({2, 3}, {1, 2, 3, 4, 5, 6})}}));
    // 1, 2, 3, 4, 5, 6 in binary16.
    const LoadedArtifact half =
        load(writeArtifact(tmp.filePath(QStringLiteral("h")), graph,
                           {{"fc.weight", f16({2, 3}, {0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600})}}));
    const ArtifactDiff h = diffArtifacts(a, half);
    QCOMPARE(differenceLines(h),
             QStringList{QStringLiteral("~ weight fc.weight: form: F32 [2, 3] -> F16 [2, 3]")});
    QCOMPARE(findWeight(h, "fc.weight")->values->changedElements, uint64_t(0));

    const std::string extraOp = "    %extra = lattice.weight @extra {storage_key = \"extra\", layout = "
                                "#lattice.weight_layout<channel_c>, packing = #lattice.packing<dense>} : "
                                "!lattice.weight<channel, f32>\n";
    const LoadedArtifact more = load(writeArtifact(
        tmp.filePath(QStringLiteral("m")), linearGraph("tensor<?x3xf32>", 2, kDense, false, extraOp),
        {{"fc.weight", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"extra", f32({2}, {7, 8})}}));
    QCOMPARE(differenceLines(diffArtifacts(a, more)),
             (QStringList{QStringLiteral("+ weight @extra"), QStringLiteral("+ weight extra: F32 [2]")}));
    QCOMPARE(differenceLines(diffArtifacts(more, a)),
             (QStringList{QStringLiteral("- weight @extra"), QStringLiteral("- weight extra: F32 [2]")}));

    const LoadedArtifact transposed = load(writeArtifact(tmp.filePath(QStringLiteral("t")), graph,
                                                         {{"fc.weight", f32({3, 2}, {1, 2, 3, 4, 5, 6})}}));
    const ArtifactDiff t = diffArtifacts(a, transposed);
    QCOMPARE(differenceLines(t),
             (QStringList{QStringLiteral("~ weight fc.weight: form: F32 [2, 3] -> F32 [3, 2]"),
                          QStringLiteral("~ weight fc.weight: shape: [2, 3] -> [3, 2]"),
                          QStringLiteral("  weight fc.weight: logical shape differs")}));
    QVERIFY(!weightDeltas(a,
                          load(writeArtifact(tmp.filePath(QStringLiteral("s")), graph,
                                             {{"fc.weight", f32({1, 3}, {1, 2, 3})}})),
                          "fc.weight")
                 .ok());
  }
};

QTEST_APPLESS_MAIN(TestArtifactDiffWeights)
#include "tst_artifact_diff_weights.moc"
