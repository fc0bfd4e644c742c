// Structural artifact diff (core/diff): every conformance artifact diffs equal
// with itself; reordered attributes and consistently renamed values and symbols are no change;
// each hand-made edit of a conformance graph.mlir (an attribute value, a type, an added op, a
// removed op, an output renamed, a module attribute, an input type) is reported exactly; loading
// errors name the file.

#include "DiffTestSupport.h"

#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

using namespace lattice;
using namespace lattice::difftest;

namespace {

const std::string kClassifier = kConformance + "models/sparse_classifier/expected.lattice";

// Renames every value defined by an op (`%stem` -> `%r_stem`) and every weight symbol
// (`@stem_weight` -> `@s_stem_weight`); the arguments keep their names (they are the input ABI).
std::string renameValues(const std::string& text) {
  QString s = QString::fromStdString(text);
  static const QRegularExpression value(QStringLiteral("%([A-Za-z_][A-Za-z0-9_]*)"));
  static const QRegularExpression symbol(QStringLiteral("@([A-Za-z_][A-Za-z0-9_]*)"));
  QString out;
  qsizetype last = 0;
  for (auto it = value.globalMatch(s); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    out += s.mid(last, m.capturedStart() - last);
    const QString name = m.captured(1);
    out += name.startsWith(QStringLiteral("x_")) ? m.captured(0) : QStringLiteral("%r_") + name;
    last = m.capturedEnd();
  }
  out += s.mid(last);
  s = out;
  out.clear();
  last = 0;
  for (auto it = symbol.globalMatch(s); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    out += s.mid(last, m.capturedStart() - last);
    out += m.captured(1) == QStringLiteral("forward") ? m.captured(0) : QStringLiteral("@s_") + m.captured(1);
    last = m.capturedEnd();
  }
  out += s.mid(last);
  return out.toStdString();
}

} // namespace

class TestArtifactDiff : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void selfDiffIsEqual_data() {
    QTest::addColumn<QString>("path");
    const QStringList cases =
        QDir(QString::fromStdString(kConformance + "models")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QVERIFY(cases.size() >= 7);
    for (const QString& c : cases)
      QTest::newRow(qPrintable(c)) << QString::fromStdString(kConformance + "models/") + c +
                                          QStringLiteral("/expected.lattice");
  }
  void selfDiffIsEqual() {
    QFETCH(QString, path);
    const LoadedArtifact a = load(path.toStdString());
    const LoadedArtifact b = load(path.toStdString());
    const ArtifactDiff diff = diffArtifacts(a, b);
    QVERIFY(diff.equal());
    QCOMPARE(diff.ops.size(), a.graph.functions.front().ops.size());
    std::size_t weightOps = 0;
    for (const ArtifactOp& op : a.graph.functions.front().ops)
      weightOps += op.shortName() == "weight" ? 1 : 0;
    QCOMPARE(diff.weights.size(), weightOps);
    for (const OpDiff& op : diff.ops) {
      QCOMPARE(op.status, DiffStatus::Unchanged);
      QVERIFY(!op.renamed);
      QCOMPARE(op.nameA, op.nameB);
    }
    for (const WeightDiff& w : diff.weights) {
      QCOMPARE(w.status, DiffStatus::Unchanged);
      QVERIFY2(w.values && w.values->elements > 0 && w.values->changedElements == 0, w.key.c_str());
      QCOMPARE(w.formA, w.formB);
    }
    QCOMPARE(formatDiff(diff, "a", "b"), std::string("artifacts are equal\n"));
    QCOMPARE(diffToJson(diff)["equal"].get<bool>(), true);

    // The lone graph file compares the same, without weights.
    const ArtifactDiff lone = diffArtifacts(load(path.toStdString() + "/graph.mlir"), b);
    QVERIFY(lone.moduleAttributes.empty() && lone.abi.empty());
    QCOMPARE(lone.count(DiffStatus::Unchanged), diff.ops.size());
  }

  void reorderedAndRenamedIsEqual() {
    QTemporaryDir tmp;
    std::string text = readText(kClassifier + "/graph.mlir");
    // Attribute order: an op's dictionary reversed (and broken over lines), a weight's
    // attributes rotated, the module's weight_file moved first.
    text = replacedOnce(
        text,
        "{kernel_size = array<i64: 1, 1, 1>, stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, "
        "dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"}",
        "{accumulation = \"canonical_f32\",\n      dilation = array<i64: 1, 1, 1>, padding = array<i64: 0, "
        "0, 0>,"
        "\n      stride = array<i64: 1, 1, 1>, kernel_size = array<i64: 1, 1, 1>}");
    text = replacedOnce(text,
                        "{storage_key = \"head.weight\", layout = #lattice.weight_layout<linear_o_i>, "
                        "packing = #lattice.packing<dense>}",
                        "{packing = #lattice.packing<dense>, storage_key = \"head.weight\", layout = "
                        "#lattice.weight_layout<linear_o_i>}");
    text = replacedOnce(text, "  lattice.ir_version = 2,\n",
                        "  lattice.weight_file = \"weights.safetensors\",\n  lattice.ir_version = 2,\n");
    text = replacedOnce(text, ",\n  lattice.weight_file = \"weights.safetensors\"\n}", "\n}");
    const std::string renamed = renameValues(text);
    QVERIFY(renamed.find("%r_stem = lattice.conv3d %r_x, %r_stem_weight") != std::string::npos);
    QVERIFY(renamed.find("@s_head_bias") != std::string::npos);

    const LoadedArtifact a = load(kClassifier);
    const LoadedArtifact reordered =
        load(copyArtifact(kClassifier, tmp.filePath(QStringLiteral("o")), &text));
    const LoadedArtifact b = load(copyArtifact(kClassifier, tmp.filePath(QStringLiteral("r")), &renamed));

    const ArtifactDiff same = diffArtifacts(a, reordered);
    QVERIFY(same.equal());
    for (const OpDiff& op : same.ops)
      QVERIFY(!op.renamed);

    const ArtifactDiff diff = diffArtifacts(a, b);
    QVERIFY2(diff.equal(), formatDiff(diff, "a", "b").c_str());
    QCOMPARE(diff.ops.size(), a.graph.functions.front().ops.size());
    for (const OpDiff& op : diff.ops) {
      QCOMPARE(op.status, DiffStatus::Unchanged);
      QVERIFY2(op.renamed, op.nameA.c_str());
      QCOMPARE(op.nameB, (op.opName == "weight" ? "s_" : "r_") + op.nameA);
    }
    QCOMPARE(diffToJson(diff)["summary"]["ops"]["renamed"].get<std::size_t>(), diff.ops.size());
  }

  void handMadeChangesAreReportedExactly_data() {
    QTest::addColumn<QStringList>("edits"); // from, to, from, to, ...
    QTest::addColumn<QStringList>("expected");
    const std::string base = readText(kClassifier + "/graph.mlir");
    const QString sparse = QStringLiteral(
        "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>");
    QTest::newRow("attribute value")
        << QStringList{QStringLiteral("%pool = lattice.pool3d %act {mode = #lattice.pool_mode<avg>"),
                       QStringLiteral("%pool = lattice.pool3d %act {mode = #lattice.pool_mode<max>")}
        << QStringList{
               QStringLiteral("~ pool3d %pool: mode: #lattice.pool_mode<avg> -> #lattice.pool_mode<max>")};
    QTest::newRow("result type")
        << QStringList{QStringLiteral("batch_size = 2} : (") + sparse +
                           QStringLiteral(") -> tensor<?x4xf32>"),
                       QStringLiteral("batch_size = 2} : (") + sparse +
                           QStringLiteral(") -> tensor<?x4xf16>")}
        << QStringList{QStringLiteral(
               "~ global_pool %global_pool: result 0 type: tensor<?x4xf32> -> tensor<?x4xf16>")};
    QTest::newRow("added op")
        << QStringList{QStringLiteral("    %act = lattice.sparse.with_features"),
                       QStringLiteral(
                           "    %extra = lattice.activation %act_features {kind = #lattice.activation<relu>, "
                           "approximate = #lattice.gelu_approx<none>, alpha = 0.01 : f32, beta = 1.0 : f32, "
                           "threshold = 20.0 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>\n"
                           "    %act = lattice.sparse.with_features")}
        << QStringList{QStringLiteral("+ activation %extra")};
    // Removing the pool re-wires its consumer: both are differences.
    QTest::newRow("removed op")
        << QStringList{QString::fromStdString(lineContaining(base, "%pool = lattice.pool3d")), QString(),
                       QStringLiteral("lattice.global_pool %pool "),
                       QStringLiteral("lattice.global_pool %act ")}
        << QStringList{QStringLiteral("- pool3d %pool"),
                       QStringLiteral("~ global_pool %global_pool: operand 0: %pool -> %act")};
    QTest::newRow("output renamed") << QStringList{QStringLiteral("lattice.output_names = [\"output\"]"),
                                                   QStringLiteral("lattice.output_names = [\"logits\"]")}
                                    << QStringList{QStringLiteral("abi output 0 name: output -> logits")};
    QTest::newRow("module attribute")
        << QStringList{QStringLiteral("lattice.ir_version = 2"), QStringLiteral("lattice.ir_version = 3")}
        << QStringList{QStringLiteral("module attribute lattice.ir_version: 2 -> 3")};
    QTest::newRow("module attribute added")
        << QStringList{QStringLiteral("lattice.weight_file = \"weights.safetensors\""),
                       QStringLiteral(
                           "lattice.weight_file = \"weights.safetensors\",\n  lattice.producer = \"hand\"")}
        << QStringList{QStringLiteral("module attribute lattice.producer: (absent) -> \"hand\"")};
    QTest::newRow("input type")
        << QStringList{QStringLiteral("%x_features: tensor<?x3xf32>"),
                       QStringLiteral("%x_features: tensor<?x5xf32>"),
                       QStringLiteral("(tensor<?x4xi32>, tensor<?x3xf32>, tensor<1xi32>)"),
                       QStringLiteral("(tensor<?x4xi32>, tensor<?x5xf32>, tensor<1xi32>)")}
        << QStringList{
               QStringLiteral("abi input 'x_features' type: tensor<?x3xf32> -> tensor<?x5xf32>"),
               QStringLiteral("~ sparse.make %x: operand 1 type: tensor<?x3xf32> -> tensor<?x5xf32>")};
    QTest::newRow("weight storage key")
        << QStringList{QStringLiteral("storage_key = \"head.bias\""),
                       QStringLiteral("storage_key = \"head.b\"")}
        << QStringList{QStringLiteral("~ weight @head_bias: storage_key: \"head.bias\" -> \"head.b\""),
                       QStringLiteral("+ weight head.b: dense"),
                       QStringLiteral("  weight head.b: missing from weights.safetensors"),
                       QStringLiteral("- weight head.bias: F32 [2]")};
  }
  void handMadeChangesAreReportedExactly() {
    QFETCH(QStringList, edits);
    QFETCH(QStringList, expected);
    QTemporaryDir tmp;
    std::string text = readText(kClassifier + "/graph.mlir");
    for (qsizetype i = 0; i + 1 < edits.size(); i += 2)
      text = replacedOnce(text, edits[i].toStdString(), edits[i + 1].toStdString());
    const LoadedArtifact a = load(kClassifier);
    const LoadedArtifact b = load(copyArtifact(kClassifier, tmp.filePath(QStringLiteral("b")), &text));
    const ArtifactDiff diff = diffArtifacts(a, b);
    QVERIFY(!diff.equal());
    QCOMPARE(differenceLines(diff), expected);
    const nlohmann::json j = diffToJson(diff);
    QCOMPARE(j["equal"].get<bool>(), false);
    // The reverse diff reports as many differences.
    QCOMPARE(differenceLines(diffArtifacts(b, a)).size(), expected.size());
  }

  void addedAndRemovedOpsKeepTheirPlace() {
    QTemporaryDir tmp;
    const std::string base = readText(kClassifier + "/graph.mlir");
    const std::string text =
        replacedOnce(base, lineContaining(base, "%pool = lattice.pool3d"),
                     replacedOnce(lineContaining(base, "%pool = lattice.pool3d"), "%pool =", "%pool2 ="));
    const std::string edited =
        replacedOnce(text, "lattice.global_pool %pool ", "lattice.global_pool %pool2 ");
    const LoadedArtifact a = load(kClassifier);
    const LoadedArtifact b = load(copyArtifact(kClassifier, tmp.filePath(QStringLiteral("b")), &edited));
    // Renamed along the data flow: the pool matches by its input, the global pool by name.
    const ArtifactDiff diff = diffArtifacts(a, b);
    QVERIFY2(diff.equal(), formatDiff(diff, "a", "b").c_str());
    const auto pool =
        std::find_if(diff.ops.begin(), diff.ops.end(), [](const OpDiff& o) { return o.opName == "pool3d"; });
    QVERIFY(pool != diff.ops.end() && pool->renamed && pool->nameB == "pool2");

    // A removed op sits after its predecessor in A: the order is B's with removals in place.
    const std::string removed =
        replacedOnce(replacedOnce(base, lineContaining(base, "%pool = lattice.pool3d"), ""),
                     "lattice.global_pool %pool ", "lattice.global_pool %act ");
    const ArtifactDiff d2 =
        diffArtifacts(a, load(copyArtifact(kClassifier, tmp.filePath(QStringLiteral("c")), &removed)));
    QCOMPARE(d2.ops.size(), a.graph.functions.front().ops.size());
    for (std::size_t i = 0; i < d2.ops.size(); ++i)
      QCOMPARE(d2.ops[i].indexA, static_cast<int>(i));
  }

  void loadErrorsNameTheFile() {
    QTemporaryDir tmp;
    Expected<LoadedArtifact> missing = loadArtifact("/nonexistent/x.lattice");
    QVERIFY(!missing.ok());
    QVERIFY(missing.message().find("'/nonexistent/x.lattice'") != std::string::npos);

    const std::string broken = "module attributes {} {\n  func.func @forward() {\n    %y = lattice.bogus\n";
    const std::string dir = tmp.filePath(QStringLiteral("broken")).toStdString();
    writeArtifact(QString::fromStdString(dir), broken, {});
    Expected<LoadedArtifact> bad = loadArtifact(dir);
    QVERIFY(!bad.ok());
    QVERIFY2(bad.message().rfind("cannot parse '" + dir + "/graph.mlir': 3:", 0) == 0, bad.message().c_str());

    QDir().mkpath(tmp.filePath(QStringLiteral("empty")));
    Expected<LoadedArtifact> empty = loadArtifact(tmp.filePath(QStringLiteral("empty")).toStdString());
    QVERIFY(!empty.ok());
    QVERIFY2(empty.message().find("graph.mlir") != std::string::npos, empty.message().c_str());
  }
};

QTEST_APPLESS_MAIN(TestArtifactDiff)
#include "tst_artifact_diff.moc"
