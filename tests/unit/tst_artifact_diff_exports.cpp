// The artifact diff on real exports: every conformance model lowered by us diffs
// equal with the reference's expected.lattice (manifest.json), and a dense and an int4 export of
// the same model differ exactly in the quantizable (conv3d / linear) weights: each such weight
// op's `packing` attribute, the weight's stored form, and values within the quantization error
// bound derived below; nothing else (no op added, removed or otherwise changed, no other weight).

#include "DiffTestSupport.h"

#include "lowering/Lowering.h"
#include "model/Archive.h"
#include "model/Examples.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <set>

using namespace lattice;
using namespace lattice::difftest;

namespace {

Model modelFor(const QString& name) {
  if (name == QStringLiteral("example:sparse_resnet21d")) return makeSparseResNet21D(3);
  Expected<Model> m = readArchive(kConformance + "models/" + name.toStdString() + "/model.ltfx");
  if (!m) qFatal("%s", m.message().c_str());
  return std::move(*m);
}

// Largest |dequantized - dense| the writer of sec. 13.3 can produce for one group of a row.
// Exact arithmetic: the group's values lie in [mn, mx] (padding zeros included), so
// (x - bias)/scale lies in [0, qmax] and rounding moves it by at most 1/2: |Δ| <= |scale|/2 with
// |scale| = (mx - mn)/qmax. The stored f16 scale and bias each carry a relative rounding error of
// at most 2^-11 (plus 2^-25 absolute for subnormals), which the codes (<= qmax) multiply:
// + qmax·(2^-11·|scale| + 2^-25) + 2^-11·|mx| + 2^-25. The f32 arithmetic adds a few ulps of the
// group's magnitude.
double groupBound(double mx, double mn, int qmax) {
  const double scale = (mx - mn) / qmax;
  const double f16Rel = std::ldexp(1.0, -11), f16Abs = std::ldexp(1.0, -25);
  return scale / 2 + qmax * (f16Rel * scale + f16Abs) + f16Rel * std::fabs(mx) + f16Abs +
         4 * std::ldexp(1.0, -24) * (std::fabs(mx) + std::fabs(mn));
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

} // namespace

class TestArtifactDiffExports : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void ourExportEqualsTheReference_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("expected");
    QFile f(QString::fromStdString(kConformance + "manifest.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray cases =
        QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("cases")).toArray();
    QVERIFY(cases.size() >= 7);
    for (const QJsonValue& c : cases) {
      const QJsonObject row = c.toObject();
      QTest::newRow(row.value(QStringLiteral("name")).toString().toUtf8().constData())
          << QString::fromStdString(kConformance) + row.value(QStringLiteral("model")).toString()
          << QString::fromStdString(kConformance) + row.value(QStringLiteral("expected_artifact")).toString();
    }
  }
  void ourExportEqualsTheReference() {
    QFETCH(QString, model);
    QFETCH(QString, expected);
    Expected<Model> m = readArchive(model.toStdString());
    QVERIFY2(m.ok(), m.ok() ? "" : m.message().c_str());
    QTemporaryDir tmp;
    const std::string out = tmp.filePath(QStringLiteral("ours.lattice")).toStdString();
    const Status saved = saveLatticeModelArtifact(*m, out);
    QVERIFY2(saved.ok(), saved.ok() ? "" : saved.message().c_str());

    const LoadedArtifact reference = load(expected.toStdString());
    const ArtifactDiff diff = diffArtifacts(reference, load(out));
    QVERIFY2(diff.equal(), formatDiff(diff, "expected", "ours").c_str());
    QCOMPARE(diff.ops.size(), reference.graph.functions.front().ops.size());
    for (const OpDiff& op : diff.ops)
      QVERIFY2(op.status == DiffStatus::Unchanged && !op.renamed, op.nameA.c_str());
    std::size_t weightOps = 0;
    for (const ArtifactOp& op : reference.graph.functions.front().ops)
      weightOps += op.shortName() == "weight" ? 1 : 0;
    QCOMPARE(diff.weights.size(), weightOps);
    for (const WeightDiff& w : diff.weights)
      QVERIFY2(w.values && w.values->changedElements == 0 && w.values->elements > 0, w.key.c_str());
    QCOMPARE(formatDiff(diff, "expected", "ours"), std::string("artifacts are equal\n"));
  }

  void denseAndInt4DifferOnlyInQuantizedWeights_data() {
    QTest::addColumn<QString>("model");
    // Plain and kernel-major convs, transposed convs, a linear head, and a whole backbone (the
    // other conformance models have no weights, or normalized convs that cannot be packed).
    for (const char* m : {"sparse_classifier", "canonical_kernel_layout", "transpose_convolution",
                          "example:sparse_resnet21d"})
      QTest::newRow(m) << QString::fromLatin1(m);
  }
  void denseAndInt4DifferOnlyInQuantizedWeights() {
    QFETCH(QString, model);
    const Model m = modelFor(model);
    QTemporaryDir tmp;
    const std::string densePath = tmp.filePath(QStringLiteral("dense")).toStdString();
    const std::string int4Path = tmp.filePath(QStringLiteral("int4")).toStdString();
    Status s = saveLatticeModelArtifact(m, densePath);
    QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
    ExportOptions q;
    q.quantizeBits = 4;
    s = saveLatticeModelArtifact(m, int4Path, q);
    QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
    const LoadedArtifact dense = load(densePath), int4 = load(int4Path);

    // The quantizable weights, read from the dense artifact's graph.
    std::set<std::string> quantizable;
    for (const ArtifactOp& op : dense.graph.functions.front().ops) {
      if (op.shortName() != "weight") continue;
      const std::string layout = op.attribute("layout")->value.text;
      if (layout == "conv3d_o_xyz_i" || layout == "linear_o_i")
        quantizable.insert(op.attribute("storage_key")->value.text);
    }
    QVERIFY(!quantizable.empty());

    const ArtifactDiff diff = diffArtifacts(dense, int4);
    QVERIFY(diff.moduleAttributes.empty());
    QVERIFY(diff.abi.empty());
    QCOMPARE(diff.count(DiffStatus::Added), std::size_t(0));
    QCOMPARE(diff.count(DiffStatus::Removed), std::size_t(0));
    std::size_t changedOps = 0;
    for (const OpDiff& op : diff.ops) {
      QVERIFY(!op.renamed);
      const ArtifactOp& opA = dense.graph.functions.front().ops[static_cast<std::size_t>(op.indexA)];
      const ArtifactAttribute* key = opA.attribute("storage_key");
      if (op.opName == "weight" && quantizable.count(key->value.text)) {
        // The writer keeps the weight type's dtype (f32) for packed weights: only packing changes.
        QCOMPARE(op.status, DiffStatus::Changed);
        QCOMPARE(op.changes.size(), std::size_t(1));
        QCOMPARE(op.changes[0].field, std::string("packing"));
        QCOMPARE(op.changes[0].before, std::string("#lattice.packing<dense>"));
        QCOMPARE(op.changes[0].after,
                 std::string("#lattice.packing<int4, group_size = 32, scale_dtype = f16, mode = affine>"));
        ++changedOps;
      } else {
        QVERIFY2(op.status == DiffStatus::Unchanged, op.nameA.c_str());
      }
    }
    QCOMPARE(changedOps, quantizable.size());

    QCOMPARE(diff.weightCount(DiffStatus::Added) + diff.weightCount(DiffStatus::Removed), std::size_t(0));
    for (const WeightDiff& w : diff.weights) {
      const char* key = w.key.c_str();
      QVERIFY2(w.values, key);
      if (!quantizable.count(w.key)) {
        QVERIFY2(w.status == DiffStatus::Unchanged && w.values->changedElements == 0, key);
        continue;
      }
      QCOMPARE(w.status, DiffStatus::Changed);
      QVERIFY(w.formChanged);
      QCOMPARE(w.formA, "F32 " + shapeText(w.shapeA));
      QVERIFY2(w.formB.rfind("int4 g32 f16 (U32 [", 0) == 0, w.formB.c_str());
      // C_in was found (consumer or propagation), so the logical shapes agree without a note.
      QCOMPARE(w.shapeB, w.shapeA);
      QVERIFY2(w.note.empty(), w.note.c_str());
      QCOMPARE(w.values->elements, static_cast<uint64_t>(shapeNumel(w.shapeA)));

      Expected<std::vector<float>> values = weightValues(dense, w.key);
      Expected<std::vector<float>> delta = weightDeltas(dense, int4, w.key);
      QVERIFY(values.ok() && delta.ok());
      QCOMPARE(delta->size(), values->size());
      const std::size_t inChannels = static_cast<std::size_t>(w.shapeA.back()), group = 32;
      double maxDelta = 0;
      for (std::size_t row = 0; row < values->size(); row += inChannels)
        for (std::size_t g = 0; g < inChannels; g += group) {
          const std::size_t end = std::min(inChannels, g + group);
          double mx = end - g < group ? 0.0 : -INFINITY,
                 mn = end - g < group ? 0.0 : INFINITY; // padding zeros
          for (std::size_t i = row + g; i < row + end; ++i) {
            mx = std::max(mx, double((*values)[i]));
            mn = std::min(mn, double((*values)[i]));
          }
          const double bound = groupBound(mx, mn, 15);
          for (std::size_t i = row + g; i < row + end; ++i) {
            maxDelta = std::max(maxDelta, double(std::fabs((*delta)[i])));
            QVERIFY2(
                std::fabs((*delta)[i]) <= bound,
                qPrintable(
                    QStringLiteral("%1[%2]: |Δ| %3 > bound %4").arg(key).arg(i).arg((*delta)[i]).arg(bound)));
          }
        }
      // The diff subtracts in double, the deltas above are float differences: equal to 1e-6.
      QVERIFY(std::fabs(w.values->maxAbsDelta - maxDelta) <= 1e-6 * maxDelta);
    }
  }
};

QTEST_APPLESS_MAIN(TestArtifactDiffExports)
#include "tst_artifact_diff_exports.moc"
