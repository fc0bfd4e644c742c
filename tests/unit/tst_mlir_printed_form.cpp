// The reader on MLIR's printed form: artifacts as `lattice-opt` prints them back (dialect prefix
// stripped from types its ops imply, sorted attribute dictionaries, `%arg0`/`%0` names, APFloat
// floats such as `9.99999974E-6`, `: i64` on integers). The printed files in
// data/lattice-opt/printed/ were written by upstream lattice-opt itself (see its README), not by
// this project: each must parse and validate, and a conformance model's printed graph with the
// original weights must compute exactly what the original artifact computes on the case's inputs
// (the second method is the original's run). Result groups (`%0:3`, `%0#1`), which MLIR prints
// for unnamed multi-result ops, are read too, and text MLIR's parser rejects is still rejected
// with its line:column.

#include "mlir/ArtifactPrinter.h"
#include "mlir/MlirParser.h"
#include "runtime/Runtime.h"
#include "tensor/Safetensors.h"
#include "verify/ArtifactValidation.h"
#include "verify/ArtifactVerifier.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QTemporaryDir>

#include <cstring>
#include <fstream>
#include <sstream>

using namespace lattice;

namespace {

const QString kData = QStringLiteral(LATTICE_TEST_DATA_DIR);
const QString kPrinted = kData + QStringLiteral("/lattice-opt/printed/");
const QString kModels = kData + QStringLiteral("/conformance/models/");

std::string readFile(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The op names of the entry function, in order.
QStringList opNames(const ArtifactGraph& g) {
  QStringList out;
  if (const ArtifactFunction* f = g.entry())
    for (const ArtifactOp& op : f->ops)
      out << QString::fromStdString(op.name);
  return out;
}

// Runs the artifact directory `dir` on `inputsFile`; the outputs, or a failure message.
Expected<std::vector<NamedTensor>> runArtifact(const QString& dir, const QString& inputsFile) {
  Expected<runtime::Runtime> rt = runtime::Runtime::open(dir.toStdString());
  if (!rt) return rt.error();
  Expected<SafetensorsFile> file = SafetensorsFile::open(inputsFile.toStdString());
  if (!file) return file.error();
  Expected<runtime::RuntimeInputs> inputs = runtime::RuntimeInputs::fromFile(*file);
  if (!inputs) return inputs.error();
  if (Status s = rt->start(*inputs); !s) return s.error();
  if (Status s = rt->run(); !s) return s.error();
  return rt->outputs();
}

// Parses `text` expecting a parse error; its `line:col: message`.
QString parseError(const std::string& text) {
  const ArtifactParseResult r = parseArtifactGraph(text, "p.mlir");
  if (r.ok()) return QStringLiteral("(parsed)");
  return QStringLiteral("%1:%2: %3")
      .arg(r.error.loc.line)
      .arg(r.error.loc.column)
      .arg(QString::fromStdString(r.error.message));
}

const char* const kHeader =
    "module attributes {lattice.input_names = [\"x_coords\", \"x_features\", \"x_active\"], "
    "lattice.input_roles = [\"sparse_coords\", \"sparse_features\", \"sparse_active\"], "
    "lattice.ir_version = 2 : i64, lattice.output_names = [\"output\"], lattice.output_roles = [\"tensor\"], "
    "lattice.schema_digest = \"1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad\", "
    "lattice.weight_file = \"weights.safetensors\"} {\n"
    "  func.func @forward(%arg0: tensor<?x4xi32>, %arg1: tensor<?x3xf32>, %arg2: tensor<1xi32>) -> "
    "tensor<?x3xf32> {\n"
    "    %0 = lattice.sparse.make %arg0, %arg1, %arg2 {coord_order = #lattice.coord<batch_x_y_z>, stride = "
    "array<i64: 1, 1, 1>} : (tensor<?x4xi32>, tensor<?x3xf32>, tensor<1xi32>) -> !lattice.sparse_tensor<rank = "
    "3, coord = batch_x_y_z, feature = row_channel, dtype = f32>\n";
const char* const kSparse = "<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>";

// The header, `body` (line 4 on) and the closing lines.
std::string module(const std::string& body, const std::string& ret) {
  return std::string(kHeader) + body + "    return " + ret + " : tensor<?x3xf32>\n  }\n}\n";
}

} // namespace

class TestMlirPrintedForm : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // Every conformance model as lattice-opt printed it: it validates with the original weights and
  // runs to the original artifact's outputs, bit for bit, on the case's inputs.
  void printedModelsRunLikeTheOriginals_data() {
    QTest::addColumn<QString>("name");
    const QStringList models = QDir(kModels).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QVERIFY(models.size() >= 7);
    for (const QString& m : models)
      QTest::newRow(qPrintable(m)) << m;
  }
  void printedModelsRunLikeTheOriginals() {
    QFETCH(QString, name);
    const QString original = kModels + name + QStringLiteral("/expected.lattice");
    const QString printedFile = kPrinted + QStringLiteral("models/") + name + QStringLiteral(".mlir");
    QVERIFY2(QFile::exists(printedFile), "regenerate data/lattice-opt (README)");
    // The printed form really is MLIR's, not the writer's.
    const std::string printed = readFile(printedFile);
    QVERIFY(printed.find("%arg0") != std::string::npos);
    QVERIFY(printed.find("lattice.ir_version = 2 : i64") != std::string::npos);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QFile::copy(printedFile, dir.filePath(QStringLiteral("graph.mlir"))));
    QVERIFY(QFile::copy(original + QStringLiteral("/weights.safetensors"),
                        dir.filePath(QStringLiteral("weights.safetensors"))));
    const ArtifactValidation v = validateArtifact(dir.path().toStdString());
    QVERIFY2(v.ok(), renderDiagnostics(v.diagnostics).c_str());
    QVERIFY(v.diagnostics.empty());
    QVERIFY(v.weightsChecked);

    // The same ops in the same order as the original.
    const ArtifactValidation o = validateArtifact(original.toStdString());
    QVERIFY(o.ok());
    QCOMPARE(opNames(*v.graph), opNames(*o.graph));

    const QString inputs = kModels + name + QStringLiteral("/inputs.safetensors");
    Expected<std::vector<NamedTensor>> want = runArtifact(original, inputs);
    QVERIFY2(want, want ? "" : want.error().message.c_str());
    Expected<std::vector<NamedTensor>> got = runArtifact(dir.path(), inputs);
    QVERIFY2(got, got ? "" : got.error().message.c_str());
    QCOMPARE(got->size(), want->size());
    for (std::size_t i = 0; i < want->size(); ++i) {
      const TensorData& a = (*got)[i].tensor;
      const TensorData& b = (*want)[i].tensor;
      QCOMPARE((*got)[i].key, (*want)[i].key);
      QCOMPARE(a.dtype(), b.dtype());
      QCOMPARE(a.shape(), b.shape());
      QCOMPARE(a.byteSize(), b.byteSize());
      QVERIFY2(std::memcmp(a.data(), b.data(), a.byteSize()) == 0, (*want)[i].key.c_str());
    }
  }

  // Every upstream valid fixture as lattice-opt printed it verifies as its original does.
  void printedDialectFixturesVerify_data() {
    QTest::addColumn<QString>("path");
    const QString dir = kPrinted + QStringLiteral("dialect-valid/");
    const QStringList files = QDir(dir).entryList({QStringLiteral("*.mlir")}, QDir::Files);
    QVERIFY(files.size() >= 21);
    for (const QString& f : files)
      QTest::newRow(qPrintable(f)) << dir + f;
  }
  void printedDialectFixturesVerify() {
    QFETCH(QString, path);
    const ArtifactValidation v = validateArtifact(path.toStdString());
    QVERIFY2(v.ok(), renderDiagnostics(v.diagnostics).c_str());
    QVERIFY(v.diagnostics.empty());
  }

  // The two places the lattice assembly implies a lattice type take the stripped form, and
  // print back in the writer's full form.
  void strippedTypesWhereTheOpImpliesThem() {
    const std::string text = module(
        "    %1 = lattice.weight @w {layout = #lattice.weight_layout<channel_c>, packing = "
        "#lattice.packing<dense>, storage_key = \"w\"} : <channel, f32>\n"
        "    %coords, %features, %active = lattice.sparse.decompose %0 : " +
            std::string(kSparse) + " -> (tensor<?x4xi32>, tensor<?x3xf32>, tensor<1xi32>)\n"
            "    %2 = lattice.rms_norm %features, %1 {eps = 9.99999974E-6 : f32} : (tensor<?x3xf32>, "
            "!lattice.weight<channel, f32>) -> tensor<?x3xf32>\n",
        "%2");
    const ArtifactParseResult r = parseArtifactGraph(text, "p.mlir");
    QVERIFY2(r.ok(), r.error.str().c_str());
    QVERIFY2(verifyArtifactGraph(*r.graph).empty(), renderDiagnostics(verifyArtifactGraph(*r.graph)).c_str());
    const std::vector<ArtifactOp>& ops = r.graph->entry()->ops;
    QCOMPARE(ops[1].results[0].type.str(), std::string("!lattice.weight<channel, f32>"));
    QCOMPARE(ops[2].operandTypes[0].str(), "!lattice.sparse_tensor" + std::string(kSparse));
    const std::string printed = printOp(ops[1]);
    QVERIFY(printed.find(": !lattice.weight<channel, f32>") != std::string::npos);
    // The f32 attribute keeps the value MLIR printed.
    QCOMPARE(ops[3].attribute("eps")->value.number, 9.99999974e-6);
  }

  // `%0:3 = ...` defines %0#0..%0#2; `%0` alone is %0#0; the printer writes the group back.
  void resultGroups() {
    const std::string text =
        module("    %1:3 = lattice.sparse.decompose %0 : " + std::string(kSparse) +
                   " -> (tensor<?x4xi32>, tensor<?x3xf32>, tensor<1xi32>)\n"
                   "    %2 = lattice.sparse.make %1, %1#1, %1#2 {coord_order = #lattice.coord<batch_x_y_z>, "
                   "stride = array<i64: 1, 1, 1>} : (tensor<?x4xi32>, tensor<?x3xf32>, tensor<1xi32>) -> "
                   "!lattice.sparse_tensor" +
                   kSparse + "\n",
               "%1#1");
    const ArtifactParseResult r = parseArtifactGraph(text, "p.mlir");
    QVERIFY2(r.ok(), r.error.str().c_str());
    QVERIFY2(verifyArtifactGraph(*r.graph).empty(), renderDiagnostics(verifyArtifactGraph(*r.graph)).c_str());
    const ArtifactFunction& f = *r.graph->entry();
    QCOMPARE(f.ops[1].results.size(), std::size_t(3));
    QCOMPARE(f.ops[1].results[2].name, std::string("1#2"));
    QCOMPARE(f.ops[2].operands[0].name, std::string("1#0"));
    QCOMPARE(f.ret.operands[0].name, std::string("1#1"));
    const std::string printed = printArtifactGraph(*r.graph);
    QVERIFY(printed.find("%1:3 = lattice.sparse.decompose %0 :") != std::string::npos);
    QVERIFY(printed.find("lattice.sparse.make %1#0, %1#1, %1#2 ") != std::string::npos);
    const ArtifactParseResult again = parseArtifactGraph(printed, "again.mlir");
    QVERIFY2(again.ok(), again.error.str().c_str());
    QCOMPARE(printArtifactGraph(*again.graph), printed);
  }

  // What MLIR's parser rejects stays rejected, at the offending token.
  void stillRejected_data() {
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("error");
    // A functional type names its types in full: `<...>` alone is no type there.
    QTest::newRow("stripped type in a functional type")
        << QStringLiteral("    %1 = lattice.sparse.with_features %0, %arg1 : (<rank = 3, coord = batch_x_y_z, "
                          "feature = row_channel, dtype = f32>, tensor<?x3xf32>) -> tensor<?x3xf32>\n")
        << QStringLiteral("4:52: expected type");
    QTest::newRow("stripped weight type where a sparse one is implied")
        << QStringLiteral("    %a, %b, %c = lattice.sparse.decompose %0 : <conv3d, f32> -> (tensor<?x4xi32>, "
                          "tensor<?x3xf32>, tensor<1xi32>)\n")
        << QStringLiteral("4:49: expected 'rank'");
    QTest::newRow("stripped type with a missing parameter")
        << QStringLiteral("    %1 = lattice.weight @w {layout = #lattice.weight_layout<channel_c>, packing = "
                          "#lattice.packing<dense>, storage_key = \"w\"} : <channel>\n")
        << QStringLiteral("4:137: expected ','");
    QTest::newRow("empty result group")
        << QStringLiteral("    %1:0 = lattice.sparse.decompose %0 : !lattice.sparse_tensor<rank = 3, coord = "
                          "batch_x_y_z, feature = row_channel, dtype = f32> -> (tensor<?x4xi32>, tensor<?x3xf32>, "
                          "tensor<1xi32>)\n")
        << QStringLiteral("4:8: expected named operation to have at least 1 result");
    QTest::newRow("result group of the wrong size")
        << QStringLiteral("    %1:2 = lattice.sparse.decompose %0 : !lattice.sparse_tensor<rank = 3, coord = "
                          "batch_x_y_z, feature = row_channel, dtype = f32> -> (tensor<?x4xi32>, tensor<?x3xf32>, "
                          "tensor<1xi32>)\n")
        << QStringLiteral("4:5: operation defines 3 results but was provided 2 to bind");
  }
  void stillRejected() {
    QFETCH(QString, body);
    QFETCH(QString, error);
    QCOMPARE(parseError(module(body.toStdString(), "%arg1")), error);
  }

  // A group result that does not exist is an undeclared value for the verifier, at its use.
  void groupResultOutOfRange() {
    const std::string text = module("    %1:3 = lattice.sparse.decompose %0 : " + std::string(kSparse) +
                                        " -> (tensor<?x4xi32>, tensor<?x3xf32>, tensor<1xi32>)\n",
                                    "%1#3");
    const ArtifactParseResult r = parseArtifactGraph(text, "p.mlir");
    QVERIFY2(r.ok(), r.error.str().c_str());
    const std::vector<Diagnostic> d = verifyArtifactGraph(*r.graph);
    QVERIFY(!d.empty());
    QCOMPARE(QString::fromStdString(d.front().str()),
             QStringLiteral("p.mlir:5:12: error: use of undeclared SSA value name '%1#3'"));
  }
};

QTEST_APPLESS_MAIN(TestMlirPrintedForm)
#include "tst_mlir_printed_form.moc"
